"""BFD timers and BGP session keys (routing.bfd_timers, routing.authentication) in the FRR lab (root): what FRR runs
is what tests/test_sessions.py derives for the rendered files (the fabric and the derivations are described there).
In a file of its own so that `make test` runs it with the other lab files (tests/tools/suite.sh)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.test_sessions import _data, _run

NOT_ROOT = "the FRR lab needs root (network namespaces, FRR daemons); CI runs it as root"


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("vtysh") is None, reason=NOT_ROOT)
@pytest.mark.parametrize("fault", [None, "auth"])
def test_lab_runs_the_keys_and_timers(tmp_path: Path, fault: str | None) -> None:
    """The base fabric (2 rail switches × 2 spines: 4 sessions, all rail_spine) with TCP MD5 on rail_spine and
    200 ms × 4: every session Established with the key (the kernel's TCP MD5, CONFIG_TCP_MD5SIG, in the namespaces)
    and FRR running 200/200/4 at both ends (8 BFD peers). With --fault auth one end of p1-s1-rail0's session to
    p1-spine1 has another key: that session stays down and the lab names it."""
    from railfabric.lab import format_result, run_lab, teardown_saved
    from railfabric.lab.runs import new_run_id

    routing = {"bfd_timers": {"interval_ms": 200, "multiplier": 4},
               "authentication": {"rail_spine": {"password": {"vault": "bgp_rail_key"}}}}
    res = _run(tmp_path, _data("sonic", routing, mlag=False))
    rid = new_run_id()
    try:
        r = run_lab(res, faults=[fault] if fault else [], say=lambda _m: None, run_id=rid)
    finally:
        teardown_saved(run=rid)
    print(format_result(r))
    counts = r.counts()
    assert counts["bfd-timers"] == 8 and not r.checks["bfd-timers"].bad
    if fault is None:
        assert r.ok and r.verdict == "PASS" and counts["sessions"] == 4
        return
    assert r.verdict == "FAIL"
    (f,) = r.spec.faults
    assert r.checks["sessions"].bad == [next(b for b in r.checks["sessions"].bad
                                             if b.startswith("p1-s1-rail0 10.32.0.1 <-> p1-spine1 10.32.0.0: "))]
    assert "sessions" in r.caught_by(f)
    assert "fault auth at p1-s1-rail0:neighbor 10.32.0.0: DETECTED by sessions" in format_result(r)
    stray = [b for c in r.checks.values() for b in c.bad if not any(m in b for m in f.marks)]
    assert not stray, stray


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("vtysh") is None, reason=NOT_ROOT)
def test_lab_auth_fault_on_an_unnumbered_fabric(tmp_path: Path) -> None:
    """The same base fabric unnumbered (routing.addressing, RFC 8950): an unnumbered neighbour is named by its
    interface, so the fault's password line is `neighbor <interface> password ...`. p1-s1-rail0's first uplink is
    port 33 (uplinks 33-64 of the 64-port model), SONiC's Ethernet256 (8 lanes per port: (33 - 1) × 8), toward
    p1-spine1: that session stays down and the lab names it; every mismatch is the fault's."""
    from railfabric.lab import format_result, run_lab, teardown_saved
    from railfabric.lab.runs import new_run_id

    routing = {"addressing": "unnumbered", "authentication": {"rail_spine": {"password": {"vault": "bgp_rail_key"}}}}
    res = _run(tmp_path, _data("sonic", routing, mlag=False))
    rid = new_run_id()
    try:
        r = run_lab(res, faults=["auth"], say=lambda _m: None, run_id=rid)
    finally:
        teardown_saved(run=rid)
    (f,) = r.spec.faults
    assert f.where == "p1-s1-rail0:neighbor Ethernet256" and f.marks[0].startswith("p1-s1-rail0 Ethernet256 <-> ")
    assert r.verdict == "FAIL" and "sessions" in r.caught_by(f), format_result(r)
    assert len(r.checks["sessions"].bad) == 1
    assert not [b for c in r.checks.values() for b in c.bad if not any(m in b for m in f.marks)]
