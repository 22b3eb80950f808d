"""The figures the fabric document and its pictures show, per pod and per segment, computed once from the topology
and the solver's report (capacity per switch): counts, speeds, uplinks, oversubscription, dual homing, platforms.

Each pod and segment also has a `shape`: every figure except its identity (ids, names), so that identical pods and
segments can be folded into one line of a table or one box of a picture ("pods 1-64 ×64").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from railfabric.platforms import PLATFORMS
from railfabric.topology import Topology
from railfabric.topology.model import Host, Link, LinkRole, Role, SegmentInfo


@dataclass(frozen=True)
class SegmentFacts:
    pod: int
    id: int
    design: str
    rails: int
    rails_per_switch: int
    dual_homing: str  # "" when single-homed
    rail_switches: int
    rail_model: str
    platforms: str  # "SONiC", "Arista EOS", ...
    hosts: int
    gpus: int
    host_models: str  # "16 × hgx-h100"
    host_groups: int  # host groups of the segment's inventory entry
    nics_per_host: int
    ports_per_nic: int
    host_links: int
    host_speed: int  # Gbit/s of a host link (the fastest, when mixed)
    uplinks: int  # rail switch → spine links of the whole segment
    uplink_speed: int
    down_gbps: int
    up_gbps: int
    ratio: float | None  # the worst rail switch's down/up; None: no uplinks (rail-only pod)
    worst: str  # the rail switch with that ratio
    nic_word: str = "NICs"  # what the pictures call a host's adapters ("HCAs" on InfiniBand)

    @property
    def shape(self) -> tuple[object, ...]:
        return (self.design, self.rails, self.rails_per_switch, self.dual_homing, self.rail_switches,
                self.rail_model, self.platforms, self.hosts, self.gpus, self.host_models, self.host_groups,
                self.nics_per_host,
                self.ports_per_nic, self.host_links, self.host_speed, self.uplinks, self.uplink_speed,
                self.down_gbps, self.up_gbps, self.ratio)


@dataclass(frozen=True)
class PodFacts:
    id: int
    segments: tuple[SegmentFacts, ...]
    spines: int  # 0: a rail-only pod
    spine_model: str
    platforms: str
    bundle: int  # L3 port-channel members per rail switch ↔ spine bundle, 0 when unbundled
    uplinks: int  # spine → super-spine links of the whole pod
    uplink_speed: int
    down_gbps: int
    up_gbps: int
    ratio: float | None
    worst: str

    @property
    def hosts(self) -> int:
        return sum(s.hosts for s in self.segments)

    @property
    def gpus(self) -> int:
        return sum(s.gpus for s in self.segments)

    @property
    def rail_switches(self) -> int:
        return sum(s.rail_switches for s in self.segments)

    @property
    def shape(self) -> tuple[object, ...]:
        return (self.spines, self.spine_model, self.platforms, self.bundle, self.uplinks, self.uplink_speed,
                self.down_gbps, self.up_gbps, self.ratio, tuple(s.shape for s in self.segments))


@dataclass(frozen=True)
class FabricFacts:
    name: str
    super_spines: int
    super_spine_model: str
    super_spine_platforms: str
    planes: int  # 0: every spine meets every super-spine
    pods: tuple[PodFacts, ...]


def _platforms(names: Iterable[str]) -> str:
    return " + ".join(sorted({PLATFORMS[n].title if n in PLATFORMS else n for n in names}))


def _models(names: Iterable[str]) -> str:
    return " + ".join(sorted(set(names)))


def host_links_by_segment(topo: Topology) -> dict[tuple[int, int], list[Link]]:
    """Every host link, by (pod, segment) of its host, in topology order."""
    out: dict[tuple[int, int], list[Link]] = defaultdict(list)
    place = {name: (h.pod, h.segment) for name, h in topo.hosts.items()}
    host = LinkRole.HOST
    for link in topo.links:
        if link.role is host:
            out[place[link.a[0]]].append(link)
    return out


def _uplinks(topo: Topology) -> tuple[dict[str, tuple[int, int]], dict[int, int]]:
    """Switch → (uplinks, fastest uplink speed), rail switches to spines and spines to super-spines; and pod →
    members of its largest L3 port-channel bundle (rail switch ↔ spine)."""
    count: dict[str, int] = defaultdict(int)
    speed: dict[str, int] = {}
    members: dict[str, int] = defaultdict(int)
    bundle_pod: dict[str, int] = {}
    host, switches = LinkRole.HOST, topo.switches
    for link in topo.links:
        if link.role is not host:
            device, link_speed = link.a[0], link.a[3]
            count[device] += 1
            if link_speed > speed.get(device, 0):
                speed[device] = link_speed
            bundle = link.bundle
            if bundle:
                members[bundle] += 1
                bundle_pod[bundle] = switches[link.z[0]].pod or 0
    pods: dict[int, int] = defaultdict(int)
    for bundle, n in members.items():
        pods[bundle_pod[bundle]] = max(pods[bundle_pod[bundle]], n)
    return {name: (count[name], speed.get(name, 0)) for name in count}, pods


def _worst(names: Iterable[str], cap: dict[str, dict]) -> tuple[float | None, str]:
    worst: tuple[float | None, str] = (None, "")
    for name in names:
        ratio = cap.get(name, {}).get("ratio")
        if ratio is not None and (worst[0] is None or ratio > worst[0]):
            worst = (ratio, name)
    return worst


def fabric_facts(name: str, topo: Topology, report: dict, planes: int,
                 by_segment: dict[tuple[int, int], list[Link]]) -> FabricFacts:
    cap: dict[str, dict] = report.get("capacity", {}).get("switches", {})
    ups, bundles = _uplinks(topo)
    hosts: dict[tuple[int, int], list[Host]] = defaultdict(list)
    for h in topo.hosts.values():
        hosts[(h.pod, h.segment)].append(h)
    spines: dict[int, list[str]] = defaultdict(list)
    supers: list[str] = []
    for sw in topo.switches.values():
        if sw.role is Role.SPINE and sw.pod is not None:
            spines[sw.pod].append(sw.name)
        elif sw.role is Role.SUPER_SPINE:
            supers.append(sw.name)
    segs: dict[int, list[SegmentFacts]] = defaultdict(list)
    for info in sorted(topo.segments, key=lambda s: (s.pod, s.id)):
        segs[info.pod].append(_segment(info, topo, hosts[(info.pod, info.id)], by_segment.get((info.pod, info.id), []),
                                       ups, cap))
    pods = []
    for pod in sorted(segs):
        names = sorted(spines.get(pod, []))
        up = [ups.get(n, (0, 0)) for n in names]
        ratio, worst = _worst(names, cap)
        pods.append(PodFacts(
            pod, tuple(segs[pod]), len(names), _models(topo.switches[n].model for n in names),
            _platforms(topo.switches[n].platform for n in names), bundles.get(pod, 0), sum(u[0] for u in up),
            max((u[1] for u in up), default=0), sum(cap.get(n, {}).get("down_gbps", 0) for n in names),
            sum(cap.get(n, {}).get("up_gbps", 0) for n in names), ratio, worst))
    return FabricFacts(name, len(supers), _models(topo.switches[n].model for n in supers),
                       _platforms(topo.switches[n].platform for n in supers), planes, tuple(pods))


def _segment(info: SegmentInfo, topo: Topology, hosts: list[Host], links: list[Link],
             ups: dict[str, tuple[int, int]], cap: dict[str, dict]) -> SegmentFacts:
    names = info.switches
    models: dict[str, int] = defaultdict(int)
    for h in hosts:
        models[h.model] += 1
    up = [ups.get(n, (0, 0)) for n in names]
    ratio, worst = _worst(names, cap)
    nics = max((h.nics for h in hosts), default=0)
    return SegmentFacts(
        info.pod, info.id, str(info.design), info.rails, info.rails_per_switch,
        str(info.dual_homing) if info.sides == 2 and info.dual_homing else "", len(names),
        _models(topo.switches[n].model for n in names), _platforms(topo.switches[n].platform for n in names),
        len(hosts), sum(h.gpus for h in hosts), ", ".join(f"{n} × {m}" for m, n in sorted(models.items())),
        len({h.src for h in hosts}), nics, info.sides, len(links), max((lk.a.speed for lk in links), default=0),
        sum(u[0] for u in up), max((u[1] for u in up), default=0),
        sum(cap.get(n, {}).get("down_gbps", 0) for n in names), sum(cap.get(n, {}).get("up_gbps", 0) for n in names),
        ratio, worst)


def id_ranges(ids: Iterable[int]) -> str:
    """1, 2, 3, 5 → '1-3, 5' (with an en dash)."""
    out: list[str] = []
    run: list[int] = []
    for i in sorted(ids):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}")
        run = [i]
    if run:
        out.append(str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}")
    return ", ".join(out)


def gbps(value: int) -> str:
    """6400 → '6.4T', 400 → '400G'."""
    if value >= 1000 and value % 100 == 0:
        return f"{value / 1000:g}T"
    return f"{value:,}G"


def ratio_text(ratio: float | None) -> str:
    return "no uplinks" if ratio is None else f"{ratio:.2f}:1"
