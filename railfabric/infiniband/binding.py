"""GUIDs bound late: the plan names switches and HCAs, discovery (ibnetdiscover) reports GUIDs with node
descriptions. `bind` matches them by node description, checks every planned cable against the discovered links and
returns either the binding (from which the root and compute-node GUID files and partitions.conf are written) or the
differences, each naming the node or cable that is wrong or missing.
"""

from __future__ import annotations

from dataclasses import dataclass

from railfabric.infiniband.discovery import Discovered, Node
from railfabric.infiniband.model import End, IbFabric, Switch
from railfabric.infiniband.opensm_conf import cn_guids, root_guids


@dataclass(frozen=True, slots=True)
class Binding:
    node_guids: dict[str, int]  # node description → node GUID
    port_guids: dict[str, int]  # HCA node description → the port GUID of its port 1

    def root_file(self, fab: IbFabric) -> str:
        return root_guids(fab, self.node_guids)

    def cn_file(self, fab: IbFabric) -> str:
        return cn_guids(fab, self.port_guids)


@dataclass(frozen=True, slots=True)
class BindResult:
    binding: Binding | None  # None when there are differences
    differences: tuple[str, ...]


def bind(fab: IbFabric, disc: Discovered) -> BindResult:
    diffs = _node_differences(fab, disc)
    named = {desc: nodes[0] for desc, nodes in disc.by_desc().items() if len(nodes) == 1}
    diffs += _cable_differences(fab, disc, named)
    if diffs:
        return BindResult(None, tuple(diffs))
    node_guids = {name: named[name].guid for name in _planned_names(fab)}
    port_guids: dict[str, int] = {}
    for h in fab.hcas:
        pg = named[h.name].port_guids.get(1)
        if pg is None:
            return BindResult(None, (f"HCA {h.name}: discovery reported no port GUID for port 1",))
        port_guids[h.name] = pg
    return BindResult(Binding(node_guids, port_guids), ())


def _planned_names(fab: IbFabric) -> list[str]:
    return [s.name for s in fab.switches] + [h.name for h in fab.hcas]


def _node_differences(fab: IbFabric, disc: Discovered) -> list[str]:
    out: list[str] = []
    found = disc.by_desc()
    for name in _planned_names(fab):
        node = fab.node(name)
        kind = "switch" if isinstance(node, Switch) else "HCA"
        nodes = found.get(name, [])
        if not nodes:
            out.append(f"{kind} {name} is planned but was not discovered (no node describes itself {name!r})")
        elif len(nodes) > 1:
            out.append(f"{len(nodes)} discovered nodes describe themselves {name!r}: "
                       f"{', '.join(f'{n.guid:#018x}' for n in nodes)}")
        elif (nodes[0].kind == "Switch") != isinstance(node, Switch):
            out.append(f"{name} is planned as a {kind} but was discovered as {nodes[0].kind} {nodes[0].guid:#018x}")
    out += [f"{n.kind} {n.guid:#018x} {desc!r} was discovered but is not planned"
            for desc, nodes in sorted(found.items()) if fab.node(desc) is None for n in nodes]
    return out


def _cable_differences(fab: IbFabric, disc: Discovered, named: dict[str, Node]) -> list[str]:
    """Planned cables not found (saying where each end goes instead), then discovered links not planned."""
    names = {n.guid: desc for desc, n in named.items() if fab.node(desc) is not None}  # planned names only

    def end_of(guid: int, port: int) -> str:
        node = disc.nodes[guid]
        return f"{names.get(guid, f'{node.desc!r} {guid:#018x}')}[{port}]"

    def actual(end: End) -> str:
        node = named.get(end.node)
        if node is None:
            return f"{end} is not discovered"
        far = disc.links.get((node.guid, end.port))
        return f"{end} goes to {end_of(*far)}" if far else f"{end} has no link"

    out: list[str] = []
    planned: set[tuple[str, str]] = set()
    for c in fab.cables:
        planned.add(_key(str(c.a), str(c.z)))
        a, z = named.get(c.a.node), named.get(c.z.node)
        if a is None or z is None or disc.links.get((a.guid, c.a.port)) != (z.guid, c.z.port):
            out.append(f"cable {c} is missing: {actual(c.a)}, {actual(c.z)}")
    seen: set[tuple[str, str]] = set()
    for (guid, port), far in sorted(disc.links.items()):
        key = _key(end_of(guid, port), end_of(*far))
        if key not in planned and key not in seen:
            seen.add(key)
            out.append(f"cable {key[0]} - {key[1]} is discovered but not planned")
    return out


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)

