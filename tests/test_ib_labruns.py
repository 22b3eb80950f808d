"""The IB lab's run records and reaper (railfabric/infiniband/labruns.py) without ibsim: what is and is not
reaped. The end-to-end case (a lab SIGKILLed mid-run, reaped by the next): tests/test_lab_ib_reap.py."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import pytest

from railfabric.infiniband import labruns
from railfabric.infiniband.labruns import start_time


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAILFABRIC_IB_RUNS", str(tmp_path / "runs"))
    return tmp_path / "runs"


def _dead(runs: Path, run: str, **record: object) -> None:
    """A record whose lock is free: its lab was killed."""
    runs.mkdir(parents=True, exist_ok=True)
    (runs / f"{run}.lock").write_text("")
    (runs / f"{run}.json").write_text(json.dumps({"run": run, "owner": 0, "owner_start": None,
                                                  "sockname": f"railfabric-ib-{run}", **record}))


def test_a_running_lab_is_left_alone(runs: Path) -> None:
    me = labruns.IbRun.claim()
    try:
        assert labruns.reap_dead() == []
        assert sorted(p.name for p in runs.iterdir()) == [f"{me.run}.json", f"{me.run}.lock"]
    finally:
        me.finish()
    assert list(runs.iterdir()) == []


def test_a_dead_run_loses_its_scratch_directory_and_record(runs: Path) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="railfabric-ib-dead01-"))
    _dead(runs, "dead01", dirs=[str(scratch)], pids={})
    assert labruns.reap_dead() == [labruns.Reaped("dead01", 0, 1)]
    assert not scratch.exists()
    assert list(runs.iterdir()) == []
    assert str(labruns.Reaped("dead01", 0, 1)) == ("reaped IB lab run dead01 (its process was killed): "
                                                   "0 process(es), 1 scratch directory")


def test_a_reused_pid_and_a_foreign_directory_are_not_touched(runs: Path, tmp_path: Path) -> None:
    # the record names a live process, but with another start time (the kernel reused the pid), and a directory
    # that is not the run's scratch directory (railfabric-ib-<id>-...): neither is the run's, both stay
    other = subprocess.Popen(["sleep", "30"])
    try:
        started = start_time(other.pid)
        assert started is not None
        foreign = tmp_path / "not-a-scratch-dir"
        foreign.mkdir()
        _dead(runs, "dead02", dirs=[str(foreign)], pids={str(other.pid): started + 1})
        assert labruns.reap_dead() == [labruns.Reaped("dead02", 0, 0)]
        assert other.poll() is None
        assert foreign.is_dir()
    finally:
        other.kill()
        other.wait()


def test_a_recorded_live_process_is_ended(runs: Path) -> None:
    proc = subprocess.Popen(["sleep", "30"])
    try:
        _dead(runs, "dead03", dirs=[], pids={str(proc.pid): start_time(proc.pid)})
        assert labruns.reap_dead() == [labruns.Reaped("dead03", 1, 0)]
        assert start_time(proc.pid) is None  # ended (and, a child of this process, waited for by the reaper)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
