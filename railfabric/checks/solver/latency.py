"""Worst-case switch hops and one-way latency between two GPUs, against `solver.latency_budget_ns`.

Path kinds (a rail-optimized fabric routes a GPU's traffic on its own NIC, i.e. its rail):
- same-rail: both NICs on one rail switch (same rail, same segment; or two rails served by one multi-rail switch):
  1 switch, a host cable at each end;
- in-pod: cross-rail or cross-segment inside a pod with spines: rail switch → spine → rail switch, 3 switches,
  2 host cables and 2 fabric cables;
- cross-pod: rail → spine → super-spine → spine → rail, 5 switches, 2 host, 2 fabric and 2 core cables.
Rail-only pods have no spines: cross-rail traffic moves over NVLink inside the hosts, so only same-rail paths exist in
the fabric, and they reach no other pod.

One-way latency = the switches' port-to-port latency (each switch model's `latency_ns`) + cable propagation
(the cable lengths of `solver.cable` × `solver.fiber_ns_per_m`). For each kind the worst real path is named: the
slowest switches that are actually cabled to each other (linear in links). A kind above the budget is LAT001 (error).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import compress
from operator import ne

from railfabric.checks.solver.index import LinkIndex, link_index
from railfabric.core.finding import Finding
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.topology import Role, Topology

BUDGET_PATH = ("solver", "latency_budget_ns")

_LABEL = {
    "same-rail": "same-rail (one rail switch)",
    "in-pod": "cross-rail / cross-segment inside a pod (rail-spine-rail)",
    "cross-pod": "cross-pod (rail-spine-super-spine-spine-rail)",
}


def _num(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(x, 1)


def check_latency(inv: Inventory, topo: Topology, src: SourceMap,
                  index: LinkIndex | None = None) -> tuple[dict, list[Finding]]:
    cfg = inv.solver
    order = {name: i for i, name in enumerate(topo.switches)}
    lat = {name: inv.switch_models[sw.model].latency_ns if sw.model in inv.switch_models else 0
           for name, sw in topo.switches.items()}
    paths = _worst_paths(topo, lat, order, index or link_index(topo))
    cable = cfg.cable
    rows, findings = _judged(inv, topo, src, lat, paths)
    worst = max(rows.values(), key=lambda r: (r["switches"], r["latency_ns"]), default=None)
    report = {
        "budget_ns": cfg.latency_budget_ns, "fiber_ns_per_m": cfg.fiber_ns_per_m,
        "cable_m": {"host": _num(cable.host_m), "fabric": _num(cable.fabric_m), "core": _num(cable.core_m)},
        "paths": rows,
        "worst_case_switch_hops": worst["switches"] if worst else 0,
        "worst_latency_ns": max((r["latency_ns"] for r in rows.values()), default=0),
        "rail_only_pods": sorted(p.id for p in inv.pods if p.spines is None),
    }
    return report, findings


def _worst_paths(topo: Topology, lat: dict[str, int], order: dict[str, int],
                 ix: LinkIndex) -> dict[str, list[str]]:
    """The slowest switch path of each kind that the fabric has: same-rail, in-pod, cross-pod."""
    # the switches cabled to two or more distinct hosts: those with a host other than the last one cabled to them
    last_host = dict(zip(ix.host_z, ix.host_a, strict=True))
    shared = set(compress(ix.host_z, map(ne, ix.host_a, map(last_host.__getitem__, ix.host_z))))
    below: dict[str, list[str]] = defaultdict(list)  # spine → rail switches, super-spine → spines
    for upper, lower in zip(ix.up_z, ix.up_a, strict=True):
        below[upper].append(lower)
    paths: dict[str, list[str]] = {}
    # same-rail: a rail switch with at least two hosts, the slowest, first in identity order among equals (a total
    # order: any walk finds the same one)
    slowest = max(shared, key=lambda n: (lat[n], -order[n]), default=None)
    if slowest:
        paths["same-rail"] = [slowest]
    top_rail, in_pod = _in_pod(topo, lat, order, below)
    if in_pod:
        paths["in-pod"] = in_pod
    cross = _cross_pod(topo, lat, order, below, top_rail)
    if cross:
        paths["cross-pod"] = cross
    return paths


def _in_pod(topo: Topology, lat: dict[str, int], order: dict[str, int],
            below: dict[str, list[str]]) -> tuple[dict[str, str], list[str] | None]:
    """(each spine's slowest rail switch, the slowest path through two rail switches under one spine)."""
    best: tuple[int, list[str]] | None = None
    top_rail: dict[str, str] = {}
    for spine in topo.switches:
        if topo.switches[spine].role is not Role.SPINE or spine not in below:
            continue
        rails = sorted(set(below[spine]), key=lambda n: (-lat[n], order[n]))
        top_rail[spine] = rails[0]
        if len(rails) < 2:
            continue
        value = lat[rails[0]] + lat[spine] + lat[rails[1]]
        if best is None or value > best[0]:
            best = (value, [rails[0], spine, rails[1]])
    return top_rail, best[1] if best else None


def _cross_pod(topo: Topology, lat: dict[str, int], order: dict[str, int], below: dict[str, list[str]],
               top_rail: dict[str, str]) -> list[str] | None:
    """The slowest path through one super-spine: the slowest (rail switch + spine) of two different pods."""
    best: tuple[int, list[str]] | None = None
    for sup, spines in below.items():
        if topo.switches[sup].role is not Role.SUPER_SPINE:
            continue
        per_pod: dict[int, tuple[int, int, str]] = {}
        for spine in set(spines):
            if spine not in top_rail:
                continue
            value = lat[spine] + lat[top_rail[spine]]
            pod = topo.switches[spine].pod or 0
            cand = (value, -order[spine], spine)
            if pod not in per_pod or cand > per_pod[pod]:
                per_pod[pod] = cand
        if len(per_pod) < 2:
            continue
        (v1, _o1, s1), (v2, _o2, s2) = sorted(per_pod.values(), reverse=True)[:2]
        value = v1 + lat[sup] + v2
        if best is None or value > best[0]:
            best = (value, [top_rail[s1], s1, sup, s2, top_rail[s2]])
    return best[1] if best else None


def _judged(inv: Inventory, topo: Topology, src: SourceMap, lat: dict[str, int],
            paths: dict[str, list[str]]) -> tuple[dict[str, dict], list[Finding]]:
    """Each path's report row, and LAT001 for each over the budget."""
    cfg = inv.solver
    cable = cfg.cable
    cables = {"same-rail": 2 * cable.host_m, "in-pod": 2 * (cable.host_m + cable.fabric_m),
              "cross-pod": 2 * (cable.host_m + cable.fabric_m + cable.core_m)}
    budget = cfg.latency_budget_ns
    where = src.loc(BUDGET_PATH) if BUDGET_PATH in src.values else None
    rows: dict[str, dict] = {}
    findings: list[Finding] = []
    for kind, path in paths.items():
        switch_ns = sum(lat[n] for n in path)
        cable_m = cables[kind]
        cable_ns = cable_m * cfg.fiber_ns_per_m
        total = switch_ns + cable_ns
        rows[kind] = {"switches": len(path), "switch_ns": switch_ns, "cable_m": _num(cable_m),
                      "cable_ns": _num(cable_ns), "latency_ns": _num(total), "path": path,
                      "within_budget": total <= budget}
        if total > budget:
            lats = [lat[n] for n in path]
            sw_text = f"{len(path)} × {lats[0]:,} ns" if len(set(lats)) == 1 else " + ".join(f"{x:,}" for x in lats) \
                + " ns"
            findings.append(Finding(
                "LAT001", f"worst-case {_LABEL[kind]} path {' → '.join(path)} takes {_num(total):,} ns one way, "
                f"above the {budget:,} ns budget: switches {sw_text} = {switch_ns:,} ns + {_num(cable_m):,} m of "
                f"cable × {cfg.fiber_ns_per_m:g} ns/m = {_num(cable_ns):,} ns",
                where or src.loc(topo.switches[path[0]].src),
                "raise solver.latency_budget_ns, pick lower-latency switch models (switch_models.*.latency_ns) or "
                "shorter cables (solver.cable), or keep latency-critical jobs inside one "
                + ("pod" if kind == "cross-pod" else "segment and rail")))
    return rows, findings
