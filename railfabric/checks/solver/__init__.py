"""The solver: figures and findings computed from the expanded topology (linear in links).

Each analysis returns (a JSON-able section of the report, findings). `solve` runs them all; `fabric report` prints
the report and `fabric validate` reports the findings.
"""

from __future__ import annotations

from functools import partial

from railfabric.checks.solver.bisection import check_bisection
from railfabric.checks.solver.capacity import check_capacity
from railfabric.checks.solver.failures import check_failures
from railfabric.checks.solver.index import LinkIndex, link_index
from railfabric.checks.solver.latency import check_latency
from railfabric.checks.solver.rails import check_ports, check_rails
from railfabric.checks.solver.reach import check_reach
from railfabric.core.finding import Finding
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.plan.allocate import Plan
from railfabric.topology import Topology


def solve(inv: Inventory, topo: Topology, plan: Plan | None, src: SourceMap,
          index: LinkIndex | None = None) -> tuple[dict, list[Finding]]:
    """Every analysis, on one index of the links (`index`, else one built here). None of them reads the plan (an
    InfiniBand fabric has none: `plan` is None there)."""
    ix = index or link_index(topo)
    report: dict = {}
    findings: list[Finding] = []
    for name, analysis in (("capacity", partial(check_capacity, index=ix)), ("ports", check_ports),
                           ("rails", partial(check_rails, index=ix)), ("failures", check_failures),
                           ("reachability", partial(check_reach, index=ix)),
                           ("bisection", partial(check_bisection, index=ix)),
                           ("latency", partial(check_latency, index=ix))):
        section, found = analysis(inv, topo, src)
        report[name] = section
        findings += found
    return report, findings
