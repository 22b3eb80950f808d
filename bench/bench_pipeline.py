#!/usr/bin/env python3
"""Benchmark `fabric validate` on synthetic 3-tier fabrics of about 1K, 8K and 65K GPUs.

    .venv/bin/python bench/bench_pipeline.py                      # 1,024 / 8,192 / 65,536 GPUs (up to 131,072)
    .venv/bin/python bench/bench_pipeline.py --sizes 1024,8192 --repeat 5
    .venv/bin/python bench/bench_pipeline.py --strict              # exit 1 when a target is missed
    .venv/bin/python bench/bench_pipeline.py --profile --sizes 64k # cProfile one run, print the hotspots
    .venv/bin/python bench/bench_pipeline.py --write-inventories /tmp/inv   # only write the YAML

For every size the script writes a multi-file inventory (fabric.yml, hardware.yml, pods.yml, devices.yml) into a
temporary directory, then runs each repeat twice, each time in a fresh interpreter:

1. the real command, `python -m railfabric.cli validate DIR --format json`: wall time (perf_counter around the child,
   interpreter start-up included) and the child's peak RSS (os.wait4 returns the child's own rusage);
2. the same command inside a small wrapper that times each stage of railfabric.pipeline.run (load, schema, intent
   rules, expand, topology rules, allocate, plan rules, summary, JSON report), the imports and garbage collection.

The benchmark process itself never imports fabric (or pydantic), so it cannot inflate what the children report.
Results go to stdout (tables) and bench/results.json (sorted keys). POSIX only (os.wait4, resource).

The synthetic fabric (every switch is a 64-port 800G box with 2x400G breakouts, 8-GPU hosts with 8 x 400G NICs):
- segment = 16 hosts, single-rail: 8 rail switches, each 16 x 400G down (8 ports broken out) and 16 x 400G up
  (one 400G link to each of the pod's 16 spines);
- pod = 8 segments = 64 rail switches + 16 spines; a spine has 64 x 400G down (ports 1-32 broken out) and
  32 x 800G up (ports 33-64), so both tiers are exactly non-blocking;
- super-spines in 16 planes (spine i of every pod meets plane i); each plane has the smallest power of two
  d >= pods/2 super-spines, each spine runs 32/d links to each of them, so a super-spine uses pods x 32/d <= 64
  ports. 65,536 GPUs = 8,192 hosts = 512 segments = 64 pods: 4,096 rail switches + 1,024 spines + 512
  super-spines = 5,632 switches and 163,840 links.
- beyond 64 pods (d = 64 > 32 uplink ports) the core runs in 400G lanes: a spine's ports 33-64 as 2x400G, one lane
  to each of the 64 super-spines of its plane, a super-spine's 64 ports as 128 x 400G, one lane per pod.
  131,072 GPUs = 16,384 hosts = 1,024 segments = 128 pods: 8,192 rail switches + 2,048 spines + 1,024
  super-spines = 11,264 switches and 393,216 links, the largest size (LIMITS hold it, for every size).
A 64-port spine cannot serve 32 segments (256 rail switches) per pod, hence 8 segments per pod.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "bench" / "results.json"
PROFILE_DIR = ROOT / "bench" / "out"

DEFAULT_SIZES = (1024, 8192, 65536)

# geometry of the synthetic fabric (see the module docstring)
GPUS_PER_HOST = 8
RAILS = 8  # NICs per host = rail switches per segment (single-rail)
HOSTS_PER_SEGMENT = 16
GPUS_PER_SEGMENT = GPUS_PER_HOST * HOSTS_PER_SEGMENT
SEGMENTS_PER_POD = 8
SPINES_PER_POD = 16
PLANES = 16
SPINE_UPLINKS = 32  # 800G ports 33-64 of a spine
SPINE_UPLINK_LANES = 2 * SPINE_UPLINKS  # the same ports as 2x400G lanes (fabrics of more than 64 pods)
SWITCH_PORTS = 64
MAX_PODS = 128  # 131,072 GPUs
MAX_SUPER_SPINES_PER_PLANE = MAX_PODS // 2  # a super-spine's 64 ports as 128 x 400G lanes: one per pod

# limits: fixed for every size, so the address plan of a fabric never depends on how big it is today; they hold
# the largest fabric the geometry makes (128 pods, 131,072 GPUs)
LIMITS = {
    "pods": MAX_PODS,
    "segments_per_pod": SEGMENTS_PER_POD,
    "rail_switches_per_segment": 16,
    "spines_per_pod": SPINES_PER_POD,
    "super_spines": PLANES * MAX_SUPER_SPINES_PER_PLANE,
    "uplinks_per_rail_switch": 16,
    "uplinks_per_spine": SPINE_UPLINK_LANES,
    "segment_rail_block": 21,
}
# pools sized for the limits (checked by the validate run itself: POOL001/POOL002 would show up as errors)
#   loopbacks     1,024 + 128*16 + 128*8*16 = 19,456 slots         -> /17 needed, /16 given
#   fabric_links (128*8*16*16 + 128*16*64) /31s = 786,432 addr.  -> /12 needed, /12 given
#   rail_subnets  128*8 segment blocks of /21 = 2,097,152 addr.  -> /11 needed, /11 given
#   management    19,456 + 16                                   -> /17 needed, /16 given
POOLS = {
    "loopbacks": "10.0.0.0/16",
    "fabric_links": "10.64.0.0/12",
    "rail_subnets": "10.128.0.0/11",
    "management": "192.168.0.0/16",
}

TARGET_GPUS = 65536
TARGET_WALL_S = 5.0
TARGET_RSS_MIB = 1024.0

STAGES = (  # (stage, function name in railfabric.pipeline)
    ("load", "load_inventory"),
    ("schema", "validate"),
    ("intent_rules", "check_intent"),
    ("expand", "expand"),
    ("topology_rules", "check_topology"),
    ("allocate", "allocate"),
    ("plan_rules", "check_plan"),
    ("sort_findings", "unique_sorted"),
    ("summary", "summary"),
)
STAGE_COLUMNS = ("import", "load", "schema", "intent_rules", "expand", "topology_rules", "allocate", "plan_rules",
                 "summary", "report", "gc", "in_process", "startup")


# --------------------------------------------------------------------------- geometry and inventory files


@dataclass(frozen=True)
class Geometry:
    gpus: int
    segments: int
    pods: int
    super_spines_per_plane: int

    @classmethod
    def for_gpus(cls, gpus: int) -> Geometry:
        if gpus <= 0 or gpus % GPUS_PER_SEGMENT:
            raise ValueError(f"{gpus:,} GPUs: sizes must be a positive multiple of {GPUS_PER_SEGMENT} "
                             f"(one segment of {HOSTS_PER_SEGMENT} hosts x {GPUS_PER_HOST} GPUs)")
        segments = gpus // GPUS_PER_SEGMENT
        pods = -(-segments // SEGMENTS_PER_POD)
        if pods > LIMITS["pods"]:
            raise ValueError(f"{gpus:,} GPUs need {pods} pods; this geometry stops at {LIMITS['pods']} pods "
                             f"({LIMITS['pods'] * SEGMENTS_PER_POD * GPUS_PER_SEGMENT:,} GPUs)")
        per_plane = 1
        while 2 * per_plane < pods:  # smallest power of two >= pods/2: a super-spine then uses <= 64 ports
            per_plane *= 2
        return cls(gpus, segments, pods, per_plane)

    @property
    def hosts(self) -> int:
        return self.segments * HOSTS_PER_SEGMENT

    @property
    def core_lanes(self) -> bool:
        """More than 32 super-spines a plane (more than 64 pods): a spine's uplink ports run as 2x400G lanes, one
        lane to each super-spine of its plane, and the super-spines take 128 x 400G (2x400G breakouts)."""
        return self.super_spines_per_plane > SPINE_UPLINKS

    @property
    def core_speed(self) -> str:
        return "400G" if self.core_lanes else "800G"

    @property
    def spine_uplinks(self) -> int:
        return SPINE_UPLINK_LANES if self.core_lanes else SPINE_UPLINKS

    @property
    def links_per_super_spine(self) -> int:
        return self.spine_uplinks // self.super_spines_per_plane

    def expected(self) -> dict[str, int]:
        rail = self.segments * RAILS
        spines = self.pods * SPINES_PER_POD
        supers = PLANES * self.super_spines_per_plane
        links = self.hosts * RAILS + rail * SPINES_PER_POD + spines * self.spine_uplinks
        return {"gpus": self.gpus, "hosts": self.hosts, "switches": rail + spines + supers, "links": links,
                "rail_switches": rail, "spines": spines, "super_spines": supers}

    def describe(self) -> dict[str, int | str]:
        return {"segments": self.segments, "pods": self.pods, "planes": PLANES,
                "super_spines_per_plane": self.super_spines_per_plane, "core_speed": self.core_speed,
                "links_per_super_spine": self.links_per_super_spine, "segments_per_pod": SEGMENTS_PER_POD,
                "spines_per_pod": SPINES_PER_POD, "hosts_per_segment": HOSTS_PER_SEGMENT}


def fabric_yml(geo: Geometry) -> str:
    limits = "\n".join(f"  {k}: {v}" for k, v in LIMITS.items())
    return f"""\
# Synthetic railfabric inventory written by bench/bench_pipeline.py: {geo.gpus:,} GPUs, {geo.hosts:,} hosts,
# {geo.segments} segments in {geo.pods} pod(s). Fabric-wide policy.

fabric:
  name: bench-{geo.gpus}
  platform: sonic
  mtu: 9216
  host_mtu: 9000
  rail_vlan_base: 100

routing:
  underlay: ebgp
  asn:
    super_spine: 4200000000
    spine_base: 4200001000
    rail_switch_base: 4200100000
  bfd: true
  ecmp:
    mode: flow
    width: 64

qos:
  roce: {{dscp: 26, priority: 3}}
  cnp: {{dscp: 48, priority: 6}}
  ecn: {{enabled: true, min_bytes: 150000, max_bytes: 1500000, probability: 100}}
  pfc_watchdog: {{enabled: true, detection_ms: 200, restoration_ms: 200, poll_ms: 200, action: drop}}
  scheduler: {{roce_weight: 50, default_weight: 50}}

pools:
  loopbacks: {POOLS["loopbacks"]}
  fabric_links: {POOLS["fabric_links"]}
  rail_subnets: {POOLS["rail_subnets"]}
  management:
    prefix: {POOLS["management"]}
    gateway: 192.168.0.1
    first_offset: 16

limits:
{limits}
"""


def hardware_yml() -> str:
    return """\
# The hardware catalogue.

switch_models:
  sn5600:                          # 64 x 800G OSFP; host ports and spine downlinks use 2x400G breakouts
    ports: 64
    speed: 800G
    breakouts: [2x400G, 4x200G]
    latency_ns: 600
    # Spectrum-4 buffer facts (the example's inventory/hardware.yml cites the sources): a SONiC switch
    # cannot be made lossless without them (BUF001)
    buffers: {total_bytes: 158229504, ingress_lossless_pool: 52161690, ingress_lossy_pool: 52161690,
              egress_lossless_pool: 158229504, egress_lossy_pool: 52161690, cell_bytes: 192,
              pipeline_latency_bytes: 19456, mac_phy_delay_bytes: 819.2, tile_delay_ns: 120}

host_models:
  hgx-h100:                        # 8 GPUs, one 400G NIC per GPU
    gpus: 8
    nics: 8
    ports_per_nic: 1
    nic_speed: 400G
"""


def pods_yml(geo: Geometry) -> str:
    lines = [
        "# Super-spines, pods and segments.",
        "",
        "super_spines:",
        f"  count: {PLANES * geo.super_spines_per_plane}",
        "  model: sn5600",
        '  name: "ss{index}"',
        f"  planes: {PLANES}                       # spine i of every pod meets only the super-spines of plane i",
        f"  ports_per_pod: {geo.links_per_super_spine:<18}# pod p lands on ports (p-1)*N+1...: "
        "a new pod never moves cables",
        "",
        "pods:",
    ]
    for p in range(1, geo.pods + 1):
        first_segment = (p - 1) * SEGMENTS_PER_POD + 1
        n_segments = min(SEGMENTS_PER_POD, geo.segments - first_segment + 1)
        lines += [
            f"  - id: {p}",
            "    spines:",
            f"      count: {SPINES_PER_POD}",
            "      model: sn5600",
            "      link_speed: 400G               # rail switch <-> spine, 2x400G breakouts on the spine",
            "      links_per_rail_switch: 1",
            f"      super_spine_link_speed: {geo.core_speed}",
            f"      links_per_super_spine: {geo.links_per_super_spine}",
            f"      ports_per_segment: {RAILS:<12}# 8 rail switches x 1 link (400G lanes) per segment id",
            "    segments:",
        ]
        for s in range(1, n_segments + 1):
            lines += [
                f"      - id: {s}",
                "        rail_design: single-rail",
                f"        rails: {RAILS}",
                "        rail_prefix_len: 24",
                "        rail_switch_model: sn5600",
                "        host_groups:",
                f"          - {{model: hgx-h100, count: {HOSTS_PER_SEGMENT}}}",
            ]
    return "\n".join(lines) + "\n"


def devices_yml(geo: Geometry) -> str:
    """Rack assignments for every spine and super-spine, as a DC team would record them."""
    lines = ["# Per-device overrides: racks of the spine and super-spine tiers.", "", "devices:"]
    for i in range(1, PLANES * geo.super_spines_per_plane + 1):
        lines.append(f'  ss{i}: {{rack: "CORE-R{(i - 1) // 8 + 1:03d}"}}')
    for p in range(1, geo.pods + 1):
        for j in range(1, SPINES_PER_POD + 1):
            lines.append(f'  p{p}-spine{j}: {{rack: "POD{p:02d}-R{(j - 1) // 8 + 1:02d}"}}')
    return "\n".join(lines) + "\n"


def write_inventory(directory: Path, geo: Geometry) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "fabric.yml").write_text(fabric_yml(geo), encoding="utf-8")
    (directory / "hardware.yml").write_text(hardware_yml(), encoding="utf-8")
    (directory / "pods.yml").write_text(pods_yml(geo), encoding="utf-8")
    (directory / "devices.yml").write_text(devices_yml(geo), encoding="utf-8")
    return directory


# --------------------------------------------------------------------------- children

# Runs `fabric validate DIR --format json` through railfabric.cli.main, with every stage function that
# railfabric.pipeline.run calls wrapped in a timer (same code path as the real command), and writes the timings
# as JSON to argv[2]. With argv[3], the run is profiled with cProfile and the stats dumped there.
STAGE_WRAPPER = r"""
import gc, json, resource, sys, time
t0 = time.perf_counter()
import railfabric.cli as cli
import railfabric.pipeline as pl
t_import = time.perf_counter() - t0
rss_import = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
times = {}
gc_state = {"start": 0.0, "total": 0.0, "collections": 0}

def on_gc(phase, info):
    if phase == "start":
        gc_state["start"] = time.perf_counter()
    else:
        gc_state["total"] += time.perf_counter() - gc_state["start"]
        gc_state["collections"] += 1

def timed(stage, fn):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            times[stage] = times.get(stage, 0.0) + time.perf_counter() - start
    return wrapper

for stage, name in STAGES:
    setattr(pl, name, timed(stage, getattr(pl, name)))
import railfabric.cli.commands as commands  # cmd_validate (fabric validate) looks format_json up there
commands.format_json = timed("report", commands.format_json)
gc.callbacks.append(on_gc)
profiler = None
if len(sys.argv) > 3:
    import cProfile
    profiler = cProfile.Profile()
    profiler.enable()
t1 = time.perf_counter()
code = cli.main(["validate", sys.argv[1], "--format", "json"])
t_main = time.perf_counter() - t1
if profiler is not None:
    profiler.disable()
    profiler.dump_stats(sys.argv[3])
gc.callbacks.remove(on_gc)
sys.stdout.flush()
usage = resource.getrusage(resource.RUSAGE_SELF)
with open(sys.argv[2], "w") as fh:
    json.dump({"import": t_import, "main": t_main, "in_process": time.perf_counter() - t0, "stages": times,
               "gc": gc_state["total"], "gc_collections": gc_state["collections"], "exit_code": code,
               "maxrss_after_import": rss_import, "maxrss": usage.ru_maxrss}, fh)
sys.exit(code)
"""


def _rss_mib(maxrss: int) -> float:
    """ru_maxrss is KiB on Linux, bytes on macOS."""
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


@dataclass
class ChildRun:
    exit_code: int
    wall_s: float
    peak_rss_mib: float
    stdout: str
    stderr: str


class Runner:
    """Runs children in `workdir`. With warm_bytecode they cache bytecode under workdir (PYTHONPYCACHEPREFIX) even
    when the environment says PYTHONDONTWRITEBYTECODE, as an installed railfabric has it; the source tree is never
    written. Otherwise they inherit the environment as it is."""

    def __init__(self, workdir: Path, warm_bytecode: bool) -> None:
        self.workdir = workdir
        self.env: dict[str, str] | None = None
        if warm_bytecode:
            self.env = dict(os.environ)
            self.env.pop("PYTHONDONTWRITEBYTECODE", None)
            self.env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")

    def run(self, argv: list[str]) -> ChildRun:
        """Run argv in a fresh process; wall time around it, peak RSS from the child's own rusage (os.wait4)."""
        out_path, err_path = self.workdir / "child.stdout", self.workdir / "child.stderr"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(argv, cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
            _pid, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        return ChildRun(proc.returncode, wall, _rss_mib(usage.ru_maxrss),
                        out_path.read_text(encoding="utf-8", errors="replace"),
                        err_path.read_text(encoding="utf-8", errors="replace"))


def cli_argv(inventory: Path) -> list[str]:
    return [sys.executable, "-m", "railfabric.cli", "validate", str(inventory), "--format", "json"]


def stage_argv(inventory: Path, timings: Path, profile: Path | None = None) -> list[str]:
    code = f"STAGES = {list(STAGES)!r}\n{STAGE_WRAPPER}"
    argv = [sys.executable, "-c", code, str(inventory), str(timings)]
    if profile is not None:
        argv.append(str(profile))
    return argv


class BenchError(RuntimeError):
    pass


def parse_report(run: ChildRun, what: str) -> dict[str, Any]:
    """The JSON document `fabric validate --format json` prints; BenchError when the child broke down."""
    try:
        doc = json.loads(run.stdout)
    except json.JSONDecodeError:
        tail = "\n".join(run.stderr.strip().splitlines()[-15:])
        raise BenchError(f"{what}: exit code {run.exit_code}, no JSON report on stdout\n{tail}") from None
    if run.exit_code not in (0, 1) or "summary" not in doc:
        first = [f"{f['code']}: {f['message']}" for f in doc.get("findings", [])[:5]]
        raise BenchError(f"{what}: exit code {run.exit_code}, pipeline stopped early: {first}")
    return doc


# --------------------------------------------------------------------------- measuring


def _stats(values: list[float]) -> dict[str, Any]:
    return {"best": min(values), "median": statistics.median(values), "worst": max(values),
            "all": [round(v, 4) for v in values]}


def bench_size(geo: Geometry, inventory: Path, repeat: int, stages: bool, runner: Runner) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    stage_runs: list[dict[str, Any]] = []
    doc: dict[str, Any] = {}
    for r in range(1, repeat + 1):
        print(f"  {geo.gpus:>6,} GPUs  run {r}/{repeat}: fabric validate ...", end="", file=sys.stderr, flush=True)
        run = runner.run(cli_argv(inventory))
        doc = parse_report(run, f"{geo.gpus:,} GPUs, run {r}")
        runs.append({"wall_s": round(run.wall_s, 4), "peak_rss_mib": round(run.peak_rss_mib, 1),
                     "exit_code": run.exit_code, "errors": doc["counts"]["error"]})
        print(f" {run.wall_s:6.2f} s {run.peak_rss_mib:7.1f} MiB", end="", file=sys.stderr, flush=True)
        if stages:
            timings = runner.workdir / "stages.json"
            srun = runner.run(stage_argv(inventory, timings))
            parse_report(srun, f"{geo.gpus:,} GPUs, staged run {r}")
            t = json.loads(timings.read_text(encoding="utf-8"))
            row = {stage: t["stages"].get(stage, 0.0) for stage, _fn in STAGES}
            row.update({"import": t["import"], "report": t["stages"].get("report", 0.0), "gc": t["gc"],
                        "gc_collections": t["gc_collections"], "in_process": t["in_process"],
                        "startup": srun.wall_s - t["in_process"], "wall_s": srun.wall_s,
                        "peak_rss_mib": srun.peak_rss_mib, "rss_after_import_mib": _rss_mib(t["maxrss_after_import"])})
            row["other"] = t["main"] - sum(t["stages"].values())
            stage_runs.append(row)
            print(f"   (staged run {srun.wall_s:6.2f} s)", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr, flush=True)

    summary = doc["summary"]
    counts = {"gpus": summary["gpus"], "hosts": summary["hosts"], "switches": summary["switches_total"],
              "links": summary["links_total"], "rail_switches": summary["switches"]["rail"],
              "spines": summary["switches"]["spine"], "super_spines": summary["switches"]["super-spine"]}
    expected = geo.expected()
    mismatch = {k: {"expected": v, "got": counts[k]} for k, v in expected.items() if counts[k] != v}
    result: dict[str, Any] = {
        "gpus": geo.gpus,
        "geometry": geo.describe(),
        "counts": counts,
        "links_by_role": summary["links"],
        "pools": {name: {"prefix": p["prefix"], "used_pct": p["used_pct"], "reach_pct": p["reach_pct"]}
                  for name, p in summary.get("pools", {}).items()},
        "findings": doc["counts"],
        "runs": runs,
        "wall_s": _stats([r["wall_s"] for r in runs]),
        "peak_rss_mib": _stats([r["peak_rss_mib"] for r in runs]),
    }
    if mismatch:
        result["count_mismatch"] = mismatch
    if stage_runs:
        not_seconds = ("gc_collections", "wall_s", "peak_rss_mib", "rss_after_import_mib")
        keys = [k for k in stage_runs[0] if k not in not_seconds]
        result["stages_median_s"] = {k: round(statistics.median(r[k] for r in stage_runs), 4) for k in keys}
        result["staged_run_median"] = {k: round(statistics.median(r[k] for r in stage_runs), 4) for k in not_seconds}
        result["stage_runs"] = [{k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()}
                                for r in stage_runs]
    return result


def check_targets(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Targets at 65,536 GPUs (median wall, worst peak RSS); zero validation errors at every size."""
    out: dict[str, Any] = {"gpus": TARGET_GPUS, "wall_s_max": TARGET_WALL_S, "peak_rss_mib_max": TARGET_RSS_MIB,
                           "statistic": "median wall time, worst peak RSS", "checks": {}}
    big = next((r for r in results if r["gpus"] == TARGET_GPUS), None)
    if big is None:
        out["checks"]["wall"] = out["checks"]["rss"] = {"status": "SKIP", "value": None}
    else:
        wall, rss = big["wall_s"]["median"], big["peak_rss_mib"]["worst"]
        out["checks"]["wall"] = {"status": "PASS" if wall < TARGET_WALL_S else "FAIL", "value": wall}
        out["checks"]["rss"] = {"status": "PASS" if rss < TARGET_RSS_MIB else "FAIL", "value": rss}
    bad = {str(r["gpus"]): r["findings"]["error"] for r in results if r["findings"]["error"]}
    mismatched = [r["gpus"] for r in results if "count_mismatch" in r]
    out["checks"]["clean"] = {"status": "FAIL" if bad else "PASS", "value": sum(bad.values())}
    out["checks"]["counts"] = {"status": "FAIL" if mismatched else "PASS", "value": mismatched or 0}
    return out


# --------------------------------------------------------------------------- output


def print_tables(results: list[dict[str, Any]], targets: dict[str, Any]) -> None:
    print()
    head = (f"{'GPUs':>7} {'hosts':>6} {'switches':>8} {'links':>8} {'errors':>6} {'runs':>4} "
            f"{'wall best':>9} {'wall med':>9} {'RSS best':>9} {'RSS med':>9}")
    print(head)
    print("-" * len(head))
    for r in results:
        c, w, m = r["counts"], r["wall_s"], r["peak_rss_mib"]
        print(f"{r['gpus']:>7,} {c['hosts']:>6,} {c['switches']:>8,} {c['links']:>8,} {r['findings']['error']:>6} "
              f"{len(r['runs']):>4} {w['best']:>8.2f}s {w['median']:>8.2f}s "
              f"{m['best']:>6.0f}MiB {m['median']:>6.0f}MiB")
    staged = [r for r in results if "stages_median_s" in r]
    if staged:
        print("\nstage timings, median seconds (import = fabric + pydantic/yaml/netaddr imports; startup = "
              "interpreter start-up and exit;\n gc = time inside the cyclic garbage collector, already part of "
              "the stages)")
        labels = {"intent_rules": "intent", "topology_rules": "topo-r", "plan_rules": "plan-r",
                  "in_process": "in-proc", "summary": "summ"}
        head = f"{'GPUs':>7} " + " ".join(f"{labels.get(s, s):>8}" for s in STAGE_COLUMNS)
        print(head)
        print("-" * len(head))
        for r in staged:
            s = r["stages_median_s"]
            print(f"{r['gpus']:>7,} " + " ".join(f"{s[k]:>8.3f}" for k in STAGE_COLUMNS))
    print()
    checks = targets["checks"]
    print(f"targets at {TARGET_GPUS:,} GPUs:")
    for key, label in (("wall", f"wall time (median) < {TARGET_WALL_S:g} s"),
                       ("rss", f"peak RSS (worst)   < {TARGET_RSS_MIB:g} MiB"),
                       ("clean", "0 validation errors at every size")):
        chk = checks[key]
        value = chk["value"]
        shown = "" if value is None else (f"  ({value:.2f})" if isinstance(value, float) else f"  ({value})")
        print(f"  {chk['status']:<4}  {label}{shown}")
    for r in results:
        if "count_mismatch" in r:
            print(f"  note: {r['gpus']:,} GPUs: counts differ from the geometry: {r['count_mismatch']}")


def calibrate() -> float:
    """Seconds for a fixed pure-Python loop (best of 5): compare runs across machines, or on a VM whose speed drifts."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        total = 0
        for i in range(2_000_000):
            total += i & 7
        best = min(best, time.perf_counter() - start)
    return round(best, 4)


def environment() -> dict[str, Any]:
    """Where the numbers were taken. `interpreter`: the Python the children run (the virtual environment's,
    resolved), because its build moves the numbers as much as the machine does (bench/README.md)."""
    env: dict[str, Any] = {"python": platform.python_version(), "implementation": platform.python_implementation(),
                           "interpreter": os.path.realpath(sys.executable),
                           "python_build": " ".join(platform.python_build()),
                           "platform": platform.platform(), "machine": platform.machine(), "cpus": os.cpu_count(),
                           "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        env["cpu"] = next((ln.split(":", 1)[1].strip() for ln in cpuinfo.splitlines() if ln.startswith("model name")),
                          None)
    except OSError:
        env["cpu"] = platform.processor() or None
    try:
        env["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                       text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "fabric"], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout.strip()
        env["fabric_modified"] = bool(dirty)  # uncommitted changes under railfabric/ were measured
    except (OSError, subprocess.CalledProcessError):
        env["commit"] = env["fabric_modified"] = None
    return env


def profile_sizes(geos: list[Geometry], inventories: dict[int, Path], runner: Runner, top: int) -> int:
    import pstats

    PROFILE_DIR.mkdir(parents=True, exist_ok=True)
    for geo in geos:
        prof = PROFILE_DIR / f"profile-{geo.gpus}.prof"
        print(f"profiling {geo.gpus:,} GPUs ...", file=sys.stderr, flush=True)
        run = runner.run(stage_argv(inventories[geo.gpus], runner.workdir / "stages.json", prof))
        parse_report(run, f"{geo.gpus:,} GPUs, profiled run")
        print(f"\n==== {geo.gpus:,} GPUs under cProfile: {run.wall_s:.2f} s wall, {run.peak_rss_mib:.0f} MiB "
              f"(stats in {prof.relative_to(ROOT)}; `python -m pstats` to browse)")
        for key in ("cumulative", "tottime"):
            print(f"\n---- top {top} by {key}")
            stats = pstats.Stats(str(prof), stream=sys.stdout)
            stats.strip_dirs().sort_stats(key).print_stats(top)
    print("note: cProfile adds overhead to every call (small hot functions look bigger than they are), and the "
          "__init__ methods that dataclasses generate all share the label <string>:2(__init__): pstats keeps one "
          "of them, so their time shows up only in the callers' cumulative time. Garbage collection is charged "
          "to whichever function happens to be running. For a sampling view: pip install pyinstrument, then "
          "python -m pyinstrument -m railfabric.cli validate DIR")
    return 0


# --------------------------------------------------------------------------- main


def parse_sizes(text: str) -> list[int]:
    sizes = []
    for part in text.split(","):
        part = part.strip().lower()
        if not part:
            continue
        try:
            sizes.append(int(part[:-1]) * 1024 if part.endswith("k") else int(part))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r} is not a GPU count such as 1024 or 64k") from None
    if not sizes:
        raise argparse.ArgumentTypeError("no sizes given")
    return sizes


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=parse_sizes, default=list(DEFAULT_SIZES),
                   help="comma-separated GPU counts, multiples of 128 up to 131072; 'k' = x1024 "
                        "(default: 1024,8192,65536)")
    p.add_argument("--repeat", type=int, default=3, help="runs per size (default: 3)")
    p.add_argument("--no-stages", dest="stages", action="store_false",
                   help="skip the per-stage runs (halves the time)")
    p.add_argument("--no-warmup", dest="warmup", action="store_false",
                   help="skip the untimed warm-up run (bytecode and page cache)")
    p.add_argument("--cold-bytecode", dest="warm_bytecode", action="store_false",
                   help="children inherit the bytecode settings as they are (with PYTHONDONTWRITEBYTECODE=1 and no "
                        "__pycache__, every run compiles fabric again); default: cache bytecode in a temporary "
                        "PYTHONPYCACHEPREFIX")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when a target is missed or a synthetic inventory has errors")
    p.add_argument("--output", type=Path, default=DEFAULT_OUTPUT,
                   help=f"results file (default: {DEFAULT_OUTPUT.relative_to(ROOT)}); '-' to skip")
    p.add_argument("--profile", action="store_true",
                   help="instead of timing: one cProfile run per size, print the hotspots, stats to bench/out/")
    p.add_argument("--top", type=int, default=25, help="rows of profile output (default: 25)")
    p.add_argument("--write-inventories", type=Path, metavar="DIR",
                   help="write the synthetic inventories to DIR/gpus-N and exit")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        geos = [Geometry.for_gpus(g) for g in sorted(set(args.sizes))]
    except ValueError as exc:
        print(f"bench_pipeline: {exc}", file=sys.stderr)
        return 2
    if args.repeat < 1:
        print("bench_pipeline: --repeat must be at least 1", file=sys.stderr)
        return 2

    if args.write_inventories:
        for geo in geos:
            d = write_inventory(args.write_inventories / f"gpus-{geo.gpus}", geo)
            print(f"{d}  ({geo.gpus:,} GPUs, {geo.expected()['switches']:,} switches, "
                  f"{geo.expected()['links']:,} links)")
        return 0

    env = environment()  # before the runs: the commit that was measured
    env["calibration_s_before"] = calibrate()
    with tempfile.TemporaryDirectory(prefix="railfabric-bench-") as tmp:
        workdir = Path(tmp)
        runner = Runner(workdir, args.warm_bytecode)
        inventories = {geo.gpus: write_inventory(workdir / f"gpus-{geo.gpus}", geo) for geo in geos}
        try:
            if args.warmup or args.profile:
                runner.run(cli_argv(inventories[geos[0].gpus]))
            if args.profile:
                return profile_sizes(geos, inventories, runner, args.top)
            results = []
            for geo in geos:
                results.append(bench_size(geo, inventories[geo.gpus], args.repeat, args.stages, runner))
        except BenchError as exc:
            print(f"\nbench_pipeline: {exc}", file=sys.stderr)
            return 2

    env["calibration_s_after"] = calibrate()
    targets = check_targets(results)
    print_tables(results, targets)
    print(f"\nCPU calibration (fixed Python loop, best of 5): {env['calibration_s_before']:.3f} s before, "
          f"{env['calibration_s_after']:.3f} s after the runs; compare it when comparing results")
    doc = {"benchmark": "fabric validate on synthetic rail-optimized fabrics (bench/bench_pipeline.py)",
           "environment": env, "targets": targets, "results": results,
           "limits": LIMITS, "pools": POOLS,
           "settings": {"warm_bytecode": args.warm_bytecode, "warmup": args.warmup, "stages": args.stages}}
    if str(args.output) != "-":
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        try:
            shown = args.output.resolve().relative_to(ROOT)
        except ValueError:
            shown = args.output
        print(f"\nresults written to {shown}")
    failed = [k for k, v in targets["checks"].items() if v["status"] == "FAIL"]
    if failed and args.strict:
        print(f"--strict: failed {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
