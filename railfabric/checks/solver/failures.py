"""Failure tolerance and summarization safety.

Capacity left after one failure, per tier. A tier is the set of switches that have an upper tier: rail switches in a
pod with spines (uplinks = fabric links) and spines under super-spines (uplinks = core links). For every switch of a
tier, `planned` is its ECMP-usable uplink Gbps (railfabric/checks/solver/paths.py: min(routing.ecmp.width, next hops) ×
the slowest next hop); one failed upper switch takes away all the next hops to it, one failed link takes away that
link's next hop, or for a port-channel member: the whole bundle when fewer than `spines.port_channel_min_links` members
stay (the default, all members: what the configs render as min-links), else the member only, and a degraded bundle still
gets an equal ECMP share, so the switch then sends at (next hops) × (the degraded bundle's Gbps) at most.
`port_channels` gives, per pod with port-channels, what one member failure does to the worst-hit rail switch.
Every "what is left" is computed by railfabric/checks/solver/after_failure.py, the same functions `fabric impact`
(railfabric/impact/) uses, so the two never disagree (tests/test_impact_solver.py). The report gives the worst case:
the lowest share of its planned uplinks that any surviving switch keeps (`left_pct`), naming the failure and the
switch it hurts most, and the share of the tier's total uplink capacity left after the failure that takes away the
most (`tier_left_pct`). A switch of the tier that fails itself is not counted: its own hosts lose it, see below.

Connectivity: a NIC whose ports all land on one switch (single-homed, or both ports of a dual-homed NIC on one
switch) loses the fabric when that switch fails. That is how single-homed rail designs work, so it is information,
not an error: the report lists, per segment, the rails each rail switch takes down and the hosts they belong to, and
`single_homed_findings` words it as FAIL001 (info, one per segment).

Detection: how long after a link or switch failure BGP withdraws its routes. With routing.bfd on it is BFD's detection
time, interval × multiplier of the session tier the failure hits (routing.bfd_timers, per tier: a rail switch's
uplinks are rail_spine sessions, a spine's uplinks spine_super_spine), given per failure tier (`detection_ms`) and per
session tier of the fabric (`detection`); with BFD off, the BGP hold time (the platform's, not planned here).

Summarization (RFC 7938 §8.2): a rail switch aggregates only its own rails' subnets, so its aggregate goes away only
with the switch itself: no blackhole. A spine advertising its pod's rail block as one aggregate (summary-only,
`routing.spine_pod_aggregate`) keeps advertising it after losing its link(s) to one rail switch; super-spines and the
pod's other rail switches then send part of the traffic for that rail switch's subnets to a spine that has no route
for them. The fewest link failures that withdraw a spine's route to a rail switch: per next hop to that spine,
members − min-links + 1 of its members (one for a routed link; a port-channel of 2 with min-links 2 goes down with one
member). When one link failure is enough that is SUM001 (warning), naming the link; otherwise the report gives how
many link failures it takes (and which). A pod whose spine serves a single rail switch is left out: losing that
route leaves the spine nothing to aggregate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from railfabric.checks.solver.after_failure import (
    blackholes,
    each_link_failure,
    each_upper_failure,
    keeps_route,
    withdraw_sets,
)
from railfabric.checks.solver.paths import NextHop, next_hops, usable
from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.core.units import format_speed
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_routing import SessionTier
from railfabric.topology import LinkRole, Role, Topology
from railfabric.topology.tiers import LINK_TIERS

# the session tier of a failure tier's uplinks: a rail switch's fabric links, a spine's core links
_UPLINK_TIER = {Role.RAIL.value: SessionTier.RAIL_SPINE, Role.SPINE.value: SessionTier.SPINE_SUPER_SPINE}


def _pct(part: float, whole: float) -> float:
    return round(100.0 * part / whole, 3) if whole else 0.0


def _hosts_text(names: list[str]) -> str:
    if len(names) <= 8:
        return ", ".join(names)
    return f"{', '.join(names[:3])}, …, {names[-1]}"


def _rails_text(rails: Iterable[int]) -> str:
    rs = sorted(rails)
    word = "rail" if len(rs) == 1 else "rails"
    nics = "NIC" if len(rs) == 1 else "NICs"
    return f"{word} {', '.join(map(str, rs))} ({nics} {', '.join(map(str, rs))})"


def _members(inv: Inventory, topo: Topology) -> dict[str, list[str]]:
    """Tier → its switches: rail switches in a pod with spines, spines under super-spines."""
    pods_with_spines = {p.id for p in inv.pods if p.spines}
    members: dict[str, list[str]] = {Role.RAIL.value: [], Role.SPINE.value: []}
    for name, sw in topo.switches.items():
        if sw.role is Role.RAIL and sw.pod in pods_with_spines:
            members[Role.RAIL.value].append(name)
        elif sw.role is Role.SPINE and inv.super_spines is not None:
            members[Role.SPINE.value].append(name)
    return members


def _worst_link(width: int, hops: list[NextHop]) -> tuple[int, NextHop] | None:
    """(Gbps left, the next hop hit) for the worst single link failure of one switch; the first one on a tie
    (railfabric/checks/solver/after_failure.py, the computation `fabric impact` makes on that same link)."""
    worst: tuple[int, NextHop] | None = None
    for i, left in each_link_failure(width, hops):
        if worst is None or left < worst[0]:
            worst = (left, hops[i])
    return worst


def _shape(hops: list[NextHop]) -> tuple[tuple[int, int, int, int], ...]:
    """What decides a switch's failure rows: per next hop (rank of its upper switch, Gbps, members, min-links)."""
    rank: dict[str, int] = {}
    return tuple((rank.setdefault(h.upper, len(rank)), h.gbps, len(h.links), h.min_links) for h in hops)


def _switch_failure_row(names: list[str], hops: dict[str, list[NextHop]], planned: dict[str, int],
                        order: dict[str, int], width: int) -> dict | None:
    lost_by_upper: dict[str, int] = defaultdict(int)
    worst: tuple | None = None
    lefts_of: dict[tuple, list[int]] = {}  # most switches share a shape: computed once per shape
    for low in names:
        mine = hops.get(low, [])
        shape = _shape(mine)
        rows = each_upper_failure(width, mine) if shape not in lefts_of else None
        if rows is not None:
            lefts_of[shape] = [left for _u, left in rows]
        uppers = list(dict.fromkeys(h.upper for h in mine))
        plan = planned[low]
        for upper, left in zip(uppers, lefts_of[shape], strict=True):
            lost_by_upper[upper] += plan - left
            if worst is None or left / plan <= worst[0][0]:  # only then can the key below be smaller
                key = (left / plan, order[upper], order[low])
                if worst is None or key < worst[0]:
                    worst = (key, left, upper, low)
    if worst is None:
        return None
    _key, left, upper, low = worst
    total = sum(planned.values())
    heaviest = min(lost_by_upper.items(), key=lambda kv: (-kv[1], order[kv[0]]))
    return {"failed": upper, "worst_hit": low, "left_gbps": left, "planned_gbps": planned[low],
            "left_pct": _pct(left, planned[low]), "tier_worst_failed": heaviest[0],
            "tier_left_gbps": total - heaviest[1], "tier_left_pct": _pct(total - heaviest[1], total)}


def _link_failure_row(names: list[str], hops: dict[str, list[NextHop]], planned: dict[str, int],
                      order: dict[str, int], width: int) -> dict | None:
    worst: tuple | None = None
    biggest_loss = 0
    # the worst link failure of a switch is a function of its next hops' (Gbps, members, min-links): computed once
    # per such shape, as (Gbps left, index of the next hop hit)
    worst_of: dict[tuple[tuple[int, int, int], ...], tuple[int, int] | None] = {}
    for low in names:
        mine = hops.get(low, [])
        shape = tuple((h.gbps, len(h.links), h.min_links) for h in mine)
        if shape in worst_of:
            at = worst_of[shape]
        else:
            hit = _worst_link(width, mine)
            at = worst_of[shape] = None if hit is None else (hit[0], next(i for i, h in enumerate(mine) if h is hit[1]))
        if at is None:
            continue
        left, hop = at[0], mine[at[1]]
        biggest_loss = max(biggest_loss, planned[low] - left)
        key = (left / planned[low], order[low])
        if worst is None or key < worst[0]:
            worst = (key, left, hop, low)
    if worst is None:
        return None
    _key, left, hop, low = worst
    total = sum(planned.values())
    row = {"failed": hop.links[0], "worst_hit": low, "left_gbps": left, "planned_gbps": planned[low],
           "left_pct": _pct(left, planned[low]),
           "tier_left_gbps": total - biggest_loss, "tier_left_pct": _pct(total - biggest_loss, total)}
    if hop.bundle:
        row["port_channel"] = {"id": hop.ident, "members": len(hop.links), "min_links": hop.min_links,
                               "state": "down" if len(hop.links) - 1 < hop.min_links else "degraded"}
    return row


def _port_channels(inv: Inventory, topo: Topology, hops: dict[str, list[NextHop]]) -> list[dict]:
    """Per pod with port-channels: what one member failure does (the same min-links the configs render)."""
    width = inv.routing.ecmp.width
    rows = []
    for pod in inv.pods:
        sp = pod.spines
        if sp is None or not sp.port_channel_members:
            continue
        worst: tuple | None = None
        for name, sw in topo.switches.items():
            mine = [h for h in hops.get(name, []) if h.bundle]
            if sw.role is not Role.RAIL or sw.pod != pod.id or not mine:
                continue
            planned = usable(width, [h.gbps for h in hops[name]])
            hit = _worst_link(width, hops[name])
            if hit is not None and (worst is None or hit[0] / planned < worst[0]):
                worst = (hit[0] / planned, name, hit[0], planned, hit[1])
        if worst is None:
            continue
        _r, name, left, planned, hop = worst
        rows.append({"pod": pod.id, "members": len(hop.links), "min_links": hop.min_links,
                     "member_failure": "bundle down" if len(hop.links) - 1 < hop.min_links else "bundle degraded",
                     "worst_hit": name, "left_gbps": left, "planned_gbps": planned, "left_pct": _pct(left, planned)})
    return rows


def _tiers(inv: Inventory, topo: Topology, hops: dict[str, list[NextHop]]) -> dict:
    """Per tier, the worst single switch and single link failure, on the ECMP-usable uplink capacity
    (railfabric/checks/solver/paths.py): a failed link takes its port-channel down when fewer than min-links members
    stay, and a degraded port-channel still gets an equal ECMP share, so every next hop counts at its slowest."""
    width = inv.routing.ecmp.width
    order = {name: i for i, name in enumerate(topo.switches)}  # identity order breaks ties
    out = {}
    for tier, names in _members(inv, topo).items():
        if not names:
            continue
        planned = {n: usable(width, [h.gbps for h in hops.get(n, [])]) for n in names}
        row: dict = {"switches": len(names), "planned_gbps": sum(planned.values()),
                     "without_uplinks": sorted(n for n in names if not planned[n])}
        with_up = [n for n in names if planned[n]]
        sw_row = _switch_failure_row(with_up, hops, planned, order, width)
        if sw_row:
            row["switch_failure"] = sw_row
        link_row = _link_failure_row(with_up, hops, {n: planned[n] for n in with_up}, order, width)
        if link_row:
            row["link_failure"] = link_row
        if inv.routing.bfd:
            row["detection_ms"] = detection_ms(inv, _UPLINK_TIER[tier])
        out[tier] = row
    return out


def detection_ms(inv: Inventory, tier: SessionTier) -> int:
    """BFD's detection time of a session tier: its interval × multiplier (the tier's own timers, else the fabric's)."""
    t = inv.routing.bfd_timers.tiers.get(tier, inv.routing.bfd_timers)
    return t.interval_ms * t.multiplier


def _detection(inv: Inventory, topo: Topology) -> dict:
    """Per session tier the fabric has (a link carrying one), its BFD timers and detection time; {} with BFD off."""
    if not inv.routing.bfd:
        return {}
    present = {LINK_TIERS[link.role] for link in (*topo.links, *topo.peer_links) if link.role in LINK_TIERS}
    out = {}
    for tier in SessionTier:
        if tier in present:
            t = inv.routing.bfd_timers.tiers.get(tier, inv.routing.bfd_timers)
            out[tier.value] = {"interval_ms": t.interval_ms, "multiplier": t.multiplier,
                               "detection_ms": t.interval_ms * t.multiplier}
    return out


def _single_homed(topo: Topology) -> tuple[dict, list[tuple]]:
    """The report section and, per segment, (pod, segment, inventory path, rail switches, NICs lost per switch)."""
    only: dict[tuple[str, int], str | None] = {}  # NIC → the one switch it lands on (None: several)
    host_role = LinkRole.HOST
    for link in topo.links:
        if link.role is host_role:
            key = (link.a.device, link.nic or 0)
            far = link.z.device
            if only.setdefault(key, far) != far:
                only[key] = None
    lost: dict[str, list[tuple[str, int]]] = defaultdict(list)  # switch → NICs it is the only attachment of
    for key, only_sw in only.items():
        if only_sw is not None:
            lost[only_sw].append(key)
    by_segment: dict[tuple, list[str]] = defaultdict(list)
    for name in lost:
        sw = topo.switches[name]
        by_segment[(sw.pod or 0, sw.segment or 0, sw.src)].append(name)

    # a host's sort key, made once per host (a host has a NIC on each rail)
    host_key = {h: (x.pod, x.segment, x.number, h) for h, x in topo.hosts.items()}.__getitem__

    groups = []
    segments = []
    for (pod, seg, srcpath), names in sorted(by_segment.items(), key=lambda kv: kv[0][:2]):
        names.sort(key=lambda n: (topo.switches[n].index, n))
        for n in names:
            lost[n].sort(key=lambda hn: (host_key(hn[0]), hn[1]))
        hosts = sorted({h for n in names for h, _ in lost[n]}, key=host_key)
        groups.append((pod, seg, srcpath, names, {n: lost[n] for n in names}))
        segments.append({"pod": pod, "segment": seg, "nics": sum(len(lost[n]) for n in names),
                         "rails_by_switch": {n: sorted({nic for _h, nic in lost[n]}) for n in names},
                         "hosts": hosts})
    all_lost = [hn for v in lost.values() for hn in v]
    worst = min(lost.items(), key=lambda kv: (-len(kv[1]), kv[0]), default=None)
    report = {"nics": len(all_lost), "hosts": len({h for h, _ in all_lost}), "rail_switches": len(lost),
              "worst_switch": worst[0] if worst else None, "worst_switch_nics": len(worst[1]) if worst else 0,
              "segments": segments}
    return report, groups


def single_homed_findings(topo: Topology, src: SourceMap) -> list[Finding]:
    """FAIL001 (information), one per segment: which NICs of which hosts a rail switch failure disconnects.

    Not part of `check_failures` (yet): every single-homed fabric, the common design, would carry these, and the
    suites expect a clean example and base inventory to have no findings at all. The same facts are in the report
    (`failures.single_homed`)."""
    findings = []
    for pod, seg, srcpath, names, lost in _single_homed(topo)[1]:
        first = names[0]
        hosts_first = list(dict.fromkeys(h for h, _ in lost[first]))
        all_hosts = {h for n in names for h, _ in lost[n]}
        same = all({h for h, _ in lost[n]} == all_hosts for n in names)
        who = f"rail switch {first}" if len(names) == 1 else f"any one of its {len(names)} rail switches"
        scope = f"all {len(all_hosts)} hosts" if same else f"{len(hosts_first)} of its {len(all_hosts)} hosts"
        msg = (f"segment {pod}/{seg}: NICs are single-homed, so losing {who} disconnects that switch's rails on "
               f"{scope}; e.g. with {first} down, {_hosts_text(hosts_first)} lose "
               f"{_rails_text({nic for _h, nic in lost[first]})}")
        findings.append(Finding("FAIL001", msg, src.loc(srcpath),
                                "expected for single-homed rails (the job loses those ranks' fabric until the switch "
                                "is back); use dual-port NICs with dual_homing if a rail switch failure must not "
                                "disconnect a NIC", Severity.INFO))
    return findings


def _summarization(inv: Inventory, topo: Topology, src: SourceMap) -> tuple[dict, list[Finding]]:
    summarizing = [name for info in topo.segments if info.rails_per_switch > 1 for name in info.switches]
    report: dict = {"rail_switch_aggregates": len(summarizing), "rail_switch_aggregates_safe": True,
                    "spine_pod_aggregate": inv.routing.spine_pod_aggregate, "pods": {}}
    findings: list[Finding] = []
    if not inv.routing.spine_pod_aggregate:
        return report, findings
    pod_index = {p.id: pi for pi, p in enumerate(inv.pods)}
    hops = next_hops(inv, topo)
    # (rail switch, spine) → the fewest links whose failure withdraws the spine's route to the rail switch
    # (railfabric/checks/solver/after_failure.py: the same reasoning `fabric impact` lists blackholes by)
    pairs: dict[tuple[str, str], list[str]] = {}
    lowers = dict.fromkeys(link.a.device for link in topo.links if link.role is LinkRole.FABRIC)
    for low in lowers:
        for upper, cut in withdraw_sets(hops[low]).items():
            if topo.switches[upper].role is Role.SPINE:
                pairs[(low, upper)] = cut
    speed = {link.id: link.a.speed for link in topo.links if link.role is LinkRole.FABRIC}
    by_pod: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for (rail_sw, spine) in pairs:
        by_pod[topo.switches[spine].pod or 0].append((rail_sw, spine))
    for pod in sorted(by_pod):
        order = sorted(by_pod[pod], key=lambda rs: (len(pairs[rs]), topo.switches[rs[0]].segment or 0,
                                                    topo.switches[rs[0]].index, topo.switches[rs[1]].index))
        rail_sw, spine = order[0]
        need = len(pairs[(rail_sw, spine)])
        others = any(rs[1] == spine and rs[0] != rail_sw for rs in by_pod[pod])
        if not blackholes(True, keeps_route(hops[rail_sw], spine, frozenset(pairs[(rail_sw, spine)])), others):
            continue  # a pod whose spine serves one rail switch only: its aggregate goes with the route
        report["pods"][str(pod)] = {"link_failures_to_blackhole": need, "rail_switch": rail_sw, "spine": spine,
                                    "links": pairs[(rail_sw, spine)]}
        if need != 1:
            continue
        link_id = pairs[(rail_sw, spine)][0]
        where = ("pods", pod_index[pod], "spines") if pod in pod_index else ()
        more = sum(1 for rs in order if len(pairs[rs]) == 1) - 1
        senders = "super-spines and the pod's other rail switches" if inv.super_spines else \
            "the pod's other rail switches"
        findings.append(Finding(
            "SUM001", f"pod {pod}: spines advertise the pod aggregate (summary-only), and one link failure can "
            f"blackhole traffic: if {link_id} ({format_speed(speed[link_id])}) fails, {spine} keeps advertising the "
            f"aggregate but has no route to {rail_sw}'s rail subnets, so the traffic that {senders} hash to "
            f"{spine} for them is dropped (RFC 7938 §8.2)"
            + (f"; {more} other rail switch ↔ spine pair(s) have a single link too" if more > 0 else ""),
            src.loc(where), "turn routing.spine_pod_aggregate off (advertise the rail subnets), or run at least 2 "
            "links between every rail switch and spine (spines.links_per_rail_switch or the segment's "
            "links_per_spine ≥ 2) so one failure cannot isolate "
            "a rail switch from a spine", Severity.WARNING))
    return report, findings


def check_failures(inv: Inventory, topo: Topology, src: SourceMap) -> tuple[dict, list[Finding]]:
    connectivity, _groups = _single_homed(topo)
    summary, findings = _summarization(inv, topo, src)
    hops = next_hops(inv, topo)
    report = {"tiers": _tiers(inv, topo, hops), "port_channels": _port_channels(inv, topo, hops),
              "single_homed": connectivity, "summarization": summary, "detection": _detection(inv, topo)}
    return report, findings
