"""The InfiniBand subnet as planned: switches and HCAs named by node description (GUIDs are bound late, from
discovery: railfabric.infiniband.binding), the cables between their ports, the subnet managers, the routing engine,
LMC, partitions and QoS. Frozen dataclasses; `problems()` says what OpenSM or the hardware would refuse.

Node descriptions: a switch's is its planned hostname (set on the switch); an HCA's is "<host> <device>", the form
rdma-core's rdma-ndd daemon writes by default (RDMA_NDD_ND_FORMAT "%h %d", rdma-ndd(8), rdma-core 44.0), e.g.
"dgx01 mlx5_0".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

DEFAULT_PKEY = 0x7FFF  # the default partition (OpenSM opensm(8) "PARTITION CONFIGURATION")
DEFAULT_SUBNET_PREFIX = 0xFE80000000000000  # OpenSM's default subnet_prefix (opensm -c, 3.3.23)
MAX_LID = 0xBFFF  # unicast LIDs 0x0001-0xBFFF (IBTA vol. 1, LID ranges)


class Tier(StrEnum):
    LEAF = "leaf"
    SPINE = "spine"
    CORE = "core"


class Membership(StrEnum):
    FULL = "full"
    LIMITED = "limited"


# Routing engines of upstream OpenSM 3.3.23 (`opensm -c` template, "Supported engines") and NVIDIA's SM additions.
UPSTREAM_ENGINES = ("minhop", "updn", "dnup", "file", "ftree", "lash", "dor", "torus-2QoS", "nue", "dfsssp", "sssp")
NVIDIA_ENGINES = ("ar_ftree", "ar_updn")


@dataclass(frozen=True, slots=True)
class Switch:
    name: str  # hostname = node description
    model: str  # e.g. "QM9700"
    ports: int  # external ports (QM9700: 64)
    tier: Tier


@dataclass(frozen=True, slots=True)
class Hca:
    host: str
    index: int  # rail order on the host: mlx5_<index> unless `rdma` names the device
    rail: int
    ports: int = 1
    rdma: str | None = None  # the RDMA device name (the host model's rdma_devices[index]), when the plan knows it

    @property
    def device(self) -> str:
        return self.rdma if self.rdma is not None else f"mlx5_{self.index}"

    @property
    def name(self) -> str:
        """The node description: "<host> <device>"."""
        return f"{self.host} {self.device}"


@dataclass(frozen=True, slots=True, order=True)
class End:
    node: str  # node description
    port: int

    def __str__(self) -> str:
        return f"{self.node}[{self.port}]"


@dataclass(frozen=True, slots=True)
class Cable:
    a: End
    z: End

    def __str__(self) -> str:
        return f"{self.a} - {self.z}"


@dataclass(frozen=True, slots=True)
class SubnetManager:
    node: str  # node description of the switch or HCA it runs on
    priority: int  # 0-15, the higher is master


@dataclass(frozen=True, slots=True)
class Member:
    node: str  # HCA node description
    membership: Membership = Membership.FULL


@dataclass(frozen=True, slots=True)
class Partition:
    name: str
    pkey: int  # 15 bits, 0x0001-0x7ffe
    members: tuple[Member, ...]
    ipoib: bool = False


@dataclass(frozen=True, slots=True)
class Qos:
    """OpenSM's default QoS options (qos_max_vls, qos_high_limit, qos_vlarb_high/low as (VL, weight), qos_sl2vl:
    16 VLs, one per SL) and the service level of each partition's paths (the QoS policy file's qos-ulps: PKey ->
    SL, every other path default_sl)."""

    max_vls: int
    high_limit: int
    vlarb_high: tuple[tuple[int, int], ...]
    vlarb_low: tuple[tuple[int, int], ...]
    sl2vl: tuple[int, ...]
    default_sl: int = 0
    partition_sl: tuple[tuple[int, int], ...] = ()  # (PKey, SL)

    def sl_of(self, pkey: int) -> int:
        return dict(self.partition_sl).get(pkey, self.default_sl)


@dataclass(frozen=True, slots=True)
class IbFabric:
    name: str
    switches: tuple[Switch, ...]
    hcas: tuple[Hca, ...]
    cables: tuple[Cable, ...]
    sms: tuple[SubnetManager, ...]
    routing_engine: str = "ftree"
    lmc: int = 0
    subnet_prefix: int = DEFAULT_SUBNET_PREFIX
    partitions: tuple[Partition, ...] = ()
    default_membership: Membership = Membership.FULL  # the HCAs' membership in the default partition
    qos: Qos | None = None
    sweep_interval: int = 10
    _index: dict[str, Switch | Hca] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        index: dict[str, Switch | Hca] = {s.name: s for s in self.switches}
        index.update({h.name: h for h in self.hcas})
        object.__setattr__(self, "_index", index)

    def node(self, name: str) -> Switch | Hca | None:
        return self._index.get(name)

    def tier_of(self, name: str) -> Tier | None:
        node = self._index.get(name)
        return node.tier if isinstance(node, Switch) else None

    @property
    def roots(self) -> tuple[Switch, ...]:
        """The fat tree's roots for ftree/updn: the top tier (cores when there are any, else spines)."""
        top = Tier.CORE if any(s.tier is Tier.CORE for s in self.switches) else Tier.SPINE
        return tuple(s for s in self.switches if s.tier is top)

    @property
    def master(self) -> SubnetManager:
        """The SM with the highest priority (the first listed on a tie)."""
        return max(self.sms, key=lambda sm: sm.priority)


def problems(fab: IbFabric) -> list[str]:
    """What OpenSM or the hardware would refuse, one sentence each (empty: the plan is consistent)."""
    out: list[str] = []
    names = Counter([s.name for s in fab.switches] + [h.name for h in fab.hcas])
    out += [f"node description {n!r} is used by {c} nodes" for n, c in sorted(names.items()) if c > 1]
    used: Counter[End] = Counter()
    for cable in fab.cables:
        for end in (cable.a, cable.z):
            node = fab.node(end.node)
            if node is None:
                out.append(f"cable {cable}: {end.node!r} is not a planned switch or HCA")
            elif not 1 <= end.port <= node.ports:
                out.append(f"cable {cable}: {end.node} has ports 1-{node.ports}, not {end.port}")
            used[end] += 1
    out += [f"port {end} is used by {c} cables" for end, c in sorted(used.items()) if c > 1]
    if fab.routing_engine not in UPSTREAM_ENGINES + NVIDIA_ENGINES:
        out.append(f"routing engine {fab.routing_engine!r} is not one OpenSM knows")
    if not 0 <= fab.lmc <= 7:
        out.append(f"LMC {fab.lmc} is outside 0-7")
    elif fab.lmc and fab.routing_engine == "ftree":
        out.append("ftree does not support LMC > 0 (OpenSM falls back to minhop): set lmc 0 or use updn")
    endports = len(fab.hcas) + len(fab.switches)
    if endports << fab.lmc > MAX_LID:
        out.append(f"{endports} end ports with LMC {fab.lmc} need {endports << fab.lmc} LIDs, more than {MAX_LID}")
    if not fab.sms:
        out.append("no subnet manager is planned")
    for sm in fab.sms:
        if fab.node(sm.node) is None:
            out.append(f"subnet manager on {sm.node!r}: not a planned switch or HCA")
        if not 0 <= sm.priority <= 15:
            out.append(f"subnet manager on {sm.node}: priority {sm.priority} is outside 0-15")
    prios = Counter(sm.priority for sm in fab.sms)
    out += [f"{c} subnet managers share priority {p}: the master is then the lowest GUID, not planned"
            for p, c in sorted(prios.items()) if c > 1]
    out += _partition_problems(fab)
    if fab.qos is not None:
        out += _qos_problems(fab.qos)
        known = {p.pkey for p in fab.partitions}
        out += [f"QoS: PKey {k:#06x} has a service level but no partition" for k, _ in fab.qos.partition_sl
                if k not in known]
    return out


def _partition_problems(fab: IbFabric) -> list[str]:
    out: list[str] = []
    pkeys = Counter(p.pkey for p in fab.partitions)
    out += [f"PKey {k:#06x} is used by {c} partitions" for k, c in sorted(pkeys.items()) if c > 1]
    for part in fab.partitions:
        if not 0x0001 <= part.pkey <= 0x7FFE:
            out.append(f"partition {part.name}: PKey {part.pkey:#x} is outside 0x0001-0x7ffe (0x7fff is the default)")
        if not part.name or not part.name.replace("_", "").replace("-", "").isalnum():
            out.append(f"partition {part.name!r}: a name is letters, digits, '-' and '_'")
        for m in part.members:
            if not isinstance(fab.node(m.node), Hca):
                out.append(f"partition {part.name}: member {m.node!r} is not a planned HCA")
    return out


def _qos_problems(qos: Qos) -> list[str]:
    out: list[str] = []
    if qos.max_vls not in (1, 2, 4, 8, 15):
        out.append(f"QoS: max VLs {qos.max_vls} is not 1, 2, 4, 8 or 15")
    if len(qos.sl2vl) != 16:
        out.append(f"QoS: the SL-to-VL map has {len(qos.sl2vl)} entries, not 16")
    out += [f"QoS: SL {sl} maps to VL {vl}, beyond the {qos.max_vls} data VLs"
            for sl, vl in enumerate(qos.sl2vl) if not 0 <= vl < qos.max_vls]
    for name, table in (("high", qos.vlarb_high), ("low", qos.vlarb_low)):
        out += [f"QoS: VL arbitration {name} entry {vl}:{w} is outside VL 0-14, weight 0-255"
                for vl, w in table if not (0 <= vl <= 14 and 0 <= w <= 255)]
    out += [f"QoS: service level {sl} is outside 0-15" for sl in
            (qos.default_sl, *(sl for _, sl in qos.partition_sl)) if not 0 <= sl <= 15]
    if not -1 <= qos.high_limit <= 255:
        out.append(f"QoS: high limit {qos.high_limit} is outside -1..255")
    return out
