"""What a lab run could check, and what it did not: a check that ran on nothing has not passed.

Before anything is built: a selection in which no planned BGP session has both ends in the lab has nothing to verify
(the lab's central check, and the one every route, BFD and ping check rides on): `nothing_to_verify` says why (which
switches were left out and why, which sessions go outside), and the run stops with exit 2. One exception: a selection
whose switches the plan gives no BGP session at all (a rail-only pod) with GPU hosts built: the hosts' rails (policy
routing, same-rail pings through the rail switch, isolation between rails) are then what it verifies, and the
sessions are legitimately "not run". A rail-only pod without hosts has nothing to verify.

After the run, per check category: one that checked 0 items is "not run". It is legitimately empty when the plan
gives it nothing here (no BFD planned, no suppressed prefix, no GPU hosts asked for, ...), said with that reason in
the report; otherwise (the sessions, a check the run did not reach, GPU hosts asked for with --hosts N and none
built) it keeps the result from being PASS: the run is NOT VERIFIED (exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass

from railfabric.lab.expect import Expected
from railfabric.lab.model import LabSpec, grouped, out_reason
from railfabric.lab.verify import Check, categories

HOST_CATEGORIES = ("host-interfaces", "host-rules", "host-egress", "host-pings", "cross-rail")

# why a category that ran checked nothing: the plan gives it nothing in this lab
_PLAN_EMPTY = {
    "bfd": "the plan enables BFD on none of the sessions in the lab",
    "bfd-timers": "the plan enables BFD on none of the sessions in the lab",
    "rail-routes": "the plan gives no rail switch of the lab a route to another rail switch's prefix",
    "other-routes": "the plan gives no switch of the lab a BGP route to a loopback or a spine",
    "absent": "the plan suppresses no prefix and reaches every prefix of the lab from every switch",
    "link-pings": "no link of the lab has an address at both ends",
    "rail-pings": "no two rail switches with rail SVIs that the plan routes between (one rail switch per segment "
                  "pair, or rails isolated)",
    "host-pings": "no two built hosts have NICs on one rail that the plan pairs (one segment with one host)",
    "cross-rail": "no built host has a NIC on another rail than the next host's (one rail)",
    "host-egress": "no host ping planned, so no route lookup",
}


@dataclass(frozen=True, slots=True)
class NotRun:
    key: str
    title: str
    why: str
    legitimate: bool  # the plan gives it nothing here: said, and no obstacle to PASS


def nothing_to_verify(spec: LabSpec, exp: Expected) -> str | None:
    """Why a lab of this selection would check no BGP session, or None when it has some to check."""
    if exp.sessions or (not exp.outside and spec.hosts):
        return None
    where = f"pod {spec.pod}" if spec.pod is not None else "the fabric"
    lab = list(spec.nodes)
    names = ", ".join(lab[:6]) + (" ..." if len(lab) > 6 else "")
    if exp.outside:
        owner = {n.local_ip: name for name, d in spec.devices.items() for g in d.bgp.peer_groups
                 for n in g.neighbors}
        peers = dict.fromkeys(owner.get(n.ip, "?") for name in lab for g in spec.devices[name].bgp.peer_groups
                              for n in g.neighbors)
        reasons = {p: (out_reason(spec.devices[p]) if p in spec.devices else None)
                   or (f"outside pod {spec.pod}" if spec.pod is not None else "outside the lab") for p in peers}
        msg = (f"no planned BGP session of {where} has both ends in the lab: the {exp.outside} session(s) of its "
               f"{len(lab)} switch(es) in the lab ({names}) all go to switches outside it: {grouped(reasons)}")
        left = [n for n in spec.not_in_lab if n not in reasons]
    else:
        left = list(spec.not_in_lab)
        rail_only = all(spec.devices[n].role == "rail" for n in lab)
        msg = (f"the plan gives the {len(lab)} switch(es) of {where} in the lab ({names}) no BGP session"
               + (" (rail-only: no spines, each rail switch peers with nothing)" if rail_only else "")
               + " and no GPU host is built to verify instead (--hosts N builds them)")
    if left:
        msg += "; also left out of the lab: " + grouped({n: out_reason(spec.devices[n]) or "" for n in left})
    return "nothing to verify: " + msg


def not_run(spec: LabSpec, exp: Expected, checks: dict[str, Check], hosts_built: bool) -> list[NotRun]:
    """Every category that checked nothing, with why and whether the plan gives it nothing here."""
    out = []
    for key, title in categories(exp):
        c = checks.get(key)
        if c is not None and c.total:
            continue
        if key in HOST_CATEGORIES and not hosts_built:
            why, ok = _no_hosts(spec)
        elif key == "sessions" and not exp.sessions and not exp.outside and c is not None:
            why, ok = "the plan gives the switches in the lab no BGP session (rail-only: no spines)", True
        elif key == "sessions":
            why, ok = nothing_to_verify(spec, exp) or "no BGP session was checked", False
        elif c is not None and key in _PLAN_EMPTY:
            why, ok = _PLAN_EMPTY[key], True
        else:
            why, ok = "the run did not check it" if c is None else "checked nothing although the plan has items", False
        out.append(NotRun(key, title, why, ok))
    return out


def _no_hosts(spec: LabSpec) -> tuple[str, bool]:
    notes = "; ".join(spec.host_notes)
    asked = spec.host_request
    if asked in (0, "0"):
        return "no GPU hosts in the lab (--hosts 0)", True
    if asked == "auto":
        return "no GPU hosts in the lab" + (f": {notes}" if notes else ""), True
    return (f"--hosts {asked} asked for GPU hosts and none could be built" + (f": {notes}" if notes else ""),
            False)
