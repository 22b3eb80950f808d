"""The shortcuts the shared link index allows (railfabric/checks/solver/index.py): each one proven on a clean fabric,
and each broken by a single odd port or switch, which the check then reports exactly as before.

base_inventory(): sw64 = 64 × 800G, breakout 2x400G; segment 1 single-rail, 2 rails (p1-s1-rail0, p1-s1-rail1), 4
hosts of 2 × 400G NICs. On p1-s1-rail0 host n's NIC 0 lands on port (n-1)//2+1 lane (n-1)%2+1 (host 1 → 1/1, host 2
→ 1/2, host 3 → 2/1, host 4 → 2/2); uplinks are native 800G on ports 33 (spine 1) and 34 (spine 2). So every rail
switch is cabled at two speeds (400G lanes, 800G native), on different ports.
"""

from __future__ import annotations

import copy
from pathlib import Path

from railfabric.checks.rules.buffer_rules import check_buffers
from railfabric.checks.solver.index import link_index
from railfabric.checks.solver.rails import _ports_fine, check_port_use
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.plan.allocate import Plan
from railfabric.topology import End, Link, Topology
from tests.helpers import SONIC_BUFFERS, base_inventory, run_data


def _fabric(tmp_path: Path, data: dict | None = None, clean: bool = True) -> tuple[Inventory, Topology, SourceMap]:
    res = run_data(tmp_path, data or base_inventory())
    assert res.inventory is not None and isinstance(res.topology, Topology) and isinstance(res.plan, Plan)
    assert not clean or not [f for f in res.findings if f.severity == "error"], [str(f) for f in res.findings]
    return res.inventory, res.topology, res.loaded.source


def _link(topo: Topology, link_id: str) -> Link:
    return next(lk for lk in topo.links if lk.id == link_id)


def _port_messages(inv: Inventory, topo: Topology) -> list[tuple[str, str]]:
    return [(f.code, f.message) for f in check_port_use(inv, topo, lambda _link, _path: None, link_index(topo))]


def test_a_clean_fabric_is_proven_without_a_port_walk(tmp_path: Path) -> None:
    inv, topo, _src = _fabric(tmp_path)
    assert _ports_fine(inv, topo, link_index(topo))  # two speeds per rail switch, one per port
    assert _port_messages(inv, topo) == []


def test_one_cable_on_a_taken_lane(tmp_path: Path) -> None:
    inv, topo, _src = _fabric(tmp_path)
    host2 = _link(topo, "p1-s1-gpu002:nic0p1")
    assert host2.z == End("p1-s1-rail0", 1, 2, 400)
    host2.z = End("p1-s1-rail0", 1, 1, 400)  # onto host 1's lane
    assert not _ports_fine(inv, topo, link_index(topo))
    assert _port_messages(inv, topo) == [
        ("PORT002", "switch p1-s1-rail0 port 1/1 carries 2 cables: p1-s1-gpu001:nic0p1, p1-s1-gpu002:nic0p1")]


def test_one_port_at_two_speeds_on_distinct_lanes(tmp_path: Path) -> None:
    # every shape is valid (800G native on lane 0, 400G on lane 1) and the lanes differ: only the one-speed-per-port
    # test of a switch cabled at two speeds sees it
    inv, topo, _src = _fabric(tmp_path)
    _link(topo, "p1-s1-gpu002:nic0p1").z = End("p1-s1-rail0", 1, 0, 800)
    assert not _ports_fine(inv, topo, link_index(topo))
    assert _port_messages(inv, topo) == [
        ("PORT002", "switch p1-s1-rail0 port 1 carries a native cable (p1-s1-gpu002:nic0p1) and breakout lane(s) 1/1 "
                    "(p1-s1-gpu001:nic0p1): a native port takes one cable")]


def test_one_disabled_port_under_cables(tmp_path: Path) -> None:
    inv, topo, _src = _fabric(tmp_path)
    rail1 = topo.switches["p1-s1-rail1"]
    rail1.disabled_ports = frozenset({2, 40})  # port 2: hosts 3 and 4 (NIC 1); port 40: nothing
    assert not _ports_fine(inv, topo, link_index(topo))
    assert _port_messages(inv, topo) == [
        ("PORT007", "p1-s1-gpu003:nic1p1 is cabled to p1-s1-rail1 port 2/1, a disabled port"),
        ("PORT007", "p1-s1-gpu004:nic1p1 is cabled to p1-s1-rail1 port 2/2, a disabled port")]
    rail1.disabled_ports = frozenset({40})
    assert _ports_fine(inv, topo, link_index(topo)) and _port_messages(inv, topo) == []


def test_one_lane_past_its_mode(tmp_path: Path) -> None:
    inv, topo, _src = _fabric(tmp_path)
    _link(topo, "p1-s1-gpu003:nic0p1").z = End("p1-s1-rail0", 2, 3, 400)  # 2x400G has lanes 1 and 2
    assert not _ports_fine(inv, topo, link_index(topo))
    assert [code for code, _m in _port_messages(inv, topo)] == ["PORT006"]


def test_headroom_counted_per_switch_shape_names_the_one_odd_switch(tmp_path: Path) -> None:
    # tests/test_buffers.py: a 400G host port (3 m) reserves 247,808 B, an 800G uplink (30 m) 379,904 B. Host 1's
    # NIC 0 moved from p1-s1-rail0 to the free port 3 of p1-s1-rail1: rail1 has 5 host ports + 2 uplinks =
    # 5 x 247,808 + 2 x 379,904 = 1,998,848 B, rail0 3 x 247,808 + 2 x 379,904 = 1,503,232 B. With a budget of
    # 1,751,040 B (what both needed before) only rail1 is short, by 247,808 B.
    data = base_inventory()
    data["switch_models"]["sw64"]["buffers"] = {**copy.deepcopy(SONIC_BUFFERS),
                                                "total_bytes": 2 * 52_161_690 + 1_751_040}
    inv, topo, src = _fabric(tmp_path, data)
    host1 = _link(topo, "p1-s1-gpu001:nic0p1")
    assert host1.z == End("p1-s1-rail0", 1, 1, 400)
    host1.z = End("p1-s1-rail1", 3, 1, 400)
    found = [f for f in check_buffers(inv, topo, src, link_index(topo)) if f.code == "BUF002"]
    assert len(found) == 1
    assert found[0].message.startswith("the lossless PGs of p1-s1-rail1 (model 'sw64') reserve 1,998,848 bytes")
    assert "by at least 247,808 bytes" in found[0].hint


def test_headroom_tie_goes_to_the_first_switch_in_link_order(tmp_path: Path) -> None:
    # both rail switches need 4 x 247,808 + 2 x 379,904 = 1,751,040 B (tests/test_buffers.py); one byte short names
    # the first of them in link order: p1-s1-rail0 as expanded, p1-s1-rail1 once its links come first
    data = base_inventory()
    data["switch_models"]["sw64"]["buffers"] = {**copy.deepcopy(SONIC_BUFFERS),
                                                "total_bytes": 2 * 52_161_690 + 1_751_039}
    inv, topo, src = _fabric(tmp_path, data, clean=False)

    def named() -> list[str]:
        return [f.message.split()[4] for f in check_buffers(inv, topo, src, link_index(topo)) if f.code == "BUF002"]

    assert named() == ["p1-s1-rail0"]
    topo.links.sort(key=lambda lk: "p1-s1-rail1" not in (lk.a.device, lk.z.device))  # stable: rail1's links first
    assert named() == ["p1-s1-rail1"]
