"""Uplink capacity after a failure, per switch, per tier of each pod and per rail (the oversubscription it leaves).

The same computation as the solver's failure tables (railfabric/checks/solver/after_failure.py): a switch's usable
uplink capacity is min(routing.ecmp.width, next hops up) × its slowest next hop up; a next hop is a routed link or an
L3 port-channel; a port-channel is down when fewer than its min-links members stay up (spines.port_channel_min_links,
default all members, as the configs render it), else it carries its live members' Gbps; a next hop whose upper switch
is down is gone. The tiers are the solver's: rail switches in a pod with spines (uplinks to spines) and spines under
super-spines (uplinks to super-spines). A switch that is down itself counts with 0 left.

Oversubscription after the failure: a switch's live downlink Gbps (host ports of a rail switch, fabric links of a
spine) over its uplink Gbps left. Per rail: rail r's share of each rail switch's uplinks is its share of the switch's
planned host Gbps (a multi-rail switch's rails share its uplinks in that ratio).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from railfabric.checks.solver.after_failure import uplinks_left
from railfabric.checks.solver.paths import NextHop, next_hops, usable
from railfabric.impact.targets import Down
from railfabric.inventory.intent import Inventory
from railfabric.topology import LinkRole, Role, Topology


@dataclass(slots=True)
class Uplinks:
    switch: str
    tier: str  # "rail" or "spine"
    pod: int
    planned: int
    left: int
    down_gbps: int  # planned downlink Gbps
    down_left: int  # live downlink Gbps
    hops: int  # next hops planned
    hops_left: int


def hop_after(hop: NextHop, down: Down) -> int:
    """Gbps a next hop carries after `down` (the solver's NextHop.gbps_after: 0 when its upper switch is down or it
    is under min-links, else its live members' share)."""
    return hop.gbps_after(down.links, down.switches)


def tier_members(inv: Inventory, topo: Topology) -> dict[str, str]:
    """Switch → its tier ("rail" or "spine") for the switches that have an upper tier (as the solver counts them)."""
    pods_with_spines = {p.id for p in inv.pods if p.spines}
    out = {}
    for name, sw in topo.switches.items():
        if sw.role is Role.RAIL and sw.pod in pods_with_spines:
            out[name] = Role.RAIL.value
        elif sw.role is Role.SPINE and inv.super_spines is not None:
            out[name] = Role.SPINE.value
    return out


_cache: list = []  # [topology, (planned downlink Gbps, planned host Gbps per (rail switch, rail))]


def _planned_downlinks(topo: Topology) -> tuple[dict[str, int], dict[tuple[str, int], int]]:
    if _cache and _cache[0] is topo:
        return _cache[1]
    planned: dict[str, int] = defaultdict(int)
    per_rail: dict[tuple[str, int], int] = defaultdict(int)
    host = LinkRole.HOST
    for link in topo.links:
        z = link.z
        planned[z.device] += z.speed
        if link.role is host:
            per_rail[(z.device, link.rail or 0)] += z.speed
    _cache[:] = [topo, (planned, per_rail)]
    return planned, per_rail


def downlinks(topo: Topology, down: Down) -> tuple[dict[str, int], dict[str, int], dict[tuple[str, int], int]]:
    """(planned downlink Gbps, live downlink Gbps, planned host Gbps per (rail switch, rail)) per switch."""
    planned, per_rail = _planned_downlinks(topo)
    live = dict(planned)
    dead_sw, dead_links = down.switches, down.links
    if dead_sw or dead_links:
        for link in topo.links:
            if link.id in dead_links or link.a.device in dead_sw or link.z.device in dead_sw:
                live[link.z.device] -= link.z.speed
    return planned, live, per_rail


def touched_lowers(topo: Topology, down: Down) -> set[str]:
    """The switches whose upward next hops `down` can change: the switches down, the lower ends of the links down
    and of every link up to a switch that is down."""
    out = set(down.switches)
    if down.switches or down.links:
        for link in topo.links:
            if link.id in down.links or link.z.device in down.switches:
                out.add(link.a.device)
    return out


def uplink_states(inv: Inventory, topo: Topology, down: Down, planned_down: dict[str, int],
                  live_down: dict[str, int]) -> dict[str, Uplinks]:
    """Every switch of a tier: its uplinks planned and left after `down` (downlink Gbps from `downlinks`)."""
    width = inv.routing.ecmp.width
    hops = next_hops(inv, topo)
    touched = touched_lowers(topo, down)
    out = {}
    for name, tier in tier_members(inv, topo).items():
        mine = hops.get(name, [])
        plan = usable(width, [h.gbps for h in mine])
        if name not in touched:
            left = plan
        else:
            left = 0 if name in down.switches else uplinks_left(width, mine, down.links, down.switches)
        out[name] = Uplinks(name, tier, topo.switches[name].pod or 0, plan, left,
                            planned_down[name], 0 if name in down.switches else live_down[name],
                            len(mine), len(mine) if name not in touched else
                            sum(1 for h in mine if name not in down.switches and hop_after(h, down)))
    return out


def _pct(part: float, whole: float) -> float:
    return round(100.0 * part / whole, 3) if whole else 0.0


def _ratio(down_gbps: int, up_gbps: int) -> float | None:
    return round(down_gbps / up_gbps, 3) if up_gbps else None


def tiers_section(topo: Topology, ups: dict[str, Uplinks], down: Down) -> list[dict]:
    """Per (pod, tier) that lost anything: planned and left Gbps, and the worst-hit surviving switch."""
    groups: dict[tuple[int, str], list[Uplinks]] = defaultdict(list)
    for u in ups.values():
        groups[(u.pod, u.tier)].append(u)
    rows = []
    for (pod, tier), members in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] != "rail")):
        planned = sum(u.planned for u in members)
        left = sum(u.left for u in members)
        if left == planned:
            continue
        alive = [u for u in members if u.switch not in down.switches and u.planned]
        hit = [u for u in alive if u.left < u.planned]
        row: dict = {"pod": pod, "tier": tier, "switches": len(members), "planned_gbps": planned, "left_gbps": left,
                     "left_pct": _pct(left, planned), "switches_down": sorted(u.switch for u in members
                                                                              if u.switch in down.switches),
                     "switches_hit": len(hit)}
        if hit:
            worst = min(hit, key=lambda u: (u.left / u.planned, u.switch))
            row["worst"] = {"switch": worst.switch, "planned_gbps": worst.planned, "left_gbps": worst.left,
                            "left_pct": _pct(worst.left, worst.planned), "next_hops": worst.hops,
                            "next_hops_left": worst.hops_left,
                            "oversubscription": _ratio(worst.down_left, worst.left),
                            "planned_oversubscription": _ratio(worst.down_gbps, worst.planned)}
        rows.append(row)
    return rows


def rails_section(topo: Topology, ups: dict[str, Uplinks], per_rail: dict[tuple[str, int], int]) -> list[dict]:
    """Per rail that lost uplink capacity: its share of its rail switches' uplinks, planned and left."""
    planned: dict[int, float] = defaultdict(float)
    left: dict[int, float] = defaultdict(float)
    for (sw, rail), gbps in per_rail.items():
        u = ups.get(sw)
        if u is None or not u.down_gbps:
            continue
        host_total = sum(per_rail.get((sw, r), 0) for r in topo.switches[sw].rails)
        share = gbps / host_total if host_total else 0.0
        planned[rail] += u.planned * share
        left[rail] += u.left * share
    return [{"rail": r, "planned_gbps": round(planned[r], 3), "left_gbps": round(left[r], 3),
             "left_pct": _pct(left[r], planned[r])}
            for r in sorted(planned) if round(left[r], 3) < round(planned[r], 3)]
