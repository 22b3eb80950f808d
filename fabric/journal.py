"""Updating the output directory in place: only the files that differ are touched, in one journaled transaction.

A render that changes a few files of a large tree (one switch of 5,632: 7 of 32,797 files) would otherwise build a
whole new tree beside generated/ (5,632 directories, 32,797 hard links: about 2 s at 65,536 GPUs) and swap it in.
Here the files that differ are moved into place one by one, each move atomic (a rename within one file system),
and the set is made all-or-nothing by a journal kept in the render's staging directory (fabric.staging):

1. every new file is in the stage at its own path (`stage`); each file that will be replaced or removed is
   hard-linked (or, where the file system has no hard links, copied) into the stage's `.railfabric-old/` (the way
   back);
2. the journal (`.railfabric-journal.json`) names the moves and the removals: from then on the update is decided;
3. the removals are made, directories they leave empty are removed (one still holding a dot file stays), the moves
   are made, and the journal is deleted.

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
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
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
        if os.path.lexists(have) and (os.path.islink(have) or not os.path.isdir(have)):  # a directory: emptied by
            # the removals (and remade by their undo)
            back = os.path.join(new, OLD, rel)
            if (folder := os.path.dirname(back)) not in folders:
                os.makedirs(folder, exist_ok=True)
                folders.add(folder)
            try:
                os.link(have, back, follow_symlinks=False)
            except OSError:  # a file system without hard links: a copy is as good a way back
                shutil.copy2(have, back, follow_symlinks=False)
    _write_journal(new, place, remove)
    steps = _Steps()
    try:
        _apply(base, new, place, remove, steps)
    except BaseException:
        os.unlink(os.path.join(new, JOURNAL))  # undone, never to be completed by a later cleanup
        _undo(base, new, steps)
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
        decided, gone = list(doc["place"]), list(doc["remove"])
    except (OSError, ValueError, KeyError, TypeError):  # none, or one cut short: nothing had been moved yet
        return False
    base = os.fspath(target)
    place = [rel for rel in decided if os.path.lexists(os.path.join(new, rel))]
    remove = [rel for rel in gone if os.path.lexists(os.path.join(base, rel))]
    _apply(base, new, place, remove, _Steps())
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


@dataclass
class _Steps:
    """What an update did so far, in order: files removed, directories made, files moved in."""
    removed: list[str] = field(default_factory=list)
    made: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)


def _apply(base: str, new: str, place: Sequence[str], remove: Sequence[str], steps: _Steps) -> None:
    """The removals (and the directories they leave empty), then the moves: a path that turns from a file into a
    directory, or back, is free when its new content arrives. Each step is recorded in `steps` as it is made."""
    for rel in remove:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(base, rel))
        steps.removed.append(rel)
    _prune(base, remove)
    for rel in place:
        dest = os.path.join(base, rel)
        _make_parents(base, os.path.dirname(dest), steps.made)
        os.replace(os.path.join(new, rel), dest)
        steps.moved.append(rel)


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


def _undo(base: str, new: str, steps: _Steps) -> None:
    """Take back what `steps` did, last first: each file moved in is replaced by the old one (the stage's link to
    it) or removed, the directories made are removed, each file removed is put back (its directories made again).
    Best effort: a step that fails does not stop the others (the error that caused the undo is what is raised)."""
    for rel in reversed(steps.moved):
        dest, back = os.path.join(base, rel), os.path.join(new, OLD, rel)
        with contextlib.suppress(OSError):
            if os.path.lexists(back):
                os.replace(back, dest)
            elif os.path.lexists(dest):
                os.unlink(dest)
    for folder in reversed(steps.made):
        with contextlib.suppress(OSError):
            os.rmdir(folder)
    for rel in reversed(steps.removed):
        dest, back = os.path.join(base, rel), os.path.join(new, OLD, rel)
        with contextlib.suppress(OSError):
            if os.path.lexists(back):
                _make_parents(base, os.path.dirname(dest), [])
                os.replace(back, dest)
