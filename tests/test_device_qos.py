"""railfabric/device/qos.py: the fabric's QoS record, with values derived by hand from the inventory defaults
(intent.py: RoCE DSCP 26 on priority 3, CNP DSCP 48 on priority 6, DWRR 50/50, ECN 150000-1500000 bytes at 100 %,
PFC watchdog 200 ms detection/restoration/poll, action drop)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from railfabric.device.qos import Ecn, TxQueue, Watchdog, build_qos, tx_queues
from tests.helpers import base_inventory, run_data


def test_defaults(tmp_path: Path) -> None:
    q = build_qos(run_data(tmp_path, base_inventory()).inventory)  # type: ignore[arg-type]
    assert (q.roce_dscp, q.roce_tc, q.cnp_dscp, q.cnp_tc) == (26, 3, 48, 6)
    assert q.dscp_to_tc[26] == 3 and q.dscp_to_tc[48] == 6 and sum(q.dscp_to_tc) == 3 + 6  # every other DSCP → 0
    # DSCPs listed per TC: 62 DSCPs in TC 0 (64 less 26 and 48), then 26 in TC 3, 48 in TC 6
    assert [(tc, len(ds)) for tc, ds in q.tc_groups] == [(0, 62), (3, 1), (6, 1)]
    assert q.tc_to_pg == (0, 0, 0, 3, 0, 0, 0, 0) and q.pfc_to_queue == ((3, 3),)
    ecn = Ecn(150000, 1500000, 100)
    # queue 0 (default traffic) and 3 (RoCE) share DWRR 50/50; 6 (CNP) is strict; ECN marks the RoCE queue only
    assert q.tx_queues == (TxQueue(0, False, 50, None), TxQueue(3, False, 50, ecn), TxQueue(6, True, None, None))
    assert q.watchdog is not None and (q.watchdog.detection_s, q.watchdog.restoration_s, q.watchdog.poll_s) == (
        0.2, 0.2, 0.2)  # 200 ms


def test_qos_settings_change_the_scheduler(tmp_path: Path) -> None:
    data = base_inventory()
    data["qos"] = {"roce": {"dscp": 24, "priority": 4}, "cnp": {"dscp": 46, "priority": 7},
                   "scheduler": {"roce_weight": 80, "default_weight": 20}, "ecn": {"enabled": False},
                   "pfc_watchdog": {"enabled": False}}
    q = build_qos(run_data(tmp_path, data).inventory)  # type: ignore[arg-type]
    assert q.tx_queues == (TxQueue(0, False, 20, None), TxQueue(4, False, 80, None), TxQueue(7, True, None, None))
    assert q.watchdog is None and q.ecn is None and q.tc_to_pg[4] == 4


def test_strict_wins_over_a_weight() -> None:
    # queue 3 both strict and weighted: strict, no weight; ECN on queue 3 still applies
    ecn = Ecn(1, 2, 3)
    assert tx_queues((3,), ((0, 50), (3, 50)), ecn, 3) == (TxQueue(0, False, 50, None), TxQueue(3, True, None, ecn))
    assert tx_queues((), (), None, 3) == ()


def test_watchdog_seconds_follow_replace() -> None:
    wd = Watchdog(1000, 1500, 50, "drop")
    assert (wd.detection_s, wd.restoration_s, wd.poll_s) == (1.0, 1.5, 0.05)
    assert dataclasses.replace(wd, poll_ms=200).poll_s == 0.2


def test_watchdog_times_in_polls() -> None:
    """The smallest whole number of polls covering the time, at least one (NX-OS multipliers, Cumulus robustness,
    Junos detection): 200 ms at a 200 ms poll → 1; 200 at 100 → 2; 250 at 100 → 3; 50 at 100 → 1."""
    got = [(w.detection_polls, w.restoration_polls) for w in
           (Watchdog(200, 200, 200, "drop"), Watchdog(200, 250, 100, "drop"), Watchdog(250, 50, 100, "drop"))]
    assert got == [(1, 1), (2, 3), (3, 1)]


def test_tx_queues_follow_replace(tmp_path: Path) -> None:
    q = build_qos(run_data(tmp_path, base_inventory()).inventory)  # type: ignore[arg-type]
    assert all(t.ecn is None for t in dataclasses.replace(q, ecn=None).tx_queues)
