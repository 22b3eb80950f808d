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

from fabric.address import order_key
from fabric.device import DeviceConfig

from ._common import csv_text_plain, natural_key
from .state_index import build_index
from .views import LANE, NAME, PEER, PEER_INTERFACE, PORT, ROLE, Port, Sessions, ports_view, sessions_view

BGP_TITLE = "railfabric expected bgp sessions v1"
BGP_HEADER = ("device", "interface", "local_ip", "local_asn", "neighbor_ip", "remote_asn", "peer_device",
              "peer_interface", "peer_group", "bfd")
LLDP_TITLE = "railfabric expected lldp neighbors v1"
LLDP_HEADER = ("device", "interface", "neighbor", "neighbor_interface", "role")

def expected_files(devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    return expected_from(sessions_view(devices), ports_view(devices), build_index(devices).owners)


def expected_from(sessions: Mapping[str, Sessions], ports: Mapping[str, tuple[Port, ...]],
                  owners: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """From exactly what the files show: each switch's ASN and peer groups, its interfaces, and the owner (device,
    interface) of every routed address (fabric/outputs/state_index.py)."""
    bgp: list[tuple[str, ...]] = []
    lldp: list[tuple[str, ...]] = []
    for name in sorted(sessions, key=natural_key):
        asn, groups = sessions[name]
        rows = []
        for group, bfd, neighbors in groups:
            for ip, local_ip, remote_as in neighbors:
                _, local_if = owners.get(local_ip, ("", ""))
                peer, peer_if = owners.get(ip, ("", ""))
                # order_key: the address as 4 big-endian bytes, which compare as the numbers do
                rows.append((order_key(ip), (name, local_if, local_ip, asn, ip, remote_as, peer,
                                             peer_if, group, "yes" if bfd else "no")))
        rows.sort()  # on the numbers, as the file always was; then every cell as text (csv.writer's str())
        bgp.extend((r[0], r[1], r[2], str(r[3]), r[4], str(r[5]), *r[6:]) for _, r in rows)
        cabled = sorted((i[PORT], i[LANE], i[NAME], i[PEER], i[PEER_INTERFACE], i[ROLE])
                        for i in ports[name] if i[PEER])
        lldp.extend((name, *i[2:]) for i in cabled)
    return {
        "expected/bgp_sessions.csv": csv_text_plain(BGP_TITLE, BGP_HEADER, bgp),  # text cells only
        "expected/lldp_neighbors.csv": csv_text_plain(LLDP_TITLE, LLDP_HEADER, lldp),  # text cells only
    }
