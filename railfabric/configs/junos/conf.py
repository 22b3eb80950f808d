"""junos.conf of one switch: the Junos view of its DeviceConfig, decided here, formatted by templates/junos/.

Every Junos-specific decision is made once in this module (interface stanzas of a channelized port, media vs IP
MTU, the ae device count, the BGP export chain, the class-of-service objects, the system stanza), so the templates
only print records. `render_junos` is the platform's OutputFile builder (railfabric/platforms/junos.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from railfabric.configs.jinja import environment
from railfabric.configs.junos.cos import Cos, build_cos
from railfabric.configs.junos.system import JSystem, build_jsystem, quoted
from railfabric.core.order import natural_key
from railfabric.platforms.junos import MEDIA_OVERHEAD

if TYPE_CHECKING:  # railfabric.device imports the platform registry, which imports this module
    from railfabric.device import DeviceConfig, Interface
    from railfabric.device.routing import PeerGroup

EXPORT_POLICY = "RF-EXPORT"  # what BGP advertises: aggregates, loopback and rail subnets, suppressed specifics
ECMP_POLICY = "RF-ECMP"  # forwarding-table export: install every equal-cost path
# unnumbered groups (platforms/junos.py, "BGP unnumbered"): `dynamic-neighbor <group>-LINKS` and, when the peers are
# in several ASes, `peer-as-list <group>-ASNS` naming `policy-options as-list <group>-ASNS`
DYNAMIC_SUFFIX = "-LINKS"
AS_LIST_SUFFIX = "-ASNS"
# routing-options maximum-ecmp takes one of these (Juniper "maximum-ecmp (routing-options)", Junos 21.1R1+)
MAXIMUM_ECMP_VALUES = (16, 32, 64, *range(96, 513, 32))
# BGP session keys (Juniper, BGP group `authentication-key` for TCP MD5; TCP-AO through a key chain of
# `security authentication-key-chains` with `algorithm ao` and `ao-attribute {send-id; recv-id}`, the group saying
# `authentication-algorithm ao; authentication-key-chain <chain>`; Junos OS Evolved 22.4+ per Juniper's TCP-AO
# guide, NOT verified on a switch): key 0 sends and receives with the tier's KeyID (routing.authentication.<tier>.
# key_id, 0 by default: the EOS peer's secret id), active since a fixed past start-time so the file stays
# byte-identical. A rollover (routing.authentication.<tier>.next) adds key 1 with the next key's KeyID as send-id and
# recv-id and its send_from as start-time: Juniper, "authentication-key-chains" (Junos OS 7.6+: key 0-63, start-time
# yyyy-mm-dd.hh:mm:ss in UTC, unique within the chain; "if a new key is present with a new start time, the keychain
# rolls over to the new one") and "Configure a Keychain (TCP-AO)" (Junos OS 20.3R1+: a chain of two keys, key 0 and
# key 1, send-id/recv-id 0-255, not used by another key of the chain). NOT verified: whether Junos accepts segments
# signed with key 1 before its start-time (RFC 5925 lets a receiver hold every MKT; the rollover relies on the
# switches' clocks agreeing, NTP).
KEY_START = "2020-1-1.00:00:00 +0000"


@dataclass(frozen=True, slots=True)
class JPort:
    """One `interfaces` stanza of a physical port or a channel."""

    name: str
    description: str  # already quoted
    disabled: bool
    speed: str  # "800g"; "" on a channel (its parent carries the speed)
    sub_ports: int  # number-of-sub-ports on the parent of a channelized port, else 0
    media_mtu: int | None  # None on members and parents
    inet_mtu: int | None
    mode: str  # routed | access | member | unused | parent
    ipv4: str | None = None
    vlan: str = ""  # VLAN name of an access port
    ae: str = ""  # bundle of a member
    unnumbered: bool = False  # routed without an address: `family inet` (no address) and `family inet6` (link-local)


@dataclass(frozen=True, slots=True)
class JAe:
    name: str
    description: str
    media_mtu: int
    inet_mtu: int
    ipv4: str  # a.b.c.d/len of the routed bundle; "" when unnumbered
    min_links: int
    unnumbered: bool = False  # `family inet` without an address and `family inet6` (its link-local address)


@dataclass(frozen=True, slots=True)
class JVlan:
    name: str
    id: int
    description: str
    address: str  # a.b.c.d/len on irb.<id>: the rail gateway
    inet_mtu: int
    address_v6: str = ""  # dual-stack: the rail gateway's IPv6 address (<prefix>::1/64) under family inet6


@dataclass(frozen=True, slots=True)
class JNeighbor:
    ip: str
    peer_as: int
    description: str


@dataclass(frozen=True, slots=True)
class JGroup:
    name: str
    description: str
    peer_as: int | None  # the group's `peer-as`: shared by every neighbour of an external group, else None
    bfd: bool
    neighbors: tuple[JNeighbor, ...]
    neighbor_peer_as: bool = False  # `peer-as` per neighbour: external, neighbours in several ASes
    multiple_as: bool = False  # `multipath multiple-as`: external groups when the fabric load-balances across ASes
    # BFD timers of the group's tier (railfabric/device/sessions.py): minimum-interval (ms) and multiplier
    bfd_interval: int = 0
    bfd_multiplier: int = 0
    authentication_key: str = ""  # quoted vault placeholder of the tier's TCP MD5 key; "" = none
    key_chain: str = ""  # the tier's TCP-AO key chain; "" = none
    # unnumbered (routing.addressing: unnumbered): the group's `dynamic-neighbor` name ("" = address neighbours),
    # the logical units its peers are discovered on (natural order), and the as-list of its peers' ASNs ("" when
    # one ASN: `peer-as`)
    dynamic_neighbor: str = ""
    discover_on: tuple[str, ...] = ()
    as_list: str = ""
    # the session key of a dynamic neighbour, written under it (interface-scoped authentication), not in the group
    dynamic_authentication_key: str = ""
    dynamic_key_chain: str = ""


@dataclass(frozen=True, slots=True)
class JAsList:
    """`policy-options as-list NAME members ...`: the ASNs an unnumbered group accepts (as_list_members)."""

    name: str
    members: str  # as written after `members`: one entry, or several as a `[ a b ]` list


@dataclass(frozen=True, slots=True)
class JKey:
    """One key of a TCP-AO key chain: its index in the chain, secret, start-time and TCP-AO KeyID."""

    index: int  # 0 = the current key, 1 = the next key of a rollover
    secret: str  # quoted vault placeholder
    start_time: str  # quoted
    key_id: int  # send-id = recv-id


@dataclass(frozen=True, slots=True)
class JKeyChain:
    """One TCP-AO key chain (security authentication-key-chains): the current key, and the next one during a
    rollover."""

    name: str
    keys: tuple[JKey, ...]


@dataclass(frozen=True, slots=True)
class JunosView:
    hostname: str
    notes: tuple[str, ...]
    system: JSystem
    ae_count: int
    maximum_ecmp: int
    ports: tuple[JPort, ...]
    aes: tuple[JAe, ...]
    vlans: tuple[JVlan, ...]
    loopback: str
    management: str
    management_gateway: str
    router_id: str
    asn: int
    aggregates: tuple[str, ...]
    groups: tuple[JGroup, ...]
    key_chains: tuple[JKeyChain, ...]
    as_lists: tuple[JAsList, ...]
    router_advertisement: tuple[str, ...]  # the logical units of unnumbered sessions (IPv6 ND finds the peer)
    export_policy: str
    ecmp_policy: str
    prefix_list: str
    prefix_list_entries: tuple[str, ...]
    cos: Cos
    load_balance: JLoadBalance
    # dual-stack (over unnumbered sessions only on Junos): lo0's IPv6 /128, the IPv6 redistribution prefix-list, the
    # IPv6 summaries (routing-options rib inet6.0 aggregate)
    loopback_v6: str = ""
    prefix_list6: str = ""
    prefix_list6_entries: tuple[str, ...] = ()
    aggregates6: tuple[str, ...] = ()

    @property
    def summaries(self) -> tuple[str, ...]:
        """Both families' summaries, in the order the export policy's summary terms are numbered (the IPv4 ones
        first: an IPv4-only file is unchanged)."""
        return (*self.aggregates, *self.aggregates6)


# routing.ecmp.hash: the QFX5000 enhanced-hash-key hashes the five-tuple by default and takes exclusions of it, per
# family (Juniper CLI reference "inet (enhanced-hash-key)" / "inet6 (enhanced-hash-key)", Options and Default)
HASH_EXCLUDE_INET = {"src_ip": "no-ipv4-source-address", "dst_ip": "no-ipv4-destination-address",
                     "ip_protocol": "no-protocol", "l4_src_port": "no-l4-source-port",
                     "l4_dst_port": "no-l4-destination-port"}
HASH_EXCLUDE_INET6 = {"src_ip": "no-ipv6-source-address", "dst_ip": "no-ipv6-destination-address",
                      "ip_protocol": "no-next-header", "l4_src_port": "no-l4-source-port",
                      "l4_dst_port": "no-l4-destination-port"}
# routing.ecmp.mode → `enhanced-hash-key ecmp-dlb` mode (Juniper "Dynamic Load Balancing (DLB)": per-packet,
# flowlet with an inactivity interval, assigned-flow); flow hashing writes no ecmp-dlb
DLB_MODE = {"flowlet": "flowlet", "packet": "per-packet"}


@dataclass(frozen=True, slots=True)
class JLoadBalance:
    dlb: str  # "" (static hashing) | flowlet | per-packet
    inactivity_us: int | None  # flowlet's inactivity-interval; None = the switch's default
    exclude_inet: tuple[str, ...]  # family inet exclusions of the five-tuple
    exclude_inet6: tuple[str, ...]

    @property
    def any(self) -> bool:
        return bool(self.dlb or self.exclude_inet)


def build_load_balance(dev: DeviceConfig) -> JLoadBalance:
    lb = dev.load_balancing
    gone = lb.excluded()
    return JLoadBalance(DLB_MODE.get(lb.mode, ""), lb.flowlet_inactivity_us,
                        tuple(HASH_EXCLUDE_INET[f] for f in gone), tuple(HASH_EXCLUDE_INET6[f] for f in gone))


def _ports(dev: DeviceConfig) -> list[JPort]:
    names = {v.id: v.name for v in dev.vlans}  # one lookup per access port instead of a scan of the VLANs
    out: list[JPort] = []
    parents_done: set[int] = set()
    for i in dev.interfaces:
        if i.lane and i.port not in parents_done:
            parents_done.add(i.port)
            lanes = int(i.breakout.split("x", 1)[0])
            out.append(JPort(f"et-0/0/{i.port - 1}", quoted(f"breakout {i.breakout}"), False, i.speed_setting,
                             lanes, None, None, "parent"))
        out.append(_port(i, names))
    return out


def _port(i: Interface, vlan_names: dict[int, str]) -> JPort:
    speed = "" if i.lane else i.speed_setting
    desc = quoted(i.description)
    if i.mode == "member":
        return JPort(i.name, desc, not i.admin_up, speed, 0, None, None, "member", ae=i.channel or "")
    if i.mode == "routed":
        return JPort(i.name, desc, not i.admin_up, speed, 0, i.mtu + MEDIA_OVERHEAD, i.mtu, "routed", ipv4=i.ipv4,
                     unnumbered=i.unnumbered)
    if i.mode == "access":
        return JPort(i.name, desc, not i.admin_up, speed, 0, i.mtu + MEDIA_OVERHEAD, None, "access",
                     vlan=vlan_names[i.vlan])  # type: ignore[index]
    return JPort(i.name, desc, True, speed, 0, None, None, "unused")


def _groups(dev: DeviceConfig) -> tuple[JGroup, ...]:
    return tuple(_group(dev, g) for g in dev.bgp.peer_groups)


def _group(dev: DeviceConfig, g: PeerGroup) -> JGroup:
    t, k = g.bfd_timers, g.key
    group = JGroup(g.name, quoted(g.description), g.remote_as, g.bfd,
                   tuple(JNeighbor(n.ip, n.remote_as, quoted(n.description)) for n in g.neighbors),
                   neighbor_peer_as=g.remote_as is None, multiple_as=dev.bgp.multipath_relax,
                   bfd_interval=t.interval_ms if t is not None else 0,
                   bfd_multiplier=t.multiplier if t is not None else 0,
                   authentication_key=quoted(k.placeholder) if k is not None and k.algorithm == "md5" else "",
                   key_chain=k.name if k is not None and k.algorithm == "tcp-ao" else "")
    if not g.unnumbered:
        return group
    # a dynamic neighbour: no neighbour statement, so no per-neighbour peer-as or description
    # the peers' ASNs are the group's peer-as (one ASN) or its as-list; the key moves under the dynamic neighbour
    return replace(group, neighbors=(), neighbor_peer_as=False, dynamic_neighbor=g.name + DYNAMIC_SUFFIX,
                   discover_on=tuple(sorted((unit(n.interface) for n in g.neighbors), key=natural_key)),
                   as_list=g.name + AS_LIST_SUFFIX if g.remote_as is None else "", authentication_key="",
                   key_chain="", dynamic_authentication_key=group.authentication_key,
                   dynamic_key_chain=group.key_chain)


def unit(interface: str) -> str:
    """The logical unit a session runs on: every routed port and ae bundle carries its addresses on unit 0."""
    return f"{interface}.0"


def as_list_members(asns: Iterable[int]) -> tuple[str, ...]:
    """The ASNs sorted, each run of consecutive numbers written `first-last` (a run of one: the number), as
    `as-list NAME members 64521-64530` writes a range: {4200100001, 4200100000, 4200100005} →
    ("4200100000-4200100001", "4200100005")."""
    out: list[str] = []
    ordered = sorted(set(asns))
    start = 0
    for i, asn in enumerate(ordered):
        if i + 1 == len(ordered) or ordered[i + 1] != asn + 1:
            first = ordered[start]
            out.append(str(asn) if first == asn else f"{first}-{asn}")
            start = i + 1
    return tuple(out)


def _as_lists(dev: DeviceConfig) -> tuple[JAsList, ...]:
    out = []
    for g in dev.bgp.peer_groups:
        if g.unnumbered and g.remote_as is None:
            entries = as_list_members(n.remote_as for n in g.neighbors)
            written = entries[0] if len(entries) == 1 else f"[ {' '.join(entries)} ]"
            out.append(JAsList(g.name + AS_LIST_SUFFIX, written))
    return tuple(out)


def _router_advertisement(dev: DeviceConfig) -> tuple[str, ...]:
    return tuple(sorted((unit(n.interface) for g in dev.bgp.peer_groups for n in g.neighbors if n.interface),
                        key=natural_key))


def _key_chains(dev: DeviceConfig) -> tuple[JKeyChain, ...]:
    out = []
    for k in dev.bgp.ao_keys:
        keys = [JKey(0, quoted(k.placeholder), quoted(KEY_START), k.key_id)]
        if k.next is not None:
            keys.append(JKey(1, quoted(k.next.placeholder), quoted(start_time(k.next.send_from_utc)), k.next.key_id))
        out.append(JKeyChain(k.name, tuple(keys)))
    return tuple(out)


def start_time(at: datetime) -> str:
    """A key's start-time as KEY_START writes it (UTC; month and day without a leading zero, as Junos shows
    them): 2026-12-01T06:00:00Z → "2026-12-1.06:00:00 +0000"."""
    at = at.astimezone(UTC)
    return f"{at.year}-{at.month}-{at.day}.{at:%H:%M:%S} +0000"


def maximum_ecmp(width: int) -> int:
    """The smallest value routing-options maximum-ecmp accepts that holds `width` paths (512 at most)."""
    return next((v for v in MAXIMUM_ECMP_VALUES if v >= width), MAXIMUM_ECMP_VALUES[-1])


def _aes(dev: DeviceConfig) -> tuple[JAe, ...]:
    """The routed fabric bundles (Junos here has no host bonds: MC-LAG is refused, railfabric/platforms/junos.py)."""
    return tuple(JAe(pc.name, quoted(pc.description), pc.mtu + MEDIA_OVERHEAD, pc.mtu, pc.ipv4 or "", pc.min_links,
                     pc.unnumbered) for pc in dev.port_channels)


def _vlans(dev: DeviceConfig) -> tuple[JVlan, ...]:
    """The rail VLANs with their gateway on irb.<id> (dual-stack: its IPv6 address too)."""
    return tuple(JVlan(v.name, v.id, quoted(f"{v.name} {v.prefix}"), v.gateway, v.mtu, v.gateway_v6)
                 for v in dev.vlans)


def build_view(dev: DeviceConfig) -> JunosView:
    return JunosView(
        hostname=dev.hostname,
        notes=tuple(n for n in (dev.mtu_note,) if n),
        system=build_jsystem(dev.system, dev.hostname),
        ae_count=max((pc.number for pc in dev.port_channels), default=-1) + 1,
        maximum_ecmp=maximum_ecmp(dev.bgp.maximum_paths),
        ports=tuple(_ports(dev)),
        aes=_aes(dev),
        vlans=_vlans(dev),
        loopback=dev.loopback,
        management=dev.management,
        management_gateway=dev.management_gateway,
        router_id=dev.router_id,
        asn=dev.asn,
        aggregates=dev.bgp.aggregates,
        groups=_groups(dev),
        key_chains=_key_chains(dev),
        as_lists=_as_lists(dev),
        router_advertisement=_router_advertisement(dev),
        export_policy=EXPORT_POLICY,
        ecmp_policy=ECMP_POLICY,
        prefix_list=dev.bgp.prefix_list,
        prefix_list_entries=dev.bgp.prefix_list_entries,
        cos=build_cos(dev),
        load_balance=build_load_balance(dev),
        loopback_v6=dev.loopback_v6,
        prefix_list6=dev.bgp.ipv6.prefix_list if dev.bgp.ipv6 else "",
        prefix_list6_entries=dev.bgp.ipv6.prefix_list_entries if dev.bgp.ipv6 else (),
        aggregates6=dev.bgp.ipv6.aggregates if dev.bgp.ipv6 else (),
    )


def render_junos(dev: DeviceConfig) -> str:
    """The text of configs/<hostname>/junos.conf."""
    return environment().get_template("junos/junos.conf.j2").render(j=build_view(dev), raw=dev.raw)
