"""Jobs: the `--jobs FILE` of `fabric impact` (job name → hosts), Slurm's compressed host lists, and what a failure
does to each job's ring all-reduce.

The file is YAML or JSON (YAML is a superset): a mapping of job name → a host list, given as one string or a list of
strings. Each string is a Slurm host list (`scontrol show hostnames` expands the same forms): comma-separated names,
each with any number of bracket ranges, `p1-s1-gpu[001-016]`, `p1-s[1-2]-gpu[001-004,009]`; a range keeps the
zero padding of its lower bound (`[001-016]` → 001 … 016), as Slurm does.

The model of a job's all-reduce bandwidth (NCCL's ring algorithm on a rail-optimized fabric): NCCL opens one or more
channels (rings) per NIC; inside a host a ring moves over NVLink, between hosts ring r leaves through NIC r, so it
runs on rail r. The data is split evenly over the channels and the all-reduce ends when the slowest channel ends, so
the bandwidth left, relative to the intact fabric, is the smallest share any of the job's ring hops keeps:
- PXN off (NCCL_PXN_DISABLE=1, or a rail-only pod without spines where no ring can change rail): a ring hop on host h
  and rail r keeps NIC r's live share of its ports × (when the job spans more than one segment) the uplink share its
  rail switch keeps (left / planned, railfabric/impact/uplinks.py): the job's ratio is the minimum over its hosts and
  rails. A GPU whose NIC is isolated breaks its ring: the job stalls (0).
- PXN on (NCCL's default since 2.12): a restarted job moves a dead NIC's ring over NVLink to another NIC of the same
  host, so a host's rings share its live NICs: the host keeps (Σ its NICs' shares) / NICs of its bandwidth (an upper
  bound: NCCL balances the channels over the live NICs in whole channels). The job stalls only when a host has no
  live NIC. The running job still stalls at the failure (NCCL does not move a ring while it runs): PXN on is what a
  restart from its checkpoint gets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from railfabric.core.hostlist import expand_hostlist
from railfabric.core.safe_yaml import load as safe_load
from railfabric.impact.nics import HostIndex, host_index, nic_state
from railfabric.impact.targets import Down
from railfabric.topology import Topology


class JobsError(ValueError):
    """The jobs file cannot be used: the message says where and why."""


@dataclass(frozen=True)
class Job:
    name: str
    hosts: tuple[str, ...]


def load_jobs(path: Path, known_hosts: Mapping[str, object]) -> list[Job]:
    """The jobs of `path`; JobsError on a file that is not a mapping of job → host list, or names no host has."""
    import difflib

    try:
        data = safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise JobsError(f"{path}: cannot read: {exc}") from None
    except yaml.YAMLError as exc:
        raise JobsError(f"{path}: not YAML or JSON: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict) or not data:
        raise JobsError(f"{path}: expected a mapping of job name → host list (e.g. `train-a: p1-s1-gpu[001-016]`)")
    jobs = []
    unknown: dict[str, list[str]] = {}
    for name, value in data.items():
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items or not all(isinstance(i, str) for i in items):
            raise JobsError(f"{path}: job {name!r}: a host list is a string or a list of strings")
        hosts: list[str] = []
        for item in items:
            try:
                hosts += expand_hostlist(item)
            except ValueError as exc:
                raise JobsError(f"{path}: job {name!r}: {exc}") from None
        for h in hosts:
            if h not in known_hosts and h not in unknown:
                unknown[h] = difflib.get_close_matches(h, list(known_hosts), n=3)
        jobs.append(Job(str(name), tuple(dict.fromkeys(hosts))))
    if unknown:
        shown = "; ".join(f"{h!r}" + (f" (did you mean {', '.join(c)}?)" if c else "")
                          for h, c in list(unknown.items())[:10])
        more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
        raise JobsError(f"{path}: unknown host(s): {shown}{more}")
    return jobs


def _hop_shares(host: str, ix: HostIndex, down: Down, up_share: dict[str, float], spans: bool,
                nic_count: int) -> list[float]:
    """The share of each of a host's rail hops (one per NIC) after the failure."""
    out = []
    for n in range(nic_count):
        if (host, n) not in ix.by_nic:
            continue
        nic = nic_state(ix, (host, n), down)
        if nic.isolated:
            out.append(0.0)
            continue
        share = nic.alive_gbps / nic.gbps
        if spans:
            share *= max(up_share.get(sw, 1.0) for sw in nic.switches)
        out.append(share)
    return out


def job_rows(jobs: list[Job], topo: Topology, down: Down, up_share: dict[str, float]) -> list[dict]:
    """Per job: isolated GPUs, hosts hit, and the ring all-reduce bandwidth left with PXN off and on (the module
    docstring states the model). Only jobs the failure touches are listed as affected; all are counted."""
    hosts_of = topo.hosts
    ix = host_index(topo)
    rows = []
    for job in jobs:
        spans = len({(hosts_of[h].pod, hosts_of[h].segment) for h in job.hosts}) > 1
        pxn_off = 1.0
        pxn_on = 1.0
        isolated = 0
        hit: list[str] = []
        for h in job.hosts:
            host = hosts_of[h]
            shares = _hop_shares(h, ix, down, up_share, spans, host.nics)
            k = max(1, host.gpus // host.nics) if host.nics else 0
            isolated += k * sum(1 for s in shares if s == 0.0)
            if min(shares, default=1.0) < 1.0:
                hit.append(h)
            pxn_off = min(pxn_off, min(shares, default=1.0))
            pxn_on = min(pxn_on, sum(shares) / len(shares) if shares else 1.0)
        if not hit:
            continue
        rows.append({"job": job.name, "hosts": len(job.hosts), "hosts_hit": hit, "gpus_isolated": isolated,
                     "spans_segments": spans, "stalls": isolated > 0,
                     "allreduce_left_pct_pxn_off": round(100.0 * pxn_off, 3),
                     "allreduce_left_pct_pxn_on": round(100.0 * pxn_on, 3)})
    return rows
