"""The MC-LAG pieces of a junos.conf (Junos MC-LAG on QFX: ICCP, the inter-chassis link, mc-ae host bonds, VRRP
gateways), from the device model's Mlag, PortChannel and Vlan records (fabric/device/mlag.py decides the pair, the
ids, the peer /31 and the shared gateway address).

What is Junos's own and decided here, once:
- ICCP runs between the pair's addresses on the peer VLAN (irb.4094, the /31): `protocols iccp local-ip-addr`
  = this switch's end, `peer <other end>` with `redundancy-group-id-list 1`, `session-establishment-hold-time`
  50 s, BFD `liveness-detection` 1000 ms × 3 and `backup-liveness-detection backup-peer-ip` = the peer's
  management address (the Juniper QFX MC-LAG example's choices);
- the ICL is the model's peer link ae1000, a trunk of the pair's rail VLANs and the peer VLAN, named in
  `multi-chassis multi-chassis-protection <peer> interface ae1000`;
- one redundancy group per pair (1), and `switch-options service-id` = the pair's MLAG domain number (the rail group
  number in its segment: the same on both switches, as Juniper requires);
- a host bond is an mc-ae: `mc-ae-id` = the model's MLAG id, `chassis-id` 0 on side a / 1 on side b, `mode
  active-active`, `status-control` active on side a / standby on side b, `redundancy-group 1`; its LACP
  `admin-key` = the MLAG id and `system-id` one per pair, the same on both switches: the locally administered
  02:1c:73:ff:hh:ll, hhll = the low 16 bits of the pair's peer /31 number (network address / 2), so pairs differ
  unless 65,536 /31s apart in the fabric-links pool;
- the shared rail gateway is VRRP over the IRB unit (Juniper documents two layer-3 methods for QFX MC-LAG:
  MAC address synchronization with the same address on both IRBs, or VRRP; VRRP is chosen because it keeps one
  address per switch, Vlan.own, so ICMP to each switch and ARP refresh work, and the Juniper MC-LAG best-practice
  notes send DHCP relay users to VRRP): `family inet address <own>/<len> { vrrp-group <n> { virtual-address
  <gateway>; priority 200 (side a) | 100 (side b, the default); accept-data; } }`, group n = the VLAN's position on
  the switch (1, 2, ...: the same on both switches since a pair serves the same rails). The gateway MAC is VRRP's
  00:00:5e:00:01:<n>, written nowhere (Platform.configured_virtual_mac stays False);
- the peer VLAN's routed interface is irb.4094 (Platform.mlag_peer_interface), so the model, ipplan.csv and expected/
  name it as junos.conf does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fabric.address import aton

if TYPE_CHECKING:  # the registry imports this package before the device model exists
    from fabric.device import DeviceConfig, Mlag, PortChannel

PEER_INTERFACE = "irb.{vlan}"  # Platform.mlag_peer_interface
PEER_VLAN_NAME = "MLAG-PEER"
REDUNDANCY_GROUP = 1
HOLD_TIME_S = 50  # session-establishment-hold-time
LIVENESS_INTERVAL_MS = 1000  # liveness-detection minimum-interval
LIVENESS_MULTIPLIER = 3
SYSTEM_ID_BASE = "02:1c:73:ff"  # locally administered; the last two octets per pair
PRIMARY_VRRP_PRIORITY = 200
SECONDARY_VRRP_PRIORITY = 100  # the Junos VRRP default


@dataclass(frozen=True, slots=True)
class JMcae:
    """aggregated-ether-options of an MC-LAG host bond: LACP system-id/admin-key and the mc-ae block."""

    mc_ae_id: int
    chassis_id: int
    status_control: str
    system_id: str
    admin_key: int


@dataclass(frozen=True, slots=True)
class JVrrp:
    group: int
    virtual_address: str  # the shared gateway, a.b.c.d (no length)
    priority: int


@dataclass(frozen=True, slots=True)
class JMclag:
    local_ip: str
    peer_ip: str
    backup_peer_ip: str  # the peer's management address ("" = none)
    hold_time: int
    liveness_interval: int
    liveness_multiplier: int
    redundancy_group: int
    service_id: int
    icl: str  # the inter-chassis link (peer link) ae name


def system_id(m: Mlag) -> str:
    """The pair's LACP system-id: 02:1c:73:ff:hh:ll, hhll = the low 16 bits of the peer /31's number."""
    n = (min(aton(m.local_ip), aton(m.peer_ip)) >> 1) & 0xFFFF
    return f"{SYSTEM_ID_BASE}:{n >> 8:02x}:{n & 0xFF:02x}"


def mclag(dev: DeviceConfig) -> JMclag | None:
    m = dev.mlag
    if m is None:
        return None
    return JMclag(m.local_ip, m.peer_ip, m.peer_management, HOLD_TIME_S, LIVENESS_INTERVAL_MS, LIVENESS_MULTIPLIER,
                  REDUNDANCY_GROUP, m.domain_number, m.peer_link)


def mcae(dev: DeviceConfig, pc: PortChannel) -> JMcae | None:
    """The mc-ae settings of a host bond; None for any other port-channel."""
    m = dev.mlag
    if m is None or pc.mlag is None:
        return None
    return JMcae(pc.mlag, 0 if m.primary else 1, "active" if m.primary else "standby", system_id(m), pc.mlag)


def vrrp(dev: DeviceConfig, position: int, gateway: str) -> JVrrp | None:
    """VRRP group `position` (1-based) answering the shared gateway a.b.c.d/len on an MC-LAG switch's rail IRB."""
    m = dev.mlag
    if m is None:
        return None
    return JVrrp(position, gateway.split("/")[0], PRIMARY_VRRP_PRIORITY if m.primary else SECONDARY_VRRP_PRIORITY)
