"""What one failure costs, per failure class of the fabric, in GPUs: the rows of generated/docs/fabric.md's table.

One representative per class the fabric has, the first in topology (identity) order, so the rows are stable:
- a rail switch of each segment kind: its rail design (single-rail, dual-rail, multi-rail), dual-homed or not, and
  whether its pod has spines (a rail-only pod has nothing above its rail switches);
- one spine, one super-spine;
- one link: a routed rail-switch uplink, a spine uplink; one member of an L3 port-channel (the bundle goes down when
  that leaves it under min-links, railfabric/checks/solver/paths.py);
- one switch of an MLAG pair (the first rail switch with a peer link; it is the first rail switch of its segment,
  so it is listed once, as a rail switch of a dual-homed segment);
- one host NIC (every port of the NIC of the first host link: NIC 0 of the first host unless its cable is off).
Each is computed by `impact` (railfabric/impact/compute.py, without the routes): the GPUs isolated, the GPUs that keep
their rail at reduced bandwidth (`reduced.gpus`: a NIC that lost a port but not its rail, a NIC whose rail switches
lost uplink capacity, or a NIC in a pod whose spines lost uplink capacity, each GPU counted once), and per pod and
tier the uplink capacity left. The solver's worst-case tables come from the same computation
(railfabric/checks/solver/after_failure.py).
"""

from __future__ import annotations

from railfabric.impact.compute import impact
from railfabric.impact.targets import Resolver
from railfabric.inventory.intent import Inventory
from railfabric.topology import LinkRole, Role, Topology


def failure_classes(inv: Inventory, topo: Topology) -> list[tuple[str, str]]:
    """(class, the name to take down) per failure class the fabric has, in the order of the module docstring."""
    spined = {p.id for p in inv.pods if p.spines}
    out: list[tuple[str, str]] = []
    seen: set[tuple] = set()
    for info in topo.segments:
        key = (info.design.value, info.dual_homing is not None, info.pod in spined)
        if key in seen or not info.switches:
            continue
        seen.add(key)
        what = f"rail switch, {info.design.value}"
        if info.dual_homing is not None:
            what += f", dual-homed ({info.dual_homing.value})"
        if info.pod not in spined:
            what += ", rail-only pod"
        out.append((what, info.switches[0]))
    for role, what in ((Role.SPINE, "spine"), (Role.SUPER_SPINE, "super-spine")):
        first = next((n for n, sw in topo.switches.items() if sw.role is role), None)
        if first is not None:
            out.append((what, first))
    links = (("rail-switch uplink", LinkRole.FABRIC, False), ("spine uplink", LinkRole.CORE, False),
             ("port-channel member", LinkRole.FABRIC, True), ("port-channel member", LinkRole.CORE, True))
    for what, link_role, bundled in links:
        lk = next((lk for lk in topo.links if lk.role is link_role and bool(lk.bundle) is bundled), None)
        if lk is not None and not (bundled and any(w == what for w, _n in out)):
            out.append((what, lk.id))
    if topo.peer_links and all(n != topo.peer_links[0].a.device for _w, n in out):
        out.append(("MLAG pair member", topo.peer_links[0].a.device))
    nic = next((lk for lk in topo.links if lk.role is LinkRole.HOST and lk.nic is not None), None)
    if nic is not None:
        out.append(("host NIC", f"{nic.a.device}:nic{nic.nic}"))
    return out


def failure_costs(inv: Inventory, topo: Topology) -> list[dict]:
    """One row per failure class: class, name, GPUs isolated, GPUs at reduced bandwidth, and per (pod, tier) that
    lost uplink capacity its share left (percent)."""
    resolver = Resolver(topo, inv.switch_models)
    rows = []
    for what, name in failure_classes(inv, topo):
        out = impact(inv, topo, None, resolver.resolve([name]), routes=False)
        reduced = out["reduced"]
        rows.append({"class": what, "down": name, "gpus_isolated": out["isolated"]["gpus"],
                     "hosts_isolated": len(out["isolated"]["hosts"]),
                     "gpus_reduced": reduced["gpus"],
                     "tiers_left": [{"pod": t["pod"], "tier": t["tier"], "left_pct": t["left_pct"]}
                                    for t in out["tiers"]]})
    return rows
