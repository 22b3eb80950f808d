#!/usr/bin/env python3
"""Benchmark `fabric impact` on the synthetic bench fabric (issue 32; bench/bench_pipeline.py writes it).

    .venv/bin/python bench/bench_impact.py                 # 65,536 GPUs
    .venv/bin/python bench/bench_impact.py --sizes 8192    # quick

Per size: the whole command as a fresh child (`python -m railfabric.cli impact DIR --down ... --format json`: wall
time, including the validate pipeline it runs first, and peak RSS), then in this process, on one validated fabric,
the impact computation alone for each scenario (best of 3): a rail switch, a spine, a super-spine, one
rail-switch uplink, and the maintenance waves of one pod's 64 rail switches (the cyclic garbage collector off,
as in the command). Target: the computation in a few
seconds at 65,536 GPUs (the command adds the validate run, bench/README.md). Results: stdout and
bench/results-impact.json.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import Geometry, calibrate, environment, write_inventory  # noqa: E402

from railfabric.impact import Resolver, impact, maintenance_waves  # noqa: E402
from railfabric.pipeline import run  # noqa: E402


def scenarios(topo) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    rail = next(n for n, s in topo.switches.items() if s.role.value == "rail")
    spine = next(n for n, s in topo.switches.items() if s.role.value == "spine")
    sup = next(n for n, s in topo.switches.items() if s.role.value == "super-spine")
    uplink = next(link.id for link in topo.links if link.role.value == "fabric")
    return {"rail switch": [rail], "spine": [spine], "super-spine": [sup], "uplink": [uplink]}


def child(argv: list[str]) -> tuple[float, float, int]:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    _pid, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def best(fn, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    out = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - start)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="65536")
    args = ap.parse_args()
    gc.disable()  # as the `fabric` command runs (railfabric/cli/__init__.py: run)
    results: dict = {"calibration_s_before": calibrate(), "environment": environment(), "sizes": {}}
    with tempfile.TemporaryDirectory(prefix="rf-bench-impact-") as tmp:
        for size in (int(s.replace("k", "")) * (1024 if "k" in s else 1) for s in args.sizes.split(",")):
            inv = write_inventory(Path(tmp) / str(size), Geometry.for_gpus(size))
            res = run(inv)
            topo = res.topology
            assert res.inventory is not None and topo is not None and res.plan is not None
            row: dict = {"gpus": sum(h.gpus for h in topo.hosts.values()), "links": len(topo.links)}
            inv_, plan = res.inventory, res.plan
            resolver = Resolver(topo)
            for name, down in scenarios(topo).items():
                d = resolver.resolve(down)
                row[f"{name} s"] = round(best(partial(impact, inv_, topo, plan, d)), 3)
            pod1 = [n for n, s in topo.switches.items() if s.role.value == "rail" and s.pod == 1]
            row["waves of pod 1's rail switches s"] = round(best(partial(maintenance_waves, inv_, topo, pod1), 1), 3)
            wall, rss, rc = child([sys.executable, "-m", "railfabric.cli", "impact", str(inv), "--down",
                                   scenarios(topo)["spine"][0], "--format", "json"])
            row["command wall s (validate + impact)"] = round(wall, 3)
            row["command peak RSS MiB"] = round(rss, 1)
            row["command exit"] = rc
            results["sizes"][str(size)] = row
            print(json.dumps({size: row}, indent=2))
    results["calibration_s_after"] = calibrate()
    (ROOT / "bench" / "results-impact.json").write_text(json.dumps(results, indent=2, sort_keys=True) + "\n",
                                                        encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
