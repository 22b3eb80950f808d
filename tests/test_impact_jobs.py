"""Jobs for `fabric impact --jobs`: Slurm host lists, the jobs file, the ring all-reduce model, and the command
(exit codes, JSON, errors) on the shipped example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.impact import JobsError, Resolver, expand_hostlist, impact, load_jobs
from railfabric.pipeline import Result, run
from tests.helpers import EXAMPLE


@pytest.mark.parametrize(("text", "names"), [
    ("p1-s1-gpu001", ["p1-s1-gpu001"]),
    ("p1-s1-gpu[001-003]", ["p1-s1-gpu001", "p1-s1-gpu002", "p1-s1-gpu003"]),
    ("p1-s1-gpu[009-011,015]", ["p1-s1-gpu009", "p1-s1-gpu010", "p1-s1-gpu011", "p1-s1-gpu015"]),
    ("p1-s[1-2]-gpu[001-002]", ["p1-s1-gpu001", "p1-s1-gpu002", "p1-s2-gpu001", "p1-s2-gpu002"]),
    ("a[8-10],b", ["a8", "a9", "a10", "b"]),  # no padding in the lower bound: none added
    ("n[098-101]", ["n098", "n099", "n100", "n101"]),
])
def test_hostlist(text: str, names: list[str]) -> None:
    assert expand_hostlist(text) == names


@pytest.mark.parametrize("text", ["a[1-", "a]1", "a[1-x]", "a[3-1]", "a[[1]]", "a,,b", "a[]"])
def test_hostlist_refused(text: str) -> None:
    with pytest.raises(ValueError):
        expand_hostlist(text)


@pytest.fixture(scope="module")
def example() -> Result:
    return run(EXAMPLE)


def _jobs(tmp_path: Path, text: str, example: Result) -> list:
    f = tmp_path / "jobs.yml"
    f.write_text(text, encoding="utf-8")
    assert example.topology is not None
    return load_jobs(f, example.topology.hosts)


def test_jobs_file_errors(tmp_path: Path, example: Result) -> None:
    with pytest.raises(JobsError, match=r"unknown host\(s\): 'p1-s1-gpu017' \(did you mean p1-s1-gpu016"):
        _jobs(tmp_path, "a: p1-s1-gpu[015-017]\n", example)
    with pytest.raises(JobsError, match="a mapping of job name"):
        _jobs(tmp_path, "- p1-s1-gpu001\n", example)
    with pytest.raises(JobsError, match="job 'a': bad range"):
        _jobs(tmp_path, "a: p1-s1-gpu[0x1]\n", example)


def test_jobs_ring_allreduce(tmp_path: Path, example: Result) -> None:
    """Job a: the 16 hosts of segment 1/1; b: hosts 1-4 of segments 1/1 and 1/2; c: the rail-only pod 3.
    - p1-s1-rail3 down: a and b lose NIC 3 on their segment-1/1 hosts: 16 and 4 GPUs isolated, they stall; PXN off
      0 %; PXN on (after a restart) each such host keeps 7 of 8 NICs: 87.5 %. c is untouched.
    - p1-spine1 down: nobody isolated; a stays inside segment 1/1 (no uplink on its rings): untouched; b spans two
      segments: every ring hop out of a segment shares 75 % of the uplinks: 75 % with PXN off and on."""
    assert example.inventory is not None and example.topology is not None and example.plan is not None
    jobs = _jobs(tmp_path, "a: p1-s1-gpu[001-016]\nb: ['p1-s1-gpu[001-004]', 'p1-s2-gpu[001-004]']\n"
                           "c: p3-s1-gpu[001-008]\n", example)
    r = Resolver(example.topology)
    out = impact(example.inventory, example.topology, example.plan, r.resolve(["p1-s1-rail3"]), jobs)["jobs"]
    assert out["total"] == 3 and out["stalled"] == ["a", "b"]
    a, b = out["affected"]
    assert (a["job"], a["gpus_isolated"], a["allreduce_left_pct_pxn_off"], a["allreduce_left_pct_pxn_on"]) == \
        ("a", 16, 0.0, 87.5)
    assert (b["job"], b["gpus_isolated"], b["hosts_hit"]) == ("b", 4, [f"p1-s1-gpu00{n}" for n in range(1, 5)])
    out = impact(example.inventory, example.topology, example.plan, r.resolve(["p1-spine1"]), jobs)["jobs"]
    (b,) = out["affected"]
    assert (b["job"], b["stalls"], b["allreduce_left_pct_pxn_off"], b["allreduce_left_pct_pxn_on"]) == \
        ("b", False, 75.0, 75.0)


def test_command_exit_codes_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["impact", str(EXAMPLE), "--down", "p1-s1-rail3", "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["isolated"]["gpus"] == 16 and out["isolated"]["by_rail"] == {"3": 16} and out["gpus"] == 448
    assert main(["impact", str(EXAMPLE), "--down", "p1-spine1"]) == 0
    text = capsys.readouterr().out
    assert "GPUs isolated from their rail: 0 of 448" in text and "pod 1 rail tier: 76.8T of 102.4T (75 %)" in text
    assert main(["impact", str(EXAMPLE), "--down", "p1-spine9"]) == 2
    err = capsys.readouterr().err
    assert "unknown switch, link, port or NIC: 'p1-spine9' (did you mean p1-spine4" in err
    jobs = tmp_path / "jobs.json"
    jobs.write_text(json.dumps({"a": "p1-s1-gpu[001-016]"}))
    assert main(["impact", str(EXAMPLE), "--down", "p1-s1-rail0", "--jobs", str(jobs)]) == 1
    assert "a: STALLS (16 GPU(s) isolated)" in capsys.readouterr().out
    assert main(["impact", str(EXAMPLE), "--maintenance", "p1-spine1", "p1-spine2"]) == 0
    assert "2 item(s) in 1 wave(s) (the fewest possible" in capsys.readouterr().out
    assert main(["impact", str(EXAMPLE), "--down", "p1-spine1", "--jobs", str(tmp_path / "none.yml")]) == 2
    assert "cannot read" in capsys.readouterr().err
