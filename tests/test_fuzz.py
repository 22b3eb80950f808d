"""Schema-agnostic mutation fuzz over the shipped inventory (see tests/fuzzing.py for the mutator and invariants).

Default run: FUZZ_CASES=300 seeds (about half a minute). `make fuzz` runs thousands: FUZZ_CASES=5000 FUZZ_SEED=N.
A failure names the seed and the mutations; `FUZZ_ONLY=<seed>` replays one case.
"""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from fabric.cli import main
from fabric.core.finding import Severity
from fabric.emit import build_files
from fabric.pipeline import run
from tests.fuzzing import Mutant, load_base, mutant, output_problems, time_limit
from tests.helpers import EXAMPLE

CASES = int(os.environ.get("FUZZ_CASES", "300"))
FIRST = int(os.environ.get("FUZZ_SEED", "0"))
ONLY = os.environ.get("FUZZ_ONLY")
CHUNK = 50
SEEDS = [int(ONLY)] if ONLY else list(range(FIRST, FIRST + CASES))
CHUNKS = [SEEDS[i:i + CHUNK] for i in range(0, len(SEEDS), CHUNK)]
FORMATS = ["text", "json", "sarif", "github"]
SEEN: dict = {"cases": 0, "clean": 0, "kinds": set()}


@pytest.fixture(scope="module")
def base():
    return load_base(EXAMPLE)


def _check(m: Mutant, inv: Path) -> tuple[list[str], bool]:
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
    return bad, clean


@pytest.mark.parametrize("seeds", CHUNKS, ids=[f"seeds{c[0]}-{c[-1]}" for c in CHUNKS])
def test_mutants_keep_the_invariants(base, tmp_path: Path, seeds: list[int]) -> None:
    inv = tmp_path / "inventory"
    inv.mkdir()
    failures: list[str] = []
    for seed in seeds:
        m = mutant(base, seed)
        problems, clean = _check(m, inv)
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
    assert {"payload", "append", "number", "wrong-type", "delete", "unknown-key", "duplicate", "swap"} <= kinds
    assert any(k.startswith("raw") for k in kinds)
    assert SEEN["clean"] >= 3, f"only {SEEN['clean']} of {SEEN['cases']} mutants validated clean"
