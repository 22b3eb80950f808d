"""CONFIG_DB ports and interfaces: PORT, BREAKOUT_CFG, INTERFACE, PORTCHANNEL*, VLAN* (sonic-port.yang,
sonic-breakout_cfg.yang, sonic-interface.yang, sonic-portchannel.yang, sonic-vlan.yang).

An address row is the interface's own key plus `<name>|<a.b.c.d/len>`, both with no fields. An unnumbered routed port
or port-channel has its own key only, with `ipv6_use_link_local_only: enable` (LINK_LOCAL_ONLY).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: the platform registry imports this module before railfabric.device exists
    from railfabric.device import DeviceConfig, Interface, PortChannel, Vlan
    from railfabric.device.mlag import Mlag


Tables = dict[str, dict[str, Any]]

PORT_TABLES = frozenset({"PORT", "BREAKOUT_CFG", "INTERFACE", "PORTCHANNEL", "PORTCHANNEL_MEMBER",
                         "PORTCHANNEL_INTERFACE", "VLAN", "VLAN_INTERFACE", "VLAN_MEMBER"})

MLAG_PEER_VLAN_DESCRIPTION = "MLAG-PEER"
# an unnumbered routed port or port-channel (routing.addressing: unnumbered): the interface row with no address
# row, its IPv6 link-local address enabled (sonic-interface.yang INTERFACE_LIST / sonic-portchannel.yang
# PORTCHANNEL_INTERFACE_LIST leaf ipv6_use_link_local_only, enable|disable, default disable; sonic-buildimage master)
LINK_LOCAL_ONLY = {"ipv6_use_link_local_only": "enable"}


def address_rows(rows: Iterable[tuple[str, str]]) -> dict[str, dict[str, str]]:
    """INTERFACE-style rows of (name, address): `name` and `name|address`, both empty."""
    out: dict[str, dict[str, str]] = {}
    for name, address in rows:
        out[name] = {}
        out[f"{name}|{address}"] = {}
    return out


class _Texts(dict[Any, str]):
    """value → its CONFIG_DB text, made on the first miss: a hit is one dict lookup in the caller's expression, no
    call (a million ports at 131,072 GPUs). The values are ints and tuples of ints: the text is a function of the key
    alone. Bounded: emptied when it reaches `limit` keys."""

    def __init__(self, text: Callable[[Any], str], limit: int = 1 << 12) -> None:
        super().__init__()
        self.text, self.limit = text, limit

    def __missing__(self, key: Any) -> str:
        if len(self) >= self.limit:
            self.clear()
        value = self[key] = self.text(key)
        return value


def lanes_text(lanes: tuple[int, ...]) -> str:
    """PORT.lanes ("0,1,2,3")."""
    return ",".join(str(lane) for lane in lanes)


LANES_TEXT = _Texts(lanes_text)  # the same serdes lanes recur on every switch of a model: each joined once
MTU_TEXT = _Texts(str)


def interface_tables(interfaces: tuple[Interface, ...], link_local: bool = False) -> Tables:
    """PORT for every port (unused ones admin down), BREAKOUT_CFG on the first lane of each broken-out port, and
    INTERFACE for the routed ports."""
    # a PORT row: admin status, speed, FEC, MTU, serdes lanes and description (a million ports at 131,072 GPUs:
    # written out in the comprehension, no call per port)
    out: Tables = {"PORT": {i.name: {"admin_status": "up" if i.admin_up else "down", "speed": i.speed_setting,
                                     "fec": i.fec, "mtu": MTU_TEXT[i.mtu], "lanes": LANES_TEXT[i.lanes],
                                     "description": i.description} for i in interfaces}}
    breakouts = {i.name: {"brkout_mode": i.breakout} for i in interfaces if i.breakout and i.lane == 1}
    if breakouts:
        out["BREAKOUT_CFG"] = breakouts
    # a routed port has its /31 (railfabric/device/links.py), or none when unnumbered: its interface row then turns
    # on the IPv6 link-local address the BGP session runs over
    routed = address_rows((i.name, i.ipv4) for i in interfaces if i.mode == "routed" and i.ipv4)
    # dual-stack (`link_local`): every routed port's IPv6 link-local address is on too, the next hop of the IPv6
    # routes its numbered session carries (railfabric/device/routing_v6.py)
    routed.update({i.name: dict(LINK_LOCAL_ONLY) for i in interfaces if i.unnumbered or (link_local and i.ipv4)})
    if routed:
        out["INTERFACE"] = routed
    return out


def port_channel_row(pc: PortChannel) -> dict[str, str]:
    row = {"admin_status": "up", "mtu": str(pc.mtu), "min_links": str(pc.min_links), "description": pc.description}
    if pc.lacp_key:
        row["lacp_key"] = pc.lacp_key
    return row


def port_channel_tables(port_channels: tuple[PortChannel, ...], link_local: bool = False) -> Tables:
    """PORTCHANNEL and PORTCHANNEL_MEMBER (both present, possibly empty, once there is a port-channel) and
    PORTCHANNEL_INTERFACE for the routed ones."""
    if not port_channels:
        return {}
    out: Tables = {
        "PORTCHANNEL": {pc.name: port_channel_row(pc) for pc in port_channels},
        "PORTCHANNEL_MEMBER": {f"{pc.name}|{m}": {} for pc in port_channels for m in pc.members},
    }
    routed = address_rows((pc.name, pc.ipv4) for pc in port_channels if pc.ipv4)
    routed.update({pc.name: dict(LINK_LOCAL_ONLY) for pc in port_channels if pc.unnumbered or (link_local and pc.ipv4)})
    if routed:
        out["PORTCHANNEL_INTERFACE"] = routed
    return out


def vlan_tables(vlans: tuple[Vlan, ...], mlag: Mlag | None, mtu: int) -> Tables:
    """VLAN and VLAN_INTERFACE for the rail VLANs and, on an MLAG pair, the peer VLAN (its own /31 on each switch,
    the device MTU); VLAN_MEMBER: host ports and bonds untagged, the peer link tagged."""
    if not vlans:
        return {}
    vlan = {f"Vlan{v.id}": {"vlanid": str(v.id), "mtu": str(v.mtu), "description": v.name} for v in vlans}
    svis = address_rows((f"Vlan{v.id}", v.gateway) for v in vlans)
    svis.update(address_rows((f"Vlan{v.id}", v.gateway_v6) for v in vlans if v.gateway_v6))  # dual-stack
    members: dict[str, dict[str, str]] = {}
    for v in vlans:
        members.update({f"Vlan{v.id}|{m}": {"tagging_mode": "untagged"} for m in v.members})
        members.update({f"Vlan{v.id}|{m}": {"tagging_mode": "tagged"} for m in v.tagged})
    if mlag is not None:
        peer = f"Vlan{mlag.vlan}"
        vlan[peer] = {"vlanid": str(mlag.vlan), "mtu": str(mtu), "description": MLAG_PEER_VLAN_DESCRIPTION}
        svis.update(address_rows([(peer, f"{mlag.local_ip}/{mlag.prefix_len}")]))
        members[f"{peer}|{mlag.peer_link}"] = {"tagging_mode": "tagged"}
    out: Tables = {"VLAN": vlan, "VLAN_INTERFACE": svis}
    # VLAN_MEMBER only with an untagged member somewhere or a peer link (tagged members alone never occur: the
    # peer link is the only tagged member and comes with MLAG)
    if any(v.members for v in vlans) or mlag is not None:
        out["VLAN_MEMBER"] = members
    return out


def port_tables(dev: DeviceConfig) -> Tables:
    return {**interface_tables(dev.interfaces, dev.ipv6), **port_channel_tables(dev.port_channels, dev.ipv6),
            **vlan_tables(dev.vlans, dev.mlag, dev.mtu)}
