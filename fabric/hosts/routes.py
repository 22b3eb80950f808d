"""Which rail prefixes a rail NIC reaches through its rail gateway: the routes of its own routing table.

A rail switch forwards between its own rail subnets (its SVIs) and, through the spines (and super-spines), to every
rail subnet of every rail switch cabled into the same tiers; a rail-only pod's switch reaches only its own subnets.
So the prefixes behind a gateway are the rail subnets of the switch's connected component of the switch graph
(fabric and core links, MLAG peer links), merged into the fewest prefixes that cover exactly those subnets (netaddr's
CIDR merge: a whole segment block or pod block becomes one route, and no unplanned address is covered). Computed once
per component, so 12,500 hosts cost one merge per pod.
"""

from __future__ import annotations

from collections.abc import Iterable

import netaddr

from fabric.allocate import Plan
from fabric.topology import LinkRole, Topology


def _components(topo: Topology) -> dict[str, str]:
    """Switch name → the name of its component's representative (union-find over fabric, core and peer links)."""
    parent = {name: name for name in topo.switches}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    links: Iterable = (lk for lk in topo.links if lk.role in (LinkRole.FABRIC, LinkRole.CORE))
    for lk in (*links, *topo.peer_links):
        if lk.a.device in parent and lk.z.device in parent:
            ra, rz = find(lk.a.device), find(lk.z.device)
            if ra != rz:
                parent[max(ra, rz)] = min(ra, rz)
    return {name: find(name) for name in parent}


def reachable(topo: Topology, plan: Plan) -> dict[str, tuple[str, ...]]:
    """Rail switch → the merged rail prefixes its gateways lead to (its own subnets included), sorted by address."""
    comp = _components(topo)
    subnets: dict[str, set[str]] = {}
    for (switch, _rail), sub in plan.rail_subnets.items():
        subnets.setdefault(comp[switch], set()).add(str(sub.prefix))
    merged = {root: tuple(str(n) for n in sorted(netaddr.cidr_merge(list(nets))))
              for root, nets in subnets.items()}
    return {switch: merged.get(comp[switch], ()) for switch, _rail in plan.rail_subnets}
