"""The raw configuration blocks of one switch (`raw:`, railfabric/inventory/intent_raw.py), in merge order, as the
renderers take them: text with exactly one final newline, data as canonical JSON text (sorted keys, integer keys as
strings), so the device model stays a tree of scalars (digested like every other section)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_raw import LEVELS, RawBlock, blocks_for
from railfabric.topology import Switch


@dataclass(frozen=True, slots=True)
class RawConfig:
    name: str
    level: str  # fabric | role | pod | segment | device (intent_raw.LEVELS)
    index: int  # the block's position in `raw:`
    text: str  # "" for a data block; else the lines, ending in one newline
    data: str  # "" for a text block; else the data as canonical JSON

    def tree(self) -> dict[str, Any]:
        """The data block as nested mappings (a fresh copy each call)."""
        return orjson.loads(self.data) if self.data else {}


def _keys_as_text(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _keys_as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_keys_as_text(v) for v in value]
    return value


def raw_config(index: int, block: RawBlock) -> RawConfig:
    text = block.text.rstrip("\n") + "\n" if block.text is not None else ""
    data = orjson.dumps(_keys_as_text(block.data), option=orjson.OPT_SORT_KEYS).decode() \
        if block.data is not None else ""
    return RawConfig(block.name, LEVELS[block.level], index, text, data)


def raw_of(inv: Inventory, sw: Switch) -> tuple[RawConfig, ...]:
    """The blocks that apply to `sw`, in merge order."""
    if not inv.raw:
        return ()
    return tuple(raw_config(i, b) for i, b in blocks_for(inv.raw, sw.platform, sw.role.value, sw.pod, sw.segment,
                                                          (sw.key, sw.name)))
