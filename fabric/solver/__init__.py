"""The solver: figures and findings computed from the expanded topology (linear in links).

Each analysis returns (a JSON-able section of the report, findings). `solve` runs them all; `fabric report` prints
the report and `fabric validate` reports the findings.
"""

from __future__ import annotations

from fabric.allocate import Plan
from fabric.core.finding import Finding
from fabric.core.source_map import SourceMap
from fabric.intent import Inventory
from fabric.solver.bisection import check_bisection
from fabric.solver.capacity import check_capacity
from fabric.solver.failures import check_failures
from fabric.solver.latency import check_latency
from fabric.solver.rails import check_ports, check_rails
from fabric.solver.reach import check_reach
from fabric.topology import Topology


def solve(inv: Inventory, topo: Topology, plan: Plan, src: SourceMap) -> tuple[dict, list[Finding]]:
    report: dict = {}
    findings: list[Finding] = []
    for name, analysis in (("capacity", check_capacity), ("ports", check_ports), ("rails", check_rails),
                           ("failures", check_failures), ("reachability", check_reach), ("bisection", check_bisection),
                           ("latency", check_latency)):
        section, found = analysis(inv, topo, src)
        report[name] = section
        findings += found
    return report, findings
