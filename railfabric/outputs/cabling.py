"""cabling.csv: the cabling plan, one row per logical link, for the people who pull the cables.

Schema v1 (the version is in the first line; a column change bumps it):
- link_id: the stable link id of the topology (host links `<host>:nic<n>p<port>`, uplinks `<lower>><upper>#<k>`,
  MLAG peer links `<side a>=<side b>#<k>`);
- role: host | fabric | core | peer; rail: the rail of host links, empty otherwise;
- a_* is always the lower end (host, rail switch or spine), z_* the upper end, so no link appears twice (A→Z and
  Z→A);
- *_port: for switches the physical front-panel port, with the breakout lane after a slash when the port is broken
  out (`9/1`: a 2x400G breakout cable to two hosts is two rows, lanes 1 and 2 of port 9); for hosts the NIC port
  (`nic3p1`: NIC 3, port 1);
- *_interface: the platform interface name on switches (as in the rendered configs), the NIC (`nic3`) on hosts;
- on an InfiniBand fabric (railfabric.outputs.infiniband) the same columns: a switch end's port and interface are its
  IB port number, a host end's port is the HCA's port number (`1`) and its interface the HCA's RDMA device
  (`mlx5_0`) (the `host_ends` argument of cabling_files);
- *_rack: from `devices:` overrides, empty when unknown; speed: lane speed such as 400G;
- bundle: the port-channel the link is a member of: an L3 bundle (`<lower>><upper>#pc<n>`), an MLAG host bond
  (`<host>:nic<n>`, both of its links) or an MLAG peer link (`<side a>=<side b>`); empty otherwise.
Rows are sorted by link id, digits compared as numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from railfabric.core.units import format_speed
from railfabric.device import DeviceConfig
from railfabric.topology import Link, LinkRole, Topology

from ._common import csv_lines_plain, csv_text, natural_order_by_heads
from .views import Port, interface_names, ports_view, topology_links

TITLE = "railfabric cabling plan v1"
HEADER = ("link_id", "role", "rail", "a_device", "a_port", "a_interface", "a_rack", "z_device", "z_port",
          "z_interface", "z_rack", "speed", "bundle")


def cabling_csv(topo: Topology, devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    return cabling_files(topology_links(topo), {n: sw.rack for n, sw in topo.switches.items()}, ports_view(devices))


def cabling_files(links: Sequence[Link], racks: Mapping[str, str | None],
                  ports: Mapping[str, tuple[Port, ...]],
                  host_ends: Mapping[str, tuple[str, str]] | None = None) -> dict[str, str]:
    """From exactly what the plan shows: the links, each switch's rack and its interfaces' names. Each row is first
    made as one line, link by link in the links' order (_lines), and the lines put in the rows' order; when a cell
    would need quoting or escaping (never in a valid inventory) the rows are made again as cells (_rows) and written
    by csv_text. `host_ends`: host link id → the host end's (port, interface) cells when they are not the NIC's
    (an InfiniBand HCA: ("1", "mlx5_0"))."""
    names = interface_names(ports)
    rack = {n: r or "" for n, r in racks.items()}
    order = natural_order_by_heads([lk.id for lk in links], [lk.a[0] for lk in links])  # an id begins with its a end
    ends = host_ends or {}
    lines = _lines(links, rack, names, ends)
    text = csv_lines_plain(TITLE, HEADER, list(map(lines.__getitem__, order)))
    if text is None:
        text = csv_text(TITLE, HEADER, list(map(_rows(links, rack, names, ends).__getitem__, order)))
    return {"cabling.csv": text}


Names = Mapping[str, Mapping[tuple[int, int], str]]  # switch → (port, lane) → interface name


def _lines(links: Sequence[Link], rack: Mapping[str, str], names: Names,
           host_ends: Mapping[str, tuple[str, str]]) -> list[str]:
    """Every link's row as one line of cells joined with ',' (csv_lines_plain checks them), in the links' order;
    what many links share (a port's label, a NIC port's cells, a speed, a rail) is written once."""
    labels: dict[tuple[int, int], str] = {}  # (port, lane) → End.label(), worked out once per distinct pair
    nic_cells: dict[tuple[int | None, int], str] = {}  # (nic, port) → a host end's port and interface, its rack
    speeds: dict[int, str] = {}
    rails: dict[int | None, str] = {None: ""}  # as csv.writer writes them
    host = LinkRole.HOST
    lines: list[str] = []
    append = lines.append
    for link in links:
        a, z = link.a, link.z
        z_at = z[1:3]
        if (z_label := labels.get(z_at)) is None:
            z_label = labels[z_at] = z.label()
        if (speed := speeds.get(a[3])) is None:
            speed = speeds[a[3]] = format_speed(a[3])
        if (rail := rails.get(link.rail)) is None:
            rail = rails[link.rail] = str(link.rail)
        zd = z[0]
        if link.role is host:
            where = (link.nic, a[1])
            end = host_ends.get(link.id) if host_ends else None
            if end is not None:
                nic = f"{end[0]},{end[1]},"
            elif (cells := nic_cells.get(where)) is None:
                nic = nic_cells[where] = f"nic{link.nic}p{a[1]},nic{link.nic},"
            else:
                nic = cells
            append(f"{link.id},host,{rail},{a[0]},{nic},{zd},{z_label},{names[zd][z_at]},{rack[zd]},{speed},"
                   f"{link.bundle or ''}")
            continue
        a_at, ad = a[1:3], a[0]
        if (a_label := labels.get(a_at)) is None:
            a_label = labels[a_at] = a.label()
        append(f"{link.id},{link.role.value},{rail},{ad},{a_label},{names[ad][a_at]},{rack[ad]},{zd},{z_label},"
               f"{names[zd][z_at]},{rack[zd]},{speed},{link.bundle or ''}")
    return lines


def _rows(links: Sequence[Link], rack: Mapping[str, str], names: Names,
          host_ends: Mapping[str, tuple[str, str]]) -> list[tuple[str, ...]]:
    """Every link's row as its cells, in the links' order."""
    rows: list[tuple[str, ...]] = []
    for link in links:
        a, z = link.a, link.z
        rail = "" if link.rail is None else str(link.rail)
        z_cells = (z[0], z.label(), names[z[0]][z[1:3]], rack[z[0]], format_speed(a[3]), link.bundle or "")
        if link.role is LinkRole.HOST:
            port, interface = host_ends.get(link.id) or (f"nic{link.nic}p{a[1]}", f"nic{link.nic}")
            rows.append((link.id, "host", rail, a[0], port, interface, "", *z_cells))
        else:
            rows.append((link.id, link.role.value, rail, a[0], a.label(), names[a[0]][a[1:3]], rack[a[0]], *z_cells))
    return rows
