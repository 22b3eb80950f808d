"""Reachability: which hosts can reach which at all, as islands of the cabled fabric.

The graph: every switch and host, an edge per cable (host links included), so a host joins the rail switches of its
own NICs: traffic moves between a host's rails inside the host (NVLink, PXN), which is how a rail-only segment works.
Each connected component holding hosts is an island; two hosts in different islands cannot exchange a packet.
Union-find, linear in links.

A rail-only pod (no spines) is its own island by design. Two or more islands inside one pod are REACH001 (warning):
the pod's segments look like one cluster but a job cannot span them (a rail-only pod with several segments, whose
rail switches have nothing above them).
"""

from __future__ import annotations

from collections import defaultdict

from railfabric.checks.solver.index import LinkIndex, link_index
from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.topology import Topology


def _find(parent: dict[str, str], x: str) -> str:
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:  # path compression
        parent[x], x = root, parent[x]
    return root


def islands(topo: Topology, index: LinkIndex | None = None) -> list[list[tuple[int, int]]]:
    """The (pod, segment) pairs of each island that holds hosts, islands in (pod, segment) order."""
    ix = index or link_index(topo)
    parent: dict[str, str] = {n: n for n in topo.switches}
    parent.update((h, h) for h in topo.hosts)
    # components do not depend on the order of the links
    for a, z in zip(ix.host_a + ix.up_a, ix.host_z + ix.up_z, strict=True):
        if parent[a] != a:
            a = _find(parent, a)
        if parent[z] != z:
            z = _find(parent, z)
        if a != z:
            parent[a] = z
    groups: dict[str, set[tuple[int, int]]] = defaultdict(set)
    for name, host in topo.hosts.items():
        groups[_find(parent, name)].add((host.pod, host.segment))
    return sorted((sorted(g) for g in groups.values()), key=lambda g: g[0])


def _island_text(segs: list[tuple[int, int]]) -> str:
    by_pod: dict[int, list[int]] = defaultdict(list)
    for pod, seg in segs:
        by_pod[pod].append(seg)
    return "; ".join(f"pod {pod} segment{'s' if len(s) > 1 else ''} {', '.join(map(str, s))}"
                     for pod, s in sorted(by_pod.items()))


def check_reach(inv: Inventory, topo: Topology, src: SourceMap,
                index: LinkIndex | None = None) -> tuple[dict, list[Finding]]:
    found = islands(topo, index)
    report = {"islands": [{"segments": [f"{p}/{s}" for p, s in segs], "text": _island_text(segs)}
                          for segs in found]}
    per_pod: dict[int, list[list[int]]] = defaultdict(list)
    for segs in found:
        for pod_id in sorted({p for p, _s in segs}):
            per_pod[pod_id].append([s for p, s in segs if p == pod_id])
    findings = []
    for pi, pod in enumerate(inv.pods):
        parts = per_pod.get(pod.id, [])
        if len(parts) < 2:
            continue
        groups = " | ".join(", ".join(f"{pod.id}/{s}" for s in part) for part in parts)
        why = "the pod has no spines (rail-only), so a host reaches only the hosts of its own segment" \
            if pod.spines is None else "no cabled path joins them"
        findings.append(Finding(
            "REACH001", f"pod {pod.id}: its segments form {len(parts)} islands that cannot reach each other at all "
            f"({groups}): {why}; a job cannot span them", src.loc(("pods", pi)),
            "add spines to the pod to join its segments, or declare each segment as a pod of its own if they are "
            "separate clusters" if pod.spines is None else "check the pod's spines and uplinks", Severity.WARNING))
    return report, findings
