"""railfabric/device/vlans.py: one VLAN per rail subnet, its members, and the MLAG pair's shared gateway."""

from __future__ import annotations

from railfabric.device.interfaces import Interface
from railfabric.device.mlag import MlagParts
from railfabric.device.vlans import build_vlans
from railfabric.plan.allocate import Prefix, RailSubnet
from railfabric.topology import End, Link, LinkRole

BASE = (172 << 24) + (16 << 16)  # 172.16.0.0
SUBNETS = [RailSubnet("r0", 0, 100, Prefix(BASE, 25), BASE + 1),
           RailSubnet("r0", 1, 101, Prefix(BASE + 128, 25), BASE + 129)]


def _intf(name: str, peer: str = "") -> Interface:
    """A used interface as the link walk leaves it (only its name and peer matter here)."""
    return Interface(name, 1, 0, 400, "access", True, peer, 9216, peer=peer)


def test_single_homed() -> None:
    parts = MlagParts(lambda n: f"PortChannel{n}")
    v0, v1 = build_vlans(SUBNETS, 9216, {100: ["Ethernet0", "Ethernet4"]}, parts)
    assert (v0.id, v0.name, v0.rail, v0.gateway, v0.prefix, v0.mtu) == (
        100, "RAIL0", 0, "172.16.0.1/25", "172.16.0.0/25", 9216)
    assert (v0.members, v0.tagged, v0.virtual) == (("Ethernet0", "Ethernet4"), (), False)
    assert (v1.gateway, v1.members) == ("172.16.0.129/25", ())


def test_mlag_pair() -> None:
    parts = MlagParts(lambda n: f"PortChannel{n}")
    link = Link("h1:nic1p1", LinkRole.HOST, End("h1", 1, 0, 400), End("r0a", 2, 0, 400), rail=1, nic=1, channel=1002)
    parts.host_member(_intf("Ethernet8", "h1"), link, 101)
    peer = Link("r0a=r0b#1", LinkRole.PEER, End("r0a", 31, 0, 800), End("r0b", 31, 0, 800), bundle="r0a=r0b")
    parts.peer_member(_intf("Ethernet240"), peer, False, "r0b")
    v0, v1 = build_vlans(SUBNETS, 9216, {}, parts)
    # the bond is untagged in its rail VLAN only; the peer link is tagged in every rail VLAN; gateways shared
    assert (v0.members, v1.members) == ((), ("PortChannel1002",))
    assert v0.tagged == v1.tagged == ("PortChannel1000",) and v0.virtual and v1.virtual
    assert v0.own == v1.own == ""  # the plan gave no own address (EOS / SONiC pair)


def test_own_address_on_a_shared_gateway_only() -> None:
    """A rail subnet with an own address (allocate: side b of a /25 = 172.16.0.0 + 128 − 3 = .125) puts it on the
    SVI of an MLAG switch; a single-homed switch never shows it."""
    own = [RailSubnet("r0", 0, 100, Prefix(BASE, 25), BASE + 1, BASE + 125)]
    parts = MlagParts(lambda n: f"bond{n}")
    assert build_vlans(own, 9216, {}, parts)[0].own == ""  # not an MLAG switch: no shared gateway
    peer = Link("r0a=r0b#1", LinkRole.PEER, End("r0a", 31, 0, 800), End("r0b", 31, 0, 800), bundle="r0a=r0b")
    parts.peer_member(_intf("swp31"), peer, True, "r0a")
    (v0,) = build_vlans(own, 9216, {}, parts)
    assert (v0.gateway, v0.own, v0.virtual) == ("172.16.0.1/25", "172.16.0.125/25", True)
