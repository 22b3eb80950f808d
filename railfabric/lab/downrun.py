"""`fabric lab --down`: prepared before the lab starts (names resolved, impact asked, actions planned, refusals
said), run after the intact checks (take down, wait for FRR to converge, compare). See railfabric/lab/down.py and
railfabric/lab/downcheck.py."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from railfabric.impact import UnknownNames
from railfabric.lab.daemons import Instances
from railfabric.lab.down import apply_down, plan_down
from railfabric.lab.downcheck import DownRun, converge
from railfabric.lab.expect import Expected
from railfabric.lab.model import LabError, LabSpec
from railfabric.lab.prediction import predict, resolve
from railfabric.lab.verify import pings
from railfabric.pipeline import Result


def prepare_down(res: Result, spec: LabSpec, exp: Expected, names: tuple[str, ...] | list[str],
                 faults: tuple[str, ...] | list[str] = ()) -> DownRun:
    """Resolve (unknown names refused as `fabric impact` refuses them), plan the actions, ask impact."""
    try:
        down = resolve(res, names)
    except UnknownNames as exc:
        raise LabError(str(exc)) from None
    plan = plan_down(res, spec, down, faults)
    run = DownRun(down.names, predict(res, spec, exp, down), plan.said)
    run.plan = plan
    return run


def run_down(spec: LabSpec, run: DownRun, inst: Instances, pool: ThreadPoolExecutor, timeout: float, settle: float,
             min_wait: float, say: Callable[[str], None]) -> None:
    assert run.plan is not None
    apply_down(spec, run.plan, inst)
    run.checks, run.converged, run.seconds = converge(spec, run.prediction, inst, pool, run.prediction.down.switches,
                                                      timeout, settle, min_wait, say)
    if run.prediction.isolated_pings:  # once converged: isolated NICs of built hosts answer no ping
        pinged = pings(spec, run.prediction.isolated_pings, pool)
        iso = run.checks["down-isolated"]
        iso.total += pinged.total
        iso.bad += pinged.bad
