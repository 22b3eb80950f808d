"""ECMP next hops: what the capacity and failure analyses count as a switch's usable uplink capacity.

A switch spreads its upward traffic over BGP next hops, one per session: a routed link is one next hop, an L3
port-channel is one next hop however many members it has. BGP installs at most `routing.ecmp.width` of them
(maximum-paths) and flow hashing gives each installed next hop an equal share, so what a switch can send up at once
is min(width, next hops) × the smallest next hop's capacity (equal next hops: their sum when the width allows all).
A port-channel stays up while `spines.port_channel_min_links` of its members are up (default: all of them).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from railfabric.inventory.intent import Inventory
from railfabric.topology import LinkRole, Topology


@dataclass(slots=True)
class NextHop:
    """One ECMP next hop of a lower switch: a routed link or an L3 port-channel."""

    upper: str
    ident: str  # the link id, or the bundle id of a port-channel
    links: list[str] = field(default_factory=list)  # member link ids (one for a routed link)
    gbps: int = 0  # sum of the members' speeds
    min_links: int = 1  # members that must be up for the next hop to stay up

    @property
    def bundle(self) -> bool:
        return len(self.links) > 1 or self.ident != self.links[0]

    def gbps_after(self, dead_links: AbstractSet[str], dead_switches: AbstractSet[str]) -> int:
        """Gbps left with these links and switches down (railfabric/impact/): 0 when the upper switch is down or
        fewer than min-links members stay up, else the live members' share (a bundle's members run at one speed)."""
        if self.upper in dead_switches:
            return 0
        if dead_links.isdisjoint(self.links):
            return self.gbps
        live = sum(1 for lid in self.links if lid not in dead_links)
        if not live or live < self.min_links:
            return 0
        return self.gbps * live // len(self.links)

    def after_member_loss(self, member_gbps: int) -> int:
        """Gbps left when one member fails: 0 when that takes the bundle below min-links."""
        if len(self.links) - 1 < self.min_links:
            return 0
        return self.gbps - member_gbps


def usable(width: int, hops: list[int]) -> int:
    """What flow hashing over the installed next hops (Gbps each, 0 = down) can carry at once."""
    up = [g for g in hops if g > 0]
    if not up:
        return 0
    return min(width, len(up)) * min(up)


_cache: list = []  # [topology, inventory, result]: the capacity and failure analyses share one computation


def next_hops(inv: Inventory, topo: Topology) -> dict[str, list[NextHop]]:
    """Lower switch → its upward next hops, in topology (identity) order."""
    if _cache and _cache[0] is topo and _cache[1] is inv:
        return _cache[2]
    min_links = {p.id: p.spines.min_links() for p in inv.pods if p.spines is not None}
    out: dict[str, list[NextHop]] = defaultdict(list)
    bundles: dict[str, NextHop] = {}
    host = LinkRole.HOST
    for link in topo.links:
        if link.role is host:
            continue
        a = link.a
        bundle = link.bundle
        if not bundle:
            out[a.device].append(NextHop(link.z.device, link.id, [link.id], a.speed))
            continue
        hop = bundles.get(bundle)
        if hop is None:
            upper = link.z.device
            pod = topo.switches[upper].pod
            hop = bundles[bundle] = NextHop(upper, bundle, [], 0, 1 if pod is None else min_links.get(pod, 1))
            out[a.device].append(hop)
        hop.links.append(link.id)
        hop.gbps += a.speed
    for hop in bundles.values():
        hop.min_links = min(hop.min_links, len(hop.links))
    _cache[:] = [topo, inv, out]
    return out
