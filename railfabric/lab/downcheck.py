"""After `--down`: what FRR converged to, against `fabric impact`'s prediction (railfabric/lab/prediction.py).

Read from each live switch's zebra (`show ip route json`: the selected BGP route's active FIB next hops, as the
intact checks read it, railfabric/lab/verify.py) and compared, every mismatch named per switch and prefix with
impact's number and FRR's:
- down-widths: every prefix impact keeps reachable from a rail switch is there with exactly impact's ECMP width;
- down-unreachable: every prefix impact calls unreachable from a rail switch is absent from its routing table;
- down-withdrawn: every prefix impact lists as withdrawn is absent at every live switch (spines and super-spines too);
- down-isolated: the rail subnets of the GPUs impact isolates (every rail switch of theirs down) are absent at every
  live switch; an isolated NIC of a built host behind a live rail switch answers no ping from its rail gateway;
- down-histogram: per destination impact reports as changed, the widths FRR installs at the rail switches, counted
  per width, equal impact's histogram;
- down-blackhole (routing.spine_pod_aggregate): per live rail switch Y and live spine S of its pod, S blackholes Y's
  prefixes in FRR (S has none of Y's prefixes in its table, and some other switch of the lab, a super-spine or a
  rail switch of the pod, holds the pod aggregate with an active next hop to S) exactly when impact names S;
- down-ipv6 (dual-stack): every IPv4 item above repeated on its IPv6 twin (`show ipv6 route json`): same width,
  same absence, same blackholing (impact predicts per IPv4 rail subnet; the twin rides the same sessions).
A category with nothing to compare is "not run": legitimately (said why) when impact predicts nothing for it (no
GPU isolated or only behind a live rail switch, no prefix withdrawn or unreachable, no destination that stays up with
changed widths, or a lab without every rail switch for the histograms); otherwise, the widths always, it keeps the
result from PASS (NOT VERIFIED).
The lab waits for the checks to pass on two polls in a row (at least MIN_SECONDS after the change), or judges the
state once nothing has changed for `settle` seconds (at least `min_wait` in), or at `timeout`.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from railfabric.lab.coverage import NotRun
from railfabric.lab.daemons import Instances
from railfabric.lab.down import DownPlan
from railfabric.lab.model import LabSpec
from railfabric.lab.prediction import Prediction
from railfabric.lab.verify import Check, Observed, _bgp_rib, fingerprint, observe

# a state that already matches the prediction is accepted only this long after the change (BFD detects a dead peer
# within interval × multiplier, 300 ms × 3 by default; the withdrawals then take a few BGP updates)
MIN_SECONDS = 3.0

DOWN_CATEGORIES = (
    ("down-widths", "after --down: ECMP width as impact predicts"),
    ("down-unreachable", "after --down: unreachable as impact predicts"),
    ("down-withdrawn", "after --down: withdrawn prefixes gone everywhere"),
    ("down-isolated", "after --down: isolated GPUs' rail subnets gone"),
    ("down-histogram", "after --down: width histograms as impact reports"),
    ("down-blackhole", "after --down: spines blackholing a pod aggregate"),
    ("down-ipv6", "after --down: IPv6 twins as their IPv4 prefixes"),
)


@dataclass
class DownRun:
    """What --down did and found (LabResult.down)."""

    names: tuple[str, ...]
    prediction: Prediction
    actions: list[str]
    converged: bool = False
    seconds: float = 0.0
    checks: dict[str, Check] = field(default_factory=dict)
    plan: DownPlan | None = None  # the actions (railfabric/lab/down.py)

    def not_run(self) -> list[NotRun]:
        out = []
        for key, title in DOWN_CATEGORIES:
            if self.checks.get(key, Check()).total:
                continue
            p = self.prediction
            if key == "down-isolated" and not p.isolated_subnets and not p.isolated_pings:
                why = ("impact isolates no GPU" if not p.isolated_gpus else
                       f"impact isolates {p.isolated_gpus} GPU(s) behind a live rail switch (their subnet stays), "
                       "not checked: " + ", ".join(p.isolated_elsewhere[:4]))
                out.append(NotRun(key, title, why, True))
            elif key == "down-histogram" and p.histogram_note:
                out.append(NotRun(key, title, p.histogram_note, True))
            elif key == "down-histogram" and not any(not r["down"] for r in p.report["routes"]["destinations"]):
                out.append(NotRun(key, title, "impact reports no destination that stays up with changed widths",
                                  True))
            elif key == "down-histogram" and p.aggregate:
                out.append(NotRun(key, title, "the changed destinations' prefixes reach the rail switches only "
                                  "inside a pod aggregate (compared as the aggregates' widths)", True))
            elif key == "down-blackhole" and p.aggregate_note:
                out.append(NotRun(key, title, p.aggregate_note, True))
            elif key == "down-ipv6" and not p.v6:
                out.append(NotRun(key, title, "IPv4-only fabric (routing.address_families)", True))
            elif key == "down-withdrawn" and not p.withdrawn:
                out.append(NotRun(key, title, "impact withdraws no prefix", True))
            elif key == "down-unreachable" and not any(0 in w.values() for w in p.widths.values()):
                out.append(NotRun(key, title, "impact leaves every prefix reachable from every rail switch", True))
            else:
                out.append(NotRun(key, title, "nothing to compare with impact's prediction", False))
        return out


def compare(spec: LabSpec, pred: Prediction, obs: dict[str, Observed], down_switches: frozenset[str]) -> dict[str,
                                                                                                            Check]:
    checks = {k: Check() for k, _t in DOWN_CATEGORIES}
    _compare_family(spec, pred, obs, down_switches, checks, lambda p: p, lambda o: o.routes)
    if pred.v6:
        v6 = checks["down-ipv6"]
        _compare_family(spec, pred, obs, down_switches, dict.fromkeys(checks, v6), pred.v6.get,
                        lambda o: o.routes_v6)
    return checks


def _compare_family(spec: LabSpec, pred: Prediction, obs: dict[str, Observed], down_switches: frozenset[str],
                    checks: dict[str, Check], name: Callable[[str], str | None],
                    table: Callable[[Observed], dict]) -> None:
    """Every comparison on one address family: `name` maps impact's IPv4 prefix to the family's (None: no twin,
    not compared), `table` picks the family's `show ... route json` of a switch."""
    ribs = {n: _bgp_rib(table(o)) for n, o in obs.items()}
    for x, want in sorted(pred.widths.items()):
        rib = ribs.get(x, {})
        for prefix4, w in sorted(want.items()):
            prefix = name(prefix4)
            if prefix is None:
                continue
            got = rib.get(prefix)
            if w:
                checks["down-widths"].ok(got == w, f"{x}: {prefix} " + (f"with {got} next-hop(s), impact {w}" if got
                                                                        else f"missing, impact {w} next-hop(s)"))
            else:
                checks["down-unreachable"].ok(prefix not in table(obs[x]),
                                              f"{x}: {prefix} present ({got or 0} BGP next-hop(s)), impact: "
                                              "unreachable")
    live = [n for n in spec.nodes if n not in down_switches]
    for prefix in filter(None, map(name, pred.withdrawn)):
        for n in live:
            checks["down-withdrawn"].ok(prefix not in table(obs[n]),
                                        f"{n}: {prefix} present ({ribs[n].get(prefix, 0)} BGP next-hop(s)), impact: "
                                        "withdrawn")
    for prefix4, who in sorted(pred.isolated_subnets.items()):
        prefix = name(prefix4)
        for n in live if prefix else ():
            checks["down-isolated"].ok(prefix not in table(obs[n]),
                                       f"{n}: {prefix} present, impact: isolated ({who})")
    for prefixes, unit, hist in pred.histograms:
        for prefix in filter(None, map(name, prefixes)):
            seen = Counter(str(ribs.get(x, {}).get(prefix, 0)) for x in pred.widths if x not in unit)
            hist_got = {k: v for k, v in sorted(seen.items(), key=lambda kv: int(kv[0]))}
            checks["down-histogram"].ok(hist_got == hist, f"{'+'.join(unit)}: {prefix} widths (width: rail "
                                                          f"switches) {_hist(hist_got)}, impact {_hist(hist)}")
    for y, mine4, s, aggs4, named in pred.blackholes:
        mine = [p for p in map(name, mine4) if p]
        aggs = [p for p in map(name, aggs4) if p]
        if not aggs:
            continue
        kept = [p for p in mine if p in table(obs[s])]
        via = sorted(n for n in live if n != s and _via(pred, n, table(obs[n]), aggs, s))
        holes = bool(via) and not kept
        said = (f"{s}: " + (f"holds {', '.join(kept)}" if kept else f"no route to {y}'s {', '.join(mine)}")
                + "; " + (f"{', '.join(aggs)} via {s} at {', '.join(via[:4])}" if via
                          else f"{', '.join(aggs)} via {s} nowhere")
                + f": {'blackholes' if holes else 'does not blackhole'} {y}, impact: "
                + ("blackholes" if named else "does not"))
        checks["down-blackhole"].ok(holes == named, said)


def _via(pred: Prediction, node: str, routes: dict, aggs: list[str], spine: str) -> bool:
    """`node` holds one of the aggregates `aggs` (selected BGP route) with an active FIB next hop to `spine`."""
    for agg in aggs:
        for e in routes.get(agg, ()):
            if e.get("protocol") != "bgp" or not e.get("selected"):
                continue
            for nh in e.get("nexthops", []):
                if not (nh.get("active") and nh.get("fib")):
                    continue
                if spine in (pred.peers.get((node, nh.get("ip", ""))), pred.peers.get((node, nh.get("interfaceName",
                                                                                                    "")))):
                    return True
    return False


def _hist(h: dict[str, int]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in h.items()) + "}"


def converge(spec: LabSpec, pred: Prediction, inst: Instances, pool: ThreadPoolExecutor, down_switches: frozenset[str],
             timeout: float, settle: float, min_wait: float,
             say: Callable[[str], None]) -> tuple[dict[str, Check], bool, float]:
    """Poll the live switches until the checks pass twice in a row, or the state stops changing, or `timeout`."""
    nodes = [spec.nodes[n] for n in spec.nodes if n not in down_switches]
    start = time.monotonic()
    last_fp: tuple | None = None
    changed = start
    passes = 0
    while True:
        obs = dict(zip((n.name for n in nodes), pool.map(lambda n: observe(n, inst.vtysh), nodes), strict=True))
        inst.check_alive()
        checks = compare(spec, pred, obs, down_switches)
        now = time.monotonic()
        fp = fingerprint(obs)
        if fp != last_fp:
            last_fp, changed = fp, now
        bad = sum(len(c.bad) for c in checks.values())
        passes = passes + 1 if bad == 0 else 0
        if passes >= 2 and now - start >= MIN_SECONDS:
            return checks, True, now - start
        if bad and now - changed >= settle and now - start >= min_wait:
            say(f"  after --down: no change for {now - changed:.0f}s with {bad} mismatch(es): judging this state")
            return checks, False, now - start
        if now - start >= timeout:
            say(f"  after --down: timeout after {timeout:.0f}s with {bad} mismatch(es): judging this state")
            return checks, False, now - start
        time.sleep(1.0)


def intro(run: DownRun) -> list[str]:
    p = run.prediction
    iso = p.report["isolated"]
    lines = [f"  --down {' '.join(run.names)}: " + "; ".join(f"{n} = {p.down.what[n]}" for n in p.down.names),
             f"  impact predicts: {iso['gpus']} GPU(s) isolated, {len(p.withdrawn)} prefix(es) withdrawn, "
             f"{len(p.report['routes']['unreachable_somewhere'])} unreachable from some rail switch, "
             f"{len(p.report['routes']['destinations'])} destination(s) with changed widths"
             + (f", {len(p.report['routes']['blackholing'])} destination group(s) blackholed by a spine under the pod "
                "aggregate"
                if p.report["routes"]["blackholing"] else "")]
    lines += [f"  down: {a}" for a in run.actions]
    lines += [f"  isolated, not checked: {what}" for what in p.isolated_elsewhere[:6]]
    return lines
