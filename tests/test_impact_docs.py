"""docs/impact.md's "what one failure costs" table matches the computation on the shipped example (the table's
values are derived by hand in the page; this test keeps the two from drifting apart)."""

from __future__ import annotations

import re

from railfabric.impact import Resolver, impact
from railfabric.pipeline import run
from tests.helpers import EXAMPLE, ROOT


def _rows() -> list[list[str]]:
    text = (ROOT / "docs" / "impact.md").read_text(encoding="utf-8")
    table = text.split("## What one failure costs (the example)", 1)[1]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table.splitlines()
            if line.startswith("| `")]
    assert len(rows) == 10
    return rows


def test_failure_cost_table() -> None:
    res = run(EXAMPLE)
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    resolver = Resolver(res.topology)
    for name, gpus, hosts, tiers, _why in _rows():
        name = name.strip("`")
        out = impact(res.inventory, res.topology, res.plan, resolver.resolve([name]), routes=False)
        assert (out["isolated"]["gpus"], len(out["isolated"]["hosts"])) == (int(gpus), int(hosts)), name
        got = ", ".join(f"{t['pod']} {t['tier']}: {t['left_pct']:g}" for t in out["tiers"]) or "-"
        assert got == tiers, name
        assert re.fullmatch(r"[0-9]+", gpus)
