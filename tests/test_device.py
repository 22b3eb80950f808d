"""The vendor-neutral device model, with values derived by hand from inventory/ (see tests/test_example.py for the
address layout). Templates only format these decisions, so they are tested here, once."""

from __future__ import annotations

import pytest

from railfabric.device import DeviceConfig, build_devices
from railfabric.inventory.intent import Platform
from railfabric.pipeline import run
from tests.helpers import EXAMPLE


@pytest.fixture(scope="module")
def devices() -> dict[str, DeviceConfig]:
    r = run(EXAMPLE)
    return build_devices(r.inventory, r.topology, r.plan)  # type: ignore[arg-type]


def test_identity(devices: dict[str, DeviceConfig]) -> None:
    d = devices["p1-s1-rail3"]
    assert (d.hostname, d.platform, d.role, d.pod, d.segment, d.rails) == ("p1-s1-rail3", "sonic", "rail", 1, 1, (3,))
    assert (d.loopback, d.router_id, d.asn) == ("10.0.0.147/32", "10.0.0.147", 4200100003)
    assert (d.management, d.management_gateway, d.rack) == ("192.168.15.3/20", "192.168.0.1", "DH1-R07")
    assert (d.mtu, d.mtu_note, d.host_mtu) == (9216, "", 9000)


def test_interfaces_cover_every_port_and_lane(devices: dict[str, DeviceConfig]) -> None:
    d = devices["p1-s1-rail3"]
    # ports 1-7 and 9 carry 2 hosts each (2x400G), 8 is disabled, 33-40 go to 4 spines × 2 links
    names = [i.name for i in d.interfaces]
    assert len(names) == len(set(names))
    broken_out = {i.port for i in d.interfaces if i.breakout == "2x400G"}
    assert broken_out == {1, 2, 3, 4, 5, 6, 7, 9}
    assert len(d.interfaces) == 64 + len(broken_out)  # each broken-out port adds one lane interface
    host = d.interface("Ethernet4")  # port 1 lane 2 → SONiC index (1-1)·8 + (2-1)·4
    assert (host.mode, host.vlan, host.peer, host.qos, host.mtu) == ("access", 103, "p1-s1-gpu002", True, 9216)
    disabled = d.interface("Ethernet56")  # port 8
    assert (disabled.admin_up, disabled.description, disabled.qos) == (False, "disabled in inventory", False)
    up = d.interface("Ethernet256")  # port 33 → p1-spine1 link 1; spine side is port 7 = Ethernet48
    assert (up.mode, up.ipv4, up.peer, up.peer_interface) == ("routed", "10.4.1.129/31", "p1-spine1", "Ethernet48")
    assert d.interface("Ethernet504").mode == "unused"  # port 64


def test_rail_vlans(devices: dict[str, DeviceConfig]) -> None:
    v = devices["p1-s2-rail1-5"].vlans
    assert [(x.id, x.name, x.gateway, x.prefix) for x in v] == [
        (101, "RAIL1", "172.16.9.1/25", "172.16.9.0/25"), (105, "RAIL5", "172.16.9.129/25", "172.16.9.128/25")]
    assert len(v[0].members) == 16 and len(v[1].members) == 16
    # rail 1 on ports 1,4,7,... (slot 0 block), lane 1 and 2; pod 1 segment 2 is EOS in the example, which names
    # the two 4-lane halves of an 8-lane OSFP <port>/1 and <port>/5 → Ethernet1/1, Ethernet1/5, Ethernet4/1, ...
    assert v[0].members[:3] == ("Ethernet1/1", "Ethernet1/5", "Ethernet4/1")


def test_bgp_rail_switch(devices: dict[str, DeviceConfig]) -> None:
    b = devices["p1-s1-rail3"].bgp
    assert (b.asn, b.maximum_paths, b.multipath_relax, b.aggregates) == (4200100003, 64, True, ())
    (g,) = b.peer_groups
    assert (g.name, g.remote_as, g.bfd) == ("SPINES", 4200001001, True)
    assert [n.ip for n in g.neighbors] == [f"10.4.1.{128 + 2 * i}" for i in range(8)]
    assert b.prefix_list_entries == ("10.0.0.147/32", "172.16.3.0/24")


def test_bgp_summaries(devices: dict[str, DeviceConfig]) -> None:
    assert devices["p1-s2-rail3-7"].bgp.aggregates == ("172.16.11.0/24",)
    assert devices["p2-s1-rail4-5-6-7"].bgp.aggregates == ("172.16.68.0/22",)
    assert devices["p1-spine1"].bgp.aggregates == ()  # pod aggregate is off by default


def test_bgp_spine_and_super_spine(devices: dict[str, DeviceConfig]) -> None:
    b = devices["p1-spine1"].bgp
    groups = {g.name: g for g in b.peer_groups}
    assert set(groups) == {"SUPER-SPINES", "RAIL-SWITCHES"}
    assert groups["SUPER-SPINES"].remote_as == 4200000000 and len(groups["SUPER-SPINES"].neighbors) == 32
    rails = groups["RAIL-SWITCHES"]
    assert rails.remote_as is None  # every rail switch has its own ASN
    first = rails.neighbors[0]
    assert (first.ip, first.remote_as, first.local_ip) == ("10.4.0.1", 4200100000, "10.4.0.0")
    assert len(rails.neighbors) == 8 * 2 + 4 * 4
    ss = {g.name: g for g in devices["core-ss1"].bgp.peer_groups}["SPINES"]
    assert ss.remote_as is None and {n.remote_as for n in ss.neighbors} == {4200001001, 4200001002}


def test_port_channels(devices: dict[str, DeviceConfig]) -> None:
    pcs = devices["p2-s1-rail0-1-2-3"].port_channels
    assert len(pcs) == 16  # 4 spines × 8 links / 2 members
    pc = pcs[0]
    assert (pc.name, pc.number, pc.members, pc.ipv4, pc.peer) == (
        "PortChannel33", 33, ("Ethernet256", "Ethernet264"), "10.4.64.1/31", "p2-spine1")
    member = devices["p2-s1-rail0-1-2-3"].interface("Ethernet264")
    assert (member.mode, member.channel, member.channel_number, member.ipv4) == ("member", "PortChannel33", 33, None)
    # one BGP session per port-channel, not per member
    (g,) = devices["p2-s1-rail0-1-2-3"].bgp.peer_groups
    assert len(g.neighbors) == 16 and g.neighbors[0].ip == "10.4.64.0"


def test_qos(devices: dict[str, DeviceConfig]) -> None:
    q = devices["p1-s1-rail0"].qos
    assert len(q.dscp_to_tc) == 64 and q.dscp_to_tc[26] == 3 and q.dscp_to_tc[48] == 6
    assert q.dscp_to_tc[3] == q.dscp_to_tc[4] == q.dscp_to_tc[24] == 0  # SONiC's and EOS's lossless defaults
    assert (q.lossless, q.pfc_to_queue, q.strict_queues, q.dwrr) == ((3,), ((3, 3),), (6,), ((0, 50), (3, 50)))
    assert q.tc_to_pg == (0, 0, 0, 3, 0, 0, 0, 0)
    assert (q.ecn.min_bytes, q.ecn.max_bytes, q.ecn.probability) == (150000, 1500000, 100)  # type: ignore[union-attr]
    assert (q.watchdog.detection_ms, q.watchdog.restoration_ms, q.watchdog.poll_ms) == (200, 200, 200)  # type: ignore[union-attr]


def test_eos_names_and_mtu() -> None:
    r = run(EXAMPLE)
    inv = r.inventory.model_copy(update={"fabric": r.inventory.fabric.model_copy(  # type: ignore[union-attr]
        update={"platform": Platform.EOS})})
    from railfabric.plan.allocate import allocate
    from railfabric.topology import expand

    topo = expand(inv)
    d = build_devices(inv, topo, allocate(inv, topo))["p1-s1-rail3"]
    assert d.mtu == 9214 and "9216 normalised to 9214" in d.mtu_note
    assert d.interface("Ethernet1/5").peer == "p1-s1-gpu002"  # 2x400G on an 8-lane port: lanes 1 and 5
    assert d.interface("Ethernet33/1").ipv4 == "10.4.1.129/31"


def test_optional_pod_aggregate_at_spines() -> None:
    r = run(EXAMPLE)
    inv = r.inventory.model_copy(update={"routing": r.inventory.routing.model_copy(  # type: ignore[union-attr]
        update={"spine_pod_aggregate": True})})
    devs = build_devices(inv, r.topology, r.plan)  # type: ignore[arg-type]
    # pod p owns segments_per_pod (8) consecutive /21 blocks = one /18: pod 1 172.16.0.0/18, pod 2 172.16.64.0/18
    assert devs["p1-spine3"].bgp.aggregates == ("172.16.0.0/18",)
    assert devs["p2-spine1"].bgp.aggregates == ("172.16.64.0/18",)
    assert devs["p1-s1-rail0"].bgp.aggregates == ()
