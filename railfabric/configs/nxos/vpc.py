"""The vPC pieces of an NX-OS running-config (Cisco virtual port channel + HSRP), from the device model's Mlag,
PortChannel and Vlan records (railfabric/device/mlag.py decides the pair, the ids, the peer /31 and the gateway).

What is NX-OS's own and decided here, once:
- the peer VLAN: NX-OS reserves VLANs 3968-4094 for internal use (NX-OS Layer 2 Switching guide, VLAN ranges;
  moving the block with `system vlan <n> reserve` needs a reload), so the model's peer VLAN 4094 cannot be
  configured. NX-OS uses 3967, the highest VLAN below the reserved block, for the peer SVI and the peer-link trunk
  (PEER_VLAN; Platform.mlag_peer_interface names its SVI Vlan3967, so ipplan.csv and expected/ match the file);
- the vPC domain id: the model's domain number (the rail group inside the segment, 1..), the same on both switches.
  It must differ only between vPC pairs that share a layer-2 domain (it seeds the pair's LACP system MAC); every
  pair here is its own layer-2 domain;
- the primary: side a gets `role priority` 2048, side b 32667 (NX-OS's default; lower wins);
- the peer-keepalive runs over mgmt0 in the management VRF: destination = the peer's management address, source
  = this switch's (Cisco's recommendation for the keepalive link);
- `peer-gateway` (each switch routes frames sent to its peer's MAC) and `ip arp synchronize` (ARP table sync
  across the peer link, faster convergence after a peer reload); `layer3 peer-router` is not needed: no routing
  protocol runs over a vPC, only the iBGP session between the pair, over the peer VLAN carried by the peer link;
- the shared gateway: HSRP, not VRRP. HSRP version 2 numbers groups 0-4095, so group = the rail VLAN id works for
  every VLAN (VRRP groups stop at 255); with vPC both switches forward for the HSRP virtual MAC (active/active).
  Side a priority 110, side b 100 (HSRP's default), `preempt`. The virtual MAC is HSRP's own (0000.0c9f.fxxx from
  the group, the same on both switches): nothing to configure (Platform.configured_virtual_mac stays False).
  Each switch keeps its own address on the SVI (Vlan.own, decided in allocate: Platform.mlag_own_svi_address);
- the member ports of an L2 port-channel (host bond, peer link) carry the same switchport mode and VLANs as their
  channel (NX-OS's port-channel compatibility check), then `channel-group N mode active` (LACP).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from railfabric.platforms.nxos import PEER_VLAN
from railfabric.topology.model import MLAG_PEER_VLAN as MODEL_PEER_VLAN

if TYPE_CHECKING:  # the registry imports this module while railfabric.device is importing the registry
    from railfabric.device import DeviceConfig, PortChannel

PEER_VLAN_NAME = "VPC-PEER"
PRIMARY_PRIORITY = 2048
SECONDARY_PRIORITY = 32667  # NX-OS's default vPC role priority
HSRP_ACTIVE = 110
HSRP_STANDBY = 100  # HSRP's default priority


@dataclass(frozen=True, slots=True)
class Switchport:
    """The layer-2 side of a port-channel or of one of its members: access VLAN or trunk allowed list."""

    mode: str  # access | trunk
    vlan: int | None = None
    allowed: str = ""  # "100,3967"


@dataclass(frozen=True, slots=True)
class VpcView:
    domain: int
    role_priority: int
    keepalive_destination: str  # the peer's mgmt0 address
    keepalive_source: str  # this switch's
    vrf: str
    peer_vlan: int
    peer_vlan_name: str
    peer_link: str  # port-channel1000
    peer: str
    local_ip: str  # a.b.c.d/31 on the peer SVI
    hsrp_priority: int
    switchports: dict[str, Switchport]  # L2 port-channel or member → its switchport settings
    vpc_ids: dict[str, int]  # host bond → vpc <id>
    hsrp_ip: dict[int, str]  # rail VLAN → the HSRP group's virtual address (the shared gateway, without length)


def nxos_vlan(vid: int) -> int:
    """The model's VLAN id as NX-OS configures it: the peer VLAN moves below the reserved block."""

    return PEER_VLAN if vid == MODEL_PEER_VLAN else vid


def switchport(pc: PortChannel) -> Switchport:
    if pc.mode == "trunk":
        return Switchport("trunk", allowed=",".join(str(nxos_vlan(v)) for v in pc.trunk_vlans))
    return Switchport("access", vlan=pc.vlan)


def build_vpc(d: DeviceConfig) -> VpcView | None:
    """The switch's vPC settings; None when it is not in a pair."""
    m = d.mlag
    if m is None:
        return None
    ports: dict[str, Switchport] = {}
    for pc in d.port_channels:
        if pc.mode in ("access", "trunk"):
            sp = switchport(pc)
            ports[pc.name] = sp
            ports.update(dict.fromkeys(pc.members, sp))
    vpc_ids = {pc.name: pc.mlag for pc in d.port_channels if pc.mlag is not None}
    return VpcView(
        domain=m.domain_number, role_priority=PRIMARY_PRIORITY if m.primary else SECONDARY_PRIORITY,
        keepalive_destination=m.peer_management, keepalive_source=d.management.split("/")[0], vrf=d.system.vrf,
        peer_vlan=nxos_vlan(m.vlan), peer_vlan_name=PEER_VLAN_NAME, peer_link=m.peer_link, peer=m.peer,
        local_ip=f"{m.local_ip}/{m.prefix_len}", hsrp_priority=HSRP_ACTIVE if m.primary else HSRP_STANDBY,
        switchports=ports, vpc_ids=vpc_ids,
        hsrp_ip={v.id: v.gateway.split("/")[0] for v in d.vlans if v.virtual})
