"""Everything the lab creates is recorded before it exists, and removed by exactly that record: daemons by pid
(checked against /proc/<pid>/cmdline first), namespaces by name, directories by path. The record is also written to
/run/railfabric-lab/state.json, so a lab kept with --keep, or one whose process was killed, is removed by
`fabric lab --teardown` or by the next lab run."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from fabric.lab.model import LabError
from fabric.lab.neigh import restore_limits

STATE_DIR = Path("/run/railfabric-lab")
STATE = STATE_DIR / "state.json"
LOCK = STATE_DIR / "lock"
FRR_BIN = "/usr/lib/frr/"


class Registry:
    def __init__(self) -> None:
        self.owner = os.getpid()
        self.namespaces: list[str] = []
        self.hosts: list[str] = []  # the namespaces of GPU hosts (also in `namespaces`), counted apart
        self.pids: dict[int, tuple[str, str]] = {}  # pid → (namespace, daemon)
        self.dirs: list[str] = []
        self.sysctls: dict[str, tuple[int, int]] = {}  # host-wide limits the lab raised: path → (found, set)
        self.kept = False

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

    def add_sysctls(self, changed: dict[str, tuple[int, int]]) -> None:
        """Record before applying: a lab killed right after still has them put back."""
        self.sysctls.update(changed)
        self.save()

    def empty(self) -> bool:
        return not (self.namespaces or self.pids or self.dirs or self.sysctls)

    def save(self) -> None:
        STATE_DIR.mkdir(parents=True, exist_ok=True)
        tmp = STATE.with_suffix(".tmp")
        tmp.write_text(json.dumps({"owner": self.owner, "kept": self.kept, "namespaces": self.namespaces,
                                   "hosts": self.hosts,
                                   "pids": {str(p): list(v) for p, v in self.pids.items()}, "dirs": self.dirs,
                                   "sysctls": {p: list(v) for p, v in self.sysctls.items()}}))
        tmp.replace(STATE)

    @classmethod
    def load(cls) -> Registry | None:
        try:
            data = json.loads(STATE.read_text())
        except (OSError, ValueError):
            return None
        reg = cls()
        reg.owner = int(data.get("owner", 0))
        reg.kept = bool(data.get("kept"))
        reg.namespaces = list(data.get("namespaces", []))
        reg.hosts = list(data.get("hosts", []))
        reg.pids = {int(p): (v[0], v[1]) for p, v in data.get("pids", {}).items()}
        reg.dirs = list(data.get("dirs", []))
        reg.sysctls = {str(p): (int(v[0]), int(v[1])) for p, v in data.get("sysctls", {}).items()}
        return reg


def _is_ours(pid: int, ns: str) -> bool:
    """The pid is still the FRR daemon we started in `ns` (not a reused pid)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return bool(argv) and argv[0].decode(errors="replace").startswith(FRR_BIN) and ns.encode() in argv


def _gone(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError, OSError):
        done, _status = os.waitpid(pid, os.WNOHANG)  # reap our own children
        if done == pid:
            return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def kill_pids(pids: dict[int, tuple[str, str]], grace: float = 3.0) -> int:
    """SIGTERM, then SIGKILL after `grace` seconds; returns how many were signalled."""
    live = [pid for pid, (ns, _d) in pids.items() if _is_ours(pid, ns)]
    for pid in live:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    waiting = list(live)
    while waiting and time.monotonic() < deadline:
        waiting = [pid for pid in waiting if not _gone(pid)]
        if waiting:
            time.sleep(0.05)
    for pid in waiting:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for pid in waiting:
        for _ in range(100):
            if _gone(pid):
                break
            time.sleep(0.02)
    return len(live)


def teardown(reg: Registry) -> dict[str, int]:
    """Remove what `reg` lists; safe to call twice. Returns counts of what was removed."""
    killed = kill_pids(reg.pids)
    reg.pids.clear()
    existing = set(list_namespaces())
    gone = [ns for ns in reg.namespaces if ns in existing]
    hosts = set(reg.hosts)
    if gone:
        subprocess.run(["ip", "-force", "-batch", "-"], input="".join(f"netns del {ns}\n" for ns in gone),
                       capture_output=True, text=True, timeout=120)
    reg.namespaces.clear()
    reg.hosts.clear()
    for d in reg.dirs:
        shutil.rmtree(d, ignore_errors=True)
    dirs = len(reg.dirs)
    reg.dirs.clear()
    sysctls = restore_limits(reg.sysctls)
    reg.sysctls.clear()
    with contextlib.suppress(OSError):
        STATE.unlink()
    return {"daemons": killed, "namespaces": sum(1 for ns in gone if ns not in hosts),
            "host_namespaces": sum(1 for ns in gone if ns in hosts), "dirs": dirs, "sysctls": sysctls}


def list_namespaces() -> list[str]:
    try:
        return sorted(p.name for p in Path("/run/netns").iterdir())
    except OSError:
        return []


class Lock:
    """One lab at a time on a machine (they would share namespace names)."""

    def __init__(self) -> None:
        self.fd: int | None = None

    def acquire(self) -> bool:
        STATE_DIR.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            self.fd = None
            return False
        return True

    def release(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


def teardown_saved() -> dict[str, int] | None:
    """Tear down a lab recorded in the state file (kept with --keep, or left by a killed run). Takes the same lock
    as a running lab, so it never pulls namespaces and daemons from under a lab that is still being verified."""
    lock = Lock()
    if not lock.acquire():
        raise LabError("a `fabric lab` is running on this machine: it tears itself down when it ends "
                      "(stop it with Ctrl-C or SIGTERM); run --teardown after it has stopped")
    try:
        reg = Registry.load()
        if reg is None:
            return None
        return teardown(reg)
    finally:
        lock.release()
