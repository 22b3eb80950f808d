"""MLAG rules (MLAG001, MLAG002, MLAG004; the peer VLAN clash MLAG003 is in vlan_rules) on the expanded
topology: every pair of a `dual_homing: mlag` segment has a peer link that keeps the shared gateway and subnet
summary from blackholing after one host link fails, and the pair can be one logical switch (same platform and
model)."""

from __future__ import annotations

from collections import defaultdict

from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.core.units import format_speed
from railfabric.inventory.intent import DualHoming, Inventory
from railfabric.platforms import PLATFORMS
from railfabric.topology import Switch, Topology


def check_mlag(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    out: list[Finding] = []
    peer_speed: dict[str, list[int]] = defaultdict(list)  # pair (peer-link bundle) → member speeds
    for link in topo.peer_links:
        peer_speed[link.bundle or link.id].append(link.a.speed)
    seg_by_id = {(pod.id, seg.id): (pi, si, seg) for pi, pod in enumerate(inv.pods)
                 for si, seg in enumerate(pod.segments)}
    for info in topo.segments:
        if info.sides != 2 or info.dual_homing is not DualHoming.MLAG:
            continue
        pi, si, seg = seg_by_id[(info.pod, info.id)]
        path = ("pods", pi, "segments", si)
        nic_speed = inv.host_models[seg.host_groups[0].model].nic_speed
        for a, b in _pairs(topo, info.switches):
            out += _pair(a, b, peer_speed.get(f"{a.name}={b.name}", []), nic_speed, src, path)
    return out


def _pairs(topo: Topology, names: tuple[str, ...]) -> list[tuple[Switch, Switch]]:
    switches = [topo.switches[n] for n in names]
    return [(switches[i], switches[i + 1]) for i in range(0, len(switches) - 1, 2)]


def _pair(a: Switch, b: Switch, speeds: list[int], nic_speed: int, src: SourceMap, path: tuple) -> list[Finding]:
    out: list[Finding] = []
    where = src.loc(path)
    for what, x, y in (("platform", a.platform, b.platform), ("model", a.model, b.model)):
        if x != y:
            out.append(Finding("MLAG002", f"MLAG pair {a.name} / {b.name}: {what} {x} and {y} differ; the pair "
                               "must be one logical switch", src.values.get(("devices", b.key)) or where,
                               f"give both switches the same {what} (devices: overrides apply to one switch)"))
    for sw in (a, b) if a.platform != b.platform else (a,):
        traits = PLATFORMS[sw.platform]
        if DualHoming.MLAG.value not in traits.dual_homing:
            out.append(Finding("PLAT001", f"MLAG pair {a.name} / {b.name}: dual_homing: mlag cannot be expressed on "
                               f"{sw.platform} ({sw.name}); {sw.platform} offers "
                               f"{', '.join(sorted(traits.dual_homing)) or 'no dual homing'}"
                               f"{': ' + traits.dual_homing_refusal if traits.dual_homing_refusal else ''}",
                               src.values.get(("devices", sw.key)) or src.loc((*path, "dual_homing")),
                               "move the segment to a platform that renders MLAG, or use dual_homing: two-vlans"))
    if not speeds:
        out.append(Finding("MLAG001", f"MLAG pair {a.name} / {b.name} has no peer link (every peer-link port is "
                           "disabled or missing): after one host link fails, traffic for that host reaching the other "
                           "switch of the pair would be blackholed by the shared gateway and subnet", where,
                           "enable the peer-link ports or name working ones in the model's port_blocks.peer_link"))
        return out
    capacity = sum(speeds)
    if len(speeds) == 1:
        out.append(Finding("MLAG004", f"MLAG pair {a.name} / {b.name}: the peer link has one port; one more "
                           "failure after a host link failure blackholes that host's traffic", where,
                           "use peer_link_ports: 2 or more", Severity.WARNING))
    elif capacity < nic_speed:
        out.append(Finding("MLAG004", f"MLAG pair {a.name} / {b.name}: the peer link carries "
                           f"{format_speed(capacity)}, less than one host port ({format_speed(nic_speed)})", where,
                           "add peer_link_ports", Severity.WARNING))
    return out



