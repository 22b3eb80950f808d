"""The state of one expansion (railfabric.topology.expand): the inventory, the topology it fills, and the fabric-wide
slot bases of the address plan; the tier modules (rails, uplinks) fill it."""

from __future__ import annotations

from dataclasses import dataclass, field

from railfabric.inventory.intent import Inventory
from railfabric.topology.model import Switch, Topology


@dataclass
class Expansion:
    """The inventory being expanded, the topology it fills, and the fabric-wide slot bases of the address plan."""

    inv: Inventory
    topo: Topology = field(default_factory=Topology)
    rail_tier_base: int = 0  # device slot of the first rail switch (after the super-spines and spines)
    core_net_base: int = 0  # fabric-links slot of the first spine → super-spine /31 (after every rail uplink)
    peer_net_base: int = 0  # fabric-links slot of the first MLAG peer-link /31 (after every spine uplink)

    def __post_init__(self) -> None:
        lim = self.inv.limits
        self.rail_tier_base = lim.super_spines + lim.pods * lim.spines_per_pod
        self.core_net_base = (lim.pods * lim.segments_per_pod * lim.rail_switches_per_segment
                              * lim.uplinks_per_rail_switch)
        self.peer_net_base = self.core_net_base + lim.pods * lim.spines_per_pod * lim.uplinks_per_spine

    def make(self, sw: Switch) -> Switch:
        """Register `sw` with its `devices:` override applied; a hostname clash keeps both (renamed <name>~<slot>)
        so the checks can report it."""
        topo = self.topo
        ov = self.inv.devices.get(sw.key)
        if ov is not None:
            sw.overridden = True
            if ov.hostname:
                sw.name = ov.hostname
            if ov.platform:
                sw.platform = ov.platform.value
            if ov.model:
                sw.model = ov.model
            sw.rack = ov.rack
            sw.management = int(ov.management) if ov.management is not None else None
            sw.asn = ov.asn
            sw.loopback = int(ov.loopback) if ov.loopback is not None else None
            sw.router_id = int(ov.router_id) if ov.router_id is not None else None
            sw.disabled_ports = frozenset(ov.disabled_ports)
        if sw.name in topo.switches:
            topo.name_clashes.append((sw.name, topo.switches[sw.name].src, sw.src))
            sw.name = f"{sw.name}~{sw.slot}"  # keep both so the checks can report the clash
        topo.switches[sw.name] = sw
        return sw
