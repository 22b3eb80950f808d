"""Stable allocation: addresses, VLANs and ASNs as pure functions of declared identity.

Every value is computed from identity (pod id, segment id, switch index, rail, host number, uplink index) and the
fixed strides of `limits:`; never from list order or from how many siblings exist. So adding a pod, segment,
spine or host group adds values and changes none; only the new links on direct peers are new.

Layout (offsets into each pool):
- loopbacks /32 and management: device slot = super-spines [0, L.super_spines), then spines
  L.super_spines + (pod-1)·L.spines_per_pod + (j-1), then rail switches after all spine slots
  + ((pod-1)·L.segments_per_pod + (segment-1))·L.rail_switches_per_segment + (k-1).
- fabric links /31 (routing.addressing: numbered only; unnumbered links have none, their sessions run over IPv6
  link-local addresses): rail switch uplink u at rail_tier_slot·L.uplinks_per_rail_switch + u; spine uplinks after
  all rail slots: spine_tier_slot·L.uplinks_per_spine + u. The upper switch takes the even address.
- rail subnets: segment (pod, id) owns block (pod-1)·L.segments_per_pod + (id-1) of size /L.segment_rail_block;
  inside it rail group g (or switch k for two-vlans dual homing) owns an aggregate of 2^ceil(log2 rails-per-switch)
  subnets, rail slot i owns subnet i of it. Gateway = first address; host n = gateway + n.
- own SVI addresses (MLAG pairs on a platform with `mlag_own_svi_address`: each switch needs its own address on a
  rail SVI beside the shared gateway): side a = the last usable address of the rail subnet, side b = the one
  before (a /24: .254 and .253). They depend on the subnet and the side only; hosts never reach them (POOL006
  counts them).
- MLAG peer links /31: after all spine slots, at the pair's side-a rail_tier_slot (one /31 per pair), with either
  addressing (the pair's iBGP session over the peer VLAN stays numbered).
- ASNs: super-spines one ASN; spines of pod p: spine_base + p; rail switch: rail_switch_base + rail_tier_slot
  (both switches of an MLAG pair: side a's, so the spines see one speaker's AS path for the shared subnets).
- VLAN of rail r: vlan_base + r.
- pins (`devices.<name>.asn / loopback / router_id / management`): the pinned value replaces the computed one of that
  switch and nothing else moves (its slot keeps its place, unused); a pinned loopback counts as used in pools.loopbacks
  when it lies inside (a pinned management address, as before, is not counted).
  The BGP router-id is the loopback address (pinned or computed) unless it is pinned itself.
  railfabric/checks/rules/pin_rules.py checks the pins against each other and the plan.
- IPv6 (routing.address_families with ipv6): plan.v6, derived from this plan at the end of allocate
  (railfabric/plan/allocate_v6.py has its layout: /128 loopbacks by slot, a /56 per segment slot, a /64 per rail).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import netaddr

from railfabric.core.address import LAST, Prefix, bits_for, size
from railfabric.inventory.intent import DualHoming, Inventory
from railfabric.inventory.intent_routing import Addressing
from railfabric.plan.allocate_v6 import PlanV6, allocate_v6
from railfabric.platforms import PLATFORMS
from railfabric.topology import LinkRole, Role, Topology


@dataclass(slots=True)
class PoolUse:
    name: str
    prefix: Prefix
    used: int = 0  # addresses handed out
    highest: int = -1  # highest offset used
    highest_owner: str = ""

    def take(self, offset: int, count: int, owner: str) -> int:
        self.used += count
        top = offset + count - 1
        if top > self.highest:
            self.highest = top
            self.highest_owner = owner
        return self.prefix.net + offset

    @property
    def shortfall(self) -> int:
        return max(0, self.highest + 1 - self.prefix.size)


@dataclass(slots=True)
class RailSubnet:
    switch: str
    rail: int
    vlan: int
    prefix: Prefix
    gateway: int
    own: int | None = None  # this switch's own SVI address beside the shared gateway (see own_address)


@dataclass
class Plan:
    loopback: dict[str, int] = field(default_factory=dict)
    router_id: dict[str, int] = field(default_factory=dict)  # BGP router-id: the loopback unless pinned
    management: dict[str, int] = field(default_factory=dict)
    management_len: int = 32
    management_gateway: int = 0  # pools.management.gateway, else the pool's first host address
    asn: dict[str, int] = field(default_factory=dict)
    # link id (or bundle id) → /31 network; the upper end is .0, the lower end .1
    p2p: dict[str, int] = field(default_factory=dict)
    rail_subnets: dict[tuple[str, int], RailSubnet] = field(default_factory=dict)
    aggregates: dict[str, Prefix] = field(default_factory=dict)  # switch → summary (only multi-rail switches)
    v6: PlanV6 | None = None  # the IPv6 half of a dual-stack fabric (railfabric/plan/allocate_v6.py)
    host_addr: dict[str, int] = field(default_factory=dict)  # host link id → NIC address
    pools: dict[str, PoolUse] = field(default_factory=dict)
    segment_blocks: dict[tuple[int, int], Prefix] = field(default_factory=dict)
    segment_needs: dict[tuple[int, int], int] = field(default_factory=dict)  # addresses the segment needs
    # addresses at the top of each rail subnet of the segment kept for switches' own SVI addresses (0 or 2)
    segment_reserved: dict[tuple[int, int], int] = field(default_factory=dict)

    def past_ipv4(self) -> list[str]:
        """Pools whose plan runs past 255.255.255.255 (a POOL002 shortfall at the top of the address space): their
        values are not addresses and cannot be shown ('host addresses' when a host number does so)."""
        out = [name for name, pool in self.pools.items() if pool.prefix.net + pool.highest > LAST]
        if any(a > LAST for a in self.host_addr.values()):
            out.append("host addresses")
        return out

    def p2p_ends(self, link_key: str) -> tuple[int, int]:
        """(upper end, lower end) addresses of a routed link or bundle."""
        net = self.p2p[link_key]
        return net, net + 1


OWN_SVI_ADDRESSES = 2  # one per switch of an MLAG pair


def own_address(prefix: Prefix, side: int) -> int:
    """A switch's own address on a rail SVI of an MLAG pair: the last usable address of the subnet for side a (0),
    the one before for side b (1)."""
    return prefix.net + prefix.size - 2 - side


def _own_svi_groups(topo: Topology, names: tuple[str, ...]) -> set[int | None]:
    """The rail groups of an MLAG segment whose pair needs own SVI addresses (either switch's platform says so)."""
    return {topo.switches[n].group for n in names if PLATFORMS[topo.switches[n].platform].mlag_own_svi_address}


def _pool(name: str, net: netaddr.IPNetwork) -> PoolUse:
    return PoolUse(name, Prefix.of(net))


def allocate(inv: Inventory, topo: Topology) -> Plan:
    plan = Plan()
    lim = inv.limits
    pools = inv.pools
    lo = plan.pools["loopbacks"] = _pool("loopbacks", pools.loopbacks)
    ln = None if pools.fabric_links is None else _pool("fabric_links", pools.fabric_links)
    if ln is not None:
        plan.pools["fabric_links"] = ln
    rs = plan.pools["rail_subnets"] = _pool("rail_subnets", pools.rail_subnets)
    mg = plan.pools["management"] = _pool("management", pools.management.prefix)
    plan.management_len = pools.management.prefix.prefixlen
    gateway = pools.management.gateway
    plan.management_gateway = int(gateway) if gateway is not None else mg.prefix.net + 1
    first_mgmt = pools.management.first_offset
    asn = inv.routing.asn
    mlag_segments = {(i.pod, i.id) for i in topo.segments if i.sides == 2 and i.dual_homing is DualHoming.MLAG}

    for sw in topo.switches.values():
        if sw.loopback is None:
            plan.loopback[sw.name] = lo.take(sw.slot, 1, sw.name)
        else:  # a pin inside the pool is one address used there (its slot stays free); one outside is not
            plan.loopback[sw.name] = sw.loopback
            lo.used += sw.loopback in lo.prefix
        plan.router_id[sw.name] = sw.router_id if sw.router_id is not None else plan.loopback[sw.name]
        if sw.management is not None:
            plan.management[sw.name] = sw.management
        else:
            plan.management[sw.name] = mg.take(first_mgmt + sw.slot, 1, sw.name)
        if sw.asn is not None:
            plan.asn[sw.name] = sw.asn
        elif sw.role is Role.SUPER_SPINE:
            plan.asn[sw.name] = asn.super_spine
        elif sw.role is Role.SPINE:
            plan.asn[sw.name] = asn.spine_base + (sw.pod or 0)
        else:  # the two switches of an MLAG pair are one BGP speaker to the spines: side a's ASN
            pair_a = sw.tier_slot - (sw.side or 0) if (sw.pod, sw.segment) in mlag_segments else sw.tier_slot
            plan.asn[sw.name] = asn.rail_switch_base + pair_a

    numbered = (*topo.links, *topo.peer_links) if inv.routing.addressing is Addressing.NUMBERED else topo.peer_links
    for link in numbered:
        if link.net_slot is None:
            continue
        key = link.bundle or link.id
        if key in plan.p2p:
            continue
        assert ln is not None, "pools.fabric_links is missing (UND001 stops the run before allocation)"
        plan.p2p[key] = ln.take(link.net_slot * 2, 2, key)

    # rail subnets, per segment block
    block_len = lim.segment_rail_block
    block_size = size(block_len)
    for info in topo.segments:
        seg_slot = (info.pod - 1) * lim.segments_per_pod + (info.id - 1)
        block_off = seg_slot * block_size
        plan.segment_blocks[(info.pod, info.id)] = Prefix(rs.prefix.net + block_off, block_len)
        sub_size = size(info.prefix_len)
        agg_bits = bits_for(info.rails_per_switch)
        agg_size = sub_size << agg_bits
        shared = info.sides == 2 and info.dual_homing in (DualHoming.MLAG, DualHoming.ESI)
        units = len(info.groups) * (1 if shared or info.sides == 1 else info.sides)
        plan.segment_needs[(info.pod, info.id)] = units * agg_size
        own_groups = _own_svi_groups(topo, info.switches) if (info.pod, info.id) in mlag_segments else set()
        plan.segment_reserved[(info.pod, info.id)] = OWN_SVI_ADDRESSES if own_groups else 0
        for name in info.switches:
            sw = topo.switches[name]
            unit = sw.group if shared or info.sides == 1 else (sw.index - 1)
            agg_off = block_off + (unit or 0) * agg_size
            if info.rails_per_switch > 1:
                plan.aggregates[name] = Prefix(rs.prefix.net + agg_off, info.prefix_len - agg_bits)
            for i, rail in enumerate(sw.rails):
                off = agg_off + i * sub_size
                net = rs.prefix.net + off
                # shared subnets (MLAG/ESI pairs) are counted once, by side a
                if not (shared and sw.side == 1):
                    rs.take(off, sub_size, f"{name} rail {rail}")
                prefix = Prefix(net, info.prefix_len)
                own = own_address(prefix, sw.side or 0) if sw.group in own_groups else None
                plan.rail_subnets[(name, rail)] = RailSubnet(name, rail, info.vlan_base + rail, prefix, net + 1, own)

    for link in topo.links:
        if link.role is not LinkRole.HOST:
            continue
        sub = plan.rail_subnets.get((link.z.device, link.rail))  # type: ignore[arg-type]
        if sub is not None:
            plan.host_addr[link.id] = sub.gateway + (link.host_number or 0)
    plan.v6 = allocate_v6(inv, topo, plan)
    return plan
