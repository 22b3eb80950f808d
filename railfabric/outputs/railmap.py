"""hosts/railmap.csv: what each GPU server's NICs need (for whoever configures NICs: scripts, l8k-style tools).

Schema v2, one row per GPU and NIC port (a dual-homed NIC gives two rows per GPU; GPUs that share a NIC through
`gpu_to_nic` each get their own row naming that NIC):
host, gpu (local rank), nic (NIC index), nic_port (1-based), rail, switch, switch_interface (platform name, as in
the rendered config), vlan (the rail VLAN, untagged on the switch port), address (`a.b.c.d/len`), gateway (the rail
switch's SVI), mtu (the host MTU: the NIC's, not the switch port's), bond and bond_mode: under `dual_homing: mlag`
both ports of a NIC are one LACP bond (`bond<nic>`, mode `802.3ad`: the switches run LACP active on a port-channel
with one MLAG id on both switches) holding the one address; empty otherwise (two-vlans: each port has its own
address on its own switch's subnet, no bond). v2 added bond and bond_mode.
Rows are sorted by host (digits as numbers), GPU, NIC port. NICs not linked to a rail (reported by validation) have
no row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, repeat
from operator import attrgetter, itemgetter

from railfabric.core.address import ntoa, ntoa_many
from railfabric.device import DeviceConfig
from railfabric.inventory.intent import Inventory
from railfabric.plan.allocate import Plan
from railfabric.topology import Link, LinkRole, Topology

from ._common import csv_lines_plain, csv_text, host_bond, natural_key
from .views import Port, RailSubnet, interface_names, ports_view, rail_subnets_view

TITLE = "railfabric host rail map v2"
HEADER = ("host", "gpu", "nic", "nic_port", "rail", "switch", "switch_interface", "vlan", "address", "gateway", "mtu",
          "bond", "bond_mode")
BOND_MODE = "802.3ad"  # LACP (Linux bonding / netplan `mode: 802.3ad`), what an MLAG port-channel expects


# a host model as the rail map reads it: (gpus, gpu_to_nic or None, ports_per_nic)
HostShape = tuple[int, tuple[int, ...] | None, int]


def host_shapes(inv: Inventory) -> dict[str, HostShape]:
    return {name: (m.gpus, tuple(m.gpu_to_nic) if m.gpu_to_nic else None, m.ports_per_nic)
            for name, m in inv.host_models.items()}


def host_links(topo: Topology) -> list[Link]:
    return host_links_in(topo.links)


def host_links_in(links: Iterable[Link]) -> list[Link]:
    """The host links among `links`, in their order (picked in C-level passes)."""
    links = links if isinstance(links, list | tuple) else list(links)
    return list(compress(links, map(LinkRole.HOST.__eq__, map(_ROLE, links))))


_ROLE = attrgetter("role")


def railmap_csv(inv: Inventory, topo: Topology, plan: Plan, devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    return railmap_files({h.name: h.model for h in topo.hosts.values()}, host_shapes(inv), host_links(topo),
                         plan.host_addr, rail_subnets_view(plan), inv.fabric.host_mtu, ports_view(devices))


def railmap_files(hosts: Mapping[str, str], shapes: Mapping[str, HostShape], links: Iterable[Link],
                  host_addr: Mapping[str, int], subnets: Mapping[tuple[str, int], RailSubnet], mtu: int,
                  ports: Mapping[str, tuple[Port, ...]]) -> dict[str, str]:
    """From exactly what the map shows: host → host model, the models' GPU/NIC shapes, the host links, their
    addresses, the rail subnets, the host MTU and the switches' interface names. The rows are made as lines
    column by column in C-level passes (_fast_lines); when a NIC port has no link or no address, or a cell would
    need quoting or escaping, row by row as cells (_rows) through csv_text."""
    links = links if isinstance(links, list) else list(links)
    order = sorted(hosts, key=natural_key)
    lines = _fast_lines(order, hosts, shapes, links, host_addr, subnets, mtu, ports)
    text = None if lines is None else csv_lines_plain(TITLE, HEADER, lines)
    if text is None:
        by_id = {lk.id: lk for lk in links}
        text = csv_text(TITLE, HEADER, _rows(order, hosts, shapes, by_id, host_addr, subnets, mtu, ports))
    return {"hosts/railmap.csv": text}


def _shape_ports(shape: HostShape) -> list[tuple[int, int, int]]:
    """A host's (gpu, nic, port) rows in order: each GPU's NIC (gpu_to_nic, else the GPU's own number), then each
    port of that NIC."""
    gpus, gpu_to_nic, ports_per_nic = shape
    return [(gpu, nic, port) for gpu in range(gpus)
            for nic in (gpu_to_nic[gpu] if gpu_to_nic and gpu < len(gpu_to_nic) else gpu,)
            for port in range(1, ports_per_nic + 1)]


# A shape's rows of one host: each (gpu, nic, port) as the link id's suffix and the row's gpu, nic and port cells
_ShapeRows = tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...]]


def _shape_rows(shape: HostShape) -> _ShapeRows:
    rows = _shape_ports(shape)
    return (tuple(f":nic{nic}p{port}" for _gpu, nic, port in rows), tuple(f",{g},{n},{p}," for g, n, p in rows),
            tuple(nic for _gpu, nic, _port in rows))


_ID, _Z, _RAIL, _BUNDLE = attrgetter("id"), attrgetter("z"), attrgetter("rail"), attrgetter("bundle")
_DEVICE, _AT = itemgetter(0), itemgetter(1, 2)  # an End's switch, its (port, lane)
_LINE = "{}{}{}{}{}{}{}{}"  # host, ",gpu,nic,port,", "rail,switch,", interface, ",vlan,", address, "/len,gw,mtu,", bond


def _fast_lines(order: list[str], hosts: Mapping[str, str], shapes: Mapping[str, HostShape], links: list[Link],
                host_addr: Mapping[str, int], subnets: Mapping[tuple[str, int], RailSubnet], mtu: int,
                ports: Mapping[str, tuple[Port, ...]]) -> list[str] | None:
    """Every row as one line, or None when a NIC port has no link or no address (then _rows skips it). Each row's
    link is found by its id; when the links come in the rows' order (expand makes them host by host, NIC by NIC),
    shown by comparing the ids, they are taken as they are and no dict of the links is made."""
    made = {model: _shape_rows(shape) for model, shape in shapes.items()}
    owners: list[str] = []
    ids: list[str] = []
    cells: list[str] = []
    nics: list[int] = []
    for hostname in order:
        suffixes, gpu_cells, gpu_nics = made[hosts[hostname]]
        owners += repeat(hostname, len(suffixes))
        ids += map(hostname.__add__, suffixes)
        cells += gpu_cells
        nics += gpu_nics
    found: Sequence[Link | None] = links
    if ids != list(map(_ID, links)):  # another order (a pinned cable, say) or a link more or less: by id
        by_id = {lk.id: lk for lk in links}
        found = list(map(by_id.get, ids))
    numbers = list(map(host_addr.get, ids))
    if None in found or None in numbers:
        return None
    ends = list(map(_Z, found))
    switches = list(map(_DEVICE, ends))
    at = list(zip(switches, map(_RAIL, found), strict=True))
    # (switch, rail) → ("rail,switch,", ",vlan,", "/len,gateway,mtu,")
    rails: dict[tuple[str, int | None], tuple[str, str, str]] = {}
    for sw, rail in set(at):
        sub = subnets[(sw, rail)]
        rails[(sw, rail)] = (f"{rail},{sw},", f",{sub.vlan},", f"/{sub.length},{ntoa(sub.gateway)},{mtu},")
    names = interface_names({sw: ports[sw] for sw in set(switches)})
    info = list(map(rails.__getitem__, at))
    bundles = list(map(_BUNDLE, found))
    bonds: Iterable[str] = repeat(",") if not any(bundles) else [
        f"{host_bond(nic)},{BOND_MODE}" if bundle else "," for nic, bundle in zip(nics, bundles, strict=True)]
    return list(map(_LINE.format, owners, cells, map(_FIRST, info),
                    map(dict.__getitem__, map(names.__getitem__, switches), map(_AT, ends)),
                    map(_SECOND, info), ntoa_many(numbers), map(_THIRD, info), bonds))  # type: ignore[arg-type]


_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)


def _rows(order: list[str], hosts: Mapping[str, str], shapes: Mapping[str, HostShape], by_id: Mapping[str, Link],
          host_addr: Mapping[str, int], subnets: Mapping[tuple[str, int], RailSubnet], mtu: int,
          ports: Mapping[str, tuple[Port, ...]]) -> list[tuple[str, ...]]:
    """Every row as its cells, one by one (a NIC port without a link or an address has no row)."""
    names: dict[str, dict[tuple[int, int], str]] = {}  # of the switches the map shows only
    rails: dict[tuple[str, int | None], tuple[str, str, str, str]] = {}  # (switch, rail) → rail, vlan, /len, gateway
    mtu_text, no_bond = str(mtu), ("", "")
    rows: list[tuple[str, ...]] = []
    for hostname in order:
        for gpu, nic, port in _shape_ports(shapes[hosts[hostname]]):
            link = by_id.get(f"{hostname}:nic{nic}p{port}")
            if link is None or (number := host_addr.get(link.id)) is None:
                continue
            z = link.z
            sw = z[0]
            if (rail := rails.get((sw, link.rail))) is None:
                sub = subnets[(sw, link.rail)]  # type: ignore[index]
                rail = rails[(sw, link.rail)] = (str(link.rail), str(sub.vlan), f"/{sub.length}", ntoa(sub.gateway))
            if (sw_names := names.get(sw)) is None:
                sw_names = names[sw] = interface_names({sw: ports[sw]})[sw]
            rows.append((hostname, str(gpu), str(nic), str(port), rail[0], sw, sw_names[z[1:3]], rail[1],
                         ntoa(number) + rail[2], rail[3], mtu_text,
                         *((host_bond(nic), BOND_MODE) if link.bundle else no_bond)))
    return rows
