"""The in-place update of an output directory (railfabric/emit/journal.py) and how write_tree uses it: only the files
that differ are touched; an error undoes what was done; a render killed after deciding is completed by the next one."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.emit import journal
from railfabric.emit.build import build_tree, payload, write_tree
from railfabric.emit.outdir import render_lock
from railfabric.emit.staging import Stage
from railfabric.pipeline import run

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "inventory"


def _tree(root: Path) -> dict[str, bytes]:
    """Every file under `root`, dot files included, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _inodes(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_ino for p in root.rglob("*") if p.is_file()}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    """An output directory and a stage holding an update of it:
    a/x changed, a/y untouched, b/z removed (b then empty: pruned), c/w removed beside the user's c/.keep (c stays),
    e/f/n added in two new directories."""
    target, stage = tmp_path / "gen", tmp_path / ".gen.stage-test"
    _write(target, {"a/x": "old x\n", "a/y": "y\n", "b/z": "z\n", "c/w": "w\n", "c/.keep": ""})
    _write(stage, {"a/x": "new x\n", "e/f/n": "n\n"})
    return target, stage


PLACE, REMOVE = ["a/x", "e/f/n"], ["b/z", "c/w"]
AFTER = {"a/x": b"new x\n", "a/y": b"y\n", "c/.keep": b"", "e/f/n": b"n\n"}


def test_commit_moves_in_only_what_differs(dirs: tuple[Path, Path]) -> None:
    target, stage = dirs
    untouched = _inodes(target)["a/y"]
    new_x = (stage / "a/x").stat().st_ino
    journal.commit(target, stage, PLACE, REMOVE)
    assert _tree(target) == AFTER
    assert not (target / "b").exists() and (target / "c").is_dir()  # b emptied: pruned; c keeps the user's dot file
    assert _inodes(target)["a/y"] == untouched  # never opened
    assert (target / "a/x").stat().st_ino == new_x  # moved, not copied
    assert not (stage / journal.JOURNAL).exists()


def _failing_move(calls: int, real: Callable[..., None]) -> Callable[..., None]:
    """os.replace that fails once: at the move after `calls` moves (the journal's own rename does not count)."""
    seen = [0]

    def replace(src: str, dst: str) -> None:
        if not src.endswith(".part"):
            seen[0] += 1
            if seen[0] == calls + 1:
                raise PermissionError(13, "Permission denied", dst)
        real(src, dst)
    return replace


@pytest.mark.parametrize("calls", [0, 1])
def test_an_error_midway_puts_everything_back(dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch,
                                              calls: int) -> None:
    """A move fails after the removals (b/z, c/w; b pruned) and `calls` moves (calls=1: a/x was replaced, e/f/ made
    for the next): the output directory is exactly as it was, the same inodes included, and the journal is gone
    (nothing for a later cleanup to complete)."""
    target, stage = dirs
    before, inodes = _tree(target), _inodes(target)
    monkeypatch.setattr(journal.os, "replace", _failing_move(calls, os.replace))
    with pytest.raises(PermissionError):
        journal.commit(target, stage, PLACE, REMOVE)
    monkeypatch.undo()
    assert _tree(target) == before and _inodes(target) == inodes
    assert not (target / "e").exists() and (target / "b").is_dir()
    assert not (stage / journal.JOURNAL).exists()


def _killed_child(work: Callable[[], None], moves: int) -> None:
    """Run `work` in a forked child that dies (SIGKILL-like: no cleanup, no undo) at its `moves`+1-th os.replace
    after the journal was written."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            real, seen = os.replace, [0]

            def replace(src: str, dst: str) -> None:
                if os.path.basename(dst) != journal.JOURNAL and not src.endswith(".part"):
                    seen[0] += 1
                    if seen[0] > moves:
                        os._exit(9)
                real(src, dst)
            journal.os.replace = replace  # type: ignore[attr-defined]
            work()
        finally:
            os._exit(0)
    _pid, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 9, "the child was meant to die in the middle"


def test_a_killed_update_is_completed_by_recover(dirs: tuple[Path, Path]) -> None:
    target, stage = dirs
    _killed_child(lambda: journal.commit(target, stage, PLACE, REMOVE), moves=1)
    assert (target / "a/x").read_text() == "new x\n" and not (target / "e/f/n").exists()  # half done
    assert json.loads((stage / journal.JOURNAL).read_text()) == {"place": PLACE, "remove": REMOVE}
    assert journal.recover(target, stage)
    assert _tree(target) == AFTER and not (target / "b").exists()
    assert not journal.recover(target, stage)  # done: nothing left to complete


def test_a_journal_cut_short_is_not_completed(dirs: tuple[Path, Path]) -> None:
    """Killed while the journal was being written (only its .part exists): nothing had been moved, there is nothing
    to complete. A journal that is not JSON is not one railfabric writes (it renames a whole one into place): it is
    not applied either, and says why."""
    target, stage = dirs
    before = _tree(target)
    (stage / f"{journal.JOURNAL}.part").write_text('{"place": ["a/x"')
    assert journal.recover(target, stage) is None
    (stage / journal.JOURNAL).write_text('{"place": ["a/x"')
    assert journal.recover(target, stage) == journal.Recovered(
        0.0, 0, 0, 0, "its journal is not a journal railfabric writes (cut short or not JSON)")
    assert _tree(target) == before


def test_the_next_render_completes_a_killed_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """End to end: a render of a changed inventory is killed after its first move (the output is then half old,
    half new); `render --check` says so; the next render of the same inventory completes the update under the
    output's lock before comparing, finds nothing left to do, and the output equals a cold render of the changed
    inventory."""
    out = tmp_path / "generated"
    write_tree(out, build_tree(run(EXAMPLE)).files)
    inv = tmp_path / "inventory"
    shutil.copytree(EXAMPLE, inv)
    text = (inv / "devices.yml").read_text()
    assert text.count("management: 192.168.15.3 ") == 1  # p1-s1-rail3
    (inv / "devices.yml").write_text(text.replace("management: 192.168.15.3 ", "management: 192.168.15.99 "))
    res = run(inv)
    cold = {p: payload(c) for p, c in build_tree(res).files.items()}

    def render() -> None:
        with Stage(out) as stage:
            write_tree(out, build_tree(res, cache=out, stage=stage).files, stage=stage)
    _killed_child(render, moves=1)
    leftover = [p for p in tmp_path.iterdir() if p.name.startswith(".generated.stage-")]
    assert len(leftover) == 1 and (leftover[0] / journal.JOURNAL).exists()
    assert _tree(out) != cold  # half done
    assert main(["render", str(inv), "--out", str(out), "--check", "-q"]) == 3
    assert "has an unfinished update: a render interrupted at" in capsys.readouterr().out

    said: list[str] = []
    with render_lock(out, said.append):
        pass
    # by hand: the address change is 6 files: the switch's config_db.json (MGMT_INTERFACE), its host_vars and the
    # Ansible inventory (ansible_host), its expected state, ipplan.csv and the manifest; killed after 1 move
    assert len(said) == 1 and said[0].startswith(f"completed the update of {out}/ that a render interrupted at ")
    assert said[0].endswith(": 5 file(s) moved in and 0 removed now (it had moved or removed 1 of its 6 before it "
                            "stopped)")
    assert _tree(out) == cold
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert write_tree(out, build_tree(res, cache=out).files).clean


def test_a_small_change_touches_only_its_files(tmp_path: Path) -> None:
    """write_tree with a small change (one switch's management address: its config, host_vars, the Ansible
    inventory, the IP plan, its expected state and the manifest) keeps every other file's inode: the output
    directory is updated in place, not rebuilt."""
    out = tmp_path / "generated"
    write_tree(out, build_tree(run(EXAMPLE)).files)
    before = _inodes(out)
    folders = {p: p.stat().st_ino for p in (out, out / "configs", out / "configs" / "p1-s1-rail3")}
    inv = tmp_path / "inventory"
    shutil.copytree(EXAMPLE, inv)
    text = (inv / "devices.yml").read_text()
    (inv / "devices.yml").write_text(text.replace("management: 192.168.15.3 ", "management: 192.168.15.99 "))
    diff = write_tree(out, build_tree(run(inv), cache=out).files)
    after = _inodes(out)
    moved = {p for p in after if after[p] != before.get(p)}
    assert moved == set(diff.changed) and not diff.added and not diff.removed
    assert "configs/p1-s1-rail3/config_db.json" in moved and "ipplan.csv" in moved
    assert not any(p.startswith("configs/") and "p1-s1-rail3" not in p for p in moved)
    assert len(moved) * 4 <= len(after)  # a small change by railfabric.emit.write's rule
    # the directories are the same ones (a swapped-in tree would keep the files' inodes but not these)
    assert {p: p.stat().st_ino for p in folders} == folders


def test_a_render_that_lost_a_race_writes_nothing(tmp_path: Path) -> None:
    """Render A reads generated/ (its manifest, the files it will keep); render B of another inventory writes
    generated/ first; A then refuses (EBUSY, 'run again') and leaves B's output exactly as it is: the files A would
    keep are no longer the ones it verified."""
    import errno

    from railfabric.emit.reuse import Reuse

    out = tmp_path / "generated"
    write_tree(out, build_tree(run(EXAMPLE)).files)
    inv = tmp_path / "inventory"
    shutil.copytree(EXAMPLE, inv)
    text = (inv / "devices.yml").read_text()
    (inv / "devices.yml").write_text(text.replace("management: 192.168.15.3 ", "management: 192.168.15.99 "))
    first = Reuse(out)
    try:
        files_a = build_tree(run(EXAMPLE), reuse=first).files  # A: the example again (it would keep everything)
    finally:
        first.close()
    write_tree(out, build_tree(run(inv), cache=out).files)  # B wins
    b_output = _tree(out)
    with pytest.raises(OSError) as caught:
        write_tree(out, files_a, since=first)
    assert caught.value.errno == errno.EBUSY and "run again" in str(caught.value)
    assert _tree(out) == b_output
    again = Reuse(out)  # run again: A now reads B's output, and writes its own
    try:
        files_a = build_tree(run(EXAMPLE), reuse=again).files
    finally:
        again.close()
    assert not write_tree(out, files_a, since=again).clean
    assert _tree(out) == {p: payload(c) for p, c in build_tree(run(EXAMPLE)).files.items()}


def test_a_file_that_becomes_a_directory(tmp_path: Path) -> None:
    """`k` was a file and is now a directory holding `k/m` (and `d/` held only `d/q`, which is now the file `d`):
    the removals come first, so each new path is free when its file arrives."""
    target, stage = tmp_path / "gen", tmp_path / ".gen.stage-test"
    _write(target, {"k": "file\n", "d/q": "q\n"})
    _write(stage, {"k/m": "m\n", "d": "d\n"})
    journal.commit(target, stage, ["d", "k/m"], ["d/q", "k"])
    assert _tree(target) == {"d": b"d\n", "k/m": b"m\n"}


def test_without_hard_links_the_way_back_is_a_copy(dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A file system that refuses hard links: the old files are copied aside instead, and an error midway still
    puts every byte back (the restored files are the copies: same content, new inodes)."""
    target, stage = dirs
    before = _tree(target)

    def no_links(*_args: object, **_kw: object) -> None:
        raise PermissionError(1, "Operation not permitted")
    monkeypatch.setattr(journal.os, "link", no_links)
    monkeypatch.setattr(journal.os, "replace", _failing_move(1, os.replace))
    with pytest.raises(PermissionError):
        journal.commit(target, stage, PLACE, REMOVE)
    assert _tree(target) == before
    monkeypatch.setattr(journal.os, "replace", os.replace)
    _write(stage, {"a/x": "new x\n"})  # the failed update had moved it in (then put the old one back)
    journal.commit(target, stage, PLACE, REMOVE)
    assert _tree(target) == AFTER
