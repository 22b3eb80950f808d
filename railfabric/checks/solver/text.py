"""The solver's figures as text for people: `fabric report` and generated/docs/fabric.md."""

from __future__ import annotations


def report_text(report: dict) -> str:
    """The solver report for people (fabric report, the fabric docs)."""
    lines = []
    cap = report.get("capacity", {})
    lines.append("capacity (non-blocking check per tier):")
    for tier, t in cap.get("tiers", {}).items():
        ratio = f"{t['ratio']:.2f}:1" if t["ratio"] is not None else "no uplinks"
        worst = f"{t['worst_ratio']:.2f}:1" if t["worst_ratio"] is not None else "no uplinks"
        lines.append(f"  {tier:<6} {t['switches']:>6,} switches  {t['down_gbps']:>12,} Gbps down  "
                     f"{t['up_gbps']:>12,} Gbps up  {ratio:>8}  (allowed {t['allowed']:g}:1; worst {worst} at "
                     f"{t['worst_switch']})")
    if not cap.get("tiers"):
        lines.append("  no tier with uplinks (rail-only fabric)")
    lines += _ecmp_lines(cap)
    ports = report.get("ports", {}).get("models", {})
    if ports:
        lines.append("ports per switch model:")
        for model, m in ports.items():
            lines.append(f"  {model:<14} {m['switches']:>6,} switches  {m['ports']:>8,} ports  {m['used']:>8,} used  "
                         f"{m['disabled']:>4,} disabled  {m['free']:>8,} free")
    fail = report.get("failures", {})
    if fail.get("tiers"):
        lines.append("after one failure (worst case):")
        for tier, t in fail["tiers"].items():
            sw, lk = t["switch_failure"], t["link_failure"]
            detected = f"; detected in {t['detection_ms']:,} ms (BFD)" if "detection_ms" in t else ""
            lines.append(f"  {tier:<6} switch {sw['failed']} down: {sw['worst_hit']} keeps {sw['left_pct']:g}% of its "
                         f"uplink, the tier {sw['tier_left_pct']:g}%; link {lk['failed']} down: {lk['left_pct']:g}%"
                         f"{detected}")
    for pc in fail.get("port_channels", []):
        lines.append(f"  port-channels of pod {pc['pod']}: {pc['members']} members, min-links {pc['min_links']}: one "
                     f"member down = {pc['member_failure']}; {pc['worst_hit']} keeps {pc['left_pct']:g}% "
                     f"({pc['left_gbps']:,} of {pc['planned_gbps']:,} Gbps)")
    if "detection" in fail:
        det = fail["detection"]
        lines.append("  failure detection: " + ("; ".join(
            f"{tier} BFD {d['interval_ms']:,} ms × {d['multiplier']} = {d['detection_ms']:,} ms"
            for tier, d in det.items()) if det else "BFD off: the BGP hold time of each platform"))
    single = fail.get("single_homed")
    if single and single.get("nics"):
        lines.append(f"  single-homed: {single['nics']:,} NICs of {single['hosts']:,} hosts lose their rail when "
                     f"their rail switch fails (information, not an error)")
    summ = fail.get("summarization")
    if summ:
        safe = "safe" if summ.get("rail_switch_aggregates_safe") else "NOT safe"
        lines.append(f"  summarization: {summ.get('rail_switch_aggregates', 0)} rail-switch aggregate(s), {safe}; "
                     f"spine pod aggregate {'on' if summ.get('spine_pod_aggregate') else 'off'}")
    lines += _reach_lines(report.get("reachability"))
    bis = report.get("bisection")
    if bis and bis.get("max_flow_gbps") is not None:
        lines.append(f"bisection ({bis['split']}): {bis['a']} ({bis['a_host_gbps']:,} Gbps of hosts) vs {bis['b']} "
                     f"({bis['b_host_gbps']:,}): max-flow {bis['max_flow_gbps']:,} Gbps = "
                     f"{100 * (bis['ratio'] or 0):.0f}% of the smaller half")
    lat = report.get("latency")
    if lat and lat.get("paths"):
        lines.append(f"latency (budget {lat['budget_ns']:,} ns one-way):")
        for kind, p in lat["paths"].items():
            lines.append(f"  {kind:<10} {p['switches']} switch(es)  {p['latency_ns']:>7,} ns  "
                         f"({p['switch_ns']:,} switching + {p['cable_ns']:,} over {p['cable_m']:g} m)  "
                         f"{' > '.join(p['path'])}")
    rails = report.get("rails")
    if rails:
        table = "" if "infiniband" in report else " (host/GPU → switch/port table: generated/hosts/railmap.csv)"
        lines.append(f"rails: {rails['host_links']:,} host links, {rails['pinned_cables']} pinned by cabling:, "
                     f"{rails['miswired']} miswired{table}")
    lines += _ib_lines(report.get("infiniband"))
    return "\n".join(lines) + "\n"


def _ib_lines(ib: dict | None) -> list[str]:
    """An InfiniBand fabric's subnet (railfabric.checks.rules.ib_rules.ib_report)."""
    if not ib:
        return []
    sms = ", ".join(f"{s['node']} ({s['priority']}{', master' if s['node'] == ib['master'] else ''})"
                    for s in ib["subnet_managers"])
    parts = ", ".join(f"{p['name']} {p['pkey']} ({p['members']:,} HCAs)" for p in ib["partitions"]) or "none"
    return [f"infiniband: {ib['switches']:,} switches, {ib['hcas']:,} HCAs, {ib['cables']:,} cables, "
            f"{ib['islands']} island(s); routing engine {ib['routing_engine']}, longest path "
            f"{ib['max_switch_hops']} switch hops",
            f"  LIDs: {ib['lids_needed']:,} of {ib['lids_available']:,} (LMC {ib['lmc']}); subnet managers: {sms}",
            f"  partitions: {parts}"]


def _ecmp_lines(cap: dict) -> list[str]:
    """Switches whose next hops exceed routing.ecmp.width: their idle uplinks (ECMP001)."""
    width = cap.get("ecmp_width")
    capped = [r for r in cap.get("switches", {}).values() if r.get("next_hops", 0) > (width or 1 << 30)]
    if not capped:
        return []
    idle = sum(r["cabled_up_gbps"] - r["up_gbps"] for r in capped)
    return [f"  ecmp width {width}: {len(capped):,} switch(es) have more next hops; {idle:,} Gbps of cabled uplinks "
            f"stay idle"]


def _reach_lines(reach: dict | None) -> list[str]:
    """Islands of the fabric: hosts of different islands cannot reach each other at all."""
    if not reach or not reach.get("islands"):
        return []
    isl = reach["islands"]
    if len(isl) == 1:
        return ["reachability: every host can reach every other (one island)"]
    lines = [f"reachability: {len(isl)} islands that cannot reach each other:"]
    lines += [f"  {i['text']}" for i in isl]
    return lines
