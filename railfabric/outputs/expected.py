"""expected/: post-deployment expectations derived from the same model as the configs, for checkers (Ansible
asserts, ANTA, NetQ-style validation) to compare with what the switches report.

- expected/bgp_sessions.csv (v1): one row per BGP session as seen from each switch (so each session appears
  twice, once per end): device, interface, local_ip, local_asn, neighbor_ip, remote_asn, peer_device,
  peer_interface, peer_group, bfd. A port-channel session names the port-channels. An unnumbered session
  (routing.addressing: unnumbered) has empty local_ip and neighbor_ip: it runs over the IPv6 link-local addresses
  of its interface and the peer's. Dual-stack (routing.address_families with ipv6): no row of its own for IPv6,
  whose family rides on these same sessions (railfabric/device/routing_v6.py); expected/state/<device>.json says so
  in bgp.address_families.
- expected/lldp_neighbors.csv (v1): one row per cabled switch interface: device, interface, neighbor,
  neighbor_interface (the peer's interface name, or the host NIC port such as nic3p1), role (host | fabric | core |
  peer: an MLAG peer-link member). A session over an MLAG peer VLAN names its routed interface as the platform
  does (Platform.mlag_peer_interface: the SVI Vlan4094; NVUE's peer-link subinterface peerlink.4094).
  Port-channel members are listed one by one: LLDP runs on the members.
Rows are sorted by device and then by neighbor address / interface, digits compared as numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from itertools import islice, repeat
from operator import itemgetter, lt
from socket import AF_INET, inet_pton
from typing import Any

from railfabric.device import DeviceConfig

from ._common import csv_lines_plain, csv_text, format_template, natural_key
from .state_index import Ends, build_index
from .views import (
    LANE,
    NAME,
    PEER,
    PEER_INTERFACE,
    PORT,
    ROLE,
    UNNUMBERED_MARK,
    Port,
    Sessions,
    ports_view,
    sessions_view,
)

BGP_TITLE = "railfabric expected bgp sessions v1"
BGP_HEADER = ("device", "interface", "local_ip", "local_asn", "neighbor_ip", "remote_asn", "peer_device",
              "peer_interface", "peer_group", "bfd")
LLDP_TITLE = "railfabric expected lldp neighbors v1"
LLDP_HEADER = ("device", "interface", "neighbor", "neighbor_interface", "role")

def expected_files(devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    return expected_from(sessions_view(devices), ports_view(devices), build_index(devices).ends)


def expected_from(sessions: Mapping[str, Sessions], ports: Mapping[str, tuple[Port, ...]],
                  ends: Mapping[str, Ends]) -> dict[str, str]:
    """From exactly what the files show: each switch's ASN and peer groups, its interfaces, and the owner (device,
    interface) of each session's two addresses (FabricIndex.ends, railfabric/outputs/state_index.py). Each row is first
    made as one line formatted in C (_common.csv_lines_plain); when a cell would need quoting or escaping (never in
    a valid inventory) the rows are made again as cells and written by csv_text."""
    names = sorted(sessions, key=natural_key)
    bgp = csv_lines_plain(BGP_TITLE, BGP_HEADER, _bgp_rows(names, sessions, ends, plain=True))
    if bgp is None:
        bgp = csv_text(BGP_TITLE, BGP_HEADER, _bgp_rows(names, sessions, ends, plain=False))
    lldp = csv_lines_plain(LLDP_TITLE, LLDP_HEADER, _lldp_rows(names, ports, plain=True))
    if lldp is None:
        lldp = csv_text(LLDP_TITLE, LLDP_HEADER, _lldp_rows(names, ports, plain=False))
    return {"expected/bgp_sessions.csv": bgp, "expected/lldp_neighbors.csv": lldp}


Row = Any  # a line of cells (plain) or a tuple of text cells


def _bgp_rows(names: list[str], sessions: Mapping[str, Sessions], ends: Mapping[str, Ends], plain: bool) -> list[Row]:
    rows: list[Row] = []
    for name in names:
        rows += _session_rows(name, sessions[name], ends[name], plain)
    return rows


def _lldp_rows(names: list[str], ports: Mapping[str, tuple[Port, ...]], plain: bool) -> list[Row]:
    """Each switch's cabled interfaces, by (port, lane) and then the cells, as the file always was sorted."""
    rows: list[Row] = []
    for name in names:
        cabled = sorted(filter(_PEER, ports[name]), key=_CABLE_ORDER)
        columns = (map(_NAME, cabled), map(_PEER, cabled), map(_PEER_INTERFACE, cabled), map(_ROLE, cabled))
        if plain:
            rows += map(format_template(name, None, None, None, None).format, *columns)
        else:
            rows += zip(repeat(name), *columns, strict=False)  # repeat(): endless
    return rows


_CABLE_ORDER = itemgetter(PORT, LANE, NAME, PEER, PEER_INTERFACE, ROLE)
_NAME, _PEER, _PEER_INTERFACE, _ROLE = itemgetter(NAME), itemgetter(PEER), itemgetter(PEER_INTERFACE), itemgetter(ROLE)


def _session_rows(name: str, bgp: Sessions, ends: Ends, plain: bool) -> list[Row]:
    """One switch's session rows, sorted by neighbour address as the numbers (address.order_key: 4 big-endian bytes) and
    then, between sessions to one address, by the row's cells with the AS numbers as numbers. `ends`: the owners of
    the sessions' neighbour and local addresses, in order. `plain`: each row one line formatted in C (a template
    per peer group holding its fixed cells), else a tuple of cells. Half a million rows at 131,072 GPUs."""
    asn, groups = bgp
    peers, locals_ = ends
    if sum(len(ns) for _g, _b, ns in groups) != len(peers):
        raise ValueError(f"{name}: the index holds {len(peers)} BGP sessions, the view another number")
    if any(UNNUMBERED_MARK in n[0] for _g, _b, ns in groups for n in ns):
        return _unnumbered_rows(name, bgp, ends, plain)
    rows: list[Row] = []
    at, mine = 0, str(asn)
    # the template of the cells before the group's (format_template(name, None, None, mine, None, ..., None) + ',')
    head = f"{format_template(name)},{{}},{{}},{format_template(mine)},{{}},{{}},{{}},{{}},"
    for group, bfd, neighbors in groups:
        there, here = peers[at:at + len(neighbors)], locals_[at:at + len(neighbors)]
        at += len(neighbors)
        columns = (map(_SECOND, here), map(_SECOND, neighbors), map(_FIRST, neighbors), map(_THIRD, neighbors),
                   map(_FIRST, there), map(_SECOND, there))
        if plain:  # format writes each AS number (an int) as str does
            rows += map((head + _group_cells(group, bfd)).format, *columns)
        else:
            locals_if, local_ip, ip, remote, peer, peer_if = columns
            rows += zip(repeat(name), locals_if, local_ip, repeat(mine), ip, map(str, remote), peer, peer_if,
                        repeat(group), repeat("yes" if bfd else "no"), strict=False)
    keys: list[bytes] = []  # order_key of each neighbour address, in C loops
    for _g, _b, ns in groups:
        keys += map(inet_pton, repeat(AF_INET), map(_FIRST, ns))
    if all(map(lt, keys, islice(keys, 1, None))):  # one session per address, in order already (the model's)
        return rows
    if len(set(keys)) == len(keys):  # one session per address (always, in a valid fabric)
        return list(map(rows.__getitem__, sorted(range(len(keys)), key=keys.__getitem__)))
    if plain:  # the ties are broken on the cells: sorted as cells, then joined (csv_lines_plain checks them)
        return list(map(",".join, _session_rows(name, bgp, ends, plain=False)))
    return list(map(_SECOND, sorted(zip(keys, rows, strict=True), key=_numbers_kept)))


_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)


def _unnumbered_rows(name: str, bgp: Sessions, ends: Ends, plain: bool) -> list[Row]:
    """_session_rows of a switch with unnumbered sessions (routing.addressing: unnumbered): such a session has no
    addresses (local_ip and neighbor_ip empty: it runs over IPv6 link-local addresses the switches pick), its
    interface and the peer's name it. Sorted by the numbered sessions' neighbour address first (the MLAG peer's),
    then by interface, digits compared as numbers."""
    asn, groups = bgp
    peers, locals_ = ends
    keyed: list[tuple[tuple, tuple[str, ...]]] = []
    at = 0
    for group, bfd, neighbors in groups:
        for (ip, local_ip, remote), (peer, peer_if), (_me, local_if) in zip(
                neighbors, peers[at:at + len(neighbors)], locals_[at:at + len(neighbors)], strict=True):
            unnumbered = UNNUMBERED_MARK in ip
            cells = (name, local_if, "" if unnumbered else local_ip, str(asn), "" if unnumbered else ip, str(remote),
                     peer, peer_if, group, "yes" if bfd else "no")
            key = (1, natural_key(local_if)) if unnumbered else (0, tuple(inet_pton(AF_INET, ip)))
            keyed.append((key, cells))
        at += len(neighbors)
    rows = [cells for _key, cells in sorted(keyed, key=_FIRST)]
    return [",".join(r) for r in rows] if plain else rows


@cache
def _group_cells(group: str, bfd: bool) -> str:
    """The template of a session row's last two cells (format_template): the peer group and 'yes' / 'no'."""
    return format_template(group, "yes" if bfd else "no")


def _numbers_kept(row: tuple[bytes, tuple[str, ...]]) -> tuple[object, ...]:
    key, cells = row
    return (key, *cells[:3], int(cells[3]), cells[4], int(cells[5]), *cells[6:])
