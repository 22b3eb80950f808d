"""The IPv6 half of a dual-stack plan (routing.address_families: [ipv4, ipv6]): stable like the IPv4 allocator
(railfabric/plan/allocate.py), and derived from it so the two halves never disagree.

Layout (offsets into each IPv6 pool):
- loopbacks: switch slot s (the IPv4 loopback's slot, super-spines, spines, rail switches) → pools.loopbacks_v6 + s,
  a /128. A pinned IPv4 loopback (devices.<name>.loopback) does not move the IPv6 one: the slot decides it.
- rail subnets: every rail subnet is a /64 (RFC 4291 section 2.5.1: interface identifiers are 64 bits; SLAAC and
  RFC 7421 assume /64 on a LAN). Segment (pod, id) owns the /56 at its IPv4 segment slot
  ((pod-1)·limits.segments_per_pod + (id-1)), i.e. pools.rail_subnets_v6 + slot·2^72: 256 /64s per segment. Inside
  it, the rail subnet whose IPv4 subnet is the i-th of its segment block (i = (subnet - block) / subnet size) is /64
  number i. So a switch's rails stay contiguous and its IPv4 rail summary (allocate: 2^k subnets) has an IPv6 twin,
  the /(64-k) over the same /64s, advertised summary-only the same way.
- gateway = the /64's ::1, host n = gateway + n (the IPv4 rule); an MLAG pair's own SVI addresses (where the platform
  needs them) = the /64's last address - 1 - side (the IPv4 rule: side a ::ffff:ffff:ffff:fffe, side b ...fffd).
- spine pod aggregate (routing.spine_pod_aggregate): pod p's segments_per_pod /56s.

A pool too small for the slots used is V6002 (railfabric/checks/rules/ipv6_rules.py), a segment with more than 256
rail subnets V6003; neither is allocated past its pool (the plan records the shortfall, as POOL002 does for IPv4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import netaddr

from railfabric.core.address6 import Prefix6, range_prefixes6
from railfabric.inventory.intent import Inventory
from railfabric.topology import LinkRole, Topology


class Ipv4Plan(Protocol):
    """What allocate_v6 reads of the IPv4 plan (railfabric.plan.allocate.Plan, which calls allocate_v6 at its end and
    holds the result: typed by its shape here, so that the two modules do not import each other)."""

    @property
    def rail_subnets(self) -> Mapping[tuple[str, int], Any]: ...  # (switch, rail) → RailSubnet

    @property
    def segment_blocks(self) -> Mapping[tuple[int, int], Any]: ...  # (pod, segment) → its IPv4 block (a Prefix)

    @property
    def aggregates(self) -> Mapping[str, Any]: ...  # switch → its IPv4 rail summary (a Prefix)

    @property
    def host_addr(self) -> Mapping[str, int]: ...  # host link id → NIC address

SUBNET_LEN = 64
SEGMENT_LEN = 56
SUBNETS_PER_SEGMENT = 1 << (SUBNET_LEN - SEGMENT_LEN)  # 256
_SUBNET_SIZE = 1 << (128 - SUBNET_LEN)
_SEGMENT_SIZE = 1 << (128 - SEGMENT_LEN)


@dataclass(slots=True)
class RailSubnet6:
    prefix: Prefix6
    gateway: int
    own: int | None = None


@dataclass(slots=True)
class Shortfall:
    pool: str  # loopbacks_v6 | rail_subnets_v6
    prefix: Prefix6
    need: int  # addresses the plan places (highest offset + 1)
    owner: str  # the thing at the highest offset


@dataclass
class PlanV6:
    loopbacks: Prefix6
    rail_pool: Prefix6
    loopback: dict[str, int] = field(default_factory=dict)
    rail_subnets: dict[tuple[str, int], RailSubnet6] = field(default_factory=dict)
    aggregates: dict[str, Prefix6] = field(default_factory=dict)
    host_addr: dict[str, int] = field(default_factory=dict)  # host link id → NIC address
    shortfalls: list[Shortfall] = field(default_factory=list)
    crowded: dict[tuple[int, int], int] = field(default_factory=dict)  # segment → /64s it needs past 256

    def pod_aggregates(self, segments_per_pod: int, pod: int) -> tuple[Prefix6, ...]:
        start = self.rail_pool.net + (pod - 1) * segments_per_pod * _SEGMENT_SIZE
        return tuple(range_prefixes6(start, start + segments_per_pod * _SEGMENT_SIZE))


def _prefix6(network: netaddr.IPNetwork) -> Prefix6:
    return Prefix6(int(network.network), network.prefixlen)


def allocate_v6(inv: Inventory, topo: Topology, plan: Ipv4Plan) -> PlanV6 | None:
    """The IPv6 plan of a dual-stack fabric, from the IPv4 `plan` (railfabric.plan.allocate.Plan); None when the
    fabric is IPv4-only or a v6 pool is missing (V6001 refuses that)."""
    pools = inv.pools
    if not inv.routing.ipv6 or pools.loopbacks_v6 is None or pools.rail_subnets_v6 is None:
        return None
    v6 = PlanV6(_prefix6(pools.loopbacks_v6), _prefix6(pools.rail_subnets_v6))
    top_lo = (-1, "")
    for sw in topo.switches.values():
        v6.loopback[sw.name] = v6.loopbacks.net + sw.slot
        top_lo = max(top_lo, (sw.slot, sw.name))
    if top_lo[0] >= v6.loopbacks.size:
        v6.shortfalls.append(Shortfall("loopbacks_v6", v6.loopbacks, top_lo[0] + 1, top_lo[1]))
    lim = inv.limits
    top_rs = (-1, "")
    index: dict[tuple[str, int], int] = {}  # (switch, rail) → its /64 number in the pool
    for (name, rail), sub in plan.rail_subnets.items():
        sw = topo.switches[name]
        seg = (sw.pod or 1, sw.segment or 1)
        block = plan.segment_blocks[seg]
        i = (sub.prefix.net - block.net) >> (32 - sub.prefix.length)
        if i >= SUBNETS_PER_SEGMENT:
            v6.crowded[seg] = max(v6.crowded.get(seg, 0), i + 1)
            continue
        n = ((seg[0] - 1) * lim.segments_per_pod + (seg[1] - 1)) * SUBNETS_PER_SEGMENT + i
        index[(name, rail)] = n
        top_rs = max(top_rs, (n, f"{name} rail {rail}"))
        net = v6.rail_pool.net + n * _SUBNET_SIZE
        own = None
        if sub.own is not None:  # side = what allocate.own_address subtracted
            side = sub.prefix.net + sub.prefix.size - 2 - sub.own
            own = net + _SUBNET_SIZE - 2 - side
        v6.rail_subnets[(name, rail)] = RailSubnet6(Prefix6(net, SUBNET_LEN), net + 1, own)
    if (top_rs[0] + 1) * _SUBNET_SIZE > v6.rail_pool.size:
        v6.shortfalls.append(Shortfall("rail_subnets_v6", v6.rail_pool, (top_rs[0] + 1) * _SUBNET_SIZE, top_rs[1]))
    for name, agg in plan.aggregates.items():
        rails = topo.switches[name].rails
        first = min((index[(name, r)] for r in rails if (name, r) in index), default=None)
        if first is None:
            continue
        bits = plan.rail_subnets[(name, rails[0])].prefix.length - agg.length  # the IPv4 summary's bits
        v6.aggregates[name] = Prefix6(v6.rail_pool.net + first * _SUBNET_SIZE, SUBNET_LEN - bits)
    for link in topo.links:
        if link.role is not LinkRole.HOST:
            continue
        key = (link.z.device, link.rail)
        sub4, sub6 = plan.rail_subnets.get(key), v6.rail_subnets.get(key)  # type: ignore[arg-type]
        if sub4 is not None and sub6 is not None and link.id in plan.host_addr:
            v6.host_addr[link.id] = sub6.gateway + (plan.host_addr[link.id] - sub4.gateway)
    return v6

