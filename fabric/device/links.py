"""The link walk: what each of a switch's links gives the sections of its device model.

One pass over the switch's links (host, fabric/core, MLAG peer) collects, per section: the Interface of every
used port or lane (interfaces; its physical facts are filled in by build_interfaces, its bundle by the
port-channel builders), the members of each fabric bundle (port-channels), the BGP neighbors per peer group
(routing), the access ports per rail VLAN (vlans), the MLAG pieces (mlag), and the link MTUs that are below the
switch's own because the peer's platform ceiling is lower (the MTU note).

What both ends of a switch-to-switch link need (interface names, addresses as text, link MTU, peer groups, peer
ASNs: a `Side` per end) is decided once per link, by the first of its two switches to be walked, when
build_devices passes a `LinkEnds` memo (a dict by link id, alive for one build_devices call).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from fabric.address import ntoa
from fabric.allocate import Plan
from fabric.device.interfaces import Interface, end_name
from fabric.device.mlag import MlagParts
from fabric.device.port_channels import Member
from fabric.device.routing import Neighbor, group_of
from fabric.intent import Inventory
from fabric.mtu import link_mtu
from fabric.topology import End, Link, LinkRole, Switch, Topology


@dataclass(slots=True)
class SwitchLinks:
    mlag: MlagParts
    used: dict[tuple[int, int], Interface] = field(default_factory=dict)  # (port, lane) → its Interface
    breakout_of: dict[int, tuple[int, int]] = field(default_factory=dict)  # port → (lanes, lane speed)
    channels: dict[str, list[Member]] = field(default_factory=lambda: defaultdict(list))  # bundle → members
    neighbors: dict[str, list[Neighbor]] = field(default_factory=lambda: defaultdict(list))  # group → neighbors
    vlan_members: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))  # VLAN → access ports
    lower_peers: dict[str, int] = field(default_factory=dict)  # peer platform → link MTU below the switch's own


class Side(NamedTuple):
    """One end of a switch-to-switch link as its own switch sees it: everything its interface and BGP session need,
    decided once per link for both ends (links.link_ends)."""

    name: str  # my interface
    peer: Switch
    peer_interface: str
    description: str  # "<peer> <peer interface>"
    mine: str  # my address on the link's (or its bundle's) /31, a.b.c.d
    theirs: str
    mtu: int  # the link MTU: both ends' platform ceiling
    group: str  # the BGP peer group of my session to the peer
    peer_asn: int
    role: str  # the link role's value


LinkEnds = dict[str, tuple[Side, Side]]  # link id → its (a, z) sides, for one build_devices call

_link_mtu = lru_cache(maxsize=64)(link_mtu)  # one value per (fabric MTU, platform pair)
_group_of = lru_cache(maxsize=64)(group_of)  # roles are enums: hashing them is Python code, so ask once per pair


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


def link_ends(inv: Inventory, topo: Topology, plan: Plan, link: Link) -> tuple[Side, Side]:
    """The (a, z) sides of a switch-to-switch link: z is the upper end, with the upper address of the /31."""
    a, z = topo.switches[link.a.device], topo.switches[link.z.device]
    upper_ip, lower_ip = plan.p2p_ends(link.bundle or link.id)
    a_ip, z_ip = ntoa(lower_ip), ntoa(upper_ip)
    a_name, z_name = end_name(a, inv.switch_models[a.model], link.a), end_name(z, inv.switch_models[z.model], link.z)
    mtu, role = _link_mtu(inv.fabric.mtu, a.platform, z.platform), link.role.value
    return (Side(a_name, z, z_name, f"{z.name} {z_name}", a_ip, z_ip, mtu, _group_of(a.role, z.role), plan.asn[z.name],
                 role),
            Side(z_name, a, a_name, f"{a.name} {a_name}", z_ip, a_ip, mtu, _group_of(z.role, a.role), plan.asn[a.name],
                 role))


def walk_links(inv: Inventory, topo: Topology, plan: Plan, sw: Switch, links: list[tuple[Link, bool]], mtu: int,
               port_channel_name: Callable[[int], str], memo: LinkEnds | None = None) -> SwitchLinks:
    """Collect what `sw`'s links (from links_by_device) give each section; `mtu` is the switch MTU,
    `port_channel_name` the platform's port-channel naming, `memo` each link's sides once computed."""
    out = SwitchLinks(MlagParts(port_channel_name))
    model = inv.switch_models[sw.model]
    memo = {} if memo is None else memo
    for link, upper in links:
        me = link.z if upper else link.a
        if me.lane:
            out.breakout_of[me.port] = (model.speed // me.speed, me.speed)
        if link.role is LinkRole.HOST:
            _host_end(out, topo, plan, sw, link, me, link.a, end_name(sw, model, me), mtu)
            continue
        sides = memo.get(link.id)
        if sides is None:
            sides = memo[link.id] = link_ends(inv, topo, plan, link)
        side = sides[1] if upper else sides[0]
        if link.role is LinkRole.PEER:
            peer = side.peer.name
            out.mlag.peer_member(out.used.setdefault((me.port, me.lane), Interface(
                side.name, me.port, me.lane, me.speed, "member", True, f"MLAG peer link {side.description}", mtu,
                None, None, None, True, peer, side.peer_interface, "peer")), link, upper, peer)
        else:
            _fabric_end(out, link, upper, me, side, mtu)
    return out


def _host_end(out: SwitchLinks, topo: Topology, plan: Plan, sw: Switch, link: Link, me: End, peer: End, name: str,
              mtu: int) -> None:
    """A host NIC port on an access port of its rail VLAN, or a member of the NIC's MLAG bond."""
    host = topo.hosts[peer.device]
    sub = plan.rail_subnets[(sw.name, link.rail)]  # type: ignore[index]
    intf = out.used[(me.port, me.lane)] = Interface(
        name, me.port, me.lane, me.speed, "access", True, f"{host.name} nic{link.nic} port{peer.port} rail{link.rail}",
        mtu, None, sub.vlan, None, True, host.name, f"nic{link.nic}p{peer.port}", "host")
    if link.channel is not None:  # MLAG host bond member: the VLAN goes on the bond
        out.mlag.host_member(intf, link, sub.vlan)
    else:
        out.vlan_members[sub.vlan].append(name)


def _fabric_end(out: SwitchLinks, link: Link, upper: bool, me: End, side: Side, mtu: int) -> None:
    """A fabric or core link: a routed /31 port with its BGP neighbor, or a member of a bundle (one neighbor per
    bundle, on its first member) at the link MTU (both ends' platform ceiling)."""
    peer = side.peer.name
    if side.mtu < mtu:
        out.lower_peers[side.peer.platform] = side.mtu
    if link.bundle:
        members = out.channels[link.bundle]
        members.append((me.port, me.lane, link, upper))
        out.used[(me.port, me.lane)] = Interface(side.name, me.port, me.lane, me.speed, "member", True,
                                                 side.description, side.mtu, None, None, None, True, peer,
                                                 side.peer_interface, side.role)
        if len(members) == 1:
            out.neighbors[side.group].append(Neighbor(side.theirs, side.peer_asn, peer, side.mine))
        return
    out.used[(me.port, me.lane)] = Interface(side.name, me.port, me.lane, me.speed, "routed", True, side.description,
                                             side.mtu, f"{side.mine}/31", None, None, True, peer, side.peer_interface,
                                             side.role)
    out.neighbors[side.group].append(Neighbor(side.theirs, side.peer_asn, side.description, side.mine))
