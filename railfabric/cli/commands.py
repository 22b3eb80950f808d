"""The `fabric` commands other than render and plan (railfabric/cli/render.py): validate, report, size, schema, explain,
show, lab, verify. Commands only: every decision lives in the pipeline modules."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from railfabric import __version__
from railfabric.core.codes import CODES
from railfabric.core.finding import exit_code
from railfabric.core.formats import format_codequality, format_github, format_json, format_sarif, format_text

if TYPE_CHECKING:
    from railfabric.core.progress import Progress
    from railfabric.pipeline import Result
    from railfabric.plan.allocate import Plan
    from railfabric.topology import Switch, Topology


def progress_for(args: argparse.Namespace) -> Progress:
    """A bar on a terminal, plain stage lines with -v, nothing with -q or off a terminal
    (railfabric/core/progress.py)."""
    from railfabric.core.progress import for_cli

    return for_cli(quiet=getattr(args, "quiet", False), verbose=getattr(args, "verbose", False))


def _print_summary(summary: dict) -> None:
    sw = summary["switches"]
    print(f"fabric {summary['fabric']}: {summary['pods']} pod(s), {summary['segments']} segment(s)")
    print(f"  switches  {summary['switches_total']:>7,}  (super-spine {sw['super-spine']:,}, spine {sw['spine']:,}, "
          f"rail {sw['rail']:,})")
    print(f"  hosts     {summary['hosts']:>7,}  ({summary['gpus']:,} GPUs)")
    links = ", ".join(f"{k} {v:,}" for k, v in summary["links"].items())
    print(f"  links     {summary['links_total']:>7,}  ({links})")
    for name, p in summary.get("pools", {}).items():
        print(f"  pool {name:<13} {p['prefix']:<18} {p['used']:>9,} of {p['size']:>10,} used "
              f"({p['used_pct']:.1f}%, reaches {p['reach_pct']:.1f}%)")


def cmd_validate(args: argparse.Namespace) -> int:
    from railfabric.pipeline import run

    progress = progress_for(args)
    try:
        res = run(Path(args.inventory), progress)
        if args.verbose:
            progress.note(f"checked up to stage '{res.stage_reached}'")
    finally:
        progress.close()
    findings = res.findings
    summary = res.summary()
    if args.format == "json":
        sys.stdout.write(format_json(findings, summary))
    elif args.format == "sarif":
        sys.stdout.write(format_sarif(findings, __version__))
    elif args.format == "codequality":
        sys.stdout.write(format_codequality(findings, args.inventory))
    elif args.format == "github":
        sys.stdout.write(format_github(findings))
        if summary and not args.quiet:
            _print_summary(summary)
    else:
        if findings or not args.quiet:
            sys.stdout.write(format_text(findings, unfold=args.unfold or args.verbose))
        if res.skipped:
            print(f"note: {res.skipped}")
        if summary and not args.quiet:
            _print_summary(summary)
    return exit_code(findings)


def cmd_report(args: argparse.Namespace) -> int:
    from railfabric.core.finding import has_errors
    from railfabric.pipeline import run

    res = run(Path(args.inventory))
    if res.report is None:
        sys.stdout.write(format_text(res.findings))
        return exit_code(res.findings) or 1
    if args.format == "json":
        sys.stdout.write(json.dumps(res.report, indent=2, sort_keys=True) + "\n")
    else:
        from railfabric.checks.solver.text import report_text

        sys.stdout.write(report_text(res.report))
        if res.findings:
            sys.stdout.write(format_text(res.findings))
    return 1 if has_errors(res.findings) else 0


def cmd_size(args: argparse.Namespace) -> int:
    from railfabric.plan.sizing import format_text as sizing_text
    from railfabric.plan.sizing import host_preset, inventory_skeleton, size_fabric, switch_preset

    try:
        s = size_fabric(args.gpus, host_preset(args.host_model), switch_preset(args.switch_model), tiers=args.tiers,
                        oversubscription=args.oversubscription)
    except ValueError as exc:
        print(f"fabric size: {exc}", file=sys.stderr)
        return 2
    if args.inventory:
        sys.stdout.write(inventory_skeleton(s, name=args.name))
    else:
        sys.stdout.write(sizing_text(s))
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from railfabric.inventory.schema_files import per_file_schema, schema_text, whole_inventory_schema

    sys.stdout.write(schema_text(per_file_schema() if args.per_file else whole_inventory_schema()))
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    if args.code is None:
        for code, each in CODES.items():
            print(f"{code:<8} {each.title}")
        return 0
    info = CODES.get(args.code.upper())
    if info is None:
        print(f"fabric explain: unknown code {args.code!r} (run `fabric explain` for the list)", file=sys.stderr)
        return 2
    print(f"{args.code.upper()} ({info.name}): {info.title}\n\n{info.explanation}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from railfabric.pipeline import run

    res = run(Path(args.inventory))
    if res.inventory is not None and res.inventory.is_infiniband:
        return _show_ib(res, args.device)
    if res.topology is None or res.plan is None:
        sys.stdout.write(format_text(res.findings))
        return exit_code(res.findings) or 1
    topo, plan = res.topology, res.plan
    if plan.past_ipv4():
        sys.stdout.write(format_text(res.findings))
        print(f"fabric show: the plan runs past 255.255.255.255 ({', '.join(plan.past_ipv4())}): nothing to show",
              file=sys.stderr)
        return exit_code(res.findings) or 1
    sw = topo.switches.get(args.device)
    if sw is None:
        sw = next((s for s in topo.switches.values() if s.key == args.device), None)
    if sw is None and args.device in topo.hosts:  # a GPU server: its rail NICs (railfabric/cli/show_host.py)
        from railfabric.cli.show_host import format_host
        from railfabric.hosts import build_hosts

        assert res.inventory is not None
        sys.stdout.write(format_host(build_hosts(res.inventory, topo, plan), args.device))
        return 0
    if sw is None:
        return _no_such(args.device, topo)
    _print_switch(sw, topo, plan)
    if res.inventory is not None and res.inventory.raw:
        from railfabric.cli.raw_view import switch_lines

        for line in switch_lines(res.inventory, sw):
            print(line)
    return exit_code(res.findings)


def _show_ib(res: Result, name: str) -> int:
    """`fabric show NAME` on an InfiniBand inventory: a switch or host of the planned subnet
    (railfabric/cli/show_ib.py)."""
    from railfabric.cli.show_ib import format_ib_host, format_ib_switch
    from railfabric.core.finding import has_errors
    from railfabric.infiniband.model import Hca
    from railfabric.topology.infiniband import ib_fabric

    topo, inv = res.topology, res.inventory
    if topo is None or inv is None or inv.infiniband is None or has_errors(res.findings):
        sys.stdout.write(format_text(res.findings))
        return exit_code(res.findings) or 1
    fab = ib_fabric(inv, topo)
    sw = topo.switches.get(name) or next((s for s in topo.switches.values() if s.key == name), None)
    hca = fab.node(name)  # an HCA by its node description ("dgx01 mlx5_0", as ibnetdiscover prints it): its host
    host = hca.host if isinstance(hca, Hca) else name if name in topo.hosts else None
    if sw is None and host is None:
        return _no_such(name, topo)
    text = format_ib_switch(fab, topo, sw.name) if sw is not None else format_ib_host(fab, topo, str(host))
    sys.stdout.write(text)
    return exit_code(res.findings)


def _no_such(name: str, topo: Topology) -> int:
    import difflib

    close = difflib.get_close_matches(name, [*topo.switches, *topo.hosts], n=3)
    print(f"fabric show: no switch or host named {name!r}" + (f"; did you mean {', '.join(close)}?" if close else ""),
          file=sys.stderr)
    return 2


def _print_switch(sw: Switch, topo: Topology, plan: Plan) -> None:
    """`fabric show SWITCH`: its identity, addresses, ASN, rail subnets and links (a line per port)."""
    from railfabric.core.address import ntoa
    from railfabric.topology import LinkRole

    where = "".join(f" {k}={v}" for k, v in (("pod", sw.pod), ("segment", sw.segment), ("plane", sw.plane),
                                                ("rack", sw.rack)) if v is not None)
    print(f"{sw.name}  role={sw.role.value}{where} index={sw.index} model={sw.model} platform={sw.platform}")
    if sw.rails:
        print(f"  rails      {', '.join(map(str, sw.rails))}" + (f" (side {'ab'[sw.side]})" if sw.side is not None
                                                               else ""))
    pin = f"  (pinned: devices.{sw.key})"  # a value the inventory pins instead of the plan's slot

    def mark(value: object) -> str:
        return pin if value is not None else ""

    print(f"  loopback   {ntoa(plan.loopback[sw.name])}/32{mark(sw.loopback)}")
    print(f"  router-id  {ntoa(plan.router_id[sw.name])}{mark(sw.router_id)}")
    print(f"  management {ntoa(plan.management[sw.name])}/{plan.management_len}{mark(sw.management)}")
    print(f"  asn        {plan.asn[sw.name]}{mark(sw.asn)}")
    if sw.name in plan.aggregates:
        print(f"  aggregate  {plan.aggregates[sw.name]}")
    for rail in sw.rails:
        sub = plan.rail_subnets[(sw.name, rail)]
        own = f"  own {ntoa(sub.own)}" if sub.own is not None else ""  # MLAG pair: the switch's own SVI address
        print(f"  rail {rail}     vlan {sub.vlan}  subnet {sub.prefix}  gateway {ntoa(sub.gateway)}{own}")
    rows = []
    for link in (*topo.links, *topo.peer_links):
        if sw.name not in (link.a.device, link.z.device):
            continue
        me, peer = (link.a, link.z) if link.a.device == sw.name else (link.z, link.a)
        addr = ""
        key = link.bundle or link.id
        if key in plan.p2p:
            upper, lower = plan.p2p_ends(key)
            mine, theirs = (upper, lower) if link.z.device == sw.name else (lower, upper)
            addr = f"{ntoa(mine)}/31 -> {ntoa(theirs)}"
        elif link.id in plan.host_addr:
            addr = f"host {ntoa(plan.host_addr[link.id])}" + (f" bond {link.channel}" if link.channel else "")
        elif link.role in (LinkRole.FABRIC, LinkRole.CORE):  # routing.addressing unnumbered: no /31 (RFC 8950)
            addr = "unnumbered (BGP over IPv6 link-local)"
        rows.append((me.port, me.lane, f"  port {me.label():<6} {link.role.value:<6} {peer.device}:{peer.label():<6} "
                     f"{me.speed}G  {addr}"))
    for _p, _l, text in sorted(rows):
        print(text)


def cmd_lab(args: argparse.Namespace) -> int:
    from railfabric.cli.ib import ib_lab
    from railfabric.lab import FAULTS, LabError, format_result, preflight, run_lab

    ib = ib_lab(args)  # an InfiniBand inventory: the IB lab (railfabric/cli/ib.py); None: the FRR lab below
    if ib is not None:
        return ib
    try:
        if args.teardown:
            preflight()
            return _lab_teardown(args.run, None if args.run else args.inventory)
        faults = [f for item in args.fault or [] for f in item.split(",") if f]
        unknown = [f for f in faults if f not in FAULTS]
        if unknown:
            print(f"fabric lab: unknown fault {unknown[0]!r} (one of {', '.join(FAULTS)})", file=sys.stderr)
            return 2
        from railfabric.core.finding import has_errors
        from railfabric.pipeline import run

        progress = progress_for(args)
        as_json = getattr(args, "format", "text") == "json"
        try:
            res = run(Path(args.inventory), progress)
            if has_errors(res.findings) or res.plan is None:
                progress.close()
                (sys.stderr if as_json else sys.stdout).write(format_text(res.findings))
                return exit_code(res.findings) or 1
            result = run_lab(res, pod=args.pod, faults=faults, keep=args.keep, timeout=args.timeout,
                             say=lambda m: print(m, flush=True, file=sys.stderr if as_json else sys.stdout),
                             trace=args.verbose,
                             hosts="auto" if args.hosts is None else args.hosts, progress=progress,
                             inventory=args.inventory, down=tuple(args.down or ()))
        finally:
            progress.close()
    except LabError as exc:
        print(f"fabric lab: {exc}", file=sys.stderr)
        return 2
    if as_json:
        from railfabric.lab.report_json import result_json

        sys.stdout.write(result_json(result))
    else:
        print(format_result(result))
    return result.exit_code


def _lab_teardown(run: str | None, inventory: str | None) -> int:
    """`fabric lab --teardown [INVENTORY] [--run ID]`: the kept or killed runs of that inventory and every killed
    run on the machine (said so), or run ID."""
    from railfabric.lab import teardown_saved
    from railfabric.lab.teardown import other_runs

    done = teardown_saved(run=run, inventory=inventory)
    for d in done:
        r = d.removed
        left = "" if d.kept or run else " (left by a killed run)"
        print(f"torn down lab run {d.run}{' (kept)' if d.kept else left} of {d.inventory or '?'}: {r['daemons']} "
              f"daemon(s), {r['namespaces']} namespace(s)"
              + (f", {r['host_namespaces']} host namespace(s)" if r.get("host_namespaces") else "")
              + (f", {r['sysctls']} neighbour-table limit(s) put back" if r.get("sysctls") else ""))
    if not done:
        what = f"run {run}" if run else f"of {Path(inventory or '.').resolve()}"
        print(f"no lab {what} to tear down")
        for rid, inv, kept, running in other_runs():
            state = "running" if running else "kept" if kept else "left by a killed run"
            print(f"  other lab on this machine: run {rid} of {inv or '?'} ({state})"
                  + ("" if running else f": `fabric lab --teardown --run {rid}`"))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from railfabric.verify import VerifyInputError, format_json, format_text, verify
    from railfabric.verify.ib_render import infiniband_refusal

    refusal = infiniband_refusal(Path(args.generated), "verify")
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return 2
    try:
        result = verify(Path(args.generated), frr_parser=not args.no_frr, progress=args.verbose)
    except VerifyInputError as exc:
        print(f"fabric verify: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(format_json(result) if args.format == "json" else format_text(result))
    if args.verbose:
        print(f"verify: {result.seconds:.3f} s", file=sys.stderr)
    return 0 if result.ok else 1


