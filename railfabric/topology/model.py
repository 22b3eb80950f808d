"""The topology's records: switches, hosts, links with both ends, segments, and the Topology holding them
(railfabric/topology/expand.py builds it; the module docstring there gives the identity and port rules)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from railfabric.inventory.intent import DualHoming, RailDesign


class Role(StrEnum):
    SUPER_SPINE = "super-spine"
    SPINE = "spine"
    RAIL = "rail"


MLAG_CHANNEL_BASE = 1000  # MLAG host bonds are port-channels 1001..: clear of fabric bundles (numbered by port)
MLAG_PEER_CHANNEL = 1000  # the peer link's port-channel
MLAG_PEER_VLAN = 4094  # the MLAG peer VLAN of the model (a platform may configure another: Platform.mlag_peer_vlan)


class LinkRole(StrEnum):
    HOST = "host"  # host NIC port → rail switch
    FABRIC = "fabric"  # rail switch → spine
    CORE = "core"  # spine → super-spine
    PEER = "peer"  # MLAG peer link: side a → side b of a rail group (Topology.peer_links)


@dataclass(slots=True)
class Switch:
    key: str  # the pattern name: stable identity, key of `devices:` overrides
    name: str  # hostname (override or key)
    role: Role
    pod: int | None
    segment: int | None
    index: int  # 1-based: super-spines fabric-wide, spines per pod, rail switches per segment
    model: str
    platform: str
    slot: int  # device slot of the address plan (loopback, management, ASN)
    tier_slot: int  # slot inside its tier (uplink /31s)
    src: tuple  # inventory path of the object that declares it
    rails: tuple[int, ...] = ()
    side: int | None = None  # 0 / 1 for dual-homed rail switches
    group: int | None = None  # rail group (0-based) inside the segment
    plane: int | None = None
    rack: str | None = None
    management: int | None = None  # pinned management address (int), if any
    disabled_ports: frozenset[int] = frozenset()
    overridden: bool = False
    asn: int | None = None  # pinned ASN (devices.<key>.asn), if any
    loopback: int | None = None  # pinned loopback address (int), if any
    router_id: int | None = None  # pinned BGP router-id (int), if any


@dataclass(slots=True)
class Host:
    name: str
    pod: int
    segment: int
    number: int  # host number inside the segment (1-based): decides ports and addresses
    model: str
    gpus: int
    nics: int
    src: tuple


class End(NamedTuple):
    """One end of a link (a tuple: immutable and cheap, there are hundreds of thousands)."""

    device: str
    port: int  # physical port (switches) or NIC port (hosts: 1-based)
    lane: int  # breakout lane 1..n, 0 when the port is not broken out
    speed: int  # Gbit/s

    def label(self) -> str:
        return f"{self.port}/{self.lane}" if self.lane else str(self.port)


@dataclass(slots=True)
class Link:
    id: str
    role: LinkRole
    a: End  # lower end: host, rail switch or spine
    z: End  # upper end: rail switch, spine or super-spine
    rail: int | None = None
    nic: int | None = None  # NIC index = local rank of the rail
    host_number: int | None = None
    bundle: str | None = None  # L3 port-channel id, members share one /31
    net_slot: int | None = None  # /31 slot of the fabric-links pool (routed links and bundles)
    channel: int | None = None  # MLAG host bond: port-channel number and MLAG id, the same on both switches


@dataclass(slots=True)
class SegmentInfo:
    pod: int
    id: int
    src: tuple
    design: RailDesign
    rails: int
    groups: tuple[tuple[int, ...], ...]  # rails served by each rail group
    sides: int  # 1, or 2 when dual-homed
    dual_homing: DualHoming | None
    prefix_len: int
    vlan_base: int
    switches: tuple[str, ...]  # rail switch names by index
    host_numbers: tuple[int, ...]
    rails_per_switch: int


@dataclass
class Topology:
    switches: dict[str, Switch] = field(default_factory=dict)
    hosts: dict[str, Host] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    # MLAG peer links (side a → side b of each rail group of a `dual_homing: mlag` segment), kept apart from
    # `links` because they carry no planned traffic: the solver's capacity and paths never see them
    peer_links: list[Link] = field(default_factory=list)
    segments: list[SegmentInfo] = field(default_factory=list)
    name_clashes: list[tuple[str, tuple, tuple]] = field(default_factory=list)
    # (inventory path of the object, message, path of the stride setting) for port strides that are too small
    stride_overflows: list[tuple[tuple, str, tuple]] = field(default_factory=list)
    # explicit cables that name a host NIC port or switch that does not exist: (inventory path, message)
    bad_cables: list[tuple[tuple, str]] = field(default_factory=list)
    pinned: set[str] = field(default_factory=set)  # ids of host links placed by `cabling:`
    # links taken off because their generated port is disabled: (link, position it had in `links`, disabled end)
    off: list[tuple[Link, int, End]] = field(default_factory=list)

    def add(self, link: Link, disabled_end: End | None) -> None:
        """Place `link`, or take it off when one of its generated ports is disabled (nothing else moves)."""
        if disabled_end is None:
            self.links.append(link)
        else:
            self.off.append((link, len(self.links), disabled_end))

    def by_role(self, role: Role) -> Iterator[Switch]:
        return (s for s in self.switches.values() if s.role is role)
