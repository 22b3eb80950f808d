"""The `fabric` command line: its help texts and one parser per command (the commands themselves are in
railfabric/cli/commands.py and railfabric/cli/render.py)."""

from __future__ import annotations

import argparse

from railfabric import __version__
from railfabric.cli.commands import (
    cmd_explain,
    cmd_lab,
    cmd_report,
    cmd_schema,
    cmd_show,
    cmd_size,
    cmd_validate,
    cmd_verify,
)
from railfabric.cli.completion import add_parser as add_completion_parser
from railfabric.cli.ib import add_parser as add_ib_parser
from railfabric.cli.impact import add_parser as add_impact_parser
from railfabric.cli.render import cmd_plan, cmd_render
from railfabric.verify.sonic_yang.command import add_parser as add_sonic_yang_parser

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
  fabric impact --down p1-spine1           # what a failure costs in GPUs, jobs, bandwidth
  sudo fabric lab                          # FRR lab of the fabric, verified against the plan
  fabric ib bind --discovered su1.topo --out /etc/opensm   # InfiniBand: GUID files from ibnetdiscover

progress: validate, render, plan and lab show a bar on stderr when it is a terminal (nothing otherwise);
  -v prints the steps as plain lines with times instead (for logs), -q shows nothing.
"""
VERBOSE_HELP = "print the steps as plain lines with times on stderr (for logs) instead of the progress bar"


def _lab_hosts(text: str) -> int | str:
    if text == "all":
        return text
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: a number of hosts per segment, or all")
    return int(text)


LAB_TIMEOUT_MAX_S = 86_400.0  # a day: a lab that needs longer to settle is not going to


def _seconds(text: str) -> float:
    """lab --timeout: seconds, more than 0 and at most a day (not -5, which reported a healthy fabric as failed
    before the first poll, nor inf or nan)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= LAB_TIMEOUT_MAX_S:  # also false for nan
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most {LAB_TIMEOUT_MAX_S:,.0f} seconds, "
                                         f"got {text}")
    return value


def _workers(text: str) -> int:
    """--workers: a whole number >= 1 (bounded later by the CPUs and the devices)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _add_validate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`fabric validate`: findings and a summary of the fabric."""
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
    v.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP + "; also lists every folded finding "
                   "as --all does")
    v.add_argument("--all", action="store_true", dest="unfold",
                   help="list the findings folded under their root cause (text shows each root once with a count "
                        "of what it caused; json, sarif and codequality always carry them, linked by caused_by)")
    v.set_defaults(func=cmd_validate)


def _add_render(sub: argparse._SubParsersAction[argparse.ArgumentParser], workers: int) -> None:
    """`fabric render`: write (or with --check compare) generated/; `workers` is the --workers default."""
    r = sub.add_parser("render", help="render every device config and artifact into generated/",
                       description="Validate INVENTORY, build the vendor-neutral device model, render it through "
                                   "templates/<platform>/ and write generated/ all or nothing (nothing is touched on "
                                   "error; unchanged files are not rewritten; a render that was killed while it "
                                   "wrote is completed by the next one). With --check nothing is written: exit 3 "
                                   "when generated/ is stale.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    r.add_argument("--out", help="output directory (default: generated/ beside the inventory directory: ./generated "
                   "for ./inventory, examples/infiniband/generated for examples/infiniband/inventory)")
    r.add_argument("--check", action="store_true", help="compare with --out instead of writing; exit 3 if stale")
    r.add_argument("--workers", type=_workers, default=workers, help=f"render processes (default {workers}; at "
                   "most the CPUs available and the devices to render); the output is identical whatever the number")
    r.add_argument("--full", action="store_true", help=FULL_HELP)
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar, and do not print warnings")
    r.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)
    r.set_defaults(func=cmd_render)


def _add_plan(sub: argparse._SubParsersAction[argparse.ArgumentParser], workers: int) -> None:
    """`fabric plan`: what rendering now would change; `workers` is the --workers default."""
    pl = sub.add_parser("plan", help="what rendering now would change in generated/ (for a pull-request comment)",
                        description="Render in memory and summarise the difference with generated/: devices "
                                    "added, removed and changed with +/- line counts and the first diff lines.")
    pl.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    pl.add_argument("--out", help="directory to compare with (default: generated/ beside the inventory directory, as "
                    "for render)")
    pl.add_argument("--limit", type=int, default=20, help="changed devices to detail (default 20)")
    pl.add_argument("--workers", type=_workers, default=workers, help="render processes (as for render)")
    pl.add_argument("--full", action="store_true", help=FULL_HELP)
    pl.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    pl.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)
    pl.set_defaults(func=cmd_plan)


def _add_report(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`fabric report`: the solver's figures."""
    rp = sub.add_parser("report", help="the solver's figures: capacity and ratio per tier, ...",
                        description="Run the solver and print its figures (text for people, json for tools); "
                                    "findings follow the text report.")
    rp.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    rp.add_argument("--format", choices=["text", "json"], default="text")
    rp.set_defaults(func=cmd_report)


def _add_size(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`fabric size`: the smallest fabric for N GPUs (the known models in the help)."""
    from railfabric.plan.sizing import presets

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


def _add_schema(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`fabric schema`: the inventory JSON Schema."""
    s = sub.add_parser("schema", help="print the inventory JSON Schema (for editors and CI)",
                       description="Print the JSON Schema of the whole inventory (all files merged). With "
                                   "--per-file: the schema each file under inventory/ satisfies on its own (no "
                                   "top-level key required), the one for editors; its copy is committed at "
                                   "schema/inventory.schema.json (see docs/inventory.md).")
    s.add_argument("--per-file", action="store_true",
                   help="the schema of one inventory file (every top-level key optional) instead of the whole")
    s.set_defaults(func=cmd_schema)


def _add_explain(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`fabric explain`: what a finding code means."""
    e = sub.add_parser("explain", help="explain a finding code (or list them all)")
    e.add_argument("code", nargs="?", help="e.g. POOL002")
    e.set_defaults(func=cmd_explain)


def _add_show(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`fabric show`: one switch or GPU host."""
    sh = sub.add_parser("show", help="show one switch (identity, addresses, ASN, rail subnets, links) or GPU host",
                        description="Print what the plan gives one switch (by hostname or pattern name) or one "
                                    "GPU server (rail NICs, tables, rules, RoCE, NCCL). On an InfiniBand fabric: a "
                                    "switch's tier, ports used and free, cables, subnet manager and root role; a "
                                    "host's HCAs in rail order, partitions (PKey, membership, index) and NCCL "
                                    "settings (NAME may be an HCA's node description, e.g. 'dgx01 mlx5_0').")
    sh.add_argument("device", help="hostname or pattern name, e.g. p1-s1-rail0")
    sh.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    sh.set_defaults(func=cmd_show)


def _add_lab(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`fabric lab`: the FRR namespace lab, verified against the plan."""
    lb = sub.add_parser("lab", help="run the generated FRR configs in a namespace lab and verify them (root)",
                        description="Build one network namespace per switch (the whole fabric or one pod), veth "
                                    "pairs per the cabling plan with the planned MTUs, loopbacks and rail SVIs, run "
                                    "FRR (zebra, bfdd, bgpd) per switch on its generated frr.conf, and check "
                                    "against the plan: BGP sessions, BFD, routes and ECMP width, suppressed "
                                    "more-specifics, DF pings. Always torn down (unless --keep); exit 1 on any "
                                    "mismatch, 2 when the lab cannot run or has nothing to verify (no planned BGP "
                                    "session in the lab, or a check the plan has items for that checked nothing). "
                                    "Each run has its own id and names (namespaces rf<id>-<host>): labs can run side "
                                    "by side. Needs root and FRR.",
                        epilog="faults (--fault, repeatable or comma-separated; the lab must then report a mismatch):\n"
                               "  asn      `router bgp` of one rail switch off by one\n"
                               "  summary  `summary-only` dropped from one rail switch's aggregate-address\n"
                               "  mtu      one end of one fabric link at 9100 instead of the planned MTU\n"
                               "  host-policy  one host's `ip rule from <NIC address>` deleted\n\n"
                               "examples:\n  sudo fabric lab\n  sudo fabric lab --pod 1 --fault asn\n"
                               "  sudo fabric lab --pod 2 --keep && sudo fabric lab --teardown\n"
                               "  sudo fabric lab --teardown --run k3x9a2\n"
                               "  sudo fabric lab inventory --down p1-spine1   # FRR after it fails vs fabric impact\n"
                               "  sudo fabric lab inventory --down 'p2-s1-rail0-1-2-3>p2-spine1#1' p1-s1-rail3\n"
                               "  sudo fabric lab inventory --down p1-spine1 --format json > down.json\n\n"
                               "InfiniBand (fabric.kind: infiniband): the planned subnet in ibsim with the real OpenSM "
                               "and infiniband-diags\n(no root; docs/infiniband.md). Faults: miswire (two HCA cables "
                               "crossed), sm (a wrong root set);\n--keep keeps the files and logs in "
                               "./ib-lab-<name>-*; --teardown reaps IB labs left by killed runs.\n"
                               "  fabric lab examples/infiniband/inventory --fault miswire",
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    lb.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    lb.add_argument("--pod", type=int, help="only this pod's rail switches and spines (default: the whole fabric)")
    lb.add_argument("--keep", action="store_true", help="leave the lab running for inspection (then --teardown)")
    lb.add_argument("--fault", action="append", metavar="KIND", help="inject a fault: asn, summary, mtu or host-policy")
    lb.add_argument("--timeout", type=_seconds, default=90.0, help="seconds to wait for a stable state (default 90)")
    lb.add_argument("--teardown", action="store_true", help="remove the labs of INVENTORY left by --keep (or by a "
                    "killed run); other runs on the machine are left alone")
    lb.add_argument("--run", metavar="ID", help="with --teardown: remove exactly this lab run (its id is printed at "
                    "start and by --keep)")
    lb.add_argument("--hosts", type=_lab_hosts, metavar="N|all",
                    help="GPU hosts per segment, configured from their rendered netplan files (default: the first "
                         "and the last of each segment when the render has host files; 0: none)")
    lb.add_argument("--down", action="extend", nargs="+", metavar="NAME",
                    help="after the intact checks, take these down together (names as `fabric impact --down` takes "
                         "them: switches, link or bundle ids, SWITCH:PORT, HOST:nicN; give INVENTORY first) and check "
                         "the routes FRR converges to against impact's prediction (not with --fault)")
    lb.add_argument("--format", choices=("text", "json"), default="text",
                    help="json: the result as one JSON object on stdout (checks, mismatches, with --down impact's "
                         "prediction as compared), the lab's report lines on stderr (FRR lab only)")
    lb.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    lb.add_argument("-v", "--verbose", action="store_true", help="print the mismatches per category at every poll, "
                    "and the steps as plain lines on stderr instead of the bar")
    lb.set_defaults(func=cmd_lab)


def _add_verify(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`fabric verify`: the rendered files read back with independent parsers."""
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


def build_parser() -> argparse.ArgumentParser:
    """The whole `fabric` parser: one subparser per command, each with its command function as `func`."""
    parser = argparse.ArgumentParser(
        prog="fabric",
        description="railfabric: describe a rail-optimized GPU back-end fabric in YAML, validate it, and "
                    "expand it into a stable plan of devices, links, addresses and ASNs.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"railfabric {__version__}")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks on internal errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from railfabric.core.cpus import available_cpus

    workers = max(1, min(4, available_cpus()))
    _add_validate(sub)
    _add_render(sub, workers)
    _add_plan(sub, workers)
    for add in (_add_report, _add_size, _add_schema, _add_explain, _add_show, _add_lab, _add_verify,
                add_impact_parser, add_sonic_yang_parser, add_ib_parser):
        add(sub)
    add_completion_parser(sub, build_parser)
    for command in sub.choices.values():  # --debug also after the command (`fabric render --debug`)
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help="show Python tracebacks on internal errors")
    return parser
