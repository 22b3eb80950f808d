"""Updating the output directory in place: only the files that differ are touched, in one journaled transaction.

A render that changes a few files of a large tree (one switch of 5,632: 7 of 32,797 files) would otherwise build a
whole new tree beside generated/ (5,632 directories, 32,797 hard links: about 2 s at 65,536 GPUs) and swap it in.
Here the files that differ are moved into place one by one, each move atomic (a rename within one file system),
and the set is made all-or-nothing by a journal kept in the render's staging directory (fabric.staging):

1. every new file is in the stage at its own path (`stage`); each file that will be replaced or removed is
   hard-linked into the stage's `.railfabric-old/` (the way back);
2. the journal (`.railfabric-journal.json`) names the moves and the removals: from then on the update is decided;
3. the moves and removals are made, directories the removals leave empty are removed (one still holding a dot file
   stays), and the journal is deleted.

An error before step 2 leaves the output directory as it was. An error during step 3 (a read-only subdirectory, a
full disk when a new directory is made) undoes what was done, from `.railfabric-old/`, and is raised: the directory
is again exactly as it was. A render killed after step 2 leaves its stage with the journal; the next render's
cleanup (fabric.outdir.render_lock, under the output's lock) completes it first (`recover`: roll forward), so the
output directory is again exactly one render's tree. Files nobody changed are never opened, so they keep their inode
and mtime. The render's own output never has a dot name, so these names cannot clash with a file it stages.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

OLD = ".railfabric-old"
JOURNAL = ".railfabric-journal.json"


def commit(target: Path, stage: Path, place: Sequence[str], remove: Sequence[str]) -> None:
    """Move `place` (POSIX paths relative to both directories, each present in `stage`) into `target`, replacing
    what is there, and remove `remove` from `target`, all or nothing (see the module docstring)."""
    base, new = os.fspath(target), os.fspath(stage)
    folders: set[str] = set()
    for rel in (*place, *remove):  # the way back: every file that will be replaced or removed
        have = os.path.join(base, rel)
        if os.path.lexists(have):
            back = os.path.join(new, OLD, rel)
            if (folder := os.path.dirname(back)) not in folders:
                os.makedirs(folder, exist_ok=True)
                folders.add(folder)
            os.link(have, back, follow_symlinks=False)
    _write_journal(new, place, remove)
    done: list[str] = []
    made: list[str] = []
    try:
        _apply(base, new, place, remove, done, made)
    except BaseException:
        os.unlink(os.path.join(new, JOURNAL))  # undone, never to be completed by a later cleanup
        _undo(base, new, done, made)
        raise
    os.unlink(os.path.join(new, JOURNAL))


def recover(target: Path, stage: Path) -> bool:
    """Complete the update a killed render left in `stage` (its journal says what was decided); True when there was
    one. Each step is done only where it was not yet: a file already moved is no longer in the stage, a removed one
    no longer in `target`."""
    new = os.fspath(stage)
    try:
        with open(os.path.join(new, JOURNAL), encoding="utf-8") as fh:
            doc = json.load(fh)
    except FileNotFoundError:
        return False
    except (OSError, ValueError):  # a journal cut short was being written: nothing had been moved yet
        return False
    base = os.fspath(target)
    place = [rel for rel in doc["place"] if os.path.lexists(os.path.join(new, rel))]
    remove = [rel for rel in doc["remove"] if os.path.lexists(os.path.join(base, rel))]
    _apply(base, new, place, remove, [], [])
    os.unlink(os.path.join(new, JOURNAL))
    return True


def unfinished(stages: Iterable[Path]) -> list[Path]:
    """Those of `stages` (a killed render's leftovers, fabric.outdir.leftovers) that hold a decided update."""
    return [stage for stage in stages if (stage / JOURNAL).is_file()]


def _write_journal(new: str, place: Sequence[str], remove: Sequence[str]) -> None:
    """The journal, whole or not at all (written aside, then renamed)."""
    path = os.path.join(new, JOURNAL)
    with open(f"{path}.part", "w", encoding="utf-8") as fh:
        json.dump({"place": list(place), "remove": list(remove)}, fh)
    os.replace(f"{path}.part", path)


def _apply(base: str, new: str, place: Iterable[str], remove: Iterable[str], done: list[str],
           made: list[str]) -> None:
    """The moves, then the removals; `done` and `made` record each step (files, new directories) as it is made."""
    for rel in place:
        dest = os.path.join(base, rel)
        _make_parents(base, os.path.dirname(dest), made)
        os.replace(os.path.join(new, rel), dest)
        done.append(rel)
    gone = []
    for rel in remove:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(base, rel))
        done.append(rel)
        gone.append(rel)
    _prune(base, gone)


def _make_parents(base: str, folder: str, made: list[str]) -> None:
    """Make `folder` and its missing parents under `base`, recording each one made."""
    missing: list[str] = []
    while folder != base and not os.path.isdir(folder):
        missing.append(folder)
        folder = os.path.dirname(folder)
    for path in reversed(missing):
        os.mkdir(path)
        made.append(path)


def _prune(base: str, removed: Iterable[str]) -> None:
    """Remove the directories under `base` that the removals left empty (deepest first; never `base`)."""
    folders = {os.path.dirname(os.path.join(base, rel)) for rel in removed}
    for folder in sorted(folders, key=len, reverse=True):
        while folder != base and folder.startswith(base):
            try:
                os.rmdir(folder)
            except OSError:  # not empty (another file, a dot file) or already gone
                break
            folder = os.path.dirname(folder)


def _undo(base: str, new: str, done: Sequence[str], made: Sequence[str]) -> None:
    """Put back every file `done` touched (from the stage's copies of the old files) and remove the new directories."""
    for rel in reversed(done):
        dest, back = os.path.join(base, rel), os.path.join(new, OLD, rel)
        if os.path.lexists(back):
            _make_parents(base, os.path.dirname(dest), [])
            os.replace(back, dest)
        elif os.path.lexists(dest):
            os.unlink(dest)
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            os.rmdir(folder)
