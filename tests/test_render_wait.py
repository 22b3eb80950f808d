"""A second `fabric render` into the same place waits for the first (issue 28): the README promises it waits up to
60 s (railfabric.emit.outdir.LOCK_WAIT_S) and then exits 2; it used to render at once and then exit 2 with "another
fabric render wrote it while this one ran (EBUSY)". The lock is a flock on the output's parent directory, held by
another process here (a small Python program), as another render would hold it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.emit import outdir
from tests.helpers import EXAMPLE, ROOT

HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _hold(folder: Path, seconds: float) -> subprocess.Popen[str]:
    """A process holding the render lock of `folder`'s outputs for `seconds` (returns once it holds it)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), str(seconds)], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "locked\n"
    return proc


def _render(out: Path) -> list[str]:
    return ["render", str(EXAMPLE), "--out", str(out), "--workers", "1"]


def test_a_render_waits_for_a_lock_released_after_a_second(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    holder = _hold(tmp_path, 1.0)
    try:
        start = time.monotonic()
        assert main(_render(tmp_path / "gen")) == 0
        waited = time.monotonic() - start
    finally:
        holder.wait()
    err = capsys.readouterr().err
    assert f"fabric: waiting for another fabric render (process {holder.pid}: " in err
    assert f"to finish with {tmp_path / 'gen'} (0 s of at most 60 s)" in err
    assert waited >= 0.5  # it did wait (the holder kept the lock about 1 s after saying so)
    assert (tmp_path / "gen" / "manifest.json").is_file()


def test_a_render_gives_up_after_the_timeout_naming_the_holder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(outdir, "LOCK_WAIT_S", 0.5)
    holder = _hold(tmp_path, 60)
    try:
        assert main(_render(tmp_path / "gen")) == 2
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith(f"fabric: {tmp_path / 'gen'}: another fabric render (process {holder.pid}: "
                              f"{sys.executable} -c ")  # its command line, escaped: the program's newlines as \\n
    assert err[-1].endswith("is still writing it after 0.5 s; nothing was written: run again when it has finished "
                            "(EAGAIN)")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no output, no staging directory left


def test_two_renders_started_together_both_succeed(tmp_path: Path) -> None:
    """Both start while the lock is held, so both would read the (empty) output before either writes; before, the
    second to write found the first's output and exited 2 (EBUSY). Now the second waits, then finds it up to date."""
    holder = _hold(tmp_path, 3.0)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "railfabric.cli", *_render(tmp_path / "gen")]
    try:
        renders = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                   for _ in range(2)]
        results = [(r.wait(timeout=120), r.stdout.read() if r.stdout else "", r.stderr.read() if r.stderr else "")
                   for r in renders]
    finally:
        holder.kill()
        holder.wait()
    assert [rc for rc, _out, _err in results] == [0, 0], results
    outs = sorted(out.splitlines()[-1] for _rc, out, _err in results)
    gen = tmp_path / "gen"
    files = sum(len(names) for _d, _s, names in os.walk(gen))  # every file the example renders, the manifest too
    assert outs == [f"{gen}/ unchanged ({files:,} files)",
                    f"{gen}/ updated: 0 changed, {files} added, 0 removed ({files:,} files)"]


def test_a_forked_child_does_not_keep_the_lock(tmp_path: Path) -> None:
    """Render workers and the background hashing are forked while the render holds its lock; one that outlives the
    render (killed parent, slow exit) must not keep later renders waiting: children close their copy at fork."""
    out = tmp_path / "gen"
    with outdir.render_lock(out):
        child = os.fork()
        if child == 0:  # pragma: no cover - the child only sleeps
            time.sleep(5)
            os._exit(0)
    try:
        probe = subprocess.run([sys.executable, "-c", "import fcntl, os, sys\n"
                                "fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)\n"
                                "fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)", str(tmp_path)], check=False)
        assert probe.returncode == 0  # free while the child still lives (it would raise BlockingIOError)
    finally:
        os.kill(child, 9)
        os.waitpid(child, 0)
