"""`fabric lab`: build the fabric (or one pod) from the plan, run FRR on the generated configs, verify, tear down."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from railfabric.core.progress import SILENT, Progress
from railfabric.lab import build as build_mod
from railfabric.lab.coverage import nothing_to_verify
from railfabric.lab.daemons import Instances, check_frr
from railfabric.lab.downcheck import intro as down_intro
from railfabric.lab.downrun import prepare_down, run_down
from railfabric.lab.expect import Expected, expected
from railfabric.lab.hostcheck import egress, egress_todo, host_expected, host_interfaces
from railfabric.lab.linklocal import link_local
from railfabric.lab.model import NS_PREFIX, LabError, LabSpec, name_problems
from railfabric.lab.neigh import size_table
from railfabric.lab.report import format_result, intro
from railfabric.lab.result import LabResult
from railfabric.lab.runs import RUN_ID_LEN, Registry, RunLock, new_run_id
from railfabric.lab.spec import build_spec
from railfabric.lab.teardown import list_namespaces, teardown, teardown_saved
from railfabric.lab.verify import (
    Check,
    categories,
    control_plane,
    down_reasons,
    fingerprint,
    interfaces,
    observe_all,
)
from railfabric.lab.verify import pings as run_pings
from railfabric.pipeline import Result

Say = Callable[[str], None]

__all__ = ["LabResult", "format_result", "preflight", "run_lab"]


def preflight() -> None:
    if sys.platform != "linux":
        raise LabError("the lab needs Linux (network namespaces)")
    if os.geteuid() != 0:
        raise LabError("the lab needs root (network namespaces, FRR daemons): run it with sudo")
    why = check_frr()
    if why:
        raise LabError(why)
    import shutil

    packages = {"ip": "iproute2", "unshare": "util-linux", "ping": "iputils-ping", "hostname": "hostname"}
    for tool, pkg in packages.items():
        if shutil.which(tool) is None:
            raise LabError(f"`{tool}` is missing (apt-get install {pkg})")


class _Signals:
    """SIGTERM / SIGHUP / SIGINT become exceptions while the lab runs, so the teardown in `finally` always runs."""

    def __enter__(self) -> _Signals:
        import threading

        self.old: dict[signal.Signals, Callable[[int, FrameType | None], Any] | int | None] = {}
        if threading.current_thread() is not threading.main_thread():
            return self  # signal handlers can only be set from the main thread
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            self.old[sig] = signal.signal(sig, self._raise)
        return self

    @staticmethod
    def _raise(signum: int, _frame: FrameType | None) -> NoReturn:
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signum)

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self.old.items():
            signal.signal(sig, handler)


def run_lab(res: Result, pod: int | None = None, faults: tuple[str, ...] | list[str] = (), keep: bool = False,
            timeout: float = 90.0, settle: float = 6.0, min_wait: float = 10.0, say: Say = print,
            trace: bool = False, hosts: int | str = 0, host_files: Mapping[str, Mapping[str, str]] | None = None,
            progress: Progress = SILENT, run_id: str | None = None, inventory: str | Path | None = None,
            down: tuple[str, ...] | list[str] = ()) -> LabResult:
    """Build, start, verify and (unless keep) tear down, each step told to `progress` (`say`: the lab's report
    lines). Raises LabError when the lab cannot run at all, or has nothing to verify.
    `hosts`: GPU hosts per segment (0, N or "all"), configured from `host_files` (default: the render's).
    `run_id`: the run's id (default: a fresh one; given, it must be free); every namespace, FRR pathspace, directory
    and the run's record carry it, so labs run side by side and a teardown removes only its own run's.
    `inventory`: recorded with the run, for `fabric lab --teardown INVENTORY` (default: the inventory's directory).
    `down`: names as `fabric impact --down` takes them: after the intact checks they are taken down and FRR's
    converged routes are checked against impact's prediction (railfabric/lab/down.py, railfabric/lab/downcheck.py)."""
    rid = run_id or new_run_id()
    spec = build_spec(res, pod, faults, hosts, host_files, run=rid)
    exp = expected(spec)
    why = nothing_to_verify(spec, exp)
    if why:
        raise LabError(why)
    bad_names = name_problems(spec)
    if bad_names:
        raise LabError("names the kernel or FRR would refuse: " + "; ".join(bad_names[:5]))
    dr = prepare_down(res, spec, exp, down, faults) if down else None
    preflight()
    lock = _claim(rid, run_id is not None)
    if lock.run != rid:  # the id was taken meanwhile: the names carry the new one
        spec = build_spec(res, pod, faults, hosts, host_files, run=lock.run)
        exp = expected(spec)
        dr = prepare_down(res, spec, exp, down, faults) if down else None
    result = LabResult(spec, exp, hosts=host_expected(spec, exp) if spec.hosts else None)
    reg = Registry(lock.run, _inventory_path(res, inventory), pod)
    t_start = time.monotonic()
    try:
        reg.save()
        with _Signals():
            for done in teardown_saved(only_dead=True):
                progress.stage("removing a lab left behind")
                say(f"removed lab run {done.run} left behind by a killed run ({done.inventory or '?'}): "
                    f"{done.removed['daemons']} daemon(s), {done.removed['namespaces']} namespace(s)")
            intro(spec, exp, say, result.hosts)
            for line in down_intro(dr) if dr is not None else ():
                say(line)
            cfg_root = Path(tempfile.mkdtemp(prefix=f"railfabric-lab-{spec.run}-"))
            reg.add_dir(cfg_root)
            size_table(spec, reg, say)
            t0 = time.monotonic()
            progress.stage(f"creating {len(spec.nodes)} namespaces and {len(spec.links)} links")
            build_mod.build(spec, reg)
            if spec.hosts:
                progress.stage(f"creating {len(spec.hosts)} GPU hosts")
            build_mod.build_hosts(spec, reg)
            result.timings["namespaces+links"] = time.monotonic() - t0
            t0 = time.monotonic()
            progress.stage(f"starting {3 * len(spec.nodes)} FRR daemons")
            inst = Instances(list(spec.nodes.values()), reg, cfg_root)
            inst.prepare()
            inst.start()
            result.timings["daemons"] = time.monotonic() - t0
            t0 = time.monotonic()
            progress.stage(f"loading {len(spec.nodes)} frr.conf files")
            inst.load()
            result.timings["config load"] = time.monotonic() - t0
            say(f"  up: {len(spec.nodes)} namespaces, {len(spec.links)} links, {3 * len(spec.nodes)} FRR daemons "
                f"({time.monotonic() - t_start:.1f}s); waiting for a stable state")
            with ThreadPoolExecutor(min(16, max(4, len(spec.nodes)))) as pool:
                t0 = time.monotonic()
                progress.stage("waiting for BGP: sessions established", total=len(exp.sessions))
                obs, checks, converged = _converge(spec, exp, inst, pool, timeout, settle, min_wait, say,
                                                   trace, progress)
                reasons = down_reasons(spec, checks, exp, obs, inst.vtysh, pool)
                if reasons:
                    checks = control_plane(spec, exp, obs, reasons)
                result.timings["convergence"] = time.monotonic() - t0
                result.converged = converged
                t0 = time.monotonic()
                result.checks["config"] = Check(len(spec.nodes), [f"{n}: {e}" for n, e in
                                                                  sorted(inst.load_errors.items())])
                progress.stage("checking interfaces: MTU and addresses")
                result.checks["interfaces"] = interfaces(spec, pool)
                result.checks.update(checks)
                if any(key == "link-local" for key, _title in categories(exp)):  # unnumbered sessions planned
                    result.checks["link-local"] = link_local(spec, exp, inst.vtysh, pool)
                progress.stage("pinging across each fabric link", total=len(exp.link_pings))
                result.checks["link-pings"] = run_pings(spec, exp.link_pings, pool, done=progress.advance)
                progress.stage("pinging the rail gateways", total=len(exp.rail_pings))
                result.checks["rail-pings"] = run_pings(spec, exp.rail_pings, pool, done=progress.advance)
                if result.hosts is not None:
                    _check_hosts(spec, result, pool, progress)
                result.timings["verification"] = time.monotonic() - t0
                if dr is not None:
                    progress.stage(f"taking down {', '.join(dr.names)}; waiting for FRR to converge")
                    run_down(spec, dr, inst, pool, timeout, settle, min_wait, say)
                    result.down = dr
                    result.checks.update(dr.checks)
                    result.timings["down"] = dr.seconds
            result.timings["bring-up"] = (result.timings["namespaces+links"] + result.timings["daemons"]
                                          + result.timings["config load"])
            if keep:
                reg.kept = True
                reg.save()
                result.kept = True
    finally:
        # signals wait until the teardown is done (a second Ctrl-C must not leave half a lab)
        blocked = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
        old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
        try:
            if not result.kept:
                t0 = time.monotonic()
                progress.stage("tearing down")
                result.removed = teardown(reg)
                result.timings["teardown"] = time.monotonic() - t0
        finally:
            lock.release(remove=not result.kept)  # a kept run keeps its (free) lock file: not running
            signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
    result.timings["total"] = time.monotonic() - t_start
    return result


def _claim(rid: str, given: bool) -> RunLock:
    """The run's lock: `rid` when free (a given id must be), else a fresh id. Ids seen in existing namespaces
    (rf<id>-...) are never handed out, whoever made them."""
    taken = {ns[len(NS_PREFIX):len(NS_PREFIX) + RUN_ID_LEN] for ns in list_namespaces()
             if ns.startswith(NS_PREFIX) and ns[len(NS_PREFIX) + RUN_ID_LEN:][:1] == "-"}
    try:
        return RunLock.claim(rid, taken)
    except FileExistsError:
        if given:
            raise LabError(f"lab run id {rid} is in use on this machine") from None
    try:
        return RunLock.claim(None, taken)
    except FileExistsError as exc:
        raise LabError(str(exc)) from None


def _inventory_path(res: Result, inventory: str | Path | None) -> str:
    if inventory is not None:
        return str(Path(inventory).resolve())
    files = res.loaded.files if res.loaded is not None else []
    return str(files[0].resolve().parent) if files else ""


def _check_hosts(spec: LabSpec, result: LabResult, pool: ThreadPoolExecutor, progress: Progress) -> None:
    assert result.hosts is not None
    hx = result.hosts
    progress.stage("checking the GPU hosts: interfaces, policy rules, egress")
    result.checks["host-interfaces"], result.checks["host-rules"] = host_interfaces(spec, pool)
    result.checks["host-egress"] = egress(spec, egress_todo(hx), pool)
    progress.stage("pinging between GPU hosts on the same rail", total=len(hx.same_rail))
    result.checks["host-pings"] = run_pings(spec, [hp.ping for hp in hx.same_rail], pool, done=progress.advance)
    progress.stage("pinging between GPU hosts across rails", total=len(hx.cross_rail))
    result.checks["cross-rail"] = run_pings(spec, [hp.ping for hp in hx.cross_rail], pool, done=progress.advance)


def _converge(spec: LabSpec, exp: Expected, inst: Instances, pool: ThreadPoolExecutor, timeout: float,
              settle: float, min_wait: float, say: Say, trace: bool = False,
              progress: Progress = SILENT) -> tuple[dict, dict[str, Check], bool]:
    """Poll until every control-plane check passes on two polls in a row (stable), or judge the state as it is
    once nothing has changed for `settle` seconds, at least `min_wait` seconds in and after some planned session has
    come up (at start every session sits in Idle for a few seconds, then flaps once when BFD moves to the session's
    source address), or at `timeout`."""
    start = time.monotonic()
    last_fp = None
    changed = start
    passes = 0
    seen_up = not exp.sessions
    while True:
        obs = observe_all(spec, inst.vtysh, pool)
        inst.check_alive()
        checks = control_plane(spec, exp, obs)
        progress.update(checks["sessions"].total - len(checks["sessions"].bad))
        fp = fingerprint(obs)
        now = time.monotonic()
        if fp != last_fp:
            last_fp, changed = fp, now
        seen_up = seen_up or len(checks["sessions"].bad) < checks["sessions"].total
        bad = sum(len(c.bad) for c in checks.values())
        if trace:
            say(f"  [{now - start:5.1f}s] " + (", ".join(f"{k} {len(c.bad)}" for k, c in checks.items() if c.bad)
                                               or "all control-plane checks pass"))
        passes = passes + 1 if bad == 0 else 0
        if passes >= 2:
            return obs, checks, True
        waited = now - start
        if bad and now - changed >= settle and waited >= min_wait and (seen_up or waited >= 3 * min_wait):
            say(f"  no change for {now - changed:.0f}s with {bad} mismatch(es): judging this state")
            return obs, checks, False
        if waited >= timeout:
            say(f"  timeout after {timeout:.0f}s with {bad} mismatch(es): judging this state")
            return obs, checks, False
        time.sleep(1.0)
