"""The link walk: what each switch's links give the sections of its device model.

One pass over the fabric's links (host, railfabric/core, MLAG peer) collects, per switch and per section: the
Interface of every used port or lane (interfaces; its physical facts are filled in by build_interfaces, its bundle
by the port-channel builders), the members of each fabric bundle (port-channels), the BGP neighbors per peer group
(routing), the access ports per rail VLAN (vlans), the MLAG pieces (mlag), and the link MTUs that are below the
switch's own because the peer's platform ceiling is lower (the MTU note).

A fabric or core link is met once: both of its ends (their Interfaces and BGP neighbors) are built
together. Each switch meets its links in topology order (topo.links, then topo.peer_links), as a walk of its own
links (walk_links) would.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from railfabric.core.address import DOTTED_OCTETS, Dotted
from railfabric.device.interfaces import Interface, end_name, interface_name
from railfabric.device.mlag import MlagParts
from railfabric.device.port_channels import Member
from railfabric.device.routing import GROUPS, Neighbor
from railfabric.inventory.intent import Inventory, SwitchModel
from railfabric.inventory.intent_routing import Addressing
from railfabric.plan.allocate import Plan
from railfabric.plan.mtu import link_mtu
from railfabric.topology import End, Link, LinkRole, Switch, Topology


@dataclass(slots=True)
class SwitchLinks:
    sw: Switch
    model: SwitchModel
    mtu: int  # the switch MTU (its platform's ceiling)
    mlag: MlagParts
    used: dict[tuple[int, int], Interface] = field(default_factory=dict)  # (port, lane) → its Interface
    breakout_of: dict[int, tuple[int, int]] = field(default_factory=dict)  # port → (lanes, lane speed)
    channels: dict[str, list[Member]] = field(default_factory=lambda: defaultdict(list))  # bundle → members
    # peer group → its neighbors, each with its address as an int (the sort key of routing.peer_groups_keyed)
    neighbors: dict[str, list[tuple[int, Neighbor]]] = field(default_factory=lambda: defaultdict(list))
    vlan_members: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))  # VLAN → access ports
    lower_peers: dict[str, int] = field(default_factory=dict)  # peer platform → link MTU below the switch's own
    # unnumbered bundles: bundle id → its BGP neighbor, whose interface (the port-channel) build_device names once the
    # port-channels are numbered
    bundle_neighbors: dict[str, tuple[Neighbor, str]] = field(default_factory=dict)  # … and the peer's platform


_link_mtu = lru_cache(maxsize=64)(link_mtu)  # one value per (fabric MTU, platform pair)
# routing.group_of by the roles' values: an enum member hashes in Python code, its value (a str) in C
_GROUP_OF = {(mine.value, peer.value): group for (mine, peer), (group, _desc) in GROUPS.items()}


def links_by_device(topo: Topology) -> dict[str, list[tuple[Link, bool]]]:
    """Each switch's links as (link, I am the upper end): host links at their switch end only."""
    by_device: dict[str, list[tuple[Link, bool]]] = defaultdict(list)
    for link in topo.links:
        by_device[link.z.device].append((link, True))
        if link.role is not LinkRole.HOST:
            by_device[link.a.device].append((link, False))
    for link in topo.peer_links:
        by_device[link.z.device].append((link, True))
        by_device[link.a.device].append((link, False))
    return by_device


class SwitchEnds(dict[str, tuple[str, str, int, int, str, int]]):
    """What a fabric link end needs of its switch, by switch name, looked up once per switch when first asked for:
    (hostname, platform, the model's port speed, its serdes lanes per port, role value, ASN)."""

    def __init__(self, inv: Inventory, topo: Topology, plan: Plan) -> None:
        super().__init__()
        self.inv, self.topo, self.plan = inv, topo, plan

    def __missing__(self, name: str) -> tuple[str, str, int, int, str, int]:
        sw = self.topo.switches[name]
        model = self.inv.switch_models[sw.model]
        end = self[name] = (sw.name, sw.platform, model.speed, model.serdes_lanes, sw.role._value_,
                            self.plan.asn[sw.name])
        return end


def switch_links(inv: Inventory, sw: Switch, mtu: int, port_channel_name: Callable[[int], str]) -> SwitchLinks:
    """An empty SwitchLinks for `sw` (switch MTU `mtu`, the platform's port-channel naming)."""
    return SwitchLinks(sw, inv.switch_models[sw.model], mtu, MlagParts(port_channel_name))


def walk_fabric(inv: Inventory, topo: Topology, plan: Plan, outs: dict[str, SwitchLinks], links: Iterable[Link],
                peer_links: Iterable[Link]) -> None:
    """Add what `links` and `peer_links` give the switches of `outs` (by name) to their SwitchLinks; ends on other
    switches are skipped."""
    _links(inv, topo, plan, SwitchEnds(inv, topo, plan), outs, links)
    get = outs.get
    for link in peer_links:
        for upper, device in ((True, link.z.device), (False, link.a.device)):
            out = get(device)
            if out is not None:
                _peer_end(out, inv, topo, link, upper)


def _links(inv: Inventory, topo: Topology, plan: Plan, ends: SwitchEnds, outs: dict[str, SwitchLinks],
           links: Iterable[Link]) -> None:
    """What the host, fabric and core links `links` give the switches of `outs`, in link order (ends on other
    switches are skipped): a host link's switch end (_host_end); both ends of a fabric or core link, built
    together: a routed /31 port with its BGP neighbor, or a member of a bundle (the bundle's /31 and its neighbor,
    on the first member only), at the link MTU (both ends' ceiling; the MTU note names the peer platforms whose
    links run lower). z is the upper end, with the upper address of the /31; each end describes its peer. Written
    out in one loop, without a call or a parts tuple per end: it runs for every fabric link, hundreds of thousands
    of times at scale."""
    if inv.routing.addressing is Addressing.UNNUMBERED:
        _links_unnumbered(inv, topo, plan, ends, outs, links)
        return
    fabric_mtu, get, p2p_ends, host = inv.fabric.mtu, outs.get, plan.p2p_ends, LinkRole.HOST
    dotted, octet = Dotted(), DOTTED_OCTETS
    for link in links:
        if link.role is host:
            out = get(link.z.device)
            if out is not None:
                _host_end(out, topo, plan, link)
            continue
        ea, ez = link.a, link.z
        oa, oz = get(ea.device), get(ez.device)
        if oa is None and oz is None:
            continue
        # the two ends are written out, not shared through a helper: a call per end cost about 0.1 s at 131,072
        # GPUs (524,288 switch ends); the a side and the z side differ only in which end is "mine"
        an, a_platform, a_speed, a_serdes, a_role, a_asn = ends[ea.device]
        zn, z_platform, z_speed, z_serdes, z_role, z_asn = ends[ez.device]
        bundle = link.bundle
        upper_ip, lower_ip = p2p_ends(bundle or link.id)
        a_ip = dotted[lower_ip >> 8] + octet[lower_ip & 255]  # ntoa(lower_ip)
        z_ip = dotted[upper_ip >> 8] + octet[upper_ip & 255]
        a_port, a_lane, z_port, z_lane = ea.port, ea.lane, ez.port, ez.lane
        a_name = interface_name(a_platform, a_port, a_lane, a_speed // ea.speed if a_lane else 1, a_serdes)
        z_name = interface_name(z_platform, z_port, z_lane, z_speed // ez.speed if z_lane else 1, z_serdes)
        a_desc, z_desc = f"{zn} {z_name}", f"{an} {a_name}"  # each end describes its peer
        mtu, role = _link_mtu(fabric_mtu, a_platform, z_platform), link.role._value_
        if oa is not None:
            if a_lane:
                oa.breakout_of[a_port] = (a_speed // ea.speed, ea.speed)
            if mtu < oa.mtu:
                oa.lower_peers[z_platform] = mtu
            if bundle:
                oa.used[(a_port, a_lane)] = Interface(a_name, a_port, a_lane, ea.speed, "member", True, a_desc, mtu,
                                                      None, None, None, True, zn, z_name, role)
                members = oa.channels[bundle]
                members.append((a_port, a_lane, link, False))
                if len(members) == 1:
                    oa.neighbors[_GROUP_OF[(a_role, z_role)]].append((upper_ip, Neighbor(z_ip, z_asn, zn, a_ip)))
            else:
                oa.used[(a_port, a_lane)] = Interface(a_name, a_port, a_lane, ea.speed, "routed", True, a_desc, mtu,
                                                      f"{a_ip}/31", None, None, True, zn, z_name, role)
                oa.neighbors[_GROUP_OF[(a_role, z_role)]].append((upper_ip, Neighbor(z_ip, z_asn, a_desc, a_ip)))
        if oz is not None:
            if z_lane:
                oz.breakout_of[z_port] = (z_speed // ez.speed, ez.speed)
            if mtu < oz.mtu:
                oz.lower_peers[a_platform] = mtu
            if bundle:
                oz.used[(z_port, z_lane)] = Interface(z_name, z_port, z_lane, ez.speed, "member", True, z_desc, mtu,
                                                      None, None, None, True, an, a_name, role)
                members = oz.channels[bundle]
                members.append((z_port, z_lane, link, True))
                if len(members) == 1:
                    oz.neighbors[_GROUP_OF[(z_role, a_role)]].append((lower_ip, Neighbor(a_ip, a_asn, an, z_ip)))
            else:
                oz.used[(z_port, z_lane)] = Interface(z_name, z_port, z_lane, ez.speed, "routed", True, z_desc, mtu,
                                                      f"{z_ip}/31", None, None, True, an, a_name, role)
                oz.neighbors[_GROUP_OF[(z_role, a_role)]].append((lower_ip, Neighbor(a_ip, a_asn, z_desc, z_ip)))


def _links_unnumbered(inv: Inventory, topo: Topology, plan: Plan, ends: SwitchEnds, outs: dict[str, SwitchLinks],
                      links: Iterable[Link]) -> None:
    """_links for routing.addressing unnumbered: the same ends, with no /31 (no IPv4 address on a routed port or
    bundle) and each BGP neighbor named by its local interface (RFC 8950: the session runs over the link's IPv6
    link-local addresses). Neighbors are keyed by (port, lane) of the local end, so a group lists them in port
    order."""
    fabric_mtu, get, host = inv.fabric.mtu, outs.get, LinkRole.HOST
    for link in links:
        if link.role is host:
            out = get(link.z.device)
            if out is not None:
                _host_end(out, topo, plan, link)
            continue
        oa, oz = get(link.a.device), get(link.z.device)
        if oa is None and oz is None:
            continue
        a, z = ends[link.a.device], ends[link.z.device]
        a_name = interface_name(a[1], link.a.port, link.a.lane, a[2] // link.a.speed if link.a.lane else 1, a[3])
        z_name = interface_name(z[1], link.z.port, link.z.lane, z[2] // link.z.speed if link.z.lane else 1, z[3])
        mtu = _link_mtu(fabric_mtu, a[1], z[1])
        if oa is not None:
            _unnumbered_end(oa, link, link.a, a_name, z, z_name, mtu, False)
        if oz is not None:
            _unnumbered_end(oz, link, link.z, z_name, a, a_name, mtu, True)


def _unnumbered_end(out: SwitchLinks, link: Link, me: End, my_name: str, peer: tuple[str, str, int, int, str, int],
                    peer_name: str, mtu: int, upper: bool) -> None:
    """One end of an unnumbered fabric or core link: a routed port without address and its neighbor named by the
    port, or a bundle member (the bundle's neighbor, on its first member, named by the port-channel later)."""
    pn, p_platform, _speed, _serdes, p_role, p_asn = peer
    _breakout(out, me)
    if mtu < out.mtu:
        out.lower_peers[p_platform] = mtu
    desc, role, bundle = f"{pn} {peer_name}", link.role._value_, link.bundle
    group = _GROUP_OF[(out.sw.role._value_, p_role)]
    key = me.port << 8 | me.lane  # port order within the group
    if bundle:
        out.used[(me.port, me.lane)] = Interface(my_name, me.port, me.lane, me.speed, "member", True, desc, mtu,
                                                 None, None, None, True, pn, peer_name, role)
        members = out.channels[bundle]
        members.append((me.port, me.lane, link, upper))
        if len(members) == 1:
            nb = Neighbor("", p_asn, pn, "", "", pn)
            out.bundle_neighbors[bundle] = (nb, p_platform)
            out.neighbors[group].append((key, nb))
    else:
        out.used[(me.port, me.lane)] = Interface(my_name, me.port, me.lane, me.speed, "routed", True, desc, mtu,
                                                 None, None, None, True, pn, peer_name, role, unnumbered=True)
        out.neighbors[group].append((key, Neighbor("", p_asn, desc, "", my_name, pn, peer_name)))


def walk_links(inv: Inventory, topo: Topology, plan: Plan, sw: Switch, links: list[tuple[Link, bool]], mtu: int,
               port_channel_name: Callable[[int], str]) -> SwitchLinks:
    """What `sw`'s links (from links_by_device) give each section; `mtu` is the switch MTU, `port_channel_name`
    the platform's port-channel naming. build_devices walks all switches at once (walk_fabric)."""
    out = switch_links(inv, sw, mtu, port_channel_name)
    walk_fabric(inv, topo, plan, {sw.name: out}, [link for link, _ in links if link.role is not LinkRole.PEER],
                [link for link, _ in links if link.role is LinkRole.PEER])
    return out


def _breakout(out: SwitchLinks, me: End) -> None:
    if me.lane:
        out.breakout_of[me.port] = (out.model.speed // me.speed, me.speed)


def _peer_end(out: SwitchLinks, inv: Inventory, topo: Topology, link: Link, upper: bool) -> None:
    """A member of the MLAG peer link, at the switch MTU."""
    me, peer = (link.z, link.a) if upper else (link.a, link.z)
    _breakout(out, me)
    psw = topo.switches[peer.device]
    pname = end_name(psw, inv.switch_models[psw.model], peer)
    out.mlag.peer_member(out.used.setdefault((me.port, me.lane), Interface(
        end_name(out.sw, out.model, me), me.port, me.lane, me.speed, "member", True,
        f"MLAG peer link {psw.name} {pname}", out.mtu, None, None, None, True, psw.name, pname, "peer")),
        link, upper, psw.name)


def _host_end(out: SwitchLinks, topo: Topology, plan: Plan, link: Link) -> None:
    """A host NIC port on an access port of its rail VLAN, or a member of the NIC's MLAG bond."""
    me, peer, sw, model = link.z, link.a, out.sw, out.model
    port, lane, speed = me.port, me.lane, me.speed
    if lane:  # _breakout and end_name, inline: once per host link
        lanes = model.speed // speed
        out.breakout_of[port] = (lanes, speed)
        name = interface_name(sw.platform, port, lane, lanes, model.serdes_lanes)
    else:
        name = interface_name(sw.platform, port, 0, 1, model.serdes_lanes)
    host = topo.hosts[peer.device].name
    nic, rail = link.nic, link.rail
    sub = plan.rail_subnets[(sw.name, rail)]  # type: ignore[index]
    vlan = sub.vlan
    intf = out.used[(port, lane)] = Interface(
        name, port, lane, speed, "access", True, f"{host} nic{nic} port{peer.port} rail{rail}", out.mtu, None, vlan,
        None, True, host, f"nic{nic}p{peer.port}", "host")
    if link.channel is not None:  # MLAG host bond member: the VLAN goes on the bond
        out.mlag.host_member(intf, link, vlan)
    else:
        out.vlan_members[vlan].append(name)
