"""A closed stdout never turns a failure into a success (issue 28, item 3): `set -o pipefail; fabric ... | head -1`
exits with the code the command has without the pipe (README's table: 1 errors, 2 unusable input, 3 stale), with no
traceback and no "Exception ignored ... BrokenPipeError" from the interpreter's last flush.

Each command runs as the console script does (`python -m railfabric.cli`, railfabric.cli.run) in two ways:
- `| head -1` under bash's pipefail, as a CI gate would write it. Whether the write fails depends on how much is
  printed before head leaves (a pipe holds 64 KiB), so this alone cannot fail for a short output;
- into a pipe whose reader was closed before the command started: its first write (or the final flush) always
  fails with EPIPE, whatever the output's size. This is the one that failed before the fix (exit 0)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from railfabric.cli import main
from tests.helpers import EXAMPLE, ROOT

CMD = [sys.executable, "-m", "railfabric.cli"]


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Inventories and output directories that make each command fail its own way."""
    base = tmp_path_factory.mktemp("closed")
    many = base / "many"  # 3,000 unknown top-level keys: 1,000 SCH001 errors shown (~220 KB, more than a pipe holds)
    shutil.copytree(EXAMPLE, many)
    (many / "extra.yml").write_text("".join(f"unknown_key_{i}: 1\n" for i in range(3000)))
    broken = base / "broken"  # a YAML syntax error: unusable input, exit 2
    shutil.copytree(EXAMPLE, broken)
    (broken / "extra.yml").write_text("a: [1, 2\n")
    out = base / "out"
    assert main(["render", str(EXAMPLE), "--out", str(out), "-q", "--workers", "1"]) == 0
    stale = base / "stale"  # one config edited and cabling.csv grown: render --check exits 3
    shutil.copytree(out, stale)
    with open(stale / "cabling.csv", "a") as fh:
        fh.write("x\n")
    frr = stale / "configs" / "p1-s1-rail0" / "frr.conf"
    frr.write_text(frr.read_text().replace("router bgp", "router  bgp"))
    vbad = base / "vbad"  # p1-s1-rail0's ports at MTU 1500 against 9216 at the spines: verify FAILs (exit 1)
    shutil.copytree(out, vbad)
    db = vbad / "configs" / "p1-s1-rail0" / "config_db.json"
    db.write_text(db.read_text().replace('"9216"', '"1500"'))
    foreign = base / "foreign"  # not railfabric's: render refuses it (exit 2)
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine\n")
    return {"many": many, "broken": broken, "out": out, "stale": stale, "vbad": vbad, "foreign": foreign,
            "new": base / "new"}


# (arguments with {placeholders}, the exit code without a pipe: README's table)
CASES = [
    ("validate {many}", 1),
    ("validate {many} --format json", 1),
    ("validate {broken}", 2),
    ("render --check --out {stale} {example}", 3),
    ("render --check --out {out} {many}", 1),
    ("render --out {new} {many} --workers 1", 1),
    ("render --out {foreign} {example} --workers 1", 2),
    ("plan --out {stale} {example}", 0),  # plan reports differences with 0
    ("plan --out {out} {many}", 1),
    ("verify --no-frr {vbad}", 1),
    ("show p1-s1-rail0 {example}", 0),
    ("show nosuch {example}", 2),
    ("schema", 0),
    ("report {many}", 1),
    ("explain", 0),
    ("explain NOPE", 2),
    ("size --gpus 1024 --host-model dgx-h100 --switch-model sn5600 --inventory", 0),
]


def _argv(spec: str, places: dict[str, Path]) -> list[str]:
    return [part.format(example=EXAMPLE, **places) for part in spec.split()]


def _clean_stderr(err: str) -> None:
    assert "Traceback" not in err and "Exception ignored" not in err and "BrokenPipe" not in err, err
    assert "internal error" not in err, err


@pytest.mark.parametrize(("spec", "code"), CASES, ids=[c[0] for c in CASES])
def test_exit_code_survives_a_reader_that_closed_first(places: dict[str, Path], spec: str, code: int) -> None:
    read, write = os.pipe()
    os.close(read)  # every write to `write` now fails with EPIPE
    try:
        proc = subprocess.run([*CMD, *_argv(spec, places)], stdout=write, stderr=subprocess.PIPE, text=True,
                              cwd=ROOT, timeout=300, check=False)
    finally:
        os.close(write)
    _clean_stderr(proc.stderr)
    assert proc.returncode == code


@pytest.mark.parametrize(("spec", "code"), CASES, ids=[c[0] for c in CASES])
def test_exit_code_survives_head_under_pipefail(places: dict[str, Path], spec: str, code: int) -> None:
    line = " ".join(shlex.quote(a) for a in [*CMD, *_argv(spec, places)])
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", f"{line} | head -1"], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, check=False)
    _clean_stderr(proc.stderr)
    assert proc.returncode == code
    assert proc.stdout.count("\n") <= 1


def test_stderr_closed_too(places: dict[str, Path]) -> None:
    """`2>&1 | head -1`: the error lines themselves go to the closed pipe; the exit code is still 1."""
    line = " ".join(shlex.quote(a) for a in [*CMD, "validate", str(places["many"])])
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", f"{line} 2>&1 | head -1"], capture_output=True,
                          text=True, cwd=ROOT, timeout=300, check=False)
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"{places['many']}/extra.yml:1:1: error SCH001")


def test_guarded_stream_stops_writing_after_the_first_broken_pipe() -> None:
    """railfabric.core.streams.Guarded: the first EPIPE silences the stream (nothing more reaches the wrapped one)."""
    from railfabric.core.streams import Guarded

    class Closing:
        def __init__(self) -> None:
            self.writes: list[str] = []

        def write(self, text: str) -> int:
            self.writes.append(text)
            if len(self.writes) == 2:
                raise BrokenPipeError(32, "Broken pipe")
            return len(text)

        def flush(self) -> None:
            pass

        def fileno(self) -> int:
            raise OSError("no descriptor")

    inner = Closing()
    guarded = Guarded(inner)  # type: ignore[arg-type]
    assert guarded.write("one\n") == 4
    assert guarded.write("two\n") == 4  # failed inside, reported as written
    assert guarded.write("three\n") == 6
    guarded.flush()
    assert inner.writes == ["one\n", "two\n"] and guarded.broken
