"""The link walk: what each of a switch's links gives the sections of its device model.

One pass over the switch's links (host, fabric/core, MLAG peer) collects, per section: the Interface of every
used port or lane (interfaces; its physical facts are filled in by build_interfaces, its bundle by the
port-channel builders), the members of each fabric bundle (port-channels), the BGP neighbors per peer group
(routing), the access ports per rail VLAN (vlans), the MLAG pieces (mlag), and the link MTUs that are below the
switch's own because the peer's platform ceiling is lower (the MTU note).

Both ends of a fabric or core link (their Interfaces and BGP neighbors: `EndParts`) are built at once, by the
first of the link's two switches to be walked, when build_devices passes a `LinkEnds` memo (a dict by link id,
alive for one build_devices call); the second switch takes its end from there.
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


class EndParts(NamedTuple):
    """What one end of a switch-to-switch link gives its own switch: its Interface, its BGP neighbor (on a bundle
    member: the bundle's, used on the first member only), the peer group of that session, and the peer's platform
    with the link MTU (both ends' ceiling; the MTU note names the peer platforms whose links run lower)."""

    interface: Interface
    neighbor: Neighbor
    group: str
    peer_platform: str
    mtu: int


# link id → its (a, z) parts and which end took its parts first, for one build_devices call: the first of the
# link's two switches to be walked builds both ends, the second takes its own and drops the entry
LinkEnds = dict[str, tuple[tuple[EndParts, EndParts], bool]]

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


def fabric_link(inv: Inventory, topo: Topology, plan: Plan, link: Link) -> tuple[EndParts, EndParts]:
    """Both ends of a fabric or core link: a routed /31 port with its BGP neighbor, or a member of a bundle (the
    bundle's /31 and neighbor) at the link MTU. z is the upper end, with the upper address of the /31."""
    a, z = topo.switches[link.a.device], topo.switches[link.z.device]
    upper_ip, lower_ip = plan.p2p_ends(link.bundle or link.id)
    a_ip, z_ip = ntoa(lower_ip), ntoa(upper_ip)
    a_name, z_name = end_name(a, inv.switch_models[a.model], link.a), end_name(z, inv.switch_models[z.model], link.z)
    a_desc, z_desc = f"{z.name} {z_name}", f"{a.name} {a_name}"  # each end describes its peer
    mtu, role, ea, ez = _link_mtu(inv.fabric.mtu, a.platform, z.platform), link.role.value, link.a, link.z
    if link.bundle:
        ia = Interface(a_name, ea.port, ea.lane, ea.speed, "member", True, a_desc, mtu, None, None, None, True, z.name,
                       z_name, role)
        iz = Interface(z_name, ez.port, ez.lane, ez.speed, "member", True, z_desc, mtu, None, None, None, True, a.name,
                       a_name, role)
        na, nz = Neighbor(z_ip, plan.asn[z.name], z.name, a_ip), Neighbor(a_ip, plan.asn[a.name], a.name, z_ip)
    else:
        ia = Interface(a_name, ea.port, ea.lane, ea.speed, "routed", True, a_desc, mtu, f"{a_ip}/31", None, None, True,
                       z.name, z_name, role)
        iz = Interface(z_name, ez.port, ez.lane, ez.speed, "routed", True, z_desc, mtu, f"{z_ip}/31", None, None, True,
                       a.name, a_name, role)
        na, nz = Neighbor(z_ip, plan.asn[z.name], a_desc, a_ip), Neighbor(a_ip, plan.asn[a.name], z_desc, z_ip)
    return (EndParts(ia, na, _group_of(a.role, z.role), z.platform, mtu),
            EndParts(iz, nz, _group_of(z.role, a.role), a.platform, mtu))


def walk_links(inv: Inventory, topo: Topology, plan: Plan, sw: Switch, links: list[tuple[Link, bool]], mtu: int,
               port_channel_name: Callable[[int], str], memo: LinkEnds | None = None) -> SwitchLinks:
    """Collect what `sw`'s links (from links_by_device) give each section; `mtu` is the switch MTU,
    `port_channel_name` the platform's port-channel naming, `memo` the ends built by the link's other switch."""
    out = SwitchLinks(MlagParts(port_channel_name))
    model = inv.switch_models[sw.model]
    memo = {} if memo is None else memo
    for link, upper in links:
        me = link.z if upper else link.a
        if me.lane:
            out.breakout_of[me.port] = (model.speed // me.speed, me.speed)
        role = link.role
        if role is LinkRole.HOST:
            _host_end(out, topo, plan, sw, link, me, link.a, end_name(sw, model, me), mtu)
            continue
        if role is LinkRole.PEER:
            _peer_end(out, inv, topo, link, upper, end_name(sw, model, me), mtu)
            continue
        found = memo.pop(link.id, None)
        if found is None or found[1] is upper:  # the first end met, or (never in build_devices) the same end again
            ends = fabric_link(inv, topo, plan, link)
            memo[link.id] = (ends, upper)
        else:
            ends = found[0]
        intf, neighbor, group, peer_platform, lmtu = ends[1] if upper else ends[0]
        if lmtu < mtu:
            out.lower_peers[peer_platform] = lmtu
        out.used[(me.port, me.lane)] = intf
        if link.bundle:
            members = out.channels[link.bundle]
            members.append((me.port, me.lane, link, upper))
            if len(members) > 1:  # one neighbor per bundle, on its first member
                continue
        out.neighbors[group].append(neighbor)
    return out


def _peer_end(out: SwitchLinks, inv: Inventory, topo: Topology, link: Link, upper: bool, name: str, mtu: int) -> None:
    """A member of the MLAG peer link, at the switch MTU."""
    me, peer = (link.z, link.a) if upper else (link.a, link.z)
    psw = topo.switches[peer.device]
    pname = end_name(psw, inv.switch_models[psw.model], peer)
    out.mlag.peer_member(out.used.setdefault((me.port, me.lane), Interface(
        name, me.port, me.lane, me.speed, "member", True, f"MLAG peer link {psw.name} {pname}", mtu, None, None, None,
        True, psw.name, pname, "peer")), link, upper, psw.name)


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
