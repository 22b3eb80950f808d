"""The staging directory (railfabric.emit.staging): files made afresh are written as they are made, never gathered in
memory, and the directory is private to its render (issue 13: cold memory at 131,072 GPUs)."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.emit.build import build_files, build_tree, render_all
from railfabric.emit.outdir import leftovers, render_lock
from railfabric.emit.reuse import Kept
from railfabric.emit.staging import Stage, Staged, in_use
from railfabric.pipeline import run

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "inventory"


def test_staged_tree_equals_in_memory_tree(tmp_path: Path) -> None:
    res = run(EXAMPLE)
    cold = build_files(res)
    with Stage(tmp_path / "gen") as stage:
        tree = build_tree(res, workers=2, stage=stage)
        assert stage.path.parent == tmp_path and stage.path.name.startswith(".gen.stage-")
        staged = {p: c for p, c in tree.files.items() if isinstance(c, Staged)}
        # everything but the manifest is made afresh (no earlier render): 240 of the 241 files
        assert len(staged) == len(cold) - 1 and "manifest.json" not in staged
        for path, c in staged.items():
            data = Path(c.source).read_bytes()
            assert data == cold[path] and c.size == len(data) and c.sha256 == hashlib.sha256(data).hexdigest()
    assert not stage.path.exists()


def test_workers_write_to_the_stage(tmp_path: Path) -> None:
    """Forked workers write what they render themselves and send back only where it is."""
    res = run(EXAMPLE)
    from railfabric.device import build_devices

    devices = list(build_devices(res.inventory, res.topology, res.plan).values())  # type: ignore[arg-type]
    with Stage(tmp_path / "gen") as stage:
        rendered, _ = render_all(devices, workers=2, stage=stage)
        files = [f for per in rendered.values() for f in per.values()]
        assert len(rendered) == 34 and all(isinstance(f, Staged) for f in files)
        frr = rendered["p1-spine2"]["frr.conf"]
        assert isinstance(frr, Staged) and "router bgp" in Path(frr.source).read_text()


def test_render_leaves_no_stage_behind(tmp_path: Path) -> None:
    out = tmp_path / "gen"
    assert main(["render", str(EXAMPLE), "--out", str(out), "-q", "--workers", "2"]) == 0
    (out / "cabling.csv").write_text("edited\n")
    assert main(["render", str(EXAMPLE), "--out", str(out), "--check", "-q"]) == 3
    assert main(["plan", str(EXAMPLE), "--out", str(out)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gen"]


def test_a_running_renders_stage_is_not_a_leftover(tmp_path: Path) -> None:
    target = tmp_path / "gen"
    target.mkdir()
    dead = tmp_path / ".gen.stage-dead"  # a killed render's: nobody holds it
    dead.mkdir()
    (dead / "x").write_text("1")
    with Stage(target) as alive:
        assert in_use(alive.path) and not in_use(dead)
        assert leftovers(target) == [dead]
        with render_lock(target):
            pass
        assert not dead.exists() and alive.path.is_dir()  # the cleanup took the dead one only
        alive.put("configs/a/b.txt", b"still here\n")
    assert not alive.path.exists()


def test_stage_falls_back_to_the_temporary_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An output directory whose parent does not exist yet (or is read-only): stage in the system's temp dir; the
    render still writes the tree (copying instead of linking across file systems)."""
    out = tmp_path / "new" / "deeper" / "gen"
    with Stage(out) as stage:
        assert stage.path.parent != out.parent
    assert main(["render", str(EXAMPLE), "--out", str(out), "-q"]) == 0
    assert build_files(run(EXAMPLE)) == {p.relative_to(out).as_posix(): p.read_bytes()
                                         for p in out.rglob("*") if p.is_file()}


def test_staged_file_is_linked_not_copied(tmp_path: Path) -> None:
    """A file made afresh is written once, into the stage, and linked into the new tree: the tree's file has two
    names while the stage lives."""
    out = tmp_path / "gen"
    res = run(EXAMPLE)
    from railfabric.emit.build import write_tree

    with Stage(out) as stage:
        tree = build_tree(res, stage=stage)
        write_tree(out, tree.files)
        cab = tree.files["cabling.csv"]
        assert isinstance(cab, Staged) and os.stat(out / "cabling.csv").st_ino == os.stat(cab.source).st_ino
    assert os.stat(out / "cabling.csv").st_nlink == 1
    again = build_tree(res, cache=out)
    assert isinstance(again.files["cabling.csv"], Kept)


@pytest.mark.parametrize("swap", [True, False], ids=["whole-tree swap", "in place"])
def test_the_stage_becomes_the_new_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap: bool) -> None:
    """Beside the output, the staged files become the output's: swapped in as the new tree (a large change; nothing
    linked twice) or moved in one by one (a small change: railfabric.emit.journal). A file made afresh with the bytes it
    already had keeps its old inode, a changed one is the staged file itself, a dot file stays."""
    import railfabric.emit.build as emit
    import railfabric.emit.write as write

    if swap:  # one changed file in 1 is "large"
        monkeypatch.setattr(write, "IN_PLACE_SHARE", 10**9)
    out = tmp_path / "gen"
    res = run(EXAMPLE)
    with Stage(out) as stage:
        emit.write_tree(out, build_tree(res, stage=stage).files, stage=stage)
    old_ino = {p: os.stat(out / p).st_ino for p in ("cabling.csv", "ipplan.csv")}
    (out / "ipplan.csv").write_text("edited\n")
    (out / ".keep").write_text("")
    with Stage(out) as stage:
        tree = build_tree(res, stage=stage)  # no cache: everything made afresh into the stage
        ipplan = tree.files["ipplan.csv"]
        assert isinstance(ipplan, Staged)
        staged_ino = os.stat(ipplan.source).st_ino
        diff = emit.write_tree(out, tree.files, stage=stage)
        assert diff.changed == ["ipplan.csv"]
        # swapped: the stage's name now holds the old tree, removed at once; in place: the stage is removed on close
        assert stage.path.exists() is not swap
    assert os.stat(out / "cabling.csv").st_ino == old_ino["cabling.csv"]  # same bytes: the old file kept
    assert os.stat(out / "ipplan.csv").st_ino == staged_ino  # changed: the staged file, not a copy
    assert (out / ".keep").exists()
    assert build_files(res) == {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*")
                                if p.is_file() and not p.name.startswith(".")}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gen"]


_PIDS: list[Path] = []  # where forked part jobs leave their pid (set before the pool forks)


def _recording_part_job(parts: list, stage: object, lo: int, hi: int) -> list:
    import railfabric.emit.workers as workers

    (_PIDS[0] / f"{os.getpid()}-{lo}").write_text("")
    return workers._real_part_job(parts, stage, lo, hi)  # type: ignore[attr-defined]


@pytest.mark.parametrize("staged", [True, False])
def test_forked_workers_build_parts_and_configs_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      staged: bool) -> None:
    """The example is small enough to render in one process; forced through a forked helper (this process taking
    no job), every device and every artifact part is made there (written to the stage, or sent back as text) and
    the tree is the same byte for byte."""
    import railfabric.emit.workers as workers

    if workers.available_cpus() < 2:
        pytest.skip("one CPU: the pool is never used")
    res = run(EXAMPLE)
    cold = build_files(res)
    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setattr(workers, "SERIAL_BELOW", 1)
    monkeypatch.setattr(workers, "_real_part_job", workers._part_job, raising=False)
    monkeypatch.setattr(workers, "_part_job", _recording_part_job)
    monkeypatch.setattr(workers, "HERE_ORDER", ())  # this process takes no job: the helper makes everything
    monkeypatch.setattr(sys.modules[__name__], "_PIDS", [pids])
    with Stage(tmp_path / "gen") as stage:
        tree = build_tree(res, workers=2, stage=stage if staged else None)
        got = {p: (Path(c.source).read_bytes() if isinstance(c, Staged) else c) for p, c in tree.files.items()}
        assert got == cold
        if staged:
            assert all(isinstance(c, Staged) for p, c in tree.files.items() if p != "manifest.json")
    made_by = {int(f.name.split("-")[0]) for f in pids.iterdir()}
    assert made_by and os.getpid() not in made_by  # every part was built in the forked helper


def test_a_large_old_tree_is_removed_in_the_background(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past BACKGROUND_REMOVAL_MIN files the old tree is renamed to a leftover's name and removed by a detached
    process: the render returns before it is gone, and it does go."""
    import time

    import railfabric.emit.write as write

    out = tmp_path / "gen"
    assert main(["render", str(EXAMPLE), "--out", str(out), "-q"]) == 0
    (out / "cabling.csv").write_text("edited\n")
    monkeypatch.setattr(write, "BACKGROUND_REMOVAL_MIN", 1)
    monkeypatch.setattr(write, "IN_PLACE_SHARE", 10**9)  # one changed file: swap a whole new tree in all the same
    assert main(["render", str(EXAMPLE), "--out", str(out), "-q"]) == 0
    assert (out / "cabling.csv").read_text() != "edited\n"
    deadline = time.monotonic() + 20
    while sorted(p.name for p in tmp_path.iterdir()) != ["gen"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gen"]
