"""Bisection bandwidth: a max-flow between two halves of the fabric on the switch graph (networkx).

The halves: with super-spines and two or more pods with spines, the pods (in id order) are cut where their host
bandwidth is most balanced; rail-only pods are left out (they have no path to any other pod by design). In a single
pod, its segments are cut the same way; in a single segment (or a rail-only pod), its hosts by host number.

The flow network: one node per switch, an undirected edge per cabled switch pair whose capacity is the sum of its
links' Gbps, a source feeding every switch with the Gbps of the host links of half A that land on it and a sink fed
by every switch with those of half B. The max-flow is what half A can send to half B at once. A non-blocking fabric
carries the whole of the smaller half's host bandwidth across (`full_gbps`, which is half the fabric's host bandwidth
when the halves are equal), divided by the oversubscription declared for the tiers the cut crosses (exactly, in
rationals: a max-flow at exactly the declared ratio is fine); less is BIS001 (warning), naming where the min cut
runs.

Identical switches are contracted first: switches of one role with the same neighbours at the same capacities and
the same host Gbps on each side are twins, and merging k twins into one node with k times their capacities keeps
the max-flow exact (any flow through the merged node splits evenly over the twins). Repeated to a fixed point, this
turns a 5,632-switch 65K-GPU fabric into about a thousand nodes.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction
from typing import TYPE_CHECKING

from railfabric.checks.rules.uses import Uses, host_model
from railfabric.checks.solver.capacity import exact
from railfabric.checks.solver.index import LinkIndex, link_index
from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.topology import Role, Topology

if TYPE_CHECKING:
    import networkx as nx

SOURCE = ("source",)
SINK = ("sink",)
_TIER = {Role.RAIL: 0, Role.SPINE: 1, Role.SUPER_SPINE: 2}


def _balanced(weights: list[int]) -> int:
    """Index k (1 ≤ k < n) that cuts the list into the two most equal sums; the first one on a tie."""
    total = sum(weights)
    best, best_k, run = None, 1, 0
    for k in range(1, len(weights)):
        run += weights[k - 1]
        gap = abs(2 * run - total)
        if best is None or gap < best:
            best, best_k = gap, k
    return best_k


def _ids(ids: list[int]) -> str:
    """[1, 2, 3, 5] → '1-3, 5'."""
    out: list[str] = []
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return ", ".join(out)


def _many(word: str, prefix: str, ids: list[int]) -> str:
    return f"{word}{'s' if len(ids) > 1 else ''} {prefix}{_ids(ids)}"


def _halves(inv: Inventory, topo: Topology, host_gbps: dict[str, int]) -> tuple[str, dict[str, int], str, str,
                                                                                 list[int]]:
    """(split kind, host → 0 (half A) / 1 (half B), text of A, text of B, pods left out)."""
    pod_gbps: dict[int, int] = defaultdict(int)
    seg_gbps: dict[tuple[int, int], int] = defaultdict(int)
    for name, gbps in host_gbps.items():
        h = topo.hosts[name]
        pod_gbps[h.pod] += gbps
        seg_gbps[(h.pod, h.segment)] += gbps
    all_pods = sorted(pod_gbps)
    with_spines = [p for p in all_pods if any(x.id == p and x.spines for x in inv.pods)]
    if inv.super_spines is not None and len(with_spines) >= 2:
        k = _balanced([pod_gbps[p] for p in with_spines])
        a, b = with_spines[:k], with_spines[k:]
        side = {n: (0 if topo.hosts[n].pod in a else 1) for n in host_gbps if topo.hosts[n].pod in with_spines}
        return ("pod", side, _many("pod", "", a), _many("pod", "", b),
                [p for p in all_pods if p not in with_spines])
    if not all_pods:
        return "none", {}, "", "", []
    pod = with_spines[0] if with_spines else all_pods[0]
    left_out = [p for p in all_pods if p != pod]
    segs = sorted(s for (p, s) in seg_gbps if p == pod)
    if len(segs) >= 2 and pod in with_spines:
        k = _balanced([seg_gbps[(pod, s)] for s in segs])
        a_s = set(segs[:k])
        side = {n: (0 if topo.hosts[n].segment in a_s else 1) for n in host_gbps if topo.hosts[n].pod == pod}
        return ("segment", side, _many("segment", f"{pod}/", segs[:k]), _many("segment", f"{pod}/", segs[k:]),
                left_out)
    seg = segs[0]
    hosts = sorted((n for n in host_gbps if (topo.hosts[n].pod, topo.hosts[n].segment) == (pod, seg)),
                   key=lambda n: topo.hosts[n].number)
    if len(hosts) < 2:
        return "none", {}, "", "", left_out
    k = _balanced([host_gbps[n] for n in hosts])
    side = {n: (0 if i < k else 1) for i, n in enumerate(hosts)}
    a_txt = f"hosts {hosts[0]} … {hosts[k - 1]}" if k > 1 else f"host {hosts[0]}"
    b_txt = f"hosts {hosts[k]} … {hosts[-1]}" if len(hosts) - k > 1 else f"host {hosts[-1]}"
    return "host", side, f"{a_txt} (segment {pod}/{seg})", b_txt, left_out


def contract(nbr: dict[str, dict[str, int]], s_cap: dict[str, int], t_cap: dict[str, int],
              role: dict[str, Role]) -> None:
    """Merge twins (same role, same neighbours at the same capacities, same source and sink capacity) in place."""
    while True:
        groups: dict[tuple, list[str]] = defaultdict(list)
        for n, adj in nbr.items():
            groups[(role[n], s_cap.get(n, 0), t_cap.get(n, 0), frozenset(adj.items()))].append(n)
        merged = False
        for members in groups.values():
            if len(members) < 2:
                continue
            merged = True
            keep, k = members[0], len(members)
            gone = members[1:]
            for w, c in list(nbr[keep].items()):
                adj = nbr[w]
                for m in members:
                    del adj[m]
                adj[keep] = c * k
                nbr[keep][w] = c * k
            for m in gone:
                del nbr[m]
                s_cap.pop(m, None)
                t_cap.pop(m, None)
            if keep in s_cap:
                s_cap[keep] *= k
            if keep in t_cap:
                t_cap[keep] *= k
        if not merged:
            return


def flow_network(topo: Topology, side: dict[str, int], index: LinkIndex | None = None) \
        -> tuple[dict[str, dict[str, int]], dict[str, int], dict[str, int]]:
    """(switch → neighbour → Gbps, source Gbps per switch, sink Gbps per switch) for hosts split by `side`.

    The host links are counted per (half, switch, Gbps) first (in C, keys in order of first appearance, so the
    dicts fill in link order, as a walk link by link would)."""
    ix = index or link_index(topo)
    nbr: dict[str, dict[str, int]] = {name: {} for name in topo.switches}
    s_cap: dict[str, int] = defaultdict(int)
    t_cap: dict[str, int] = defaultdict(int)
    for (half, z, speed), links in Counter(zip(map(side.get, ix.host_a), ix.host_z, ix.host_a_speed,
                                                strict=True)).items():
        if half == 0:
            s_cap[z] += speed * links
        elif half == 1:
            t_cap[z] += speed * links
    for a, z, speed in zip(ix.up_a, ix.up_z, ix.up_a_speed, strict=True):  # (about one link per switch pair)
        na, nz = nbr[a], nbr[z]
        na[z] = na.get(z, 0) + speed
        nz[a] = nz.get(a, 0) + speed
    for n in [n for n, adj in nbr.items() if not adj and not s_cap.get(n) and not t_cap.get(n)]:
        del nbr[n]
    return nbr, {n: c for n, c in s_cap.items() if c and n in nbr}, {n: c for n, c in t_cap.items() if c and n in nbr}


def max_flow(nbr: dict[str, dict[str, int]], s_cap: dict[str, int], t_cap: dict[str, int]) -> tuple[int, set,
                                                                                                    nx.DiGraph]:
    """Max-flow value, the source side of a min cut, and the networkx graph."""
    import networkx as nx  # here, not at module level: importing networkx costs 0.2 s that only the solver needs
    graph: nx.DiGraph[str | tuple[str]] = nx.DiGraph()
    for u, adj in nbr.items():
        for v, c in adj.items():
            graph.add_edge(u, v, capacity=c)
    for n, c in s_cap.items():
        graph.add_edge(SOURCE, n, capacity=c)
    for n, c in t_cap.items():
        graph.add_edge(n, SINK, capacity=c)
    if SOURCE not in graph or SINK not in graph:
        return 0, {SOURCE}, graph
    flow, (reach, _rest) = nx.minimum_cut(graph, SOURCE, SINK)
    return int(flow), set(reach), graph


def allowance(inv: Inventory, kind: str) -> Fraction:
    """The oversubscription the operator accepted across a cut of this kind, exactly: a cut between segments
    crosses the rail tier's uplinks, a cut between pods the rail and the spine tiers' (their ratios multiply)."""
    over = inv.solver.oversubscription
    rail = exact(over.rail)
    return rail * exact(over.spine) if kind == "pod" else rail


def check_bisection(inv: Inventory, topo: Topology, src: SourceMap,
                    index: LinkIndex | None = None) -> tuple[dict, list[Finding]]:
    ix = index or link_index(topo)
    host_gbps: dict[str, int] = defaultdict(int)  # hosts in link order
    for (name, speed), n in Counter(zip(ix.host_a, ix.host_a_speed, strict=True)).items():
        host_gbps[name] += speed * n
    kind, side, a_txt, b_txt, left_out = _halves(inv, topo, host_gbps)
    if kind == "none":
        return {"split": None}, []
    a_gbps = sum(g for n, g in host_gbps.items() if side.get(n) == 0)
    b_gbps = sum(g for n, g in host_gbps.items() if side.get(n) == 1)

    nbr, s_cap, t_cap = flow_network(topo, side, ix)
    role = {n: topo.switches[n].role for n in nbr}
    contract(nbr, s_cap, t_cap, role)
    flow, reach, graph = max_flow(nbr, s_cap, t_cap)

    # where the min cut runs: Gbps per kind of edge leaving the source side
    cut: dict[str, int] = defaultdict(int)
    cut_edges: list[tuple[int, str, str]] = []
    for u in reach:
        for v, data in graph.adj.get(u, {}).items():
            if v in reach:
                continue
            if u == SOURCE or v == SINK:
                cut["host"] += data["capacity"]
                continue
            lo, hi = sorted((u, v), key=lambda n: _TIER[role[n]])
            what = "fabric" if role[lo] is Role.RAIL else "core"
            cut[what] += data["capacity"]
            cut_edges.append((_TIER[role[lo]], lo, hi))
    full = min(a_gbps, b_gbps)
    allowed = allowance(inv, kind)
    floor = full / allowed  # the least max-flow the declared oversubscription accepts (exact)
    report = {
        "split": kind, "a": a_txt, "b": b_txt, "left_out_pods": left_out,
        "a_host_gbps": a_gbps, "b_host_gbps": b_gbps, "half_host_gbps": (a_gbps + b_gbps) // 2,
        "full_gbps": full, "max_flow_gbps": flow, "ratio": round(flow / full, 4) if full else None,
        "min_cut_gbps": dict(sorted(cut.items())), "allowed_ratio": float(allowed),
        "floor_gbps": round(float(floor), 3),
        "graph": {"switches": len(topo.switches), "nodes": graph.number_of_nodes(), "edges": graph.number_of_edges()},
    }
    findings: list[Finding] = []
    if flow < floor:
        where = None
        if cut_edges:
            _t, lo, hi = min(cut_edges)
            spine = lo if role[lo] is Role.SPINE else hi
            where = src.loc(topo.switches[spine].src)
        if where is None:
            where = src.loc(("pods",))
        cut_txt = ", ".join(f"{k} links {v:,} Gbps" for k, v in sorted(cut.items()) if k != "host") or \
            "nothing: the halves are not connected"
        findings.append(Finding(
            "BIS001", f"bisection between {a_txt} and {b_txt}: max-flow {flow:,} Gbps is below {full:,} Gbps, the "
            f"host bandwidth of the smaller half ({round(100 * flow / full, 1):g}%; half the fabric's host bandwidth "
            f"is {(a_gbps + b_gbps) // 2:,} Gbps)"
            + (f", and below {float(floor):,.0f} Gbps, what the declared oversubscription ({float(allowed):g}:1) "
               "accepts" if allowed != 1 else "")
            + f"; the min cut runs through {cut_txt}",
            where, "a non-blocking fabric carries what the hosts of the smaller half can send; add links or speed "
            "at the tier the cut runs through (CAP001 names the oversubscribed switches)", Severity.WARNING,
            uses=_bisection_uses(inv, topo, cut_edges, role)))
    return report, findings


def _bisection_uses(inv: Inventory, topo: Topology, cut_edges: list, role: dict) -> tuple:
    """What BIS001 is derived from: every host model (the hosts' bandwidth) and the switches of its cut."""
    uses = Uses(inv, topo)
    out: list = list(dict.fromkeys(host_model(h.model) for h in topo.hosts.values()))
    for _t, lo, hi in sorted(cut_edges)[:1]:
        out += uses.devices(lo, hi)
    return tuple(dict.fromkeys(out))
