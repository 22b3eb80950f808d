"""Port-channels of the device model: routed fabric bundles (rail switch → spine), numbered by their first
member's port so the number follows the cabling. MLAG host bonds and the peer link are built in
railfabric/device/mlag.py from the same PortChannel record."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from railfabric.core.address import ntoa
from railfabric.device.interfaces import Interface
from railfabric.inventory.intent import Inventory
from railfabric.plan.allocate import Plan
from railfabric.topology import Link


@dataclass(frozen=True, slots=True)
class PortChannel:
    name: str
    number: int
    members: tuple[str, ...]
    ipv4: str | None  # a.b.c.d/31 of a routed bundle; None on MLAG host bonds and the peer link
    description: str
    mtu: int
    peer: str
    min_links: int
    mode: str = "routed"  # routed (fabric bundle) | access (MLAG host bond) | trunk (MLAG peer link)
    vlan: int | None = None  # access VLAN of an MLAG host bond
    trunk_vlans: tuple[int, ...] = ()  # VLANs the MLAG peer link carries (the pair's rail VLANs + peer VLAN)
    mlag: int | None = None  # MLAG id of a host bond: its number, the same on both switches of the pair
    role: str = "fabric"  # fabric | host | peer
    lacp_key: str | None = None  # SONiC PORTCHANNEL lacp_key (MLAG port-channels: device.mlag.MLAG_LACP_KEY)
    unnumbered: bool = False  # a routed bundle without IPv4 address: BGP over IPv6 link-local (routing.addressing)


# one fabric bundle's members as the link walk collects them: (port, lane, link, I am the upper end)
Member = tuple[int, int, Link, bool]


def min_links_limit(inv: Inventory, pod_id: int | None) -> int | None:
    """The pod's spines.port_channel_min_links (with its defaults), None outside a pod with spines."""
    pod = next((p for p in inv.pods if p.id == pod_id), None)
    if pod is None or pod.spines is None:
        return None
    return pod.spines.min_links()


def fabric_port_channels(channels: dict[str, list[Member]], used: dict[tuple[int, int], Interface], plan: Plan,
                         name_of: Callable[[int], str], limit: int | None) -> list[PortChannel]:
    """One routed port-channel per bundle of `channels` (bundle id → members): number = the lowest member port,
    the /31 of the bundle (none when unnumbered), MTU = its members' link MTU, min-links = `limit` (default: every
    member). Marks each member's Interface in `used` with the port-channel it joins."""
    pcs: list[PortChannel] = []
    for bundle, members in channels.items():
        members.sort()
        port, lane0, link, upper = members[0]
        number = port
        pc_name = name_of(number)
        key = link.bundle or link.id
        ipv4 = None
        if key in plan.p2p:  # numbered; an unnumbered bundle has no /31
            upper_ip, lower_ip = plan.p2p_ends(key)
            ipv4 = f"{ntoa(upper_ip if upper else lower_ip)}/31"
        peer = link.a.device if upper else link.z.device
        member_names = []
        for p, lane, _l, _u in members:
            intf = used[(p, lane)]
            intf.channel, intf.channel_number = pc_name, number
            member_names.append(intf.name)
        pc_mtu = used[(port, lane0)].mtu  # the members' link MTU (both ends' ceiling)
        n = len(member_names)
        pcs.append(PortChannel(pc_name, number, tuple(member_names), ipv4,
                               f"{peer} {bundle.rsplit('#', 1)[1]}", pc_mtu, peer,
                               n if limit is None else min(limit, n), unnumbered=ipv4 is None))
    return pcs
