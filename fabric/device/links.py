"""The link walk: what each of a switch's links gives the sections of its device model.

One pass over the switch's links (host, fabric/core, MLAG peer) collects, per section: the field dict of every
used interface (interfaces), the members of each fabric bundle (port-channels), the BGP neighbors per peer group
(routing), the access ports per rail VLAN (vlans), the MLAG pieces (mlag), and the link MTUs that are below the
switch's own because the peer's platform ceiling is lower (the MTU note).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from fabric.address import ntoa
from fabric.allocate import Plan
from fabric.device.interfaces import end_name
from fabric.device.mlag import MlagParts
from fabric.device.port_channels import Member
from fabric.device.routing import Neighbor, group_of
from fabric.intent import Inventory
from fabric.mtu import link_mtu
from fabric.topology import End, Link, LinkRole, Switch, Topology


@dataclass(slots=True)
class SwitchLinks:
    mlag: MlagParts
    used: dict[tuple[int, int], dict] = field(default_factory=dict)  # (port, lane) → Interface fields
    breakout_of: dict[int, tuple[int, int]] = field(default_factory=dict)  # port → (lanes, lane speed)
    channels: dict[str, list[Member]] = field(default_factory=lambda: defaultdict(list))  # bundle → members
    neighbors: dict[str, list[Neighbor]] = field(default_factory=lambda: defaultdict(list))  # group → neighbors
    vlan_members: dict[int, list[str]] = field(default_factory=lambda: defaultdict(list))  # VLAN → access ports
    lower_peers: dict[str, int] = field(default_factory=dict)  # peer platform → link MTU below the switch's own


_link_mtu = lru_cache(maxsize=64)(link_mtu)  # one value per (fabric MTU, platform pair), asked once per link end


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


def walk_links(inv: Inventory, topo: Topology, plan: Plan, sw: Switch, links: list[tuple[Link, bool]], mtu: int,
               port_channel_name: Callable[[int], str]) -> SwitchLinks:
    """Collect what `sw`'s links (from links_by_device) give each section; `mtu` is the switch MTU,
    `port_channel_name` the platform's port-channel naming."""
    out = SwitchLinks(MlagParts(port_channel_name))
    model = inv.switch_models[sw.model]
    for link, upper in links:
        me, peer = (link.z, link.a) if upper else (link.a, link.z)
        name = end_name(sw, model, me)
        if me.lane:
            out.breakout_of[me.port] = (model.speed // me.speed, me.speed)
        if link.role is LinkRole.HOST:
            _host_end(out, topo, plan, sw, link, me, peer, name, mtu)
        elif link.role is LinkRole.PEER:
            psw = topo.switches[peer.device]
            pname = end_name(psw, inv.switch_models[psw.model], peer)
            out.mlag.peer_member(out.used.setdefault((me.port, me.lane), dict(
                name=name, port=me.port, lane=me.lane, speed=me.speed, mode="member", admin_up=True,
                description=f"MLAG peer link {psw.name} {pname}", mtu=mtu, qos=True, peer=psw.name,
                peer_interface=pname, role="peer")), link, upper, psw.name)
        else:
            _fabric_end(out, inv, topo, plan, sw, link, upper, me, peer, name, mtu)
    return out


def _host_end(out: SwitchLinks, topo: Topology, plan: Plan, sw: Switch, link: Link, me: End, peer: End, name: str,
              mtu: int) -> None:
    """A host NIC port on an access port of its rail VLAN, or a member of the NIC's MLAG bond."""
    host = topo.hosts[peer.device]
    sub = plan.rail_subnets[(sw.name, link.rail)]  # type: ignore[index]
    spec = out.used[(me.port, me.lane)] = dict(
        name=name, port=me.port, lane=me.lane, speed=me.speed, mode="access", admin_up=True,
        description=f"{host.name} nic{link.nic} port{peer.port} rail{link.rail}", mtu=mtu, vlan=sub.vlan,
        qos=True, peer=host.name, peer_interface=f"nic{link.nic}p{peer.port}", role="host")
    if link.channel is not None:  # MLAG host bond member: the VLAN goes on the bond
        out.mlag.host_member(spec, link, sub.vlan)
    else:
        out.vlan_members[sub.vlan].append(name)


def _fabric_end(out: SwitchLinks, inv: Inventory, topo: Topology, plan: Plan, sw: Switch, link: Link, upper: bool,
                me: End, peer: End, name: str, mtu: int) -> None:
    """A fabric or core link: a routed /31 port with its BGP neighbor, or a member of a bundle (one neighbor per
    bundle, on its first member) at the link MTU (both ends' platform ceiling)."""
    psw = topo.switches[peer.device]
    pname = end_name(psw, inv.switch_models[psw.model], peer)
    lmtu = _link_mtu(inv.fabric.mtu, sw.platform, psw.platform)
    if lmtu < mtu:
        out.lower_peers[psw.platform] = lmtu
    upper_ip, lower_ip = plan.p2p_ends(link.bundle or link.id)
    mine, theirs = (ntoa(upper_ip), ntoa(lower_ip)) if upper else (ntoa(lower_ip), ntoa(upper_ip))
    group = group_of(sw.role, psw.role)
    if link.bundle:
        members = out.channels[link.bundle]
        members.append((me.port, me.lane, link, upper))
        out.used[(me.port, me.lane)] = dict(
            name=name, port=me.port, lane=me.lane, speed=me.speed, mode="member", admin_up=True,
            description=f"{psw.name} {pname}", mtu=lmtu, qos=True, peer=psw.name, peer_interface=pname,
            role=link.role.value)
        if len(members) == 1:
            out.neighbors[group].append(Neighbor(theirs, plan.asn[psw.name], psw.name, mine))
        return
    out.used[(me.port, me.lane)] = dict(
        name=name, port=me.port, lane=me.lane, speed=me.speed, mode="routed", admin_up=True,
        description=f"{psw.name} {pname}", mtu=lmtu, ipv4=f"{mine}/31", qos=True, peer=psw.name,
        peer_interface=pname, role=link.role.value)
    out.neighbors[group].append(Neighbor(theirs, plan.asn[psw.name], f"{psw.name} {pname}", mine))
