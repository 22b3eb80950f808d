"""`fabric ib bind`: GUIDs bound late. The inventory names switches and HCAs, never GUIDs; once the fabric is cabled,
`ibnetdiscover` on any node of the subnet reports each node's GUID with its node description, and this command
binds them to the plan and writes the GUID files OpenSM reads (railfabric/infiniband/bindfiles.py)."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from railfabric.infiniband.model import IbFabric

EPILOG = """\
what is written into DIR (the names the rendered opensm.conf gives under /etc/opensm/):
  root-guids.conf   node GUIDs of the fat tree's roots (the spines, or the cores when there are any)
  cn-guids.conf     port GUIDs of every HCA (ftree's compute nodes)
  partitions.conf   the planned partitions with each member's port GUID (replaces the rendered, memberless one)
Each file is written to a temporary name in DIR and renamed over the old one; other files in DIR are left alone.
Nothing is written when the discovered fabric differs from the plan: each wrong or missing cable, and each node
missing or not planned, is named (a switch's node description must be its planned hostname, an HCA's
"<host> <device>", rdma-ndd's default).

exit codes:
  0  bound, files written      1  the discovered fabric differs from the plan (nothing written)
  2  unusable inventory or discovered file, or DIR cannot be written

examples:
  ibnetdiscover > su1.topo                    # on any node of the subnet (e.g. the SM's)
  fabric ib bind examples/infiniband/inventory --discovered su1.topo --out /etc/opensm
  fabric ib bind inventory --discovered su1.topo --out staging/   # review, then copy to the SM hosts
"""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ib = sub.add_parser("ib", help="InfiniBand: bind a discovered fabric's GUIDs to the plan (fabric ib bind)",
                        description="InfiniBand commands for a fabric with fabric.kind: infiniband.")
    ib_sub = ib.add_subparsers(dest="ib_command", metavar="COMMAND", required=True)
    bd = ib_sub.add_parser("bind", help="check ibnetdiscover output against the plan and write the GUID files",
                           description="Read ibnetdiscover's output, match every node to the plan by node "
                                       "description, check every planned cable (both ends, port numbers) and "
                                       "every discovered link, and write the root and compute-node GUID files and "
                                       "the GUID-bound partitions.conf into DIR. Refuses, naming each difference, "
                                       "when the cabled fabric is not the planned one.",
                           epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    bd.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    bd.add_argument("--discovered", required=True, metavar="FILE", help="ibnetdiscover's output (no options)")
    bd.add_argument("--out", required=True, metavar="DIR", help="where to write the files (created if missing)")
    bd.set_defaults(func=cmd_ib_bind)


def cmd_ib_bind(args: argparse.Namespace) -> int:
    from railfabric.infiniband.bindfiles import BindInputError, bind_discovered, bound_files, write_files

    fab = planned_fabric(Path(args.inventory), "fabric ib bind")
    if fab is None:
        return 2
    try:
        bound = bind_discovered(fab, Path(args.discovered))
    except BindInputError as exc:
        print(f"fabric ib bind: {exc}", file=sys.stderr)
        return 2
    if bound.binding is None:
        print(f"fabric ib bind: the discovered fabric ({bound.switches} switches, {bound.hcas} HCAs) differs from "
              f"the plan of {fab.name} ({len(fab.switches)} switches, {len(fab.hcas)} HCAs): "
              f"{len(bound.differences)} difference(s), nothing written")
        for diff in bound.differences:
            print(f"  {diff}")
        return 1
    files = bound_files(fab, bound.binding)
    try:
        written = write_files(Path(args.out), files)
    except OSError as exc:
        print(f"fabric ib bind: cannot write into {args.out}: {exc.strerror or exc} (nothing written)",
              file=sys.stderr)
        return 2
    print(f"bound {len(fab.switches)} switches, {len(fab.hcas)} HCAs and {len(fab.cables)} cables of {fab.name} "
          f"as planned; wrote {', '.join(str(p) for p in written)}")
    return 0


def planned_fabric(path: Path, who: str) -> IbFabric | None:
    """The inventory's InfiniBand subnet, or None after printing why not (findings, or not an InfiniBand fabric)."""
    from railfabric.core.finding import has_errors
    from railfabric.core.formats import format_text
    from railfabric.pipeline import run
    from railfabric.topology.infiniband import ib_fabric

    res = run(path)
    if has_errors(res.findings) or res.inventory is None or res.topology is None:
        sys.stderr.write(format_text(res.findings))
        print(f"{who}: the inventory does not validate", file=sys.stderr)
        return None
    if not res.inventory.is_infiniband or res.inventory.infiniband is None:
        print(f"{who}: {path} is not an InfiniBand fabric (fabric.kind: infiniband)", file=sys.stderr)
        return None
    return ib_fabric(res.inventory, res.topology)


def is_infiniband(path: Path) -> bool:
    """`fabric.kind: infiniband` in the inventory at `path` as loaded (before validation: which lab to run)."""
    from railfabric.inventory.load import load_inventory

    fabric = load_inventory(path).data.get("fabric")
    return isinstance(fabric, dict) and fabric.get("kind") == "infiniband"


def ib_lab(args: argparse.Namespace) -> int | None:
    """`fabric lab` on an InfiniBand inventory (None: not one, the FRR lab runs): the IB lab of the planned subnet
    (railfabric/infiniband/lab.py) with --fault miswire|sm, --keep (the files and logs kept in a new directory
    under the current one), --timeout; --teardown reaps the IB labs left by killed runs."""
    if not is_infiniband(Path(args.inventory)):
        return None
    from railfabric.infiniband.lab import FAULTS, format_result, run_ib_lab
    from railfabric.infiniband.labruns import reap_dead

    if args.teardown:
        done = reap_dead(only=args.run)
        for r in done:
            print(r)
        if not done:
            print("no InfiniBand lab " + (f"run {args.run} " if args.run else "") + "left by a killed run")
        return 0
    faults = [f for item in args.fault or [] for f in item.split(",") if f]
    wrong = [f"unknown fault {f!r} for an InfiniBand fabric (one of {', '.join(FAULTS)})" for f in faults
             if f not in FAULTS]
    wrong += ["one fault at a time on an InfiniBand fabric"] if len(faults) > 1 else []
    wrong += [f"{opt} is for the FRR lab of an Ethernet fabric" for opt, value in
              (("--pod", args.pod), ("--hosts", args.hosts), ("--run", args.run),
               ("--down", getattr(args, "down", None))) if value is not None]
    if wrong:
        print(f"fabric lab: {wrong[0]}", file=sys.stderr)
        return 2
    fab = planned_fabric(Path(args.inventory), "fabric lab")
    if fab is None:
        return 1
    keep = None
    if args.keep:
        import tempfile

        keep = Path(tempfile.mkdtemp(prefix=f"ib-lab-{fab.name}-", dir="."))
    with _signals_raise():
        res = run_ib_lab(fab, fault=faults[0] if faults else None, keep=keep, timeout=args.timeout)
    sys.stdout.write(format_result(res))
    if keep is not None:
        print(f"files and logs kept in {keep} (the lab's processes are ended)")
    if res.checks and res.checks[0].name in ("tools", "plan") and not res.checks[0].ok:
        return 2  # the lab could not run
    return 0 if res.ok else 1


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP end the command with SystemExit(128 + signal) while the lab runs, so its teardown (in
    `finally`) runs; SIGINT is Python's KeyboardInterrupt already. Only SIGKILL leaves a run for the reaper."""
    def stop(signum: int, _frame: FrameType | None) -> NoReturn:
        raise SystemExit(128 + signum)

    if threading.current_thread() is not threading.main_thread():
        yield  # handlers can only be set from the main thread
        return
    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
