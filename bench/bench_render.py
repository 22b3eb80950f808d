#!/usr/bin/env python3
"""Benchmark the whole pipeline as `make render` runs it: validate + device model + render + artifacts + write.

    .venv/bin/python bench/bench_render.py                   # 8,192 and 65,536 GPUs, workers 1 and 2; no-op
    .venv/bin/python bench/bench_render.py --sizes 65536 --workers 2

Each run is a fresh `python -m fabric.cli render INVENTORY --out DIR` (wall time around the child, peak RSS from
os.wait4) into an empty output directory. The synthetic inventories are the ones of bench_pipeline.py. It also
times a no-op `fabric render` of the shipped example (generated/ already up to date) and checks that the output
is byte-identical whatever the worker count. Targets (issue 3): 65,536 GPUs under 20 s and 1.5 GB; no-op under 1 s.
Results: stdout and bench/results-render.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import Geometry, calibrate, write_inventory

ROOT = Path(__file__).resolve().parents[1]


def run_child(argv: list[str], cwd: Path) -> tuple[float, float, int, str]:
    """(wall s, peak RSS MiB, exit code, output) of one fresh child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    out = proc.stdout.read().decode(errors="replace")
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, proc.returncode, out


def tree_digest(d: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(d.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(d).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="8192,65536", help="GPU counts (default 8192,65536)")
    ap.add_argument("--workers", default="1,2", help="worker counts to compare (default 1,2)")
    ap.add_argument("--output", default=str(ROOT / "bench" / "results-render.json"))
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    workers = [int(w) for w in args.workers.split(",")]
    results: dict = {"runs": [], "targets": {}, "calibration_s_before": round(calibrate(), 4)}
    print(f"CPU calibration (bench_pipeline's fixed loop): {results['calibration_s_before']:.3f} s; "
          "compare it across runs: this shared host's speed varies")
    with tempfile.TemporaryDirectory(prefix="railfabric-bench-render-") as tmp:
        base = Path(tmp)
        for gpus in sizes:
            inv = write_inventory(base / f"inv-{gpus}", Geometry.for_gpus(gpus))
            digests = set()
            for w in workers:
                out = base / f"out-{gpus}-{w}"
                wall, rss, rc, text = run_child([sys.executable, "-m", "fabric.cli", "render", str(inv), "--out",
                                                 str(out), "--workers", str(w)], ROOT)
                files = sum(1 for p in out.rglob("*") if p.is_file()) if out.exists() else 0
                size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) if out.exists() else 0
                digests.add(tree_digest(out) if out.exists() else "")
                row = {"gpus": gpus, "workers": w, "wall_s": round(wall, 2), "peak_rss_mib": round(rss, 1),
                       "exit": rc, "files": files, "bytes": size}
                results["runs"].append(row)
                print(f"{gpus:>7,} GPUs  workers {w}: {wall:6.2f} s  {rss:7.1f} MiB  {files:,} files "
                      f"({size / 1e6:,.0f} MB)  exit {rc}", flush=True)
                if rc != 0:
                    print(text[-2000:])
                shutil.rmtree(out, ignore_errors=True)
            results.setdefault("identical_across_workers", {})[str(gpus)] = len(digests) == 1
            print(f"{gpus:>7,} GPUs  output identical across workers {workers}: {len(digests) == 1}")
        # no-op render of the shipped example
        example_out = base / "example-out"
        run_child([sys.executable, "-m", "fabric.cli", "render", "inventory", "--out", str(example_out)], ROOT)
        noop = [run_child([sys.executable, "-m", "fabric.cli", "render", "inventory", "--out", str(example_out)],
                          ROOT)[0] for _ in range(5)]
        results["noop_example_s"] = {"all": [round(x, 3) for x in noop], "median": round(sorted(noop)[2], 3)}
        print(f"no-op render of the example: median {sorted(noop)[2]:.2f} s over 5 runs")
    big = [r for r in results["runs"] if r["gpus"] == 65536]
    if big:
        best = min(big, key=lambda r: r["wall_s"])
        results["targets"] = {
            "65536_wall_under_20s": best["wall_s"] < 20,
            "65536_rss_under_1536mib": max(r["peak_rss_mib"] for r in big) < 1536,
            "noop_under_1s": results["noop_example_s"]["median"] < 1,
        }
        for k, v in results["targets"].items():
            print(f"  {'PASS' if v else 'FAIL'}  {k}")
    results["calibration_s_after"] = round(calibrate(), 4)
    if args.output != "-":
        Path(args.output).write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
