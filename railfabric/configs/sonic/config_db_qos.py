"""CONFIG_DB RoCEv2 QoS: the AI_ROCE maps, schedulers, WRED/ECN, per-port maps and queues, PFC watchdog
(sonic-dscp-tc-map.yang, sonic-tc-queue-map.yang, sonic-tc-priority-group-map.yang,
sonic-pfc-priority-queue-map.yang, sonic-scheduler.yang, sonic-wred-profile.yang, sonic-port-qos-map.yang,
sonic-queue.yang, sonic-pfcwd.yang).

Our own maps are always written: SONiC's default AZURE maps treat DSCP 3/4 as lossless and DSCP 26 as lossy. All
maps are called AI_ROCE; PFC priority p pauses queue p (TC = priority, TC_TO_QUEUE is the model's map). The per-port
tables cover the ports the RoCE QoS applies to (Interface.qos).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: the platform registry imports this module before railfabric.device exists
    from railfabric.device import Interface, Qos


Tables = dict[str, dict[str, Any]]

QOS_TABLES = frozenset({"DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE",
                        "SCHEDULER", "WRED_PROFILE", "PORT_QOS_MAP", "QUEUE", "PFC_WD"})

MAP = "AI_ROCE"
STRICT_SCHEDULER = "AI_STRICT"
LOSSLESS_WRED = "AI_LOSSLESS"


def dwrr_scheduler(queue: int) -> str:
    return f"AI_DWRR_Q{queue}"


def _numbered(values: Iterable[int]) -> dict[str, str]:
    """A map indexed by position: {"0": str(values[0]), ...}."""
    return {str(i): str(v) for i, v in enumerate(values)}


@lru_cache(maxsize=16)
def map_tables(q: Qos) -> Tables:
    """The AI_ROCE maps, built once per Qos and shared by every switch's document (read-only)."""
    return {
        "DSCP_TO_TC_MAP": {MAP: _numbered(q.dscp_to_tc)},
        "TC_TO_QUEUE_MAP": {MAP: _numbered(q.tc_to_queue)},
        "TC_TO_PRIORITY_GROUP_MAP": {MAP: _numbered(q.tc_to_pg)},
        "MAP_PFC_PRIORITY_TO_QUEUE": {MAP: {str(p): str(queue) for p, queue in q.pfc_to_queue}},
    }


@lru_cache(maxsize=16)
def scheduler_tables(q: Qos) -> Tables:
    """SCHEDULER (present even when empty): one strict scheduler shared by the strict queues, one DWRR scheduler
    per weighted queue; WRED_PROFILE with ECN marking when ECN is on. Like map_tables, built once per Qos (one
    per fabric) and shared by every switch's document: read-only."""
    schedulers: dict[str, dict[str, str]] = {}
    if q.strict_queues:
        schedulers[STRICT_SCHEDULER] = {"type": "STRICT"}
    for queue, weight in q.dwrr:
        schedulers[dwrr_scheduler(queue)] = {"type": "DWRR", "weight": str(weight)}
    out: Tables = {"SCHEDULER": schedulers}
    if q.ecn:
        out["WRED_PROFILE"] = {LOSSLESS_WRED: {
            "ecn": "ecn_all",
            "wred_green_enable": "true",
            "green_min_threshold": str(q.ecn.min_bytes),
            "green_max_threshold": str(q.ecn.max_bytes),
            "green_drop_probability": str(q.ecn.probability),
        }}
    return out


def port_qos_row(q: Qos) -> dict[str, str]:
    pfc = ",".join(str(p) for p in q.lossless)
    row = {"dscp_to_tc_map": MAP, "tc_to_queue_map": MAP, "tc_to_pg_map": MAP, "pfc_to_queue_map": MAP,
           "pfc_enable": pfc}
    if q.watchdog:
        row["pfcwd_sw_enable"] = pfc
    return row


@lru_cache(maxsize=16)
def _queue_templates(q: Qos) -> tuple[tuple[str, dict[str, str]], ...]:
    """QUEUE|<port>|<queue> for every queue the device model schedules (Qos.tx_queues: strict wins over a weight,
    ECN on the RoCE queue when ECN is on): the strict scheduler or the queue's DWRR scheduler, plus the ECN profile.
    As (|<queue> key suffix, row), built once per Qos (one per fabric); the rows are shared by every port."""
    out = []
    for tx in q.tx_queues:
        row = {"scheduler": STRICT_SCHEDULER if tx.strict else dwrr_scheduler(tx.queue)}
        if tx.ecn is not None:
            row["wred_profile"] = LOSSLESS_WRED
        out.append((f"|{tx.queue}", row))
    return tuple(out)


@lru_cache(maxsize=16)
def _shared_rows(q: Qos) -> tuple[dict[str, str], dict[str, str] | None]:
    """The PORT_QOS_MAP row and the PFC_WD port row (None without the watchdog): the same for every RoCE port,
    built once per Qos and shared by reference (the document is serialised, never edited)."""
    w = q.watchdog
    wd = None if w is None else {"action": w.action, "detection_time": str(w.detection_ms),
                                 "restoration_time": str(w.restoration_ms)}
    return port_qos_row(q), wd


def port_tables(q: Qos, ports: list[str]) -> Tables:
    """PORT_QOS_MAP and QUEUE of the RoCE ports (none: no table), and PFC_WD when the watchdog is on."""
    if not ports:
        return {}
    row, wd_row = _shared_rows(q)
    templates = _queue_templates(q)
    queues = {port + suffix: queue for port in ports for suffix, queue in templates}
    out: Tables = {"PORT_QOS_MAP": dict.fromkeys(ports, row), "QUEUE": queues}
    if q.watchdog and wd_row is not None:
        wd: dict[str, dict[str, str]] = {"GLOBAL": {"POLL_INTERVAL": str(q.watchdog.poll_ms)}}
        wd.update(dict.fromkeys(ports, wd_row))
        out["PFC_WD"] = wd
    return out


def roce_ports(interfaces: tuple[Interface, ...]) -> tuple[str, ...]:
    """The ports the RoCE QoS applies to (Interface.qos), in model order."""
    return tuple(i.name for i in interfaces if i.qos)


def qos_tables(q: Qos, interfaces: tuple[Interface, ...]) -> Tables:
    return ports_qos_tables(q, roce_ports(interfaces))


def ports_qos_tables(q: Qos, ports: tuple[str, ...]) -> Tables:
    """Every QoS table of a switch whose RoCE ports are `ports`: what it reads is exactly (q, ports)."""
    return {**map_tables(q), **scheduler_tables(q), **port_tables(q, list(ports))}
