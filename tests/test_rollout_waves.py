"""Maintenance waves into the rollout: `fabric impact --maintenance ... --emit-waves FILE` writes the waves as an
Ansible vars file and the real ansible-playbook orders the rollout by it (`-e @FILE`), or refuses it before anything
is sent (`--tags plan`: only the batch listing and the checks run, no switch is contacted).

The example's pod 1 rail switches (docs/impact.md, derived there by hand): every NIC is single-homed, so each switch
costs its own rails whatever else is down; what a wave must avoid is a host losing all 8 NICs. First fit in the order
given puts p1-s1-rail0, 2, 4, 6 (rails 0, 2, 4, 6 of segment 1) and p1-s2-rail0-4, p1-s2-rail2-6 (rails 0, 4, 2, 6
of segment 2) in wave 1: every host keeps 4 of its 8 NICs; p1-s1-rail1 cannot join (it is admissible, but the
balanced pass of waves.py keeps the first-fit number of waves, 2, and places each item in the wave with the fewest
items), so wave 2 is the odd rails.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers import EXAMPLE, ROOT
from tests.rollout_support import ansible_env, playbook

POD1_RAIL = [f"p1-s1-rail{r}" for r in range(8)] + ["p1-s2-rail0-4", "p1-s2-rail1-5", "p1-s2-rail2-6",
                                                    "p1-s2-rail3-7"]
WAVE1 = ["p1-s1-rail0", "p1-s1-rail2", "p1-s1-rail4", "p1-s1-rail6", "p1-s2-rail0-4", "p1-s2-rail2-6"]
WAVE2 = ["p1-s1-rail1", "p1-s1-rail3", "p1-s1-rail5", "p1-s1-rail7", "p1-s2-rail1-5", "p1-s2-rail3-7"]


def _fabric(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "railfabric.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    tmp = tmp_path_factory.mktemp("waves")
    gen = tmp / "generated"
    proc = _fabric("render", str(EXAMPLE), "--out", str(gen))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return gen, ansible_env(tmp / "ansible")  # the example has EOS switches: network_cli must resolve


def _plan(gen: Path, env: dict, *args: str) -> tuple[int, str]:
    out = playbook(gen, env, "--tags", "plan", *args, timeout=300)
    return out.returncode, " ".join((out.stdout + out.stderr).split())


def _batches(text: str) -> list[str]:
    return re.findall(r'"msg": "([^"]*)"', text)


def test_emit_waves_file(tmp_path: Path) -> None:
    waves = tmp_path / "waves.yml"
    proc = _fabric("impact", str(EXAMPLE), "--maintenance", *POD1_RAIL, "--emit-waves", str(waves))
    assert proc.returncode == 0, proc.stderr
    data = yaml.safe_load(waves.read_text())
    assert data == {"rollout_maintenance_waves": [WAVE1, WAVE2]}
    assert f'--limit "{",".join(WAVE1 + WAVE2)}"' in waves.read_text()
    # an item that is not a switch: refused, nothing written
    bad = tmp_path / "bad.yml"
    proc = _fabric("impact", str(EXAMPLE), "--maintenance", "p1-spine1", "p1-s1-rail0>p1-spine1#1",
                   "--emit-waves", str(bad))
    assert proc.returncode == 2 and not bad.exists()
    assert "--emit-waves needs switches (the rollout pushes whole switches), not: 'p1-s1-rail0>p1-spine1#1'" \
        in proc.stderr
    # --emit-waves without --maintenance, and a file that cannot be written: exit 2, nothing written
    proc = _fabric("impact", str(EXAMPLE), "--down", "p1-spine1", "--emit-waves", str(bad))
    assert proc.returncode == 2 and "--emit-waves needs --maintenance" in proc.stderr and not bad.exists()
    proc = _fabric("impact", str(EXAMPLE), "--maintenance", "p1-spine1", "--emit-waves",
                   str(tmp_path / "no-such-dir" / "w.yml"))
    assert proc.returncode == 2 and "No such file or directory" in proc.stderr
    # a pattern name is written as the hostname the rollout inventory knows (ss1 is core-ss1)
    proc = _fabric("impact", str(EXAMPLE), "--maintenance", "ss1", "ss2", "--emit-waves", str(bad))
    assert proc.returncode == 0, proc.stderr
    assert yaml.safe_load(bad.read_text())["rollout_maintenance_waves"][0][0] == "core-ss1"


def test_playbook_follows_the_waves(rendered: tuple[Path, dict]) -> None:
    gen, env = rendered
    proc = _fabric("impact", str(EXAMPLE), "--maintenance", *POD1_RAIL, "--emit-waves", str(gen / "waves.yml"))
    assert proc.returncode == 0, proc.stderr
    limit = ",".join(WAVE1 + WAVE2)
    # one whole wave per batch
    rc, text = _plan(gen, env, "-e", f"@{gen / 'waves.yml'}", "-e", "rollout_batch=64", "--limit", limit)
    assert rc == 0, text[-2000:]
    assert _batches(text) == [", ".join(WAVE1), ", ".join(WAVE2)]
    assert "TASK [The switches of this batch]" in text  # what the refusals below must not reach
    # the default batch of 1: one switch at a time, wave 1 then wave 2 (not the rendered rollout order, which starts
    # p1-s1-rail0, p1-s1-rail1)
    rc, text = _plan(gen, env, "-e", f"@{gen / 'waves.yml'}", "--limit", limit)
    assert rc == 0, text[-2000:]
    assert _batches(text) == WAVE1 + WAVE2
    # batches of 4: 4 + 2 per wave, never across the two waves
    rc, text = _plan(gen, env, "-e", f"@{gen / 'waves.yml'}", "-e", "rollout_batch=4", "--limit", limit)
    assert rc == 0, text[-2000:]
    assert _batches(text) == [", ".join(WAVE1[:4]), ", ".join(WAVE1[4:]), ", ".join(WAVE2[:4]),
                              ", ".join(WAVE2[4:])]


def test_playbook_refuses_a_file_that_does_not_cover_the_run(rendered: tuple[Path, dict]) -> None:
    gen, env = rendered
    (gen / "two.yml").write_text(yaml.safe_dump({"rollout_maintenance_waves": [WAVE1, WAVE2]}))
    # no --limit: the run would push every switch of the example (22 rail switches, 8 spines, 4 super-spines: 34),
    # 22 of them in no wave, listed in the rendered rollout order (rollout_plan.yml: wave 2 p2-s1-rail0-1-2-3,
    # p3-s1-rail0, wave 3 p2-s1-rail4-5-6-7, p3-s1-rail1, waves 4-9 p3-s1-rail2..7, wave 10 p1-spine1, p2-spine1);
    # refused in the first batch, before its switch list is even shown
    rc, text = _plan(gen, env, "-e", f"@{gen / 'two.yml'}")
    assert rc != 0
    p3 = ", ".join(f"p3-s1-rail{r}" for r in range(2, 8))
    assert ("the waves file cannot order this rollout: 22 switch(es) this run would push are in no wave: "
            f"p2-s1-rail0-1-2-3, p3-s1-rail0, p2-s1-rail4-5-6-7, p3-s1-rail1, {p3}, p1-spine1, p2-spine1, ...; "
            "limit the run to the waves' switches") in text, text[-2000:]
    assert "TASK [The switches of this batch]" not in text  # refused before the batch is listed
    # a switch of the file that the inventory does not have
    (gen / "typo.yml").write_text(yaml.safe_dump({"rollout_maintenance_waves": [["p1-s1-rail0", "p1-s1-rial1"]]}))
    rc, text = _plan(gen, env, "-e", f"@{gen / 'typo.yml'}", "--limit", "p1-s1-rail0")
    assert rc != 0 and "not switches of this inventory's rollout: p1-s1-rial1" in text, text[-2000:]
    # a switch in two waves, and a file of the wrong shape: refused when the play is read
    (gen / "twice.yml").write_text(yaml.safe_dump({"rollout_maintenance_waves": [["p1-s1-rail0"], ["p1-s1-rail0"]]}))
    rc, text = _plan(gen, env, "-e", f"@{gen / 'twice.yml'}", "--limit", "p1-s1-rail0")
    assert rc != 0 and "rollout_maintenance_waves has p1-s1-rail0 in more than one wave" in text, text[-2000:]
    (gen / "shape.yml").write_text(yaml.safe_dump({"rollout_maintenance_waves": ["p1-s1-rail0"]}))
    rc, text = _plan(gen, env, "-e", f"@{gen / 'shape.yml'}", "--limit", "p1-s1-rail0")
    assert rc != 0 and "rollout_maintenance_waves must be a list of waves, each a non-empty list" in text, text[-2000:]
    assert "The switches of this batch" not in text


def test_a_batch_never_spans_two_maintenance_waves(rendered: tuple[Path, dict]) -> None:
    gen, env = rendered
    (gen / "two.yml").write_text(yaml.safe_dump({"rollout_maintenance_waves": [WAVE1, WAVE2]}))
    # --limit drops a switch of wave 1: the serial sizes are still the waves' (6, 6), so with batches of 6 the first
    # batch would take wave 1's 5 switches and wave 2's first one: refused
    limit = ",".join(WAVE1[1:] + WAVE2)
    rc, text = _plan(gen, env, "-e", f"@{gen / 'two.yml'}", "-e", "rollout_batch=6", "--limit", limit)
    assert rc != 0
    assert f"batch {', '.join(WAVE1[1:] + WAVE2[:1])} spans waves 1, 2" in text, text[-2000:]


def test_wave_filters() -> None:
    from railfabric.outputs import ansible_filters as f

    waves = [["a", "b"], ["c"]]
    assert f.rf_wave_pattern([]) == "rollout"
    assert f.rf_wave_pattern(waves) == "a,b,c,rollout"
    assert f.rf_wave_sizes([], [1, 4]) == [1, 4]
    assert f.rf_wave_sizes(waves, [1, 4]) == [2, 1]
    assert f.rf_wave_numbers(["c", "a", "x"], waves, [5, 5, 5]) == [2, 1, 0]
    assert f.rf_wave_numbers(["c", "a", "x"], [], [3, 1, 2]) == [3, 1, 2]  # no waves: the rendered plan's
    assert f.rf_waves_problems(waves, ["a", "b", "c", "d"], ["a", "b", "c"]) == []
    assert f.rf_waves_problems([], ["a"], ["a", "z"]) == []  # no waves file: the rendered order, nothing to refuse
    assert f.rf_waves_problems(waves, ["a", "b", "d"], ["a", "b", "d"]) == [
        "not switches of this inventory's rollout: c",
        "1 switch(es) this run would push are in no wave: d; limit the run to the waves' switches (--limit as the "
        "waves file's first lines say) or add them to the maintenance set"]
    for bad in ("a", [["a"], []], [["a", 1]], [["a"], ["a"]]):
        with pytest.raises(f.FilterError):
            f.rf_wave_pattern(bad)
