"""The emit stage: the only code that writes files.

`build_files` turns a validated pipeline result into {path under generated/: bytes} in memory (device configs,
artifacts, manifest). `write_tree` makes generated/ equal to that, all or nothing. A small change
(at most 1 in 4 files) is made in place: only the files that differ are moved in, under a journal that makes the set
atomic (fabric.journal). A larger one, or a new output directory, is built as a new tree beside generated/
(unchanged files hard-linked) and the directories are swapped. Either way unchanged files keep their inode and
mtime, nothing is touched when nothing changed, and an error leaves generated/ exactly as it was. `compare` and
`plan` read only.
"""

from __future__ import annotations

import difflib
import errno
import gc
import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from fabric import __version__, journal, manifest
from fabric.canonical import inventory_digest
from fabric.device import DeviceConfig, build_devices
from fabric.digest import combine, model_digests, platform_digest
from fabric.intact import listing
from fabric.outdir import MANIFEST, OutputRefused, check_output_dir, dir_mode, render_lock
from fabric.outputs import ARTIFACTS, Part, Sources, artifact_parts
from fabric.pipeline import Result
from fabric.platforms import PLATFORMS
from fabric.progress import SILENT, Progress
from fabric.render import RenderError
from fabric.reuse import Kept, Reuse, code_sha256
from fabric.staging import Stage, Staged
from fabric.workers import Early, bounded_workers, produce, render_all

Say = Callable[[str], None]
T = TypeVar("T")

# --------------------------------------------------------------------------- building (in memory)

def input_digest(res: Result) -> str:
    """Hash of the inventory's meaning (see fabric.canonical): reordering YAML keys, or a list whose order has no
    meaning (pods, segments, ...), does not change it."""
    assert res.inventory is not None
    return inventory_digest(res.inventory)


Content = bytes | Kept | Staged


@dataclass
class Tree:
    """What generated/ should hold: path → bytes (rendered now) or Kept (reused from the output directory), and
    which devices and artifacts were produced afresh."""
    files: dict[str, Content]
    rendered: tuple[str, ...] = ()
    built: tuple[str, ...] = ()


def payload(content: Content) -> bytes:
    return content if isinstance(content, bytes) else content.read()


def build_files(res: Result, workers: int = 1, progress: Progress = SILENT) -> dict[str, bytes]:
    """Everything generated/ should hold, as bytes, keyed by POSIX path relative to generated/ (a cold render)."""
    tree = build_tree(res, workers, progress)
    return {p: payload(c) for p, c in tree.files.items()}


def build_tree(res: Result, workers: int = 1, progress: Progress = SILENT, cache: Path | None = None,
               reuse: Reuse | None = None, stage: Stage | None = None, models: Models | None = None) -> Tree:
    """Everything generated/ should hold. With `cache` (an earlier render's output directory) or `reuse` (one
    already opened, see fabric.reuse), devices and artifact parts whose digests match its manifest and whose files
    there are intact are not rendered again. With `stage` (fabric.staging) every file produced afresh is written
    there as it is made and stands in the tree as Staged, not as bytes. `models`: the device models already built
    (build_models, e.g. while the fabric was being checked). Each step is told to `progress`. The
    cyclic GC is paused meanwhile (millions of short-lived acyclic objects; it only costs time)."""
    enabled = gc.isenabled()
    gc.disable()
    own = reuse is None
    opened = Reuse(cache) if reuse is None else reuse
    try:
        return _build_tree(res, workers, progress, opened, stage, models)
    finally:
        if own:
            opened.close()
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class Models:
    """Every switch's device model (by hostname, in topology order) and its digest (fabric.digest_model)."""
    devices: dict[str, DeviceConfig]
    digests: dict[str, str]
    early: Early | None = None  # their configs, being rendered already (a render that keeps no device)


def build_models(res: Result, progress: Progress = SILENT, early: Early | None = None) -> Models:
    """The device models of an allocated fabric and their digests (the first step of a render; the CLI runs it while
    the pipeline's checks run in a second process: fabric.pipeline.run_with). With `early` (only for a render that
    will keep no device: nothing earlier to reuse) the configs start rendering in its workers as soon as the models
    exist, before they are digested; the caller closes it if the run ends otherwise."""
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    enabled = gc.isenabled()
    gc.disable()
    try:
        progress.stage("building the switches' device models", total=len(res.topology.switches))
        devices = build_devices(res.inventory, res.topology, res.plan, done=progress.advance)
        started = early is not None and early.start(list(devices.values()))
        return Models(devices, model_digests(devices), early if started else None)
    finally:
        if enabled:
            gc.enable()


def _reusable(reuse: Reuse, name: str, digest: str, entries: dict[str, manifest.Entry],
              platform: str = "") -> dict[str, Kept] | None:
    """The files of `name` kept from the earlier render when its digest matches the manifest and they are intact,
    else None."""
    old = entries.get(name)
    if old is None or old.digest != digest or old.platform != platform:
        return None
    return reuse.kept(old.files)


def _build_tree(res: Result, workers: int, progress: Progress, reuse: Reuse, stage: Stage | None,
                models: Models | None) -> Tree:
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    inv, topo, plan = res.inventory, res.topology, res.plan
    previous = reuse.previous
    have = models if models is not None else build_models(res, progress)
    devices, digests = have.devices, have.digests
    platforms = {p: platform_digest(p) for p in sorted({d.platform for d in devices.values()})}
    files: dict[str, Content] = {}
    device_entries: dict[str, manifest.Entry] = {}
    todo: list[DeviceConfig] = []
    for host, dev in devices.items():
        digest = combine([digests[host], platforms[dev.platform]])
        kept = _reusable(reuse, host, digest, previous.devices, dev.platform)
        if kept is None:
            todo.append(dev)
        else:
            files.update(kept)
        device_entries[host] = manifest.Entry(digest, tuple(sorted(f"configs/{host}/{spec.name}" for spec in
                                                                   PLATFORMS[dev.platform].files)), dev.platform)
    unchanged = len(devices) - len(todo)
    src = Sources(inv, topo, plan, devices, res.report, res.summary() if res.report is not None else None, digests)
    arts, art_entries, parts = _reused_parts(src, reuse)
    progress.stage("rendering the switch configs (and the fabric-wide files meanwhile)"
                   + (f"; {unchanged:,} unchanged switches kept" if unchanged else ""), total=len(todo))
    if have.early is not None:  # every device is being rendered already (started before anything was digested)
        if len(todo) != len(devices):
            raise AssertionError("configs rendered early for a render that keeps devices")
        have.early.report_to(progress.advance)
        made, _ = produce([], parts, workers, stage=stage, fabric=len(devices))
        made.configs = have.early.collect()
    else:
        made, _ = produce(todo, parts, workers, done=progress.advance, stage=stage, fabric=len(devices))
    for part, part_files in zip(parts, made.parts, strict=True):
        new = {p: m if isinstance(m, Staged) else m.encode() for p, m in part_files.items()}
        _claim(arts, new)
        art_entries[part.key] = manifest.Entry(part.digest, tuple(sorted(new)))
    built = tuple(dict.fromkeys(p.artifact for p in parts))
    reused = [a.name for a in ARTIFACTS if a.name not in built]
    progress.stage(f"assembling {sum(len(v) for v in made.configs.values()):,} config files and the manifest"
                   + (f" (fabric-wide files kept: {', '.join(reused)})" if reused else ""))
    for host in sorted(made.configs):
        for name, made_file in sorted(made.configs[host].items()):
            files[f"configs/{host}/{name}"] = made_file if isinstance(made_file, Staged) else made_file.encode()
    files.update(arts)
    shas = {p: hashlib.sha256(c).hexdigest() if isinstance(c, bytes) else c.sha256 for p, c in files.items()}
    files[MANIFEST] = manifest.document(
        {"tool": "railfabric", "version": __version__, "input_sha256": input_digest(res), "code_sha256": code_sha256(),
         "findings": len(res.findings)},
        shas, platforms, device_entries, dict(sorted(art_entries.items())))
    return Tree(dict(sorted(files.items())), tuple(sorted(made.configs)), built)


def _claim(have: dict[str, Content], new: Mapping[str, Content]) -> None:
    clash = have.keys() & new.keys()
    if clash:
        raise ValueError(f"two artifacts claim {sorted(clash)}")
    have.update(new)


def _reused_parts(src: Sources, reuse: Reuse) -> tuple[dict[str, Content], dict[str, manifest.Entry], list[Part]]:
    """Every part of every registered artifact (fabric.outputs.artifact_parts) whose digest matches the manifest's
    and whose files are intact is kept: (their files, their manifest entries by part key, the parts to build)."""
    kept_files: dict[str, Content] = {}
    entries: dict[str, manifest.Entry] = {}
    todo: list[Part] = []
    keys: set[str] = set()
    for part in artifact_parts(src):
        if part.key in keys:
            raise ValueError(f"two artifact parts are keyed {part.key!r}")
        keys.add(part.key)
        kept = _reusable(reuse, part.key, part.digest, reuse.previous.artifacts)
        if kept is None:
            todo.append(part)
            continue
        _claim(kept_files, kept)
        entries[part.key] = manifest.Entry(part.digest, tuple(sorted(kept)))
    return kept_files, entries, todo


# --------------------------------------------------------------------------- comparing


@dataclass
class Diff:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.added or self.removed or self.changed)


def _differs(have: str, content: Content) -> bool:
    if isinstance(content, Staged):
        if os.stat(have).st_size != content.size:
            return True
        with open(have, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest() != content.sha256
    if isinstance(content, Kept):
        if have == content.source:  # verified against the manifest's sha256 (and its size) when it was kept
            return False
        if os.stat(have).st_size != content.size:
            return True
        with open(have, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest() != content.sha256
    if os.stat(have).st_size != len(content):
        return True
    with open(have, "rb") as fh:
        return fh.read() != content


def compare(out: Path, files: Mapping[str, Content], have: Mapping[str, str] | None = None) -> Diff:
    """What differs between `out` and `files`. `have`: `out`'s listing (fabric.intact.listing) when it was taken
    already (by the background hashing of fabric.reuse, for a comparison that only reports)."""
    if have is None:
        have = listing(out)
    diff = Diff()
    for path, data in files.items():
        where = have.get(path)
        if where is None:
            diff.added.append(path)
        elif _differs(where, data):
            diff.changed.append(path)
    diff.removed = sorted(set(have) - set(files))
    return diff


def unified(out: Path, path: str, new: Content | None, context: int = 2) -> list[str]:
    """A unified diff of generated/`path` against `new`. The lines both share at the start and the end are set
    aside first (difflib is quadratic in what it compares: a one-line change in a 100,000-line CSV takes seconds
    otherwise); hunk line numbers are those of the whole files."""
    old_path = out / path
    old = old_path.read_bytes().decode(errors="replace").splitlines() if old_path.is_file() else []
    cur = payload(new).decode(errors="replace").splitlines() if new is not None else []
    head = 0
    while head < len(old) and head < len(cur) and old[head] == cur[head]:
        head += 1
    tail = 0
    while tail < len(old) - head and tail < len(cur) - head and old[-1 - tail] == cur[-1 - tail]:
        tail += 1
    lo = max(0, head - context)
    lines = list(difflib.unified_diff(old[lo:len(old) - tail + min(tail, context)],
                                      cur[lo:len(cur) - tail + min(tail, context)],
                                      f"a/{path}", f"b/{path}", n=context, lineterm=""))
    return [_shift(line, lo) for line in lines]


def _shift(line: str, offset: int) -> str:
    """A hunk header of a diff of slices starting at line `offset`, renumbered for the whole files."""
    if not offset or not line.startswith("@@ "):
        return line
    old, new = line[3:line.index(" @@")].split(" ")

    def moved(rng: str) -> str:
        start, _, count = rng[1:].partition(",")  # an empty range's start is the line before it: shifts alike
        return f"{rng[0]}{int(start) + offset}" + (f",{count}" if count else "")

    return f"@@ {moved(old)} {moved(new)} @@{line[line.index(' @@') + 3:]}"


# --------------------------------------------------------------------------- writing (atomic)


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
    """Make `out` hold exactly `files`. Returns what changed; does nothing when nothing did. With the `stage` the
    files were staged in (fabric.staging), that directory becomes the new tree when it lies beside `out`: the files
    made afresh are already in place, and only the kept ones are linked in.

    `out` must be railfabric's to replace (see `fabric.outdir.check_output_dir`: new, empty, or holding the
    manifest of an earlier render; never the inventory, a repository root, `/` or the home directory), else
    OutputRefused is raised before anything is touched. The swap runs under the output directory's lock, which also
    clears the leftovers of a killed render. `since`: the earlier render in `out` that `files` reuses (fabric.reuse):
    if another render replaced it meanwhile, the files kept from it are no longer what is there, so nothing is
    written and OSError(EBUSY) says to run again."""
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


IN_PLACE_SHARE = 4  # an update that touches at most 1 in 4 of the files is made in place (fabric.journal)


def _update_in_place(target: Path, files: Mapping[str, Content], diff: Diff, stage: Stage | None) -> bool:
    """Update `target` in place (fabric.journal) when it exists and the change is small: the files that differ are
    staged (those produced afresh into a stage beside `target` are already; without one, a stage is made for them)
    and moved in; the others are not touched. False when the new tree must be swapped in instead (also when the
    stage lies elsewhere: moves must be renames within one file system)."""
    place = sorted([*diff.changed, *diff.added])
    if (len(place) + len(diff.removed)) * IN_PLACE_SHARE > len(files) or not target.is_dir() \
            or os.path.islink(target):
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
    ones (fabric.staging) hard-linked from the staging directory, the rest written. `tree` may be the staging
    directory itself: its staged files are in place already, and one whose bytes did not change is swapped for a
    link to the old file."""
    base, old = os.fspath(tree), os.fspath(target)
    for folder in sorted({p.rpartition("/")[0] for p in files} - {""}):
        os.makedirs(os.path.join(base, folder), exist_ok=True)
    for path, data in files.items():
        dest = os.path.join(base, path)
        placed = isinstance(data, Staged) and data.source == dest
        if path not in changed and _link(os.path.join(old, path), dest, replace=placed):
            continue
        if placed or (isinstance(data, Staged) and _link(data.source, dest)):
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
    process is killed, the next render's cleanup removes the rest (fabric.outdir.leftovers)."""
    if files < BACKGROUND_REMOVAL_MIN or not hasattr(os, "fork"):
        shutil.rmtree(tree, ignore_errors=True)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    try:
        old.rmdir()
        os.rename(tree, old)  # its own name: the stage's cleanup (fabric.staging) no longer sees it
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


__all__ = ["Content", "Diff", "Kept", "OutputRefused", "RenderError", "Tree", "bounded_workers", "build_files",
           "build_tree", "compare", "payload", "render_all", "unified", "write_tree"]
