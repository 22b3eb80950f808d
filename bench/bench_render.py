#!/usr/bin/env python3
"""Benchmark `fabric render` as CI runs it: cold, no-op and one device changed (issue 13).

    .venv/bin/python bench/bench_render.py                    # 65,536 GPUs: cold, no-op check, one device changed
    .venv/bin/python bench/bench_render.py --sizes 8192       # a quick run
    .venv/bin/python bench/bench_render.py --sizes 131072     # the cold 131K run (needs bench_pipeline's limits)

Every command is a fresh `python -m railfabric.cli ...` child (wall time around it, peak RSS from os.wait4). Per size:
1. cold: `render` into an empty directory, and a bare Python script that writes the same files with the same
   byte counts (the floor any renderer pays for the file system), in the same run;
2. `fabric validate` alone (the floor a check cannot go below unless nothing changed), then the no-op
   `render --check` against the cold output (the whole-run reuse: nothing to validate or render), and the same
   no-op through the per-device path (the manifest's code digest made stale, so every device's digest is compared;
   it exits 3 because the manifest's own record differs, as after a railfabric upgrade);
3. one device changed (ss1's management address pinned in devices.yml): `render --check`, `plan`, then `render`
   into a copy of the cold output, and a cold render of the changed inventory into an empty directory: the
   incremental result must be byte-identical to it.
A CPU calibration (bench_pipeline's fixed loop) is timed before and after: this 2-core machine is shared, so
compare numbers together with it. Targets (issue 13): at 65,536 GPUs one device changed ≤ 5 s for each command,
no-op check ≤ 4 s; at 131,072 GPUs cold peak RSS ≤ 1.5 GiB and ≤ 3× the bare write. Results: stdout and
bench/results-render.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import Geometry, calibrate, environment, write_inventory

ROOT = Path(__file__).resolve().parents[1]
CHANGED_DEVICE = "ss1"
CHANGED_MANAGEMENT = "192.168.250.1"  # inside the synthetic inventories' management pool, unused by the allocator

BARE_WRITER = """
import json, os, sys, time
plan, out = json.load(open(sys.argv[1])), sys.argv[2]
start = time.perf_counter()
for path, size in plan:
    full = os.path.join(out, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as fh:
        fh.write(b"x" * size)
print(time.perf_counter() - start)
"""


def run_child(argv: list[str], cwd: Path = ROOT) -> tuple[float, float, int, str]:
    """(wall s, peak RSS MiB, exit code, output) of one fresh child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    out = proc.stdout.read().decode(errors="replace")
    _pid, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), out


def fabric(*args: str) -> tuple[float, float, int, str]:
    return run_child([sys.executable, "-m", "railfabric.cli", *args])


def tree_digest(d: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(d.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(d).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def tree_shape(d: Path) -> list[tuple[str, int]]:
    return [(p.relative_to(d).as_posix(), p.stat().st_size) for p in sorted(d.rglob("*")) if p.is_file()]


DROP_CACHES = Path("/proc/sys/vm/drop_caches")


def settle() -> bool:
    """Bring the page cache to the same state before each cold render and each bare write: synced (2 GB of the
    render's files still dirty would make the kernel throttle the next writer, dirty_ratio, and double its time),
    and, where this process may (root), emptied: with many GB of clean pages cached from earlier trees every new page
    is reclaimed first, which slowed the bare write from about 3 s to 5 s at 131,072 GPUs and the render less, so the
    ratio looked better than it is. True when the caches were dropped."""
    os.sync()
    try:
        DROP_CACHES.write_text("3\n")
    except OSError:
        return False
    return True


def bare_write(shape: list[tuple[str, int]], base: Path, tag: str = "") -> float:
    """Wall seconds of a fresh Python child writing the same files and byte counts (interpreter start included),
    after `settle`, as the cold render."""
    plan = base / "bare-plan.json"
    plan.write_text(json.dumps(shape))
    out = base / f"bare-out-{len(shape)}{tag}"
    settle()
    wall, _rss, rc, text = run_child([sys.executable, "-c", BARE_WRITER, str(plan), str(out)])
    assert rc == 0, text
    return wall  # the tree stays until the end of the bench: see `probe`


def probe(base: Path, files: int = 2000) -> float:
    """Microseconds to create one small file (a directory per 10), in a fresh child. On this machine the file
    system is ext4 without a journal, where creating a file skips every inode deleted in the last 1 to 6 minutes
    (the kernel's recently_deleted check), so file creation right after a large deletion is 10 to 50x slower: the
    bench deletes nothing until it ends and records this probe before and after, to say in what state it ran."""
    out = base / f"probe-{time.monotonic_ns()}"
    code = ("import os, sys, time\nbase, n = sys.argv[1], int(sys.argv[2])\nt = time.perf_counter()\n"
            "for i in range(n):\n    d = f'{base}/d{i // 10}'\n    if i % 10 == 0:\n        os.makedirs(d)\n"
            "    with open(f'{d}/f{i % 10}', 'wb') as fh:\n        fh.write(b'x' * 1000)\n"
            "print(time.perf_counter() - t)")
    _wall, _rss, rc, text = run_child([sys.executable, "-c", code, str(out), str(files)])
    assert rc == 0, text
    return round(float(text.strip()) / files * 1e6, 1)


def changed_inventory(inv: Path, dest: Path) -> Path:
    shutil.copytree(inv, dest)
    devices = dest / "devices.yml"
    text = devices.read_text()
    old = f"  {CHANGED_DEVICE}: {{rack: "
    assert text.count(old) == 1, "the synthetic devices.yml changed: update bench_render.changed_inventory"
    devices.write_text(text.replace(old, f"  {CHANGED_DEVICE}: {{management: {CHANGED_MANAGEMENT}, rack: "))
    return dest


def record(results: dict[str, Any], gpus: int, scenario: str, wall: float, rss: float, rc: int, text: str,
           **extra: Any) -> None:
    row = {"gpus": gpus, "scenario": scenario, "wall_s": round(wall, 2), "peak_rss_mib": round(rss, 1), "exit": rc,
           **extra}
    results["runs"].append(row)
    more = "  ".join(f"{k} {v}" for k, v in extra.items() if k != "pairs")  # cold_against_bare prints those
    print(f"{gpus:>7,} GPUs  {scenario:<24} {wall:7.2f} s  {rss:7.1f} MiB  exit {rc}  {more}", flush=True)
    if rc not in (0, 3):
        print(text[-2000:])


def bench_size(gpus: int, base: Path, workers: int, pairs: int, results: dict[str, Any]) -> None:
    try:
        geo = Geometry.for_gpus(gpus)
    except ValueError as exc:
        print(f"{gpus:>7,} GPUs  skipped: {exc}")
        results["skipped"][str(gpus)] = str(exc)
        return
    inv = write_inventory(base / f"inv-{gpus}", geo)
    w = str(workers)
    cold = base / f"cold-{gpus}"
    rc = cold_against_bare(gpus, inv, base, w, pairs, results)
    if rc != 0:
        return
    # the page cache was emptied before the last bare write: read the cold tree once, as a CI job finds generated/
    # right after its checkout wrote it (else the no-op check below would time the disk, 3x slower at 65K)
    tree_digest(cold)
    record(results, gpus, "validate (the floor)", *fabric("validate", str(inv), "-q"))
    record(results, gpus, "no-op render --check", *fabric("render", str(inv), "--out", str(cold), "--check",
                                                           "--workers", w))
    # the same no-op through the per-device path: a comment in the inventory does not change its meaning (so the
    # whole-run reuse still applies); a railfabric source edit would, so the manifest's record of the render code
    # is made stale instead, which takes the per-device path with every digest matching
    stale = base / f"stale-code-{gpus}"
    shutil.copytree(cold, stale, copy_function=os.link)
    doc = json.loads((stale / "manifest.json").read_text())
    doc["code_sha256"] = "0" * 64
    (stale / "manifest.json").unlink()  # a hard link into the cold tree: replace, never edit
    (stale / "manifest.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    record(results, gpus, "no-op, per-device path", *fabric("render", str(inv), "--out", str(stale), "--check",
                                                             "--workers", w))
    changed = changed_inventory(inv, base / f"inv-{gpus}-changed")
    record(results, gpus, "1 changed: render --check",
           *fabric("render", str(changed), "--out", str(cold), "--check", "--workers", w))
    record(results, gpus, "1 changed: plan", *fabric("plan", str(changed), "--out", str(cold), "--workers", w))
    incr = base / f"incr-{gpus}"
    shutil.copytree(cold, incr, copy_function=os.link)  # hard links: the render replaces files, never edits them
    record(results, gpus, "1 changed: render",
           *fabric("render", str(changed), "--out", str(incr), "--workers", w))
    cold2 = base / f"cold-{gpus}-changed"
    fabric("render", str(changed), "--out", str(cold2), "--workers", w)
    same = tree_digest(incr) == tree_digest(cold2)
    results["identical_to_cold"][str(gpus)] = same
    print(f"{gpus:>7,} GPUs  incremental output identical to a cold render: {same}", flush=True)


def cold_against_bare(gpus: int, inv: Path, base: Path, w: str, pairs: int, results: dict[str, Any]) -> int:
    """`pairs` cold renders, each followed by a bare write of the same files, each after `settle`: one pair drifts
    by 20 % and more between runs, so the row holds every pair and the median ratio (and render, bare write). The
    first cold tree is the one the later scenarios start from."""
    renders: list[float] = []
    bares: list[float] = []
    peak, rc, text = 0.0, 0, ""
    shape: list[tuple[str, int]] = []
    for i in range(pairs):
        out = base / (f"cold-{gpus}" if i == 0 else f"cold-{gpus}-pair{i}")
        results["caches_dropped"] = settle()
        wall, rss, rc, text = fabric("render", str(inv), "--out", str(out), "--workers", w)
        if rc != 0:
            break
        shape = shape or tree_shape(out)
        renders.append(wall)
        bares.append(bare_write(shape, base, f"-pair{i}"))
        peak = max(peak, rss)
        print(f"{gpus:>7,} GPUs  cold render, pair {i + 1}: {wall:.2f} s against a bare write of {bares[-1]:.2f} s "
              f"({wall / bares[-1]:.2f}x; page cache {'dropped' if results['caches_dropped'] else 'synced'} before "
              "each)", flush=True)
    if rc != 0 or not renders:
        record(results, gpus, "cold render", renders[0] if renders else 0.0, peak, rc, text)
        return rc or 1
    ratios = [r / b for r, b in zip(renders, bares, strict=True)]
    record(results, gpus, "cold render", statistics.median(renders), peak, rc, text, files=len(shape),
           mb=round(sum(s for _, s in shape) / 1e6), bare_write_s=round(statistics.median(bares), 2),
           ratio_to_bare=round(statistics.median(ratios), 2), pairs=[
               {"render_s": round(r, 2), "bare_write_s": round(b, 2), "ratio": round(r / b, 2)}
               for r, b in zip(renders, bares, strict=True)])
    return 0


def targets(results: dict[str, Any]) -> dict[str, bool]:
    def wall(gpus: int, scenario: str) -> float | None:
        rows = [r for r in results["runs"] if r["gpus"] == gpus and r["scenario"] == scenario]
        return rows[0]["wall_s"] if rows else None

    out: dict[str, bool] = {}
    for scenario, limit in (("no-op render --check", 4), ("1 changed: render --check", 5),
                            ("1 changed: plan", 5), ("1 changed: render", 5)):
        w = wall(65536, scenario)
        if w is not None:
            out[f"65536 {scenario} <= {limit}s"] = w <= limit
    big = [r for r in results["runs"] if r["gpus"] == 131072 and r["scenario"] == "cold render"]
    if big:
        out["131072 cold peak RSS <= 1536 MiB"] = big[0]["peak_rss_mib"] <= 1536
        out["131072 cold <= 3x bare write"] = (big[0]["ratio_to_bare"] or 99) <= 3
    out.update({f"identical to cold at {g}": v for g, v in results["identical_to_cold"].items()})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="65536", help="GPU counts (default 65536)")
    ap.add_argument("--workers", type=int, default=2, help="render workers (default 2)")
    ap.add_argument("--pairs", type=int, default=3,
                    help="cold renders, each against a bare write of the same files (default 3; the median counts)")
    ap.add_argument("--output", default=str(ROOT / "bench" / "results-render.json"))
    ap.add_argument("--tmp", default=str(ROOT / ".cache"),
                    help="where the fabrics are written (default .cache/ in the checkout, where a CI job's "
                         "generated/ lives; /tmp on this machine creates directories up to 15x slower)")
    args = ap.parse_args(argv)
    results: dict[str, Any] = {"runs": [], "skipped": {}, "identical_to_cold": {},
                               "calibration_s_before": calibrate(), "workers": args.workers,
                               "environment": environment()}
    print(f"CPU calibration (bench_pipeline's fixed loop): {results['calibration_s_before']:.3f} s; this shared "
          "machine's speed varies: compare numbers together with it")
    print(f"interpreter: {results['environment']['interpreter']} (Python {results['environment']['python']}, "
          f"{results['environment']['python_build']}): its build changes every number (bench_pipeline.environment)")
    Path(args.tmp).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="railfabric-bench-render-", dir=args.tmp) as tmp:
        results["fs_create_us_before"] = probe(Path(tmp))
        print(f"file system: {results['fs_create_us_before']} µs to create a small file (about 25 on this machine "
              "when nothing was deleted in the last minutes; see bench/README.md)", flush=True)
        for gpus in (int(s) for s in args.sizes.split(",")):
            bench_size(gpus, Path(tmp), args.workers, args.pairs, results)
        results["fs_create_us_after"] = probe(Path(tmp))
        print(f"file system after: {results['fs_create_us_after']} µs to create a small file; removing the "
              "bench's trees", flush=True)
    results["calibration_s_after"] = calibrate()
    results["targets"] = targets(results)
    for k, v in results["targets"].items():
        print(f"  {'PASS' if v else 'FAIL'}  {k}")
    print(f"CPU calibration after: {results['calibration_s_after']:.3f} s")
    if args.output != "-":
        Path(args.output).write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
