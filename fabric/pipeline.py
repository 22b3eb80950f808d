"""The validate pipeline: load → schema → intent rules → expand → allocate → plan rules.

Pure: reads the inventory files, returns values; never writes.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from pathlib import Path

from fabric.allocate import Plan, allocate
from fabric.findings import Finding, unique_sorted
from fabric.intent import Inventory
from fabric.load import Loaded, load_inventory
from fabric.rules.intent_rules import BLOCKING, check_intent
from fabric.rules.plan_rules import check_plan, check_topology, summary
from fabric.schema_check import check_schema
from fabric.solver import solve
from fabric.topology import Topology, expand


@dataclass
class Result:
    loaded: Loaded
    inventory: Inventory | None = None
    topology: Topology | None = None
    plan: Plan | None = None
    findings: list[Finding] = field(default_factory=list)
    stage_reached: str = "load"
    report: dict | None = None  # the solver's figures

    def summary(self) -> dict | None:
        if self.inventory is None or self.topology is None:
            return None
        return summary(self.inventory, self.topology, self.plan)


def run(path: Path) -> Result:
    """Run every stage. The stages build about a million small objects with no reference cycles, so the cyclic
    garbage collector only costs time here (a quarter of the run at 65K GPUs): it is paused meanwhile."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(path)
    finally:
        if enabled:
            gc.enable()


def _run(path: Path) -> Result:
    loaded = load_inventory(path)
    res = Result(loaded, findings=list(loaded.findings))
    if any(f.fatal for f in loaded.findings):
        res.findings = unique_sorted(res.findings)
        return res
    res.stage_reached = "schema"
    inv, schema_findings = check_schema(loaded.data, loaded.source)
    res.findings += schema_findings
    if inv is None:
        res.findings = unique_sorted(res.findings)
        return res
    res.inventory = inv
    res.stage_reached = "intent"
    intent_findings = check_intent(inv, loaded.source)
    res.findings += intent_findings
    if any(f.code in BLOCKING and f.severity == "error" for f in intent_findings):
        res.findings = unique_sorted(res.findings)
        return res
    res.stage_reached = "topology"
    res.topology = expand(inv)
    res.findings += check_topology(inv, res.topology, loaded.source)
    res.stage_reached = "allocation"
    res.plan = allocate(inv, res.topology)
    res.findings += check_plan(inv, res.topology, res.plan, loaded.source)
    res.stage_reached = "solver"
    res.report, solver_findings = solve(inv, res.topology, res.plan, loaded.source)
    res.findings += solver_findings
    res.stage_reached = "done"
    res.findings = unique_sorted(res.findings)
    return res
