"""The tables of fabric.md: one row per pod and per segment, and the solver's figures (capacity per tier, ports per
model, the failure table, latency) as Markdown tables. Every cell that holds user text is escaped for Markdown."""

from __future__ import annotations

from collections.abc import Sequence

from railfabric.outputs.docs.facts import FabricFacts, gbps, ratio_text


def cell(value: object) -> str:
    """A Markdown table cell: pipes, backslashes and markup characters escaped, one line."""
    text = str(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    for ch in "*_`[]<>":
        text = text.replace(ch, "\\" + ch)
    return text


def table(head: Sequence[str], rows: Sequence[Sequence[object]], right: Sequence[int] = ()) -> list[str]:
    """Markdown table lines; columns listed in `right` are right-aligned (numbers)."""
    align = ["---:" if i in right else "---" for i in range(len(head))]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def pod_table(facts: FabricFacts) -> list[str]:
    rows = []
    for p in facts.pods:
        spines = f"{p.spines} × {cell(p.spine_model)}" if p.spines else "none (rail-only)"
        up = f"{p.uplinks:,} × {gbps(p.uplink_speed)}" if p.uplinks else "–"
        bundle = f"{p.bundle} members" if p.bundle else "–"
        rows.append([p.id, len(p.segments), f"{p.hosts:,}", f"{p.gpus:,}", f"{p.rail_switches:,}", spines,
                     cell(p.platforms) if p.spines else "–", up, gbps(p.down_gbps) if p.spines else "–",
                     ratio_text(p.ratio) if p.spines else "–", bundle])
    return table(["pod", "segments", "hosts", "GPUs", "rail switches", "spines", "spine platform",
                  "spine uplinks", "spine down", "spine oversub.", "port-channels"], rows, right=(0, 1, 2, 3, 4))


def segment_table(facts: FabricFacts, diagrams: dict[tuple[int, int], str]) -> list[str]:
    rows = []
    for p in facts.pods:
        for s in p.segments:
            link = diagrams.get((s.pod, s.id))
            up = f"{s.uplinks:,} × {gbps(s.uplink_speed)}" if s.uplinks else "none (rail-only)"
            rows.append([s.pod, s.id, cell(s.design), s.rails, f"{s.hosts:,}", s.host_groups, cell(s.host_models),
                         f"{s.gpus:,}",
                         f"{s.host_links:,} × {gbps(s.host_speed)}", f"{s.rail_switches} × {cell(s.rail_model)}",
                         cell(s.platforms), cell(s.dual_homing) or "no", up, ratio_text(s.ratio),
                         f"[svg]({link})" if link else "–"])
    return table(["pod", "segment", "design", "rails", "hosts", "host groups", "host models", "GPUs", "host links",
                  "rail switches", "platform", "dual homing", "uplinks", "rail oversub.", "rail diagram"], rows,
                 right=(0, 1, 3, 4, 5, 7))


def capacity_table(report: dict) -> list[str]:
    tiers = report.get("capacity", {}).get("tiers", {})
    if not tiers:
        return ["No tier with uplinks (rail-only fabric)."]
    rows = [[tier, f"{t['switches']:,}", f"{t['down_gbps']:,}", f"{t['up_gbps']:,}", ratio_text(t["ratio"]),
             f"{t['allowed']:g}:1", ratio_text(t["worst_ratio"]), cell(t["worst_switch"])] for tier, t in tiers.items()]
    return table(["tier", "switches", "down Gbps", "up Gbps", "ratio", "allowed", "worst", "worst switch"], rows,
                 right=(1, 2, 3))


def ports_table(report: dict) -> list[str]:
    models = report.get("ports", {}).get("models", {})
    rows = [[cell(name), f"{m['switches']:,}", f"{m['ports']:,}", f"{m['used']:,}", f"{m['disabled']:,}",
             f"{m['free']:,}"] for name, m in models.items()]
    return table(["switch model", "switches", "ports", "used", "disabled", "free"], rows, right=(1, 2, 3, 4, 5))


def failure_table(report: dict) -> list[str]:
    """The worst single switch and link failure per tier, the port-channels' member failure, single homing."""
    fail = report.get("failures", {})
    rows = []
    for tier, t in fail.get("tiers", {}).items():
        sw, lk = t["switch_failure"], t["link_failure"]
        rows.append([tier, f"switch {cell(sw['failed'])}", cell(sw["worst_hit"]),
                     f"{sw['left_pct']:g}% ({sw['left_gbps']:,} of {sw['planned_gbps']:,} Gbps)",
                     f"{sw['tier_left_pct']:g}%"])
        rows.append([tier, f"link {cell(lk['failed'])}", cell(lk["worst_hit"]),
                     f"{lk['left_pct']:g}% ({lk['left_gbps']:,} of {lk['planned_gbps']:,} Gbps)",
                     f"{lk['tier_left_pct']:g}%"])
    for pc in fail.get("port_channels", []):
        rows.append([f"pod {pc['pod']} port-channels", f"one of {pc['members']} members (min-links {pc['min_links']}):"
                     f" {cell(pc['member_failure'])}", cell(pc["worst_hit"]),
                     f"{pc['left_pct']:g}% ({pc['left_gbps']:,} of {pc['planned_gbps']:,} Gbps)", "–"])
    if not rows:
        return ["No tier with uplinks: no failure moves traffic to another path (rail-only fabric)."]
    out = table(["tier", "what fails", "worst hit", "its uplink capacity left", "tier capacity left"], rows)
    single = fail.get("single_homed")
    if single and single.get("nics"):
        out += ["", f"Single-homed: {single['nics']:,} NICs of {single['hosts']:,} hosts lose their rail when their "
                f"rail switch fails (the most on one switch: {single['worst_switch_nics']:,} at "
                f"{cell(single['worst_switch'])})."]
    return out


def latency_table(report: dict) -> list[str]:
    lat = report.get("latency", {})
    if not lat.get("paths"):
        return []
    rows = [[kind, p["switches"], f"{p['latency_ns']:,}", f"{p['switch_ns']:,}", f"{p['cable_ns']:,}",
             f"{p['cable_m']:g}", "yes" if p["within_budget"] else "**no**", " > ".join(cell(x) for x in p["path"])]
            for kind, p in lat["paths"].items()]
    return [f"One-way, worst case, budget {lat['budget_ns']:,} ns:", "",
            *table(["path", "switches", "ns", "switching ns", "cable ns", "cable m", "within budget", "example path"],
                   rows, right=(1, 2, 3, 4, 5))]
