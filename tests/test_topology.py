"""railfabric/topology/: the expansion per tier, positions and /31 slots derived by hand.

The fabric: tests/helpers.py's small one (pod 1: spines p1-spine1/2, one single-rail segment with rails 0 and 1
on p1-s1-rail0 / p1-s1-rail1, 4 hosts × 2 NICs of 400G; 64-port 800G switches, uplinks = the upper half 33-64)
plus 2 super-spines (ss1, ss2) with 2 links from each spine. Limits: 4 pods × 4 segments × 8 rail switches × 16
uplinks = 2048 rail uplink slots, so core /31 slots start at 2048; 4 pods × 8 spines × 16 uplinks = 512 more, so
MLAG peer-link slots start at 2560.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from railfabric.inventory.intent import Inventory
from railfabric.topology import Expansion, LinkRole, Role, Topology, expand
from railfabric.topology.expand import pod_spines, super_spines
from tests.helpers import base_inventory, mlag_inventory, run_data


def _inv(tmp_path: Path, data: dict[str, Any]) -> Inventory:
    inv = run_data(tmp_path, data).inventory
    assert inv is not None
    return inv


def _with_supers(**ss: Any) -> dict[str, Any]:
    data = base_inventory()
    data["super_spines"] = {"count": 2, "model": "sw64", **ss}
    data["pods"][0]["spines"]["links_per_super_spine"] = 2
    return data


def _links(topo: Topology, role: LinkRole) -> list[tuple[str, int, int, int]]:
    return [(link.id, link.a.port, link.z.port, link.net_slot or 0) for link in topo.links if link.role is role]


def test_slot_bases(tmp_path: Path) -> None:
    x = Expansion(_inv(tmp_path, base_inventory()))
    assert (x.rail_tier_base, x.core_net_base, x.peer_net_base) == (8 + 4 * 8, 2048, 2560)


def test_super_spines_and_spines(tmp_path: Path) -> None:
    x = Expansion(_inv(tmp_path, _with_supers(planes=2)))
    ss = super_spines(x)
    assert [(s.name, s.slot, s.plane, s.role) for s in ss] == [("ss1", 0, 1, Role.SUPER_SPINE),
                                                               ("ss2", 1, 2, Role.SUPER_SPINE)]
    sp = pod_spines(x, 0, x.inv.pods[0])
    # spine j of pod p: tier slot (p-1)·8 + j-1, device slot after the 8 super-spine slots; planes round-robin
    assert [(s.name, s.tier_slot, s.slot, s.plane) for s in sp] == [("p1-spine1", 0, 8, 1), ("p1-spine2", 1, 9, 2)]
    assert list(x.topo.switches) == ["ss1", "ss2", "p1-spine1", "p1-spine2"]


def test_host_links(tmp_path: Path) -> None:
    topo = expand(_inv(tmp_path, base_inventory()))
    host = [(link.id, link.z.device, link.z.port, link.z.lane) for link in topo.links if link.role is LinkRole.HOST]
    # host-major; NIC n → rail n's switch; host h at position h-1 of the downlinks, 2 lanes per port
    assert host[:4] == [("p1-s1-gpu001:nic0p1", "p1-s1-rail0", 1, 1), ("p1-s1-gpu001:nic1p1", "p1-s1-rail1", 1, 1),
                        ("p1-s1-gpu002:nic0p1", "p1-s1-rail0", 1, 2), ("p1-s1-gpu002:nic1p1", "p1-s1-rail1", 1, 2)]
    assert host[-1] == ("p1-s1-gpu004:nic1p1", "p1-s1-rail1", 2, 2) and len(host) == 8
    seg = topo.segments[0]
    assert (seg.switches, seg.host_numbers, seg.groups, seg.vlan_base) == (
        ("p1-s1-rail0", "p1-s1-rail1"), (1, 2, 3, 4), ((0,), (1,)), 100)


def test_fabric_and_core_links(tmp_path: Path) -> None:
    topo = expand(_inv(tmp_path, _with_supers()))
    # rail r → spine j: rail uplink 33 + (j-1); spine downlinks 1-32 (it has uplinks now) in rail order;
    # slot = rail tier slot · 16 + u
    assert _links(topo, LinkRole.FABRIC) == [
        ("p1-s1-rail0>p1-spine1#1", 33, 1, 0), ("p1-s1-rail0>p1-spine2#1", 34, 1, 1),
        ("p1-s1-rail1>p1-spine1#1", 33, 2, 16), ("p1-s1-rail1>p1-spine2#1", 34, 2, 17)]
    # spine → ss k, 2 links: spine uplinks 33 + (k-1)·2 + link; super-spine downlinks from port 1 in spine order;
    # slot = 2048 + spine tier slot · 16 + u
    assert _links(topo, LinkRole.CORE) == [
        ("p1-spine1>ss1#1", 33, 1, 2048), ("p1-spine1>ss1#2", 34, 2, 2049),
        ("p1-spine1>ss2#1", 35, 1, 2050), ("p1-spine1>ss2#2", 36, 2, 2051),
        ("p1-spine2>ss1#1", 33, 3, 2064), ("p1-spine2>ss1#2", 34, 4, 2065),
        ("p1-spine2>ss2#1", 35, 3, 2066), ("p1-spine2>ss2#2", 36, 4, 2067)]
    roles = [link.role for link in topo.links]
    assert roles == [LinkRole.HOST] * 8 + [LinkRole.FABRIC] * 4 + [LinkRole.CORE] * 8  # tier order


def test_planes_restrict_core_links(tmp_path: Path) -> None:
    topo = expand(_inv(tmp_path, _with_supers(planes=2)))
    # plane 1: spine1 ↔ ss1 only; plane 2: spine2 ↔ ss2 only
    assert [(link.a.device, link.z.device) for link in topo.links if link.role is LinkRole.CORE] == [
        ("p1-spine1", "ss1"), ("p1-spine1", "ss1"), ("p1-spine2", "ss2"), ("p1-spine2", "ss2")]


def test_stride_overflows(tmp_path: Path) -> None:
    data = _with_supers(ports_per_pod=3)
    data["pods"][0]["spines"]["ports_per_segment"] = 1
    topo = expand(_inv(tmp_path, data))
    # 2 rail switches × 1 link each > 1 port per segment; 2 spines × 2 links > 3 ports per pod
    assert [m for _src, m, _path in topo.stride_overflows] == [
        "segment 1/1 needs 2 downlink ports on each spine but spines.ports_per_segment is 1",
        "pod 1 needs 4 downlink ports on each super-spine but super_spines.ports_per_pod is 3"]


def test_mlag_peer_links_and_bonds(tmp_path: Path) -> None:
    topo = expand(_inv(tmp_path, mlag_inventory("sonic")))
    # peer link: ports 31-32 (the top of the downlinks 1-32) on both sides, one /31 at 2560 + side a's tier slot
    # (rail group g: side a is switch index 2g+1, tier slot 2g)
    assert [(link.id, link.a.port, link.z.port, link.net_slot) for link in topo.peer_links] == [
        ("p1-s1-rail0a=p1-s1-rail0b#1", 31, 31, 2560), ("p1-s1-rail0a=p1-s1-rail0b#2", 32, 32, 2560),
        ("p1-s1-rail1a=p1-s1-rail1b#1", 31, 31, 2562), ("p1-s1-rail1a=p1-s1-rail1b#2", 32, 32, 2562)]
    # a NIC's two links are one bond: 1000 + (host-1)·1 + 0 + 1, the same number on both sides
    bonds = {(link.id, link.channel) for link in topo.links if link.role is LinkRole.HOST and link.host_number == 4}
    assert bonds == {("p1-s1-gpu004:nic0p1", 1004), ("p1-s1-gpu004:nic0p2", 1004),
                     ("p1-s1-gpu004:nic1p1", 1004), ("p1-s1-gpu004:nic1p2", 1004)}
