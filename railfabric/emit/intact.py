"""Which files of an earlier render are still exactly as it wrote them (so a new render may reuse them).

An incremental render reuses a device's or an artifact's files only when they hash to the sha256 the manifest
recorded: a hand-edited, truncated or deleted file is never reused, and `render --check` names it. At 65,536 GPUs
that is about 33,000 files and 780 MB to hash on every run, so the hashing starts as early as possible in a forked
process (`Verification.start`) and runs on the second core while this process validates the inventory and builds
the device models; `Verification.result()` collects it. Where fork is unavailable (Windows, or a caller that asks
for no process) it hashes in this process when the result is asked for. Pure reading: nothing here writes.

Listing the output directory (`listing`) uses os.scandir: pathlib's rglob costs about a second at that size.

Nothing under the output directory is reached through a symbolic link: whoever controls generated/ (a pull request
from a fork) could point `configs/<switch>` at /etc, or a config file at a secret with the recorded content. The
listing never enters a linked directory nor counts a linked file as a file, and names every link it meets
(`Listing.links`, with the link's own text: `render --check` and `plan` report each one as a difference, and a
render replaces it, railfabric/emit/write.py). Files are read (`NoFollow`) by opening each directory of their path
relative to its parent with O_NOFOLLOW | O_DIRECTORY and the file itself with O_NOFOLLOW (openat: a link swapped in
after the listing is refused, not followed), only when it is a regular file, and only for a relative path of plain
names: a manifest naming `../x` or `/etc/x` finds nothing.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from railfabric.core.cpus import can_fork

BACKGROUND_MIN = 256  # fewer files than this are hashed in this process: a fork costs more than it saves


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO never blocks the open


def plain_path(rel: str) -> bool:
    """Is `rel` a relative POSIX path of plain names (no empty, `.` or `..` part, no leading `/`, no NUL)?"""
    return bool(rel) and "\0" not in rel and all(part not in ("", ".", "..") for part in rel.split("/"))


class NoFollow:
    """Reads files below `root` without following a symbolic link anywhere below it (see the module docstring).
    The directories of the path read last stay open (a render reads a switch's files one after the other), the
    others are closed: at most one descriptor per level of depth. A context manager."""

    def __init__(self, root: Path | str) -> None:
        self._root = os.fspath(root)
        self._open: list[tuple[str, int]] = []  # (folder relative to root, its descriptor), root first

    def _folder(self, folder: str) -> int:
        """The descriptor of `folder` (relative to root, "" for root), opened part by part without following."""
        parts = folder.split("/") if folder else []
        keep = min(len(self._open), 1)  # the root stays open
        while keep < len(self._open) and keep <= len(parts) and self._open[keep][0] == "/".join(parts[:keep]):
            keep += 1
        for _, fd in self._open[keep:]:
            os.close(fd)
        del self._open[keep:]
        if not self._open:
            self._open.append(("", os.open(self._root, _DIR_FLAGS)))
        while len(self._open) <= len(parts):
            depth = len(self._open)
            fd = os.open(parts[depth - 1], _DIR_FLAGS, dir_fd=self._open[-1][1])
            self._open.append(("/".join(parts[:depth]), fd))
        return self._open[-1][1]

    def read(self, rel: str) -> bytes | None:
        """The bytes of the regular file `rel`, or None (missing, unreadable, a link on its way, not a file)."""
        if not plain_path(rel):
            return None
        folder, _, name = rel.rpartition("/")
        try:
            fd = os.open(name, _FILE_FLAGS, dir_fd=self._folder(folder))
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return None
            chunks = []
            while chunk := os.read(fd, max(st.st_size + 1, 1 << 16)):  # one read, then the end (or what it grew)
                chunks.append(chunk)
            return b"".join(chunks)
        except OSError:
            return None
        finally:
            os.close(fd)

    def close(self) -> None:
        for _, fd in self._open:
            os.close(fd)
        self._open = []

    def __enter__(self) -> NoFollow:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def read_file(out: Path | str, rel: str) -> bytes | None:
    """One file under `out`, read as `NoFollow` reads (None: missing, not a regular file, or behind a link)."""
    with NoFollow(out) as reader:
        return reader.read(rel)


def hash_files(out: Path, want: Mapping[str, str]) -> dict[str, int]:
    """{path: size} of the files under `out` whose sha256 is `want[path]`; a missing, unreadable or different file,
    or one behind a symbolic link (`NoFollow`), is left out."""
    found: dict[str, int] = {}
    try:
        reader = NoFollow(out)
        reader._folder("")
    except OSError:
        return found
    with reader:
        for path in sorted(want, key=lambda p: p.rpartition("/")[::2]):  # by folder: each opened once
            data = reader.read(path)
            if data is not None and hashlib.sha256(data).hexdigest() == want[path]:
                found[path] = len(data)
    return dict(sorted(found.items()))


@dataclass(frozen=True)
class Listing:
    """What `listing` finds under the output directory: its files ({POSIX path relative to it: its path under it,
    every symlink of the output directory's own path resolved}) and its symbolic links ({path: the link's text, as
    os.readlink gives it; whoever made the link chose it, so it is shown quoted})."""
    files: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)


def survey(out: Path, want: Mapping[str, str]) -> tuple[dict[str, int], Listing]:
    """What the background process finds: (hash_files(out, want), listing(out))."""
    return hash_files(out, want), listing(out)


class Verification:
    """The hashing of an earlier render's files, and the listing of its directory, started now and collected later
    (the listing serves the comparison at the end of `render --check` and `plan`, and the whole-run reuse)."""

    def __init__(self, out: Path | None, want: Mapping[str, str]) -> None:
        self.out = out
        self.want = dict(want)
        self._pool: ProcessPoolExecutor | None = None
        self._future: Future[tuple[dict[str, int], Listing]] | None = None
        self._result: tuple[dict[str, int], Listing] | None = None

    @classmethod
    def start(cls, out: Path | None, want: Mapping[str, str], background: bool = True) -> Verification:
        """Begin hashing `want` ({path: sha256}) under `out` (None: nothing to verify) in a forked process."""
        job = cls(out, want)
        if out is None or not job.want:
            job._result = ({}, listing(out) if out is not None else Listing())
        elif background and can_fork() and len(job.want) >= BACKGROUND_MIN:
            import multiprocessing

            try:
                job._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
                job._future = job._pool.submit(survey, out, job.want)
            except OSError:  # no process to spare: hash here, later
                job._close()
        return job

    def result(self) -> dict[str, int]:
        """{path: size} of every file that is as the manifest recorded it (waits for the hashing when needed)."""
        return self._collected()[0]

    def listing(self) -> Listing:
        """The output directory's files and links as `listing` found them when the hashing ran (in its order)."""
        return self._collected()[1]

    def _collected(self) -> tuple[dict[str, int], Listing]:
        if self._result is None:
            if self._future is not None:
                try:
                    self._result = self._future.result()
                except Exception:  # the process died (killed, out of memory): do the work here instead
                    self._result = None
                self._close()
            if self._result is None:
                assert self.out is not None
                self._result = survey(self.out, self.want)
        return self._result

    def cancel(self) -> None:
        """Stop caring about the result (an early exit); the process is not waited for."""
        if self._future is not None:
            self._future.cancel()
        self._close(wait=False)

    def _close(self, wait: bool = True) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)
            self._pool = None
        self._future = None


def listing(out: Path) -> Listing:
    """Every file under `out` that is not a dot file and not under a dot directory, and every symbolic link under
    `out` whatever its name (see `Listing`). Directories are entered only when they are directories themselves
    (never through a link); a link, to a file or a directory, dangling or looping, is a link, never a file."""
    found: dict[str, str] = {}
    links: dict[str, str] = {}
    if os.path.islink(out) or not out.is_dir():
        return Listing()
    stack: list[tuple[str, str, bool]] = [(os.path.realpath(out), "", False)]
    while stack:
        folder, rel, dotted = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = f"{rel}{entry.name}"
            hidden = dotted or entry.name.startswith(".")
            try:
                if entry.is_symlink():
                    links[name] = _link_text(entry.path)
                elif entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, f"{name}/", hidden))
                elif not hidden and entry.is_file(follow_symlinks=False):
                    found[name] = entry.path
            except OSError:
                continue
    return Listing(dict(sorted(found.items())), dict(sorted(links.items())))


def _link_text(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:  # gone meanwhile
        return ""
