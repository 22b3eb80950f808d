"""What a set of failures leaves: the one computation the solver's failure tables and `fabric impact` share.

The solver's worst single failure per tier (railfabric/checks/solver/failures.py) and `fabric impact`
(railfabric/impact/uplinks.py, routes.py) both ask these functions, so the two never disagree:

- `uplinks_left`: a switch's usable uplink Gbps with some links and switches down: min(routing.ecmp.width, live next
  hops) × the slowest live next hop (railfabric/checks/solver/paths.py), where a next hop is gone when its upper
  switch is down or its port-channel is under min-links, and a degraded port-channel carries its live members
  (NextHop.gbps_after).
- `each_upper_failure` / `each_link_failure`: `uplinks_left` for every single upper switch down and every single
  next hop losing one member link: the rows the solver takes its worst case from.
- `keeps_route` / `links_to_withdraw` / `blackholes`: the SUM001 reasoning (RFC 7938 §8.2). A spine has a route
  to a rail switch's subnets while some next hop of that rail switch to it is up; with `routing.spine_pod_aggregate`
  a spine that lost that route but keeps some other route inside its pod (so it still advertises the aggregate)
  blackholes the traffic hashed to it for those subnets. The fewest link failures that withdraw
  the route: per next hop to the spine, members − min-links + 1 of its members (one for a routed link).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from railfabric.checks.solver.paths import NextHop, usable

NONE: frozenset[str] = frozenset()


def uplinks_left(width: int, hops: list[NextHop], dead_links: AbstractSet[str] = NONE,
                 dead_switches: AbstractSet[str] = NONE) -> int:
    """Usable uplink Gbps of a switch with next hops `hops` after these links and switches are down."""
    return usable(width, [h.gbps_after(dead_links, dead_switches) for h in hops])


def each_upper_failure(width: int, hops: list[NextHop]) -> list[tuple[str, int]]:
    """(upper switch, Gbps left with it down) for every upper switch of `hops`, in the order they first appear."""
    uppers = list(dict.fromkeys(h.upper for h in hops))
    return [(u, uplinks_left(width, hops, NONE, frozenset((u,)))) for u in uppers]


def each_link_failure(width: int, hops: list[NextHop]) -> list[tuple[int, int]]:
    """(index of the next hop, Gbps left) when one member link of that next hop fails (its first member: the members
    of a bundle run at one speed, so any one costs the same)."""
    return [(i, uplinks_left(width, hops, frozenset(h.links[:1]))) for i, h in enumerate(hops)]


def keeps_route(hops: list[NextHop], upper: str, dead_links: AbstractSet[str] = NONE,
                dead_switches: AbstractSet[str] = NONE) -> bool:
    """Whether `upper` keeps a route to the lower switch of `hops`: some next hop to it stays up."""
    return any(h.upper == upper and h.gbps_after(dead_links, dead_switches) for h in hops)


def links_to_withdraw(hops: list[NextHop], upper: str) -> list[str]:
    """The fewest member links whose failure takes every next hop of this lower switch to `upper` down: per next hop
    its first members − min-links + 1 members, in next-hop order."""
    return withdraw_sets(hops).get(upper, [])


def withdraw_sets(hops: list[NextHop]) -> dict[str, list[str]]:
    """`links_to_withdraw` for every upper switch of `hops` in one pass (upper switches in first-seen order)."""
    out: dict[str, list[str]] = {}
    for h in hops:
        out.setdefault(h.upper, []).extend(h.links[: len(h.links) - h.min_links + 1])
    return out


def blackholes(aggregate: bool, keeps_route_to_origin: bool, other_routes_in_pod: bool) -> bool:
    """Whether a spine drops traffic for a rail switch's subnets under the pod aggregate: the aggregate is on and the
    spine lost its route to them but still advertises the aggregate (it keeps another route inside the pod), to the
    pod's rail switches and to the super-spines alike (summary-only: they have no more specific route to prefer)."""
    return aggregate and not keeps_route_to_origin and other_routes_in_pod
