"""The device-facing part of the SONiC lossless buffer tables: what railfabric/plan/buffers.py (the arithmetic) needs of
one switch of the device model."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from railfabric.device.interfaces import Interface, Shape
from railfabric.device.qos import Qos
from railfabric.inventory.intent import CableLengths, Inventory, SwitchBuffers, SwitchModel
from railfabric.plan.buffers import Buffers, PortFacts, build_buffers
from railfabric.platforms import PLATFORMS

# Switches of one model and role have the same port facts (names, speeds, MTUs, lanes, roles, PFC): their buffer
# tables are one computation, shared by reference (Buffers is frozen). The key is everything build_buffers reads.
_SHAPES = 256
# shared_buffers' arguments after the ports: cable lengths, fiber ns/m, the QoS maps tc_to_pg, lossless, pfc_to_queue
_Rest = tuple[CableLengths, float, tuple[int, ...], tuple[int, ...], tuple[tuple[int, int], ...]]


def device_buffers(inv: Inventory, platform: str, model: SwitchModel, interfaces: Iterable[Interface],
                   qos: Qos, shape: Shape | None = None) -> Buffers | None:
    """The Buffers of one switch: only on a platform that renders buffer tables (EOS sizes its buffers itself);
    None without the model's buffer facts (BUF001 refuses that inventory before rendering). `shape`: the Shape
    build_interfaces_shaped gave with `interfaces` (it fixes their facts: a cheaper key), or None."""
    if not PLATFORMS[platform].buffer_tables or model.buffers is None:
        return None
    asic, rest = model.buffers, (inv.solver.cable, inv.solver.fiber_ns_per_m, qos.tc_to_pg, qos.lossless,
                                 qos.pfc_to_queue)
    if shape is None:
        return _of_facts(asic, interfaces, rest)
    key = (asic, shape, rest)
    known = _BY_SHAPE.get(key)
    if known is None:
        if len(_BY_SHAPE) >= _SHAPES:
            _BY_SHAPE.clear()
        known = _BY_SHAPE[key] = _of_facts(asic, interfaces, rest)
    return known


def _of_facts(asic: SwitchBuffers, interfaces: Iterable[Interface], rest: _Rest) -> Buffers:
    # the key as plain tuples (hashed and compared in C), PortFacts' fields with the lanes themselves; PortFacts
    # records are built only for a new shape
    ports = tuple([(i.name, i.speed, i.mtu, i.lanes, i.role, i.qos) for i in interfaces])
    return shared_buffers(asic, ports, *rest)


# (the model's buffer facts, a Shape, the other arguments of shared_buffers) → the Buffers: the Shape fixes every
# interface's PortFacts fields (see interfaces.Shape), so it stands for them in the key
_BY_SHAPE: dict[tuple[SwitchBuffers, Shape, _Rest], Buffers] = {}


@lru_cache(maxsize=_SHAPES)
def shared_buffers(asic: SwitchBuffers, ports: tuple[tuple[str, int, int, tuple[int, ...], str, bool], ...],
                   cable: CableLengths,
                   ns_per_m: float, tc_to_pg: tuple[int, ...], lossless: tuple[int, ...],
                   pfc_to_queue: tuple[tuple[int, int], ...]) -> Buffers:
    """build_buffers once per distinct switch shape (`ports`: PortFacts fields per interface, with the serdes lanes
    in place of their count): the same arguments give the same (immutable) Buffers."""
    facts = [PortFacts(name, speed, mtu, len(lanes), role, qos) for name, speed, mtu, lanes, role, qos in ports]
    return build_buffers(asic, facts, cable, ns_per_m, tc_to_pg, lossless, pfc_to_queue)
