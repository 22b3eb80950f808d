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

from collections.abc import Iterable, Mapping

from fabric.device import DeviceConfig
from fabric.topology import End, Link, LinkRole, Topology
from fabric.units import format_speed

from ._common import csv_text_plain, natural_key
from .views import Port, interface_names, ports_view, topology_links

TITLE = "railfabric cabling plan v1"
HEADER = ("link_id", "role", "rail", "a_device", "a_port", "a_interface", "a_rack", "z_device", "z_port",
          "z_interface", "z_rack", "speed", "bundle")


def cabling_csv(topo: Topology, devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    return cabling_files(topology_links(topo), {n: sw.rack for n, sw in topo.switches.items()}, ports_view(devices))


def cabling_files(links: Iterable[Link], racks: Mapping[str, str | None],
                  ports: Mapping[str, tuple[Port, ...]]) -> dict[str, str]:
    """From exactly what the plan shows: the links, each switch's rack and its interfaces' names."""
    names = interface_names(ports)

    def switch_end(end: End) -> tuple[str, str, str, str]:
        return end.device, end.label(), names[(end.device, end.port, end.lane)], racks[end.device] or ""

    rows = []
    for link in sorted(links, key=lambda lk: natural_key(lk.id)):
        if link.role is LinkRole.HOST:
            a = (link.a.device, f"nic{link.nic}p{link.a.port}", f"nic{link.nic}", "")
        else:
            a = switch_end(link.a)
        rail = "" if link.rail is None else str(link.rail)  # as csv.writer writes None and a number
        rows.append((link.id, link.role.value, rail, *a, *switch_end(link.z), format_speed(link.a.speed),
                     link.bundle or ""))
    return {"cabling.csv": csv_text_plain(TITLE, HEADER, rows)}  # text cells only
