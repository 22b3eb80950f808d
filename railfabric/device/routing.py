"""BGP of the device model: peer groups by (my role, peer role), neighbors sorted by address, summaries
(aggregates) and what connected routes may be redistributed (the prefix-list with its sequence numbers).

The link walk (railfabric/device/links.py) collects each switch's neighbors per group; build_bgp turns them into the
Bgp record. Every choice a template would otherwise make (shared remote-as, group order, sequence numbers) is here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from operator import attrgetter, itemgetter

from railfabric.core.address import Prefix, aton, range_prefixes, size
from railfabric.device.drain import GshutReceipt
from railfabric.device.mlag import MLAG_PEER_GROUP
from railfabric.device.routing_v6 import BgpV6
from railfabric.device.sessions import SessionKey, SessionTimers, TierOptions
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_routing import SessionTier
from railfabric.plan.allocate import Plan
from railfabric.topology import Role, Switch
from railfabric.topology.tiers import TIERS

PL_REDISTRIBUTE = "PL-LOOPBACK-RAILS"
RM_REDISTRIBUTE = "RM-CONN-TO-BGP"
PREFIX_LIST_STEP = 10  # sequence numbers 10, 20, ...

GROUPS = {  # (my role, peer role) → peer group name and description
    (Role.RAIL, Role.SPINE): ("SPINES", "uplinks to the pod's spines"),
    (Role.SPINE, Role.RAIL): ("RAIL-SWITCHES", "downlinks to rail switches"),
    (Role.SPINE, Role.SUPER_SPINE): ("SUPER-SPINES", "uplinks to the super-spines"),
    (Role.SUPER_SPINE, Role.SPINE): ("SPINES", "downlinks to pod spines"),
    (Role.RAIL, Role.RAIL): (MLAG_PEER_GROUP, "iBGP to the MLAG peer over the peer VLAN"),
}


@dataclass(slots=True)  # not frozen (4x faster to build): two per fabric link at scale; treat as read-only
class Neighbor:
    ip: str  # "" on an unnumbered session (its peer is the IPv6 link-local address found on `interface`)
    remote_as: int
    description: str
    local_ip: str  # "" on an unnumbered session
    # routing.addressing unnumbered: the local interface (or L3 port-channel) the session runs over (RFC 8950);
    # "" on a numbered session. The templates name the neighbor by it.
    interface: str = ""
    peer: str = ""  # unnumbered: the peer device and the interface (or port-channel) at its end of the session
    peer_interface: str = ""


@dataclass(frozen=True, slots=True)
class PeerGroup:
    name: str
    remote_as: int | None  # shared by every neighbor of the group, else per neighbor
    bfd: bool
    description: str
    neighbors: tuple[Neighbor, ...]
    next_hop_self: bool = False  # iBGP to the MLAG peer
    # session options (railfabric/device/sessions.py): the tier, its BFD timers (None: BFD off) and its key
    tier: str = ""
    bfd_timers: SessionTimers | None = None
    key: SessionKey | None = None
    inbound_route_map: str = ""  # the group's inbound policy ("" = none): the graceful-shutdown receiver's route-map

    @property
    def unnumbered(self) -> bool:
        """Its neighbours are interfaces (routing.addressing: unnumbered): IPv4 routes go out with IPv6 next hops."""
        return any(n.interface for n in self.neighbors)


@dataclass(frozen=True, slots=True)
class Bgp:
    asn: int
    router_id: str
    maximum_paths: int
    multipath_relax: bool
    peer_groups: tuple[PeerGroup, ...]
    aggregates: tuple[str, ...]  # advertised summary-only
    prefix_list: str
    prefix_list_entries: tuple[str, ...]  # what connected routes may be redistributed
    route_map: str
    prefix_list_rules: tuple[tuple[int, str], ...] = ()  # (sequence number, prefix) of each entry, in order
    # graceful shutdown (drain30): the inbound policy lowering LOCAL_PREF of routes carrying 65535:0
    # (railfabric/device/drain.py); None when the fabric drains by AS-path prepend or the platform receives by itself
    gshut: GshutReceipt | None = None
    # dual-stack (routing.address_families with ipv6): the IPv6 unicast family, activated on every peer group
    # (railfabric/device/routing_v6.py); None on an IPv4-only fabric
    ipv6: BgpV6 | None = None

    @property
    def unnumbered(self) -> bool:
        """Some session runs over IPv6 link-local addresses (routing.addressing: unnumbered): the switch needs IPv6
        on those interfaces and IPv4 routing over IPv6 next hops (EOS `ip routing ipv6 interfaces`)."""
        return any(g.unnumbered for g in self.peer_groups)

    @property
    def bfd_profiles(self) -> tuple[SessionTimers, ...]:
        """The BFD timers of its peer groups, each once, in group order (FRR and NVUE 5.15+ define a profile per
        tier)."""
        return tuple(dict.fromkeys(g.bfd_timers for g in self.peer_groups if g.bfd_timers is not None))

    @property
    def keys(self) -> tuple[SessionKey, ...]:
        """The keys of its peer groups, each once, in group order (EOS shared-secret profiles, Junos key chains)."""
        return tuple(dict.fromkeys(g.key for g in self.peer_groups if g.key is not None))

    @property
    def ao_keys(self) -> tuple[SessionKey, ...]:
        """The TCP-AO keys among them (EOS shared-secret profiles, Junos key chains)."""
        return tuple(k for k in self.keys if k.algorithm == "tcp-ao")


def group_of(mine: Role, peer: Role) -> str:
    """The peer group of a session from a switch of role `mine` to one of role `peer`."""
    return GROUPS[(mine, peer)][0]


def pod_aggregates(inv: Inventory, pod: int) -> tuple[str, ...]:
    """The rail-pool block of pod `pod` (segments_per_pod consecutive segment blocks) as CIDR prefixes."""
    lim = inv.limits
    block = size(lim.segment_rail_block) * lim.segments_per_pod
    start = Prefix.of(inv.pools.rail_subnets).net + (pod - 1) * block
    return tuple(str(p) for p in range_prefixes(start, start + block))


def aggregates_of(inv: Inventory, plan: Plan, sw: Switch) -> tuple[str, ...]:
    """What the switch advertises summary-only: its rail summary (plan.aggregates), or on a spine the pod's rail
    block when routing.spine_pod_aggregate is on."""
    if sw.name in plan.aggregates:
        return (str(plan.aggregates[sw.name]),)
    if sw.role is Role.SPINE and inv.routing.spine_pod_aggregate and sw.pod is not None:
        return pod_aggregates(inv, sw.pod)
    return ()


def peer_groups(role: Role, neighbors: Mapping[str, Sequence[Neighbor]], bfd: bool,
                options: Mapping[SessionTier, TierOptions] | None = None) -> tuple[PeerGroup, ...]:
    """The switch's peer groups: super-spine groups first, then by name; neighbors by address; remote-as on the group
    when every neighbor shares it; each group with its tier's session options (sessions.session_options)."""
    return peer_groups_keyed(role, {g: [(aton(n.ip), n) for n in ns] for g, ns in neighbors.items()}, bfd, options)


def peer_groups_keyed(role: Role, neighbors: Mapping[str, Sequence[tuple[int, Neighbor]]],
                      bfd: bool, options: Mapping[SessionTier, TierOptions] | None = None) -> tuple[PeerGroup, ...]:
    """peer_groups, each neighbor given with its address as an int (the link walk has it: no address is parsed
    back from its text)."""
    groups = []
    for name in sorted(neighbors, key=lambda g: ("SUPER" not in g, g)):
        nbrs = tuple(map(_second, sorted(neighbors[name], key=_first)))
        asns = set(map(_remote_as, nbrs))
        desc = _DESCRIPTIONS[(name, role)]
        tier = _TIER_OF[(name, role)]
        opt = options.get(tier) if options is not None else None
        groups.append(PeerGroup(name, asns.pop() if len(asns) == 1 else None, bfd, desc, nbrs,
                                next_hop_self=name == MLAG_PEER_GROUP, tier=tier.value,
                                bfd_timers=opt.timers if opt is not None and bfd else None,
                                key=opt.key if opt is not None else None))
    return tuple(groups)


_first, _second, _remote_as = itemgetter(0), itemgetter(1), attrgetter("remote_as")
_DESCRIPTIONS: dict[tuple[str, Role], str] = {}  # (peer group, my role) → its description: the first in GROUPS
_TIER_OF: dict[tuple[str, Role], SessionTier] = {}  # (peer group, my role) → its session tier (sessions.TIERS)
for (_mine, _peer), (_group, _desc) in GROUPS.items():
    _DESCRIPTIONS.setdefault((_group, _mine), _desc)
    _TIER_OF.setdefault((_group, _mine), TIERS[(_mine, _peer)])


def build_bgp(asn: int, loopback: str, groups: tuple[PeerGroup, ...], aggregates: tuple[str, ...],
              redistributed: tuple[str, ...], maximum_paths: int, multipath_relax: bool,
              router_id: str | None = None, gshut: GshutReceipt | None = None) -> Bgp:
    """The Bgp of one switch: router id = `router_id` (the plan's: a pin), else the loopback address; the prefix-list
    permits the loopback /32 and `redistributed` (the rail subnets), numbered 10, 20, ...; `gshut`: the inbound policy
    that receives RFC 8326 graceful shutdown (railfabric/device/drain.py)"""
    entries = (f"{loopback}/32", *redistributed)
    rules = tuple((PREFIX_LIST_STEP * (i + 1), e) for i, e in enumerate(entries))
    if gshut is not None:  # each group the receiver covers carries its route-map: templates write it, never look it up
        groups = tuple(replace(g, inbound_route_map=gshut.route_map) if g.name in gshut.groups else g for g in groups)
    return Bgp(asn, router_id or loopback, maximum_paths, multipath_relax, groups, aggregates, PL_REDISTRIBUTE, entries,
               RM_REDISTRIBUTE, rules, gshut)

