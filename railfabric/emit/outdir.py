"""The output directory: which directories railfabric may replace, the lock around a render, and the leftovers of a
killed one.

railfabric replaces a whole directory (see `emit.write_tree`), so it must be sure the directory is its own:
- it does not exist yet, or it is an empty directory, or it holds railfabric's marker (the `manifest.json` of an
  earlier render, `"tool": "railfabric"`; or a damaged manifest among nothing but what a render writes, see
  railfabric.emit.manifest.marks_owner);
- it is not a file, and it is not, does not contain and does not lie inside the inventory;
- it is not and does not contain a git work tree's root, `/`, the user's home or the current directory;
- it is not a symbolic link, and no directory above it is one where someone else's files could have put it: below
  the current directory, or inside a git work tree (a pull request can commit `generated -> /etc`). Links above
  that (a system's `/home -> /usr/home`) are the machine's own. Links INSIDE the output directory are not refused:
  `render --check` and `plan` report each one, and a render replaces them by its own files without following any
  (railfabric/emit/write.py, railfabric/emit/intact.py).
Anything else is refused with `OutputRefused` before a single byte is written (`render --check` and `plan` refuse the
same directories before reading them: a comparison with `/` would walk the whole file system).

One render at a time writes an output directory: `render_lock`, held by `fabric render` from before it reads the
earlier render until it has written (railfabric.cli.render), so a second render waits for the first and then renders
against what it wrote. It waits up to LOCK_WAIT_S (60 s), saying so and naming the process that holds the lock when
the kernel tells (/proc/locks), then fails (exit 2).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from railfabric.core.text import one_line
from railfabric.emit.journal import recover
from railfabric.emit.manifest import MANIFEST as MANIFEST
from railfabric.emit.manifest import marks_owner

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
    that holds only what a render writes: railfabric.emit.manifest.marks_owner)?"""
    return marks_owner(out)


def _is_empty_dir(out: Path) -> bool:
    with os.scandir(out) as it:
        return next(it, None) is None


def check_output_dir(out: Path, inventory: Path | None = None, comparing: bool = False) -> Path:
    """The resolved directory railfabric may replace, or OutputRefused saying why and what to do. `comparing`
    (`render --check`, `plan`: nothing is written): a directory whose manifest.json is a file of its own but not a
    valid marker (corrupt, cut short) is compared too, so the check can name it; a directory without one is
    refused before it is walked (`--out /usr` would list the whole tree)."""
    given = one_line(str(out), 200)
    _refuse_links(out, given)
    if out.exists() and not out.is_dir():
        raise OutputRefused(f"--out {given} is a file, not a directory; railfabric writes a directory of files. "
                            "Choose a new or railfabric-owned directory (default: generated)")
    target = out.resolve()
    _refuse_special(given, target, inventory)
    if (target / MANIFEST).is_symlink():
        raise OutputRefused(f"--out {given} holds {MANIFEST} as a symbolic link (-> {_link_target(target / MANIFEST)})"
                            f": railfabric's marker must be its own file, so the directory is not known to be "
                            "railfabric's; choose another --out, or remove the directory yourself if it is yours")
    marked = owned(target) or (comparing and (target / MANIFEST).is_file())
    if comparing and target.is_dir() and not marked and not _is_empty_dir(target):
        raise OutputRefused(f"--out {given} exists and is not a railfabric output directory (no {MANIFEST} in it): "
                            "`render --check` and `plan` compare railfabric's output directories only; give the one "
                            "`fabric render` wrote (default: generated)")
    if target.is_dir() and not marked and not _is_empty_dir(target):
        raise OutputRefused(
            f"--out {given} exists and is not a railfabric output directory (no {MANIFEST} written by railfabric "
            "in it). railfabric replaces its output directory as a whole, so it only writes into a new, an empty "
            "or its own directory: choose another --out, or empty this one yourself if it really is yours to lose")
    return target


def _link_target(path: Path) -> str:
    from railfabric.core.textsafe import quote  # here: the CLI imports this module at start-up

    try:
        return quote(os.readlink(path), 120)
    except OSError:
        return "?"


def _refuse_links(out: Path, given: str) -> None:
    """Refuse an output directory that is a symbolic link, or lies below one that a work tree's content could have
    made (see the module docstring)."""
    if out.is_symlink():
        raise OutputRefused(f"--out {given} is a symbolic link (-> {_link_target(out)}); railfabric never writes "
                            "through one: remove the link, or give the directory it names as --out")
    cwd = Path(os.getcwd())  # physical: a link met below it is a link in the current directory
    parts = out.parts
    for depth in range(1, len(parts)):  # the path as given, part by part, as the kernel will walk it
        above = Path(*parts[:depth])
        if not above.is_symlink():
            continue
        if _within(Path(os.path.abspath(above)), cwd) or _git_root(above.parent.resolve()) is not None:
            raise OutputRefused(f"--out {given} lies under the symbolic link {one_line(str(above), 200)} (-> "
                                f"{_link_target(above)}); railfabric never writes through a link a work tree "
                                "holds: give the directory's real path as --out, or remove the link")


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
    directories `.<name>.stage-*` that no running render holds: railfabric.emit.staging)."""
    from railfabric.emit.staging import STAGE_INFIX, in_use

    try:
        entries = list(os.scandir(target.parent))
    except FileNotFoundError:
        return []
    prefixes = (f".{target.name}.new-", f".{target.name}.old-", f".{target.name}{STAGE_INFIX}")
    return sorted(Path(e.path) for e in entries
                  if e.name.startswith(prefixes) and e.is_dir(follow_symlinks=False)
                  and not (STAGE_INFIX in e.name and in_use(Path(e.path))))


# The locks this process holds: {directory: (descriptor, thread)}. A render takes its lock before it reads the earlier
# render and writes under it later (railfabric.emit.write): the same thread taking it again is let through. Forked
# children (render workers, the background hashing) close their copies, so a child that outlives its render holds
# nothing.
_HELD: dict[str, tuple[int, int]] = {}


def _forget_locks() -> None:
    for fd, _thread in _HELD.values():
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_locks)

LOCK_SAY_EVERY_S = 10.0  # a waiting render says it is still waiting this often


@contextlib.contextmanager
def render_lock(target: Path, say: Callable[[str], object] | None = None) -> Iterator[list[Path]]:
    """Hold the lock of the directory that holds `target` (one writer at a time; a lock on the directory itself, so
    no lock file is left behind) and remove the leftovers of killed renders under it; an update a killed render had
    decided (its journal, railfabric.emit.journal) is completed first. Yields the leftovers removed (none when this
    thread holds the lock already). Waits up to LOCK_WAIT_S for another render to finish, saying so to `say`."""
    key = os.path.realpath(target.parent)
    if _HELD.get(key, (-1, -1))[1] == threading.get_ident():
        yield []
        return
    fd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    held = False
    try:
        _wait_for(fd, target, say)
        _HELD[key] = (fd, threading.get_ident())
        held = True
        removed = leftovers(target)
        for path in removed:
            if (done := recover(target, path)) is not None and say is not None:  # a killed render's decided
                say(done.describe(target))  # update: completed first (railfabric.emit.journal)
            shutil.rmtree(path, ignore_errors=True)
        yield removed
    finally:
        if not held or _HELD.pop(key, None) is not None:  # (a forked child closed its copy already)
            os.close(fd)  # closing the descriptor releases the lock


def _wait_for(fd: int, target: Path, say: Callable[[str], object] | None) -> None:
    """Take the lock on `fd`, polling for up to LOCK_WAIT_S while another render holds it; OSError(EWOULDBLOCK)
    naming the holder when it is still held then."""
    start = time.monotonic()
    told = -LOCK_SAY_EVERY_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            waited = time.monotonic() - start
            if waited > LOCK_WAIT_S:
                raise OSError(errno.EWOULDBLOCK, f"another fabric render{lock_holder(fd)} is still writing it after "
                              f"{LOCK_WAIT_S:g} s; nothing was written: run again when it has finished",
                              str(target)) from None
            if say is not None and waited - told >= LOCK_SAY_EVERY_S:
                told = waited
                say(f"waiting for another fabric render{lock_holder(fd)} to finish with {target} "
                    f"({waited:.0f} s of at most {LOCK_WAIT_S:g} s)")
            time.sleep(0.1)


def lock_holder(fd: int) -> str:
    """' (process N: its command line)' for the process holding the flock on `fd`'s file when /proc/locks names
    it (Linux), else ''. The command line is escaped and cut (it is another process's text)."""
    st = os.fstat(fd)
    where = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            rows = [line.split() for line in fh]
    except OSError:
        return ""
    for row in rows:  # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a waiter's row has "->" after the number
        if len(row) >= 6 and row[1] == "FLOCK" and row[5] == where and row[4].isdigit():
            return f" (process {row[4]}{_command(row[4])})"
    return ""


def _command(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            words = fh.read(4096).rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
    return f": {one_line(words, 100)}" if words else ""


def dir_mode(target: Path) -> int:
    """The mode the output directory gets: the existing directory's, else what the user's umask gives."""
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o777 & ~mask
