"""Schema-agnostic mutation fuzz over the shipped inventory (see tests/fuzzing.py for the mutator and invariants),
and the output-directory and stdout classes of issue 28 (tests/fuzzing_outdir.py).

Default run: FUZZ_CASES=300 seeds (about half a minute). `make fuzz` runs thousands: FUZZ_CASES=5000 FUZZ_SEED=N.
A failure names the seed and the mutations; `FUZZ_ONLY=<seed>` replays one case. Every mutant with a number at the
limits (and every twentieth) is also rendered by the CLI into a copy of a rendered tree: render exits as validate does
and leaves the tree byte-identical when it fails. The symlink and manifest classes run CASES // 50 seeds each (6 by
default, 100 under `make fuzz`), the closed-stdout class a fixed set of commands.
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.core.finding import Severity
from railfabric.emit.build import build_files
from railfabric.inventory.load import load_inventory
from railfabric.pipeline import run
from tests.fuzzing import Mutant, load_base, mutant, output_problems, time_limit
from tests.fuzzing_outdir import (
    exit_codes_with_stdout_gone,
    hostile_manifest,
    plant_symlink,
    printed_problems,
    run_cli,
    snapshot,
)
from tests.helpers import EXAMPLE

CASES = int(os.environ.get("FUZZ_CASES", "300"))
FIRST = int(os.environ.get("FUZZ_SEED", "0"))
ONLY = os.environ.get("FUZZ_ONLY")
CHUNK = 50
SEEDS = [int(ONLY)] if ONLY else list(range(FIRST, FIRST + CASES))
CHUNKS = [SEEDS[i:i + CHUNK] for i in range(0, len(SEEDS), CHUNK)]
FORMATS = ["text", "json", "sarif", "github"]
SEEN: dict = {"cases": 0, "clean": 0, "kinds": set(), "rendered": 0, "snapshot": {}}
OUTDIR_SEEDS = [int(ONLY)] if ONLY else list(range(FIRST, FIRST + max(CASES // 50, 6)))


@pytest.fixture(scope="module")
def base():
    return load_base(EXAMPLE)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example rendered once: each case works on a copy."""
    out = tmp_path_factory.mktemp("fuzz-rendered") / "generated"
    rc, _out, err = run_cli(["render", "-q", str(EXAMPLE), "--out", str(out)])
    assert rc == 0, err
    return out


def _render_agrees(m: Mutant, inv: Path, rendered: Path, validate_rc: int) -> list[str]:
    """`render` of the mutant into a copy of a rendered tree exits as validate did; on failure the tree is
    byte-identical. The copy is kept while renders fail (they must leave it as it was) and made afresh after one
    succeeded."""
    out = inv.parent / "out"
    if not out.exists():
        shutil.copytree(rendered, out, symlinks=True)
        SEEN["snapshot"] = snapshot(out)
    with time_limit(120):
        rc, _stdout, err = run_cli(["render", "-q", str(inv), "--out", str(out)])
    SEEN["rendered"] += 1
    bad = printed_problems(err, "render")[:1] if "internal error" in err else []
    if rc != validate_rc:
        bad.append(f"validate exited {validate_rc} but render {rc}: {err.strip()[-200:]}")
    if rc != 0 and snapshot(out) != SEEN["snapshot"]:
        bad.append(f"render failed ({rc}) and changed the output directory")
    if rc == 0 or bad:
        shutil.rmtree(out)
    return bad


def _check(m: Mutant, inv: Path, rendered: Path | None = None) -> tuple[list[str], bool]:
    """The invariant violations of one mutant, and whether it validated clean (and so was rendered)."""
    m.write(inv)
    bad: list[str] = []
    fmt = FORMATS[m.seed % len(FORMATS)]
    out, err = io.StringIO(), io.StringIO()
    with time_limit(30), redirect_stdout(out), redirect_stderr(err):
        rc = main(["validate", str(inv), "--format", fmt])
    if rc not in (0, 1, 2):
        bad.append(f"validate exited {rc}")
    if "internal error" in err.getvalue() or "Traceback" in err.getvalue():
        bad.append(f"validate crashed: {err.getvalue().strip()[-300:]}")
        return bad, False
    with time_limit(30):
        res = run(inv)
    for f in res.findings:
        if f.severity is Severity.ERROR and (f.location is None or not f.location.file or f.location.line < 1):
            bad.append(f"{f.code} has no file and line: {f.message[:120]}")
        if len(f.message) > 2000 or len(f.hint) > 2000 or "RFZ" * 20 in f.message + f.hint:
            bad.append(f"{f.code} quotes too much user text ({len(f.message)} characters)")
        if "\n" in f.message or "\n" in f.hint:
            bad.append(f"{f.code} spans lines")
    clean = not any(f.severity is Severity.ERROR for f in res.findings) and res.plan is not None
    if clean:
        try:
            with time_limit(60):
                files = build_files(res)
        except Exception as exc:  # anything that validates clean must render
            bad.append(f"validated clean but did not render: {type(exc).__name__}: {str(exc)[:200]}")
        else:
            bad += output_problems(files)
    if rendered is not None and (m.seed % 20 == 0 or any("edge-number" in w or "huge-number" in w for w in m.what)):
        bad += _render_agrees(m, inv, rendered, rc)
    return bad, clean


@pytest.mark.parametrize("seeds", CHUNKS, ids=[f"seeds{c[0]}-{c[-1]}" for c in CHUNKS])
def test_mutants_keep_the_invariants(base, rendered: Path, tmp_path: Path, seeds: list[int]) -> None:
    inv = tmp_path / "inventory"
    inv.mkdir()
    failures: list[str] = []
    for seed in seeds:
        m = mutant(base, seed)
        problems, clean = _check(m, inv, rendered)
        SEEN["cases"] += 1
        SEEN["clean"] += clean
        SEEN["kinds"] |= {w.split(": ", 1)[1].split(" at ")[0] for w in m.what}
        if problems:
            failures.append(f"seed {seed} ({'; '.join(m.what)}):\n    " + "\n    ".join(problems[:5]))
    assert not failures, f"{len(failures)} of {len(seeds)} mutants broke an invariant (replay: FUZZ_ONLY=<seed>)\n" \
        + "\n".join(failures[:10])


def test_the_mutator_reaches_every_kind_and_some_render() -> None:
    """The fuzz is only worth its run time if it covers every mutation kind and some mutants validate clean (so the
    output invariants are exercised on injected text that got through validation). Runs after the chunks above."""
    if SEEN["cases"] < 200:
        pytest.skip("needs the fuzz chunks above to have run (at least 200 cases)")
    kinds = SEEN["kinds"]
    assert {"payload", "append", "number", "wrong-type", "delete", "unknown-key", "duplicate", "swap",
            "edge-number"} <= kinds
    assert any(k.startswith("raw") for k in kinds)
    assert SEEN["clean"] >= 3, f"only {SEEN['clean']} of {SEEN['cases']} mutants validated clean"
    assert SEEN["rendered"] >= SEEN["cases"] // 20, "the CLI render check ran too rarely"


# --------------------------------------------------------------------------- the output directory and stdout


@pytest.mark.parametrize("seed", OUTDIR_SEEDS)
def test_a_symlink_in_the_output_directory_never_reaches_its_target(rendered: Path, tmp_path: Path,
                                                                     seed: int) -> None:
    out, victim = tmp_path / "generated", tmp_path / "victim"
    shutil.copytree(rendered, out, symlinks=True)
    what = plant_symlink(random.Random(seed), out, victim)
    before = snapshot(victim)
    check_rc, _check_out, check_err = run_cli(["render", "--check", str(EXAMPLE), "--out", str(out)])
    rc, _out, err = run_cli(["render", "-q", str(EXAMPLE), "--out", str(out)])
    problems = printed_problems(check_err + err, "render")
    if check_rc == 0:
        problems.append("render --check called a tree with a symlink into the victim up to date")
    if snapshot(victim) != before:
        problems.append("the victim changed")
    if rc == 0 and any(p.is_symlink() for p in out.rglob("*")):
        problems.append("render exited 0 and left a symlink in the output directory")
    assert not problems, f"seed {seed} ({what}): " + "; ".join(problems)


@pytest.fixture(scope="module")
def source_sha256() -> str:
    return load_inventory(EXAMPLE).source_sha256


@pytest.mark.parametrize("seed", OUTDIR_SEEDS)
def test_a_hostile_manifest_is_data_not_output(rendered: Path, source_sha256: str, tmp_path: Path,
                                               seed: int) -> None:
    out = tmp_path / "generated"
    shutil.copytree(rendered, out, symlinks=True)
    real = json.loads((out / "manifest.json").read_bytes())
    data, what = hostile_manifest(random.Random(seed), real, source_sha256)
    (out / "manifest.json").write_bytes(data)
    problems: list[str] = []
    with time_limit(120):
        for args in (["render", "--check"], ["plan"]):
            _rc, stdout, stderr = run_cli([*args, str(EXAMPLE), "--out", str(out)])
            problems += printed_problems(stdout + stderr, " ".join(args))
        rc, stdout, stderr = run_cli(["render", str(EXAMPLE), "--out", str(out)])
        problems += printed_problems(stdout + stderr, "render")
        if rc != 0:
            problems.append(f"render refused its own directory (exit {rc}): {stderr.strip()[-200:]}")
        elif run_cli(["render", "--check", str(EXAMPLE), "--out", str(out)])[0] != 0:
            problems.append("render --check is not clean after render")
    assert not problems, f"seed {seed} ({what}): " + "; ".join(problems)


@pytest.fixture(scope="module")
def stdout_cases(rendered: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[list[str], int]]:
    """Commands and the exit status each must keep: clean 0, errors 1, unusable input 2, stale 3."""
    tmp = tmp_path_factory.mktemp("stdout")
    broken = tmp / "broken"
    shutil.copytree(EXAMPLE, broken)
    fabric_yml = broken / "fabric.yml"
    fabric_yml.write_text(fabric_yml.read_text().replace("max_bytes: 1500000", f"max_bytes: {2**64}"))
    stale = tmp / "stale"
    shutil.copytree(rendered, stale, symlinks=True)
    with open(stale / "cabling.csv", "a") as f:
        f.write("stale\n")
    return {
        "validate clean": (["validate", str(EXAMPLE)], 0),
        "validate errors": (["validate", str(broken)], 1),
        "validate --all errors": (["validate", "--all", str(broken)], 1),
        "validate unusable": (["validate", str(tmp / "no-such-inventory")], 2),
        "render --check clean": (["render", "--check", str(EXAMPLE), "--out", str(rendered)], 0),
        "render --check stale": (["render", "--check", str(EXAMPLE), "--out", str(stale)], 3),
    }


@pytest.mark.parametrize("case", ["validate clean", "validate errors", "validate --all errors", "validate unusable",
                                  "render --check clean", "render --check stale"])
def test_a_closed_stdout_keeps_the_exit_status(stdout_cases: dict[str, tuple[list[str], int]], tmp_path: Path,
                                               case: str) -> None:
    args, expected = stdout_cases[case]
    codes = exit_codes_with_stdout_gone(args, tmp_path)
    assert codes == dict.fromkeys(("file", "closed", "no-reader", "head"), expected), codes
