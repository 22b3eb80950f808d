"""Routes after a failure: prefixes that become unreachable, pod aggregates that blackhole, ECMP widths.

The routing model is the plan's eBGP Clos (RFC 7938): a rail switch originates its rail subnets (and, serving
several rails, their aggregate); the spines of a pod share one ASN and the super-spines another, so BGP's AS-path
loop check keeps every path valley-free: up to a spine (and a super-spine), then down. Hence, with `down` applied:
- a spine S has a route to rail switch Y's prefixes when Y is in S's pod and Y keeps a live next hop to S;
- a super-spine T has one when some spine of Y's pod with that route keeps a live next hop to T;
- rail switch X reaches Y's prefixes over each of its live next hops (a routed link or an L3 port-channel not under
  min-links, railfabric/impact/uplinks.py) to a spine S that has the route (same pod), or that keeps a live next
  hop to a super-spine with the route (other pod). The count, capped at routing.ecmp.width (maximum-paths), is the
  ECMP width X installs for Y's prefixes; 0 is unreachable.
With `routing.spine_pod_aggregate` the spines advertise their pod's rail block as one summary-only aggregate
(railfabric/checks/solver/failures.py, SUM001; the one predicate both use is in
railfabric/checks/solver/after_failure.py): a spine keeps advertising it while it has any route inside it, so a
spine that lost its routes to Y but not the aggregate attracts part of the traffic for Y and drops it (RFC 7938
§8.2). Those spines are listed per Y as `blackholing`. Summary-only suppresses Y's own prefixes at every spine, so
the rail switches of Y's pod and of other pods alike route Y's prefixes by the aggregate: a rail switch of Y's pod
installs one path per live next hop to a spine that advertises the aggregate, blackholing spines included.

Only what changed is reported: per rail switch Y whose routes changed, its prefixes, how many rail switches lost
them, and the ECMP widths the rail switches install for them (a histogram, width → rail switches, before and after).
Rail switches are grouped by what decides a width (their pod and live next hops; for destinations their pod,
spines and super-spines), so the work is per group, not per pair of the 4,096 rail switches of a 65,536-GPU fabric.
"""

from __future__ import annotations

from collections import defaultdict

from railfabric.checks.solver.after_failure import blackholes
from railfabric.checks.solver.paths import NextHop, next_hops
from railfabric.impact.targets import Down
from railfabric.impact.uplinks import hop_after, tier_members, touched_lowers
from railfabric.inventory.intent import Inventory
from railfabric.plan.allocate import Plan
from railfabric.topology import Role, Topology


class Routes:
    """The reach structures of the fabric after `down` (Down() for the intact fabric)."""

    def __init__(self, inv: Inventory, topo: Topology, down: Down, hops: dict[str, list[NextHop]],
                 intact: Routes | None = None, touched: set[str] | None = None) -> None:
        """`intact` and `touched` (the switches whose next hops `down` can change): the others' live next hops are
        the intact fabric's."""
        self.width_cap = inv.routing.ecmp.width
        self.aggregate = inv.routing.spine_pod_aggregate
        tiers = tier_members(inv, topo)
        self.rail = [n for n, t in tiers.items() if t == Role.RAIL.value and n not in down.switches]
        self.pod = {n: topo.switches[n].pod or 0 for n in topo.switches}
        # live next hops (upper switches, one per next hop) of every live switch of a tier
        self.up: dict[str, tuple[str, ...]] = {}
        for name in tiers:
            if name in down.switches:
                continue
            if intact is not None and touched is not None and name not in touched:
                self.up[name] = intact.up[name]
            else:
                self.up[name] = tuple(sorted(h.upper for h in hops.get(name, []) if hop_after(h, down)))
        spines = [n for n, t in tiers.items() if t == Role.SPINE.value and n not in down.switches]
        self.spine_supers = {s: frozenset(self.up.get(s, ())) for s in spines}
        self.spine_down: dict[str, set[str]] = defaultdict(set)  # spine → rail switches it has a route to
        for y in self.rail:
            for s in self.up[y]:
                self.spine_down[s].add(y)
        self._supers: dict[tuple[int, frozenset[str]], frozenset[str]] = {}
        self.pod_spines: dict[int, list[str]] = defaultdict(list)
        for s, sw in topo.switches.items():
            if sw.role is Role.SPINE and s not in down.switches:
                self.pod_spines[sw.pod or 0].append(s)

    def spines_of(self, origins: tuple[str, ...]) -> frozenset[str]:
        """The spines with a route to the prefixes of `origins` (one rail switch, or an MLAG pair: both originate
        the pair's rail subnets)."""
        return frozenset(s for y in origins for s in self.up.get(y, ()))

    def supers_of(self, origins: tuple[str, ...], spines: frozenset[str]) -> frozenset[str]:
        """The super-spines with a route to them (with pod aggregates: to their pod's aggregate)."""
        pod = self.pod[origins[0]]
        key = (pod, frozenset()) if self.aggregate else (pod, spines)
        known = self._supers.get(key)
        if known is not None:
            return known
        if self.aggregate:
            spines = frozenset(s for s in self.pod_spines[pod] if self.spine_down.get(s))
        out: set[str] = set()
        for s in spines:
            out |= self.spine_supers.get(s, frozenset())
        known = self._supers[key] = frozenset(out)
        return known

    def dest_sig(self, origins: tuple[str, ...]) -> tuple | None:
        """What decides the widths toward the prefixes of `origins`; None when none of them is up."""
        if not any(y in self.up for y in origins):
            return None
        spines = self.spines_of(origins)
        return (self.pod[origins[0]], spines, self.supers_of(origins, spines))

    def src_sig(self, x: str) -> tuple:
        return (self.pod[x], self.up.get(x, ()))

    def width(self, src: tuple, dest: tuple) -> int:
        pod_x, ups = src
        pod_y, spines, supers = dest
        if pod_x == pod_y and self.aggregate:  # summary-only: the pod's rail switches see only the aggregate
            n = sum(1 for s in ups if self.spine_down.get(s))
        elif pod_x == pod_y:
            n = sum(1 for s in ups if s in spines)
        else:
            n = sum(1 for s in ups if self.spine_supers.get(s, frozenset()) & supers)
        return min(n, self.width_cap)

    def blackholing(self, origins: tuple[str, ...]) -> list[str]:
        """Spines of the origins' pod that advertise the pod aggregate but have no route to their prefixes (with
        pod aggregates only; the solver's SUM001 reasoning, railfabric/checks/solver/after_failure.py)."""
        if not self.aggregate or not any(y in self.up for y in origins):
            return []
        mine = self.spines_of(origins)
        return sorted(s for s in self.pod_spines[self.pod[origins[0]]]
                      if blackholes(self.aggregate, s in mine, bool(self.spine_down.get(s))))


def _origins(rail: list[str], plan: Plan) -> dict[tuple[str, ...], list[str]]:
    """The rail switches that originate the same prefixes (one switch, or an MLAG pair) → those prefixes, in the
    order of `rail`."""
    by_prefix: dict[str, list[str]] = defaultdict(list)
    mine: dict[str, list[str]] = defaultdict(list)
    for (sw, _rail), sub in sorted(plan.rail_subnets.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        by_prefix[str(sub.prefix)].append(sw)
        mine[sw].append(str(sub.prefix))
    for sw, agg in plan.aggregates.items():
        by_prefix[str(agg)].append(sw)
        mine[sw].append(str(agg))
    order = {n: i for i, n in enumerate(rail)}
    out: dict[tuple[str, ...], list[str]] = {}
    for sw in rail:
        first = mine.get(sw)
        key = tuple(sorted(by_prefix[first[0]], key=lambda n: order.get(n, -1))) if first else (sw,)
        if key not in out:
            out[key] = list(dict.fromkeys(p for y in key for p in mine.get(y, [])))
    return out


_cache: list = []  # [topology, inventory, the intact fabric's Routes]


def _intact(inv: Inventory, topo: Topology, hops: dict[str, list[NextHop]]) -> Routes:
    if not (_cache and _cache[0] is topo and _cache[1] is inv):
        _cache[:] = [topo, inv, Routes(inv, topo, Down(), hops)]
    return _cache[2]


class _Widths:
    """Signatures interned as numbers (so the per-pair work hashes small tuples of ints) and the widths computed
    per (fabric, source signature, destination signature) once."""

    def __init__(self, before: Routes, after: Routes) -> None:
        self.routes = (before, after)
        self.ids: dict[tuple, int] = {}
        self.sig_of: dict[int, tuple] = {}
        self.known: dict[tuple[int, int, int], int] = {}

    def intern(self, sig: tuple | None) -> int:
        if sig is None:
            return -1
        n = self.ids.setdefault(sig, len(self.ids))
        self.sig_of[n] = sig
        return n

    def width(self, i: int, src: int, dest: int) -> int:
        """The width in fabric i (0 intact, 1 after) from source signature `src` toward destination `dest`."""
        if dest < 0:
            return 0
        key = (i, src, dest)
        w = self.known.get(key)
        if w is None:
            w = self.known[key] = self.routes[i].width(self.sig_of[src], self.sig_of[dest])
        return w

    def sources(self, down: Down) -> tuple[dict[tuple[int, int], list[str]], dict[str, tuple[int, int]]]:
        """The live rail switches of a tier grouped by what decides their widths before and after, and each one's
        group."""
        before, after = self.routes
        groups: dict[tuple[int, int], list[str]] = defaultdict(list)
        key_of: dict[str, tuple[int, int]] = {}
        for x in before.rail:
            if x not in down.switches:
                key = key_of[x] = (self.intern(before.src_sig(x)), self.intern(after.src_sig(x)))
                groups[key].append(x)
        return groups, key_of


def routes_section(inv: Inventory, topo: Topology, plan: Plan, down: Down) -> dict:
    """Withdrawn prefixes, and per group of rail switches whose prefixes' routes changed: the widths the other rail
    switches install for them before and after, how many lost them, and the spines that blackhole them."""
    hops = next_hops(inv, topo)
    before = _intact(inv, topo, hops)
    after = Routes(inv, topo, down, hops, before, touched_lowers(topo, down))
    units = _origins(before.rail, plan)
    w = _Widths(before, after)
    src_groups, src_key = w.sources(down)
    # per pair of destination signatures (before, after): the widths every source group installs
    base: dict[tuple[int, int], list[tuple[tuple[int, int], int, int]]] = {}
    rows: dict[tuple, dict] = {}
    for unit, prefixes in units.items():
        db, da = w.intern(before.dest_sig(unit)), w.intern(after.dest_sig(unit))
        if db < 0:
            continue
        per_group = base.get((db, da))
        if per_group is None:
            per_group = base[(db, da)] = [(key, w.width(0, key[0], db), w.width(1, key[1], da))
                                          for key in src_groups]
        holes = tuple(after.blackholing(unit)) if da >= 0 else ()
        row = _dest_row(unit, per_group, src_groups, src_key, da < 0, bool(holes))
        if row is None:
            continue
        sig = (row["down"], row["unreachable_from"], tuple(row["unreachable_from_first"]),
               tuple(row["widths_before"].items()), tuple(row["widths_after"].items()), holes)
        merged = rows.get(sig)
        if merged is None:
            merged = rows[sig] = {"rail_switches": [], "prefixes": [], **row}
            if holes:
                merged["blackholing"] = list(holes)
        merged["rail_switches"] += unit
        merged["prefixes"] += prefixes
    out = list(rows.values())
    gone = [p for r in out if r["down"] for p in r["prefixes"]]
    cut = [p for r in out if r["unreachable_from"] and not r["down"] for p in r["prefixes"]]
    return {"withdrawn": gone, "unreachable_somewhere": cut, "destinations": out,
            "blackholing": [{"rail_switches": r["rail_switches"], "spines": r["blackholing"]}
                            for r in out if r.get("blackholing")]}


def _histogram_of(h: dict[int, int]) -> dict[str, int]:
    return {str(k): v for k, v in sorted(h.items()) if v}


def _dest_row(unit: tuple[str, ...], per_group: list[tuple[tuple[int, int], int, int]],
              src_groups: dict[tuple[int, int], list[str]], src_key: dict[str, tuple[int, int]],
              down: bool, holes: bool = False) -> dict | None:
    """The widths toward one destination at every other live rail switch before and after (None: unchanged and not
    blackholed: under the pod aggregate a blackhole leaves every width as it was)."""
    wb: dict[int, int] = defaultdict(int)
    wa: dict[int, int] = defaultdict(int)
    lost_n = 0
    lost: list[str] = []
    mine = {src_key[y] for y in unit if y in src_key}
    for key, b, a in per_group:
        members = src_groups[key]
        n = len(members) - (sum(1 for y in unit if src_key.get(y) == key) if key in mine else 0)
        if not n:
            continue
        wb[b] += n
        wa[a] += n
        if b and not a:
            lost_n += n
            if len(lost) < 8:
                lost += [x for x in members[: 8 + len(unit)] if x not in unit][: 8 - len(lost)]
    if wb == wa and not down and not holes:
        return None
    return {"down": down, "unreachable_from": lost_n, "unreachable_from_first": lost,
            "widths_before": _histogram_of(wb), "widths_after": _histogram_of(wa)}
