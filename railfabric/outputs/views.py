"""Narrow projections of the topology, the plan and the device models that the whole-fabric artifacts read, built
once per render and digested once (railfabric/outputs/parts.py hands each builder exactly these values, so a part's
digest covers everything its builder reads). The largest (ports, routed, sessions, links) are digested while they
are built (railfabric.outputs.digest.ItemsDigest, item by item while each is in the processor's cache): at 131,072 GPUs
a second pass over a million Ports costs more than building them.

Each projection leaves out what its readers do not show, so that a change there rebuilds nothing: none of them
holds a management address (that rebuilds only the Ansible inventory, the IP plan, the ANTA inventory and the
changed switch's own files).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Final, Generic, TypeVar, get_type_hints

from railfabric.device import DeviceConfig
from railfabric.device.vlans import Vlan
from railfabric.outputs.digest import ItemsDigest
from railfabric.plan.allocate import Plan
from railfabric.topology import End, Link, Switch, Topology

from .rollout import switch_peers

__all__ = [
    "LINK_FIELDS",
    "Addresses",
    "Digested",
    "Port",
    "PortViews",
    "RailSubnet",
    "Routed",
    "Sessions",
    "addresses_view",
    "docs_topology_values",
    "interface_names",
    "link_values",
    "links_digest",
    "ports_and_routed",
    "ports_of",
    "ports_pass",
    "ports_view",
    "rail_subnets_view",
    "routed_of",
    "session_of",
    "sessions_digested",
    "sessions_view",
    "topology_links",
]

V = TypeVar("V")

# every field of a Link, in order: a link is digested whole (a builder handed Link objects reads nothing undigested)
LINK_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Link))


def _flat_link_fields() -> tuple[str, ...]:
    """LINK_FIELDS with each End-typed field spelled out as its own fields in place (`a.device`, `a.port`, ...)."""
    hints = get_type_hints(Link)
    return tuple(n for f in LINK_FIELDS for n in ((f"{f}.{e}" for e in End._fields) if hints[f] is End else (f,)))


FLAT_LINK_FIELDS: tuple[str, ...] = _flat_link_fields()  # what link_values holds of a link, in order


def link_values(links: Iterable[Link]) -> list[tuple[object, ...]]:
    """Every field of every link as one flat tuple (FLAT_LINK_FIELDS: the ends' four fields each in place; orjson
    does not take the End NamedTuples; the role stays an enum, which orjson dumps as its value): what a link digest
    covers. A plain loop: Python 3.11's specialised attribute and index reads beat an attrgetter of dotted names."""
    out: list[tuple[object, ...]] = []
    for lk in links:
        a, z = lk.a, lk.z
        out.append((lk.id, lk.role, a[0], a[1], a[2], a[3], z[0], z[1], z[2], z[3], lk.rail, lk.nic, lk.host_number,
                    lk.bundle, lk.net_slot, lk.channel))
    return out


LINK_CHUNK = 2048  # links per ItemsDigest item: each chunk's values are dumped while they are in the cache


def links_digest(links: Sequence[Link]) -> str:
    """The digest of every field of every link, in order: ItemsDigest of (index of a chunk's first link, the chunk's
    link_values), LINK_CHUNK links a chunk (one list of 400,000 tuples dumped at once is twice as slow)."""
    digest = ItemsDigest("links")
    for start in range(0, len(links), LINK_CHUNK):
        digest.add(start, link_values(links[start:start + LINK_CHUNK]))
    return digest.hexdigest()


# What the cabling plan, the rail map and the expected BGP/LLDP files read of one switch interface, as a plain tuple
# (port, lane, name, ipv4, peer, peer_interface, role): there are hundreds of thousands, built and digested every
# render (a tuple is the cheapest to build, and orjson digests it natively; NamedTuples it refuses).
Port = tuple[int, int, str, str | None, str, str, str]
PORT: Final = 0  # the fields' positions (Final: mypy then knows each one's type)
LANE: Final = 1
NAME: Final = 2
IPV4: Final = 3
PEER: Final = 4
PEER_INTERFACE: Final = 5
ROLE: Final = 6
Routed = tuple[tuple[str, str], ...]  # a switch's routed interfaces: (name, a.b.c.d/len) each, in order


def ports_of(device: DeviceConfig) -> tuple[Port, ...]:
    """A switch's interfaces as Ports, in the model's order (a list comprehension: no generator step per port)."""
    return tuple([(i.port, i.lane, i.name, i.ipv4, i.peer, i.peer_interface, i.role) for i in device.interfaces])


def routed_of(ports: tuple[Port, ...]) -> Routed:
    """(interface, a.b.c.d/len) of each routed interface of a switch (a Port with an address), in order."""
    return tuple([(p[NAME], p[IPV4]) for p in ports if p[IPV4]])


def ports_view(devices: Mapping[str, DeviceConfig]) -> dict[str, tuple[Port, ...]]:
    """Switch → its interfaces as Ports, in the model's order."""
    return {h: ports_of(d) for h, d in devices.items()}


@dataclass(frozen=True, slots=True)
class Digested(Generic[V]):
    """A view and its digest (railfabric.outputs.digest.ItemsDigest of its items, in order), made in one pass."""

    view: V
    digest: str


@dataclass(frozen=True, slots=True)
class PortViews:
    """What one pass over the switches' interfaces gives (ports_pass)."""

    ports: Digested[dict[str, tuple[Port, ...]]]
    routed: Digested[dict[str, Routed]]  # state_index.routed_view of the ports
    peers: dict[str, tuple[str, ...]]  # rollout.switch_peers of each switch's ports


def ports_pass(devices: Mapping[str, DeviceConfig]) -> PortViews:
    """The ports view, the routed view with their digests and each switch's switch peers, in one pass over the
    switches: each switch's Ports are digested, their routed ones and peers picked while still in the processor's
    cache (at 131,072 GPUs a million Ports: a second pass over them costs more than building them)."""
    ports: dict[str, tuple[Port, ...]] = {}
    routed: dict[str, Routed] = {}
    peers: dict[str, tuple[str, ...]] = {}
    hp, hr = ItemsDigest("ports"), ItemsDigest("routed")
    for h, d in devices.items():
        ps = ports[h] = ports_of(d)
        rt = routed[h] = routed_of(ps)
        hp.add(h, ps)
        hr.add(h, rt)
        peers[h] = switch_peers(ps, devices)
    return PortViews(Digested(ports, hp.hexdigest()), Digested(routed, hr.hexdigest()), peers)


def ports_and_routed(devices: Mapping[str, DeviceConfig]) -> tuple[Digested[dict[str, tuple[Port, ...]]],
                                                                   Digested[dict[str, Routed]]]:
    """The ports view and the routed view with their digests (ports_pass)."""
    views = ports_pass(devices)
    return views.ports, views.routed


def interface_names(ports: Mapping[str, tuple[Port, ...]]) -> dict[str, dict[tuple[int, int], str]]:
    """switch → (physical port, lane) → platform interface name (a small dict per switch: built and read faster
    than one dict of a million (switch, port, lane) keys)."""
    return {sw: {(p[PORT], p[LANE]): p[NAME] for p in ps} for sw, ps in ports.items()}


@dataclass(frozen=True, slots=True)
class RailSubnet:
    """What the rail map reads of a rail subnet (railfabric.plan.allocate's RailSubnet, its addresses as integers)."""

    vlan: int
    net: int
    length: int
    gateway: int


def rail_subnets_view(plan: Plan) -> dict[tuple[str, int], RailSubnet]:
    return {k: RailSubnet(s.vlan, s.prefix.net, s.prefix.length, s.gateway) for k, s in plan.rail_subnets.items()}


def topology_links(topo: Topology) -> tuple[Link, ...]:
    """Every link of the topology, MLAG peer links last."""
    return (*topo.links, *topo.peer_links)


def topology_values(topo: Topology) -> list[object]:
    """Every field of the topology but its links (digested apart, `link_values`), in a form orjson digests."""
    return [topo.switches, *_rest_values(topo)]


def _rest_values(topo: Topology) -> list[object]:
    return [topo.hosts, topo.segments, topo.name_clashes, topo.stride_overflows, topo.bad_cables, sorted(topo.pinned),
            [(link_values([lk])[0], at, tuple(end)) for lk, at, end in topo.off]]


# what the docs read of a switch: every field but its pinned management address and its override mark
DOCS_SWITCH_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Switch)
                                            if f.name not in ("management", "overridden"))
_DOCS_SWITCH = attrgetter(*DOCS_SWITCH_FIELDS)


def docs_topology_values(topo: Topology) -> list[object]:
    """topology_values of the topology the docs are built from (Sources.docs_topology: each switch without its
    management address and override mark), without copying the switches: each as its other fields, in order."""
    return [{n: _DOCS_SWITCH(sw) for n, sw in topo.switches.items()}, *_rest_values(topo)]


# a switch's BGP as these files read it: (its ASN, per peer group (name, bfd, its neighbours' (ip, local_ip,
# remote_as))), plain tuples: cheap to build and to digest. An unnumbered session (routing.addressing: unnumbered)
# has no addresses: its ends are named device%interface instead (unnumbered_end; the peer's, then this switch's)
Sessions = tuple[int, tuple[tuple[str, bool, tuple[tuple[str, str, int], ...]], ...]]
UNNUMBERED_MARK = "%"  # in an end's name: device%interface (an address never holds it)


def unnumbered_end(device: str, interface: str) -> str:
    return f"{device}{UNNUMBERED_MARK}{interface}"


def session_of(device: DeviceConfig) -> Sessions:
    """A switch's BGP as Sessions (list comprehensions: no generator step per peer group or neighbour)."""
    bgp = device.bgp
    return bgp.asn, tuple([(g.name, g.bfd, tuple([
        (n.ip, n.local_ip, n.remote_as) if n.ip  # numbered; unnumbered (no address): its ends by their interfaces
        else (unnumbered_end(n.peer, n.peer_interface), unnumbered_end(device.hostname, n.interface), n.remote_as)
        for n in g.neighbors])) for g in bgp.peer_groups])


def sessions_view(devices: Mapping[str, DeviceConfig]) -> dict[str, Sessions]:
    return {h: session_of(d) for h, d in devices.items()}


def sessions_digested(devices: Mapping[str, DeviceConfig]) -> Digested[dict[str, Sessions]]:
    """sessions_view and its digest, in one pass (each switch's Sessions digested while in the cache)."""
    out: dict[str, Sessions] = {}
    digest = ItemsDigest("sessions")
    for h, d in devices.items():
        digest.add(h, out.setdefault(h, session_of(d)))
    return Digested(out, digest.hexdigest())


@dataclass(frozen=True, slots=True)
class Addresses:
    """What the IP plan reads of one switch besides its interfaces (views.Port): the rest of its addresses."""
    loopback: str
    port_channels: tuple[tuple[str, str], ...]  # (name, a.b.c.d/len) of each routed port-channel
    mlag: tuple[str, str, int, str] | None  # (peer VLAN interface, local address, prefix length, peer)
    aggregates: tuple[str, ...]
    # (interface, peer, peer interface) of each unnumbered session (routing.addressing: unnumbered): a routed port
    # or port-channel with no address, its BGP session over IPv6 link-local (RFC 8950)
    unnumbered: tuple[tuple[str, str, str], ...] = ()
    loopback_v6: str = ""  # dual-stack: the loopback's /128 and the IPv6 summaries (railfabric/plan/allocate_v6.py)
    aggregates_v6: tuple[str, ...] = ()


def addresses_view(devices: Mapping[str, DeviceConfig]) -> dict[str, Addresses]:
    return {name: Addresses(d.loopback,
                            tuple((pc.name, pc.ipv4) for pc in d.port_channels if pc.ipv4),
                            (d.mlag.interface, d.mlag.local_ip, d.mlag.prefix_len, d.mlag.peer) if d.mlag else None,
                            d.bgp.aggregates, _unnumbered_ends(d), d.loopback_v6,
                            d.bgp.ipv6.aggregates if d.bgp.ipv6 else ())
            for name, d in devices.items()}


def _unnumbered_ends(d: DeviceConfig) -> tuple[tuple[str, str, str], ...]:
    """(interface, peer, peer interface) of the switch's unnumbered sessions, in the model's order."""
    return tuple((n.interface, n.peer, n.peer_interface) for g in d.bgp.peer_groups for n in g.neighbors
                 if n.interface)


def vlans_view(devices: Mapping[str, DeviceConfig]) -> dict[str, tuple[Vlan, ...]]:
    return {name: d.vlans for name, d in devices.items()}
