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
- *_rack: from `devices:` overrides, empty when unknown; speed: lane speed such as 400G;
- bundle: the port-channel the link is a member of: an L3 bundle (`<lower>><upper>#pc<n>`), an MLAG host bond
  (`<host>:nic<n>`, both of its links) or an MLAG peer link (`<side a>=<side b>`); empty otherwise.
Rows are sorted by link id, digits compared as numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from fabric.device import DeviceConfig
from fabric.topology import Link, LinkRole, Topology
from fabric.units import format_speed

from ._common import csv_text_plain, natural_order
from .views import Port, interface_names, ports_view, topology_links

TITLE = "railfabric cabling plan v1"
HEADER = ("link_id", "role", "rail", "a_device", "a_port", "a_interface", "a_rack", "z_device", "z_port",
          "z_interface", "z_rack", "speed", "bundle")


def cabling_csv(topo: Topology, devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    return cabling_files(topology_links(topo), {n: sw.rack for n, sw in topo.switches.items()}, ports_view(devices))


def cabling_files(links: Sequence[Link], racks: Mapping[str, str | None],
                  ports: Mapping[str, tuple[Port, ...]]) -> dict[str, str]:
    """From exactly what the plan shows: the links, each switch's rack and its interfaces' names."""
    names = interface_names(ports)
    rack = {n: r or "" for n, r in racks.items()}
    labels: dict[tuple[int, int], str] = {}  # (port, lane) → End.label(), worked out once per distinct pair
    nic_ports: dict[tuple[int | None, int], tuple[str, str]] = {}  # (nic, port) → a host end's port and interface
    role_text = {r: r.value for r in LinkRole}
    speeds: dict[int, str] = {}
    host = LinkRole.HOST
    rows = []
    for link in map(links.__getitem__, natural_order([lk.id for lk in links])):
        a, z = link.a, link.z
        z_at = z[1:3]
        if (z_label := labels.get(z_at)) is None:
            z_label = labels[z_at] = z.label()
        if (speed := speeds.get(a[3])) is None:
            speed = speeds[a[3]] = format_speed(a[3])
        rail = link.rail
        if link.role is host:
            where = (link.nic, a[1])
            if (nic := nic_ports.get(where)) is None:
                nic = nic_ports[where] = (f"nic{link.nic}p{a[1]}", f"nic{link.nic}")
            rows.append((link.id, "host", "" if rail is None else str(rail), a[0], *nic, "",
                         z[0], z_label, names[z[0]][z_at], rack[z[0]], speed, link.bundle or ""))
            continue
        where = a[1:3]
        if (a_label := labels.get(where)) is None:
            a_label = labels[where] = a.label()
        rows.append((link.id, role_text[link.role], "" if rail is None else str(rail),  # as csv.writer writes them
                     a[0], a_label, names[a[0]][where], rack[a[0]], z[0], z_label, names[z[0]][z_at], rack[z[0]], speed,
                     link.bundle or ""))
    return {"cabling.csv": csv_text_plain(TITLE, HEADER, rows)}  # text cells only
