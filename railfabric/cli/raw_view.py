"""What `fabric show SWITCH` and `fabric plan` say of the raw configuration blocks (`raw:`,
railfabric/inventory/intent_raw.py): which blocks apply to which switches, in merge order, and into which file."""

from __future__ import annotations

from typing import Any

from railfabric.core.config_tree import leaves
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_raw import LEVELS, RawBlock, blocks_for, ordered
from railfabric.platforms import PLATFORMS
from railfabric.topology import Switch, Topology


def _what(b: RawBlock) -> tuple[str, str]:
    """(file, size) of a block: its platform's file for its form, and its lines or data values."""
    traits = PLATFORMS[b.platform]
    if b.text is not None:
        lines = len([line for line in b.text.split("\n") if line.strip()])
        return traits.raw_text_file, f"{lines} line(s)"
    data: dict[str, Any] = {str(k): v for k, v in (b.data or {}).items()}
    return traits.raw_data_file, f"{len(list(leaves(data)))} value(s)"


def switch_lines(inv: Inventory, sw: Switch) -> list[str]:
    """`fabric show` lines: one per raw block that applies to `sw`, in merge order."""
    out = []
    for _i, b in blocks_for(inv.raw, sw.platform, sw.role.value, sw.pod, sw.segment, (sw.key, sw.name)):
        file, size = _what(b)
        out.append(f"  raw        {b.name} ({LEVELS[b.level]}): {file} {size}")
    return out


def placement_lines(inv: Inventory, topo: Topology, limit: int = 5) -> list[str]:
    """`fabric plan` lines: each raw block in merge order with its file and the switches it applies to."""
    if not inv.raw:
        return []
    out = [f"Raw configuration: {len(inv.raw)} block(s), in merge order:"]
    for _i, b in ordered(inv.raw):
        names = [sw.name for sw in topo.switches.values()
                 if b.selects(sw.platform, sw.role.value, sw.pod, sw.segment, (sw.key, sw.name))]
        file, size = _what(b)
        shown = ", ".join(names[:limit]) + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")
        out.append(f"  raw {b.name} ({LEVELS[b.level]}, {b.platform}): {file} {size} on {len(names)} switch(es)"
                   + (f": {shown}" if names else ""))
    return out
