"""A render that keeps no device (a cold one: nothing earlier to reuse) starts rendering the configs as soon as the
device models exist (railfabric.emit.workers.Early), before the models and the artifact parts are digested; the output
is byte for byte that of the usual order, and the workers are stopped when the checks find errors."""

from __future__ import annotations

import multiprocessing
import os
import sys
from pathlib import Path

import pytest

import railfabric.emit.workers as workers
import railfabric.pipeline as pipeline
from railfabric.cli import main
from railfabric.core.finding import Finding, Severity
from railfabric.emit.build import build_files, build_models, build_tree
from railfabric.emit.staging import Stage, Staged
from railfabric.pipeline import run

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "inventory"
SWITCHES = 34  # inventory/: 4 super-spines + pod 1 (4 spines, 12 rail) + pod 2 (4 spines, 2 rail) + pod 3 (8 rail)

_PIDS: list[Path] = []  # where forked device jobs leave their pid (set before the pool forks)


def _recording_device_job(devices: list, stage: object, lo: int, hi: int) -> list:
    (_PIDS[0] / f"{os.getpid()}-{lo}").write_text("")
    return workers._real_device_job(devices, stage, lo, hi)  # type: ignore[attr-defined]


@pytest.fixture
def pool_for_the_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example (34 switches) normally renders in one process: let it use the pool, and record which process
    rendered each chunk of devices."""
    if workers.available_cpus() < 2:
        pytest.skip("one CPU: the pool is never used")
    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setattr(workers, "SERIAL_BELOW", 1)
    monkeypatch.setattr(workers, "_real_device_job", workers._device_job, raising=False)
    monkeypatch.setattr(workers, "_device_job", _recording_device_job)
    monkeypatch.setattr(sys.modules[__name__], "_PIDS", [pids])
    return pids


def test_configs_start_before_the_digests_and_match(pool_for_the_example: Path, tmp_path: Path) -> None:
    res = run(EXAMPLE)
    cold = build_files(res)  # the usual order, in this process
    with Stage(tmp_path / "gen") as stage:
        early = workers.Early(2, stage)
        models = build_models(res, early=early)
        assert models.early is early and early.started
        started = {f.name for f in pool_for_the_example.iterdir()}  # chunks already handed out before digesting
        tree = build_tree(res, workers=2, stage=stage, models=models)
        got = {p: (Path(c.source).read_bytes() if isinstance(c, Staged) else c) for p, c in tree.files.items()}
    assert got == cold
    assert len(tree.rendered) == SWITCHES
    made_by = {int(f.name.split("-")[0]) for f in pool_for_the_example.iterdir()}
    assert made_by - {os.getpid()}  # a forked helper rendered device chunks (this process may have taken some too)
    assert started <= {f.name for f in pool_for_the_example.iterdir()}
    assert not early.started  # collected and closed


def test_not_started_where_it_does_not_pay() -> None:
    """The example is below SERIAL_BELOW switches, and one worker means one process: nothing starts early."""
    res = run(EXAMPLE)
    for n in (1, 2):
        early = workers.Early(n, None)
        assert build_models(res, early=early).early is None and not early.started


def test_the_cli_renders_cold_and_incrementally_alike(pool_for_the_example: Path, tmp_path: Path) -> None:
    """`fabric render` into an empty directory takes the early path (device chunks made by forked workers), into its
    own output the usual one (nothing to render: no chunk at all); both equal the serial render."""
    out = tmp_path / "gen"
    assert main(["render", str(EXAMPLE), "--out", str(out), "-q", "--workers", "2"]) == 0
    chunks = sorted(pool_for_the_example.iterdir())
    assert chunks
    serial = tmp_path / "serial"
    assert main(["render", str(EXAMPLE), "--out", str(serial), "-q", "--workers", "1"]) == 0
    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert files == {p.relative_to(serial).as_posix(): p.read_bytes() for p in serial.rglob("*") if p.is_file()}
    assert main(["render", str(EXAMPLE), "--out", str(out), "-q", "--full", "--workers", "2"]) == 0
    assert len(list(pool_for_the_example.iterdir())) > len(chunks)  # --full: nothing reused, early again


def test_errors_stop_the_early_workers(pool_for_the_example: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The checks (in their own process) find an error while the configs are being rendered early: the render
    exits 1, its workers are gone, nothing is written and no staging directory is left."""
    def failing(_inv: object, _src: object) -> list[Finding]:
        return [Finding("HOST999", "made up for the test", None, "none", Severity.ERROR)]
    monkeypatch.setattr(pipeline, "check_hosts", failing)
    started: list[bool] = []
    real_start = workers.Early.start

    def start(self: workers.Early, devices: list) -> bool:
        started.append(real_start(self, devices))
        return started[-1]
    monkeypatch.setattr(workers.Early, "start", start)
    out = tmp_path / "gen"
    assert main(["render", str(EXAMPLE), "--out", str(out), "--workers", "2"]) == 1
    assert started == [True]  # the configs were being rendered when the errors came back
    assert "HOST999" in capsys.readouterr().out
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["pids"]
    assert multiprocessing.active_children() == []


def test_keep_holds_what_the_render_built_until_the_caller_lets_go() -> None:
    """`fabric render` leaves with os._exit, so build_tree(keep=...) hands it the models, views, parts and results
    instead of freeing them on return (railfabric.cli.render.UNTIL_EXIT); without `keep` they are freed as usual."""
    import weakref

    from railfabric.emit.build import Models
    from railfabric.outputs import Sources

    res = run(EXAMPLE)
    keep: list[object] = []
    build_tree(res, keep=keep)
    assert any(isinstance(k, Models) for k in keep) and any(isinstance(k, Sources) for k in keep)
    kept_models = next(k for k in keep if isinstance(k, Models))
    assert len(kept_models.devices) == SWITCHES
    models = build_models(res)
    gone = weakref.ref(models)
    build_tree(res, models=models)
    del models
    assert gone() is None  # nothing kept without `keep`
