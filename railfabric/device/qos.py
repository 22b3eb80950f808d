"""RoCE QoS of the device model: one Qos record per inventory, shared by every switch (built once, by build_qos).

Decisions made here so templates only format: the DSCP → traffic-class map (every DSCP explicit), the lossless
priority and its priority group, the per-queue egress scheduler (strict or DWRR with its weight, and ECN marking
on the RoCE queue) and the PFC watchdog timers in both milliseconds (SONiC) and seconds (EOS).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from railfabric.inventory.intent import Inventory

QUEUES = 8  # unicast egress queues per port; the 8 traffic classes map onto them one to one


@dataclass(frozen=True, slots=True)
class Ecn:
    min_bytes: int
    max_bytes: int
    probability: int


@dataclass(frozen=True, slots=True)
class Watchdog:
    detection_ms: int
    restoration_ms: int
    poll_ms: int
    action: str
    # the same timers in seconds (EOS takes seconds); derived in __post_init__ so dataclasses.replace keeps them right
    detection_s: float = field(init=False)
    restoration_s: float = field(init=False)
    poll_s: float = field(init=False)
    # the detection and restoration times as whole polls, rounded up (NX-OS multipliers, Cumulus robustness, Junos
    # detection): the smallest count of polls that covers the time
    detection_polls: int = field(init=False)
    restoration_polls: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "detection_s", self.detection_ms / 1000)
        object.__setattr__(self, "restoration_s", self.restoration_ms / 1000)
        object.__setattr__(self, "poll_s", self.poll_ms / 1000)
        object.__setattr__(self, "detection_polls", max(1, math.ceil(self.detection_ms / self.poll_ms)))
        object.__setattr__(self, "restoration_polls", max(1, math.ceil(self.restoration_ms / self.poll_ms)))


@dataclass(frozen=True, slots=True)
class TxQueue:
    """The egress scheduler of one queue that is not left at the platform default."""

    queue: int
    strict: bool  # strict priority; else DWRR with `weight`
    weight: int | None  # DWRR weight (percent of the bandwidth), None when strict
    ecn: Ecn | None  # ECN marking on this queue (the RoCE queue when ECN is on)


@dataclass(frozen=True, slots=True)
class Qos:
    dscp_to_tc: tuple[int, ...]  # 64 entries: RoCE DSCP → lossless TC, CNP DSCP → strict TC, the rest → 0
    tc_groups: tuple[tuple[int, tuple[int, ...]], ...]  # (tc, dscps) for platforms that list DSCPs per TC
    tc_to_queue: tuple[int, ...]  # 8 entries (identity)
    tc_to_pg: tuple[int, ...]  # 8 entries: lossless TC → its own PG, the rest → PG 0
    lossless: tuple[int, ...]  # PFC priorities
    pfc_to_queue: tuple[tuple[int, int], ...]  # (PFC priority, queue it pauses)
    roce_tc: int
    cnp_tc: int
    roce_dscp: int
    cnp_dscp: int
    ecn: Ecn | None
    strict_queues: tuple[int, ...]
    dwrr: tuple[tuple[int, int], ...]  # (queue, weight)
    watchdog: Watchdog | None
    # derived once in __post_init__ (so dataclasses.replace keeps it right): the strict and DWRR queues, ascending
    tx_queues: tuple[TxQueue, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tx_queues", tx_queues(self.strict_queues, self.dwrr, self.ecn,
                                                        self.tc_to_queue[self.roce_tc]))


def tx_queues(strict: tuple[int, ...], dwrr: tuple[tuple[int, int], ...], ecn: Ecn | None,
              ecn_queue: int) -> tuple[TxQueue, ...]:
    """Every queue with a scheduler setting, ascending: strict wins over a DWRR weight for the same queue; ECN
    marking goes on `ecn_queue` (the queue of the RoCE traffic class) when ECN is on."""
    weights = dict(dwrr)
    return tuple(TxQueue(q, q in strict, None if q in strict else weights[q], ecn if q == ecn_queue else None)
                 for q in range(QUEUES) if q in strict or q in weights)


def build_qos(inv: Inventory) -> Qos:
    """The fabric's QoS (one per inventory: every switch shares the same record)."""
    q = inv.qos
    dscp = [0] * 64
    dscp[q.roce.dscp] = q.roce.priority
    dscp[q.cnp.dscp] = q.cnp.priority
    groups: dict[int, list[int]] = defaultdict(list)
    for d, tc in enumerate(dscp):
        groups[tc].append(d)
    tc_to_pg = tuple(tc if tc == q.roce.priority else 0 for tc in range(8))
    dwrr = tuple(sorted({(0, q.scheduler.default_weight), (q.roce.priority, q.scheduler.roce_weight)}))
    ecn = Ecn(q.ecn.min_bytes, q.ecn.max_bytes, q.ecn.probability) if q.ecn.enabled else None
    wd = q.pfc_watchdog
    watchdog = Watchdog(wd.detection_ms, wd.restoration_ms, wd.poll_ms, wd.action) if wd.enabled else None
    tc_to_queue = tuple(range(QUEUES))
    return Qos(tuple(dscp), tuple((tc, tuple(ds)) for tc, ds in sorted(groups.items())), tc_to_queue, tc_to_pg,
               (q.roce.priority,), ((q.roce.priority, tc_to_queue[q.roce.priority]),), q.roce.priority,
               q.cnp.priority, q.roce.dscp, q.cnp.dscp, ecn, (q.cnp.priority,), dwrr, watchdog)
