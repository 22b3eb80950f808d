"""The figures of an InfiniBand fabric's page (docs/fabric.md when fabric.kind is infiniband), decided here once from
the planned subnet (railfabric.infiniband.model.IbFabric), the expanded topology and the solver's report; the page
(railfabric.outputs.docs.ib_markdown) only formats them.

- Tiers: switches per tier (leaf, spine, core) with their models ("8 × QM9700") and ports per switch.
- HCAs: per host, the RDMA devices in rail order (one line when every host has the same), their count.
- Cables: per kind (host–leaf, leaf–spine, spine–core) the count and the lane speed of the topology's links.
- Subnet managers: the master is the highest priority (IbFabric.master), every other SM a standby; where: a
  switch (its tier) or a host's HCA.
- Partitions: the default partition 0x7fff (every HCA, default_membership) first, then the planned ones in
  inventory order: hosts, HCAs, membership counts, IPoIB, the service level of their paths (Qos.sl_of).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from railfabric.core.units import format_speed
from railfabric.infiniband.model import DEFAULT_PKEY, Hca, IbFabric, Membership, Partition, Switch, Tier
from railfabric.topology import Topology
from railfabric.topology.model import LinkRole

CABLE_KINDS = {LinkRole.HOST: "host–leaf", LinkRole.FABRIC: "leaf–spine", LinkRole.CORE: "spine–core"}


@dataclass(frozen=True)
class TierRow:
    tier: str
    switches: int
    models: str  # "8 × QM9700"
    ports: str  # ports per switch: "64", or "64, 144" when models differ


@dataclass(frozen=True)
class CableRow:
    kind: str
    cables: int
    speed: str  # "400G", or "400G, 800G"


@dataclass(frozen=True)
class SmRow:
    node: str
    priority: int
    role: str  # master | standby
    where: str  # "spine switch", "HCA mlx5_0 of host dgx01", "not a planned node"


@dataclass(frozen=True)
class PartitionRow:
    name: str
    pkey: str  # 0x0a01
    hosts: int
    hcas: int
    membership: str  # "full", "limited", "120 full, 8 limited"
    ipoib: bool
    sl: int | None  # None: no QoS plan


@dataclass(frozen=True)
class IbFacts:
    name: str
    tiers: tuple[TierRow, ...]
    hosts: int
    hcas: int
    host_hcas: tuple[tuple[str, str], ...]  # (hosts, their devices in rail order): one row per distinct list
    cables: tuple[CableRow, ...]
    sms: tuple[SmRow, ...]
    routing_engine: str
    lmc: int
    roots: tuple[str, ...]
    subnet_prefix: str
    partitions: tuple[PartitionRow, ...]


def _count(names: list[str]) -> str:
    return ", ".join(f"{n} × {m}" for m, n in sorted(Counter(names).items()))


def _tiers(fab: IbFabric) -> tuple[TierRow, ...]:
    rows = []
    for tier in Tier:
        sws = [s for s in fab.switches if s.tier is tier]
        if sws:
            rows.append(TierRow(str(tier), len(sws), _count([s.model for s in sws]),
                                ", ".join(str(p) for p in sorted({s.ports for s in sws}))))
    return tuple(rows)


def _host_hcas(fab: IbFabric) -> tuple[tuple[str, str], ...]:
    """Hosts grouped by their HCAs' devices in rail order: ("32 hosts", "mlx5_0 … mlx5_11") per distinct list."""
    devices: dict[str, list[tuple[int, str]]] = {}
    for h in fab.hcas:
        devices.setdefault(h.host, []).append((h.rail, h.device))
    groups: dict[str, list[str]] = {}
    for host, devs in devices.items():
        groups.setdefault(", ".join(d for _r, d in sorted(devs)), []).append(host)
    return tuple((f"{len(hosts)} host{'s' if len(hosts) != 1 else ''} ({hosts[0]}" +
                  (f" … {hosts[-1]})" if len(hosts) > 1 else ")"), devs) for devs, hosts in groups.items())


def _cables(topo: Topology) -> tuple[CableRow, ...]:
    count: Counter[LinkRole] = Counter()
    speeds: dict[LinkRole, set[int]] = {}
    for link in topo.links:
        count[link.role] += 1
        speeds.setdefault(link.role, set()).add(link.a.speed)
    return tuple(CableRow(kind, count[role], ", ".join(format_speed(s) for s in sorted(speeds[role])))
                 for role, kind in CABLE_KINDS.items() if count[role])


def _where(fab: IbFabric, node: str) -> str:
    found = fab.node(node)
    if isinstance(found, Switch):
        return f"{found.tier} switch"
    if isinstance(found, Hca):
        return f"HCA {found.device} of host {found.host}"
    return "not a planned node"


def _sms(fab: IbFabric) -> tuple[SmRow, ...]:
    if not fab.sms:
        return ()
    master = fab.master
    return tuple(SmRow(sm.node, sm.priority, "master" if sm is master else "standby", _where(fab, sm.node))
                 for sm in fab.sms)


def _membership(counts: Counter[Membership]) -> str:
    present = [m for m in Membership if counts[m]]
    if len(present) == 1:
        return str(present[0])
    return ", ".join(f"{counts[m]} {m}" for m in present) or "–"


def _partition(fab: IbFabric, part: Partition) -> PartitionRow:
    hosts = {h.host for m in part.members if isinstance(h := fab.node(m.node), Hca)}
    counts = Counter(m.membership for m in part.members)
    sl = fab.qos.sl_of(part.pkey) if fab.qos is not None else None
    return PartitionRow(part.name, f"{part.pkey:#06x}", len(hosts), len(part.members), _membership(counts),
                        part.ipoib, sl)


def _partitions(fab: IbFabric) -> tuple[PartitionRow, ...]:
    every = Counter({fab.default_membership: len(fab.hcas)})
    default = PartitionRow("default", f"{DEFAULT_PKEY:#06x}", len({h.host for h in fab.hcas}), len(fab.hcas),
                           _membership(every), False, fab.qos.default_sl if fab.qos is not None else None)
    return (default, *(_partition(fab, p) for p in fab.partitions))


def ib_facts(fab: IbFabric, topo: Topology) -> IbFacts:
    return IbFacts(fab.name, _tiers(fab), len({h.host for h in fab.hcas}), len(fab.hcas), _host_hcas(fab),
                   _cables(topo), _sms(fab), fab.routing_engine, fab.lmc, tuple(s.name for s in fab.roots),
                   f"{fab.subnet_prefix:#018x}", _partitions(fab))
