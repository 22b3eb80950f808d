"""railfabric/device/buffers.py: which switches get buffer tables, and the per-port facts handed to
railfabric/plan/buffers.py (the arithmetic is tested in tests/test_buffers.py)."""

from __future__ import annotations

from pathlib import Path

from railfabric.device.buffers import device_buffers
from railfabric.device.interfaces import Interface, build_interfaces_shaped
from railfabric.device.qos import build_qos
from tests.helpers import base_inventory, run_data


def test_only_platforms_with_buffer_tables(tmp_path: Path) -> None:
    inv = run_data(tmp_path, base_inventory()).inventory
    assert inv is not None
    model, qos = inv.switch_models["sw64"], build_qos(inv)
    host = Interface("Ethernet0", 1, 1, 400, "access", True, "h1", 9216, vlan=100, qos=True, role="host",
                     lanes=(0, 1, 2, 3))
    unused = Interface("Ethernet8", 2, 0, 800, "unused", False, "unused", 9216, lanes=tuple(range(8, 16)))
    assert device_buffers(inv, "eos", model, [host, unused], qos) is None  # EOS sizes its buffers itself
    assert device_buffers(inv, "sonic", model.model_copy(update={"buffers": None}), [host], qos) is None  # BUF001
    b = device_buffers(inv, "sonic", model, [host, unused], qos)
    assert b is not None
    # cable lengths: a host port takes solver.cable.host_m (default 3 m); a port without RoCE QoS gets 0m
    assert b.cable_lengths == (("Ethernet0", "3m"), ("Ethernet8", "0m"))
    # lossless PG 3 (the RoCE priority) only on the host port
    assert [(a.port, a.index) for a in b.pgs if a.index == "3"] == [("Ethernet0", "3")]


def test_a_shape_stands_for_the_port_facts(tmp_path: Path) -> None:
    """With the shape build_interfaces_shaped gives, the same Buffers as from every interface's facts; a shape that
    differs only in one port's MTU gives that port's other tables."""
    r = run_data(tmp_path, base_inventory())
    inv, topo = r.inventory, r.topology
    assert inv is not None and topo is not None
    sw, qos = topo.switches["p1-s1-rail0"], build_qos(inv)
    model = inv.switch_models[sw.model]

    def host(mtu: int) -> dict[tuple[int, int], Interface]:
        return {(1, 1): Interface("Ethernet0", 1, 1, 400, "access", True, "h1", mtu, vlan=100, qos=True, role="host")}

    out, shape = build_interfaces_shaped(sw, model, host(9216), {1: (2, 400)}, 9216)
    low, low_shape = build_interfaces_shaped(sw, model, host(4200), {1: (2, 400)}, 9216)
    assert shape != low_shape  # (0, "Ethernet0", 400, 9216, ...) against (0, "Ethernet0", 400, 4200, ...)
    b, b_low = device_buffers(inv, "sonic", model, out, qos, shape), device_buffers(inv, "sonic", model, low, qos,
                                                                                    low_shape)
    assert b == device_buffers(inv, "sonic", model, out, qos) and b_low == device_buffers(inv, "sonic", model, low, qos)
    # the headroom of a lossless PG grows with the port MTU (the frame in flight, railfabric/plan/buffers.py): 4200 <
    # 9216
    assert b != b_low
    assert device_buffers(inv, "sonic", model, out, qos, shape) is b  # the same shape: the same (frozen) tables
