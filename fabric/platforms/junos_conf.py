"""junos.conf of one switch: the Junos view of its DeviceConfig, decided here, formatted by templates/junos/.

Every Junos-specific decision is made once in this module (interface stanzas of a channelized port, media vs IP
MTU, the ae device count, the BGP export chain, the class-of-service objects, the system stanza), so the templates
only print records. `render_junos` is the platform's OutputFile builder (fabric/platforms/junos.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fabric.platforms.junos import MEDIA_OVERHEAD
from fabric.platforms.junos_cos import Cos, build_cos
from fabric.platforms.junos_mclag import PEER_VLAN_NAME, JMcae, JMclag, JVrrp, mcae, mclag, vrrp
from fabric.platforms.junos_system import JSystem, build_jsystem, quoted

if TYPE_CHECKING:  # fabric.device imports the platform registry, which imports this module
    from fabric.device import DeviceConfig, Interface
    from fabric.device.routing import PeerGroup

EXPORT_POLICY = "RF-EXPORT"  # what BGP advertises: aggregates, loopback and rail subnets, suppressed specifics
ECMP_POLICY = "RF-ECMP"  # forwarding-table export: install every equal-cost path
NEXT_HOP_POLICY = "RF-NEXT-HOP-SELF"  # iBGP to the MC-LAG peer: `then next-hop self`, evaluation goes on
# routing-options maximum-ecmp takes one of these (Juniper "maximum-ecmp (routing-options)", Junos 21.1R1+)
MAXIMUM_ECMP_VALUES = (16, 32, 64, *range(96, 513, 32))
BFD_INTERVAL_MS = 1000  # Juniper AI JVD leaf config: bfd-liveness-detection minimum-interval 1000 multiplier 3
BFD_MULTIPLIER = 3


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


@dataclass(frozen=True, slots=True)
class JAe:
    name: str
    description: str
    media_mtu: int
    inet_mtu: int
    ipv4: str  # a.b.c.d/len of a routed bundle, "" on MC-LAG bonds and the ICL
    min_links: int
    mode: str = "routed"  # routed | access (MC-LAG host bond) | trunk (the ICL)
    vlans: tuple[str, ...] = ()  # VLAN names: the access VLAN, or the ICL's trunk VLANs
    mcae: JMcae | None = None
    vlan_members: str = ""  # `vlan members` value: the one name, or "[ a b ]" for several (vlan_members())


def vlan_members(names: tuple[str, ...]) -> str:
    """A `vlan members` value: a single VLAN as it is, several as a Junos list."""
    return names[0] if len(names) == 1 else f"[ {' '.join(names)} ]"


@dataclass(frozen=True, slots=True)
class JVlan:
    name: str
    id: int
    description: str
    address: str  # a.b.c.d/len on irb.<id>: the gateway, or on an MC-LAG switch its own address
    inet_mtu: int
    vrrp: JVrrp | None = None  # MC-LAG: the shared gateway as a VRRP virtual address


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
    internal: bool = False  # iBGP (the MC-LAG peer, same AS): `type internal`, no peer-as, no multiple-as
    next_hop_self: bool = False  # the NEXT_HOP_POLICY ahead of the export policy
    neighbor_peer_as: bool = False  # `peer-as` per neighbour: external, neighbours in several ASes
    multiple_as: bool = False  # `multipath multiple-as`: external groups when the fabric load-balances across ASes


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
    bfd_interval: int
    bfd_multiplier: int
    export_policy: str
    ecmp_policy: str
    next_hop_policy: str
    prefix_list: str
    prefix_list_entries: tuple[str, ...]
    cos: Cos
    mclag: JMclag | None = None


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
        return JPort(i.name, desc, not i.admin_up, speed, 0, i.mtu + MEDIA_OVERHEAD, i.mtu, "routed", ipv4=i.ipv4)
    if i.mode == "access":
        return JPort(i.name, desc, not i.admin_up, speed, 0, i.mtu + MEDIA_OVERHEAD, None, "access",
                     vlan=vlan_names[i.vlan])  # type: ignore[index]
    return JPort(i.name, desc, True, speed, 0, None, None, "unused")


def _groups(dev: DeviceConfig) -> tuple[JGroup, ...]:
    return tuple(_group(dev, g) for g in dev.bgp.peer_groups)


def _group(dev: DeviceConfig, g: PeerGroup) -> JGroup:
    internal = bool(g.neighbors) and all(n.remote_as == dev.asn for n in g.neighbors)
    return JGroup(g.name, quoted(g.description), None if internal else g.remote_as, g.bfd,
                  tuple(JNeighbor(n.ip, n.remote_as, quoted(n.description)) for n in g.neighbors),
                  internal=internal, next_hop_self=g.next_hop_self,
                  neighbor_peer_as=not internal and g.remote_as is None,
                  multiple_as=dev.bgp.multipath_relax and not internal)


def maximum_ecmp(width: int) -> int:
    """The smallest value routing-options maximum-ecmp accepts that holds `width` paths (512 at most)."""
    return next((v for v in MAXIMUM_ECMP_VALUES if v >= width), MAXIMUM_ECMP_VALUES[-1])


def _vlan_names(dev: DeviceConfig) -> dict[int, str]:
    names = {v.id: v.name for v in dev.vlans}
    if dev.mlag is not None:
        names[dev.mlag.vlan] = PEER_VLAN_NAME
    return names


def _aes(dev: DeviceConfig) -> tuple[JAe, ...]:
    """Routed fabric bundles; on an MC-LAG switch also the host bonds (mc-ae, access) and the ICL (trunk)."""
    names = _vlan_names(dev)
    out = []
    for pc in dev.port_channels:
        vids = pc.trunk_vlans if pc.mode == "trunk" else (pc.vlan,) if pc.vlan is not None else ()
        vlans = tuple(names[v] for v in vids)
        out.append(JAe(pc.name, quoted(pc.description), pc.mtu + MEDIA_OVERHEAD, pc.mtu, pc.ipv4 or "",
                       pc.min_links, pc.mode, vlans, mcae(dev, pc), vlan_members(vlans) if vlans else ""))
    return tuple(out)


def _vlans(dev: DeviceConfig) -> tuple[JVlan, ...]:
    """The rail VLANs (on an MC-LAG switch: its own IRB address + the shared gateway by VRRP), then the MC-LAG
    peer VLAN with the pair's /31 (ICCP and the iBGP session run over it)."""
    out = []
    for n, v in enumerate(dev.vlans, 1):
        shared = vrrp(dev, n, v.gateway) if v.own else None
        out.append(JVlan(v.name, v.id, quoted(f"{v.name} {v.prefix}"), v.own or v.gateway, v.mtu, shared))
    m = dev.mlag
    if m is not None:
        out.append(JVlan(PEER_VLAN_NAME, m.vlan, quoted(f"MC-LAG peer {m.peer}"),
                         f"{m.local_ip}/{m.prefix_len}", dev.mtu))
    return tuple(out)


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
        bfd_interval=BFD_INTERVAL_MS,
        bfd_multiplier=BFD_MULTIPLIER,
        export_policy=EXPORT_POLICY,
        ecmp_policy=ECMP_POLICY,
        next_hop_policy=NEXT_HOP_POLICY,
        prefix_list=dev.bgp.prefix_list,
        prefix_list_entries=dev.bgp.prefix_list_entries,
        cos=build_cos(dev),
        mclag=mclag(dev),
    )


def render_junos(dev: DeviceConfig) -> str:
    """The text of configs/<hostname>/junos.conf."""
    from fabric.render import environment  # here: fabric.render imports the platform registry

    return environment().get_template("junos/junos.conf.j2").render(j=build_view(dev))
