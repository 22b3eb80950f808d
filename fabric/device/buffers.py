"""The device-facing part of the SONiC lossless buffer tables: what fabric/buffers.py (the arithmetic) needs of one
switch of the device model."""

from __future__ import annotations

from collections.abc import Iterable

from fabric.buffers import Buffers, PortFacts, build_buffers
from fabric.device.interfaces import Interface
from fabric.device.qos import Qos
from fabric.intent import Inventory, SwitchModel
from fabric.platforms import PLATFORMS


def device_buffers(inv: Inventory, platform: str, model: SwitchModel, interfaces: Iterable[Interface],
                   qos: Qos) -> Buffers | None:
    """The Buffers of one switch: only on a platform that renders buffer tables (EOS sizes its buffers itself);
    None without the model's buffer facts (BUF001 refuses that inventory before rendering)."""
    if not PLATFORMS[platform].buffer_tables or model.buffers is None:
        return None
    ports = [PortFacts(i.name, i.speed, i.mtu, len(i.lanes), i.role, i.qos) for i in interfaces]
    return build_buffers(model.buffers, ports, inv.solver.cable, inv.solver.fiber_ns_per_m, qos.tc_to_pg,
                         qos.lossless, qos.pfc_to_queue)
