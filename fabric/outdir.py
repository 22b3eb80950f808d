"""The output directory: which directories railfabric may replace, the lock around a render, and the leftovers of a
killed one.

railfabric replaces a whole directory (see `emit.write_tree`), so it must be sure the directory is its own:
- it does not exist yet, or it is an empty directory, or it holds railfabric's marker (the `manifest.json` of an
  earlier render, `"tool": "railfabric"`; or a damaged manifest among nothing but what a render writes, see
  fabric.manifest.marks_owner);
- it is not a file, and it is not, does not contain and does not lie inside the inventory;
- it is not and does not contain a git work tree's root, `/`, the user's home or the current directory.
Anything else is refused with `OutputRefused` before a single byte is written.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from fabric.journal import recover

MANIFEST = "manifest.json"
LOCK_WAIT_S = 60.0


class OutputRefused(Exception):
    """The output directory is not railfabric's to replace (exit 2, nothing touched)."""


def _within(child: Path, parent: Path) -> bool:
    """True when `child` is `parent` or lies below it (both resolved)."""
    return child == parent or parent in child.parents


def _git_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` that holds `.git` (a git work tree's root)."""
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return None


def _home() -> Path | None:
    try:
        return Path.home().resolve()
    except (RuntimeError, KeyError, OSError):
        return None


def owned(out: Path) -> bool:
    """Does `out` carry railfabric's marker (the manifest of an earlier render; a damaged one counts in a directory
    that holds only what a render writes: fabric.manifest.marks_owner)?"""
    from fabric.manifest import marks_owner  # fabric.manifest imports MANIFEST from here

    return marks_owner(out)


def _is_empty_dir(out: Path) -> bool:
    with os.scandir(out) as it:
        return next(it, None) is None


def check_output_dir(out: Path, inventory: Path | None = None) -> Path:
    """The resolved directory railfabric may replace, or OutputRefused saying why and what to do."""
    given = str(out)
    if out.is_symlink() and not out.exists():
        raise OutputRefused(f"--out {given} is a dangling symbolic link; remove it or choose another directory")
    if out.exists() and not out.is_dir():
        raise OutputRefused(f"--out {given} is a file, not a directory; railfabric writes a directory of files. "
                            "Choose a new or railfabric-owned directory (default: generated)")
    target = out.resolve()
    _refuse_special(given, target, inventory)
    if target.is_dir() and not owned(target) and not _is_empty_dir(target):
        raise OutputRefused(
            f"--out {given} exists and is not a railfabric output directory (no {MANIFEST} written by railfabric "
            "in it). railfabric replaces its output directory as a whole, so it only writes into a new, an empty "
            "or its own directory: choose another --out, or empty this one yourself if it really is yours to lose")
    return target


def _refuse_special(given: str, target: Path, inventory: Path | None) -> None:
    """Refuse the directories that are never an output directory, whatever they hold."""
    reasons: list[tuple[Path, str]] = [(Path(target.anchor), "the file system root")]
    home = _home()
    if home is not None:
        reasons.append((home, "your home directory"))
    cwd = Path.cwd().resolve()
    reasons.append((cwd, "the current directory"))
    for start in {cwd, target.parent} | ({inventory.resolve()} if inventory is not None else set()):
        root = _git_root(start)
        if root is not None:
            reasons.append((root, f"the root of the git work tree {root}"))
    if inventory is not None:
        inv = inventory.resolve()
        reasons.append((inv, f"the inventory {inventory}"))
        if inv.is_dir() and _within(target, inv):
            how = "is" if target == inv else "lies inside"
            raise OutputRefused(f"--out {given} {how} the inventory {inventory}: choose a directory outside it "
                                "(default: generated)")
    if (target / ".git").exists():
        raise OutputRefused(f"--out {given} is a git work tree's root: choose a directory inside it, such as "
                            "generated")
    for place, what in reasons:
        if _within(place, target):
            how = "is" if place == target else "contains"
            raise OutputRefused(f"--out {given} {how} {what}: railfabric replaces its output directory as a whole; "
                                "choose a directory of its own (default: generated)")


# --------------------------------------------------------------------------- lock and leftovers


def leftovers(target: Path) -> list[Path]:
    """Temporary trees a killed render left beside `target` (`.<name>.new-*` / `.<name>.old-*`, and staging
    directories `.<name>.stage-*` that no running render holds: fabric.staging)."""
    from fabric.staging import STAGE_INFIX, in_use

    try:
        entries = list(os.scandir(target.parent))
    except FileNotFoundError:
        return []
    prefixes = (f".{target.name}.new-", f".{target.name}.old-", f".{target.name}{STAGE_INFIX}")
    return sorted(Path(e.path) for e in entries
                  if e.name.startswith(prefixes) and e.is_dir(follow_symlinks=False)
                  and not (STAGE_INFIX in e.name and in_use(Path(e.path))))


@contextlib.contextmanager
def render_lock(target: Path, say: Callable[[str], object] | None = None) -> Iterator[list[Path]]:
    """Hold the lock of the directory that holds `target` (one writer at a time; a lock on the directory itself, so
    no lock file is left behind) and remove the leftovers of killed renders under it; an update a killed render had
    decided (its journal, fabric.journal) is completed first. Yields the leftovers removed.
    Waits up to LOCK_WAIT_S for another render to finish."""
    fd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise OSError(errno.EWOULDBLOCK, "another fabric render is still writing it",
                                  str(target)) from None
                if not told and say is not None:
                    say(f"waiting for another fabric render to finish writing {target}")
                    told = True
                time.sleep(0.1)
        removed = leftovers(target)
        for path in removed:
            if recover(target, path) and say is not None:  # a killed render's decided update: completed first
                say(f"completed the update of {target} that an interrupted render had begun")
            shutil.rmtree(path, ignore_errors=True)
        yield removed
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def dir_mode(target: Path) -> int:
    """The mode the output directory gets: the existing directory's, else what the user's umask gives."""
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o777 & ~mask
