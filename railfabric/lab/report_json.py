"""`fabric lab --format json`: the lab's result for scripts (the text report is railfabric/lab/report.py).

One JSON object: the run id, verdict and exit code, the timings, each check category with its counts and mismatches,
the categories not run (why, and whether that is legitimate), and with `--down` the comparison with `fabric impact`:
the names and what they resolved to, the actions, whether FRR converged and in how long, and impact's prediction as
the lab compared it (per rail switch and prefix the width, 0 unreachable; withdrawn prefixes; isolated rail subnets;
per rail switch and spine of its pod whether impact names the spine blackholing; each IPv4 prefix's IPv6 twin).
Keys are sorted and lists ordered as the lab checks them, so two runs that found the same differ only in the run id
and the timings.
"""

from __future__ import annotations

import json
from typing import Any

from railfabric.lab.downcheck import DOWN_CATEGORIES, DownRun
from railfabric.lab.result import LabResult
from railfabric.lab.verify import categories


def result_json(r: LabResult) -> str:
    return json.dumps(result_dict(r), indent=2, sort_keys=True) + "\n"


def result_dict(r: LabResult) -> dict[str, Any]:
    missing = {n.key: n for n in r.not_run}
    shown = categories(r.expected) + (DOWN_CATEGORIES if r.down is not None else ())
    checks: dict[str, Any] = {}
    for key, title in shown:
        c = r.checks.get(key)
        if key in missing or c is None:
            continue
        checks[key] = {"title": title, "checked": c.total, "ok": c.total - len(c.bad), "mismatches": list(c.bad)}
    return {
        "run": r.run,
        "fabric": r.spec.fabric,
        "pod": r.spec.pod,
        "verdict": r.verdict,
        "exit_code": r.exit_code,
        "mismatches": r.mismatches,
        "converged": r.converged,
        "kept": r.kept,
        "timings_s": {k: round(v, 1) for k, v in r.timings.items()},
        "checks": checks,
        "not_run": [{"key": n.key, "title": n.title, "why": n.why, "legitimate": n.legitimate}
                    for n in missing.values()],
        "faults": [{"kind": f.kind, "where": f.where, "detected_by": r.caught_by(f)} for f in r.spec.faults],
        "down": _down(r.down) if r.down is not None else None,
    }


def _down(d: DownRun) -> dict[str, Any]:
    p = d.prediction
    return {
        "names": list(d.names),
        "resolved": {n: p.down.what[n] for n in p.down.names},
        "actions": list(d.actions),
        "converged": d.converged,
        "seconds": round(d.seconds, 1),
        "impact": {
            "isolated_gpus": p.isolated_gpus,
            "isolated_by_rail": dict(p.report["isolated"]["by_rail"]),
            "widths": {x: dict(sorted(w.items())) for x, w in sorted(p.widths.items())},
            "withdrawn": list(p.withdrawn),
            "isolated_subnets": dict(sorted(p.isolated_subnets.items())),
            "isolated_not_checked": list(p.isolated_elsewhere),
            "blackholes": [{"rail_switch": y, "spine": s, "aggregates": aggs, "impact_blackholes": named}
                           for y, _mine, s, aggs, named in p.blackholes],
            "ipv6_twins": dict(sorted(p.v6.items())),
        },
    }
