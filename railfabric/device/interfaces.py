"""Interfaces of the device model: every port (and breakout lane) of the switch model, used or not.

The link walk (railfabric/device/links.py) leaves one Interface per used (port, lane); build_interfaces adds the
physical facts every port needs (breakout mode, serdes lanes, the platform's forced-speed value, FEC) and fills
in the ports no link uses (unused, or disabled in the inventory). Names come from the platform registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from railfabric.core.units import format_speed
from railfabric.inventory.intent import SwitchModel
from railfabric.platforms import PLATFORMS, fec_for
from railfabric.topology import End, Switch


@dataclass(slots=True)  # not frozen: hundreds of thousands are built at scale; treat as read-only
class Interface:
    name: str
    port: int
    lane: int  # 0 = not broken out
    speed: int  # Gbit/s
    mode: str  # routed | access | member | unused
    admin_up: bool
    description: str
    mtu: int
    ipv4: str | None = None  # a.b.c.d/31 on routed ports
    vlan: int | None = None  # access VLAN on host ports
    channel: str | None = None  # port-channel this member belongs to
    qos: bool = False  # RoCE QoS (trust DSCP, PFC, ECN, scheduler, watchdog) applies
    peer: str = ""  # peer device
    peer_interface: str = ""
    role: str = ""  # host | fabric | core (link role), "" when unused
    breakout: str = ""  # breakout mode of the physical port, e.g. "2x400G"; "" when native
    lanes: tuple[int, ...] = ()  # serdes lanes (sequential numbering: port p owns (p-1)·serdes ...)
    channel_number: int | None = None
    speed_setting: str = ""  # the platform's forced-speed value (EOS "400g-4", SONiC "400000"): railfabric/platforms/
    fec: str = "none"  # "rs" | "none": the same at both ends of a link (platforms.fec_for)
    # routing.addressing unnumbered: a routed port with no IPv4 address, its BGP session over IPv6 link-local
    unnumbered: bool = False


@lru_cache(maxsize=1 << 16)
def interface_name(platform: str, port: int, lane: int, lanes: int, serdes: int) -> str:
    """Interface names repeat across thousands of identical switches: compute each once."""
    return PLATFORMS[platform].interface(port, lane, lanes, serdes)


@lru_cache(maxsize=1 << 16)
def _end_name(platform: str, port: int, lane: int, speed: int, model_speed: int, serdes: int) -> str:
    return PLATFORMS[platform].end_interface(port, lane, speed, model_speed, serdes)


def end_name(sw: Switch, model: SwitchModel, end: End) -> str:
    """The interface name of link end `end` on switch `sw` (of `model`): a lane of a broken-out port is named
    after its position among model.speed // end.speed lanes (Platform.end_interface)."""
    return _end_name(sw.platform, end.port, end.lane, end.speed, model.speed, model.serdes_lanes)


class Physical(NamedTuple):
    """The physical facts of one port or lane, as the Interface fields of the same names."""

    breakout: str
    lanes: tuple[int, ...]
    speed_setting: str
    fec: str


@lru_cache(maxsize=1 << 14)
def physical(platform: str, serdes_lanes: int, port: int, lanes_speed: tuple[int, int] | None, lane: int,
             speed: int) -> Physical:
    """The physical facts of one port or lane (breakout mode, serdes lanes, the platform's forced-speed value, FEC):
    the same on every switch of a model, so computed once per (platform, model shape, port, lane, speed)."""
    mode = f"{lanes_speed[0]}x{format_speed(lanes_speed[1])}" if lanes_speed else ""
    per_lane = serdes_lanes // (lanes_speed[0] if lanes_speed else 1)
    first = (port - 1) * serdes_lanes + ((lane - 1) * per_lane if lane else 0)
    serdes = tuple(range(first, first + max(per_lane, 1)))
    return Physical(mode, serdes, PLATFORMS[platform].speed_setting(speed, len(serdes)), fec_for(speed, len(serdes)))


_Port = tuple[str, Physical, Interface]  # (name, physical facts, the Interface when unused)


def _unused(name: str, port: int, lane: int, speed: int, mtu: int, f: Physical) -> Interface:
    return Interface(name, port, lane, speed, "unused", False, "unused", mtu, None, None, None, False, "", "", "",
                     f.breakout, f.lanes, None, f.speed_setting, f.fec)


@lru_cache(maxsize=256)
def native_ports(platform: str, serdes_lanes: int, ports: int, speed: int, mtu: int) -> tuple[_Port, ...]:
    """Every port of a model shape, not broken out, at the model's speed: the same on every switch of that shape,
    so computed once, with the Interface of the port when it is unused (shared by those switches: read-only)."""
    out = []
    for port in range(1, ports + 1):
        name = interface_name(platform, port, 0, 1, serdes_lanes)
        f = physical(platform, serdes_lanes, port, None, 0, speed)
        out.append((name, f, _unused(name, port, 0, speed, mtu, f)))
    return tuple(out)


@lru_cache(maxsize=1 << 12)
def breakout_lanes(platform: str, serdes_lanes: int, port: int, lanes_speed: tuple[int, int], model_speed: int,
                   mtu: int) -> tuple[_Port, ...]:
    """Each lane (1, 2, ...) of a broken-out port at the lane speed, as native_ports gives a port."""
    lanes, speed = lanes_speed
    out = []
    for lane in range(1, lanes + 1):
        name = interface_name(platform, port, lane, model_speed // speed, serdes_lanes)
        f = physical(platform, serdes_lanes, port, lanes_speed, lane, speed)
        out.append((name, f, _unused(name, port, lane, speed, mtu, f)))
    return tuple(out)


Breakouts = tuple[tuple[int, tuple[int, int]], ...]  # (port, (lanes, lane speed)) of the broken-out ports, sorted


# Where a (port, lane) sits in a switch shape's layout: (its position, its speed, its physical facts there)
_Slot = tuple[int, int, Physical]


@lru_cache(maxsize=1 << 10)
def port_layout(platform: str, serdes_lanes: int, ports: int, speed: int, mtu: int,
                breakouts: Breakouts) -> tuple[tuple[Interface, ...], dict[tuple[int, int], _Slot]]:
    """Every port and lane of a switch shape as unused Interfaces, by port then lane (shared by the switches of
    that shape: read-only), and the slot of each (port, lane): its position in that order, its speed and physical
    facts."""
    native, broken = native_ports(platform, serdes_lanes, ports, speed, mtu), dict(breakouts)
    out: list[Interface] = []
    for port in range(1, ports + 1):
        lanes_speed = broken.get(port)
        facts = native[port - 1: port] if lanes_speed is None else \
            breakout_lanes(platform, serdes_lanes, port, lanes_speed, speed, mtu)
        out.extend(unused for _name, _f, unused in facts)
    slots = {(i.port, i.lane): (n, i.speed, Physical(i.breakout, i.lanes, i.speed_setting, i.fec))
             for n, i in enumerate(out)}
    return tuple(out), slots


# What fixes the buffer facts (name, speed, MTU, serdes lanes, role, QoS) of every interface build_interfaces gives:
# the arguments of its port_layout (the unused ports' Interfaces) and (position, those facts) of each other one.
Shape = tuple[tuple[str, int, int, int, int, Breakouts],
              tuple[tuple[int, str, int, int, tuple[int, ...], str, bool], ...]]


def build_interfaces(sw: Switch, model: SwitchModel, used: dict[tuple[int, int], Interface],
                     breakout_of: dict[int, tuple[int, int]], mtu: int) -> tuple[Interface, ...]:
    """Every port of `model` on `sw`, by port then lane (build_interfaces_shaped without the shape)."""
    return build_interfaces_shaped(sw, model, used, breakout_of, mtu)[0]


def build_interfaces_shaped(sw: Switch, model: SwitchModel, used: dict[tuple[int, int], Interface],
                            breakout_of: dict[int, tuple[int, int]],
                            mtu: int) -> tuple[tuple[Interface, ...], Shape]:
    """Every port of `model` on `sw`, by port then lane: the used lanes (`used`: (port, lane) → its Interface from
    the link walk, whose physical facts are filled in here), the spare lanes of broken-out ports (`breakout_of`:
    port → (lanes, lane speed)), unused and disabled ports at the switch MTU. Serdes lanes are numbered
    sequentially: port p owns (p-1)·serdes_lanes ... Unused ports are the Interfaces port_layout shares between
    the switches of one shape (read-only, like every Interface once built). With the interfaces, their Shape: the
    buffer tables' cache key (device.buffers), made here where each Interface that is not the layout's is met
    anyway, at a fraction of the cost of a key of every interface."""
    platform, serdes = sw.platform, model.serdes_lanes
    layout = (platform, serdes, model.ports, model.speed, mtu, tuple(sorted(breakout_of.items())))
    template, slots = port_layout(*layout)
    out = list(template)
    own = []
    for key, intf in used.items():
        slot = slots.get(key)
        if slot is None:  # beyond the model: the validation stops rendering on PORT001 before this
            continue
        n, speed, facts = slot
        if intf.speed == speed:
            intf.breakout, intf.lanes, intf.speed_setting, intf.fec = facts
        else:  # a port run below its native speed without a breakout
            port, lane = key
            intf.breakout, intf.lanes, intf.speed_setting, intf.fec = physical(
                platform, serdes, port, breakout_of.get(port), lane, intf.speed)
        out[n] = intf
        own.append((n, intf.name, intf.speed, intf.mtu, intf.lanes, intf.role, intf.qos))
    if sw.disabled_ports:
        for n, t in enumerate(template):
            if out[n] is t and t.port in sw.disabled_ports:
                i = out[n] = Interface(t.name, t.port, t.lane, t.speed, "unused", False, "disabled in inventory", mtu,
                                       breakout=t.breakout, lanes=t.lanes, speed_setting=t.speed_setting, fec=t.fec)
                own.append((n, i.name, i.speed, i.mtu, i.lanes, i.role, i.qos))
    return tuple(out), (layout, tuple(own))
