"""The shipped example (inventory/), checked against values derived by hand from its YAML and the layout rules
documented in railfabric/plan/allocate.py and railfabric/topology/expand.py.

Example limits: super_spines 16, pods 8, spines_per_pod 16, segments_per_pod 8, rail_switches_per_segment 16,
uplinks_per_rail_switch 64, uplinks_per_spine 64, segment_rail_block /21.
Device slot: super-spine i → i-1; spine (p, j) → 16 + (p-1)·16 + (j-1); rail switch (p, s, k) →
16 + 8·16 = 144, plus the rail tier slot ((p-1)·8 + (s-1))·16 + (k-1).
"""

from __future__ import annotations

import pytest

from railfabric.core.address import ntoa
from railfabric.pipeline import Result, run
from railfabric.topology import LinkRole, Role
from tests.helpers import EXAMPLE


@pytest.fixture(scope="module")
def res() -> Result:
    r = run(EXAMPLE)
    assert r.findings == [], [str(f) for f in r.findings]
    assert r.topology is not None and r.plan is not None
    return r


def link(res: Result, link_id: str):
    assert res.topology is not None
    matches = [lk for lk in res.topology.links if lk.id == link_id]
    assert len(matches) == 1, link_id
    return matches[0]


def test_counts(res: Result) -> None:
    s = res.summary()
    assert s is not None
    # 4 super-spines; pod 1: 4 spines + 8 single-rail + 4 dual-rail; pod 2: 4 spines + 2 multi-rail;
    # pod 3 (rail-only): 8 single-rail switches.
    assert s["switches"] == {"super-spine": 4, "spine": 8, "rail": 8 + 4 + 2 + 8}
    assert s["hosts"] == 16 + 16 + 16 + 8
    assert s["gpus"] == 56 * 8
    # host links: one per NIC; fabric: p1s1 8 sw × 4 spines × 2, p1s2 4 × 4 × 4, p2s1 2 × 4 × 8;
    # core: pod 1 4 spines × 4 ss × 8, pod 2 4 × 4 × 4.
    assert s["links"] == {"host": 448, "fabric": 64 + 64 + 64, "core": 128 + 64}


def test_names_and_roles(res: Result) -> None:
    sw = res.topology.switches  # type: ignore[union-attr]
    assert "core-ss1" in sw and "ss1" not in sw  # hostname override
    assert sw["core-ss1"].key == "ss1" and sw["core-ss1"].rack == "DH1-R01"
    assert [n for n in sw if sw[n].role is Role.RAIL and sw[n].pod == 1 and sw[n].segment == 2] == [
        "p1-s2-rail0-4", "p1-s2-rail1-5", "p1-s2-rail2-6", "p1-s2-rail3-7"]
    assert sw["p2-s1-rail4-5-6-7"].rails == (4, 5, 6, 7)
    assert sw["p3-s1-rail7"].rails == (7,)


@pytest.mark.parametrize(("name", "loopback", "asn", "mgmt"), [
    ("core-ss1", "10.0.0.0", 4200000000, "192.168.0.16"),
    ("ss4", "10.0.0.3", 4200000000, "192.168.0.19"),
    ("p1-spine1", "10.0.0.16", 4200001001, "192.168.0.32"),
    ("p2-spine4", "10.0.0.35", 4200001002, "192.168.0.51"),
    ("p1-s1-rail0", "10.0.0.144", 4200100000, "192.168.0.160"),
    ("p1-s1-rail3", "10.0.0.147", 4200100003, "192.168.15.3"),  # management pinned in devices.yml
    ("p1-s2-rail0-4", "10.0.0.160", 4200100016, "192.168.0.176"),
    ("p2-s1-rail0-1-2-3", "10.0.1.16", 4200100128, "192.168.1.32"),
    ("p3-s1-rail7", "10.0.1.151", 4200100263, "192.168.1.167"),
])
def test_identity_allocations(res: Result, name: str, loopback: str, asn: int, mgmt: str) -> None:
    plan = res.plan
    assert ntoa(plan.loopback[name]) == loopback  # type: ignore[union-attr]
    assert plan.asn[name] == asn  # type: ignore[union-attr]
    assert ntoa(plan.management[name]) == mgmt  # type: ignore[union-attr]


@pytest.mark.parametrize(("switch", "rail", "vlan", "prefix", "gateway"), [
    # p1 s1 single-rail: block 172.16.0.0/21, one /24 per switch
    ("p1-s1-rail0", 0, 100, "172.16.0.0/24", "172.16.0.1"),
    ("p1-s1-rail7", 7, 107, "172.16.7.0/24", "172.16.7.1"),
    # p1 s2 dual-rail: block 172.16.8.0/21, group g owns a /24 split in two /25
    ("p1-s2-rail1-5", 1, 101, "172.16.9.0/25", "172.16.9.1"),
    ("p1-s2-rail1-5", 5, 105, "172.16.9.128/25", "172.16.9.129"),
    ("p1-s2-rail3-7", 7, 107, "172.16.11.128/25", "172.16.11.129"),
    # p2 s1 multi-rail (4 per switch): block slot 8 → 172.16.64.0/21, /22 per switch
    ("p2-s1-rail0-1-2-3", 2, 102, "172.16.66.0/24", "172.16.66.1"),
    ("p2-s1-rail4-5-6-7", 4, 104, "172.16.68.0/24", "172.16.68.1"),
    # p3 s1 rail-only: block slot 16 → 172.16.128.0/21
    ("p3-s1-rail5", 5, 105, "172.16.133.0/24", "172.16.133.1"),
])
def test_rail_subnets(res: Result, switch: str, rail: int, vlan: int, prefix: str, gateway: str) -> None:
    sub = res.plan.rail_subnets[(switch, rail)]  # type: ignore[union-attr]
    assert (sub.vlan, str(sub.prefix), ntoa(sub.gateway)) == (vlan, prefix, gateway)


def test_summaries(res: Result) -> None:
    agg = {k: str(v) for k, v in res.plan.aggregates.items()}  # type: ignore[union-attr]
    # single-rail switches advertise their subnet as is: no aggregate
    assert not any(k.startswith(("p1-s1-", "p3-s1-")) for k in agg)
    assert agg["p1-s2-rail0-4"] == "172.16.8.0/24"
    assert agg["p1-s2-rail1-5"] == "172.16.9.0/24"
    assert agg["p2-s1-rail0-1-2-3"] == "172.16.64.0/22"
    assert agg["p2-s1-rail4-5-6-7"] == "172.16.68.0/22"
    assert len(agg) == 4 + 2


@pytest.mark.parametrize(("link_id", "a_port", "z_dev", "z_port", "address"), [
    ("p1-s1-gpu001:nic0p1", (1, 0), "p1-s1-rail0", (1, 1), "172.16.0.2"),
    ("p1-s1-gpu016:nic0p1", (1, 0), "p1-s1-rail0", (8, 2), "172.16.0.17"),
    # p1-s1-rail3 has port 8 disabled: hosts 15 and 16 move to port 9
    ("p1-s1-gpu014:nic3p1", (1, 0), "p1-s1-rail3", (7, 2), "172.16.3.15"),
    ("p1-s1-gpu015:nic3p1", (1, 0), "p1-s1-rail3", (9, 1), "172.16.3.16"),
    # dual-rail interleaved blocks: rail 1 → [1,4,7,...,22], rail 5 → [2,5,8,...,23]
    ("p1-s2-gpu016:nic1p1", (1, 0), "p1-s2-rail1-5", (22, 2), "172.16.9.17"),
    ("p1-s2-gpu003:nic5p1", (1, 0), "p1-s2-rail1-5", (5, 1), "172.16.9.132"),
    ("p1-s2-gpu009:nic5p1", (1, 0), "p1-s2-rail1-5", (14, 1), "172.16.9.138"),
    # multi-rail, no blocks: host-major, position (host-1)·4 + rail slot, 2 lanes per port
    ("p2-s1-gpu001:nic1p1", (1, 0), "p2-s1-rail0-1-2-3", (1, 2), "172.16.65.2"),
    ("p2-s1-gpu016:nic3p1", (1, 0), "p2-s1-rail0-1-2-3", (32, 2), "172.16.67.17"),
    ("p2-s1-gpu016:nic6p1", (1, 0), "p2-s1-rail4-5-6-7", (32, 1), "172.16.70.17"),
    ("p3-s1-gpu008:nic0p1", (1, 0), "p3-s1-rail0", (4, 2), "172.16.128.9"),
])
def test_host_links(res: Result, link_id: str, a_port: tuple, z_dev: str, z_port: tuple, address: str) -> None:
    lk = link(res, link_id)
    assert lk.role is LinkRole.HOST
    assert (lk.a.port, lk.a.lane) == a_port
    assert lk.z.device == z_dev
    assert (lk.z.port, lk.z.lane) == z_port
    assert lk.z.speed == 400
    assert ntoa(res.plan.host_addr[link_id]) == address  # type: ignore[union-attr]


def test_rail_mapping_nic_r_on_rail_r(res: Result) -> None:
    topo = res.topology
    for lk in topo.links:  # type: ignore[union-attr]
        if lk.role is LinkRole.HOST:
            assert lk.nic == lk.rail
            assert lk.rail in topo.switches[lk.z.device].rails  # type: ignore[union-attr]


@pytest.mark.parametrize(("link_id", "a_port", "z_port", "net"), [
    # rail tier slot 0, u = (spine-1)·2 + link-1, /31 offset 2·(0·64 + u) in 10.4.0.0/14
    ("p1-s1-rail0>p1-spine1#1", 33, 1, "10.4.0.0"),
    ("p1-s1-rail0>p1-spine2#2", 36, 2, "10.4.0.6"),
    ("p1-s1-rail0>p1-spine4#2", 40, 2, "10.4.0.14"),
    # p1-s2-rail2-6: tier slot 18, 4 links per spine, uplink block 33-64: spine 3 link 2 → u 9 → port 42;
    # on p1-spine3 it is downlink position 16 + 2·4 + 1 = 25 → port 26
    ("p1-s2-rail2-6>p1-spine3#2", 42, 26, "10.4.9.18"),
])
def test_fabric_links(res: Result, link_id: str, a_port: int, z_port: int, net: str) -> None:
    lk = link(res, link_id)
    assert (lk.a.port, lk.z.port) == (a_port, z_port)
    assert lk.a.lane == 0 and lk.z.lane == 0 and lk.a.speed == 800
    upper, lower = res.plan.p2p_ends(lk.bundle or lk.id)  # type: ignore[union-attr]
    assert ntoa(upper) == net  # the spine takes the even address
    assert lower == upper + 1


def test_port_channels(res: Result) -> None:
    # pod 2 bundles links in pairs: links 1+2 → pc1, 3+4 → pc2 ...; one /31 per bundle.
    a = link(res, "p2-s1-rail0-1-2-3>p2-spine1#1")
    b = link(res, "p2-s1-rail0-1-2-3>p2-spine1#2")
    c = link(res, "p2-s1-rail0-1-2-3>p2-spine2#8")
    assert a.bundle == b.bundle == "p2-s1-rail0-1-2-3>p2-spine1#pc1"
    assert c.bundle == "p2-s1-rail0-1-2-3>p2-spine2#pc4"
    plan = res.plan
    # tier slot 128 · 64 = 8192 → offset 16384 = 10.4.64.0; spine 2 pc4 → u = 8 + 6 = 14 → 10.4.64.28
    assert ntoa(plan.p2p[a.bundle]) == "10.4.64.0"  # type: ignore[union-attr,index]
    assert ntoa(plan.p2p[c.bundle]) == "10.4.64.28"  # type: ignore[union-attr,index]
    assert (a.a.port, b.a.port, c.a.port) == (33, 34, 48)
    bundles = {lk.bundle for lk in res.topology.links if lk.bundle}  # type: ignore[union-attr]
    assert len(bundles) == 2 * 4 * 4  # 2 rail switches × 4 spines × 4 port-channels


def test_core_links(res: Result) -> None:
    # spine uplinks after all 8·8·16·64 = 65536 rail slots; spine slot (p-1)·16 + (j-1), u = (ss-1)·L + link-1
    a = link(res, "p1-spine1>core-ss1#1")
    assert (a.a.port, a.z.port) == (33, 1)
    assert ntoa(res.plan.p2p[a.id]) == "10.6.0.0"  # type: ignore[union-attr]
    b = link(res, "p1-spine4>ss4#8")
    assert (b.a.port, b.z.port) == (64, 32)
    c = link(res, "p2-spine3>ss4#4")  # spine slot 18, u = 3·4 + 3 = 15 → slot 65536 + 1167 → 10.6.9.30
    assert ntoa(res.plan.p2p[c.id]) == "10.6.9.30"  # type: ignore[union-attr]
    assert c.a.port == 33 + 15
    assert c.z.port == 32 + 2 * 4 + 3 + 1  # after pod 1's 32 ports: spine 3 link 4


def test_rail_only_pod_has_no_uplinks(res: Result) -> None:
    names = {n for n, s in res.topology.switches.items() if s.pod == 3}  # type: ignore[union-attr]
    assert len(names) == 8
    for lk in res.topology.links:  # type: ignore[union-attr]
        if lk.a.device in names:
            pytest.fail(f"rail-only switch has an uplink: {lk.id}")


def test_pool_usage(res: Result) -> None:
    pools = res.summary()["pools"]  # type: ignore[index]
    assert pools["loopbacks"]["used"] == 34
    # /31s: 128 fabric links in pod 1 + 32 port-channels in pod 2 + 192 core links = 352 /31 = 704 addresses
    assert pools["fabric_links"]["used"] == 704
    # rail subnets: p1s1 8 × 256 + p1s2 8 × 128 + p2s1 8 × 256 + p3s1 8 × 256
    assert pools["rail_subnets"]["used"] == 2048 + 1024 + 2048 + 2048


def test_example_is_non_blocking_by_construction(res: Result) -> None:
    """Every switch with uplinks has exactly as much capacity up as down (Gbit/s), as the YAML comments claim."""
    down: dict[str, int] = {}
    up: dict[str, int] = {}
    for lk in res.topology.links:  # type: ignore[union-attr]
        down[lk.z.device] = down.get(lk.z.device, 0) + lk.z.speed
        if lk.role is not LinkRole.HOST:
            up[lk.a.device] = up.get(lk.a.device, 0) + lk.a.speed
    # p1-s1: 16 × 400G down, 4 spines × 2 × 800G up; p1-s2: 2 rails × 16 × 400G, 4 × 4 × 800G;
    # p2-s1: 4 rails × 16 × 400G, 4 × 8 × 800G; spines pod 1: 8·2 + 4·4 = 32 × 800G down, 4 × 8 × 800G up.
    assert (down["p1-s1-rail0"], up["p1-s1-rail0"]) == (6400, 6400)
    assert (down["p1-s2-rail3-7"], up["p1-s2-rail3-7"]) == (12800, 12800)
    assert (down["p2-s1-rail0-1-2-3"], up["p2-s1-rail0-1-2-3"]) == (25600, 25600)
    assert (down["p1-spine2"], up["p1-spine2"]) == (25600, 25600)
    assert (down["p2-spine2"], up["p2-spine2"]) == (12800, 12800)
    for name, sw in res.topology.switches.items():  # type: ignore[union-attr]
        if name in up:
            assert down[name] == up[name], name
        else:
            assert sw.role is Role.SUPER_SPINE or sw.pod == 3, name
