"""Which rail prefixes a rail NIC reaches through its rail gateway: the routes of its own routing table.

A rail switch forwards between its own rail subnets (its SVIs) and, through the spines (and super-spines), to every
rail subnet of every rail switch cabled into the same tiers; a rail-only pod's switch reaches only its own subnets.
So the prefixes behind a gateway are the rail subnets of the switch's connected component of the switch graph
(fabric and core links, MLAG peer links), merged into the fewest prefixes that cover exactly those subnets (a whole
segment block or pod block becomes one route, and no unplanned address is covered). Computed once per component,
so 12,500 hosts cost one merge per pod.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain

from fabric.address import Prefix, range_prefixes
from fabric.allocate import Plan
from fabric.topology import LinkRole, Topology

_SWITCH_ROLES = frozenset({LinkRole.FABRIC, LinkRole.CORE})


def _components(topo: Topology) -> dict[str, str]:
    """Switch name → the name of its component's representative (the smallest name in it), over fabric, core and
    MLAG peer links. Each component is one set shared by its members; a link joining two merges the smaller into the
    larger (every switch moves O(log n) times)."""
    comp: dict[str, set[str]] = {name: {name} for name in topo.switches}
    for lk in chain((lk for lk in topo.links if lk.role in _SWITCH_ROLES), topo.peer_links):
        ca, cz = comp.get(lk.a[0]), comp.get(lk.z[0])
        if ca is None or cz is None or ca is cz:
            continue
        if len(ca) < len(cz):
            ca, cz = cz, ca
        ca |= cz
        for name in cz:
            comp[name] = ca
    rep: dict[int, str] = {}  # id of a component's set (each set is held by `comp` meanwhile) → its smallest name
    out: dict[str, str] = {}
    for name, members in comp.items():
        root = rep.get(id(members))
        if root is None:
            root = rep[id(members)] = min(members)
        out[name] = root
    return out


def merge_prefixes(prefixes: Iterable[Prefix]) -> list[Prefix]:
    """The fewest prefixes that cover exactly the addresses of `prefixes` (overlapping or adjacent ones joined),
    sorted by address: the canonical CIDR cover of their union."""
    ranges = sorted((p.net, p.net + p.size) for p in prefixes)
    out: list[Prefix] = []
    start, end = ranges[0] if ranges else (0, 0)
    for s, e in ranges[1:]:
        if s > end:
            out += range_prefixes(start, end)
            start, end = s, e
        elif e > end:
            end = e
    if ranges:
        out += range_prefixes(start, end)
    return out


def reachable(topo: Topology, plan: Plan) -> dict[str, tuple[str, ...]]:
    """Rail switch → the merged rail prefixes its gateways lead to (its own subnets included), sorted by address."""
    comp = _components(topo)
    subnets: dict[str, list[Prefix]] = {}
    for (switch, _rail), sub in plan.rail_subnets.items():
        subnets.setdefault(comp[switch], []).append(sub.prefix)
    merged = {root: tuple(str(p) for p in merge_prefixes(nets)) for root, nets in subnets.items()}
    return {switch: merged.get(comp[switch], ()) for switch, _rail in plan.rail_subnets}
