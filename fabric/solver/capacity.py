"""Non-blocking capacity: downlink vs uplink Gbps per switch and per tier, against the declared allowance.

A switch that should have an upper tier (a rail switch in a pod with spines, a spine under super-spines) and whose
downlink:uplink ratio is above `solver.oversubscription.<tier>` (default 1:1) is a CAP001 error naming the switch,
both numbers, and what would fix it: how many more uplinks at today's speed, or which faster speed would do with
today's links. Identical switches of one segment or pod are reported once, with their count.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass

from fabric.findings import Finding
from fabric.intent import Inventory
from fabric.load import SourceMap
from fabric.topology import LinkRole, Role, Switch, Topology, lanes_for
from fabric.units import format_speed

EPS = 1e-9


@dataclass(slots=True)
class SwitchCapacity:
    name: str
    role: str
    down_gbps: int
    up_gbps: int
    up_links: int
    up_speed: int  # most common uplink speed (0 without uplinks)
    needs_uplinks: bool

    @property
    def ratio(self) -> float | None:
        if self.up_gbps == 0:
            return None if not self.down_gbps else math.inf
        return self.down_gbps / self.up_gbps


def _ratio_text(r: float | None) -> str:
    if r is None:
        return "-"
    return "no uplinks" if math.isinf(r) else f"{r:.2f}:1"


def measure(inv: Inventory, topo: Topology) -> dict[str, SwitchCapacity]:
    down: dict[str, int] = defaultdict(int)
    up: dict[str, int] = defaultdict(int)
    speeds: dict[str, Counter] = defaultdict(Counter)
    for link in topo.links:
        down[link.z.device] += link.z.speed
        if link.role is not LinkRole.HOST:
            up[link.a.device] += link.a.speed
            speeds[link.a.device][link.a.speed] += 1
    pods_with_spines = {p.id for p in inv.pods if p.spines}
    out = {}
    for name, sw in topo.switches.items():
        if sw.role is Role.RAIL:
            needs = sw.pod in pods_with_spines
        elif sw.role is Role.SPINE:
            needs = inv.super_spines is not None
        else:
            needs = False
        common = speeds[name].most_common(1)
        out[name] = SwitchCapacity(name, sw.role.value, down[name], up[name], sum(speeds[name].values()),
                                   common[0][0] if common else 0, needs)
    return out


def _planned_uplink_speed(inv: Inventory, sw: Switch) -> int | None:
    pod = next((p for p in inv.pods if p.id == sw.pod), None)
    if pod is None or pod.spines is None:
        return None
    if sw.role is Role.RAIL:
        return pod.spines.link_speed
    return pod.spines.super_spine_link_speed or pod.spines.link_speed


def _fix(inv: Inventory, topo: Topology, sw: Switch, cap: SwitchCapacity, allowed: float) -> str:
    need_up = math.ceil(cap.down_gbps / allowed - EPS)
    missing = need_up - cap.up_gbps
    model = inv.switch_models[sw.model]
    speed = cap.up_speed or _planned_uplink_speed(inv, sw) or model.speed
    extra = math.ceil(missing / speed)
    peers = sum(1 for s in topo.switches.values() if s.role is Role.SPINE and s.pod == sw.pod) \
        if sw.role is Role.RAIL else (inv.super_spines.count if inv.super_spines else 1)
    parts = [f"it needs {missing:,} Gbps more up: {extra} more {format_speed(speed)} uplink(s)"]
    if peers and cap.up_links and cap.up_links % peers == 0:
        per_peer = cap.up_links // peers
        more = math.ceil(extra / peers)
        knob = "links_per_spine (or links_per_rail_switch)" if sw.role is Role.RAIL else "links_per_super_spine"
        parts.append(f"({knob} {per_peer} → {per_peer + more} on each of {peers} "
                     f"{'spines' if sw.role is Role.RAIL else 'super-spines'})")
    if cap.up_links:
        per_link = need_up / cap.up_links
        modes = sorted({model.speed, *(s for _n, s in model.breakouts)})
        faster = [s for s in modes if s >= per_link - EPS and lanes_for(model, s)]
        if faster:
            parts.append(f"or its {cap.up_links} uplinks at {format_speed(faster[0])}")
    return " ".join(parts)


def check_capacity(inv: Inventory, topo: Topology, src: SourceMap) -> tuple[dict, list[Finding]]:
    caps = measure(inv, topo)
    allow = {Role.RAIL.value: inv.solver.oversubscription.rail, Role.SPINE.value: inv.solver.oversubscription.spine}
    findings: list[Finding] = []
    groups: dict[tuple, list[str]] = defaultdict(list)
    for name, cap in caps.items():
        ratio = cap.ratio
        if not cap.needs_uplinks or ratio is None:
            continue
        allowed = allow[cap.role]
        if ratio > allowed + EPS:
            sw = topo.switches[name]
            groups[(sw.src, cap.role, cap.down_gbps, cap.up_gbps, cap.up_links, cap.up_speed)].append(name)
    for (srcpath, role, down, up, _n, _s), names in groups.items():
        sw = topo.switches[names[0]]
        cap = caps[names[0]]
        allowed = allow[role]
        who = f"{role} switch {names[0]}" if len(names) == 1 else \
            f"{len(names)} {role} switches ({names[0]} … {names[-1]})"
        findings.append(Finding(
            "CAP001", f"{who}: {down:,} Gbps down vs {up:,} Gbps up = {_ratio_text(cap.ratio)}, above the allowed "
            f"{allowed:g}:1 for the {role} tier", src.loc(srcpath), _fix(inv, topo, sw, cap, allowed)
            + f"; or declare solver.oversubscription.{role}: {math.ceil((cap.ratio or 1) * 100) / 100:g} if "
            "this is intended"))
    tiers = {}
    for role in (Role.RAIL.value, Role.SPINE.value):
        rows = [c for c in caps.values() if c.role == role and c.needs_uplinks]
        if not rows:
            continue
        down = sum(c.down_gbps for c in rows)
        up = sum(c.up_gbps for c in rows)
        worst = max(rows, key=lambda c: (c.ratio or 0, c.name))
        tiers[role] = {"switches": len(rows), "down_gbps": down, "up_gbps": up,
                       "ratio": round(down / up, 4) if up else None, "allowed": allow[role],
                       "worst_switch": worst.name, "worst_ratio": None if worst.ratio is None or math.isinf(worst.ratio)
                       else round(worst.ratio, 4)}
    report = {"tiers": tiers,
              "switches": {n: {"role": c.role, "down_gbps": c.down_gbps, "up_gbps": c.up_gbps,
                               "ratio": None if c.ratio is None or math.isinf(c.ratio) else round(c.ratio, 4)}
                           for n, c in caps.items()}}
    return report, findings
