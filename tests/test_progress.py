"""Progress (railfabric/core/progress.py, railfabric/core/progress_rich.py): a bar on a terminal, plain lines for logs,
nothing with -q or off a terminal, stdout untouched.

The example (inventory/) has 34 switches, counted by hand from its YAML (see tests/test_cli.py): 4 super-spines;
pod 1: 4 spines + 8 single-rail + 4 dual-rail (8 rails / 2) rail switches; pod 2: 4 spines + 2 multi-rail
(8 rails / 4); pod 3: 8 rail switches. 4 + 4 + 8 + 4 + 4 + 2 + 8 = 34.
"""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from railfabric.core.progress import PlainProgress, SilentProgress, for_cli
from tests.helpers import EXAMPLE, ROOT

SWITCHES = 34
ESC = re.compile(rb"\x1b\[")  # a CSI escape sequence (colour, cursor movement, line erase)


class Recorder:
    """A Progress that records every call: ('stage', text, total) / ('advance', n) / ('update', n) / ('note', t)."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []
        self.advanced: list[int] = []  # per stage, the sum of its advance(n)

    def stage(self, text: str, total: int | None = None) -> None:
        self.calls.append(("stage", text, total))
        self.advanced.append(0)

    def advance(self, n: int = 1) -> None:
        self.calls.append(("advance", n))
        self.advanced[-1] += n

    def update(self, completed: int) -> None:
        self.calls.append(("update", completed))

    def note(self, text: str) -> None:
        self.calls.append(("note", text))

    def close(self) -> None:
        self.calls.append(("close",))

    def stages(self) -> list[tuple[object, ...]]:
        return [c[1:] for c in self.calls if c[0] == "stage"]


def _untimed(text: str) -> list[str]:
    """PlainProgress lines without their '[  0.00s] ' time prefix (checked to be there)."""
    lines = text.splitlines()
    assert all(re.match(r"^\[ *\d+\.\d\ds\] ", ln) for ln in lines), lines
    return [ln.split("] ", 1)[1] for ln in lines]


# --------------------------------------------------------------------------- the three implementations


def test_plain_lines_a_stage_each_and_quarters_of_a_large_count() -> None:
    out = io.StringIO()
    p = PlainProgress(out)
    p.stage("loading inventory")
    p.stage("rendering", total=400)
    for _ in range(400):  # 100, 200, 300 are the quarters; 400 (done) prints nothing: the next stage follows
        p.advance()
    p.stage("small", total=8)  # under QUARTERS_FROM (100): no quarter lines
    for _ in range(8):
        p.advance()
    p.note("waiting for another fabric render")
    p.close()
    text = out.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert _untimed(text) == ["loading inventory", "rendering (400)", "  rendering: 100 of 400",
                              "  rendering: 200 of 400", "  rendering: 300 of 400", "small (8)",
                              "waiting for another fabric render"]


def test_plain_update_counts_down_and_up_without_repeating_a_quarter() -> None:
    out = io.StringIO()
    p = PlainProgress(out)
    p.stage("sessions", total=200)
    for done in (10, 60, 40, 110, 90, 160):  # quarters at 50 (60), 100 (110), 150 (160); 40 and 90 go back
        p.update(done)
    assert _untimed(out.getvalue()) == ["sessions (200)", "  sessions: 60 of 200", "  sessions: 110 of 200",
                                        "  sessions: 160 of 200"]


def test_plain_progress_from_many_threads_counts_every_unit() -> None:
    out = io.StringIO()
    p = PlainProgress(out)
    p.stage("pings", total=1000)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _i: p.advance(), range(1000)))
    lines = _untimed(out.getvalue())
    assert lines == ["pings (1,000)", "  pings: 250 of 1,000", "  pings: 500 of 1,000", "  pings: 750 of 1,000"]


def _pty_pair(cols: int = 120) -> tuple[int, int]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, cols, 0, 0))
    return master, slave


def _drain(master: int) -> bytes:
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer of the slave side is gone
            return data
        if not chunk:
            return data
        data += chunk


def test_for_cli_chooses_by_flags_and_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from railfabric.core.progress_rich import RichProgress

    monkeypatch.setenv("TERM", "xterm")
    master, slave = _pty_pair()
    with os.fdopen(slave, "w") as tty:
        assert isinstance(for_cli(stream=tty), RichProgress)
        assert isinstance(for_cli(quiet=True, stream=tty), SilentProgress)
        assert isinstance(for_cli(verbose=True, stream=tty), PlainProgress)
        assert isinstance(for_cli(quiet=True, verbose=True, stream=tty), PlainProgress)  # -v asks for the lines
        monkeypatch.setenv("TERM", "dumb")
        assert isinstance(for_cli(stream=tty), SilentProgress)
    os.close(master)
    assert isinstance(for_cli(stream=io.StringIO()), SilentProgress)  # not a terminal: nothing
    assert isinstance(for_cli(verbose=True, stream=io.StringIO()), PlainProgress)


def test_rich_bar_draws_the_stage_and_its_count_on_a_terminal() -> None:
    from railfabric.core.progress_rich import RichProgress

    master, slave = _pty_pair()
    tty = os.fdopen(slave, "w")
    bar = RichProgress(tty)
    bar.stage("loading inventory")
    bar.stage("rendering the switch configs", total=SWITCHES)
    for _ in range(SWITCHES):
        bar.advance()
    bar.close()  # a last refresh (34/34), then the transient bar is erased
    tty.close()
    drawn = _drain(master)
    os.close(master)
    assert b"rendering the switch configs" in drawn and f"{SWITCHES}/{SWITCHES}".encode() in drawn
    assert "━".encode() in drawn  # the bar itself
    assert drawn.rstrip().endswith(b"\x1b[2K")  # erased at the end: the terminal keeps only the command's output


# --------------------------------------------------------------------------- the stages tell it


def test_render_tells_each_stage_and_counts_every_switch() -> None:
    from railfabric.emit.build import build_files
    from railfabric.pipeline import run

    rec = Recorder()
    files = build_files(run(EXAMPLE, rec), workers=1, progress=rec)
    texts = [s[0] for s in rec.stages()]
    assert texts[:5] == [f"loading {EXAMPLE}", "checking the schema and the rules", "expanding the topology",
                         "allocating addresses, VLANs and ASNs",
                         "checking the topology and the plan; solving: capacity, failures, bisection, paths"]
    assert rec.stages()[5:7] == [("building the switches' device models", SWITCHES),
                                 ("rendering the switch configs (and the fabric-wide files meanwhile)", SWITCHES)]
    assert rec.advanced == [0] * 5 + [SWITCHES, SWITCHES, 0]  # each switch's model built, then its configs rendered
    config_files = sum(1 for p in files if p.startswith("configs/"))
    assert texts[7] == f"assembling {config_files:,} config files and the manifest"


def test_render_all_counts_chunks_of_forked_workers() -> None:
    """Two workers and at least 64 devices take the forked path: `done` is called per chunk, from a pool thread,
    and still adds up to every device (the example's 34 devices twice over: 68)."""
    from railfabric.device import build_devices
    from railfabric.emit.build import render_all
    from railfabric.pipeline import run

    res = run(EXAMPLE)
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    devices = list(build_devices(res.inventory, res.topology, res.plan).values()) * 2
    counted: list[int] = []
    rendered, _ = render_all(devices, workers=2, done=counted.append)
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: render_all renders serially")
    assert len(counted) > 1 and sum(counted) == 2 * SWITCHES and len(rendered) == SWITCHES


def test_lab_pings_count_each_ping(monkeypatch: pytest.MonkeyPatch) -> None:
    """railfabric.lab.verify.pings calls done(1) per ping, whatever its outcome (the ping itself is a stand-in)."""
    from railfabric.lab import verify
    from railfabric.lab.expect import Ping

    todo = [Ping(f"r{i}", "10.0.0.1", "10.0.0.2", "s1", 1500, i % 2 == 0, f"ping {i}") for i in range(6)]
    monkeypatch.setattr(verify, "ping", lambda _spec, p: (p.expect_ok, "stand-in"))
    counted: list[int] = []
    with ThreadPoolExecutor(3) as pool:
        check = verify.pings(None, todo, pool, pauses=(), done=counted.append)  # type: ignore[arg-type]
    assert counted == [1] * 6 and check.total == 6 and check.bad == []


def test_the_stages_do_not_import_rich() -> None:
    code = ("import sys, railfabric.pipeline, railfabric.emit.build, railfabric.lab.runner, railfabric.core.progress\n"
            "print(sorted(m for m in sys.modules if m == 'rich' or m.startswith('rich.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- the command, as a user runs it


def _fabric(args: list[str], tmp: Path, tty_stderr: bool, term: str = "xterm-256color") -> tuple[int, bytes, bytes]:
    """Run `fabric ARGS` (exit code, stdout, stderr); stderr on a pseudo-terminal when `tty_stderr`."""
    env = {**os.environ, "TERM": term, "PYTHONPATH": str(ROOT)}
    env.pop("NO_COLOR", None)
    argv = [sys.executable, "-m", "railfabric.cli", *args]
    with open(tmp / "stdout", "w+b") as out:
        if not tty_stderr:
            proc = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE, env=env, cwd=ROOT, timeout=120)
            err = proc.stderr
            code = proc.returncode
        else:
            master, slave = _pty_pair()
            child = subprocess.Popen(argv, stdout=out, stderr=slave, env=env, cwd=ROOT)
            os.close(slave)
            err = _drain(master)
            os.close(master)
            code = child.wait(timeout=120)
        out.seek(0)
        return code, out.read(), err


def _tree(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_render_on_a_terminal_shows_a_bar_and_writes_the_same_files(tmp_path: Path) -> None:
    code, out, err = _fabric(["render", str(EXAMPLE), "--out", str(tmp_path / "tty"), "--workers", "1"], tmp_path,
                             tty_stderr=True)
    assert code == 0, err
    assert "━".encode() in err and ESC.search(err)  # a bar was drawn
    # the last stage is always drawn (rich refreshes once more when the bar stops): the example's 197 files
    n_files = len(_tree(tmp_path / "tty"))
    assert f"writing {tmp_path / 'tty'}/ ({n_files:,} files)".encode() in err
    assert not ESC.search(out) and b"\r" not in out  # stdout (a file) stays plain
    assert out.decode() == f"{tmp_path / 'tty'}/ updated: 0 changed, {n_files} added, 0 removed ({n_files} files)\n"
    code, out2, err2 = _fabric(["render", str(EXAMPLE), "--out", str(tmp_path / "plain"), "--workers", "1"],
                               tmp_path, tty_stderr=False)
    assert code == 0 and err2 == b""  # not a terminal: nothing on stderr
    assert out2 == out.replace(b"/tty/", b"/plain/")
    assert _tree(tmp_path / "tty") == _tree(tmp_path / "plain")


def test_quiet_on_a_terminal_prints_nothing_on_stderr(tmp_path: Path) -> None:
    code, out, err = _fabric(["render", str(EXAMPLE), "--out", str(tmp_path / "g"), "--workers", "1", "-q"],
                             tmp_path, tty_stderr=True)
    assert code == 0 and err == b"" and out.startswith(f"{tmp_path / 'g'}/ updated: ".encode())


def test_machine_formats_keep_stdout_identical_with_a_bar(tmp_path: Path) -> None:
    code, with_bar, err = _fabric(["validate", str(EXAMPLE), "--format", "sarif"], tmp_path, tty_stderr=True)
    code2, without, err2 = _fabric(["validate", str(EXAMPLE), "--format", "sarif"], tmp_path, tty_stderr=False)
    assert (code, code2) == (0, 0) and err2 == b""
    assert ESC.search(err) and with_bar == without and not ESC.search(with_bar)
    import json

    assert json.loads(with_bar)["version"] == "2.1.0"


def test_verbose_off_a_terminal_is_plain_stage_lines(tmp_path: Path) -> None:
    gen = tmp_path / "g"
    code, out, err = _fabric(["render", str(EXAMPLE), "--out", str(gen), "--workers", "1", "-v"], tmp_path,
                             tty_stderr=False)
    assert code == 0 and not ESC.search(err) and b"\r" not in err
    lines = _untimed(err.decode())
    n_files = len(_tree(gen))
    assert lines == [f"loading {EXAMPLE}", "checking the schema and the rules", "expanding the topology",
                     "allocating addresses, VLANs and ASNs",
                     "checking the topology and the plan; solving: capacity, failures, bisection, paths",
                     f"building the switches' device models ({SWITCHES})",
                     f"rendering the switch configs (and the fabric-wide files meanwhile) ({SWITCHES})",
                     f"assembling {len(_tree(gen / 'configs'))} config files and the manifest",
                     f"writing {gen}/ ({n_files} files)"]
    code, out, err = _fabric(["plan", str(EXAMPLE), "--out", str(gen), "-v"], tmp_path, tty_stderr=False)
    assert code == 0 and out == f"No changes. {gen}/ matches the inventory.\n".encode()  # --out, not generated/
    assert _untimed(err.decode())[-1] == f"comparing with {gen}/"
