"""Port positions: which ports of a switch model face up (uplinks), down (spine downlinks, host ports), the MLAG
peer link, and the Ports allocator that hands out (port, lane) positions, keeping disabled ports in place."""

from __future__ import annotations

from functools import lru_cache

from railfabric.core.units import lanes_at
from railfabric.inventory.intent import Inventory, SwitchModel
from railfabric.topology.model import End, Switch


def lanes_for(model: SwitchModel, speed: int) -> int:
    """Logical ports per physical port when running at `speed` (1 = native; 0 = impossible)."""
    return lanes_at(model.speed, model.breakouts, speed)


class Ports:
    """Hands out (physical port, lane) positions from an ordered list of candidate ports. Disabled ports keep their
    position (the caller takes their links off), so disabling one port moves no other link; positions past the
    list get numbers above the model's port count so checks can count them."""

    def __init__(self, candidates: tuple[int, ...] | list[int], disabled: frozenset[int], lanes: int,
                 overflow_base: int) -> None:
        self.ports = tuple(candidates)
        self.disabled = disabled
        self.lanes = max(lanes, 1)
        self.breakout = lanes > 1
        self.overflow_base = overflow_base
        self.table = _positions(self.ports, self.lanes, self.breakout)  # at(i) for i < len(table): table[i]

    def at(self, position: int) -> tuple[int, int]:
        if 0 <= position < len(self.table):  # within the candidate ports: looked up
            return self.table[position]
        q, r = divmod(position, self.lanes)
        port = self.ports[q] if q < len(self.ports) else self.overflow_base + (q - len(self.ports)) + 1
        return port, (r + 1 if self.breakout else 0)


@lru_cache(maxsize=256)
def _positions(ports: tuple[int, ...], lanes: int, breakout: bool) -> tuple[tuple[int, int], ...]:
    """(port, lane) of every position within `ports` (what Ports.at computes), shared by every allocator of the
    same candidates and lanes: most switches of a fabric have the same model."""
    return tuple((port, (r + 1 if breakout else 0)) for port in ports for r in range(lanes))


def uplink_candidates(model: SwitchModel) -> tuple[int, ...]:
    """Ports towards the next tier up: port_blocks.uplinks, default the upper half."""
    if model.port_blocks and model.port_blocks.uplinks:
        return tuple(model.port_blocks.uplinks)
    return tuple(range(model.ports // 2 + 1, model.ports + 1))


def downlink_candidates(model: SwitchModel, has_uplinks: bool) -> tuple[int, ...]:
    """Ports towards the tier below (hosts of a rail switch without rail blocks, rail switches of a spine): every
    port outside the uplink block when the switch has uplinks, else every port."""
    return _downlinks(model.ports, uplink_candidates(model) if has_uplinks else ())


@lru_cache(maxsize=256)
def _downlinks(ports: int, uplinks: tuple[int, ...]) -> tuple[int, ...]:
    """Ports 1..`ports` less `uplinks`: worked out once per distinct model (every rail switch asks)."""
    up = set(uplinks)
    return tuple(p for p in range(1, ports + 1) if p not in up)


def host_candidates(model: SwitchModel, slot: int, has_uplinks: bool, peer_ports: int = 0) -> tuple[int, ...]:
    """Host ports of rail slot `slot`: the model's rail block when it declares blocks, else the downlink ports
    (less the MLAG peer-link ports when `peer_ports` > 0)."""
    blocks = model.port_blocks.rails if model.port_blocks else []
    if blocks:
        return tuple(blocks[slot]) if slot < len(blocks) else ()
    down = downlink_candidates(model, has_uplinks)
    if peer_ports:
        peer = set(peer_link_candidates(model, has_uplinks, peer_ports))
        return tuple(p for p in down if p not in peer)
    return down


def peer_link_candidates(model: SwitchModel, has_uplinks: bool, count: int) -> tuple[int, ...]:
    """MLAG peer-link ports: port_blocks.peer_link, else the `count` highest-numbered ports outside the uplinks
    and the rail blocks (with no rail blocks they are taken off the top of the host ports)."""
    if model.port_blocks and model.port_blocks.peer_link:
        return tuple(model.port_blocks.peer_link)
    taken: set[int] = set(uplink_candidates(model)) if has_uplinks else set()
    for block in (model.port_blocks.rails if model.port_blocks else []):
        taken.update(block)
    free = [p for p in range(1, model.ports + 1) if p not in taken]
    return tuple(free[-count:]) if count else ()


def off_end(end: End, ports: Ports) -> End | None:
    return end if end.port in ports.disabled else None


def blocks_for(inv: Inventory, sw: Switch) -> bool:
    model = inv.switch_models[sw.model]
    return bool(model.port_blocks and model.port_blocks.rails)


def uplink_ports(model: SwitchModel, sw: Switch, lanes: int) -> Ports:
    return Ports(uplink_candidates(model), sw.disabled_ports, lanes, model.ports)
