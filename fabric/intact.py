"""Which files of an earlier render are still exactly as it wrote them (so a new render may reuse them).

An incremental render reuses a device's or an artifact's files only when they hash to the sha256 the manifest
recorded: a hand-edited, truncated or deleted file is never reused, and `render --check` names it. At 65,536 GPUs
that is about 33,000 files and 780 MB to hash on every run, so the hashing starts as early as possible in a forked
process (`Verification.start`) and runs on the second core while this process validates the inventory and builds
the device models; `Verification.result()` collects it. Where fork is unavailable (Windows, or a caller that asks
for no process) it hashes in this process when the result is asked for. Pure reading: nothing here writes.

Listing the output directory (`listing`) uses os.scandir: pathlib's rglob costs about a second at that size.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from fabric.cpus import can_fork

BACKGROUND_MIN = 256  # fewer files than this are hashed in this process: a fork costs more than it saves


def hash_files(out: Path, want: Mapping[str, str]) -> dict[str, int]:
    """{path: size} of the files under `out` whose sha256 is `want[path]`; a missing, unreadable or different file
    is left out."""
    found: dict[str, int] = {}
    base = os.fspath(out)
    for path, sha in want.items():
        try:
            with open(os.path.join(base, path), "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() == sha:
            found[path] = len(data)
    return found


def survey(out: Path, want: Mapping[str, str]) -> tuple[dict[str, int], dict[str, str]]:
    """What the background process finds: (hash_files(out, want), listing(out))."""
    return hash_files(out, want), listing(out)


class Verification:
    """The hashing of an earlier render's files, and the listing of its directory, started now and collected later
    (the listing serves the comparison at the end of `render --check` and `plan`, and the whole-run reuse)."""

    def __init__(self, out: Path | None, want: Mapping[str, str]) -> None:
        self.out = out
        self.want = dict(want)
        self._pool: ProcessPoolExecutor | None = None
        self._future: Future[tuple[dict[str, int], dict[str, str]]] | None = None
        self._result: tuple[dict[str, int], dict[str, str]] | None = None

    @classmethod
    def start(cls, out: Path | None, want: Mapping[str, str], background: bool = True) -> Verification:
        """Begin hashing `want` ({path: sha256}) under `out` (None: nothing to verify) in a forked process."""
        job = cls(out, want)
        if out is None or not job.want:
            job._result = ({}, listing(out) if out is not None else {})
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

    def listing(self) -> dict[str, str]:
        """The output directory's files as `listing` found them when the hashing ran (in its order)."""
        return self._collected()[1]

    def _collected(self) -> tuple[dict[str, int], dict[str, str]]:
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


def listing(out: Path) -> dict[str, str]:
    """Every file under `out` that is not a dot file and not under a dot directory: {POSIX path relative to out:
    its path under `out` with every symlink resolved (os.path.realpath: the form fabric.reuse's Kept files use, so
    a kept file is recognised as itself by its name)}. Symlinks to files count as files (as Path.is_file says);
    directories are not followed through symlinks."""
    found: dict[str, str] = {}
    if not out.is_dir():
        return found
    stack: list[tuple[str, str]] = [(os.path.realpath(out), "")]
    while stack:
        folder, rel = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            name = f"{rel}{entry.name}"
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, f"{name}/"))
                elif entry.is_file():
                    found[name] = entry.path
            except OSError:
                continue
    return dict(sorted(found.items()))
