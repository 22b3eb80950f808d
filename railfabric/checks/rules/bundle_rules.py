"""L3 port-channel rules on the expanded topology: a bundle's ends must be able to express what railfabric asks of
it. PLAT001 when a switch's platform cannot set the bundle's min-links (NVUE bonds have no min-links, so a degraded
bundle would stay in ECMP and congest instead of leaving it), or cannot spray packets over a bundle while
`routing.ecmp.mode: packet` asks for it (Spectrum adaptive routing runs on routed ports, not bonds). PLAT057 when a
switch's dynamic load balancing (mode flowlet or packet) does not run with a port-channel among the ECMP members
(Junos DLB, lb30)."""

from __future__ import annotations

from railfabric.core.finding import Finding
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory, Pod
from railfabric.platforms import PLATFORMS
from railfabric.topology import Topology


def check_bundles(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    members: dict[str, int] = {}
    ends: dict[str, tuple[str, str]] = {}
    for link in topo.links:
        if link.bundle:
            members[link.bundle] = members.get(link.bundle, 0) + 1
            ends[link.bundle] = (link.a.device, link.z.device)
    pods: dict[int | None, tuple[int | None, Pod | None]] = {pod.id: (pi, pod) for pi, pod in enumerate(inv.pods)}
    packet = inv.routing.ecmp.mode.value == "packet"
    dlb = inv.routing.ecmp.mode.value in ("flowlet", "packet")
    seen: set[tuple[str, str, int | None]] = set()
    out: list[Finding] = []
    for bundle in sorted(members):
        for name in ends[bundle]:
            sw = topo.switches.get(name)
            if sw is None:
                continue
            traits = PLATFORMS[sw.platform]
            pod_id = sw.pod if sw.pod is not None else topo.switches[next(n for n in ends[bundle] if n != name)].pod
            pi, pod = pods.get(pod_id, (None, None))
            path = ("pods", pi, "spines", "port_channel_members") if pi is not None else ("routing",)
            min_links = min(pod.spines.min_links(), members[bundle]) if pod and pod.spines else members[bundle]
            if not traits.bond_min_links and min_links > 1 and ("min", sw.platform, pod_id) not in seen:
                seen.add(("min", sw.platform, pod_id))
                out.append(Finding("PLAT001", f"port-channel {bundle} ({sw.name}): min-links {min_links} cannot be "
                                   f"expressed on {sw.platform}, whose bonds have no min-links (pod {pod_id})",
                                   src.loc(path), "set spines.port_channel_min_links: 1 for this pod, or route the "
                                   "links one by one (no port_channel_members)"))
            if packet and not traits.packet_ecmp_on_bonds and ("packet", sw.platform, pod_id) not in seen:
                seen.add(("packet", sw.platform, pod_id))
                out.append(Finding("PLAT001", f"port-channel {bundle} ({sw.name}): ECMP mode 'packet' cannot run over "
                                   f"port-channels on {sw.platform} (adaptive routing is per routed port; pod "
                                   f"{pod_id})", src.loc(("routing", "ecmp", "mode")),
                                   "route the links one by one (no port_channel_members) or use mode: flow"))
            if dlb and not traits.dlb_over_bundles and ("dlb", sw.platform, pod_id) not in seen:
                seen.add(("dlb", sw.platform, pod_id))
                out.append(Finding("PLAT057", f"port-channel {bundle} ({sw.name}): {sw.platform}'s dynamic load "
                                   f"balancing (ECMP mode {inv.routing.ecmp.mode.value!r}) does not run when a "
                                   f"port-channel is an ECMP member (pod {pod_id})",
                                   src.loc(("routing", "ecmp", "mode")),
                                   "route the links one by one (no port_channel_members) or use mode: flow"))
    return out
