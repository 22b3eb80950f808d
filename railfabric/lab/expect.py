"""What the lab must show, from the plan alone (never from what the lab runs): sessions, BFD, routes, pings.

Routes: a path-vector model of the planned eBGP underlay. Every switch originates what its prefix-list lets
`redistribute connected` take (loopback /32, rail subnets) and its planned aggregates (active while a more-specific is
in its table; summary-only suppresses the more-specifics it covers). A route is refused when the receiver's ASN is in
its AS path (RFC 7938: spines of a pod share an ASN, super-spines share one). The best routes are the shortest AS
paths; every BGP session (one per routed link or port-channel) that offers one is a next-hop (multipath-relax),
capped at maximum-paths. That gives, per switch and prefix, "present with N next-hops" or "absent".
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations

from railfabric.core.address import Prefix
from railfabric.core.address6 import Prefix6
from railfabric.device import DeviceConfig
from railfabric.device.routing import Neighbor
from railfabric.lab.model import LabSpec


@dataclass(frozen=True, slots=True)
class Session:
    a: str  # device
    a_ip: str  # its session address; unnumbered: its interface (the session runs over IPv6 link-local)
    z: str
    z_ip: str
    a_as: int  # planned ASN of a
    z_as: int
    bfd: bool
    unnumbered: bool = False  # a_ip / z_ip are interfaces: each end's FRR names the peer by its own interface
    bfd_interval: int = 0  # the planned BFD transmit/receive interval (ms) of the session's tier; 0: none planned
    bfd_multiplier: int = 0

    @property
    def label(self) -> str:
        return f"{self.a} {self.a_ip} <-> {self.z} {self.z_ip}"

    def peer_key(self, node: str) -> str:
        """What `node`'s FRR names this session by (`show bgp summary json` peers, BFD): the peer's address, or
        on an unnumbered session its own interface."""
        mine, other = (self.a_ip, self.z_ip) if node == self.a else (self.z_ip, self.a_ip)
        return mine if self.unnumbered else other


def _session_ends(devices: dict[str, DeviceConfig]) -> dict[str, str]:
    """Each unnumbered session end (device|interface) → the other end's (the model's Neighbor.peer and
    peer_interface: the other end of its link, or the peer's port-channel)."""
    return {f"{name}|{n.interface}": f"{n.peer}|{n.peer_interface}" for name, d in devices.items()
            for g in d.bgp.peer_groups for n in g.neighbors if n.interface}


def _local_id(name: str, n: Neighbor) -> str:
    return f"{name}|{n.interface}" if n.interface else n.local_ip


@dataclass(frozen=True, slots=True)
class Ping:
    node: str
    src: str
    dst: str
    dst_node: str
    size: int  # IP packet size (ICMP payload = size - 28)
    expect_ok: bool
    why: str


@dataclass
class Expected:
    sessions: list[Session]
    outside: int  # planned sessions whose other end is outside the selected pod (not checked)
    # switch → prefix → ECMP next-hops; only BGP-learned routes
    routes: dict[str, dict[str, int]]
    # switch → prefixes that must not be in its routing table (suppressed more-specifics, unreachable)
    absent: dict[str, set[str]]
    local: dict[str, set[str]]  # switch → prefixes it originates (connected, aggregates)
    suppressed: set[str]  # more-specifics hidden behind a summary-only aggregate
    rail_prefixes: dict[str, set[str]]  # rail switch → the prefixes it advertises (summary where planned)
    link_pings: list[Ping] = field(default_factory=list)
    rail_pings: list[Ping] = field(default_factory=list)
    # dual-stack (routing.address_families with ipv6): the IPv6 unicast family's routes, from the same model over
    # the same sessions (each switch's loopback /128, rail /64s and IPv6 summaries); empty on an IPv4-only fabric
    routes_v6: dict[str, dict[str, int]] = field(default_factory=dict)
    absent_v6: dict[str, set[str]] = field(default_factory=dict)
    local_v6: dict[str, set[str]] = field(default_factory=dict)
    rail_prefixes_v6: dict[str, set[str]] = field(default_factory=dict)


def _net(p: str) -> Prefix | Prefix6:
    return Prefix6.parse(p) if ":" in p else Prefix.parse(p, strict=False)


def _covers(agg: Prefix | Prefix6, p: Prefix | Prefix6) -> bool:
    return p != agg and _covers_or_is(agg, p)


def _covers_or_is(agg: Prefix | Prefix6, p: Prefix | Prefix6) -> bool:
    """`p` lies inside `agg` (equal included), both of one family."""
    if isinstance(agg, Prefix6):
        return isinstance(p, Prefix6) and agg.covers(p)
    return isinstance(p, Prefix) and agg.covers(p)


def expected(spec: LabSpec) -> Expected:
    devices = spec.devices
    lab = spec.nodes
    owner: dict[str, str] = {}  # session end (address, or device|interface when unnumbered) → device
    for name, d in devices.items():
        for g in d.bgp.peer_groups:
            for n in g.neighbors:
                owner[_local_id(name, n)] = name
    other_end = _session_ends(devices)
    sessions: dict[frozenset, Session] = {}
    outside = 0
    adj: dict[str, list[tuple[str, str]]] = defaultdict(list)  # node → (peer, session id = my local ip)
    for name in lab:
        d = devices[name]
        for g in d.bgp.peer_groups:
            for n in g.neighbors:
                here = _local_id(name, n)
                theirs = other_end.get(here, "") if n.interface else n.ip
                peer = owner.get(theirs)
                if peer is None or peer not in lab:
                    outside += 1
                    continue
                adj[name].append((peer, here))
                # an unnumbered end is shown by its interface (the device is the session's other field)
                me, you = (n.interface, theirs.partition("|")[2]) if n.interface else (n.local_ip, n.ip)
                key = frozenset(((name, me), (peer, you)))
                if key not in sessions:
                    a, z = sorted(((name, me), (peer, you)))
                    t = g.bfd_timers
                    sessions[key] = Session(a[0], a[1], z[0], z[1], devices[a[0]].bgp.asn, devices[z[0]].bgp.asn,
                                            g.bfd, bool(n.interface), bfd_interval=t.interval_ms if t else 0,
                                            bfd_multiplier=t.multiplier if t else 0)
    asn = {name: devices[name].bgp.asn for name in lab}
    origin: dict[str, set[str]] = {}
    aggs: dict[str, list[str]] = {}
    for name in lab:
        b = devices[name].bgp
        origin[name] = {str(_net(p)) for p in b.prefix_list_entries}
        aggs[name] = [str(_net(p)) for p in b.aggregates]
    tables = _simulate(list(lab), asn, adj, origin, aggs,
                       {n: devices[n].bgp.maximum_paths for n in lab},
                       {n: devices[n].bgp.multipath_relax for n in lab})
    universe: set[str] = set()
    for name in lab:
        universe |= origin[name] | set(aggs[name])
    routes: dict[str, dict[str, int]] = {}
    absent: dict[str, set[str]] = {}
    local: dict[str, set[str]] = {}
    for name in lab:
        local[name] = origin[name] | set(aggs[name])
        routes[name] = {p: nh for p, (_path, nh) in tables[name].items() if nh > 0}
        absent[name] = {p for p in universe if p not in routes[name] and p not in local[name]}
    suppressed = set()
    rail_prefixes: dict[str, set[str]] = {}
    for name in lab:
        d = devices[name]
        mine = origin[name] - {str(_net(d.loopback))}
        hidden = {p for p in mine for a in aggs[name] if _covers(_net(a), _net(p))}
        suppressed |= hidden
        if d.role == "rail":
            rail_prefixes[name] = (mine - hidden) | set(aggs[name])
    exp = Expected(sorted(sessions.values(), key=lambda s: (s.a, s.a_ip)), outside, routes, absent, local,
                   suppressed, rail_prefixes)
    exp.link_pings = _link_pings(spec)
    exp.rail_pings = _rail_pings(spec, exp)
    if any(devices[name].bgp.ipv6 is not None for name in lab):
        _expect_v6(spec, exp, asn, adj)
    return exp


def _expect_v6(spec: LabSpec, exp: Expected, asn: dict[str, int], adj: dict[str, list[tuple[str, str]]]) -> None:
    """The IPv6 family's routes: every session carries it (railfabric/device/routing_v6.py), so the same model runs
    on the IPv6 prefix-lists and summaries."""
    devices, lab = spec.devices, spec.nodes
    origin: dict[str, set[str]] = {}
    aggs: dict[str, list[str]] = {}
    for name in lab:
        v6 = devices[name].bgp.ipv6
        origin[name] = {str(_net(p)) for p in v6.prefix_list_entries} if v6 else set()
        aggs[name] = [str(_net(p)) for p in v6.aggregates] if v6 else []
    tables = _simulate(list(lab), asn, adj, origin, aggs, {n: devices[n].bgp.maximum_paths for n in lab},
                       {n: devices[n].bgp.multipath_relax for n in lab})
    universe = set().union(*(origin[n] | set(aggs[n]) for n in lab)) if lab else set()
    for name in lab:
        exp.local_v6[name] = origin[name] | set(aggs[name])
        exp.routes_v6[name] = {p: nh for p, (_path, nh) in tables[name].items() if nh > 0}
        exp.absent_v6[name] = {p for p in universe if p not in exp.routes_v6[name] and p not in exp.local_v6[name]}
        d = devices[name]
        if d.role == "rail" and d.loopback_v6:
            mine = origin[name] - {str(_net(d.loopback_v6))}
            hidden = {p for p in mine for a in aggs[name] if _covers(_net(a), _net(p))}
            exp.suppressed |= hidden
            exp.rail_prefixes_v6[name] = (mine - hidden) | set(aggs[name])


def _simulate(nodes: list[str], asn: dict[str, int], adj: dict[str, list[tuple[str, str]]],
              origin: dict[str, set[str]], aggs: dict[str, list[str]], maxpaths: dict[str, int],
              relax: dict[str, bool]) -> dict[str, dict[str, tuple[tuple[int, ...], int]]]:
    """node → prefix → (best AS path, ECMP next-hops; 0 = originated here). Rounds until nothing changes."""
    agg_nets = {n: [(a, _net(a)) for a in aggs[n]] for n in nodes}
    nets: dict[str, Prefix | Prefix6] = {}

    def net(p: str) -> Prefix | Prefix6:
        if p not in nets:
            nets[p] = _net(p)
        return nets[p]

    adv: dict[str, dict[str, tuple[int, ...]]] = {n: {} for n in nodes}
    tables: dict[str, dict[str, tuple[tuple[int, ...], int]]] = {}
    for _round in range(4 * len(nodes) + 4):
        tables = {}
        new_adv: dict[str, dict[str, tuple[int, ...]]] = {}
        for n in nodes:
            table: dict[str, tuple[tuple[int, ...], int]] = {p: ((), 0) for p in origin[n]}
            offers: dict[str, list[tuple[tuple[int, ...], str]]] = defaultdict(list)
            for peer, sid in adj[n]:
                for p, path in adv[peer].items():
                    full = (asn[peer], *path)
                    if asn[n] not in full:
                        offers[p].append((full, sid))
            for p, cands in offers.items():
                if p in table:
                    continue
                shortest = min(len(path) for path, _ in cands)
                best = min(path for path, _ in cands if len(path) == shortest)
                multi = [sid for path, sid in cands
                         if len(path) == shortest and (relax[n] or path[0] == best[0])]
                table[p] = (best, min(len(multi), maxpaths[n]))
            active = [(a, an) for a, an in agg_nets[n] if any(_covers(an, net(p)) for p in table)]
            for a, _an in active:
                table[a] = ((), 0)
            tables[n] = table
            new_adv[n] = {p: path for p, (path, _nh) in table.items()
                          if not any(_covers(an, net(p)) for _a, an in active)}
        if new_adv == adv:
            break
        adv = new_adv
    return tables


def _link_pings(spec: LabSpec) -> list[Ping]:
    """Across every addressed link at its planned MTU with DF set: proves both ends agree on the MTU."""
    out = []
    for ln in spec.links:
        if ln.a.ipv4 and ln.z.ipv4:
            mtu = min(ln.a.mtu, ln.z.mtu)
            out.append(Ping(ln.a.node, ln.a.ipv4.split("/")[0], ln.z.ipv4.split("/")[0], ln.z.node, mtu, True,
                            f"link {ln.label} at MTU {mtu}"))
    return out


def _rail_pings(spec: LabSpec, exp: Expected) -> list[Ping]:
    """SVI to SVI between rail switches of different segments and pods (or, with one segment, different switches):
    DF at the host MTU and at the largest fabric MTU must pass, one byte above the path MTU must fail."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for name, node in spec.nodes.items():
        if node.device.role == "rail" and node.svis:
            groups[(node.device.pod, node.device.segment)].append(name)

    def reachable(src: str, dst: str) -> bool:
        s, t = spec.nodes[src].svis[0].prefix, spec.nodes[dst].svis[0].prefix
        return (any(_covers_or_is(_net(p), _net(t)) for p in exp.routes[src])
                and any(_covers_or_is(_net(p), _net(s)) for p in exp.routes[dst]))

    keys = sorted(groups)
    pairs: list[tuple[str, str]] = []
    for g1, g2 in combinations(keys, 2):
        src = next((s for s in groups[g1] for t in groups[g2] if reachable(s, t)), None)
        if src:
            dst = next(t for t in groups[g2] if reachable(src, t))
            pairs.append((src, dst))
    if not pairs:
        for g in keys:
            members = groups[g]
            found = next(((s, t) for s, t in combinations(members, 2) if reachable(s, t)), None)
            if found:
                pairs.append(found)
                break
    fabric_mtus = [e.mtu for ln in spec.links for e in (ln.a, ln.z)]
    if not pairs or not fabric_mtus:
        return []
    largest = max(fabric_mtus)
    out = []
    for src, dst in pairs:
        a, z = spec.nodes[src], spec.nodes[dst]
        path_mtu = min(*fabric_mtus, a.svis[0].mtu, z.svis[0].mtu)
        s_ip, d_ip = a.svis[0].gateway.split("/")[0], z.svis[0].gateway.split("/")[0]
        where = f"{src} {a.svis[0].name} -> {dst} {z.svis[0].name}"
        sizes = [(spec.host_mtu, True, f"host MTU {spec.host_mtu}"),
                 (largest, largest <= path_mtu, f"largest fabric MTU {largest}"),
                 (path_mtu + 1, False, f"path MTU {path_mtu} + 1")]
        for size, ok, why in dict.fromkeys(sizes):
            out.append(Ping(src, s_ip, d_ip, dst, size, ok, f"{where}: {why}"))
    return out
