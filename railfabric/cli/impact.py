"""`fabric impact`: what a set of switches, links, ports or NICs down costs, in GPUs, hosts, bandwidth, routes and
jobs; with --maintenance, the waves to take them down in. The computation is railfabric/impact/."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from railfabric.impact.targets import Resolver

EPILOG = """\
names (--down / --maintenance take every word after them: give INVENTORY first; as in generated/cabling.csv):
  p1-s1-rail0                       a switch (hostname or pattern name)
  p1-s1-rail0>p1-spine1#1           a link (link_id column)
  p2-s1-rail0-1-2-3>p2-spine1#pc1   an L3 port-channel (bundle column): all its members
  p1-s1-rail0:33  p1-s1-rail0:1/2   a switch port (a_port / z_port), or one lane of a broken-out port
  p1-s1-rail0:Ethernet256           a switch port by its interface name (a_interface / z_interface: SONiC
                                    Ethernet256, EOS Ethernet33/1, NVUE swp33, NX-OS Ethernet1/33, Junos et-0/0/32)
  p1-s1-gpu001:nic0                 every port of a host NIC (p1-s1-gpu001:nic0p1: one port, the link id)
  quote link and bundle ids in a shell: '>' redirects (fabric impact --down 'p1-s1-rail0>p1-spine1#1')

jobs file (--jobs, YAML or JSON): job name -> hosts, Slurm host lists accepted
  train-70b: p1-s1-gpu[001-016],p1-s2-gpu[001-016]
  eval: [p3-s1-gpu001, p3-s1-gpu002]

exit codes:
  0  no GPU isolated (maintenance: every item placed; what items cost alone is listed)
  1  some GPU isolated            2  unknown name, unusable inventory or jobs file

examples:
  fabric impact --down p1-spine1                     # none isolated; pod 1's uplinks at 75 %
  fabric impact --down p1-s1-rail3 --format json     # 16 GPUs of rail 3 isolated
  fabric impact --down p1-s1-rail0 --jobs jobs.yml   # which jobs stall, ring all-reduce left
  fabric impact --maintenance p1-s1-rail0 p1-s1-rail1 p1-s1-rail2 p1-s1-rail3 \\
                p1-s1-rail4 p1-s1-rail5 p1-s1-rail6 p1-s1-rail7 # waves for an OS upgrade
  fabric impact --maintenance p1-spine1 p1-spine2 p1-spine3 p1-spine4 --emit-waves waves.yml
      # then, in generated/ansible/: ansible-playbook -i inventory.yml deploy.yml -e @waves.yml --limit ...

model: docs/impact.md (isolation, uplink shares, valley-free eBGP routes, NCCL rings per rail, PXN off/on).
"""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    im = sub.add_parser("impact", help="what switches, links or ports down cost in GPUs, jobs, bandwidth, routes",
                        description="Take a set of switches, links, switch ports or host NIC ports down in the plan "
                                    "(no devices needed) and report the GPUs isolated from their rail (per rail, "
                                    "segment and pod, with the hosts), the GPUs left at reduced bandwidth, the "
                                    "uplink capacity and oversubscription left per tier and rail, prefixes withdrawn, "
                                    "unreachable or blackholed and the ECMP widths left, and with --jobs the jobs "
                                    "that stall or slow down. --maintenance splits a set into the fewest waves that "
                                    "cost no more together than apart.",
                        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    im.add_argument("inventory", nargs="?", default="inventory", help="directory or file (default: inventory)")
    what = im.add_mutually_exclusive_group(required=True)
    what.add_argument("--down", nargs="+", metavar="NAME", help="what fails together (see names below)")
    what.add_argument("--maintenance", nargs="+", metavar="NAME", help="what to take down for maintenance: "
                      "printed as waves")
    im.add_argument("--jobs", metavar="FILE", help="job name -> host list (YAML or JSON, Slurm host lists)")
    im.add_argument("--format", choices=("text", "json"), default="text")
    im.add_argument("--emit-waves", metavar="FILE", help="with --maintenance of switches: write the waves as an "
                    "Ansible vars file for the rollout (ansible-playbook deploy.yml -e @FILE)")
    im.set_defaults(func=cmd_impact)


def cmd_impact(args: argparse.Namespace) -> int:
    from railfabric.core.finding import has_errors
    from railfabric.core.formats import format_text
    from railfabric.impact import JobsError, Resolver, UnknownNames, impact, load_jobs, maintenance_waves
    from railfabric.pipeline import run

    res = run(Path(args.inventory))
    ib = res.inventory is not None and res.inventory.is_infiniband  # no address plan: no routes to predict
    if has_errors(res.findings) or res.inventory is None or res.topology is None or (res.plan is None and not ib):
        sys.stderr.write(format_text(res.findings))
        print("fabric impact: the inventory does not validate: nothing to compute", file=sys.stderr)
        return 2
    topo = res.topology
    resolver = Resolver(topo, res.inventory.switch_models)
    if args.emit_waves and not args.maintenance:
        print("fabric impact: --emit-waves needs --maintenance", file=sys.stderr)
        return 2
    if args.emit_waves and ib:
        print("fabric impact: --emit-waves writes the waves for the Ethernet rollout (ansible-playbook deploy.yml); "
              "an InfiniBand fabric renders no switch configs to roll out", file=sys.stderr)
        return 2
    try:
        jobs = load_jobs(Path(args.jobs), topo.hosts) if args.jobs else None
        if args.maintenance:
            out = maintenance_waves(res.inventory, topo, args.maintenance, jobs)
            if args.emit_waves:
                _emit_waves(Path(args.emit_waves), out, resolver, args.maintenance, res.inventory.fabric.name)
        else:
            # InfiniBand: the subnet manager re-routes around a failure; there are no prefixes to withdraw
            out = impact(res.inventory, topo, res.plan, resolver.resolve(args.down), jobs, routes=not ib)
    except (UnknownNames, JobsError, ValueError, OSError) as exc:
        print(f"fabric impact: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        sys.stdout.write(json.dumps(out, indent=2, sort_keys=True) + "\n")
    else:
        from railfabric.impact.text import impact_text, waves_text

        sys.stdout.write(waves_text(out) if args.maintenance else impact_text(out))
    if args.maintenance:
        return 0
    return 1 if out["isolated"]["gpus"] else 0


def _emit_waves(path: Path, out: dict, resolver: Resolver, given: list[str], fabric: str) -> None:
    """Write the waves file (NotSwitches, a ValueError, when an item is not a switch: nothing written)."""
    from railfabric.emit.one_file import write_one
    from railfabric.impact.rollout_waves import wave_hostnames, waves_vars_text

    write_one(path, waves_vars_text(wave_hostnames(out, resolver), given, fabric))
