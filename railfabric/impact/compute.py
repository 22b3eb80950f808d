"""`impact`: what a set of things down costs, in GPUs, hosts, bandwidth, routes and jobs (one JSON-able dict).

Pure: the inventory, the topology and the plan in, a dict out; nothing is written. The parts:
railfabric/impact/nics.py (isolated GPUs, NICs at reduced bandwidth), railfabric/impact/uplinks.py (uplink capacity per
tier and per rail, oversubscription after the failure), railfabric/impact/routes.py (withdrawn and unreachable
prefixes, blackholing pod aggregates, ECMP widths), railfabric/impact/jobs.py (jobs and their ring all-reduce).
"""

from __future__ import annotations

from railfabric.impact.jobs import Job, job_rows
from railfabric.impact.nics import (
    gpus_per_nic,
    host_index,
    isolated_section,
    nic_state,
    nic_states,
    reduced_nics_section,
)
from railfabric.impact.routes import routes_section
from railfabric.impact.targets import Down
from railfabric.impact.uplinks import downlinks, rails_section, tiers_section, uplink_states
from railfabric.inventory.intent import Inventory
from railfabric.plan.allocate import Plan
from railfabric.topology import Topology


def total_gpus(topo: Topology) -> int:
    return sum(h.gpus for h in topo.hosts.values())


def _behind_reduced_uplinks(topo: Topology, down: Down, up_share: dict[str, float]) -> tuple[int, float]:
    """(GPUs whose NIC keeps its rail only on rail switches that lost uplink capacity, the smallest share left):
    their traffic out of the segment shares what is left."""
    ix = host_index(topo)
    keys = {key for sw in up_share if sw not in down.switches for key in ix.by_switch.get(sw, ())}
    gpus = 0
    worst = 1.0
    for key in keys:
        n = nic_state(ix, key, down)
        if n.isolated:
            continue
        share = max(up_share.get(sw, 1.0) for sw in n.switches)
        if share < 1.0:
            h = topo.hosts[n.host]
            gpus += gpus_per_nic(h.gpus, h.nics)
            worst = min(worst, share)
    return gpus, worst


def impact(inv: Inventory, topo: Topology, plan: Plan, down: Down, jobs: list[Job] | None = None,
           routes: bool = True) -> dict:
    nics = nic_states(topo, down)
    planned_down, live_down, per_rail = downlinks(topo, down)
    ups = uplink_states(inv, topo, down, planned_down, live_down)
    isolated = isolated_section(topo, nics)
    reduced = reduced_nics_section(topo, nics)
    up_share = {n: u.left / u.planned for n, u in ups.items() if u.planned and u.left < u.planned}
    cross, worst = _behind_reduced_uplinks(topo, down, up_share)
    out: dict = {
        "down": {"given": list(down.names), "resolved": [down.what[n] for n in down.names],
                 "switches": sorted(down.switches), "links": len(down.links)},
        "gpus": total_gpus(topo),
        "isolated": isolated,
        "reduced": {"nic_ports": reduced,
                    "uplinks": {"gpus": cross, "worst_left_pct": round(100.0 * worst, 3)}},
        "tiers": tiers_section(topo, ups, down),
        "rails": rails_section(topo, ups, per_rail),
    }
    if routes:
        out["routes"] = routes_section(inv, topo, plan, down)
    if jobs is not None:
        rows = job_rows(jobs, topo, down, up_share)
        out["jobs"] = {"total": len(jobs), "affected": rows,
                       "stalled": sorted(r["job"] for r in rows if r["stalls"])}
    return out
