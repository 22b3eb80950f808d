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
from fractions import Fraction
from functools import lru_cache
from itertools import chain

from railfabric.checks.rules.uses import Uses
from railfabric.checks.solver.index import LinkIndex, link_index
from railfabric.checks.solver.paths import next_hops, usable
from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.core.units import format_speed
from railfabric.inventory.intent import Inventory
from railfabric.topology import Role, Switch, Topology, lanes_for

EPS = 1e-9


def exact(x: float) -> Fraction:
    """A declared ratio as the exact decimal the operator wrote (1.1 is 11/10, not the float next to it)."""
    return Fraction(repr(x))


@dataclass(slots=True)
class SwitchCapacity:
    name: str
    role: str
    down_gbps: int
    up_gbps: int  # usable: what ECMP over the installed next hops carries
    up_links: int
    up_speed: int  # most common uplink speed (0 without uplinks)
    needs_uplinks: bool
    cabled_up_gbps: int = 0  # every uplink, used or not
    next_hops: int = 0  # routed links + port-channels
    used_next_hops: int = 0  # min(routing.ecmp.width, next_hops)
    peers: int = 0  # distinct upper switches

    @property
    def ratio(self) -> float | None:
        if self.up_gbps == 0:
            return None if not self.down_gbps else math.inf
        return self.down_gbps / self.up_gbps

    def above(self, allowed: float) -> bool:
        """down:up above the allowance, exactly (no float rounding at the boundary)."""
        if self.up_gbps == 0:
            return self.down_gbps > 0
        limit = _exact(allowed)  # down / up > limit, in integers (up > 0)
        return self.down_gbps * limit.denominator > limit.numerator * self.up_gbps


_exact = lru_cache(maxsize=64)(exact)  # `above` runs once per switch, on a few distinct allowances


def _ratio_text(r: float | None) -> str:
    if r is None:
        return "-"
    return "no uplinks" if math.isinf(r) else f"{r:.2f}:1"


def measure(inv: Inventory, topo: Topology, index: LinkIndex | None = None) -> dict[str, SwitchCapacity]:
    ix = index or link_index(topo)
    down: dict[str, int] = defaultdict(int)
    up: dict[str, int] = defaultdict(int)
    speeds: dict[str, Counter] = defaultdict(Counter)  # lower switch → uplink speed → links, speeds in link order
    z_ends = zip(chain(ix.host_z, ix.up_z), chain(ix.host_z_speed, ix.up_z_speed), strict=True)
    for (dev, speed), n in Counter(z_ends).items():
        down[dev] += speed * n
    for (dev, speed), n in Counter(zip(ix.up_a, ix.up_a_speed, strict=True)).items():
        up[dev] += speed * n
        speeds[dev][speed] += n
    hops = next_hops(inv, topo)
    width = inv.routing.ecmp.width
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
        mine = hops.get(name, [])
        out[name] = SwitchCapacity(name, sw.role.value, down[name], usable(width, [h.gbps for h in mine]),
                                   sum(speeds[name].values()), common[0][0] if common else 0, needs, up[name],
                                   len(mine), min(width, len(mine)), len({h.upper for h in mine}))
    return out

def _planned_uplink_speed(inv: Inventory, sw: Switch) -> int | None:
    pod = next((p for p in inv.pods if p.id == sw.pod), None)
    if pod is None or pod.spines is None:
        return None
    if sw.role is Role.RAIL:
        return pod.spines.link_speed
    return pod.spines.super_spine_link_speed or pod.spines.link_speed


def _width_fix(cap: SwitchCapacity) -> str:
    return (f"raise routing.ecmp.width to {cap.next_hops}: today only {cap.used_next_hops} of its {cap.next_hops} "
            f"next hops carry traffic ({cap.up_gbps:,} of {cap.cabled_up_gbps:,} Gbps cabled up)")


def _fix(inv: Inventory, sw: Switch, cap: SwitchCapacity, allowed: float) -> str:
    """What would bring `cap` within `allowed`: the ECMP width when the cabling is enough, else more or faster
    uplinks (counted on the cabled capacity, spread over the switch's own upper switches)."""
    need_up = math.ceil(Fraction(cap.down_gbps) / exact(allowed))
    width_limited = cap.used_next_hops < cap.next_hops
    if width_limited and cap.cabled_up_gbps >= need_up:
        return _width_fix(cap)
    missing = need_up - cap.cabled_up_gbps
    model = inv.switch_models[sw.model]
    speed = cap.up_speed or _planned_uplink_speed(inv, sw) or model.speed
    extra = math.ceil(missing / speed)
    peers = cap.peers or (1 if sw.role is Role.SPINE else 0)
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
    text = " ".join(parts)
    return f"{_width_fix(cap)}, and {text}" if width_limited else text


def _ecmp_findings(inv: Inventory, caps: dict[str, SwitchCapacity], topo: Topology,
                   src: SourceMap) -> list[Finding]:
    """ECMP001: switches with more upward next hops than routing.ecmp.width installs, so some uplinks stay idle."""
    width = inv.routing.ecmp.width
    groups: dict[tuple, list[str]] = defaultdict(list)
    for name, cap in caps.items():
        if cap.next_hops > width:
            groups[(cap.role, cap.next_hops, cap.up_links)].append(name)
    if not groups:
        return []
    need = max(n for _r, n, _l in groups)
    where = src.loc(("routing", "ecmp", "width"))
    findings = []
    for (role, hops, links), names in sorted(groups.items()):
        cap = caps[names[0]]
        who = f"{role} switch {names[0]}" if len(names) == 1 else \
            f"{len(names)} {role} switches ({names[0]} … {names[-1]})"
        per_hop = links // hops if links % hops == 0 else 0
        if per_hop == 1:
            via, idle = f"{hops} uplinks (one next hop each)", f"{hops - width} uplinks stay idle"
        else:
            via = f"{hops} next hops ({links} uplinks in port-channels)"
            idle = f"{hops - width} next hops" + (f" ({(hops - width) * per_hop} uplinks)" if per_hop else "") + \
                " stay idle"
        findings.append(Finding(
            "ECMP001", f"routing.ecmp.width {width} is below the {via} of {who}: BGP installs {width} next hops, "
            f"so {idle} and only {cap.up_gbps:,} of {cap.cabled_up_gbps:,} Gbps cabled up carries traffic",
            where or src.loc(topo.switches[names[0]].src),
            f"set routing.ecmp.width: {need} (BGP maximum-paths: the most next hops any switch has)",
            Severity.WARNING))
    return findings


def _tier_rows(caps: dict[str, SwitchCapacity], allow: dict[str, float]) -> dict:
    tiers = {}
    for role in (Role.RAIL.value, Role.SPINE.value):
        rows = [c for c in caps.values() if c.role == role and c.needs_uplinks]
        if not rows:
            continue
        down = sum(c.down_gbps for c in rows)
        up = sum(c.up_gbps for c in rows)
        worst = max(rows, key=lambda c: (c.ratio or 0, c.name))
        tiers[role] = {"switches": len(rows), "down_gbps": down, "up_gbps": up,
                       "cabled_up_gbps": sum(c.cabled_up_gbps for c in rows),
                       "ratio": round(down / up, 4) if up else None, "allowed": allow[role],
                       "worst_switch": worst.name, "worst_ratio": None if worst.ratio is None or math.isinf(worst.ratio)
                       else round(worst.ratio, 4)}
    return tiers


def check_capacity(inv: Inventory, topo: Topology, src: SourceMap,
                   index: LinkIndex | None = None) -> tuple[dict, list[Finding]]:
    caps = measure(inv, topo, index)
    allow = {Role.RAIL.value: inv.solver.oversubscription.rail, Role.SPINE.value: inv.solver.oversubscription.spine}
    findings: list[Finding] = []
    groups: dict[tuple, list[str]] = defaultdict(list)
    for name, cap in caps.items():
        if not cap.needs_uplinks or cap.ratio is None:
            continue
        if cap.above(allow[cap.role]):
            sw = topo.switches[name]
            groups[(sw.src, cap.role, cap.down_gbps, cap.up_gbps, cap.up_links, cap.up_speed,
                    cap.cabled_up_gbps, cap.next_hops, cap.peers)].append(name)
    uses = Uses(inv, topo)
    for (srcpath, role, down, up, *_rest), names in groups.items():
        sw = topo.switches[names[0]]
        cap = caps[names[0]]
        allowed = allow[role]
        who = f"{role} switch {names[0]}" if len(names) == 1 else \
            f"{len(names)} {role} switches ({names[0]} … {names[-1]})"
        findings.append(Finding(
            "CAP001", f"{who}: {down:,} Gbps down vs {up:,} Gbps up = {_ratio_text(cap.ratio)}, above the allowed "
            f"{allowed:g}:1 for the {role} tier", src.loc(srcpath), _fix(inv, sw, cap, allowed)
            + f"; or declare solver.oversubscription.{role}: {math.ceil((cap.ratio or 1) * 100) / 100:g} if "
            "this is intended", uses=uses.switch(names[0])))
    findings += _ecmp_findings(inv, caps, topo, src)
    report = {"tiers": _tier_rows(caps, allow), "ecmp_width": inv.routing.ecmp.width,
              "switches": {n: {"role": c.role, "down_gbps": c.down_gbps, "up_gbps": c.up_gbps,
                               "ratio": None if c.ratio is None or math.isinf(c.ratio) else round(c.ratio, 4),
                               "next_hops": c.next_hops, "used_next_hops": c.used_next_hops,
                               "cabled_up_gbps": c.cabled_up_gbps}
                           for n, c in caps.items()}}
    return report, findings
