"""Failure tolerance and summarization safety.

Capacity left after one failure, per tier. A tier is the set of switches that have an upper tier: rail switches in a
pod with spines (uplinks = fabric links) and spines under super-spines (uplinks = core links). For every switch of a
tier, `planned` is its uplink Gbps; one failed upper switch takes away all the links to it, one failed link takes
away that link (a port-channel member only: the bundle stays up on the others). The report gives the worst case:
the lowest share of its planned uplinks that any surviving switch keeps (`left_pct`), naming the failure and the
switch it hurts most, and the share of the tier's total uplink capacity left after the failure that takes away the
most (`tier_left_pct`). A switch of the tier that fails itself is not counted: its own hosts lose it, see below.

Connectivity: a NIC whose ports all land on one switch (single-homed, or both ports of a dual-homed NIC on one
switch) loses the fabric when that switch fails. That is how single-homed rail designs work, so it is information,
not an error: the report lists, per segment, the rails each rail switch takes down and the hosts they belong to, and
`single_homed_findings` words it as FAIL001 (info, one per segment).

Summarization (RFC 7938 §8.2): a rail switch aggregates only its own rails' subnets, so its aggregate goes away only
with the switch itself: no blackhole. A spine advertising its pod's rail block as one aggregate (summary-only,
`routing.spine_pod_aggregate`) keeps advertising it after losing its link(s) to one rail switch; super-spines and the
pod's other rail switches then send part of the traffic for that rail switch's subnets to a spine that has no route
for them. When one link failure is enough (a rail switch with a single link to a spine) that is SUM001 (warning),
naming the link; otherwise the report gives how many link failures it takes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from fabric.findings import Finding, Severity
from fabric.intent import Inventory
from fabric.load import SourceMap
from fabric.topology import LinkRole, Role, Topology
from fabric.units import format_speed


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


def _tiers(inv: Inventory, topo: Topology) -> dict:
    up: dict[str, int] = defaultdict(int)  # uplink Gbps per lower switch
    pair: dict[tuple[str, str], int] = defaultdict(int)  # (lower, upper) → Gbps
    biggest: dict[str, tuple[int, str]] = {}  # lower → (fastest uplink Gbps, its id)
    host = LinkRole.HOST
    for link in topo.links:
        if link.role is host:
            continue
        low, _port, _lane, speed = link.a
        up[low] += speed
        pair[(low, link.z.device)] += speed
        best = biggest.get(low)
        if best is None or speed > best[0]:
            biggest[low] = (speed, link.id)
    pods_with_spines = {p.id for p in inv.pods if p.spines}
    members: dict[str, list[str]] = {Role.RAIL.value: [], Role.SPINE.value: []}
    for name, sw in topo.switches.items():
        if sw.role is Role.RAIL and sw.pod in pods_with_spines:
            members[Role.RAIL.value].append(name)
        elif sw.role is Role.SPINE and inv.super_spines is not None:
            members[Role.SPINE.value].append(name)
    order = {name: i for i, name in enumerate(topo.switches)}  # identity order breaks ties
    names_by_order = list(topo.switches)
    out = {}
    for tier, names in members.items():
        if not names:
            continue
        in_tier = set(names)
        planned = sum(up[n] for n in names)
        # one upper switch fails: each lower switch loses its links to it
        worst_sw: tuple | None = None
        lost_by_upper: dict[str, int] = defaultdict(int)
        for (low, upper), gbps in pair.items():
            if low not in in_tier:
                continue
            lost_by_upper[upper] += gbps
            left = up[low] - gbps
            key = (left / up[low], order[upper], order[low])
            if worst_sw is None or key < worst_sw[0]:
                worst_sw = (key, left)
        # one link fails: the lower switch loses that link
        worst_link: tuple | None = None
        for low in names:
            if low not in biggest:
                continue
            gbps, lid = biggest[low]
            left = up[low] - gbps
            key = (left / up[low], order[low], lid)
            if worst_link is None or key < worst_link[0]:
                worst_link = (key, left)
        row: dict = {"switches": len(names), "planned_gbps": planned,
                     "without_uplinks": sorted(n for n in names if not up[n])}
        if worst_sw:
            (_r, iu, il), left = worst_sw
            upper, low = names_by_order[iu], names_by_order[il]
            heaviest = min(lost_by_upper.items(), key=lambda kv: (-kv[1], order[kv[0]]))
            row["switch_failure"] = {
                "failed": upper, "worst_hit": low, "left_gbps": left, "planned_gbps": up[low],
                "left_pct": _pct(left, up[low]),
                "tier_worst_failed": heaviest[0], "tier_left_gbps": planned - heaviest[1],
                "tier_left_pct": _pct(planned - heaviest[1], planned)}
        if worst_link:
            (_r, il, lid), left = worst_link
            low = names_by_order[il]
            fastest = max(biggest[n][0] for n in names if n in biggest)
            row["link_failure"] = {
                "failed": lid, "worst_hit": low, "left_gbps": left, "planned_gbps": up[low],
                "left_pct": _pct(left, up[low]),
                "tier_left_gbps": planned - fastest, "tier_left_pct": _pct(planned - fastest, planned)}
        out[tier] = row
    return out


def _single_homed(topo: Topology) -> tuple[dict, list[tuple]]:
    """The report section and, per segment, (pod, segment, inventory path, rail switches, NICs lost per switch)."""
    only: dict[tuple[str, int], str | None] = {}  # NIC → the one switch it lands on (None: several)
    host_role = LinkRole.HOST
    for link in topo.links:
        if link.role is host_role:
            key = (link.a.device, link.nic or 0)
            sw = link.z.device
            if only.setdefault(key, sw) != sw:
                only[key] = None
    lost: dict[str, list[tuple[str, int]]] = defaultdict(list)  # switch → NICs it is the only attachment of
    for key, sw in only.items():
        if sw is not None:
            lost[sw].append(key)
    by_segment: dict[tuple, list[str]] = defaultdict(list)
    for name in lost:
        sw = topo.switches[name]
        by_segment[(sw.pod or 0, sw.segment or 0, sw.src)].append(name)

    def host_key(h: str) -> tuple:
        x = topo.hosts[h]
        return (x.pod, x.segment, x.number, h)

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
    # (rail switch, spine) → link ids, in topology order (identity order)
    pairs: dict[tuple[str, str], list[str]] = defaultdict(list)
    speed: dict[str, int] = {}
    for link in topo.links:
        if link.role is LinkRole.FABRIC:
            pairs[(link.a.device, link.z.device)].append(link.id)
            speed[link.id] = link.a.speed
    by_pod: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for (rail_sw, spine) in pairs:
        by_pod[topo.switches[spine].pod or 0].append((rail_sw, spine))
    for pod in sorted(by_pod):
        order = sorted(by_pod[pod], key=lambda rs: (len(pairs[rs]), topo.switches[rs[0]].segment or 0,
                                                    topo.switches[rs[0]].index, topo.switches[rs[1]].index))
        rail_sw, spine = order[0]
        need = len(pairs[(rail_sw, spine)])
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
    report = {"tiers": _tiers(inv, topo), "single_homed": connectivity, "summarization": summary}
    return report, findings
