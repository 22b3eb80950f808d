"""Writing the output directory (the only code that writes generated/), all or nothing. A small change (at most 1
in IN_PLACE_SHARE files) is made in place: only the files that differ are moved in, under a journal that makes the
set atomic (railfabric.emit.journal). A larger one, or a new output directory, is built as a new tree beside generated/
(unchanged files hard-linked) and the directories are swapped. Either way unchanged files keep their inode and
mtime, nothing is touched when nothing changed, and an error leaves generated/ exactly as it was.

A symbolic link under generated/ (a file or a directory, at any depth, dot names included: railfabric.emit.intact lists
them) is never followed and never kept: the render replaces it. Its files count as missing (railfabric.emit.compare), so
the render always builds a new tree (never in place, where a move into `configs/<switch>/` would go through a linked
directory) in a fresh private directory beside generated/ (mkdtemp: nothing in it is a link), links into it only
files the listing reached through real directories, and swaps it in: the link goes away with the old tree, which
shutil.rmtree removes without following links. Nothing is written outside the output directory. A link on the
output directory itself, or on a directory above it inside the work tree, is refused before anything is read
(railfabric.emit.outdir.check_output_dir)."""

from __future__ import annotations

import errno
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from railfabric.emit import journal, manifest
from railfabric.emit.compare import Content, Diff, compare, payload
from railfabric.emit.outdir import check_output_dir, dir_mode, render_lock
from railfabric.emit.reuse import Reuse
from railfabric.emit.staging import Stage, Staged

Say = Callable[[str], None]


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories in one atomic step (Linux renameat2 RENAME_EXCHANGE); False when unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


def write_tree(out: Path, files: Mapping[str, Content], inventory: Path | None = None,
               say: Say | None = None, stage: Stage | None = None, since: Reuse | None = None) -> Diff:
    """Make `out` hold exactly `files`. Returns what changed; does nothing when nothing did. A small change is made
    in place (`_update_in_place`), a larger one by swapping a new tree in (`_swap_in`). With the `stage` the files
    were staged in (railfabric.emit.staging), and when it lies beside `out`, the files made afresh are moved in from
    there (in place), or it becomes the new tree itself with the kept files linked in (swap): nothing is written twice.

    `out` must be railfabric's to replace (see `railfabric.emit.outdir.check_output_dir`: new, empty, or holding the
    manifest of an earlier render; never the inventory, a repository root, `/` or the home directory), else
    OutputRefused is raised before anything is touched. Writing runs under the output directory's lock, which also
    clears the leftovers of a killed render. `since`: the earlier render in `out` that `files` reuses
    (railfabric.emit.reuse): if another render replaced it meanwhile, the files kept from it are no longer what is
    there, so nothing is written and OSError(EBUSY) says to run again."""
    target = check_output_dir(out, inventory)
    target.parent.mkdir(parents=True, exist_ok=True)
    with render_lock(target, say):
        target = check_output_dir(out, inventory)  # again under the lock: another writer may have been first
        if since is not None and since.out is not None and manifest.identity(target) != since.seen:
            raise OSError(errno.EBUSY, "another fabric render wrote it while this one ran (nothing written): run "
                          "again", str(target))
        diff = compare(target, files)
        if not diff.clean and not _update_in_place(target, files, diff, stage):
            _swap_in(target, files, diff, stage)
    return diff


IN_PLACE_SHARE = 4  # an update that touches at most 1 in 4 of the files is made in place (railfabric.emit.journal)


def _update_in_place(target: Path, files: Mapping[str, Content], diff: Diff, stage: Stage | None) -> bool:
    """Update `target` in place (railfabric.emit.journal) when it exists and the change is small: the files that differ
    are staged (those produced afresh into a stage beside `target` are already; without one, a stage is made for them)
    and moved in; the others are not touched. False when the new tree must be swapped in instead (also when the
    stage lies elsewhere: moves must be renames within one file system)."""
    place = sorted([*diff.changed, *diff.added])
    if (len(place) + len(diff.removed)) * IN_PLACE_SHARE > len(files) or not target.is_dir() \
            or os.path.islink(target) or diff.links:  # a link inside: a new tree, in which no link is followed
        return False
    if stage is None:
        with Stage(target) as own:
            return _commit(target, files, diff, own, place)
    return _commit(target, files, diff, stage, place)


def _commit(target: Path, files: Mapping[str, Content], diff: Diff, stage: Stage, place: list[str]) -> bool:
    if os.path.realpath(stage.path.parent) != os.path.realpath(target.parent) \
            or os.stat(stage.path).st_dev != os.stat(target).st_dev or not stage.take():  # moves must be renames
        return False
    base = os.fspath(stage.path)
    try:
        for rel in place:
            data = files[rel]
            if not (isinstance(data, Staged) and data.source == os.path.join(base, rel)):
                stage.put(rel, payload(data))
        journal.commit(target, stage.path, place, sorted(diff.removed))
    except OSError as exc:
        raise _named(exc, stage.path, target) from exc
    return True


def _named(exc: OSError, private: Path, target: Path) -> OSError:
    """`exc` naming the directory the user asked for instead of a private one of ours."""
    where = exc.filename
    if where is None or str(where).startswith(str(private)):
        where = target
    return OSError(exc.errno, exc.strerror or str(exc), str(where))


def _fill(tree: Path, target: Path, files: Mapping[str, Content], changed: set[str]) -> None:
    """Fill the new tree: unchanged files hard-linked from `target` (same inode and mtime: not rewritten), staged
    ones (railfabric.emit.staging) hard-linked from the staging directory, the rest written. `tree` may be the staging
    directory itself: its staged files are in place already, and one whose bytes did not change is swapped for a
    link to the old file."""
    base, old = os.fspath(tree), os.fspath(target)
    # the files the stage holds in place already (a cold render: all of them); their directories exist
    placed = {p for p, data in files.items() if isinstance(data, Staged) and data.source == os.path.join(base, p)}
    for folder in sorted({p.rpartition("/")[0] for p in files if p not in placed} - {""}):
        os.makedirs(os.path.join(base, folder), exist_ok=True)
    for path, data in files.items():
        here = path in placed
        if here and path in changed:
            continue  # made by this render, where it belongs
        dest = os.path.join(base, path)
        if path not in changed and _link(os.path.join(old, path), dest, replace=here):
            continue
        if here or (isinstance(data, Staged) and _link(data.source, dest)):
            continue  # in place already (its copy has the same bytes when the link above failed), or linked
        with open(dest, "wb") as fh:
            fh.write(payload(data))
    _keep_dotted(tree, target)


def _link(source: str, dest: str, replace: bool = False) -> bool:
    """Hard-link `source` as `dest` (over it, atomically, with `replace`); False when the file system refuses."""
    try:
        if replace:
            spare = f"{dest}.railfabric-link"
            os.link(source, spare)
            os.replace(spare, dest)
        else:
            os.link(source, dest)
    except OSError:
        return False
    return True


def _keep_dotted(tree: Path, target: Path) -> None:
    """Link the dot files of the old tree, and whatever lies in its dot directories (.gitkeep, .gitattributes, a
    tool's .cache/), into the new one: they are not ours to drop."""
    if target.is_dir():
        for dotted in _dotted(target):
            keep = tree / dotted.relative_to(target)
            keep.parent.mkdir(parents=True, exist_ok=True)
            os.link(dotted, keep)


def _dotted(target: Path) -> list[Path]:
    """Regular files under `target` whose own name or some parent directory's name starts with a dot."""
    found: list[Path] = []
    for folder, dirs, names in os.walk(target):
        here = Path(folder)
        dotted_dir = any(part.startswith(".") for part in here.relative_to(target).parts)
        for name in names:
            p = here / name
            if (dotted_dir or name.startswith(".")) and p.is_file() and not p.is_symlink():
                found.append(p)
        dirs.sort()
    return found


def _swap_in(target: Path, files: Mapping[str, Content], diff: Diff, stage: Stage | None = None) -> None:
    parent = target.parent
    in_place = stage is not None and os.path.realpath(stage.path.parent) == os.path.realpath(parent) and stage.take()
    try:
        tmp = stage.path if in_place and stage is not None else \
            Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=parent))
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(target)) from exc
    try:
        os.chmod(tmp, dir_mode(target))  # mkdtemp makes 0700; the output keeps the user's mode
        _fill(tmp, target, files, set(diff.added) | set(diff.changed))
        if target.exists() and _exchange(tmp, target):
            _remove_old(tmp, target, len(files))  # tmp now holds the old tree
        else:
            old = None
            if target.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=parent))
                old.rmdir()
                os.rename(target, old)
            os.rename(tmp, target)
            if old is not None:
                _remove_old(old, target, len(files))
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise _named(exc, tmp, target) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


BACKGROUND_REMOVAL_MIN = 10_000  # files: an old tree this large is removed by a detached process


def _remove_old(tree: Path, target: Path, files: int) -> None:
    """Remove the old tree after the swap. A large one (tens of thousands of files: about a second) is renamed to a
    leftover's name (.<name>.old-*) and removed by a detached process, so the command does not wait for it; if that
    process is killed, the next render's cleanup removes the rest (railfabric.emit.outdir.leftovers)."""
    if files < BACKGROUND_REMOVAL_MIN or not hasattr(os, "fork"):
        shutil.rmtree(tree, ignore_errors=True)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    try:
        old.rmdir()
        os.rename(tree, old)  # its own name: the stage's cleanup (railfabric.emit.staging) no longer sees it
        child = os.fork()
    except OSError:
        shutil.rmtree(old if old.exists() else tree, ignore_errors=True)
        return
    if child == 0:  # detach: a grandchild removes the tree, so nobody has to reap it
        try:
            if os.fork() == 0:
                os.setsid()
                shutil.rmtree(old, ignore_errors=True)
        finally:
            os._exit(0)
    os.waitpid(child, 0)
