"""Everything a lab run creates is recorded before it exists (railfabric/lab/runs.py: one record per run), and removed
by exactly that record: daemons by pid (checked against /proc/<pid>/cmdline first), namespaces by name, directories by
path, its claim on the machine's ARP table limits. A run kept with --keep, or one whose process was killed, is
removed by `fabric lab --teardown` (the runs of an inventory, or one run by id); a killed run (not kept, not running,
whatever its inventory) also by the next lab run on the machine and by every `fabric lab --teardown`, each saying so.
A killed run is one whose lock is free, or held by a process that outlived the run's owner (a stale lock:
railfabric/lab/runs.py is_running). Nothing is ever removed by a name pattern: another run's namespaces, daemons and
files are never touched."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from railfabric.core.processes import terminate
from railfabric.lab import neigh
from railfabric.lab.model import LabError
from railfabric.lab.runs import Registry, RunLock, is_running, owner_alive, saved_runs

FRR_BIN = "/usr/lib/frr/"


def _is_ours(pid: int, ns: str) -> bool:
    """The pid is still the FRR daemon we started in `ns` (not a reused pid)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return bool(argv) and argv[0].decode(errors="replace").startswith(FRR_BIN) and ns.encode() in argv


def kill_pids(pids: dict[int, tuple[str, str]], grace: float = 3.0) -> int:
    """SIGTERM, then SIGKILL after `grace` seconds; returns how many were signalled."""
    live = [pid for pid, (ns, _d) in pids.items() if _is_ours(pid, ns)]
    terminate(live, grace)
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
    sysctls = neigh.release(reg.run) if reg.neigh else 0
    reg.neigh = False
    reg.forget()
    return {"daemons": killed, "namespaces": sum(1 for ns in gone if ns not in hosts),
            "host_namespaces": sum(1 for ns in gone if ns in hosts), "dirs": dirs, "sysctls": sysctls}


def list_namespaces() -> list[str]:
    try:
        return sorted(p.name for p in Path("/run/netns").iterdir())
    except OSError:
        return []


@dataclass(frozen=True)
class TornDown:
    run: str
    inventory: str
    kept: bool
    removed: dict[str, int]
    stale: bool = False  # its lock was still held by a process that outlived the run's owner


def _teardown_run(run: str) -> TornDown | None:
    """Tear down one run that is not running (its lock held here meanwhile, or held by a process that outlived the
    run's owner: a stale lock, then the lock file is removed); None when it has no record."""
    lock = RunLock.take(run)
    if lock is None:
        held = Registry.load(run)
        if held is None or owner_alive(held):
            raise LabError(f"lab run {run} is running: it tears itself down when it ends (stop it with Ctrl-C or "
                           "SIGTERM); run --teardown after it has stopped")
        removed = teardown(held)
        RunLock(run).release(remove=True)
        return TornDown(run, held.inventory, held.kept, removed, stale=True)
    reg = Registry.load(run)
    stale = reg is not None or time.time() - _mtime(lock.path) > 60  # a lock without record: a run starting, or dead
    try:
        if reg is None:
            return None
        removed = teardown(reg)
        return TornDown(run, reg.inventory, reg.kept, removed)
    finally:
        lock.release(remove=stale)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def teardown_saved(run: str | None = None, inventory: str | Path | None = None,
                   only_dead: bool = False) -> list[TornDown]:
    """Tear down recorded runs that are not running: `run` (an id; refused while it runs), else the runs of
    `inventory` (its resolved path) and every killed run (not kept, whatever its inventory), else every one.
    `only_dead`: leave kept runs alone (what a new lab run cleans up: runs whose process was killed). Running labs
    are skipped (each tears itself down)."""
    if run is not None:
        if run not in saved_runs():
            return []
        done = _teardown_run(run)
        return [done] if done else []
    want = str(Path(inventory).resolve()) if inventory is not None else None
    out = []
    for rid in saved_runs():
        if is_running(rid):
            continue
        reg = Registry.load(rid)
        if reg is not None and reg.kept and (only_dead or (want is not None and reg.inventory != want)):
            continue  # kept: only by its own inventory's --teardown (or by id)
        with contextlib.suppress(LabError):  # started meanwhile
            done = _teardown_run(rid)
            if done:
                out.append(done)
    return out


def other_runs(exclude: str = "") -> list[tuple[str, str, bool, bool]]:
    """(run, inventory, kept, running) of every recorded run but `exclude`, for messages."""
    out = []
    for rid in saved_runs():
        if rid == exclude:
            continue
        reg = Registry.load(rid)
        out.append((rid, reg.inventory if reg else "", bool(reg and reg.kept), is_running(rid)))
    return out
