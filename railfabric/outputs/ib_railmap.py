"""hosts/railmap.csv of an InfiniBand fabric: what each GPU server's HCAs need, one row per host × cabled HCA (rail).

Schema "railfabric InfiniBand rail map v1" (the title line; Ethernet's map is "railfabric host rail map v2", other
columns: an InfiniBand host has no address, VLAN or gateway):
host, rail, hca (the RDMA device, `mlx5_0`), hca_port (1), leaf (the rail's leaf switch), leaf_port (its IB port
number), partitions (every planned partition the HCA is a member of, in PKey order, `name:0xpkey:full|limited`,
joined with ';'; empty: only the default partition), sl (the service level NCCL uses on this host: NCCL_IB_SL of its
nccl.conf, railfabric.infiniband.outputs_hosts; empty without a QoS plan).
Rows in the order of hosts/hosts.json: hosts in plan order, each host's HCAs in rail order. An HCA without a cable
(its leaf port disabled) has no row. Cells go through csv_text (a cell a spreadsheet would read as a formula is
escaped).

`hca_of_links` pairs each topology host link with the HCA at its host end (railfabric.topology.infiniband builds
one cable per topology link, in the links' order): cabling.csv names the HCA with it.
"""

from __future__ import annotations

from railfabric.infiniband.model import Hca, IbFabric
from railfabric.infiniband.outputs_hosts import host_plans
from railfabric.topology import Topology
from railfabric.topology.model import LinkRole

from ._common import csv_text

TITLE = "railfabric InfiniBand rail map v1"
HEADER = ("host", "rail", "hca", "hca_port", "leaf", "leaf_port", "partitions", "sl")
PATH = "hosts/railmap.csv"


def hca_of_links(fab: IbFabric, topo: Topology) -> dict[str, tuple[Hca, int]]:
    """Host link id → (the HCA at its host end, the HCA's port). ValueError when the subnet's cables are not the
    topology's links one for one (a subnet not built from this topology)."""
    if len(fab.cables) != len(topo.links):
        raise ValueError(f"{len(fab.cables)} cables for {len(topo.links)} topology links")
    out: dict[str, tuple[Hca, int]] = {}
    for link, cable in zip(topo.links, fab.cables, strict=True):
        if link.role is not LinkRole.HOST:
            continue
        node = fab.node(cable.z.node)
        if (cable.a.node, cable.a.port) != (link.z.device, link.z.port) or not isinstance(node, Hca):
            raise ValueError(f"cable {cable} is not topology link {link.id}")
        out[link.id] = (node, cable.z.port)
    return out


def _leaf_ends(fab: IbFabric) -> dict[tuple[str, int], tuple[str, int]]:
    """(HCA node description, port) → (leaf, leaf port) of every cabled HCA port."""
    out: dict[tuple[str, int], tuple[str, int]] = {}
    for cable in fab.cables:
        a, z = cable.a, cable.z
        if isinstance(fab.node(z.node), Hca):
            out[(z.node, z.port)] = (a.node, a.port)
        elif isinstance(fab.node(a.node), Hca):
            out[(a.node, a.port)] = (z.node, z.port)
    return out


def _memberships(fab: IbFabric) -> dict[str, str]:
    """HCA node description → its partitions cell."""
    cells: dict[str, list[str]] = {}
    for part in sorted(fab.partitions, key=lambda p: p.pkey):
        for m in part.members:
            cells.setdefault(m.node, []).append(f"{part.name}:{part.pkey:#06x}:{m.membership}")
    return {node: ";".join(parts) for node, parts in cells.items()}


def ib_railmap_rows(fab: IbFabric) -> list[tuple[str, ...]]:
    leaves = _leaf_ends(fab)
    parts = _memberships(fab)
    rows: list[tuple[str, ...]] = []
    for hp in host_plans(fab):
        sl = "" if hp.sl is None else str(hp.sl)
        for hca in hp.hcas:
            for port in range(1, hca.ports + 1):
                leaf = leaves.get((hca.name, port))
                if leaf is None:
                    continue
                rows.append((hp.host, str(hca.rail), hca.device, str(port), leaf[0], str(leaf[1]),
                             parts.get(hca.name, ""), sl))
    return rows


def ib_railmap(fab: IbFabric) -> dict[str, str]:
    return {PATH: csv_text(TITLE, HEADER, ib_railmap_rows(fab))}
