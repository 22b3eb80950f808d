"""The lab's report for people: the intro said before the build (what the lab holds, its substitutions and overlays,
the faults) and the result table after it (railfabric/lab/runner.py runs the lab and fills a LabResult)."""

from __future__ import annotations

from collections.abc import Callable

from railfabric.lab.daemons import OVERLAYS
from railfabric.lab.downcheck import DOWN_CATEGORIES
from railfabric.lab.expect import Expected
from railfabric.lab.hostcheck import HostExpected
from railfabric.lab.model import FAULTS, NS_PREFIX, SUBSTITUTIONS, LabSpec
from railfabric.lab.result import LabResult
from railfabric.lab.verify import categories
from railfabric.platforms import PLATFORMS

Say = Callable[[str], None]


def intro(spec: LabSpec, exp: Expected, say: Say, hx: HostExpected | None = None) -> None:
    roles = spec.counts()
    what = f"pod {spec.pod}" if spec.pod is not None else "the whole fabric"
    say(f"railfabric lab run {spec.run}: {spec.fabric}, {what}: {len(spec.nodes)} switches ("
        + ", ".join(f"{v} {k}" for k, v in sorted(roles.items())) + f"), {len(spec.links)} links, "
        f"{len(exp.sessions)} BGP sessions planned" + (f" ({exp.outside} neighbour(s) outside the lab not checked)"
                                                       if exp.outside else ""))
    other = [n for n in spec.not_in_lab if not PLATFORMS[spec.devices[n].platform].frr_lab]
    mlag = [n for n in spec.not_in_lab if n not in other]
    if other:
        platforms = sorted({spec.devices[n].platform for n in other})
        say(f"  not in the lab ({', '.join(platforms)}: no frr.conf to run): {len(other)} switch(es), "
            + ", ".join(other[:6]) + (" ..." if len(other) > 6 else ""))
    if mlag:
        say(f"  not in the lab (MLAG pairs: namespaces emulate neither MCLAG nor a shared gateway): {len(mlag)} "
            "switch(es), " + ", ".join(mlag[:6]) + (" ..." if len(mlag) > 6 else ""))
    if hx is not None:
        nics = sum(len(h.nics) for h in spec.hosts.values())
        say(f"  GPU hosts: {len(spec.hosts)} ({nics} NIC ports), configured from their rendered netplan files "
            f"(netplan generate); {len(hx.same_rail)} same-rail and {len(hx.cross_rail)} cross-rail pings planned")
    for note in spec.host_notes:
        say(f"  {note}")
    say("  substitutions (kernel without vlan/bond/dummy/vrf):")
    for s in SUBSTITUTIONS:
        say(f"    - {s}")
    say("  frr.conf loaded verbatim (vtysh -b); lab overlays applied on top, nothing else:")
    for line, why in OVERLAYS:
        say(f"    {line:<40} {why}")
    for f in spec.faults:
        say(f"  FAULT {f.kind}: {FAULTS[f.kind]}; at {f.where}: {f.detail}")


def format_result(r: LabResult, limit: int = 12) -> str:
    lines = []
    t = r.timings
    lines.append(f"bring-up {t.get('bring-up', 0):.1f}s (namespaces+links {t.get('namespaces+links', 0):.1f}s, "
                 f"daemons {t.get('daemons', 0):.1f}s, config load {t.get('config load', 0):.1f}s), "
                 f"{'stable' if r.converged else 'judged'} after {t.get('convergence', 0):.1f}s, "
                 f"verification {t.get('verification', 0):.1f}s"
                 + (f", after --down {'converged' if r.down.converged else 'judged'} in {t['down']:.1f}s"
                    if r.down is not None and "down" in t else "")
                 + (f", teardown {t['teardown']:.1f}s" if "teardown" in t else "")
                 + f", total {t.get('total', 0):.1f}s")
    lines.append("")
    lines.append(f"{'check':<52} {'checked':>8} {'ok':>8} {'mismatch':>8}")
    missing = {n.key: n for n in r.not_run}
    shown = categories(r.expected) + (DOWN_CATEGORIES if r.down is not None else ())
    for key, title in shown:
        c = r.checks.get(key)
        if key in missing:
            lines.append(f"{title:<52} {'not run':>8}")
        elif c is not None:
            lines.append(f"{title:<52} {c.total:>8} {c.total - len(c.bad):>8} {len(c.bad):>8}")
    for key, title in shown:
        c = r.checks.get(key)
        if c is None or not c.bad:
            continue
        lines.append("")
        lines.append(f"{title}: {len(c.bad)} mismatch(es)")
        for b in c.bad[:limit]:
            lines.append(f"  {b}")
        if len(c.bad) > limit:
            lines.append(f"  ... and {len(c.bad) - limit} more")
    for legit, head in ((True, "not run (nothing for them to check in this lab):"),
                        (False, "NOT RUN although the plan has something to check (the result cannot be PASS):")):
        rows = [n for n in missing.values() if n.legitimate is legit]
        if rows:
            lines += ["", head] + [f"  {n.title}: {n.why}" for n in rows]
    lines.append("")
    for f in r.spec.faults:
        caught = r.caught_by(f)
        lines.append(f"fault {f.kind} at {f.where}: " + (f"DETECTED by {', '.join(caught)}" if caught
                                                         else "NOT DETECTED"))
    ran = len(shown) - len(missing)
    lines.append(f"result: {r.verdict} ({r.mismatches} mismatch(es); {ran} of {len(shown)} checks run"
                 + (f", {len(missing)} not run" if missing else "") + f"; run {r.run})")
    if r.kept:
        first = next(iter(r.spec.nodes.values()))
        lines.append(f"lab run {r.run} kept: `vtysh -N {first.ns}`, `ip netns exec {first.ns} ...` (namespaces "
                     f"{NS_PREFIX}{r.run}-<host>); remove it with `fabric lab --teardown --run {r.run}` (or "
                     "`fabric lab --teardown INVENTORY`: every kept run of that inventory)")
    elif r.removed:
        lines.append(f"torn down: {r.removed.get('daemons', 0)} daemon(s), {r.removed.get('namespaces', 0)} "
                     "namespace(s)" + (f", {r.removed['host_namespaces']} host namespace(s)"
                                       if r.removed.get("host_namespaces") else "")
                     + (f", {r.removed['sysctls']} neighbour-table limit(s) put back" if r.removed.get("sysctls")
                        else ""))
    return "\n".join(lines)

