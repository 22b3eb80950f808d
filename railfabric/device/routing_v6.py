"""BGP's IPv6 unicast address family of a dual-stack switch (routing.address_families: [ipv4, ipv6]; issue 30).

It mirrors the IPv4 family of railfabric/device/routing.py: the same peer groups are activated in it (IPv6 routes
over the IPv4 numbered sessions, or over the unnumbered link-local sessions), connected routes are redistributed
through their own prefix-list (the loopback /128 and the rail /64s) and route-map, the switch's rail summary is
advertised summary-only as its IPv6 twin, and the peer groups keep their inbound policy (the graceful-shutdown
receiver matches a community, not an address family). The next hop of an IPv6 route learned over an IPv4 session is
the sender's IPv6 link-local address on the link (FRR: bgpd uses the interface's link-local address as the global
next hop when the interface has no global IPv6 address; the receiver resolves it on the session's interface), so
fabric links carry no global IPv6 addresses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from railfabric.inventory.intent import Inventory
    from railfabric.plan.allocate_v6 import PlanV6
    from railfabric.topology import Switch

from railfabric.topology import Role

PL6_REDISTRIBUTE = "PL6-LOOPBACK-RAILS"
RM6_REDISTRIBUTE = "RM6-CONN-TO-BGP"
PREFIX_LIST_STEP = 10  # routing.PREFIX_LIST_STEP (routing.py imports this module: the value is restated)


@dataclass(frozen=True, slots=True)
class BgpV6:
    prefix_list: str
    prefix_list_rules: tuple[tuple[int, str], ...]  # (sequence number, prefix): the loopback /128, the rail /64s
    route_map: str
    aggregates: tuple[str, ...]  # advertised summary-only

    @property
    def prefix_list_entries(self) -> tuple[str, ...]:
        return tuple(p for _seq, p in self.prefix_list_rules)


def build_bgp_v6(loopback6: str, rails6: tuple[str, ...], aggregates6: tuple[str, ...]) -> BgpV6:
    """`loopback6`: the loopback address with its /128; `rails6`: the rail /64s; numbered 10, 20, ... as in IPv4."""
    entries = (loopback6, *rails6)
    return BgpV6(PL6_REDISTRIBUTE, tuple((PREFIX_LIST_STEP * (i + 1), e) for i, e in enumerate(entries)),
                 RM6_REDISTRIBUTE, aggregates6)


def aggregates_v6(inv: Inventory, v6: PlanV6, sw: Switch) -> tuple[str, ...]:
    """The IPv6 twin of routing.aggregates_of: the switch's rail summary, or on a spine its pod's /56s when
    routing.spine_pod_aggregate is on."""
    if sw.name in v6.aggregates:
        return (str(v6.aggregates[sw.name]),)
    if sw.role is Role.SPINE and inv.routing.spine_pod_aggregate and sw.pod is not None:
        return tuple(str(p) for p in v6.pod_aggregates(inv.limits.segments_per_pod, sw.pod))
    return ()
