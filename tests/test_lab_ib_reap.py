"""A killed InfiniBand lab is reaped by the next run (railfabric/infiniband/labruns.py): the lab runs in a child
process, which is SIGKILLed while ibsim and both OpenSMs run; the next run in this process removes exactly them
and the scratch directory, and says so. Needs ibsim-utils, opensm and infiniband-diags (skips otherwise).

The fabric: rail_fat_tree(hosts=2, rails=2, spines=2, ports=8): spine1 and spine2 run an SM each. At the kill the
child has started 3 processes (ibsim, the master OpenSM on spine1, the standby on spine2) and no diagnostic client
(it waits inside the route check, after dump_fts has ended): 3 processes and 1 scratch directory to reap.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import railfabric.infiniband.lab as lab
from railfabric.cli import main
from railfabric.infiniband.build import rail_fat_tree
from railfabric.infiniband.sim import missing

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")

CHILD = """
import sys, time
from pathlib import Path
import railfabric.infiniband.lab as lab
from railfabric.cli import main
from railfabric.infiniband.build import rail_fat_tree

def hang(*args, **kwargs):
    Path(sys.argv[1]).write_text("in the route check")
    time.sleep(600)

lab.check_routes = hang
lab.run_ib_lab(rail_fat_tree("reap", hosts=2, rails=2, spines=2, ports=8))
"""


def _pgrep(pattern: str) -> list[str]:
    out = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True)
    return out.stdout.split()


def _kill_a_lab_midway(runs: Path, tmp_path: Path) -> dict:
    """Run the lab in a child process and SIGKILL it once both SMs run; returns the dead run's record."""
    marker = tmp_path / "hanging"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(marker)], env={**os.environ},
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, child.stdout.read() if child.stdout else ""
            assert time.monotonic() < deadline, "the child lab did not reach the route check in 60 s"
            time.sleep(0.1)
        record: dict = json.loads(next(runs.glob("*.json")).read_text())
        assert len(record["pids"]) == 3  # ibsim, 2 x opensm
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return record


def test_a_killed_lab_is_reaped_by_the_next_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = tmp_path / "runs"
    monkeypatch.setenv("RAILFABRIC_IB_RUNS", str(runs))
    record = _kill_a_lab_midway(runs, tmp_path)
    run = record["run"]
    # left behind: the three processes (their command lines name the run's scratch directory) and the directory
    scratch = Path(record["dirs"][0])
    assert scratch.is_dir()
    assert len(_pgrep(f"railfabric-ib-{run}-")) == 3

    res = lab.run_ib_lab(rail_fat_tree("next", hosts=2, rails=2, spines=2, ports=8))
    assert res.notes == [f"reaped IB lab run {run} (its process was killed): 3 process(es), 1 scratch directory"]
    assert res.ok, lab.format_result(res)
    assert _pgrep(f"railfabric-ib-{run}-") == []
    assert not scratch.exists()
    assert sorted(p.name for p in runs.iterdir()) == []  # both runs' records and locks are gone


def test_fabric_lab_teardown_reaps_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "runs"
    monkeypatch.setenv("RAILFABRIC_IB_RUNS", str(runs))
    record = _kill_a_lab_midway(runs, tmp_path)
    run = record["run"]
    assert len(_pgrep(f"railfabric-ib-{run}-")) == 3
    inventory = Path(__file__).resolve().parents[1] / "examples" / "infiniband" / "inventory"
    assert main(["lab", str(inventory), "--teardown"]) == 0
    assert capsys.readouterr().out == (f"reaped IB lab run {run} (its process was killed): 3 process(es), "
                                       "1 scratch directory\n")
    assert _pgrep(f"railfabric-ib-{run}-") == []
    assert not Path(record["dirs"][0]).exists()
    assert list(runs.iterdir()) == []


def test_sigterm_tears_the_lab_down_itself(tmp_path: Path) -> None:
    # `fabric lab` on the InfiniBand example, SIGTERMed once both SMs run: the command turns the signal into
    # SystemExit(128 + 15 = 143), the lab's teardown runs, and nothing is left for a reaper (no record, no process,
    # no directory)
    runs = tmp_path / "runs"
    inventory = Path(__file__).resolve().parents[1] / "examples" / "infiniband" / "inventory"
    child = subprocess.Popen([sys.executable, "-m", "railfabric.cli", "lab", str(inventory)],
                             env={**os.environ, "RAILFABRIC_IB_RUNS": str(runs)}, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        record: dict = {}
        while len(record.get("pids", {})) < 3:
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the lab did not start both SMs in 120 s"
            time.sleep(0.1)
            found = list(runs.glob("*.json")) if runs.exists() else []
            try:
                record = json.loads(found[0].read_text()) if found else {}
            except ValueError:  # replaced while read
                record = {}
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=60) == 143
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert _pgrep(f"railfabric-ib-{record['run']}-") == []
    assert not Path(record["dirs"][0]).exists()
    assert list(runs.iterdir()) == []
