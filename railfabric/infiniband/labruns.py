"""IB lab runs: each run has an id, a lock it holds while it runs, and a record of what it started; a run killed
(SIGKILL, a lost terminal) leaves ibsim and OpenSM running and its scratch directory behind, and the next run (or
`fabric lab --teardown` on an InfiniBand inventory) removes exactly that: `reap_dead()`.

The same scheme as the FRR lab (railfabric/lab/runs.py; not imported: the lab package is a layer above this one),
kept apart because the IB lab needs no root: records live in RUNS_DIR (`$RAILFABRIC_IB_RUNS`, else
`<tmp>/railfabric-iblab-runs-<uid>`), one `<id>.lock` (flock held by the running lab) and one `<id>.json`
(owner pid and start time, the ibsim socket name, the scratch directories, each daemon's pid and start time) per
run, the record written before each thing exists (a directory) or right after it starts (a process).

A run is dead when its lock can be taken, or when the process that recorded it is gone (a pid the kernel reused
is not the owner: start times are compared). Its processes are found two ways, both exact: the recorded pids
whose start time still matches, and every process of this user whose environment holds the run's own
`IBSIM_SOCKNAME=railfabric-ib-<id>` (the socket name every client of that subnet carries: it also finds a
diagnostic client, or a daemon started in the instant between its start and its record). Nothing is removed by a
name pattern; a kept directory (--keep) is the user's and is never recorded.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from railfabric.core.processes import terminate

SOCK_PREFIX = "railfabric-ib-"
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
RUN_ID = re.compile(r"^[0-9a-z]{6}$")


def new_run_id() -> str:
    """Six random characters of [0-9a-z] (the FRR lab's run ids have the same form: railfabric/lab/runs.py)."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(6))


def start_time(pid: int) -> int | None:
    """When process `pid` started (clock ticks after boot, field 22 of /proc/<pid>/stat; proc(5)), None when there
    is none: with the pid it names one process, whatever pid the kernel hands out later."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat.rsplit(")", 1)[1].split()[19])  # the fields after "(comm)" start at field 3
    except (OSError, IndexError, ValueError):
        return None


def runs_dir() -> Path:
    env = os.environ.get("RAILFABRIC_IB_RUNS")
    return Path(env) if env else Path(tempfile.gettempdir()) / f"railfabric-iblab-runs-{os.getuid()}"


class IbRun:
    """One running lab: claim() takes a fresh id and its lock; add_*() record; finish() removes record and lock."""

    def __init__(self, run: str, fd: int) -> None:
        self.run = run
        self.fd: int | None = fd
        self.owner = os.getpid()
        self.owner_start = start_time(self.owner)
        self.dirs: list[str] = []
        self.pids: dict[int, int | None] = {}  # pid → its start time

    @property
    def sockname(self) -> str:
        return f"{SOCK_PREFIX}{self.run}"

    @classmethod
    def claim(cls) -> IbRun:
        d = runs_dir()
        d.mkdir(parents=True, exist_ok=True)
        for _attempt in range(100):
            run = new_run_id()
            try:
                fd = os.open(d / f"{run}.lock", os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
            except FileExistsError:
                continue
            fcntl.flock(fd, fcntl.LOCK_EX)
            out = cls(run, fd)
            out.save()
            return out
        raise FileExistsError(f"no free IB lab run id in {d} after 100 tries")

    def add_dir(self, path: Path) -> None:
        self.dirs.append(str(path))
        self.save()

    def add_pid(self, pid: int) -> None:
        self.pids[pid] = start_time(pid)
        self.save()

    def save(self) -> None:
        path = runs_dir() / f"{self.run}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"run": self.run, "owner": self.owner, "owner_start": self.owner_start,
                                   "sockname": self.sockname, "dirs": self.dirs,
                                   "pids": {str(p): s for p, s in self.pids.items()}}))
        tmp.replace(path)

    def finish(self) -> None:
        """After the lab tore itself down: the record and the lock go."""
        for suffix in (".json", ".lock"):
            with contextlib.suppress(OSError):
                (runs_dir() / f"{self.run}{suffix}").unlink()
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@dataclass(frozen=True, slots=True)
class Reaped:
    run: str
    processes: int
    dirs: int

    def __str__(self) -> str:
        return (f"reaped IB lab run {self.run} (its process was killed): {self.processes} process(es), "
                f"{self.dirs} scratch director{'y' if self.dirs == 1 else 'ies'}")


def reap_dead(only: str | None = None) -> list[Reaped]:
    """Tear down every recorded run that is not running (or run `only`, if it is not); running ones (another lab)
    are left alone."""
    d = runs_dir()
    try:
        ids = sorted({p.name.split(".")[0] for p in d.iterdir() if p.suffix in (".json", ".lock")})
    except OSError:
        return []
    out = []
    for run in filter(RUN_ID.match, ids if only is None else [i for i in ids if i == only]):
        done = _reap(d, run)
        if done is not None:
            out.append(done)
    return out


def _reap(d: Path, run: str) -> Reaped | None:
    record = _load(d / f"{run}.json")
    try:
        fd = os.open(d / f"{run}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if record is None or _alive(record.get("owner"), record.get("owner_start")):
                return None  # running (or starting: no record yet)
        if record is None:
            if time.time() - _mtime(d / f"{run}.lock") < 60:
                return None  # a lock without a record: a run being claimed right now
            record = {}
        recorded = record.get("pids")
        pids = {int(p) for p, s in (recorded.items() if isinstance(recorded, dict) else ()) if _alive(int(p), s)}
        sock = str(record.get("sockname", f"{SOCK_PREFIX}{run}"))
        pids |= set(_by_socket(sock))
        terminate(pids)
        listed = record.get("dirs")
        dirs = [str(p) for p in (listed if isinstance(listed, list) else [])
                if Path(str(p)).name.startswith(f"{SOCK_PREFIX}{run}-")]
        for path in dirs:
            shutil.rmtree(path, ignore_errors=True)
        for suffix in (".json", ".tmp", ".lock"):
            with contextlib.suppress(OSError):
                (d / f"{run}{suffix}").unlink()
        return Reaped(run, len(pids), len(dirs))
    finally:
        os.close(fd)


def _load(path: Path) -> dict[str, object] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _alive(pid: object, started: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    now = start_time(pid)
    return now is not None and (started is None or now == started)


def _by_socket(sockname: str) -> list[int]:
    """Processes whose environment holds exactly IBSIM_SOCKNAME=<sockname> (the clients and ibsim of one run)."""
    want = f"IBSIM_SOCKNAME={sockname}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            env = Path(f"/proc/{name}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if want in env:
            found.append(int(name))
    return found


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
