"""expected/: post-deployment expectations derived from the same model as the configs, for checkers (Ansible
asserts, ANTA, NetQ-style validation) to compare with what the switches report.

- expected/bgp_sessions.csv (v1): one row per BGP session as seen from each switch (so each session appears
  twice, once per end): device, interface, local_ip, local_asn, neighbor_ip, remote_asn, peer_device,
  peer_interface, peer_group, bfd. A port-channel session names the port-channels.
- expected/lldp_neighbors.csv (v1): one row per cabled switch interface: device, interface, neighbor,
  neighbor_interface (the peer's interface name, or the host NIC port such as nic3p1), role (host | fabric | core |
  peer: an MLAG peer-link member). A session over an MLAG peer VLAN names its routed interface as the platform
  does (Platform.mlag_peer_interface: the SVI Vlan4094; NVUE's peer-link subinterface peerlink.4094).
  Port-channel members are listed one by one: LLDP runs on the members.
Rows are sorted by device and then by neighbor address / interface, digits compared as numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice, repeat
from operator import itemgetter, lt

from fabric.address import order_key
from fabric.device import DeviceConfig

from ._common import csv_text_plain, natural_key
from .state_index import Ends, build_index
from .views import LANE, NAME, PEER, PEER_INTERFACE, PORT, ROLE, Port, Sessions, ports_view, sessions_view

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
    interface) of each session's two addresses (FabricIndex.ends, fabric/outputs/state_index.py)."""
    bgp: list[tuple[str, ...]] = []
    lldp: list[tuple[str, ...]] = []
    for name in sorted(sessions, key=natural_key):
        bgp.extend(_session_rows(name, sessions[name], ends[name]))
        # by (port, lane) and then the cells, as the file always was sorted; rows zipped in C
        cabled = sorted(filter(_PEER, ports[name]), key=_CABLE_ORDER)
        lldp.extend(zip(repeat(name), map(_NAME, cabled), map(_PEER, cabled), map(_PEER_INTERFACE, cabled),
                        map(_ROLE, cabled), strict=False))  # repeat(): endless
    return {
        "expected/bgp_sessions.csv": csv_text_plain(BGP_TITLE, BGP_HEADER, bgp),
        "expected/lldp_neighbors.csv": csv_text_plain(LLDP_TITLE, LLDP_HEADER, lldp),
    }


_CABLE_ORDER = itemgetter(PORT, LANE, NAME, PEER, PEER_INTERFACE, ROLE)
_NAME, _PEER, _PEER_INTERFACE, _ROLE = itemgetter(NAME), itemgetter(PEER), itemgetter(PEER_INTERFACE), itemgetter(ROLE)


def _session_rows(name: str, bgp: Sessions, ends: Ends) -> list[tuple[str, ...]]:
    """One switch's session rows (text cells), sorted by neighbour address as the numbers (order_key: 4 big-endian
    bytes) and then, between sessions to one address, by the row's cells with the AS numbers as numbers. `ends`:
    the owners of the sessions' neighbour and local addresses, in order. The rows are built in C loops (zip, map):
    half a million at 131,072 GPUs."""
    asn, groups = bgp
    peers, locals_ = ends
    if sum(len(ns) for _g, _b, ns in groups) != len(peers):
        raise ValueError(f"{name}: the index holds {len(peers)} BGP sessions, the view another number")
    rows: list[tuple[str, ...]] = []
    at, mine = 0, str(asn)
    for group, bfd, neighbors in groups:
        there, here = peers[at:at + len(neighbors)], locals_[at:at + len(neighbors)]
        at += len(neighbors)
        rows.extend(zip(repeat(name), map(_SECOND, here), map(_SECOND, neighbors), repeat(mine),
                        map(_FIRST, neighbors), map(str, map(_THIRD, neighbors)), map(_FIRST, there),
                        map(_SECOND, there), repeat(group), repeat("yes" if bfd else "no"), strict=False))
    keys = list(map(order_key, map(_NEIGHBOR_ADDRESS, rows)))
    if all(map(lt, keys, islice(keys, 1, None))):  # one session per address, in order already (the model's)
        return rows
    decorated = list(zip(keys, rows, strict=True))
    if len(set(keys)) == len(keys):  # one session per address (always, in a valid fabric)
        decorated.sort(key=_FIRST)
    else:
        decorated.sort(key=_numbers_kept)
    return list(map(_SECOND, decorated))


_NEIGHBOR_ADDRESS = itemgetter(4)
_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)


def _numbers_kept(row: tuple[bytes, tuple[str, ...]]) -> tuple[object, ...]:
    key, cells = row
    return (key, *cells[:3], int(cells[3]), cells[4], int(cells[5]), *cells[6:])
