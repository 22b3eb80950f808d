"""MLAG / MCLAG in the device model: the peer link, the host bonds and the pair's shared gateway.

A `dual_homing: mlag` segment puts each rail group on a pair of switches (side a, side b). Both serve the same rail
subnets with the same gateway address, and each dual-port NIC is one LACP bond over both switches. Decided here,
once, for every platform:
- host bond: port-channel number = MLAG id = 1000 + (host number − 1) × rails-per-switch + rail slot + 1, the same
  on both switches (topology.MLAG_CHANNEL_BASE), access VLAN = the rail VLAN; the member port keeps its speed,
  FEC and RoCE QoS;
- peer link: port-channel 1000 (topology.MLAG_PEER_CHANNEL), a trunk of the pair's rail VLANs plus the peer VLAN
  (4094), with RoCE QoS on its members (after a host link fails, lossless traffic crosses it);
- peer VLAN 4094: one /31 per pair from the fabric-links pool; the MLAG control session and the iBGP session
  between the pair run over it (iBGP, next-hop-self: a switch that loses its uplinks still routes via its peer);
- gateway: the rail SVI address is the same on both switches, answered with one virtual MAC (VIRTUAL_ROUTER_MAC).
  Where the platform needs it (Platform.mlag_own_svi_address: Cumulus VRR, NX-OS HSRP) each switch also has its
  own address on the SVI (allocate.own_address; Vlan.own).
  SONiC (community iccpd MCLAG) renders no virtual MAC: with the same SVI address on both switches, the standby
  takes the active's system MAC on every SVI of an MCLAG VLAN (MC-LAG HLD 5.4; iccpd
  update_vlan_if_mac_on_standby) except the peer VLAN, which MCLAG_UNIQUE_IP keeps per switch for the iBGP
  session. SAG (static_anycast_gateway) is left out: its documented use is with unique-IP SVIs, and iccpd would
  rewrite the same SVI MAC.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from railfabric.core.address import ntoa
from railfabric.device.interfaces import Interface
from railfabric.device.port_channels import PortChannel
from railfabric.plan.allocate import Plan
from railfabric.topology import MLAG_PEER_CHANNEL, Link, Switch
from railfabric.topology.model import MLAG_PEER_VLAN

MLAG_PEER_GROUP = "MLAG-PEER"
PEER_VLAN = MLAG_PEER_VLAN
# EOS: the peer VLAN belongs to this trunk group, so only the peer link (which joins the group) carries it
MLAG_TRUNK_GROUP = "MLAG-PEER"
# The gateway MAC both switches of a pair answer ARP with: a locally administered unicast address (bit 1 of the
# first octet set), so it cannot clash with a vendor's burned-in MAC. One value fabric-wide is enough: a rail
# VLAN never leaves its pair.
VIRTUAL_ROUTER_MAC = "02:1c:73:00:00:01"
# SONiC PORTCHANNEL lacp_key of the pair's port-channels (host bonds and peer link): "auto" = "1" + the port-channel
# number (teammgrd generateLacpKey), so a bond has the same key on both switches and a key of its own (without it
# every port-channel of the switch shares key 0)
MLAG_LACP_KEY = "auto"


@dataclass(frozen=True, slots=True)
class Mlag:
    domain: str  # MLAG domain id (EOS), the same on both switches: "p<pod>-s<segment>-g<group>"
    domain_number: int  # MCLAG_DOMAIN id (SONiC, 1..4095): the rail group number inside the segment
    peer: str  # the other switch of the pair
    primary: bool  # side a
    vlan: int  # peer VLAN
    local_ip: str  # this switch's address on the peer VLAN SVI (a.b.c.d)
    peer_ip: str
    prefix_len: int  # 31
    peer_link: str  # port-channel name of the peer link
    virtual_mac: str
    bonds: tuple[str, ...] = ()  # the host bonds' port-channel names (SONiC MCLAG_INTERFACE)
    trunk_group: str = MLAG_TRUNK_GROUP  # EOS trunk group of the peer VLAN and the peer link
    peer_management: str = ""  # the peer's management address (a.b.c.d): NVUE's MLAG backup IP (vrf mgmt)
    interface: str = f"Vlan{PEER_VLAN}"  # the peer VLAN's routed interface (Platform.mlag_peer_interface)


@dataclass
class MlagParts:
    """Collects a switch's MLAG pieces while the device model walks its links."""

    port_channel_name: Callable[[int], str]
    bonds: dict[int, tuple[str, int, str, str]] = field(default_factory=dict)  # number → (member, vlan, host, desc)
    peer_members: list[str] = field(default_factory=list)
    peer: str = ""
    peer_bundle: str = ""
    upper: bool = False  # this switch is the z end (side b) of the peer link

    @property
    def active(self) -> bool:
        return bool(self.peer_members or self.bonds)

    def host_member(self, intf: Interface, link: Link, vlan: int) -> None:
        number = link.channel or 0
        intf.mode, intf.vlan, intf.channel, intf.channel_number = "member", None, self.port_channel_name(number), number
        self.bonds[number] = (intf.name, vlan, intf.peer, f"{intf.peer} nic{link.nic} bond rail{link.rail}")

    def peer_member(self, intf: Interface, link: Link, upper: bool, peer: str) -> None:
        intf.channel, intf.channel_number = self.port_channel_name(MLAG_PEER_CHANNEL), MLAG_PEER_CHANNEL
        self.peer_members.append(intf.name)
        self.peer, self.peer_bundle, self.upper = peer, link.bundle or link.id, upper

    def bonds_in(self, vlan: int) -> tuple[str, ...]:
        return tuple(self.port_channel_name(n) for n, (_m, v, _h, _d) in sorted(self.bonds.items()) if v == vlan)

    def trunk(self) -> tuple[str, ...]:
        return (self.port_channel_name(MLAG_PEER_CHANNEL),) if self.peer_members else ()


def build_mlag(sw: Switch, plan: Plan, parts: MlagParts, interface: str) -> Mlag | None:
    """The switch's MLAG settings; None when its peer link is entirely off (MLAG001 refuses that inventory).
    `interface`: the platform's name of the peer VLAN's routed interface, "{vlan}" standing for its id."""
    if not parts.peer_members:
        return None
    upper_ip, lower_ip = plan.p2p_ends(parts.peer_bundle)
    mine, theirs = (upper_ip, lower_ip) if parts.upper else (lower_ip, upper_ip)
    group = (sw.group or 0) + 1
    return Mlag(f"p{sw.pod}-s{sw.segment}-g{group}", group, parts.peer, sw.side == 0, PEER_VLAN, ntoa(mine),
                ntoa(theirs), 31, parts.port_channel_name(MLAG_PEER_CHANNEL), VIRTUAL_ROUTER_MAC,
                tuple(parts.port_channel_name(n) for n in sorted(parts.bonds)),
                peer_management=ntoa(plan.management[parts.peer]), interface=interface.format(vlan=PEER_VLAN))


def mlag_port_channels(parts: MlagParts, mtu: int, rail_vlans: list[int]) -> list[PortChannel]:
    """MLAG host bonds (access, one member here, its twin on the peer) and the peer link (trunk of the pair's rail
    VLANs, sorted, plus the peer VLAN), at the switch MTU, min-links 1."""
    out = [PortChannel(parts.port_channel_name(n), n, (member,), None, desc, mtu, host, 1, mode="access", vlan=vlan,
                       mlag=n, role="host", lacp_key=MLAG_LACP_KEY)
           for n, (member, vlan, host, desc) in sorted(parts.bonds.items())]
    if parts.peer_members:
        out.append(PortChannel(parts.port_channel_name(MLAG_PEER_CHANNEL), MLAG_PEER_CHANNEL,
                               tuple(parts.peer_members), None, f"MLAG peer link {parts.peer}", mtu, parts.peer, 1,
                               mode="trunk", trunk_vlans=(*sorted(rail_vlans), PEER_VLAN), role="peer",
                               lacp_key=MLAG_LACP_KEY))
    return out
