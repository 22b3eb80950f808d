"""The Junos class-of-service of one switch: RoCEv2 lossless end to end, decided from the neutral Qos.

- forwarding classes, one per traffic class in use: the RoCE class on its queue with `no-loss pfc-priority P`,
  the CNP class, the default class (every other DSCP);
- a DSCP classifier mapping every one of the 64 code points explicitly (RoCE DSCP → RoCE class, CNP DSCP → CNP
  class, the rest → default), so nothing depends on Junos' default classifier;
- a congestion-notification profile: PFC on input for the RoCE DSCP (untagged RoCEv2 carries no 802.1p bits) and on
  output for 802.1p code point P → the RoCE queue, with the PFC watchdog (poll interval and recovery in ms,
  detection counted in polls);
- a drop profile for ECN (fill levels are percentages of the queue on Junos, see railfabric/platforms/junos.py), the
  schedulers (CNP strict-high, DWRR transmit-rate percentages for the rest, ECN on the RoCE scheduler), one
  scheduler map;
- the interfaces they are bound to: every port that carries RoCE (host ports, routed fabric ports, port-channels).
Juniper AI JVD leaf configuration (REFERENCE.md §3(e)) for the forms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from railfabric.device import DeviceConfig

CLASSIFIER = "RF-DSCP"
CNP_PROFILE = "RF-PFC"
DROP_PROFILE = "RF-ECN"
SCHEDULER_MAP = "RF-SCHED"
ECN_FILL_LEVELS = (55, 90)  # % of the queue: Juniper AI JVD (QFX5240, 400G) drop profile


@dataclass(frozen=True, slots=True)
class JClass:
    name: str
    queue: int
    pfc_priority: int | None  # no-loss pfc-priority on the lossless class
    code_points: tuple[str, ...]  # 6-bit DSCP code points the classifier maps here
    scheduler: str
    strict: bool
    percent: int  # transmit-rate percent (DWRR share); 0 on the strict class
    ecn: bool


@dataclass(frozen=True, slots=True)
class Watchdog:
    poll_ms: int
    detection_polls: int
    recovery_ms: int


@dataclass(frozen=True, slots=True)
class Cos:
    classes: tuple[JClass, ...]
    classifier: str
    cnp_profile: str
    pfc_dscp: str  # input dscp code point with PFC (6 bits)
    pfc_code_point: str  # output ieee-802.1 code point (3 bits)
    pfc_queue: int
    watchdog: Watchdog | None
    drop_profile: str
    fill_levels: tuple[int, int]
    probability: int
    ecn: bool
    scheduler_map: str
    interfaces: tuple[str, ...]  # where the classifier, scheduler map and CNP are bound


def bits(value: int, width: int) -> str:
    return format(value, f"0{width}b")


def _class_name(tc: int, roce_tc: int, cnp_tc: int) -> str:
    return "RF-ROCE" if tc == roce_tc else "RF-CNP" if tc == cnp_tc else f"RF-TC{tc}"


def build_cos(dev: DeviceConfig) -> Cos:
    q = dev.qos
    total = sum(w for _q, w in q.dwrr) or 1
    schedule = {tx.queue: tx for tx in q.tx_queues}  # the device model's per-queue decision: strict, weight, ECN
    classes = []
    for tc, dscps in q.tc_groups:
        queue = q.tc_to_queue[tc]
        name = _class_name(tc, q.roce_tc, q.cnp_tc)
        tx = schedule.get(queue)
        strict = tx is not None and tx.strict
        percent = (tx.weight or 0) * 100 // total if tx is not None and not tx.strict else 0
        classes.append(JClass(name, queue, tc if tc in q.lossless else None, tuple(bits(d, 6) for d in dscps), name,
                              strict, percent, tx is not None and tx.ecn is not None))
    wd = q.watchdog
    watchdog = (Watchdog(wd.poll_ms, wd.detection_polls, wd.restoration_ms)
                if wd is not None else None)
    bound = [i.name for i in dev.interfaces if i.qos and i.mode != "member"]
    bound += [pc.name for pc in dev.port_channels]
    return Cos(
        classes=tuple(sorted(classes, key=lambda c: c.queue)),
        classifier=CLASSIFIER,
        cnp_profile=CNP_PROFILE,
        pfc_dscp=bits(q.roce_dscp, 6),
        pfc_code_point=bits(q.roce_tc, 3),
        pfc_queue=q.tc_to_queue[q.roce_tc],
        watchdog=watchdog,
        drop_profile=DROP_PROFILE,
        fill_levels=ECN_FILL_LEVELS,
        probability=q.ecn.probability if q.ecn else 0,
        ecn=q.ecn is not None,
        scheduler_map=SCHEDULER_MAP,
        interfaces=tuple(bound),
    )
