"""The staging directory: where a render puts the files it produces afresh, so they are never all held in memory.

At 131,072 GPUs a render produces about 2 GB of files. Held as text and then as bytes in one process that was
4.2 GB of memory; written to a staging directory as they are made (by the render workers themselves and by the
artifact builders), the process holds only its models. The files are then compared with the output directory from
there and linked into the new tree (railfabric/emit/build.py `write_tree`): nothing is written twice.

The staging directory lies beside the output directory when its parent is writable (so linking works: the same
file system), else in the system's temporary directory. It is named `.<output name>.stage-*` and holds a shared
lock for its whole life, so the cleanup of killed renders (railfabric.emit.outdir.leftovers) never removes the staging
directory of a render that is still running. `Stage.close` removes it; a killed render's is removed by the next
render's cleanup.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from railfabric.core.flock import held_elsewhere


@dataclass(frozen=True, slots=True)
class OnDisk:
    """A file of this render that is on disk already, not in memory: its sha256, its size, and where it is."""
    sha256: str
    size: int
    source: str  # a path as a string: tens of thousands are made per run, and pathlib objects cost

    def read(self) -> bytes:
        with open(self.source, "rb") as fh:
            return fh.read()


@dataclass(frozen=True, slots=True)
class Staged(OnDisk):
    """A file produced by this render and written to the staging directory."""


STAGE_INFIX = ".stage-"


class Stage:
    """A private directory for one render's new files (a context manager: removed on exit)."""

    def __init__(self, target: Path) -> None:
        self.target = target
        parent = target.parent if target.parent.is_dir() and os.access(target.parent, os.W_OK) else None
        self.path = Path(tempfile.mkdtemp(prefix=f".{target.name}{STAGE_INFIX}", dir=parent))
        self._base = os.fspath(self.path)
        self._made: set[str] = {""}
        self._taken = False
        self._fd: int | None = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        fcntl.flock(self._fd, fcntl.LOCK_SH)  # "in use": leftovers() skips a directory it cannot lock alone

    def put(self, rel: str, data: bytes) -> Staged:
        """Write `data` as `rel` (a POSIX path relative to the output directory) and say where it is. A failure
        (a full disk) names the output directory the user asked for, not this private one."""
        folder, _, _name = rel.rpartition("/")
        full = os.path.join(self._base, rel)
        try:
            if folder not in self._made:
                os.makedirs(os.path.join(self._base, folder), exist_ok=True)
                self._made.add(folder)
            with open(full, "wb") as fh:
                fh.write(data)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror or str(exc), str(self.target)) from None
        return Staged(hashlib.sha256(data).hexdigest(), len(data), full)

    def take(self) -> bool:
        """Hand the directory over to become the new output tree (railfabric.emit.build.write_tree swaps it in). After
        the swap `path` holds the old tree, which `close` removes as it would have removed the stage. False when it
        was handed over before."""
        if self._taken:
            return False
        self._taken = True
        return True

    def close(self) -> None:
        if self._fd is not None:
            shutil.rmtree(self.path, ignore_errors=True)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Stage:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def in_use(folder: Path) -> bool:
    """Does a running render still hold `folder` (a staging directory)? False when it can be locked alone."""
    return held_elsewhere(folder, os.O_RDONLY | os.O_DIRECTORY)
