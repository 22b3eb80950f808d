"""What the InfiniBand lab (railfabric/infiniband/lab.py) reports: its checks, the files it wrote, its run id, notes."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str


@dataclass(slots=True)
class IbLabResult:
    fabric: str
    fault: str | None
    checks: list[Check] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # what the lab wrote, by file name
    run: str = ""  # the run id (railfabric/infiniband/labruns.py)
    notes: list[str] = field(default_factory=list)  # what it did besides checking: dead runs reaped

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    def check(self, name: str) -> Check | None:
        return next((c for c in self.checks if c.name == name), None)


def format_result(res: IbLabResult) -> str:
    head = f"InfiniBand lab of {res.fabric}" + (f" with fault {res.fault}" if res.fault else "")
    head += f" (run {res.run})" if res.run else ""
    lines = [head] + [f"  {note}" for note in res.notes]
    lines += [f"  {'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}" for c in res.checks]
    return "\n".join(lines) + "\n"
