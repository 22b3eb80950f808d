"""What a finding was derived from: the inventory objects (data paths) whose facts a rule used, most likely cause
first, for Finding.uses (root cause first: railfabric.core.causes). A switch's findings use its model and the object
that declares it; a rail switch's also the host models of its segment (their NIC speed and count decide its host
ports) and its pod's spine block (the uplink speed); a link's use both ends'.
"""

from __future__ import annotations

from typing import Any

from railfabric.inventory.intent import Inventory
from railfabric.topology import Link, LinkRole, Role, Switch, Topology

Obj = tuple[Any, ...]


def host_model(name: str) -> Obj:
    return ("host_models", name)


def switch_model(name: str) -> Obj:
    return ("switch_models", name)


def pool(name: str) -> Obj:
    return ("pools", name)


def segment_host_models(inv: Inventory, seg_path: tuple) -> tuple[Obj, ...]:
    """The host models of the segment at `seg_path` (("pods", pi, "segments", si)), in group order."""
    try:
        seg = inv.pods[seg_path[1]].segments[seg_path[3]]
    except (IndexError, TypeError):
        return ()
    return tuple(dict.fromkeys(host_model(g.model) for g in seg.host_groups))


class Uses:
    """The objects each switch and link of one expanded fabric was derived from (memoised per switch)."""

    def __init__(self, inv: Inventory, topo: Topology) -> None:
        self.inv = inv
        self.topo = topo
        self._switch: dict[str, tuple[Obj, ...]] = {}

    def switch(self, name: str) -> tuple[Obj, ...]:
        got = self._switch.get(name)
        if got is None:
            got = self._switch[name] = self._of(self.topo.switches[name])
        return got

    def _of(self, sw: Switch) -> tuple[Obj, ...]:
        out: list[Obj] = []
        if sw.role is Role.RAIL and len(sw.src) >= 4:
            out += segment_host_models(self.inv, sw.src)
        out.append(switch_model(sw.model))
        if sw.role is not Role.SUPER_SPINE and len(sw.src) >= 2 and sw.src[0] == "pods":
            pod = self.inv.pods[sw.src[1]] if isinstance(sw.src[1], int) and sw.src[1] < len(self.inv.pods) else None
            if pod is not None and pod.spines is not None:
                out.append(("pods", sw.src[1], "spines"))
        if sw.role is not Role.RAIL and self.inv.super_spines is not None:
            out.append(("super_spines",))
        out.append(tuple(sw.src))
        return tuple(dict.fromkeys(out))

    def host(self, name: str) -> tuple[Obj, ...]:
        h = self.topo.hosts[name]
        return (host_model(h.model), tuple(h.src))

    def link(self, link: Link) -> tuple[Obj, ...]:
        if link.role is LinkRole.HOST:
            return tuple(dict.fromkeys((*self.host(link.a.device), *self.switch(link.z.device))))
        return tuple(dict.fromkeys((*self.switch(link.a.device), *self.switch(link.z.device))))

    def devices(self, *names: str) -> tuple[Obj, ...]:
        out: list[Obj] = []
        for n in names:
            out += self.host(n) if n in self.topo.hosts else self.switch(n) if n in self.topo.switches else ()
        return tuple(dict.fromkeys(out))
