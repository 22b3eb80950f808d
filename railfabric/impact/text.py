"""The text of `fabric impact` for people (the JSON is the dict itself)."""

from __future__ import annotations


def _hosts(names: list[str], limit: int = 6) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return f"{', '.join(names[:limit - 1])}, … ({len(names)} hosts)"


def _gbps(value: float) -> str:
    return f"{value / 1000:,.1f}T" if value >= 1000 else f"{value:,.0f}G"


def impact_text(out: dict) -> str:
    lines = [f"down: {'; '.join(out['down']['resolved'])}"]
    iso = out["isolated"]
    total = out["gpus"]
    lines.append(f"GPUs isolated from their rail: {iso['gpus']} of {total} ({iso['nics']} NIC(s) on "
                 f"{len(iso['hosts'])} host(s))")
    for seg in iso["segments"]:
        for rail, row in seg["rails"].items():
            lines.append(f"  pod {seg['pod']} segment {seg['segment']} rail {rail}: {row['gpus']} GPU(s): "
                         f"{_hosts(row['hosts'])}")
    red = out["reduced"]
    if red["nic_ports"]["gpus"]:
        lines.append(f"GPUs on a NIC that lost a port (dual-homed, keeps its rail): {red['nic_ports']['gpus']}")
        for n in red["nic_ports"]["nics"][:8]:
            lines.append(f"  {n['host']} NIC {n['nic']} (rail {n['rail']}): {_gbps(n['left_gbps'])} of "
                         f"{_gbps(n['gbps'])}")
    if red["uplinks"]["gpus"]:
        lines.append(f"GPUs behind a rail switch that lost uplink capacity: {red['uplinks']['gpus']} (the worst "
                     f"keeps {red['uplinks']['worst_left_pct']:g} % of its bandwidth out of the segment)")
    pods = red.get("pod_uplinks", {})
    if pods.get("gpus"):
        lines.append(f"GPUs in a pod whose spines lost uplink capacity: {pods['gpus']} (pod(s) "
                     f"{', '.join(map(str, pods['pods']))}; the worst keeps {pods['worst_left_pct']:g} % of its "
                     "bandwidth out of the pod)")
    if red.get("gpus"):
        lines.append(f"GPUs at reduced bandwidth in all (each counted once): {red['gpus']}")
    if out["tiers"]:
        lines.append("uplink capacity left:")
    for t in out["tiers"]:
        text = (f"  pod {t['pod']} {t['tier']} tier: {_gbps(t['left_gbps'])} of {_gbps(t['planned_gbps'])} "
                f"({t['left_pct']:g} %)")
        if t["switches_down"]:
            text += f", down: {', '.join(t['switches_down'])}"
        w = t.get("worst")
        if w:
            over = f"{w['oversubscription']:g}:1" if w["oversubscription"] is not None else "no uplink"
            text += (f"; worst {w['switch']} {w['left_pct']:g} % ({w['next_hops_left']} of {w['next_hops']} next "
                     f"hops), oversubscription {over} (planned {w['planned_oversubscription']:g}:1)")
        lines.append(text)
    if out["rails"]:
        lines.append("per rail (its share of its rail switches' uplinks): " + ", ".join(
            f"rail {r['rail']} {r['left_pct']:g} %" for r in out["rails"]))
    routes = out.get("routes")
    if routes is not None:
        lines += _routes_text(routes)
    jobs = out.get("jobs")
    if jobs is not None:
        lines += _jobs_text(jobs)
    return "\n".join(lines) + "\n"


def _routes_text(routes: dict) -> list[str]:
    lines = []
    if routes["withdrawn"]:
        lines.append(f"prefixes withdrawn (their rail switch is down): {', '.join(routes['withdrawn'])}")
    if routes["unreachable_somewhere"]:
        lines.append(f"prefixes unreachable from part of the fabric: {', '.join(routes['unreachable_somewhere'])}")
    for b in routes["blackholing"]:
        lines.append(f"blackhole: {', '.join(b['spines'])} keep advertising the pod aggregate without a route to "
                     f"{', '.join(b['rail_switches'])}")
    for d in routes["destinations"]:
        if d["down"]:
            continue
        before = ", ".join(f"{w}×{n}" for w, n in d["widths_before"].items())
        after = ", ".join(f"{w}×{n}" for w, n in d["widths_after"].items())
        lines.append(f"ECMP width toward {_hosts(d['rail_switches'], 3).replace('hosts', 'rail switches')}'s "
                     f"prefixes (width×rail switches): {after} (was {before})"
                     + (f"; unreachable from {d['unreachable_from']}" if d["unreachable_from"] else ""))
    return lines


def _jobs_text(jobs: dict) -> list[str]:
    lines = [f"jobs: {len(jobs['affected'])} of {jobs['total']} affected, {len(jobs['stalled'])} stall"]
    for j in jobs["affected"]:
        state = f"STALLS ({j['gpus_isolated']} GPU(s) isolated)" if j["stalls"] else "slower"
        lines.append(f"  {j['job']}: {state}; ring all-reduce left {j['allreduce_left_pct_pxn_off']:g} % with PXN "
                     f"off, {j['allreduce_left_pct_pxn_on']:g} % with PXN on (after a restart); hosts hit: "
                     f"{_hosts(j['hosts_hit'])}")
    return lines


def waves_text(out: dict) -> str:
    proof = "the fewest possible" if out["proven_fewest"] else f"greedy; at least {out['lower_bound']}"
    lines = [f"{out['items']} item(s) in {out['count']} wave(s) ({proof}; {out['method']})"]
    for i, w in enumerate(out["waves"], 1):
        jobs = f", jobs losing GPUs: {', '.join(w['jobs_losing_gpus'])}" if w["jobs_losing_gpus"] else ""
        lines.append(f"wave {i}: {' '.join(w['down'])}")
        lines.append(f"  GPUs isolated meanwhile: {w['gpus_isolated']}, hosts cut off: {w['hosts_cut_off']}{jobs}")
    if out["unavoidable"]:
        lines.append("unavoidable (what an item costs on its own, in any wave):")
        for u in out["unavoidable"]:
            extra = f", rail switches cut off: {', '.join(u['rail_switches_cut_off'])}" \
                if u["rail_switches_cut_off"] else ""
            jobs = f", jobs losing GPUs: {', '.join(u['jobs_losing_gpus'])}" if u["jobs_losing_gpus"] else ""
            lines.append(f"  {u['item']}: {u['gpus_isolated']} GPU(s) isolated{extra}{jobs}")
    return "\n".join(lines) + "\n"
