"""Updating the output directory in place: only the files that differ are touched, in one journaled transaction.

A render that changes a few files of a large tree (one switch of 5,632: 7 of 32,797 files) would otherwise build a
whole new tree beside generated/ (5,632 directories, 32,797 hard links: about 2 s at 65,536 GPUs) and swap it in.
Here the files that differ are moved into place one by one, each move atomic (a rename within one file system),
and the set is made all-or-nothing by a journal kept in the render's staging directory (railfabric.emit.staging):

1. every new file is in the stage at its own path (`stage`); each file that will be replaced or removed is
   hard-linked (or, where the file system has no hard links, copied) into the stage's `.railfabric-old/` (the way
   back);
2. the journal (`.railfabric-journal.json`) names the moves and the removals: from then on the update is decided;
3. the removals are made, directories they leave empty are removed (one still holding a dot file stays), the moves
   are made, and the journal is deleted.

An error before step 2 leaves the output directory as it was. An error during step 3 (a read-only subdirectory, a
full disk when a new directory is made) undoes what was done, from `.railfabric-old/`, and is raised: the directory
is again exactly as it was. Files nobody changed are never opened, so they keep their inode and mtime. The render's
own output never has a dot name, so these names cannot clash with a file it stages.

A render killed on the way (SIGKILL, power loss) leaves its stage beside the output directory:
- killed before step 2: a stage without a journal. The output directory is the old one, untouched; the next render's
  cleanup removes the stage (railfabric.emit.outdir.render_lock) and nothing needs saying.
- killed after step 2 (the update is decided): `pending` names it, and `render --check` and `plan` report it (exit
  3, the check's "differs"), whatever inventory they are given, without touching anything. The next `render`,
  before it reads anything from the output directory, completes it (`recover`: roll forward; each step is made
  only where it was not yet) and says so on stderr (`Recovered.describe`: when the update was decided, how many
  files were moved in and removed now). Only then does it survey the output directory and render its own
  inventory from what is there, so the tree it leaves is exactly that inventory's (the old inventory's, too: a
  render of it after a recovery writes the old files back).
- A journal that is not one railfabric writes (not JSON, wrong types, a path that is absolute, holds `..` or a dot
  name, or a file in the stage that is not a regular file, or a symbolic link on the way in the output directory),
  or one whose files in the output directory changed since it was decided (each file still to be replaced or
  removed must be the one `.railfabric-old/` holds), is never applied: the stage is removed with a note, the
  output directory is untouched by it and the render re-renders whatever differs. A recovery that fails (a
  read-only directory) keeps the journal, names the error and exits 2; the next render tries again.

Test hook (tests/test_journal_recovery.py): when the environment variable RAILFABRIC_FAULT_AT holds a non-negative
integer N when this module is imported, the process ends with os._exit(137) (as if SIGKILLed: no cleanup, no undo)
just before its N-th file-system step here (counted from 0: every mkdir, link, journal write and rename, unlink,
rmdir and move of `commit` and `recover`). Unset, empty or not an integer, it is ignored; the only cost is one
comparison per step.
"""

from __future__ import annotations

import contextlib
import filecmp
import json
import os
import shutil
import stat
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

OLD = ".railfabric-old"
JOURNAL = ".railfabric-journal.json"
FAULT_ENV = "RAILFABRIC_FAULT_AT"
_MAX_JOURNAL = 1 << 28  # bytes: 131,072 GPUs decide at most a quarter of ~2 GB of output, a few MB of paths


def _fault_at(value: str | None) -> int | None:
    """The step the test hook ends the process at (see the module docstring), or None: unset, not an integer, or
    negative."""
    try:
        at = int(value or "")
    except ValueError:
        return None
    return at if at >= 0 else None


_FAULT_AT = _fault_at(os.environ.get(FAULT_ENV))
_done = 0  # the file-system steps this process made so far (counted only while the hook is set)


def _step() -> None:
    """Called just before each file-system step: the test hook's counter (a no-op unless it is set)."""
    global _done
    if _FAULT_AT is None:
        return
    if _done >= _FAULT_AT:
        os._exit(137)  # as a SIGKILL would end it: no cleanup, no undo, no flush
    _done += 1


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
                _step()
                os.makedirs(folder, exist_ok=True)
                folders.add(folder)
            _step()
            try:
                os.link(have, back, follow_symlinks=False)
            except OSError:  # a file system without hard links: a copy is as good a way back
                shutil.copy2(have, back, follow_symlinks=False)
    _write_journal(new, place, remove)
    steps = _Steps()
    try:
        _apply(base, new, place, remove, remove, steps)
    except BaseException:
        os.unlink(os.path.join(new, JOURNAL))  # undone, never to be completed by a later cleanup
        _undo(base, new, steps)
        raise
    _step()
    os.unlink(os.path.join(new, JOURNAL))


# --------------------------------------------------------------------------- an update a killed render decided


@dataclass(frozen=True)
class Decided:
    """An update a render decided (its journal) and did not finish: the files it moves in and removes, and when it
    was decided (the journal's modification time)."""
    stage: Path
    place: tuple[str, ...]
    remove: tuple[str, ...]
    at: float

    def describe(self, target: Path) -> str:
        return (f"{target}/ has an unfinished update: a render interrupted at {_when(self.at)} had decided to move "
                f"{len(self.place):,} file(s) in and remove {len(self.remove):,}; the next `fabric render` completes "
                "it first, then renders its own inventory")


@dataclass(frozen=True)
class Recovered:
    """What `recover` did with a killed render's stage: the files it moved in and removed now, of the `named` ones
    the journal decided at `at`; or why the journal was `ignored` (nothing applied)."""
    at: float
    moved: int
    removed: int
    named: int
    ignored: str = ""

    def describe(self, target: Path) -> str:
        if self.ignored:
            return (f"removed what an interrupted render left beside {target}/ without applying it: {self.ignored}; "
                    f"{target}/ was not touched")
        before = self.named - self.moved - self.removed
        return (f"completed the update of {target}/ that a render interrupted at {_when(self.at)} had decided: "
                f"{self.moved:,} file(s) moved in and {self.removed:,} removed now (it had moved or removed "
                f"{before:,} of its {self.named:,} before it stopped)")


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def unfinished(target: Path, stages: Iterable[Path]) -> list[Decided]:
    """The updates of `target` that `stages` (a killed render's leftovers, railfabric.emit.outdir.leftovers) hold
    decided, in order: those `recover` would complete. Reads only."""
    found: list[Decided] = []
    base = os.fspath(target)
    for stage in stages:
        decided = read(stage)
        if isinstance(decided, Decided) and not _refusal(base, os.fspath(stage), decided,
                                                          *_left(base, os.fspath(stage), decided)):
            found.append(decided)
    return found


def read(stage: Path) -> Decided | str | None:
    """The update `stage` holds decided; None when it holds no journal (killed before deciding: nothing had been
    moved); why not, when its journal is not one railfabric writes."""
    path = os.path.join(stage, JOURNAL)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"its journal cannot be read ({exc.strerror})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_JOURNAL:
            return "its journal is not a journal railfabric writes (not a regular file, or too large)"
        with os.fdopen(os.dup(fd), "rb") as fh:
            doc = json.loads(fh.read(_MAX_JOURNAL + 1))
    except (OSError, ValueError, RecursionError):
        return "its journal is not a journal railfabric writes (cut short or not JSON)"
    finally:
        os.close(fd)
    place, remove = (doc.get(key) if isinstance(doc, dict) else None for key in ("place", "remove"))
    if not isinstance(place, list) or not isinstance(remove, list) \
            or not all(isinstance(rel, str) and _plain_path(rel) for rel in (*place, *remove)):
        return "its journal is not a journal railfabric writes (a path that is not a plain relative path)"
    return Decided(stage, tuple(place), tuple(remove), info.st_mtime)


def _plain_path(rel: str) -> bool:
    """A path the render can write: relative, POSIX, no empty, `..` or dot-named part, no NUL."""
    return bool(rel) and "\0" not in rel and "\\" not in rel \
        and all(part and not part.startswith(".") for part in rel.split("/"))


def recover(target: Path, stage: Path) -> Recovered | None:
    """Complete the update a killed render left in `stage` (its journal says what was decided): None when there was
    none (the stage can simply be removed). Each step is made only where it was not yet: a file already moved is no
    longer in the stage, a removed one no longer in `target`. A journal that is not railfabric's, that would move
    something that is not a regular file of the stage or through a symbolic link in `target`, or whose files in
    `target` are no longer those it was decided over (`_as_decided`), is not applied (`Recovered.ignored` says
    why). An error on the way keeps the journal (the next render tries again) and is
    raised as an OSError that says so."""
    found = read(stage)
    if found is None:
        return None
    if isinstance(found, str):
        return Recovered(0.0, 0, 0, 0, found)
    base, new = os.fspath(target), os.fspath(stage)
    place, remove = _left(base, new, found)
    refused = _refusal(base, new, found, place, remove)
    if refused:
        return Recovered(found.at, 0, 0, len(found.place) + len(found.remove), refused)
    try:
        _apply(base, new, place, remove, found.remove, _Steps())
        _step()
        os.unlink(os.path.join(new, JOURNAL))
    except OSError as exc:
        raise OSError(exc.errno, f"could not complete the update an interrupted render had decided ({exc.strerror});"
                      " fix that and run `fabric render` again", exc.filename) from exc
    return Recovered(found.at, len(place), len(remove), len(found.place) + len(found.remove))


def _left(base: str, new: str, found: Decided) -> tuple[list[str], list[str]]:
    """What is left to do of `found`: the files still in the stage, and the removals still there."""
    return ([rel for rel in found.place if os.path.lexists(os.path.join(new, rel))],
            [rel for rel in found.remove if _not_a_directory(os.path.join(base, rel))])


def _refusal(base: str, new: str, found: Decided, place: Sequence[str], remove: Sequence[str]) -> str:
    """Why `found` must not be applied (empty: it may): it would move something that is not a regular file of the
    stage, or go through a symbolic link in the output directory, or what it would replace changed since."""
    if not _all_plain(new, found.place, file=True) or not _all_plain(base, (*found.place, *found.remove)):
        return "its journal would move a file that is not a regular file, or through a symbolic link"
    if not all(_as_decided(base, new, rel) for rel in (*place, *remove)):
        return "the files it would replace or remove changed since it was decided (another render wrote them)"
    return ""


def _all_plain(root: str, paths: Iterable[str], file: bool = False) -> bool:
    """No directory on the way from `root` to any of `paths` is a symbolic link (or not a directory); with `file`
    each of `paths` that exists is a regular file."""
    dirs_ok: set[str] = {""}
    for rel in paths:
        folder, _, _name = rel.rpartition("/")
        parts = folder.split("/") if folder else []
        for depth in range(1, len(parts) + 1):
            prefix = "/".join(parts[:depth])
            if prefix in dirs_ok:
                continue
            try:
                mode = os.lstat(os.path.join(root, prefix)).st_mode
            except FileNotFoundError:
                break  # made when its file arrives
            if not stat.S_ISDIR(mode):
                return False
            dirs_ok.add(prefix)
        if file:
            try:
                if not stat.S_ISREG(os.lstat(os.path.join(root, rel)).st_mode):
                    return False
            except FileNotFoundError:
                pass  # moved in already
    return True


def _as_decided(base: str, new: str, rel: str) -> bool:
    """Is `rel`, not moved or removed yet, still what the update was decided over? The way back (`.railfabric-old/`)
    holds a link to (or a copy of) each file that was there: the file there now must be that one; where there was
    none (a new file, or a directory the removals empty) there must be none now either, or a directory."""
    have, back = os.path.join(base, rel), os.path.join(new, OLD, rel)
    try:
        now = os.lstat(have)
    except FileNotFoundError:
        return not os.path.lexists(back)
    if stat.S_ISDIR(now.st_mode):
        return not os.path.lexists(back)
    try:
        was = os.lstat(back)
    except FileNotFoundError:
        return False
    if os.path.samestat(now, was):
        return True
    # a copy (a file system without hard links): the same bytes
    return stat.S_ISREG(now.st_mode) and stat.S_ISREG(was.st_mode) and filecmp.cmp(have, back, shallow=False)


def _not_a_directory(path: str) -> bool:
    """`path` exists and is not a directory (one left where a removed file stood was made by a move since)."""
    try:
        return not stat.S_ISDIR(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def _write_journal(new: str, place: Sequence[str], remove: Sequence[str]) -> None:
    """The journal, whole or not at all (written aside, then renamed)."""
    path = os.path.join(new, JOURNAL)
    _step()
    with open(f"{path}.part", "w", encoding="utf-8") as fh:
        json.dump({"place": list(place), "remove": list(remove)}, fh)
    _step()
    os.replace(f"{path}.part", path)


@dataclass
class _Steps:
    """What an update did so far, in order: files removed, directories made, files moved in."""
    removed: list[str] = field(default_factory=list)
    made: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)


def _apply(base: str, new: str, place: Sequence[str], remove: Sequence[str], prune: Sequence[str],
           steps: _Steps) -> None:
    """The removals, then the directories the removals of `prune` left empty, then the moves: a path that turns from
    a file into a directory, or back, is free when its new content arrives. Each step is recorded in `steps` as it
    is made."""
    for rel in remove:
        _step()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(base, rel))
        steps.removed.append(rel)
    _prune(base, prune)
    for rel in place:
        dest = os.path.join(base, rel)
        _make_parents(base, os.path.dirname(dest), steps.made)
        _step()
        os.replace(os.path.join(new, rel), dest)
        steps.moved.append(rel)


def _make_parents(base: str, folder: str, made: list[str]) -> None:
    """Make `folder` and its missing parents under `base`, recording each one made."""
    missing: list[str] = []
    while folder != base and not os.path.isdir(folder):
        missing.append(folder)
        folder = os.path.dirname(folder)
    for path in reversed(missing):
        _step()
        os.mkdir(path)
        made.append(path)


def _prune(base: str, removed: Iterable[str]) -> None:
    """Remove the directories under `base` that the removals left empty (deepest first; never `base`)."""
    folders = {os.path.dirname(os.path.join(base, rel)) for rel in removed}
    for folder in sorted(folders, key=len, reverse=True):
        while folder != base and folder.startswith(base):
            try:
                _step()
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
