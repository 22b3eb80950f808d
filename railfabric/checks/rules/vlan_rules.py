"""VLAN rules on the expanded topology, per rail switch and its platform: a rail VLAN must be one the switch can
configure (VLAN002: NX-OS keeps 3968-4094 for itself) and, in an MLAG pair, must not be the platform's peer VLAN
(MLAG003: 4094, or 3967 on NX-OS where 4094 is reserved). One finding per segment and platform, naming the VLANs."""

from __future__ import annotations

from collections import defaultdict

from railfabric.core.finding import Finding
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import DualHoming, Inventory
from railfabric.platforms import PLATFORMS
from railfabric.topology import Topology
from railfabric.topology.model import MLAG_PEER_VLAN as PEER_VLAN


def check_vlans(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    out: list[Finding] = []
    seg_path = {(pod.id, seg.id): ("pods", pi, "segments", si) for pi, pod in enumerate(inv.pods)
                for si, seg in enumerate(pod.segments)}
    for info in topo.segments:
        path = seg_path[(info.pod, info.id)]
        where = src.loc((*path, "vlan_base")) or src.loc(("fabric", "rail_vlan_base")) or src.loc(path)
        by_platform: dict[str, set[int]] = defaultdict(set)
        for name in info.switches:
            sw = topo.switches[name]
            by_platform[sw.platform] |= {info.vlan_base + r for r in sw.rails}
        for platform, vlans in sorted(by_platform.items()):
            traits = PLATFORMS[platform]
            if traits.reserved_vlans:
                lo, hi = traits.reserved_vlans
                bad = sorted(v for v in vlans if lo <= v <= hi)
                if bad:
                    out.append(Finding("VLAN002", f"segment {info.pod}/{info.id}: rail VLAN(s) {_ids(bad)} on "
                                       f"{platform} are in its reserved block {lo}-{hi}", where,
                                       f"lower vlan_base so that the rail VLANs stay below {lo}"))
            if info.sides == 2 and info.dual_homing is DualHoming.MLAG:
                peer = traits.mlag_peer_vlan or PEER_VLAN
                if peer in vlans:
                    out.append(Finding("MLAG003", f"segment {info.pod}/{info.id}: a rail VLAN is {peer}, the MLAG "
                                       f"peer VLAN on {platform}", where,
                                       f"lower vlan_base so that vlan_base + rails stays below {peer}"))
    return out


def _ids(vlans: list[int]) -> str:
    return ", ".join(map(str, vlans[:6])) + (f" and {len(vlans) - 6} more" if len(vlans) > 6 else "")
