"""The BGP routes a device must show after deployment, each with the number of ECMP next-hops the plan gives.

Derived without simulating the fabric (a path-vector run over 5,000+ switches costs minutes), from the RFC 7938
shape of the underlay: every switch has its own eBGP sessions, a pod's spines share an ASN, so do the super-spines,
and a route's best paths are its shortest AS paths, one next-hop per session, capped at maximum-paths
(multipath-relax on). Three kinds, each exact under that model (tests/test_state.py compares them with the lab's
path-vector model, railfabric/lab/expect.py, on the example):

- peer loopback: the loopback /32 of each eBGP peer device; the shortest path is the direct one (AS path length 1),
  so next-hops = sessions to that peer;
- peer rail prefix (spines): each rail prefix a rail switch below sends (its summary, or its rail subnets), next-hops
  = sessions to every rail switch sending it (both switches of an MLAG pair send the same subnets);
- remote segment (rail switches under spines): for each other segment of the pod, the prefixes of its rail
  switches that serve one of this switch's rails (same-rail traffic between segments is what crosses the spines);
  path spine → rail switch (length 2), next-hops = sessions to the spines that peer one of its senders. Where a
  spine of the pod has an aggregate covering the prefix (routing.spine_pod_aggregate), the prefix is suppressed
  and the spines' aggregate is the route instead.
iBGP sessions (the MLAG peer) are left out: their routes lose to nothing and win nothing the checks rely on.

Dual-stack (routing.address_families with ipv6): the IPv6 unicast family is activated on the same sessions
(railfabric/device/routing_v6.py) and every switch originates the IPv6 twin of each IPv4 prefix it originates (its
loopback /128, its rail /64s, its IPv6 summaries over the same /64s: railfabric/plan/allocate_v6.py), so the IPv6
best paths are the IPv4 ones: same sessions, same AS paths, same widths and origins. routes_v6 swaps each route's
prefix for its twin (FabricIndex.twins) instead of deriving them again; tests/test_anta_catalog.py compares them
with the lab's path-vector model run on the IPv6 prefix-lists (railfabric/lab/expect.py, Expected.routes_v6).
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

from railfabric.core.address import Prefix
from railfabric.device import DeviceConfig

from .state_index import FabricIndex

# (prefix, next-hops, kind, the devices that originate it); kind: peer-loopback | peer-rail-prefix | remote-segment |
# pod-aggregate. A plain tuple: three quarters of a million per render at 131,072 GPUs.
Route = tuple[str, int, str, tuple[str, ...]]
_Entry = tuple[int, str, tuple[str, ...]]  # a route without its prefix (the key it is held under)


@lru_cache(maxsize=1 << 16)
def _net(p: str) -> Prefix:
    return Prefix.parse(p, strict=False)


def expected_routes(dev: DeviceConfig, ix: FabricIndex) -> list[Route]:
    """The routes `dev` must have, sorted by prefix (address, then length)."""
    cap = dev.bgp.maximum_paths
    mine = ix.sessions.get(dev.hostname, {})
    loopbacks = ix.loopbacks
    out: dict[str, _Entry] = {loopbacks[peer]: (n if n < cap else cap, "peer-loopback", (peer,))
                              for peer, n in mine.items()}
    if dev.role == "spine":
        senders: dict[str, list[str]] = defaultdict(list)
        for peer in mine:
            if ix.role[peer] == "rail":
                for p in ix.advertised[peer]:
                    senders[p].append(peer)
        for p, who in senders.items():
            if len(who) == 1:  # one sender (each rail switch sends its own): its sessions, no sum or sort
                n = mine[who[0]]
                out[p] = (n if n < cap else cap, "peer-rail-prefix", (who[0],))
            else:
                out[p] = (min(sum([mine[w] for w in who]), cap), "peer-rail-prefix", tuple(sorted(who)))
    elif dev.role == "rail" and dev.pod is not None:
        out.update(_remote_segments(dev, ix, mine, cap))
    order = ix.prefix_order
    if out.keys() <= order.keys():  # always: the index holds every prefix a route can have
        prefixes = sorted(out, key=order.__getitem__)
    else:
        prefixes = sorted(out, key=lambda p: (_net(p).net, _net(p).length))
    return [(p, *out[p]) for p in prefixes]


def _same_rail_switches(dev: DeviceConfig, ix: FabricIndex) -> list[str]:
    """The rail switches of dev's pod in other segments that serve one of dev's rails, by name (the index lists
    each pod's rail switches per rail, so nothing else of the pod is read)."""
    pod = dev.pod or 0
    lists = [ix.pod_rail_switches_by_rail.get((pod, r), ()) for r in dev.rails]
    names = lists[0] if len(lists) == 1 else sorted(set().union(*lists))
    segment, segments = dev.segment, ix.segment
    return [n for n in names if segments[n] != segment]


def _remote_segments(dev: DeviceConfig, ix: FabricIndex, mine: dict[str, int], cap: int) -> dict[str, _Entry]:
    spines = [s for s in mine if ix.role[s] == "spine"]
    if not spines:
        return {}
    senders: dict[str, list[str]] = defaultdict(list)
    for other in _same_rail_switches(dev, ix):
        for p in ix.advertised[other]:
            senders[p].append(other)
    spine_aggs = [(a, _net(a), s) for a, s in ix.pod_spine_aggregates.get(dev.pod or 0, ())]
    heard_by = ix.heard_by
    out: dict[str, _Entry] = {}
    for p, who in senders.items():
        covering = [(a, s) for a, an, s in spine_aggs if an.covers(_net(p)) and an != _net(p)] if spine_aggs else []
        if covering:  # suppressed at the spines: the pod aggregate is what arrives
            for a, _s in covering:
                origins = sorted({s for a2, _an, s in spine_aggs if a2 == a})
                hops = sum(mine.get(s, 0) for s in origins)
                out[a] = (min(hops, cap), "pod-aggregate", tuple(origins))
            continue
        # the spines with an eBGP session to one of the senders (heard_by: the inverse of the session counts)
        hearing = heard_by.get(who[0], frozenset()) if len(who) == 1 \
            else frozenset().union(*(heard_by.get(w, ()) for w in who))
        hops = sum([mine[s] for s in spines if s in hearing])
        if hops:
            out[p] = (min(hops, cap), "remote-segment", tuple(sorted(who)))
    return out


def routes_v6(routes: list[Route], ix: FabricIndex) -> list[Route]:
    """The IPv6 twins of `routes` (expected_routes of a dual-stack switch), sorted by prefix (address, then length).
    A prefix without a twin (none on a valid dual-stack fabric: V6002/V6003 refuse a plan that misses one) is left
    out."""
    twins, order = ix.twins, ix.twin_order
    out = [(twins[p], n, kind, origin) for p, n, kind, origin in routes if p in twins]
    out.sort(key=lambda r: order[r[0]])
    return out
