"""What one `fabric lab` run found: its checks, timings and verdict (filled by railfabric/lab/runner.py, told by
railfabric/lab/report.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from railfabric.lab.coverage import NotRun, not_run
from railfabric.lab.downcheck import DownRun
from railfabric.lab.expect import Expected
from railfabric.lab.hostcheck import HostExpected
from railfabric.lab.model import Fault, LabSpec
from railfabric.lab.verify import Check


@dataclass
class LabResult:
    spec: LabSpec
    expected: Expected
    checks: dict[str, Check] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    converged: bool = False
    kept: bool = False
    removed: dict[str, int] = field(default_factory=dict)
    hosts: HostExpected | None = None  # what the built GPU hosts must show (None: no hosts)
    down: DownRun | None = None  # --down: what was taken down, impact's prediction, FRR against it

    @property
    def run(self) -> str:
        return self.spec.run

    @property
    def mismatches(self) -> int:
        return sum(len(c.bad) for c in self.checks.values())

    @property
    def not_run(self) -> list[NotRun]:
        return (not_run(self.spec, self.expected, self.checks, self.hosts is not None)
                + (self.down.not_run() if self.down is not None else []))

    @property
    def verdict(self) -> str:
        """PASS (exit 0), FAIL: a mismatch (exit 1), NOT VERIFIED: no mismatch, but a category the plan has items
        for checked nothing (exit 2)."""
        if self.mismatches:
            return "FAIL"
        return "NOT VERIFIED" if any(not n.legitimate for n in self.not_run) else "PASS"

    @property
    def exit_code(self) -> int:
        return {"PASS": 0, "FAIL": 1}.get(self.verdict, 2)

    @property
    def ok(self) -> bool:
        return self.verdict == "PASS"

    def caught_by(self, fault: Fault) -> list[str]:
        """The checks with a mismatch that names the fault's device, interface or prefixes."""
        return [k for k, c in self.checks.items() if any(m in b for b in c.bad for m in fault.marks)]

    def counts(self) -> dict[str, int]:
        return {k: c.total for k, c in self.checks.items()}
