"""The forwarding tables the subnet manager programmed, read with `dump_fts` (infiniband-diags 44.0), and what the
plan promises of them: every HCA pair routable, paths up then down only (the fat tree's credit-loop freedom), HCAs
on the same leaf (the same rail) routed within that leaf, and each leaf's destinations spread evenly over its
uplinks (count per uplink).

dump_fts prints, per switch: `Unicast lids [..] of switch DR path ... guid 0x<node guid> (<node description>):`
then `0x<lid> <out port> : (Channel Adapter|Switch portguid 0x<port guid>: '<node description>')` per LID
(dump_fts(8); the same lines on ibsim and on hardware).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from railfabric.infiniband.model import End, Hca, IbFabric, Tier
from railfabric.infiniband.netfile import peers

_SWITCH = re.compile(r"^Unicast lids .* guid 0x([0-9a-fA-F]+) \((.*)\):\s*$")
_ENTRY = re.compile(r"^0x([0-9a-fA-F]+) (\d+) : \((Channel Adapter|Switch) portguid 0x([0-9a-fA-F]+): '(.*)'\)")
MAX_HOPS = 16
_RANK = {Tier.LEAF: 0, Tier.SPINE: 1, Tier.CORE: 2}


@dataclass(frozen=True, slots=True)
class Tables:
    lft: dict[int, dict[int, int]]  # switch node GUID → LID → out port
    lids: dict[int, int]  # port GUID → LID (every destination the tables name)


def parse_dump_fts(text: str) -> Tables:
    lft: dict[int, dict[int, int]] = {}
    lids: dict[int, int] = {}
    current: dict[int, int] | None = None
    for line in text.splitlines():
        if m := _SWITCH.match(line):
            current = lft.setdefault(int(m.group(1), 16), {})
        elif (m := _ENTRY.match(line)) and current is not None:
            lid = int(m.group(1), 16)
            current[lid] = int(m.group(2))
            lids[int(m.group(4), 16)] = lid
    return Tables(lft, lids)


@dataclass(frozen=True, slots=True)
class RouteCheck:
    name: str
    ok: bool
    detail: str


def check_routes(fab: IbFabric, node_guids: dict[str, int], port_guids: dict[str, int],
                 tables: Tables) -> list[RouteCheck]:
    """The four promises, each with what was measured."""
    lft = {name: tables.lft.get(guid, {}) for name, guid in node_guids.items()}
    lid = {h.name: tables.lids.get(port_guids[h.name]) for h in fab.hcas}
    link = peers(fab)
    paths = {(s.name, d.name): _trace(fab, link, lft, lid, s, d) for s in fab.hcas for d in fab.hcas if s != d}
    broken = sorted(f"{s} -> {d}: {p}" for (s, d), p in paths.items() if isinstance(p, str))
    ok_paths = {k: p for k, p in paths.items() if not isinstance(p, str)}
    valleys = sorted(f"{s} -> {d} via {' '.join(p)}" for (s, d), p in ok_paths.items() if not _up_down(fab, p))
    leaf_of = {h.name: link[h.name][1].node for h in fab.hcas}
    strays = sorted(f"{s} -> {d} via {' '.join(p)}" for (s, d), p in ok_paths.items()
                    if leaf_of[s] == leaf_of[d] and p != [leaf_of[s]])
    spread_ok, spread_text = _spread(fab, lft, lid, leaf_of)
    n = len(paths)
    return [
        RouteCheck("routable", not broken, f"{n - len(broken)} of {n} HCA pairs routed"
                   + (f"; {len(broken)} not: {'; '.join(broken[:4])}" if broken else "")),
        RouteCheck("up-down", not valleys, f"{len(ok_paths) - len(valleys)} of {len(ok_paths)} paths go up then down"
                   + (f"; not: {'; '.join(valleys[:4])}" if valleys else "")),
        RouteCheck("rail-local", not strays, "HCA pairs on one leaf stay on it"
                   + (f"; not: {'; '.join(strays[:4])}" if strays else "")),
        RouteCheck("spread", spread_ok, spread_text),
    ]


def _trace(fab: IbFabric, link: dict[str, dict[int, End]], lft: dict[str, dict[int, int]],
           lid: dict[str, int | None], src: Hca, dst: Hca) -> list[str] | str:
    """The switches from src to dst following the tables, or why not."""
    target = lid[dst.name]
    if target is None:
        return f"{dst.name} has no LID in the tables"
    here = link[src.name].get(1)
    path: list[str] = []
    while here is not None and len(path) < MAX_HOPS:
        if here.node == dst.name:
            return path
        if fab.tier_of(here.node) is None:
            return f"reaches {here.node} instead"
        path.append(here.node)
        out = lft.get(here.node, {}).get(target)
        if out is None or out == 0:
            return f"{here.node} has no route to LID {target:#x}"
        here = link[here.node].get(out)
    return "no link" if here is None else f"loops ({' '.join(path[:6])} ...)"


def _up_down(fab: IbFabric, path: list[str]) -> bool:
    ranks = [_RANK[t] for t in (fab.tier_of(n) for n in path) if t is not None]
    top = ranks.index(max(ranks))
    return ranks[: top + 1] == sorted(ranks[: top + 1]) and ranks[top:] == sorted(ranks[top:], reverse=True)


def _spread(fab: IbFabric, lft: dict[str, dict[int, int]], lid: dict[str, int | None],
            leaf_of: dict[str, str]) -> tuple[bool, str]:
    """Per leaf: how many remote HCAs (not on that leaf) leave by each uplink port. Even: every uplink port used, the
    counts differ by at most one. Shown per uplink switch (the sum over its ports) with the per-port range."""
    link = peers(fab)
    ok = True
    parts: list[str] = []
    for leaf in (s.name for s in fab.switches if s.tier is Tier.LEAF):
        uplinks = {p: far.node for p, far in sorted(link[leaf].items()) if fab.tier_of(far.node) is not None}
        per_port: Counter[int] = Counter({p: 0 for p in uplinks})
        stray = 0  # remote destinations sent down or nowhere
        for h in fab.hcas:
            target = lid[h.name]
            if leaf_of[h.name] == leaf or target is None:
                continue
            out = lft.get(leaf, {}).get(target)
            if out in uplinks:
                per_port[out] += 1
            else:
                stray += 1
        values = list(per_port.values())
        even = bool(values) and not stray and min(values) > 0 and max(values) - min(values) <= 1
        ok = ok and even
        per_switch: Counter[str] = Counter()
        for port, n in per_port.items():
            per_switch[uplinks[port]] += n
        shown = ", ".join(f"{sw} {n}" for sw, n in per_switch.items())
        parts.append(f"{leaf}: {shown} ({min(values, default=0)}-{max(values, default=0)} per uplink port"
                     + (f", {stray} not up" if stray else "") + ")" + ("" if even else " UNEVEN"))
    return ok, "; ".join(parts)
