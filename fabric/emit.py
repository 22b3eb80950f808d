"""The emit stage: the only code that writes files.

`build_files` turns a validated pipeline result into {path under generated/: bytes} in memory (device configs,
artifacts, manifest). `write_tree` makes generated/ equal to that, atomically: it builds the new tree in a temporary
directory beside generated/ (unchanged files are hard-linked, so they keep their inode and mtime: not rewritten),
then swaps the directories. Nothing is touched when nothing changed, and any error before the swap leaves
generated/ exactly as it was. `compare` and `plan` read only.
"""

from __future__ import annotations

import difflib
import gc
import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from fabric import __version__
from fabric.canonical import inventory_digest
from fabric.device import DeviceConfig, build_devices
from fabric.outdir import MANIFEST, OutputRefused, check_output_dir, dir_mode, leftovers, render_lock
from fabric.outputs import artifacts
from fabric.outputs.docs import docs_files
from fabric.pipeline import Result
from fabric.render import RenderError, render_device

Progress = Callable[[str], None]

# --------------------------------------------------------------------------- building (in memory)

_WORK: list[DeviceConfig] = []  # devices for forked workers (inherited, never pickled)


def _render_chunk(bounds: tuple[int, int]) -> list[tuple[str, dict[str, str]]]:
    return [(d.hostname, render_device(d)) for d in _WORK[bounds[0]:bounds[1]]]


def render_all(devices: list[DeviceConfig], workers: int = 1,
               meanwhile: Callable[[], object] | None = None) -> tuple[dict[str, dict[str, str]], object]:
    """hostname → {file name: text}, and the result of `meanwhile()`, which runs in this process while forked
    workers render. The output does not depend on the worker count."""
    global _WORK
    workers = bounded_workers(workers, len(devices))
    if workers <= 1 or len(devices) < 64 or sys.platform == "win32":
        return {d.hostname: render_device(d) for d in devices}, meanwhile() if meanwhile else None
    import multiprocessing

    _WORK = devices
    try:
        step = max(16, len(devices) // (workers * 8))
        chunks = [(i, min(i + step, len(devices))) for i in range(0, len(devices), step)]
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = [pool.submit(_render_chunk, c) for c in chunks]
            extra = meanwhile() if meanwhile else None
            out: dict[str, dict[str, str]] = {}
            for fut in futures:
                out.update(fut.result())
        return out, extra
    finally:
        _WORK = []


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask, which containers and taskset narrow)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def bounded_workers(requested: int, devices: int) -> int:
    """Render processes actually used: at least 1, at most the CPUs available and the devices to render."""
    return max(1, min(requested, available_cpus(), devices))


def input_digest(res: Result) -> str:
    """Hash of the inventory's meaning (see fabric.canonical): reordering YAML keys, or a list whose order has no
    meaning (pods, segments, ...), does not change it."""
    assert res.inventory is not None
    return inventory_digest(res.inventory)


def build_files(res: Result, workers: int = 1, progress: Progress | None = None) -> dict[str, bytes]:
    """Everything generated/ should hold, as bytes, keyed by POSIX path relative to generated/.
    The cyclic GC is paused meanwhile (millions of short-lived acyclic objects; it only costs time)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _build_files(res, workers, progress or (lambda _m: None))
    finally:
        if enabled:
            gc.enable()


def _build_files(res: Result, workers: int, say: Progress) -> dict[str, bytes]:
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    inv, topo, plan = res.inventory, res.topology, res.plan
    devices = build_devices(inv, topo, plan)
    say(f"device model: {len(devices):,} switches")
    rendered, extra = render_all(list(devices.values()), workers, lambda: artifacts(inv, topo, plan, devices))
    say(f"rendered {sum(len(v) for v in rendered.values()):,} config files and the artifacts")
    files: dict[str, bytes] = {}
    for host in sorted(rendered):
        for name, text in sorted(rendered[host].items()):
            files[f"configs/{host}/{name}"] = text.encode()
    for path, text in extra.items():  # type: ignore[attr-defined]
        files[path] = text.encode()
    if res.report is not None:
        files["report.json"] = (json.dumps(res.report, indent=2, sort_keys=True) + "\n").encode()
        summary = res.summary()
        if summary is not None:
            files.update((p, t.encode()) for p, t in docs_files(inv, topo, res.report, summary).items())
    manifest = {
        "tool": "railfabric",
        "version": __version__,
        "input_sha256": input_digest(res),
        "files": {p: hashlib.sha256(b).hexdigest() for p, b in sorted(files.items())},
    }
    files[MANIFEST] = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    return dict(sorted(files.items()))


# --------------------------------------------------------------------------- comparing


@dataclass
class Diff:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.added or self.removed or self.changed)


def existing_files(out: Path) -> dict[str, Path]:
    if not out.is_dir():
        return {}
    found = {}
    for p in out.rglob("*"):
        if p.is_file() and not p.name.startswith("."):
            found[p.relative_to(out).as_posix()] = p
    return found


def compare(out: Path, files: dict[str, bytes]) -> Diff:
    have = existing_files(out)
    diff = Diff()
    for path, data in files.items():
        if path not in have:
            diff.added.append(path)
        elif have[path].stat().st_size != len(data) or have[path].read_bytes() != data:
            diff.changed.append(path)
    diff.removed = sorted(set(have) - set(files))
    return diff


def unified(out: Path, path: str, new: bytes | None, context: int = 2) -> list[str]:
    old_path = out / path
    old = old_path.read_bytes().decode(errors="replace").splitlines() if old_path.is_file() else []
    cur = new.decode(errors="replace").splitlines() if new is not None else []
    return list(difflib.unified_diff(old, cur, f"a/{path}", f"b/{path}", n=context, lineterm=""))


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


def write_tree(out: Path, files: dict[str, bytes], inventory: Path | None = None,
               say: Progress | None = None) -> Diff:
    """Make `out` hold exactly `files`. Returns what changed; does nothing when nothing did.

    `out` must be railfabric's to replace (see `fabric.outdir.check_output_dir`: new, empty, or holding the
    manifest of an earlier render; never the inventory, a repository root, `/` or the home directory), else
    OutputRefused is raised before anything is touched. The swap runs under the output directory's lock, which also
    clears the leftovers of a killed render."""
    target = check_output_dir(out, inventory)
    diff = compare(target, files)
    if diff.clean and not leftovers(target):
        return diff
    target.parent.mkdir(parents=True, exist_ok=True)
    with render_lock(target, say):
        target = check_output_dir(out, inventory)  # again under the lock: another writer may have been first
        diff = compare(target, files)
        if not diff.clean:
            _swap_in(target, files, diff)
    return diff


def _fill(tmp: Path, target: Path, files: dict[str, bytes], changed: set[str]) -> None:
    """Write the new tree into `tmp`: changed files written, unchanged ones hard-linked from `target`."""
    for folder in sorted({(tmp / p).parent for p in files}):
        folder.mkdir(parents=True, exist_ok=True)
    for path, data in files.items():
        dest = tmp / path
        if path not in changed:
            try:
                os.link(target / path, dest)  # unchanged: same inode, same mtime
                continue
            except OSError:
                pass
        with open(dest, "wb") as fh:
            fh.write(data)
    # keep dot-files of the old tree (e.g. .gitkeep, .gitattributes): they are not ours to drop
    if target.is_dir():
        for p in target.rglob(".*"):
            if p.is_file() and not p.is_symlink():
                dest = tmp / p.relative_to(target)
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.link(p, dest)


def _swap_in(target: Path, files: dict[str, bytes], diff: Diff) -> None:
    parent = target.parent
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=parent))
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(target)) from exc
    try:
        os.chmod(tmp, dir_mode(target))  # mkdtemp makes 0700; the output keeps the user's mode
        _fill(tmp, target, files, set(diff.added) | set(diff.changed))
        if target.exists() and _exchange(tmp, target):
            shutil.rmtree(tmp, ignore_errors=True)  # tmp now holds the old tree
        else:
            old = None
            if target.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=parent))
                old.rmdir()
                os.rename(target, old)
            os.rename(tmp, target)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        where = exc.filename
        if where is None or str(where).startswith(str(tmp)):  # name what the user asked for, not our temp tree
            where = target
        raise OSError(exc.errno, exc.strerror or str(exc), str(where)) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


__all__ = ["Diff", "OutputRefused", "RenderError", "build_files", "compare", "unified", "write_tree"]
