"""railfabric/device/links.py and build.py: the link walk and the orchestration, derived by hand for the small test
fabric (tests/helpers.py: one pod, 2 spines, a single-rail segment of 2 rails and 4 hosts × 2 NICs of 400G on
64-port 800G switches; SONiC)."""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.device.build import build_devices, mtu_note
from railfabric.device.links import links_by_device, walk_links
from railfabric.pipeline import Result
from railfabric.platforms import PLATFORMS
from tests.helpers import base_inventory, run_data


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Result:
    return run_data(tmp_path_factory.mktemp("mini"), base_inventory())


def test_link_walk_of_a_rail_switch(mini: Result) -> None:
    inv, topo, plan = mini.inventory, mini.topology, mini.plan
    assert inv is not None and topo is not None and plan is not None
    sw = topo.switches["p1-s1-rail0"]
    found = walk_links(inv, topo, plan, sw, links_by_device(topo)["p1-s1-rail0"], 9216,
                       PLATFORMS["sonic"].port_channel)
    # rail 0 = NIC 0 of hosts 1-4, one rail per switch: host n at position n-1 of the downlinks 1-32, two 400G
    # lanes per 800G port → (1,1) (1,2) (2,1) (2,2) = Ethernet0, 4, 8, 12 (SONiC: first serdes lane), VLAN 100 + 0
    assert found.breakout_of == {1: (2, 400), 2: (2, 400)}
    assert found.vlan_members == {100: ["Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"]}
    # one uplink per spine on the upper half: spine 1 → port 33 (Ethernet256), spine 2 → port 34 (Ethernet264)
    ups = {k: v.name for k, v in found.used.items() if v.mode == "routed"}
    assert ups == {(33, 0): "Ethernet256", (34, 0): "Ethernet264"}
    assert [n.description.split()[0] for _ip, n in found.neighbors["SPINES"]] == ["p1-spine1", "p1-spine2"]
    # each neighbor with its address as an int (the sort key of its peer group): rail0 is the first rail switch
    # (tier slot 0), so its uplinks are /31 slots 0 and 1 of fabric_links 10.32.0.0/11; the spine is the upper end,
    # the /31's first address: 10.32.0.0 and 10.32.0.2
    net = (10 << 24) + (32 << 16)
    assert [(k, n.ip) for k, n in found.neighbors["SPINES"]] == [(net, "10.32.0.0"), (net + 2, "10.32.0.2")]
    assert set(found.neighbors) == {"SPINES"} and not found.channels and not found.mlag.active
    assert found.lower_peers == {}  # every switch is SONiC


def test_spine_walk(mini: Result) -> None:
    inv, topo, plan = mini.inventory, mini.topology, mini.plan
    assert inv is not None and topo is not None and plan is not None
    found = walk_links(inv, topo, plan, topo.switches["p1-spine1"], links_by_device(topo)["p1-spine1"], 9216,
                       PLATFORMS["sonic"].port_channel)
    # no super-spines: the spine's downlinks run from port 1, rail0 then rail1
    assert [(k, v.peer) for k, v in sorted(found.used.items())] == [((1, 0), "p1-s1-rail0"),
                                                                    ((2, 0), "p1-s1-rail1")]
    assert [n.remote_as for _ip, n in found.neighbors["RAIL-SWITCHES"]] == [plan.asn["p1-s1-rail0"],
                                                                        plan.asn["p1-s1-rail1"]]
    # the rail switches are the lower ends: rail0's first uplink is /31 slot 0 (10.32.0.1), rail1 (tier slot 1,
    # 16 uplinks per rail switch) starts at slot 16: 10.32.0.32/31, its end 10.32.0.33
    net = (10 << 24) + (32 << 16)
    assert [(k, n.ip) for k, n in found.neighbors["RAIL-SWITCHES"]] == [(net + 1, "10.32.0.1"),
                                                                      (net + 33, "10.32.0.33")]


def test_mtu_note() -> None:
    assert mtu_note(9216, 9216, "sonic", {}) == ""
    assert mtu_note(9216, 9214, "eos", {}) == "fabric mtu 9216 normalised to 9214, the eos maximum"
    assert mtu_note(9216, 9216, "sonic", {"eos": 9214}) == "links to eos peers run at 9214, the eos maximum"


def test_management_gateway(tmp_path: Path, mini: Result) -> None:
    """Decided once in allocate (Plan.management_gateway), carried by every device."""
    assert mini.inventory is not None and mini.topology is not None and mini.plan is not None
    devs = build_devices(mini.inventory, mini.topology, mini.plan)
    # 192.168.0.0/16 without a gateway: the first address
    assert {d.management_gateway for d in devs.values()} == {"192.168.0.1"}
    data = base_inventory()
    data["pools"]["management"]["gateway"] = "192.168.255.254"
    r = run_data(tmp_path, data)
    assert r.inventory is not None and r.topology is not None and r.plan is not None
    assert {d.management_gateway for d in build_devices(r.inventory, r.topology, r.plan).values()} == \
        {"192.168.255.254"}


def test_build_devices(mini: Result) -> None:
    assert mini.inventory is not None and mini.topology is not None and mini.plan is not None
    devs = build_devices(mini.inventory, mini.topology, mini.plan)
    assert list(devs) == ["p1-spine1", "p1-spine2", "p1-s1-rail0", "p1-s1-rail1"]  # topology order
    d = devs["p1-s1-rail0"]
    assert d.loopback_interface == "Loopback0" and d.system.interface == "eth0"  # from the platform registry
    assert [v.id for v in d.vlans] == [100] and d.vlans[0].members == ("Ethernet0", "Ethernet4", "Ethernet8",
                                                                     "Ethernet12")
    assert len(d.interfaces) == 64 + 2  # two broken-out ports
    assert d.qos is devs["p1-spine1"].qos  # one QoS record per inventory
    assert [e for _s, e in d.bgp.prefix_list_rules] == [d.loopback, d.vlans[0].prefix]
