"""The `fabric` command. Commands only: every decision lives in the pipeline modules."""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from fabric import __version__
from fabric.completion import add_parser as add_completion_parser
from fabric.core.codes import CODES
from fabric.core.finding import exit_code
from fabric.findings import format_codequality, format_github, format_json, format_sarif, format_text
from fabric.outdir import OutputRefused
from fabric.sonic_yang.check import add_parser as add_sonic_yang_parser

if TYPE_CHECKING:
    from fabric.emit import Content
    from fabric.pipeline import Result
    from fabric.progress import Progress
    from fabric.staging import Stage

T = TypeVar("T")

FULL_HELP = ("render every device and artifact afresh instead of reusing the files of --out whose digests (in its "
             "manifest.json) still match; the output is the same either way")

EPILOG = """\
exit codes:
  0  clean (warnings allowed)      1  errors found
  2  unusable input or usage       3  generated/ is stale (render --check)

examples:
  fabric validate                          # validate ./inventory
  fabric validate inventory/ --format sarif > findings.sarif
  fabric validate --format github          # annotations in a GitHub Actions log
  fabric render                            # write generated/ (configs, Ansible, cabling, IP plan)
  fabric render --check                    # CI drift check: exit 3 if generated/ is stale
  fabric plan                              # what would change, for a pull-request comment
  fabric show p1-s1-rail0                  # what the plan gives one device
  fabric schema --per-file                 # JSON Schema of one inventory file (for editors)
  fabric explain POOL002                   # what a finding code means
  sudo fabric lab                          # FRR lab of the fabric, verified against the plan

progress: validate, render, plan and lab show a bar on stderr when it is a terminal (nothing otherwise);
  -v prints the steps as plain lines with times instead (for logs), -q shows nothing.
"""
VERBOSE_HELP = "print the steps as plain lines with times on stderr (for logs) instead of the progress bar"


def _progress(args: argparse.Namespace) -> Progress:
    """A bar on a terminal, plain stage lines with -v, nothing with -q or off a terminal (fabric/progress.py)."""
    from fabric.progress import for_cli

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
    from fabric.pipeline import run

    progress = _progress(args)
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
            sys.stdout.write(format_text(findings))
        if res.skipped:
            print(f"note: {res.skipped}")
        if summary and not args.quiet:
            _print_summary(summary)
    return exit_code(findings)


def _validated(args: argparse.Namespace, progress: Progress,
               meanwhile: Callable[[Result], T] | None = None) -> tuple[Result | None, int, T | None]:
    """Run the pipeline (with `meanwhile` on the allocated fabric while it is checked: fabric.pipeline.run_with);
    print findings when there are errors. Returns (result or None, exit code, what meanwhile returned)."""
    from fabric.core.finding import has_errors
    from fabric.pipeline import run_with

    # the checks run in a second process beside `meanwhile` unless one process was asked for (--workers 1)
    res, extra = run_with(Path(args.inventory), progress, meanwhile, fork=getattr(args, "workers", 1) > 1)
    if has_errors(res.findings) or res.plan is None:
        progress.close()
        sys.stdout.write(format_text(res.findings))
        print("nothing rendered: fix the errors above (generated/ is unchanged)", file=sys.stderr)
        return None, exit_code(res.findings) or 1, None
    if res.findings and not getattr(args, "quiet", False):
        sys.stdout.write(format_text(res.findings))
    return res, 0, extra


def _rendered(args: argparse.Namespace, progress: Progress, stage: Stage) \
        -> tuple[dict[str, Content] | None, int]:
    """Validate and render: (files, 0), or (None, exit code) after printing why. Files made afresh are written to
    `stage` as they are made (fabric.staging). Devices and artifacts whose digests match --out's manifest (and whose
    files there are intact) are reused, not rendered again; when nothing railfabric reads changed since that render,
    nothing is validated or rendered (fabric.reuse)."""
    from fabric.emit import RenderError, build_models, build_tree
    from fabric.reuse import Reuse

    reuse = Reuse(None if getattr(args, "full", False) else Path(args.out))
    try:
        same = reuse.unchanged(Path(args.inventory))
        if same is not None:
            progress.stage("the inventory and railfabric are unchanged since the last render and its files are intact:"
                           " nothing to validate or render (--full does it all)")
            return dict(same), 0
        res, rc, models = _validated(args, progress, lambda r: build_models(r, progress))
        if res is None:
            return None, rc
        try:
            return build_tree(res, workers=args.workers, progress=progress, reuse=reuse, stage=stage,
                              models=models).files, 0
        except RenderError as exc:
            progress.close()
            print(f"fabric: render error: {exc}", file=sys.stderr)
            return None, 2
    finally:
        reuse.close()


def _plus_minus(lines: list[str]) -> str:
    """'+N -M' for a unified diff (its two header lines skipped)."""
    plus = sum(1 for ln in lines[2:] if ln.startswith("+"))
    minus = sum(1 for ln in lines[2:] if ln.startswith("-"))
    return f"+{plus} -{minus}"


def _print_diff(lines: list[str], limit: int) -> None:
    """The first `limit` lines of a unified diff (its two header lines skipped)."""
    for line in lines[2:2 + limit]:
        print(f"    {line}")
    if len(lines) > 2 + limit:
        print(f"    ... ({len(lines) - 2 - limit} more diff lines)")


def cmd_render(args: argparse.Namespace) -> int:
    from fabric.outdir import check_output_dir

    if not args.check:
        check_output_dir(Path(args.out), Path(args.inventory))  # refuse before spending time on rendering
    progress = _progress(args)
    try:
        return _render(args, progress)
    finally:
        progress.close()


def _render(args: argparse.Namespace, progress: Progress) -> int:
    from fabric.staging import Stage

    with Stage(Path(args.out)) as stage:
        return _render_staged(args, progress, stage)


def _render_staged(args: argparse.Namespace, progress: Progress, stage: Stage) -> int:
    from fabric.emit import compare, unified, write_tree

    files, rc = _rendered(args, progress, stage)
    if files is None:
        return rc
    out = Path(args.out)
    if args.check:
        progress.stage(f"comparing with {out}/")
        diff = compare(out, files)
        progress.close()
        if diff.clean:
            print(f"{out}/ is up to date ({len(files):,} files)")
            return 0
        print(f"{out}/ is stale: {len(diff.changed)} changed, {len(diff.added)} missing, "
              f"{len(diff.removed)} extra file(s); run `make render` and commit")
        for path in diff.changed[:20]:
            print(f"  changed  {path}")
            _print_diff(unified(out, path, files[path]), 8)
        for path in diff.added[:20]:
            print(f"  missing  {path}")
        for path in diff.removed[:20]:
            print(f"  extra    {path}")
        return 3
    progress.stage(f"writing {out}/ ({len(files):,} files)")
    diff = write_tree(out, files, inventory=Path(args.inventory), say=progress.note, stage=stage)
    progress.close()
    if diff.clean:
        print(f"{out}/ unchanged ({len(files):,} files)")
    else:
        print(f"{out}/ updated: {len(diff.changed)} changed, {len(diff.added)} added, {len(diff.removed)} removed "
              f"({len(files):,} files)")
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    progress = _progress(args)
    try:
        return _plan(args, progress)
    finally:
        progress.close()


def _plan(args: argparse.Namespace, progress: Progress) -> int:
    from fabric.staging import Stage

    with Stage(Path(args.out)) as stage:
        return _plan_staged(args, progress, stage)


def _plan_staged(args: argparse.Namespace, progress: Progress, stage: Stage) -> int:
    from fabric.emit import compare, unified

    files, rc = _rendered(args, progress, stage)
    if files is None:
        return rc
    out = Path(args.out)
    progress.stage(f"comparing with {out}/")
    diff = compare(out, files)
    progress.close()
    if diff.clean:
        print("No changes. generated/ matches the inventory.")
        return 0

    def device_of(path: str) -> str | None:
        parts = path.split("/")
        return parts[1] if len(parts) > 2 and parts[0] == "configs" else None

    groups: dict[str, dict[str, list[str]]] = {}
    for kind, paths in (("added", diff.added), ("removed", diff.removed), ("changed", diff.changed)):
        for path in paths:
            dev = device_of(path) or ""
            groups.setdefault(dev, {}).setdefault(kind, []).append(path)
    devs = {d: g for d, g in groups.items() if d}
    new_devs = sorted(d for d, g in devs.items() if set(g) == {"added"})
    gone_devs = sorted(d for d, g in devs.items() if set(g) == {"removed"})
    changed_devs = sorted(set(devs) - set(new_devs) - set(gone_devs))
    print(f"Plan: {len(new_devs)} device(s) to add, {len(changed_devs)} to change, {len(gone_devs)} to remove; "
          f"{len(diff.changed) + len(diff.added) + len(diff.removed)} file(s) differ.")
    for dev in new_devs:
        print(f"  + {dev}")
    for dev in gone_devs:
        print(f"  - {dev}")
    for dev in changed_devs[: args.limit]:
        for path in sorted(p for ps in devs[dev].values() for p in ps):
            lines = unified(out, path, files.get(path))
            print(f"  ~ {dev}: {path.split('/', 2)[2]} ({_plus_minus(lines)})")
            _print_diff(lines, 6)
    if len(changed_devs) > args.limit:
        print(f"  ... and {len(changed_devs) - args.limit} more changed device(s)")
    for path in sorted(p for ps in groups.get("", {}).values() for p in ps):
        print(f"  ~ {path} ({_plus_minus(unified(out, path, files.get(path)))})")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from fabric.core.finding import has_errors
    from fabric.pipeline import run

    res = run(Path(args.inventory))
    if res.report is None:
        sys.stdout.write(format_text(res.findings))
        return exit_code(res.findings) or 1
    if args.format == "json":
        sys.stdout.write(json.dumps(res.report, indent=2, sort_keys=True) + "\n")
    else:
        from fabric.solver.text import report_text

        sys.stdout.write(report_text(res.report))
        if res.findings:
            sys.stdout.write(format_text(res.findings))
    return 1 if has_errors(res.findings) else 0


def cmd_size(args: argparse.Namespace) -> int:
    from fabric.sizing import format_text as sizing_text
    from fabric.sizing import host_preset, inventory_skeleton, size_fabric, switch_preset

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
    from fabric.schema_files import per_file_schema, schema_text, whole_inventory_schema

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
    from fabric.address import ntoa
    from fabric.pipeline import run

    res = run(Path(args.inventory))
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
    if sw is None and args.device in topo.hosts:  # a GPU server: its rail NICs (fabric/cli_show_host.py)
        from fabric.cli_show_host import format_host
        from fabric.hosts import build_hosts

        assert res.inventory is not None
        sys.stdout.write(format_host(build_hosts(res.inventory, topo, plan), args.device))
        return 0
    if sw is None:
        import difflib

        close = difflib.get_close_matches(args.device, [*topo.switches, *topo.hosts], n=3)
        print(f"fabric show: no switch or host named {args.device!r}" + (f"; did you mean {', '.join(close)}?" if close
                                                                  else ""), file=sys.stderr)
        return 2
    where = "".join(f" {k}={v}" for k, v in (("pod", sw.pod), ("segment", sw.segment), ("plane", sw.plane),
                                                ("rack", sw.rack)) if v is not None)
    print(f"{sw.name}  role={sw.role.value}{where} index={sw.index} model={sw.model} platform={sw.platform}")
    if sw.rails:
        print(f"  rails      {', '.join(map(str, sw.rails))}" + (f" (side {'ab'[sw.side]})" if sw.side is not None
                                                               else ""))
    print(f"  loopback   {ntoa(plan.loopback[sw.name])}/32")
    print(f"  management {ntoa(plan.management[sw.name])}/{plan.management_len}")
    print(f"  asn        {plan.asn[sw.name]}")
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
        rows.append((me.port, me.lane, f"  port {me.label():<6} {link.role.value:<6} {peer.device}:{peer.label():<6} "
                     f"{me.speed}G  {addr}"))
    for _p, _l, text in sorted(rows):
        print(text)
    return exit_code(res.findings)


def _lab_hosts(text: str) -> int | str:
    if text == "all":
        return text
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: a number of hosts per segment, or all")
    return int(text)


def cmd_lab(args: argparse.Namespace) -> int:
    from fabric.lab import FAULTS, LabError, format_result, preflight, run_lab, teardown_saved

    try:
        if args.teardown:
            preflight()
            removed = teardown_saved()
            print("no lab to tear down" if removed is None else
                  f"torn down: {removed['daemons']} daemon(s), {removed['namespaces']} namespace(s)"
                  + (f", {removed['sysctls']} neighbour-table limit(s) put back" if removed.get("sysctls") else ""))
            return 0
        faults = [f for item in args.fault or [] for f in item.split(",") if f]
        unknown = [f for f in faults if f not in FAULTS]
        if unknown:
            print(f"fabric lab: unknown fault {unknown[0]!r} (one of {', '.join(FAULTS)})", file=sys.stderr)
            return 2
        from fabric.core.finding import has_errors
        from fabric.pipeline import run

        progress = _progress(args)
        try:
            res = run(Path(args.inventory), progress)
            if has_errors(res.findings) or res.plan is None:
                progress.close()
                sys.stdout.write(format_text(res.findings))
                return exit_code(res.findings) or 1
            result = run_lab(res, pod=args.pod, faults=faults, keep=args.keep, timeout=args.timeout,
                             say=lambda m: print(m, flush=True), trace=args.verbose,
                             hosts="auto" if args.hosts is None else args.hosts, progress=progress)
        finally:
            progress.close()
    except LabError as exc:
        print(f"fabric lab: {exc}", file=sys.stderr)
        return 2
    print(format_result(result))
    return 0 if result.ok else 1


def cmd_verify(args: argparse.Namespace) -> int:
    from fabric.verify import VerifyInputError, format_json, format_text, verify

    try:
        result = verify(Path(args.generated), frr_parser=not args.no_frr, progress=args.verbose)
    except VerifyInputError as exc:
        print(f"fabric verify: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(format_json(result) if args.format == "json" else format_text(result))
    if args.verbose:
        print(f"verify: {result.seconds:.3f} s", file=sys.stderr)
    return 0 if result.ok else 1


def _workers(text: str) -> int:
    """--workers: a whole number >= 1 (bounded later by the CPUs and the devices)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fabric",
        description="railfabric: describe a rail-optimized GPU back-end fabric in YAML, validate it, and "
                    "expand it into a stable plan of devices, links, addresses and ASNs.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"railfabric {__version__}")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks on internal errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    v = sub.add_parser("validate", help="check an inventory and print findings plus a fabric summary",
                       description="Load every .yml file under INVENTORY, check it against the schema and the "
                                   "semantic rules, expand and allocate the fabric, and report every finding at "
                                   "once with file:line:col, a stable code and a hint.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    v.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    v.add_argument("--format", choices=["text", "json", "sarif", "github", "codequality"], default="text",
                   help="text for people (default), json for scripts, sarif for code scanning, github for "
                        "workflow annotations, codequality for a GitLab code quality report")
    v.add_argument("-q", "--quiet", action="store_true", help="print findings only: no summary, no progress bar")
    v.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)
    v.set_defaults(func=cmd_validate)

    from fabric.cpus import available_cpus

    workers = max(1, min(4, available_cpus()))
    r = sub.add_parser("render", help="render every device config and artifact into generated/",
                       description="Validate INVENTORY, build the vendor-neutral device model, render it through "
                                   "templates/<platform>/ and write generated/ atomically (nothing is touched on "
                                   "error; unchanged files are not rewritten). With --check nothing is written: "
                                   "exit 3 when generated/ is stale.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    r.add_argument("--out", default="generated", help="output directory (default: generated)")
    r.add_argument("--check", action="store_true", help="compare with --out instead of writing; exit 3 if stale")
    r.add_argument("--workers", type=_workers, default=workers, help=f"render processes (default {workers}; at "
                   "most the CPUs available and the devices to render); the output is identical whatever the number")
    r.add_argument("--full", action="store_true", help=FULL_HELP)
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar, and do not print warnings")
    r.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)
    r.set_defaults(func=cmd_render)

    pl = sub.add_parser("plan", help="what rendering now would change in generated/ (for a pull-request comment)",
                        description="Render in memory and summarise the difference with generated/: devices "
                                    "added, removed and changed with +/- line counts and the first diff lines.")
    pl.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    pl.add_argument("--out", default="generated", help="directory to compare with (default: generated)")
    pl.add_argument("--limit", type=int, default=20, help="changed devices to detail (default 20)")
    pl.add_argument("--workers", type=_workers, default=workers, help="render processes (as for render)")
    pl.add_argument("--full", action="store_true", help=FULL_HELP)
    pl.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    pl.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)
    pl.set_defaults(func=cmd_plan)

    rp = sub.add_parser("report", help="the solver's figures: capacity and ratio per tier, ...",
                        description="Run the solver and print its figures (text for people, json for tools); "
                                    "findings follow the text report.")
    rp.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    rp.add_argument("--format", choices=["text", "json"], default="text")
    rp.set_defaults(func=cmd_report)

    from fabric.sizing import presets

    known = presets()
    sz = sub.add_parser("size", help="propose the smallest rail-optimized fabric for N GPUs",
                        description="Size a rail-optimized fabric: rail switches per segment, spines per pod, "
                                    "super-spines and cables per tier (NVIDIA SuperPOD-style segments). With "
                                    "--inventory, print it as an inventory skeleton that `fabric validate` accepts.",
                        epilog="examples:\n  fabric size --gpus 1024 --host-model dgx-h100 --switch-model qm9700\n"
                               "  fabric size --gpus 16384 --host-model dgx-b200 --switch-model qm9700 --tiers 3\n"
                               "  fabric size --gpus 4096 --host-model dgx-h100 --switch-model sn5600 --inventory "
                               "> inventory/fabric.yml", formatter_class=argparse.RawDescriptionHelpFormatter)
    sz.add_argument("--gpus", type=int, required=True)
    sz.add_argument("--host-model", required=True, help=f"one of {', '.join(sorted(known.hosts))}")
    sz.add_argument("--switch-model", required=True, help=f"one of {', '.join(sorted(known.switches))}")
    sz.add_argument("--tiers", type=int, choices=[2, 3], help="force 2 or 3 tiers (default: the fewest that fit)")
    sz.add_argument("--oversubscription", type=float, default=1.0, help="rail-switch down:up ratio (default 1)")
    sz.add_argument("--inventory", action="store_true", help="print an inventory skeleton instead of the summary")
    sz.add_argument("--name", default="sized", help="fabric name in the skeleton")
    sz.set_defaults(func=cmd_size)

    s = sub.add_parser("schema", help="print the inventory JSON Schema (for editors and CI)",
                       description="Print the JSON Schema of the whole inventory (all files merged). With "
                                   "--per-file: the schema each file under inventory/ satisfies on its own (no "
                                   "top-level key required), the one for editors; its copy is committed at "
                                   "schema/inventory.schema.json (see the README).")
    s.add_argument("--per-file", action="store_true",
                   help="the schema of one inventory file (every top-level key optional) instead of the whole")
    s.set_defaults(func=cmd_schema)

    e = sub.add_parser("explain", help="explain a finding code (or list them all)")
    e.add_argument("code", nargs="?", help="e.g. POOL002")
    e.set_defaults(func=cmd_explain)

    sh = sub.add_parser("show", help="show one switch (identity, addresses, ASN, rail subnets, links) or GPU host",
                        description="Print what the plan gives one switch (by hostname or pattern name) or one "
                                    "GPU server (rail NICs, tables, rules, RoCE, NCCL).")
    sh.add_argument("device", help="hostname or pattern name, e.g. p1-s1-rail0")
    sh.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    sh.set_defaults(func=cmd_show)

    lb = sub.add_parser("lab", help="run the generated FRR configs in a namespace lab and verify them (root)",
                        description="Build one network namespace per switch (the whole fabric or one pod), veth "
                                    "pairs per the cabling plan with the planned MTUs, loopbacks and rail SVIs, run "
                                    "FRR (zebra, bfdd, bgpd) per switch on its generated frr.conf, and check "
                                    "against the plan: BGP sessions, BFD, routes and ECMP width, suppressed "
                                    "more-specifics, DF pings. Always torn down (unless --keep); exit 1 on any "
                                    "mismatch, 2 when the lab cannot run. Needs root and FRR.",
                        epilog="faults (--fault, repeatable or comma-separated; the lab must then report a mismatch):\n"
                               "  asn      `router bgp` of one rail switch off by one\n"
                               "  summary  `summary-only` dropped from one rail switch's aggregate-address\n"
                               "  mtu      one end of one fabric link at 9100 instead of the planned MTU\n"
                               "  host-policy  one host's `ip rule from <NIC address>` deleted\n\n"
                               "examples:\n  sudo fabric lab\n  sudo fabric lab --pod 1 --fault asn\n"
                               "  sudo fabric lab --pod 2 --keep && sudo fabric lab --teardown",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    lb.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    lb.add_argument("--pod", type=int, help="only this pod's rail switches and spines (default: the whole fabric)")
    lb.add_argument("--keep", action="store_true", help="leave the lab running for inspection (then --teardown)")
    lb.add_argument("--fault", action="append", metavar="KIND", help="inject a fault: asn, summary, mtu or host-policy")
    lb.add_argument("--timeout", type=float, default=90.0, help="seconds to wait for a stable state (default 90)")
    lb.add_argument("--teardown", action="store_true", help="remove a lab left by --keep (or by a killed run)")
    lb.add_argument("--hosts", type=_lab_hosts, metavar="N|all",
                    help="GPU hosts per segment, configured from their rendered netplan files (default: the first "
                         "and the last of each segment when the render has host files; 0: none)")
    lb.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    lb.add_argument("-v", "--verbose", action="store_true", help="print the mismatches per category at every poll, "
                    "and the steps as plain lines on stderr instead of the bar")
    lb.set_defaults(func=cmd_lab)
    vf = sub.add_parser("verify", help="read rendered configs back with independent parsers and check the plan",
                        description="Parse every rendered file under GENERATED (config_db.json as JSON, frr.conf "
                                    "as a tree and through vtysh -C where installed, EOS running-config with "
                                    "hier_config) and check, without railfabric's device model: both ends of every "
                                    "link (MTU, speed, QoS), host ports (speed, rail VLAN, DSCP trust, PFC, ECN, "
                                    "watchdog, lossless buffers), each host NIC against its rail switch port (host "
                                    "netplan and roce.sh: rail VLAN and subnet, gateway, MTU, DSCP map, PFC, CNP), "
                                    "reverse BGP sessions and expected/bgp_sessions.csv, "
                                    "VLANs, management API and push account, config_db references, planned "
                                    "addresses. Exit 0 all kept, 1 a promise broken, 2 unusable input.")
    vf.add_argument("generated", nargs="?", default="generated", help="rendered tree (default: generated)")
    vf.add_argument("--format", choices=("text", "json"), default="text")
    vf.add_argument("--no-frr", action="store_true", help="do not run FRR's parser (vtysh -C) on frr.conf files")
    vf.add_argument("-v", "--verbose", action="store_true", help="progress and timing on stderr")
    vf.set_defaults(func=cmd_verify)
    add_sonic_yang_parser(sub)
    add_completion_parser(sub)
    for command in sub.choices.values():  # --debug also after the command (`fabric render --debug`)
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help="show Python tracebacks on internal errors")
    return parser


def os_error_text(exc: OSError) -> str:
    """One line: the path(s), the errno text and its symbolic name."""
    import errno

    name = errno.errorcode.get(exc.errno or 0, "")
    what = exc.strerror or str(exc)
    paths = " -> ".join(str(p) for p in (exc.filename, exc.filename2) if p is not None)
    return f"{paths + ': ' if paths else ''}{what}{f' ({name})' if name else ''}"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OutputRefused as exc:
        print(f"fabric: refused: {exc}; nothing was written", file=sys.stderr)
        return 2
    except OSError as exc:  # the environment (read-only, disk full, permission denied), not a bug
        if args.debug:
            traceback.print_exc()
        print(f"fabric: {os_error_text(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # an internal error must still be a clear message, never a bare traceback
        if args.debug:
            traceback.print_exc()
        print(f"fabric: internal error: {type(exc).__name__}: {exc} (rerun with --debug and report it)",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
