"""MLAG dual homing in the platform-neutral stages: topology (peer links, host bonds), allocation (peer /31, the
pair's shared ASN and subnet), the MLAG rules (MLAG001-004, PORT001/PORT002 for peer-link ports), the rail map and
the IP plan. Values derived by hand from tests/helpers.py `mlag_inventory`:

- limits: pods 4, segments_per_pod 4, rail_switches_per_segment 8, spines_per_pod 8, super_spines 8, uplinks 16/16;
- segment 1/1: rails 2, single-rail, hosts with 2 NICs × 2 ports of 400G → rail groups (0,) and (1,), two sides
  each: p1-s1-rail0a (index 1), rail0b (2), rail1a (3), rail1b (4); rail tier slots 0, 1, 2, 3;
- model sw64: 64 × 800G with 2x400G; the pod has spines, so uplinks are 33-64 and downlinks 1-32; the peer link
  (2 ports by default) takes the two highest free ports, 31 and 32, and hosts run over 1-30 at two per port:
  host n lands on port (n-1)//2 + 1, lane (n-1)%2 + 1 on both switches of its rail's pair;
- MLAG bond of host n, rail slot 0 (one rail per switch): port-channel = MLAG id = 1000 + (n-1)·1 + 0 + 1;
- peer /31: fabric_links 10.32.0.0/11; /31 slots: rail uplinks 4·4·8·16 = 2048, spine uplinks 4·8·16 = 512, so
  the peer range starts at slot 2560; pair rail0 (side a tier slot 0) → slot 2560 → offset 5120 = 10.32.20.0/31,
  pair rail1 (tier slot 2) → 10.32.20.4/31; side b (the upper end) takes the even address;
- ASN: rail_switch_base 4200100000 + side a's tier slot: 4200100000 for pair rail0, 4200100002 for pair rail1;
- rail subnets: segment block 172.16.0.0/21; the pair shares one /24 per rail group: rail 0 → 172.16.0.0/24,
  rail 1 → 172.16.1.0/24; gateway .1, host n = .1 + n; VLAN 100 + rail.
"""

from __future__ import annotations

from pathlib import Path

from railfabric.core.address import ntoa
from railfabric.topology import LinkRole
from tests.helpers import mlag_inventory, run_data
from tests.test_outputs import mini_artifacts, read_csv


def _run(tmp_path: Path, data: dict, name: str = "a"):
    return run_data(tmp_path / name, data)


def test_peer_links_and_host_bonds(tmp_path: Path) -> None:
    r = _run(tmp_path, mlag_inventory())
    assert r.findings == []
    topo = r.topology
    assert topo is not None
    peer = [(lk.id, lk.a.device, lk.a.port, lk.z.device, lk.z.port, lk.a.speed, lk.bundle) for lk in topo.peer_links]
    assert peer == [
        ("p1-s1-rail0a=p1-s1-rail0b#1", "p1-s1-rail0a", 31, "p1-s1-rail0b", 31, 800, "p1-s1-rail0a=p1-s1-rail0b"),
        ("p1-s1-rail0a=p1-s1-rail0b#2", "p1-s1-rail0a", 32, "p1-s1-rail0b", 32, 800, "p1-s1-rail0a=p1-s1-rail0b"),
        ("p1-s1-rail1a=p1-s1-rail1b#1", "p1-s1-rail1a", 31, "p1-s1-rail1b", 31, 800, "p1-s1-rail1a=p1-s1-rail1b"),
        ("p1-s1-rail1a=p1-s1-rail1b#2", "p1-s1-rail1a", 32, "p1-s1-rail1b", 32, 800, "p1-s1-rail1a=p1-s1-rail1b"),
    ]
    assert all(lk.role is LinkRole.PEER for lk in topo.peer_links)
    assert not any(lk.role is LinkRole.PEER for lk in topo.links)  # the solver never sees them
    host = {lk.id: lk for lk in topo.links if lk.role is LinkRole.HOST}
    # host 3, NIC 1 (rail 1): port 2 lane 1 on rail1a and rail1b, bond 1003 on both
    for side, sw in ((1, "p1-s1-rail1a"), (2, "p1-s1-rail1b")):
        lk = host[f"p1-s1-gpu003:nic1p{side}"]
        assert (lk.z.device, lk.z.port, lk.z.lane, lk.bundle, lk.channel) == (sw, 2, 1, "p1-s1-gpu003:nic1", 1003)


def test_pair_addresses_and_asn(tmp_path: Path) -> None:
    r = _run(tmp_path, mlag_inventory())
    plan = r.plan
    assert plan is not None
    assert ntoa(plan.p2p["p1-s1-rail0a=p1-s1-rail0b"]) == "10.32.20.0"
    assert ntoa(plan.p2p["p1-s1-rail1a=p1-s1-rail1b"]) == "10.32.20.4"
    assert [plan.asn[f"p1-s1-rail{x}"] for x in ("0a", "0b", "1a", "1b")] == [4200100000, 4200100000,
                                                                           4200100002, 4200100002]
    assert str(plan.rail_subnets[("p1-s1-rail1b", 1)].prefix) == "172.16.1.0/24"
    assert plan.rail_subnets[("p1-s1-rail1a", 1)].gateway == plan.rail_subnets[("p1-s1-rail1b", 1)].gateway
    # both links of a bond carry the NIC's one address: host 3 → 172.16.1.4
    assert {ntoa(plan.host_addr[f"p1-s1-gpu003:nic1p{p}"]) for p in (1, 2)} == {"172.16.1.4"}


def test_device_model_of_a_pair(tmp_path: Path) -> None:
    r = _run(tmp_path, mlag_inventory())
    assert r.findings == []
    from railfabric.device import build_devices

    devices = build_devices(r.inventory, r.topology, r.plan)
    a, b = devices["p1-s1-rail0a"], devices["p1-s1-rail0b"]
    assert a.mlag is not None and b.mlag is not None
    assert (a.mlag.domain, a.mlag.local_ip, a.mlag.peer_ip, a.mlag.primary) == ("p1-s1-g1", "10.32.20.1",
                                                                                "10.32.20.0", True)
    assert (b.mlag.domain, b.mlag.local_ip, b.mlag.peer_ip, b.mlag.primary) == ("p1-s1-g1", "10.32.20.0",
                                                                                "10.32.20.1", False)
    pcs = {pc.number: pc for pc in a.port_channels}
    assert sorted(pcs) == [1000, 1001, 1002, 1003, 1004]
    assert (pcs[1000].mode, pcs[1000].trunk_vlans, pcs[1000].members) == ("trunk", (100, 4094),
                                                                          ("Ethernet240", "Ethernet248"))
    assert (pcs[1003].mode, pcs[1003].vlan, pcs[1003].mlag, pcs[1003].members) == ("access", 100, 1003,
                                                                                    ("Ethernet8",))
    member = a.interface("Ethernet8")  # port 2 lane 1 (SONiC: (2-1)·8 = 8)
    assert (member.mode, member.channel, member.vlan, member.qos, member.speed) == ("member", "PortChannel1003",
                                                                                   None, True, 400)
    vlan = a.vlans[0]
    assert (vlan.id, vlan.gateway, vlan.virtual, vlan.tagged) == (100, "172.16.0.1/24", True, ("PortChannel1000",))
    assert vlan.members == ("PortChannel1001", "PortChannel1002", "PortChannel1003", "PortChannel1004")
    group = next(g for g in a.bgp.peer_groups if g.name == "MLAG-PEER")
    assert (group.remote_as, group.next_hop_self, [n.ip for n in group.neighbors]) == (4200100000, True,
                                                                                       ["10.32.20.0"])


def test_rail_map_and_ip_plan(tmp_path: Path) -> None:
    _r, arts = mini_artifacts(tmp_path, mlag_inventory())
    rows = read_csv(arts["hosts/railmap.csv"], "railfabric host rail map v2")
    gpu1 = [(x["nic_port"], x["switch"], x["address"], x["gateway"], x["bond"], x["bond_mode"]) for x in rows
            if x["host"] == "p1-s1-gpu003" and x["gpu"] == "1"]
    assert gpu1 == [("1", "p1-s1-rail1a", "172.16.1.4/24", "172.16.1.1", "bond1", "802.3ad"),
                    ("2", "p1-s1-rail1b", "172.16.1.4/24", "172.16.1.1", "bond1", "802.3ad")]
    ip = [x for x in read_csv(arts["ipplan.csv"], "railfabric ip plan v1") if x["owner"] == "p1-s1-gpu003"]
    assert [(x["address"], x["interface"], x["detail"]) for x in ip] == [
        ("172.16.0.4/24", "bond0", "rail 0 vlan 100 via MLAG p1-s1-rail0a + p1-s1-rail0b"),
        ("172.16.1.4/24", "bond1", "rail 1 vlan 101 via MLAG p1-s1-rail1a + p1-s1-rail1b")]
    peer = [(x["owner"], x["interface"], x["detail"]) for x in read_csv(arts["ipplan.csv"], "railfabric ip plan v1")
            if x["address"] in ("10.32.20.0/31", "10.32.20.1/31")]
    assert sorted(peer) == [("p1-s1-rail0a", "Vlan4094", "peer p1-s1-rail0b Vlan4094"),
                            ("p1-s1-rail0b", "Vlan4094", "peer p1-s1-rail0a Vlan4094")]
    cabling = [x for x in read_csv(arts["cabling.csv"], "railfabric cabling plan v1") if x["role"] == "peer"]
    assert [(x["link_id"], x["a_interface"], x["z_interface"], x["bundle"]) for x in cabling[:2]] == [
        ("p1-s1-rail0a=p1-s1-rail0b#1", "Ethernet240", "Ethernet240", "p1-s1-rail0a=p1-s1-rail0b"),
        ("p1-s1-rail0a=p1-s1-rail0b#2", "Ethernet248", "Ethernet248", "p1-s1-rail0a=p1-s1-rail0b")]


def _codes(r) -> list[str]:
    return sorted(f.code for f in r.findings)


def test_no_peer_link_is_refused(tmp_path: Path) -> None:
    """Both peer-link ports of rail0a disabled: the pair has no peer link, so after one host link fails the shared
    gateway blackholes the traffic the spines send to the other switch (MLAG001, at the segment)."""
    data = mlag_inventory()
    data["devices"] = {"p1-s1-rail0a": {"disabled_ports": [31, 32]}}
    r = _run(tmp_path, data)
    assert "MLAG001" in _codes(r)
    f = next(f for f in r.findings if f.code == "MLAG001")
    assert f.severity.value == "error"
    assert "p1-s1-rail0a / p1-s1-rail0b has no peer link" in f.message and "blackholed" in f.message
    assert _codes(r).count("PORT005") == 2  # each peer-link member taken off is named


def test_thin_or_single_peer_link_warns(tmp_path: Path) -> None:
    r = _run(tmp_path, mlag_inventory(peer_link_ports=1), "one")
    assert _codes(r) == ["MLAG004", "MLAG004"]  # one per pair
    assert all(f.severity.value == "warning" and "one port" in f.message for f in r.findings)
    assert r.topology is not None and [lk.a.port for lk in r.topology.peer_links] == [32, 32]


def test_pair_platform_mismatch(tmp_path: Path) -> None:
    data = mlag_inventory()
    data["devices"] = {"p1-s1-rail0b": {"platform": "eos"}}
    r = _run(tmp_path, data)
    assert "MLAG002" in _codes(r)
    assert "platform sonic and eos differ" in next(f.message for f in r.findings if f.code == "MLAG002")


def test_peer_vlan_clash(tmp_path: Path) -> None:
    r = _run(tmp_path, mlag_inventory(vlan_base=4093))  # rails 0, 1 → VLANs 4093, 4094
    assert "MLAG003" in _codes(r)


def test_peer_link_ports_in_blocks(tmp_path: Path) -> None:
    data = mlag_inventory()
    data["switch_models"]["sw64"]["port_blocks"] = {"peer_link": "33-34"}  # the uplinks' ports
    r = _run(tmp_path, data)
    assert "PORT002" in _codes(r)
    data["switch_models"]["sw64"]["port_blocks"] = {"peer_link": "27-28"}
    r = _run(tmp_path, data, "b")
    assert r.findings == []
    assert [lk.a.port for lk in r.topology.peer_links][:2] == [27, 28]  # type: ignore[union-attr]


def test_peer_link_ports_without_mlag(tmp_path: Path) -> None:
    data = mlag_inventory(peer_link_ports=2)
    data["pods"][0]["segments"][0]["dual_homing"] = "two-vlans"
    r = _run(tmp_path, data)
    assert _codes(r) == ["TOPO004"]
    assert "peer_link_ports is for dual_homing: mlag only" in r.findings[0].message


def test_platform_without_mlag_is_refused(tmp_path: Path, monkeypatch) -> None:
    """A platform whose record does not list mlag in `dual_homing` cannot host an MLAG pair: PLAT001 per pair (the
    example's two rail groups → p1-s1-rail0a/0b and rail1a/1b), never a half-rendered pair."""
    import dataclasses

    from railfabric.platforms import PLATFORMS

    monkeypatch.setitem(PLATFORMS, "eos", dataclasses.replace(PLATFORMS["eos"], dual_homing=frozenset()))
    result = run_data(tmp_path, mlag_inventory("eos"))
    plat = [f for f in result.findings if f.code == "PLAT001"]
    assert [f.message.split(":")[0] for f in plat] == ["MLAG pair p1-s1-rail0a / p1-s1-rail0b",
                                                       "MLAG pair p1-s1-rail1a / p1-s1-rail1b"]
    assert "cannot be expressed on eos (p1-s1-rail0a); eos offers no dual homing" in plat[0].message
    # the stock EOS record renders MLAG: no PLAT001
    monkeypatch.undo()
    assert "PLAT001" not in [f.code for f in run_data(tmp_path / "stock", mlag_inventory("eos")).findings]


def test_nxos_peer_vlan_clash_is_3967(tmp_path: Path) -> None:
    """NX-OS carries the vPC peer SVI on VLAN 3967 (4094 is in its reserved block): rails 0, 1 at vlan_base 3966
    are VLANs 3966 and 3967, so rail 1 clashes there, and only there (on SONiC the same VLANs are fine)."""
    data = mlag_inventory(vlan_base=3966)
    data["pods"][0]["segments"][0]["platform"] = "nxos"
    r = _run(tmp_path, data)
    (f,) = [f for f in r.findings if f.code == "MLAG003"]
    assert f.severity.value == "error" and "a rail VLAN is 3967, the MLAG peer VLAN on nxos" in f.message
    assert "MLAG003" not in _codes(_run(tmp_path / "sonic", mlag_inventory(vlan_base=3966)))


def test_rail_vlans_in_the_nxos_reserved_block(tmp_path: Path) -> None:
    """NX-OS reserves VLANs 3968-4094: single-homed rails 0, 1 at vlan_base 3967 are VLANs 3967 (fine) and 3968
    (reserved). The finding points at vlan_base and names the VLAN; SONiC has no such block."""
    from tests.helpers import base_inventory, run_data

    data = base_inventory()
    data["pods"][0]["segments"][0]["vlan_base"] = 3967
    data["fabric"]["platform"] = "nxos"
    r = run_data(tmp_path / "nxos", data)
    (f,) = [f for f in r.findings if f.code == "VLAN002"]
    assert f.severity.value == "error" and f.message == ("segment 1/1: rail VLAN(s) 3968 on nxos are in its reserved "
                                                         "block 3968-4094")
    assert f.location is not None and f.location.line > 0
    data["fabric"]["platform"] = "sonic"
    assert "VLAN002" not in [f.code for f in run_data(tmp_path / "sonic", data).findings]
