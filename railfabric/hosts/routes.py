"""The routes of a rail NIC's own routing table: what a host sends from NIC r's address, and where it goes.

Every host file must depend only on stable facts of its host (its NICs, their addresses and gateways, its pod's
design, the fabric's policy and pools), never on how many segments, pods or hosts exist: growing the fabric adds host
files and rewrites none (at 100,000 GPUs a growth step must not re-push every server; tests/test_hosts_growth.py).
So a table never lists the fabric's segments or pods one by one; it holds, decided here once:

- a pod WITH spines (its rail switches are cabled to spines, and through super-spines to the other pods):
  1. the NIC's rail subnet on-link (`scope: link`): same rail, same rail switch: straight to the peer's NIC;
  2. the whole rail pool (pools.rail_subnets) via the NIC's rail gateway: every other rail address, whatever rail,
     segment or pod, leaves through NIC r to rail switch r, and the fabric's own routing (eBGP: rail switch ->
     spines -> super-spines, the summaries the switches advertise) carries it from there. The pool is a stable
     aggregate: every rail subnet is cut from it and it changes only when an operator changes it (which renumbers
     on purpose). A destination the fabric has no route for (a rail-only pod, a segment not built yet, an address
     no plan gives) is dropped by rail switch r, which has no default route in the fabric's routing table (only
     its management VRF has one): it still left through NIC r, never through another rail's NIC. (The table used
     to list one route per reachable segment block, so every new segment rewrote every server's file.)
- a pod WITHOUT spines (rail-only: each rail switch reaches its own rail SVIs only, cross-rail traffic moves over
  NVLink, NCCL_CROSS_NIC=0):
  1. the rail subnet on-link;
  2. the other rail subnets of the NIC's rail switch (and of its MLAG peer) via the gateway, merged into the fewest
     prefixes: what the switch routes between its own SVIs (a multi-rail or dual-rail switch); nothing for a
     single-rail switch;
  3. the whole rail pool `unreachable`, last: another rail's address gets "no route" from NIC r's table at once
     instead of falling through to the main table, whose connected route would send it out of the other rail's NIC.
  All of it is fixed by the NIC's own segment: a rail-only switch has no cable to any switch but its MLAG peer, so
  growth elsewhere never adds anything it reaches.

Why this is still right for RoCE v2 with one table per NIC: a queue pair's source is the RoCE v2 GID of NIC r's IPv4
address (NCCL_IB_GID_INDEX 3), and the kernel resolves the QP's next hop (verbs or RDMA-CM alike) by a route lookup
from that address, so the rule `from <address r> lookup <table r>` (railfabric/hosts/build.py) selects this table, and
the NIC sends every packet of the QP to the next hop found there. Same rail:
on-link in one segment, else via gateway r to rail switch r, the spines and the peer's rail switch (the path the
per-segment routes took before, the same next hop). Cross rail (NIC r to a peer's NIC q, pods with spines): via
gateway r into the fabric, which routes rail r's switch to rail q's (through the spines, or inside one switch that
holds both rails' SVIs); never out of NIC q of the sender. The peer answers from its NIC q's address through its own
table q: gateway q. Both directions are symmetric per NIC and reverse-path filtering is loose (roce.sh), so a reply
arriving on another NIC than a request left from is not dropped. Nothing goes into the main table: traffic that did
not choose a rail address stays on the front-end network. Why not per-rail aggregates: the address plan interleaves
rails inside each segment block (railfabric/plan/allocate.py: the rail group's aggregate, then the rail slot's subnet),
so no prefix covers exactly one rail's subnets across segments, and in a pod with spines the fabric routes across rails
anyway.

Which rail subnets a rail-only switch reaches is the connected component of the switch graph (fabric and core links,
MLAG peer links) holding it; computed once per component.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain

from railfabric.core.address import Prefix, range_prefixes
from railfabric.core.address6 import Prefix6, range_prefixes6
from railfabric.plan.allocate import Plan
from railfabric.topology import LinkRole, Topology

from .model import Route

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


def isolated(topo: Topology, plan: Plan, pods: Iterable[int]) -> dict[str, tuple[str, ...]]:
    """Rail switch of one of `pods` (the pods without spines) → the merged rail subnets of its component (its own
    among them), sorted by address. Only these switches' components are merged, so what a rail-only switch reaches
    never depends on the rest of the fabric."""
    wanted = set(pods)
    if not wanted:
        return {}
    comp = _components(topo)
    subnets: dict[str, list[Prefix]] = {}
    keys = [k for k in plan.rail_subnets if topo.switches[k[0]].pod in wanted]
    roots = {comp[switch] for switch, _rail in keys}
    for (switch, _rail), sub in plan.rail_subnets.items():
        root = comp[switch]
        if root in roots:
            subnets.setdefault(root, []).append(sub.prefix)
    merged = {root: tuple(str(p) for p in merge_prefixes(nets)) for root, nets in subnets.items()}
    return {switch: merged[comp[switch]] for switch, _rail in keys}


def isolated_v6(topo: Topology, plan: Plan, pods: Iterable[int]) -> dict[str, tuple[str, ...]]:
    """isolated() in IPv6 (dual-stack): rail switch of a rail-only pod → the rail /64s of its component, merged."""
    wanted = set(pods)
    v6 = plan.v6
    if not wanted or v6 is None:
        return {}
    comp = _components(topo)
    subnets: dict[str, list[Prefix6]] = {}
    keys = [k for k in v6.rail_subnets if topo.switches[k[0]].pod in wanted]
    roots = {comp[switch] for switch, _rail in keys}
    for (switch, _rail), sub in v6.rail_subnets.items():
        if comp[switch] in roots:
            subnets.setdefault(comp[switch], []).append(sub.prefix)
    merged = {root: tuple(str(p) for p in _merge6(nets)) for root, nets in subnets.items()}
    return {switch: merged[comp[switch]] for switch, _rail in keys}


def _merge6(prefixes: Iterable[Prefix6]) -> list[Prefix6]:
    """merge_prefixes in IPv6."""
    ranges = sorted((p.net, p.net + p.size) for p in prefixes)
    out: list[Prefix6] = []
    start, end = ranges[0] if ranges else (0, 0)
    for s, e in ranges[1:]:
        if s > end:
            out += range_prefixes6(start, end)
            start, end = s, e
        elif e > end:
            end = e
    if ranges:
        out += range_prefixes6(start, end)
    return out


def rail_routes(subnet: str, gateway: str, pool: str, behind: tuple[str, ...] | None) -> tuple[Route, ...]:
    """The routes of the table of a NIC on `subnet` with rail gateway `gateway`: in a pod with spines (`behind`
    None) the subnet on-link and the whole rail pool via the gateway; in a rail-only pod the subnet on-link, the
    other prefixes `behind` the gateway (isolated()) through it and the pool unreachable last."""
    if behind is None:
        return (Route(subnet, None),) if pool == subnet else (Route(subnet, None), Route(pool, gateway))
    return (Route(subnet, None), *(Route(p, gateway) for p in behind if p != subnet),
            Route(pool, None, unreachable=True))
