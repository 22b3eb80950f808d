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
  reports, when the lab holds every rail switch impact counts (otherwise it compares a subset and is not asked);
- with `routing.spine_pod_aggregate` (summary-only: the rail switches hold each pod's aggregate, not the rail
  subnets under it): per rail switch X and pod aggregate A the intact plan routes to X, impact's width at X toward
  any live rail switch of A's pod (its route model gives every destination under one aggregate the same width);
  and per live rail switch Y and live spine S of Y's pod, whether impact names S as blackholing Y's prefixes
  (report routes.blackholing): S still advertises A while it has no route to Y's prefixes.
- dual-stack (routing.address_families [ipv4, ipv6]): impact predicts per IPv4 rail subnet; the IPv6 twin of every
  prefix (the rail /64 of the same switch and rail, the IPv6 summary of the same switch or pod) rides the same
  sessions over the same links (railfabric/device/routing_v6.py), so it gets the IPv4 prefix's width, absence and
  blackholing: `v6` maps each IPv4 prefix the lab compares to its IPv6 twin.
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
    # pod aggregates: (rail switch Y, Y's prefixes, spine S of Y's pod, S's aggregates, impact names S blackholing Y)
    blackholes: list[tuple[str, list[str], str, list[str], bool]] = field(default_factory=list)
    aggregate: bool = False  # routing.spine_pod_aggregate: the rail switches route by the pod aggregates
    aggregate_note: str = ""  # why no blackhole is compared ("" when some is)
    v6: dict[str, str] = field(default_factory=dict)  # IPv4 prefix → its IPv6 twin (dual-stack fabrics)
    # who a next hop is: (switch, peer address) or (switch, its interface of an unnumbered session) → the peer
    peers: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def isolated_gpus(self) -> int:
        return int(self.report["isolated"]["gpus"])


def resolve(res: Result, names: list[str] | tuple[str, ...]) -> Down:
    """impact's resolution of `names`; raises railfabric.impact.UnknownNames as `fabric impact` does."""
    assert res.topology is not None and res.inventory is not None
    return Resolver(res.topology, res.inventory.switch_models).resolve(list(names))


def predict(res: Result, spec: LabSpec, exp: Expected, down: Down) -> Prediction:
    inv, topo, plan = res.inventory, res.topology, res.plan
    assert inv is not None and topo is not None and plan is not None
    report = impact(inv, topo, plan, down)
    pred = Prediction(down, report, withdrawn=list(report["routes"]["withdrawn"]))
    after = Routes(inv, topo, down, next_hops(inv, topo))
    lab_rails = [n for n in spec.nodes if spec.nodes[n].device.role == "rail" and n in after.pod]
    aggs = pod_aggregates(spec) if after.aggregate else {}
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
        for agg, pod in aggs.items():  # summary-only pod aggregates: one width for every destination under them
            if agg in exp.routes.get(x, {}) and not (one_pod and pod != after.pod[x]):
                dest = next((d for y in after.rail if after.pod[y] == pod
                             and (d := after.dest_sig((y,))) is not None), None)
                mine[agg] = 0 if dest is None else after.width(src, dest)
        pred.widths[x] = mine
    _isolated(res, spec, down, pred)
    _histograms(spec, exp, after, pred)
    _blackholes(spec, exp, after, pred)
    pred.v6 = twins(res, spec)
    return pred


def pod_aggregates(spec: LabSpec) -> dict[str, int]:
    """The IPv4 aggregates the lab's spines advertise (routing.spine_pod_aggregate) → their pod."""
    return {str(a): d.pod or 0 for d in (n.device for n in spec.nodes.values()) if d.role == "spine"
            for a in d.bgp.aggregates}


def _blackholes(spec: LabSpec, exp: Expected, after: Routes, pred: Prediction) -> None:
    """Per live rail switch Y of the lab and live spine S of Y's pod in the lab: does impact name S blackholing
    Y's prefixes (only with pod aggregates)."""
    pred.aggregate = after.aggregate
    if not after.aggregate:
        pred.aggregate_note = "no pod aggregate (routing.spine_pod_aggregate is off)"
        return
    for ln in spec.links:  # a next hop by its interface (IPv6 over an IPv4 session: a link-local next hop)
        pred.peers[(ln.a.node, ln.a.ifname)], pred.peers[(ln.z.node, ln.z.ifname)] = ln.z.node, ln.a.node
    for ses in exp.sessions:
        if ses.unnumbered:
            pred.peers[(ses.a, ses.a_ip)], pred.peers[(ses.z, ses.z_ip)] = ses.z, ses.a
        else:
            pred.peers[(ses.a, ses.z_ip)], pred.peers[(ses.z, ses.a_ip)] = ses.z, ses.a
    named: dict[str, set[str]] = {}
    for row in pred.report["routes"]["blackholing"]:
        for y in row["rail_switches"]:
            named.setdefault(y, set()).update(row["spines"])
    live = [n for n in spec.nodes if n not in pred.down.switches]
    for y in live:
        dev = spec.nodes[y].device
        if dev.role != "rail" or y not in after.up:
            continue
        for s in live:
            sd = spec.nodes[s].device
            if sd.role == "spine" and sd.pod == dev.pod and sd.bgp.aggregates:
                pred.blackholes.append((y, sorted(exp.rail_prefixes.get(y, ())), s,
                                        [str(a) for a in sd.bgp.aggregates], s in named.get(y, set())))
    if not pred.blackholes:
        pred.aggregate_note = "no live rail switch with a live spine of its pod in the lab"


def twins(res: Result, spec: LabSpec) -> dict[str, str]:
    """Each IPv4 rail subnet, rail switch summary and spine pod aggregate of the lab → its IPv6 twin (plan.v6: same
    switch and rail; same switch's summary; a spine's summaries in order, when it has as many of each family);
    empty on an IPv4-only fabric."""
    plan = res.plan
    assert plan is not None
    v6 = plan.v6
    if v6 is None:
        return {}
    out: dict[str, str] = {}
    for key, sub in plan.rail_subnets.items():
        twin = v6.rail_subnets.get(key)
        if twin is not None and key[0] in spec.nodes:
            out[str(sub.prefix)] = str(twin.prefix)
    for name, agg in plan.aggregates.items():
        if name in spec.nodes and name in v6.aggregates:
            out[str(agg)] = str(v6.aggregates[name])
    for node in spec.nodes.values():
        b = node.device.bgp
        if node.device.role == "spine" and b.ipv6 is not None and len(b.aggregates) == len(b.ipv6.aggregates):
            for a4, a6 in zip(b.aggregates, b.ipv6.aggregates, strict=True):
                out[str(a4)] = str(a6)
    return out


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
