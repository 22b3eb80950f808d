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

from fabric.address import address_of
from fabric.device import DeviceConfig

from ._common import csv_text, natural_key, routed_owners

BGP_TITLE = "railfabric expected bgp sessions v1"
BGP_HEADER = ("device", "interface", "local_ip", "local_asn", "neighbor_ip", "remote_asn", "peer_device",
              "peer_interface", "peer_group", "bfd")
LLDP_TITLE = "railfabric expected lldp neighbors v1"
LLDP_HEADER = ("device", "interface", "neighbor", "neighbor_interface", "role")


def expected_files(devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    where = routed_owners(devices)

    bgp: list[tuple[object, ...]] = []
    lldp: list[tuple[object, ...]] = []
    for name in sorted(devices, key=natural_key):
        dev = devices[name]
        sessions = []
        for group in dev.bgp.peer_groups:
            for n in group.neighbors:
                _, local_if = where.get(address_of(n.local_ip), ("", ""))
                peer, peer_if = where.get(address_of(n.ip), ("", ""))
                sessions.append((address_of(n.ip), (name, local_if, n.local_ip, dev.bgp.asn, n.ip, n.remote_as, peer,
                                                peer_if, group.name, "yes" if group.bfd else "no")))
        bgp.extend(row for _, row in sorted(sessions))
        cabled = [i for i in dev.interfaces if i.peer]
        cabled.sort(key=lambda i: (i.port, i.lane))
        lldp.extend((name, i.name, i.peer, i.peer_interface, i.role) for i in cabled)
    return {
        "expected/bgp_sessions.csv": csv_text(BGP_TITLE, BGP_HEADER, bgp),
        "expected/lldp_neighbors.csv": csv_text(LLDP_TITLE, LLDP_HEADER, lldp),
    }
