"""What `fabric impact` predicts for the names given to `fabric lab --down`, in the terms the lab can check in FRR.

Nothing here computes a route: the names are resolved by impact's Resolver (unknown names refused exactly as
`fabric impact` refuses them), the report is railfabric.impact.impact()'s, and the width each rail switch installs
toward each other rail switch's prefixes is impact's own route model (railfabric/impact/routes.py Routes.width) asked
per pair. This module only selects what the lab can observe:
- per rail switch X in the lab and per prefix P that the intact plan gives X a BGP route to (Expected.routes), P
  being advertised by a rail switch Y in the lab: impact's width at X toward Y (0: unreachable, P must be absent);
  pairs across pods only when the lab holds the whole fabric (a one-pod lab has no super-spines);
- the prefixes impact lists as withdrawn: absent at every live switch of the lab;
- the rail subnets of the GPUs impact isolates whose every rail switch is down (their subnet is withdrawn): absent
  at every live switch; GPUs isolated behind a live rail switch (a NIC or its link down) keep their subnet: when
  the lab built their host, a ping from the rail switch's gateway to the NIC's address must fail, else they are
  listed as not checked;
- per destination whose routes impact reports as changed: the histogram of widths (width → rail switches) impact
  reports, when the lab holds every rail switch impact counts (otherwise it compares a subset and is not asked).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from railfabric.checks.solver.paths import next_hops
from railfabric.impact import Down, Resolver, impact
from railfabric.impact.nics import host_index, nic_states
from railfabric.impact.routes import Routes
from railfabric.lab.expect import Expected, Ping
from railfabric.lab.model import LabSpec
from railfabric.pipeline import Result


@dataclass
class Prediction:
    down: Down
    report: dict  # railfabric.impact.impact()'s dict
    # rail switch → prefix → the ECMP width impact predicts there (0: unreachable)
    widths: dict[str, dict[str, int]] = field(default_factory=dict)
    withdrawn: list[str] = field(default_factory=list)  # impact's routes.withdrawn
    # rail subnet of isolated GPUs whose every rail switch is down → "pod/segment/rail: N GPUs (hosts)"
    isolated_subnets: dict[str, str] = field(default_factory=dict)
    isolated_elsewhere: list[str] = field(default_factory=list)  # isolated NICs behind a live rail switch, no host
    # isolated NICs behind a live rail switch whose host the lab built: a ping from that switch's rail gateway to the
    # NIC's address must fail (the same address answered in the intact state's host checks)
    isolated_pings: list[Ping] = field(default_factory=list)
    # changed destinations: (prefixes FRR carries, their origin, impact's widths_after histogram of their row)
    histograms: list[tuple[list[str], list[str], dict[str, int]]] = field(default_factory=list)
    histogram_note: str = ""  # why the histograms are not compared ("" when they are)
    skipped: list[str] = field(default_factory=list)  # pairs or prefixes the lab does not compare, and why

    @property
    def isolated_gpus(self) -> int:
        return int(self.report["isolated"]["gpus"])


def resolve(res: Result, names: list[str] | tuple[str, ...]) -> Down:
    """impact's resolution of `names`; raises railfabric.impact.UnknownNames as `fabric impact` does."""
    assert res.topology is not None
    return Resolver(res.topology).resolve(list(names))


def predict(res: Result, spec: LabSpec, exp: Expected, down: Down) -> Prediction:
    inv, topo, plan = res.inventory, res.topology, res.plan
    assert inv is not None and topo is not None and plan is not None
    report = impact(inv, topo, plan, down)
    pred = Prediction(down, report, withdrawn=list(report["routes"]["withdrawn"]))
    after = Routes(inv, topo, down, next_hops(inv, topo))
    lab_rails = [n for n in spec.nodes if spec.nodes[n].device.role == "rail" and n in after.pod]
    one_pod = spec.pod is not None
    for x in lab_rails:
        if x in down.switches or x not in after.up:
            continue
        src = after.src_sig(x)
        mine: dict[str, int] = {}
        for y in lab_rails:
            if y == x or (one_pod and after.pod[y] != after.pod[x]):
                continue
            dest = after.dest_sig((y,))
            w = 0 if dest is None else after.width(src, dest)
            for p in sorted(exp.rail_prefixes.get(y, ())):
                if p in exp.routes.get(x, {}):  # the intact plan routes it here (else: suppressed / no path)
                    mine[p] = w
        pred.widths[x] = mine
    _isolated(res, spec, down, pred)
    _histograms(spec, exp, after, pred)
    return pred


def _isolated(res: Result, spec: LabSpec, down: Down, pred: Prediction) -> None:
    topo, plan = res.topology, res.plan
    assert topo is not None and plan is not None
    ix = host_index(topo)
    groups: dict[str, list[str]] = {}
    for key, nic in nic_states(topo, down).items():
        if not nic.isolated:
            continue
        planned = sorted({sw for _lid, sw, _g in ix.by_nic[key]})
        if all(sw in down.switches for sw in planned):
            for sw in planned:
                sub = plan.rail_subnets.get((sw, nic.rail))
                if sub is not None:
                    groups.setdefault(str(sub.prefix), []).append(nic.host)
        else:
            pred.isolated_elsewhere += _isolated_pings(spec, nic.host, nic.nic, nic.rail, planned, pred.isolated_pings)
    for prefix, hosts in groups.items():
        h = topo.hosts[hosts[0]]
        pred.isolated_subnets[prefix] = (f"pod {h.pod} segment {h.segment}: {len(hosts)} host(s) "
                                         f"{hosts[0]}..{hosts[-1]}")


def _histograms(spec: LabSpec, exp: Expected, after: Routes, pred: Prediction) -> None:
    missing = [x for x in after.rail if x not in spec.nodes]
    if spec.pod is not None or missing:
        pred.histogram_note = ("the lab holds only part of the rail switches impact counts ("
                               + (f"pod {spec.pod}" if spec.pod is not None else
                                  f"{len(missing)} outside: {', '.join(missing[:4])}") + ")")
        return
    for row in pred.report["routes"]["destinations"]:
        if row["down"]:
            continue
        # a row merges the destinations whose widths changed alike; each histogram counts the rail switches other
        # than the prefix's origin
        for y in row["rail_switches"]:
            carried = [p for p in row["prefixes"] if p in exp.rail_prefixes.get(y, ())
                       and any(p in exp.routes.get(x, {}) for x in pred.widths)]
            if carried:
                pred.histograms.append((carried, [y], dict(row["widths_after"])))


def _isolated_pings(spec: LabSpec, host: str, nic: int, rail: int, switches: list[str], out: list[Ping]) -> list[str]:
    """Pings that must fail toward an isolated NIC of a built host (appended to `out`); the NIC as not checked when
    the lab has no such host or switch."""
    built = spec.hosts.get(host)
    ports = [p for p in (built.ports if built is not None else ()) if p.nic == nic and p.switch in spec.nodes]
    if not ports:
        return [f"{host} NIC {nic} (rail {rail}): " + ("host not built in the lab" if built is None
                                                       else f"its rail switch {', '.join(switches)} not in the lab")]
    for p in ports:
        out.append(Ping(p.switch, p.gateway, p.ip, host, 84, False,
                        f"{p.switch} {p.gateway} -> {host} NIC {nic} {p.ip} (rail {rail}), isolated by impact"))
    return []
