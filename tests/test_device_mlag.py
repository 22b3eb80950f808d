"""railfabric/device/mlag.py: the pair's port-channels (host bonds, peer link) from the link walk's MLAG pieces."""

from __future__ import annotations

from railfabric.device.interfaces import Interface
from railfabric.device.mlag import MlagParts, mlag_port_channels
from railfabric.topology import End, Link, LinkRole


def _intf(name: str, peer: str = "") -> Interface:
    """A used interface as the link walk leaves it (only its name and peer matter here)."""
    return Interface(name, 1, 0, 400, "access", True, peer, 9216, peer=peer)


def _parts() -> MlagParts:
    parts = MlagParts(lambda n: f"Port-Channel{n}")
    for number, port, rail in ((1002, 3, 1), (1001, 1, 0)):  # met in this order by the walk
        link = Link(f"h1:nic{rail}p1", LinkRole.HOST, End("h1", 1, 0, 400), End("r0a", port, 0, 400), rail=rail,
                    nic=rail, channel=number)
        parts.host_member(_intf(f"Ethernet{port}/1", "h1"), link, 100 + rail)
    for port in (31, 32):
        peer = Link(f"r0a=r0b#{port - 30}", LinkRole.PEER, End("r0a", port, 0, 800), End("r0b", port, 0, 800),
                    bundle="r0a=r0b")
        parts.peer_member(_intf(f"Ethernet{port}/1"), peer, False, "r0b")
    return parts


def test_host_bonds_and_peer_link() -> None:
    b1, b2, peer = mlag_port_channels(_parts(), 9214, [101, 100])
    # host bonds by number, one member here, access in the rail VLAN, MLAG id = number
    assert (b1.name, b1.members, b1.mode, b1.vlan, b1.mlag, b1.description) == (
        "Port-Channel1001", ("Ethernet1/1",), "access", 100, 1001, "h1 nic0 bond rail0")
    assert (b2.name, b2.vlan, b2.mlag) == ("Port-Channel1002", 101, 1002)
    # the peer link: port-channel 1000, trunk of the rail VLANs sorted plus the peer VLAN 4094
    assert (peer.name, peer.members, peer.mode, peer.trunk_vlans, peer.peer) == (
        "Port-Channel1000", ("Ethernet31/1", "Ethernet32/1"), "trunk", (100, 101, 4094), "r0b")
    assert {pc.lacp_key for pc in (b1, b2, peer)} == {"auto"} and {pc.mtu for pc in (b1, b2, peer)} == {9214}
    assert {pc.min_links for pc in (b1, b2, peer)} == {1} and peer.ipv4 is None


def test_parts_answers() -> None:
    parts = _parts()
    assert parts.active and parts.trunk() == ("Port-Channel1000",)
    assert parts.bonds_in(101) == ("Port-Channel1002",) and parts.bonds_in(102) == ()
    assert MlagParts(str).active is False
