"""Maintenance waves: split a set of things to take down (`fabric impact --maintenance NAME ...`) into the fewest
waves, each taken down together, so that no wave costs more than its parts do one at a time.

What one item costs alone it costs in any wave (a single-homed NIC loses its rail whenever its rail switch is down:
that is listed per item as unavoidable, with its GPUs and jobs). A wave is refused when taking its items down
together costs more than that:
- a NIC loses its last path (every port down) that no single item of the wave takes alone: the two switches of an
  MLAG / ESI pair, or a dual-homed NIC's two ports, never go in the same wave;
- a host loses every NIC that no single item takes alone: a host that keeps one NIC still reaches the fabric (NCCL's
  PXN moves its rings over NVLink to that NIC), one that keeps none is cut off, and its job with it;
- a rail switch (in a pod with spines) that stays up loses its last uplink next hop, which no single item takes
  alone (all the spines of a pod, or all of a rail switch's links, in one wave).
With `--jobs`, the NIC and host rules apply to the jobs' hosts only: an idle host may lose anything.

The split is greedy: first fit over the items in the order given gives the number of waves k; then each item goes,
in the same order, to the admissible wave (of k) with the fewest items so far, so the waves come out balanced; when
that does not fit in k waves the first-fit split is kept. First fit is not optimal on every input (graph colouring
is NP-hard); `lower_bound` is 2 when all the items together are refused, 1 otherwise, and the result says when k
equals it (proven fewest).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from railfabric.checks.solver.paths import next_hops
from railfabric.impact.jobs import Job
from railfabric.impact.nics import gpus_per_nic
from railfabric.impact.targets import Down, Resolver
from railfabric.impact.uplinks import tier_members
from railfabric.inventory.intent import Inventory
from railfabric.topology import LinkRole, Role, Topology


@dataclass
class _Item:
    name: str
    down: Down
    host_links: set[str] = field(default_factory=set)  # host link ids it takes down
    hops: set[tuple[str, int]] = field(default_factory=set)  # (lower switch, next hop index) it touches
    nics_alone: set[tuple[str, int]] = field(default_factory=set)
    hosts_alone: set[str] = field(default_factory=set)
    cut_alone: set[str] = field(default_factory=set)  # rail switches it leaves without uplinks alone


class _Fabric:
    """The indexes the wave checks need, built once."""

    def __init__(self, inv: Inventory, topo: Topology, watched: set[str] | None) -> None:
        self.topo = topo
        self.nic_of: dict[str, tuple[str, int]] = {}
        self.ports: dict[tuple[str, int], int] = defaultdict(int)
        self.on_switch: dict[str, list[str]] = defaultdict(list)
        for link in topo.links:
            if link.role is LinkRole.HOST:
                key = (link.a.device, link.nic or 0)
                self.nic_of[link.id] = key
                self.ports[key] += 1
                self.on_switch[link.z.device].append(link.id)
        self.nics_of_host: dict[str, int] = defaultdict(int)
        for host, _n in self.ports:
            self.nics_of_host[host] += 1
        self.watched = watched  # hosts whose NICs count (None: all)
        self.hops = next_hops(inv, topo)
        tiers = tier_members(inv, topo)
        self.rail = {n for n, t in tiers.items() if t == Role.RAIL.value}
        self.hop_at: dict[str, list[tuple[str, int]]] = defaultdict(list)  # link id → (lower, hop index)
        self.under: dict[str, list[tuple[str, int]]] = defaultdict(list)  # upper switch → (lower, hop index)
        for lower in self.rail:
            for i, h in enumerate(self.hops.get(lower, [])):
                self.under[h.upper].append((lower, i))
                for lid in h.links:
                    self.hop_at[lid].append((lower, i))

    def item(self, name: str, down: Down) -> _Item:
        it = _Item(name, down)
        for sw in down.switches:
            it.host_links.update(self.on_switch.get(sw, ()))
            it.hops.update(self.under.get(sw, ()))
            it.hops.update((sw, i) for i in range(len(self.hops.get(sw, []))))
        for lid in down.links:
            if lid in self.nic_of:
                it.host_links.add(lid)
            it.hops.update(self.hop_at.get(lid, ()))
        it.nics_alone, it.hosts_alone = self.lost([it])
        it.cut_alone = self.cut([it])
        return it

    def lost(self, items: list[_Item]) -> tuple[set[tuple[str, int]], set[str]]:
        """(NICs with every port down, hosts with every NIC down) when `items` are down together (watched only)."""
        dead: dict[tuple[str, int], int] = defaultdict(int)
        seen: set[str] = set()
        for it in items:
            for lid in it.host_links:
                if lid not in seen:
                    seen.add(lid)
                    dead[self.nic_of[lid]] += 1
        nics = {k for k, c in dead.items() if c == self.ports[k] and (self.watched is None or k[0] in self.watched)}
        per_host: dict[str, int] = defaultdict(int)
        for h, _n in nics:
            per_host[h] += 1
        hosts = {h for h, c in per_host.items() if c == self.nics_of_host[h]}
        return nics, hosts

    def cut(self, items: list[_Item]) -> set[str]:
        """Rail switches still up that have no live uplink next hop when `items` are down together."""
        switches = {sw for it in items for sw in it.down.switches}
        links = {lid for it in items for lid in it.down.links}
        lowers = {lower for it in items for lower, _i in it.hops} - switches
        out = set()
        for lower in lowers:
            hops = self.hops.get(lower, [])
            if not hops:
                continue
            alive = 0
            for h in hops:
                if h.upper in switches:
                    continue
                live = sum(1 for lid in h.links if lid not in links)
                if live and live >= h.min_links:
                    alive += 1
            if not alive:
                out.add(lower)
        return out

    def admissible(self, items: list[_Item]) -> bool:
        nics, hosts = self.lost(items)
        if not nics <= set().union(*(it.nics_alone for it in items)):
            return False
        if not hosts <= set().union(*(it.hosts_alone for it in items)):
            return False
        return self.cut(items) <= set().union(*(it.cut_alone for it in items))


def _first_fit(fab: _Fabric, items: list[_Item]) -> list[list[_Item]]:
    waves: list[list[_Item]] = []
    for it in items:
        for w in waves:
            if fab.admissible([*w, it]):
                w.append(it)
                break
        else:
            waves.append([it])
    return waves


def _balanced(fab: _Fabric, items: list[_Item], k: int) -> list[list[_Item]] | None:
    waves: list[list[_Item]] = [[] for _ in range(k)]
    for it in items:
        fits = [w for w in waves if fab.admissible([*w, it])]
        if not fits:
            return None
        min(fits, key=len).append(it)  # min keeps the first of equal lengths
    return waves


def maintenance_waves(inv: Inventory, topo: Topology, names: list[str], jobs: list[Job] | None = None) -> dict:
    """The waves of `names` (UnknownNames from railfabric/impact/targets.py when a name is unknown)."""
    resolver = Resolver(topo, inv.switch_models)
    resolver.resolve(names)  # every unknown name at once
    watched = None if jobs is None else {h for j in jobs for h in j.hosts}
    fab = _Fabric(inv, topo, watched)
    items = [fab.item(n, resolver.resolve([n])) for n in dict.fromkeys(names)]
    first = _first_fit(fab, items)
    k = len(first)
    waves = _balanced(fab, items, k) if k > 1 else first
    method = "first fit, balanced" if waves is not None else "first fit"
    waves = waves if waves is not None else first
    lower = 1 if not items or fab.admissible(items) else 2
    return {"items": len(items), "waves": [_wave_row(fab, w, jobs) for w in waves], "count": len(waves),
            "lower_bound": lower, "proven_fewest": len(waves) == lower, "method": method,
            "unavoidable": [_unavoidable_row(fab, it, jobs) for it in items if it.nics_alone or it.cut_alone]}


def _gpus(fab: _Fabric, nics: set[tuple[str, int]]) -> int:
    hosts = fab.topo.hosts
    return sum(gpus_per_nic(hosts[h].gpus, hosts[h].nics) for h, _n in nics)


def _jobs_hit(nics: set[tuple[str, int]], jobs: list[Job] | None) -> list[str]:
    if jobs is None:
        return []
    hosts = {h for h, _n in nics}
    return [j.name for j in jobs if hosts.intersection(j.hosts)]


def _wave_row(fab: _Fabric, wave: list[_Item], jobs: list[Job] | None) -> dict:
    nics, hosts = fab.lost(wave)
    return {"down": [it.name for it in wave], "gpus_isolated": _gpus(fab, nics), "hosts_cut_off": len(hosts),
            "jobs_losing_gpus": _jobs_hit(nics, jobs)}


def _unavoidable_row(fab: _Fabric, it: _Item, jobs: list[Job] | None) -> dict:
    return {"item": it.name, "gpus_isolated": _gpus(fab, it.nics_alone), "rail_switches_cut_off": sorted(it.cut_alone),
            "jobs_losing_gpus": _jobs_hit(it.nics_alone, jobs)}
