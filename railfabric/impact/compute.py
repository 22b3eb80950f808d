"""`impact`: what a set of things down costs, in GPUs, hosts, bandwidth, routes and jobs (one JSON-able dict).

Pure: the inventory, the topology and the plan in, a dict out; nothing is written. The parts:
railfabric/impact/nics.py (isolated GPUs, NICs at reduced bandwidth), railfabric/impact/uplinks.py (uplink capacity per
tier and per rail, oversubscription after the failure), railfabric/impact/routes.py (withdrawn and unreachable
prefixes, blackholing pod aggregates, ECMP widths), railfabric/impact/jobs.py (jobs and their ring all-reduce).
"""

from __future__ import annotations

from collections import defaultdict

from railfabric.impact.jobs import Job, job_rows
from railfabric.impact.nics import (
    Nic,
    gpus_per_nic,
    host_index,
    isolated_section,
    nic_state,
    nic_states,
    reduced_nics_section,
)
from railfabric.impact.routes import routes_section
from railfabric.impact.targets import Down
from railfabric.impact.uplinks import Uplinks, downlinks, rails_section, tiers_section, uplink_states
from railfabric.inventory.intent import Inventory
from railfabric.plan.allocate import Plan
from railfabric.topology import Role, Topology


def total_gpus(topo: Topology) -> int:
    return sum(h.gpus for h in topo.hosts.values())


def _behind_reduced_uplinks(topo: Topology, down: Down,
                            up_share: dict[str, float]) -> tuple[set[tuple[str, int]], float]:
    """(the NICs that keep their rail only on rail switches that lost uplink capacity, the smallest share left):
    their traffic out of the segment shares what is left."""
    ix = host_index(topo)
    keys = {key for sw in up_share if sw not in down.switches for key in ix.by_switch.get(sw, ())}
    out: set[tuple[str, int]] = set()
    worst = 1.0
    for key in keys:
        n = nic_state(ix, key, down)
        if n.isolated:
            continue
        share = max(up_share.get(sw, 1.0) for sw in n.switches)
        if share < 1.0:
            out.add(key)
            worst = min(worst, share)
    return out, worst


def _in_reduced_pods(topo: Topology, nics: dict[tuple[str, int], Nic],
                     ups: dict[str, Uplinks]) -> tuple[set[tuple[str, int]], list[int], float]:
    """(the NICs not isolated in pods whose spines lost uplink capacity, those pods, the pods' smallest share of
    their spine tier left): their traffic out of the pod is hashed over every spine of the pod, so it shares what
    the spines keep."""
    planned: dict[int, int] = defaultdict(int)
    left: dict[int, int] = defaultdict(int)
    for u in ups.values():
        if u.tier == Role.SPINE.value:
            planned[u.pod] += u.planned
            left[u.pod] += u.left
    pods = sorted(p for p in planned if left[p] < planned[p])
    if not pods:
        return set(), [], 1.0
    ix = host_index(topo)
    hit = set(pods)
    out = set()
    for key in ix.by_nic:
        if topo.hosts[key[0]].pod in hit and not (key in nics and nics[key].isolated):
            out.add(key)
    return out, pods, min(left[p] / planned[p] for p in pods)


def _gpus(topo: Topology, keys: set[tuple[str, int]]) -> int:
    return sum(gpus_per_nic(topo.hosts[h].gpus, topo.hosts[h].nics) for h, _n in keys)


def impact(inv: Inventory, topo: Topology, plan: Plan | None, down: Down, jobs: list[Job] | None = None,
           routes: bool = True) -> dict:
    """What `down` costs; the routes (they need the plan's prefixes) when `routes`, the jobs when `jobs` is given."""
    nics = nic_states(topo, down)
    planned_down, live_down, per_rail = downlinks(topo, down)
    ups = uplink_states(inv, topo, down, planned_down, live_down)
    isolated = isolated_section(topo, nics)
    reduced = reduced_nics_section(topo, nics)
    up_share = {n: u.left / u.planned for n, u in ups.items() if u.planned and u.left < u.planned}
    cross, worst = _behind_reduced_uplinks(topo, down, up_share)
    in_pods, pods, pods_worst = _in_reduced_pods(topo, nics, ups)
    fewer_ports = {(r["host"], r["nic"]) for r in reduced["nics"]}
    out: dict = {
        "down": {"given": list(down.names), "resolved": [down.what[n] for n in down.names],
                 "switches": sorted(down.switches), "links": len(down.links)},
        "gpus": total_gpus(topo),
        "isolated": isolated,
        "reduced": {"nic_ports": reduced,
                    "uplinks": {"gpus": _gpus(topo, cross), "worst_left_pct": round(100.0 * worst, 3)},
                    "pod_uplinks": {"gpus": _gpus(topo, in_pods), "pods": pods,
                                    "worst_left_pct": round(100.0 * pods_worst, 3)},
                    "gpus": _gpus(topo, fewer_ports | cross | in_pods)},
        "tiers": tiers_section(topo, ups, down),
        "rails": rails_section(topo, ups, per_rail),
    }
    if routes:
        if plan is None:
            raise ValueError("the routes need the plan")
        out["routes"] = routes_section(inv, topo, plan, down)
    if jobs is not None:
        rows = job_rows(jobs, topo, down, up_share)
        out["jobs"] = {"total": len(jobs), "affected": rows,
                       "stalled": sorted(r["job"] for r in rows if r["stalls"])}
    return out
