"""Interfaces of the device model: every port (and breakout lane) of the switch model, used or not.

The link walk (fabric/device/links.py) leaves one field dict per used (port, lane); build_interfaces adds the
physical facts every port needs (breakout mode, serdes lanes, the platform's forced-speed value, FEC) and fills
in the ports no link uses (unused, or disabled in the inventory). Names come from the platform registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fabric.intent import SwitchModel
from fabric.platforms import PLATFORMS, fec_for
from fabric.topology import End, Switch
from fabric.units import format_speed


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
    speed_setting: str = ""  # the platform's forced-speed value (EOS "400g-4", SONiC "400000"): fabric/platforms/
    fec: str = "none"  # "rs" | "none": the same at both ends of a link (platforms.fec_for)


@lru_cache(maxsize=1 << 16)
def interface_name(platform: str, port: int, lane: int, lanes: int, serdes: int) -> str:
    """Interface names repeat across thousands of identical switches: compute each once."""
    return PLATFORMS[platform].interface(port, lane, lanes, serdes)


def end_name(sw: Switch, model: SwitchModel, end: End) -> str:
    """The interface name of link end `end` on switch `sw` (of `model`): a lane of a broken-out port is named
    after its position among model.speed // end.speed lanes."""
    return interface_name(sw.platform, end.port, end.lane, model.speed // end.speed if end.lane else 1,
                          model.serdes_lanes)


def build_interfaces(sw: Switch, model: SwitchModel, used: dict[tuple[int, int], dict],
                     breakout_of: dict[int, tuple[int, int]], mtu: int) -> tuple[Interface, ...]:
    """Every port of `model` on `sw`, by port then lane: the used lanes (`used`: (port, lane) → Interface fields),
    the spare lanes of broken-out ports (`breakout_of`: port → (lanes, lane speed)), unused and disabled ports at
    the switch MTU. Serdes lanes are numbered sequentially: port p owns (p-1)·serdes_lanes ..."""
    traits = PLATFORMS[sw.platform]
    interfaces: list[Interface] = []
    for port in range(1, model.ports + 1):
        lanes_speed = breakout_of.get(port)
        lane_ids = range(1, lanes_speed[0] + 1) if lanes_speed else [0]
        mode = f"{lanes_speed[0]}x{format_speed(lanes_speed[1])}" if lanes_speed else ""
        per_lane = model.serdes_lanes // (lanes_speed[0] if lanes_speed else 1)
        for lane in lane_ids:
            first = (port - 1) * model.serdes_lanes + ((lane - 1) * per_lane if lane else 0)
            serdes = tuple(range(first, first + max(per_lane, 1)))
            spec = used.get((port, lane))
            speed = spec["speed"] if spec else lanes_speed[1] if lanes_speed else model.speed
            physical: dict[str, Any] = dict(breakout=mode, lanes=serdes, fec=fec_for(speed, len(serdes)),
                                            speed_setting=traits.speed_setting(speed, len(serdes)))
            if spec is not None:
                interfaces.append(Interface(**spec, **physical))
                continue
            disabled = port in sw.disabled_ports
            name = interface_name(sw.platform, port, lane, model.speed // speed if lane else 1, model.serdes_lanes)
            interfaces.append(Interface(name, port, lane, speed, "unused", False,
                                        "disabled in inventory" if disabled else "unused", mtu, **physical))
    # beyond-model ports never reach here: the validation stops rendering on PORT001
    return tuple(interfaces)
