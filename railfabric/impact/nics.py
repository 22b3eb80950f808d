"""GPUs and their NICs after a failure: isolated from their rail, or at reduced NIC bandwidth.

A NIC (host, n) carries local rank n's rail. It has one host link per NIC port; a port is alive while its link is up
and the rail switch it lands on is up. The NIC keeps its rail while one port is alive: a dual-homed NIC (MLAG or ESI
bond, or two-VLAN dual homing) keeps it while one of its two switches lives, at the live ports' share of its
bandwidth. A NIC with no live port is isolated, and so are the GPUs behind it: with one NIC per GPU that is one GPU,
with a NIC shared by k GPUs (gpus = k × nics) all k (GPU g is behind NIC g // k).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from railfabric.impact.targets import Down
from railfabric.topology import LinkRole, Topology


@dataclass(slots=True)
class Nic:
    host: str
    nic: int
    rail: int
    ports: int = 0
    alive: int = 0
    gbps: int = 0
    alive_gbps: int = 0
    switches: list[str] = field(default_factory=list)  # the rail switches of its live ports

    @property
    def isolated(self) -> bool:
        return self.alive == 0


def gpus_per_nic(gpus: int, nics: int) -> int:
    return max(1, gpus // nics) if nics else 0


class HostIndex:
    """The host links by NIC, by rail switch and by id (built once per topology)."""

    def __init__(self, topo: Topology) -> None:
        self.by_nic: dict[tuple[str, int], list[tuple[str, str, int]]] = defaultdict(list)
        self.by_switch: dict[str, list[tuple[str, int]]] = defaultdict(list)
        self.by_link: dict[str, tuple[str, int]] = {}
        host_role = LinkRole.HOST
        for link in topo.links:
            if link.role is not host_role:
                continue
            key = (link.a.device, link.nic or 0)
            self.by_nic[key].append((link.id, link.z.device, link.a.speed))
            self.by_switch[link.z.device].append(key)
            self.by_link[link.id] = key
        self.rail = {link.id: link.rail for link in topo.links if link.role is host_role}


_cache: list = []  # [topology, its HostIndex]


def host_index(topo: Topology) -> HostIndex:
    if not (_cache and _cache[0] is topo):
        _cache[:] = [topo, HostIndex(topo)]
    return _cache[1]


def nic_state(ix: HostIndex, key: tuple[str, int], down: Down) -> Nic:
    """One NIC after `down`."""
    ports = ix.by_nic[key]
    rail = ix.rail[ports[0][0]]
    n = Nic(key[0], key[1], key[1] if rail is None else rail)
    for lid, sw, gbps in ports:
        n.ports += 1
        n.gbps += gbps
        if lid not in down.links and sw not in down.switches:
            n.alive += 1
            n.alive_gbps += gbps
            n.switches.append(sw)
    return n


def nic_states(topo: Topology, down: Down) -> dict[tuple[str, int], Nic]:
    """The NICs `down` touches (a port down, or landing on a switch that is down), in topology order of their
    hosts; every other NIC is intact."""
    ix = host_index(topo)
    touched: set[tuple[str, int]] = set()
    for sw in down.switches:
        touched.update(ix.by_switch.get(sw, ()))
    for lid in down.links:
        if lid in ix.by_link:
            touched.add(ix.by_link[lid])
    order = {h: i for i, h in enumerate(topo.hosts)}
    return {key: nic_state(ix, key, down) for key in sorted(touched, key=lambda k: (order[k[0]], k[1]))}


def isolated_section(topo: Topology, nics: dict[tuple[str, int], Nic]) -> dict:
    """The isolated GPUs: total, per rail, per pod, per (pod, segment, rail) with the host names."""
    by_rail: dict[int, int] = defaultdict(int)
    by_pod: dict[int, int] = defaultdict(int)
    by_seg: dict[tuple[int, int], dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    gpus = 0
    nic_count = 0
    hosts: set[str] = set()
    for n in nics.values():
        if not n.isolated:
            continue
        h = topo.hosts[n.host]
        k = gpus_per_nic(h.gpus, h.nics)
        gpus += k
        nic_count += 1
        hosts.add(n.host)
        by_rail[n.rail] += k
        by_pod[h.pod] += k
        by_seg[(h.pod, h.segment)][n.rail].append(n.host)
    segments = []
    for (pod, seg), rails in sorted(by_seg.items()):
        rows = {}
        total = 0
        for rail, names in sorted(rails.items()):
            k = sum(gpus_per_nic(topo.hosts[x].gpus, topo.hosts[x].nics) for x in names)
            total += k
            rows[str(rail)] = {"gpus": k, "hosts": names}
        segments.append({"pod": pod, "segment": seg, "gpus": total, "rails": rows})
    host_key = {x: (topo.hosts[x].pod, topo.hosts[x].segment, topo.hosts[x].number) for x in hosts}.__getitem__
    return {"gpus": gpus, "nics": nic_count, "hosts": sorted(hosts, key=host_key),
            "by_rail": {str(r): c for r, c in sorted(by_rail.items())},
            "by_pod": {str(p): c for p, c in sorted(by_pod.items())}, "segments": segments}


def reduced_nics_section(topo: Topology, nics: dict[tuple[str, int], Nic]) -> dict:
    """NICs that keep their rail on fewer ports (a dual-homed NIC that lost one side): GPUs and their share."""
    rows = []
    gpus = 0
    for n in nics.values():
        if 0 < n.alive < n.ports:
            h = topo.hosts[n.host]
            k = gpus_per_nic(h.gpus, h.nics)
            gpus += k
            rows.append({"host": n.host, "nic": n.nic, "rail": n.rail, "gpus": k, "gbps": n.gbps,
                         "left_gbps": n.alive_gbps, "left_pct": round(100.0 * n.alive_gbps / n.gbps, 3)})
    return {"gpus": gpus, "nics": rows}
