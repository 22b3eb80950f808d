"""The vendor-neutral device model: one DeviceConfig per switch holding every decision; templates only format.

One module per config section, each with its records and its builder (like pyavd's one module per structured-config
section): system (management plane and baseline), interfaces, port_channels, vlans (VLANs/SVIs), routing (BGP),
qos, buffers (the device side of railfabric/plan/buffers.py), mlag; links.py walks a switch's links once for all of
them, model.py holds DeviceConfig and build.py orchestrates (build_devices).
"""

from railfabric.device.buffers import device_buffers
from railfabric.device.build import build_device, build_devices
from railfabric.device.interfaces import Interface
from railfabric.device.mlag import (
    MLAG_LACP_KEY,
    MLAG_PEER_GROUP,
    MLAG_TRUNK_GROUP,
    PEER_VLAN,
    VIRTUAL_ROUTER_MAC,
    Mlag,
    MlagParts,
    build_mlag,
)
from railfabric.device.model import DeviceConfig
from railfabric.device.port_channels import PortChannel
from railfabric.device.qos import Ecn, Qos, TxQueue, Watchdog, build_qos
from railfabric.device.routing import PL_REDISTRIBUTE, RM_REDISTRIBUTE, Bgp, Neighbor, PeerGroup
from railfabric.device.system import (
    ADMIN_PRIVILEGE,
    EOS_SNMP_GROUP,
    OPERATOR_PRIVILEGE,
    RADIUS_PORT,
    SNMP_PORT,
    TACACS_PORT,
    AaaGroup,
    Server,
    SnmpUser,
    SyslogServer,
    System,
    User,
    build_system,
    effective,
)
from railfabric.device.vlans import Vlan

__all__ = [
    "ADMIN_PRIVILEGE", "EOS_SNMP_GROUP", "MLAG_LACP_KEY", "MLAG_PEER_GROUP", "MLAG_TRUNK_GROUP", "OPERATOR_PRIVILEGE",
    "PEER_VLAN", "PL_REDISTRIBUTE", "RADIUS_PORT", "RM_REDISTRIBUTE", "SNMP_PORT", "TACACS_PORT",
    "VIRTUAL_ROUTER_MAC", "AaaGroup", "Bgp", "DeviceConfig", "Ecn", "Interface", "Mlag", "MlagParts", "Neighbor",
    "PeerGroup", "PortChannel", "Qos", "Server", "SnmpUser", "SyslogServer", "System", "TxQueue", "User", "Vlan",
    "Watchdog", "build_device", "build_devices", "build_mlag", "build_qos", "build_system", "device_buffers",
    "effective",
]
