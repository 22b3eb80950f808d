"""Lab runs: each run has its own id, and everything it creates is named after that id and recorded under it.

Several labs may run on one machine at once (two checkouts, two CI jobs): a run claims a fresh id (6 characters,
[0-9a-z]: two from its pid, four random) by creating `RUNS_DIR/<id>.lock` exclusively and holding an flock on it
while it runs; its namespaces are `rf<id>-<host>` (model.ns_name), its FRR pathspaces the same, its temporary
directory `railfabric-lab-<id>-*`, and its record `RUNS_DIR/<id>.json` lists every namespace, daemon pid, directory
before it exists. A run whose lock can be taken is not running: kept (--keep) or killed. Nor is a run whose lock is
held while the process that recorded it (`owner`, with its start time: a pid the kernel reused is not the owner) is
gone: a process that inherited the lock's descriptor outlived a killed lab (a stale lock). Teardown removes what one
record lists and nothing else (railfabric/lab/teardown.py).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
from pathlib import Path

from railfabric.core.flock import held_elsewhere

STATE_DIR = Path("/run/railfabric-lab")
RUNS_DIR = STATE_DIR / "runs"
RUN_ID_LEN = 6
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
RUN_ID = re.compile(rf"^[0-9a-z]{{{RUN_ID_LEN}}}$")


def _base36(n: int, width: int) -> str:
    out = ""
    for _ in range(width):
        n, d = divmod(n, 36)
        out = _ALPHABET[d] + out
    return out


def new_run_id(pid: int | None = None) -> str:
    """Two characters from the pid (two runs of one process differ by the random part), four random ones."""
    pid = os.getpid() if pid is None else pid
    return _base36(pid % 36 ** 2, 2) + _base36(secrets.randbelow(36 ** 4), RUN_ID_LEN - 2)


class RunLock:
    """The flock a running lab holds on RUNS_DIR/<id>.lock: taken, the run is alive; free, it is kept or dead."""

    def __init__(self, run: str) -> None:
        self.run = run
        self.fd: int | None = None

    @property
    def path(self) -> Path:
        return RUNS_DIR / f"{self.run}.lock"

    @classmethod
    def claim(cls, run: str | None = None, taken: set[str] | None = None) -> RunLock:
        """A new run: a fresh id (or `run`, which must be free), its lock file created exclusively and locked.
        `taken`: ids in use some other way (namespaces with that id's prefix), never handed out."""
        RUNS_DIR.mkdir(parents=True, exist_ok=True)
        for _attempt in range(100):
            rid = run or new_run_id()
            if not RUN_ID.match(rid):
                raise ValueError(f"run id {rid!r}: {RUN_ID_LEN} characters of [0-9a-z]")
            if taken and rid in taken:
                if run:
                    raise FileExistsError(f"run id {rid} is in use")
                continue
            lock = cls(rid)
            try:
                fd = os.open(lock.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                if run:
                    raise FileExistsError(f"run id {rid} is in use") from None
                continue
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.stat(lock.path).st_ino == os.fstat(fd).st_ino
            except OSError:
                same = False
            if not same:  # removed (as a stale lock) between the create and the flock: not ours any more
                os.close(fd)
                continue
            lock.fd = fd
            return lock
        raise FileExistsError("no free run id after 100 tries")

    @classmethod
    def take(cls, run: str) -> RunLock | None:
        """The lock of an existing run that is not running (to tear it down), or None while it runs."""
        RUNS_DIR.mkdir(parents=True, exist_ok=True)
        fd = os.open(RUNS_DIR / f"{run}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        lock = cls(run)
        lock.fd = fd
        return lock

    def release(self, remove: bool = False) -> None:
        if remove:
            with contextlib.suppress(OSError):
                self.path.unlink()
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def start_time(pid: int) -> int | None:
    """When process `pid` started (clock ticks after boot, field 22 of /proc/<pid>/stat), None when there is none:
    with the pid it names one process, whatever pid the kernel hands out later."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    try:
        return int(stat.rsplit(")", 1)[1].split()[19])  # fields after "(comm)" start at field 3
    except (IndexError, ValueError):
        return None


def owner_alive(reg: Registry) -> bool:
    """The process that recorded `reg` still runs (a record without a start time: its pid exists)."""
    if reg.owner <= 0:
        return False
    started = start_time(reg.owner)
    return started is not None and (reg.owner_start is None or started == reg.owner_start)


def is_running(run: str) -> bool:
    """Some process holds the run's lock (a lab in progress, this process's own included) and the run's owner is
    alive: a lock held after its owner died (inherited by a process that outlived it) is stale."""
    if not lock_held(run):
        return False
    reg = Registry.load(run)
    return reg is None or owner_alive(reg)  # no record yet: a run starting


def lock_held(run: str) -> bool:
    """Some process holds the run's lock."""
    return held_elsewhere(RUNS_DIR / f"{run}.lock", os.O_RDWR)


class Registry:
    """What one run created, saved to RUNS_DIR/<run>.json at every addition (before the thing exists)."""

    def __init__(self, run: str, inventory: str = "", pod: int | None = None) -> None:
        self.run = run
        self.owner = os.getpid()
        self.owner_start = start_time(self.owner)  # with the pid: the owner, not a later process with its pid
        self.inventory = inventory  # resolved path of the inventory it ran (--teardown INVENTORY finds it by that)
        self.pod = pod
        self.namespaces: list[str] = []
        self.hosts: list[str] = []  # the namespaces of GPU hosts (also in `namespaces`), counted apart
        self.pids: dict[int, tuple[str, str]] = {}  # pid → (namespace, daemon)
        self.dirs: list[str] = []
        self.neigh = False  # a claim on the machine's ARP table limits (railfabric/lab/neigh.py), released at teardown
        self.kept = False

    @property
    def path(self) -> Path:
        return RUNS_DIR / f"{self.run}.json"

    def add_namespace(self, ns: str, host: bool = False) -> None:
        self.namespaces.append(ns)
        if host:
            self.hosts.append(ns)
        self.save()

    def add_pid(self, pid: int, ns: str, daemon: str) -> None:
        self.pids[pid] = (ns, daemon)
        self.save()

    def add_dir(self, path: str | Path) -> None:
        self.dirs.append(str(path))
        self.save()

    def add_neigh(self) -> None:
        """Record before claiming: a lab killed right after still has its claim released."""
        self.neigh = True
        self.save()

    def empty(self) -> bool:
        return not (self.namespaces or self.pids or self.dirs or self.neigh)

    def save(self) -> None:
        RUNS_DIR.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"run": self.run, "owner": self.owner, "owner_start": self.owner_start,
                                   "inventory": self.inventory,
                                   "pod": self.pod, "kept": self.kept, "namespaces": self.namespaces,
                                   "hosts": self.hosts, "pids": {str(p): list(v) for p, v in self.pids.items()},
                                   "dirs": self.dirs, "neigh": self.neigh}))
        tmp.replace(self.path)

    def forget(self) -> None:
        """Remove the record (after teardown)."""
        with contextlib.suppress(OSError):
            self.path.unlink()

    @classmethod
    def load(cls, run: str) -> Registry | None:
        try:
            data = json.loads((RUNS_DIR / f"{run}.json").read_text())
        except (OSError, ValueError):
            return None
        reg = cls(str(data.get("run", run)), str(data.get("inventory", "")), data.get("pod"))
        reg.owner = int(data.get("owner", 0))
        start = data.get("owner_start")
        reg.owner_start = start if isinstance(start, int) and not isinstance(start, bool) else None
        reg.kept = bool(data.get("kept"))
        reg.namespaces = list(data.get("namespaces", []))
        reg.hosts = list(data.get("hosts", []))
        reg.pids = {int(p): (v[0], v[1]) for p, v in data.get("pids", {}).items()}
        reg.dirs = list(data.get("dirs", []))
        reg.neigh = bool(data.get("neigh"))
        return reg


def saved_runs() -> list[str]:
    """Ids of every run with a record or a lock file on this machine, sorted."""
    try:
        names = [p.name for p in RUNS_DIR.iterdir()]
    except OSError:
        return []
    return sorted({n.split(".")[0] for n in names if n.endswith((".json", ".lock")) and RUN_ID.match(n.split(".")[0])})
