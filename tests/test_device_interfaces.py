"""railfabric/device/interfaces.py: every port of the model, names and physical facts, derived by hand for the small
test fabric's 64-port 800G model (8 serdes lanes per port, breakout 2x400G) on SONiC and EOS."""

from __future__ import annotations

import dataclasses

import pytest

from railfabric.device.interfaces import Interface, build_interfaces, build_interfaces_shaped, end_name
from railfabric.inventory.intent import SwitchModel
from railfabric.pipeline import Result
from railfabric.topology import End, Switch
from tests.helpers import base_inventory, run_data


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Result:
    return run_data(tmp_path_factory.mktemp("mini"), base_inventory())


def _rail0_broken_out(mini: Result) -> tuple[Switch, SwitchModel, dict[tuple[int, int], Interface]]:
    """p1-s1-rail0 with port 3 disabled, its model, and its one used interface: port 1 broken out 2x400G, lane 1
    used by a host (lane 2 spare; every other port native 800G)."""
    inv, topo = mini.inventory, mini.topology
    assert inv is not None and topo is not None
    sw = dataclasses.replace(topo.switches["p1-s1-rail0"], disabled_ports=frozenset({3}))
    used = {(1, 1): Interface("Ethernet0", 1, 1, 400, "access", True, "h1", 9216, vlan=100, qos=True, peer="h1",
                              role="host")}
    return sw, inv.switch_models[sw.model], used


def test_every_port_and_spare_lane(mini: Result) -> None:
    # port 1 broken out 2x400G, lane 1 used by a host; lane 2 spare; every other port native 800G
    sw, model, used = _rail0_broken_out(mini)
    out = build_interfaces(sw, model, used, {1: (2, 400)}, 9216)
    assert len(out) == 64 + 1  # one extra lane interface for the broken-out port
    first, spare, native, disabled = out[0], out[1], out[2], out[3]
    # SONiC names by first serdes lane: port 1 lane 1 → 0, lane 2 → 0 + 8/2 = 4; port 2 → 8; port 3 → 16
    assert (first.name, first.lanes, first.breakout, first.mode) == ("Ethernet0", (0, 1, 2, 3), "2x400G", "access")
    assert (spare.name, spare.lanes, spare.speed, spare.mode, spare.admin_up) == (
        "Ethernet4", (4, 5, 6, 7), 400, "unused", False)
    assert (native.name, native.lanes, native.speed, native.breakout) == ("Ethernet8", tuple(range(8, 16)), 800, "")
    assert (disabled.name, disabled.description, disabled.mtu) == ("Ethernet16", "disabled in inventory", 9216)
    # SONiC's speed is in Mbit/s; RS-FEC from 25G per lane: 400G / 4 lanes and 800G / 8 lanes both qualify
    assert (first.speed_setting, native.speed_setting) == ("400000", "800000")
    assert first.fec == native.fec == "rs"
    assert out[-1].name == "Ethernet504" and out[-1].description == "unused"  # port 64: (64-1)·8


def test_eos_names(mini: Result) -> None:
    inv, topo = mini.inventory, mini.topology
    assert inv is not None and topo is not None
    sw = dataclasses.replace(topo.switches["p1-s1-rail0"], platform="eos")
    model = inv.switch_models[sw.model]
    # EOS names the 4-lane halves of an 8-lane port <port>/1 and <port>/5, a native port <port>/1
    assert end_name(sw, model, End(sw.name, 2, 2, 400)) == "Ethernet2/5"
    assert end_name(sw, model, End(sw.name, 2, 0, 800)) == "Ethernet2/1"
    out = build_interfaces(sw, model, {}, {}, 9214)
    assert [i.name for i in out[:2]] == ["Ethernet1/1", "Ethernet2/1"] and out[0].speed_setting == "800g-8"


def test_native_port_below_its_speed_and_shared_unused_ports(mini: Result) -> None:
    inv, topo = mini.inventory, mini.topology
    assert inv is not None and topo is not None
    sw = topo.switches["p1-s1-rail0"]
    model = inv.switch_models[sw.model]
    # port 2 of the 64 × 800G SONiC model run at 100G without a breakout: all 8 serdes lanes of port 2 (8-15),
    # SONiC speed in Mbit/s, 100G / 8 lanes = 12.5G per lane: below 25G, so no FEC
    slow = Interface("Ethernet8", 2, 0, 100, "routed", True, "x", 9216, ipv4="10.0.0.0/31", qos=True, peer="x",
                     role="fabric")
    out = build_interfaces(sw, model, {(2, 0): slow}, {}, 9216)
    assert out[1] is slow and (slow.lanes, slow.speed_setting, slow.fec, slow.breakout) == (
        tuple(range(8, 16)), "100000", "none", "")
    # the same shape again: the unused ports are the same (read-only) objects, the used one is the switch's own
    again = build_interfaces(sw, model, {}, {}, 9216)
    assert again[0] is out[0] and again[1] is not slow and again[1].mode == "unused"


def test_shape_names_the_layout_and_every_interface_not_its_own(mini: Result) -> None:
    sw, model, used = _rail0_broken_out(mini)
    out, (layout, own) = build_interfaces_shaped(sw, model, used, {1: (2, 400)}, 9216)
    assert out == build_interfaces(sw, model, used, {1: (2, 400)}, 9216)
    # the layout: SONiC, 8 serdes lanes, 64 ports of 800G at MTU 9216, port 1 broken out 2 × 400G
    assert layout == ("sonic", 8, 64, 800, 9216, ((1, (2, 400)),))
    # not the layout's own: the host lane at position 0 (serdes 0-3), and disabled port 3 at position 3 (after port
    # 1's two lanes and port 2), serdes (3-1)·8 = 16..23, no role, no RoCE QoS
    assert own == ((0, "Ethernet0", 400, 9216, (0, 1, 2, 3), "host", True),
                   (3, "Ethernet16", 800, 9216, tuple(range(16, 24)), "", False))
