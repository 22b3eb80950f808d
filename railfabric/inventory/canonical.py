"""The inventory's canonical form and digest: what the manifest's `input_sha256` hashes.

The validated model (not the YAML text) is hashed, so comments, key order and quoting never count. Lists whose
order has no meaning are sorted by their identity first, so moving a pod or a segment around is not drift either.

Order-free lists (sorted here), and why:
- pods (by id), pods[].segments (by id): every allocation and port stride goes by ids, and the expansion walks
  them in id order (topology.expand);
- pods[].segments[].host_groups (by `first`): host numbers come from `first` (required when a segment has several
  groups), and groups of one segment share their NIC shape (intent rules);
- cabling (by host, nic, nic_port): each entry pins one NIC port; entries do not interact;
- devices.*.disabled_ports (by number): a set of ports kept down.
Lists whose order means something (kept): rail_groups (group g is switch g: names, slots, addresses) and each
group's rails (the i-th rail a switch serves uses the i-th port block), switch_models.*.port_blocks.rails (same),
port_blocks.uplinks (the order ports are handed out), host_models.*.gpu_to_nic (index = GPU), and
switch_models.*.breakouts (kept to be safe: a changed list is drift even when only its order changed).
Mappings (switch_models, host_models, devices) are order-free by nature: keys are sorted when dumping.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from railfabric.inventory.intent import Inventory

_Key = Callable[[Any], Any]


def _ident(*fields: str) -> _Key:
    """Sort key: the item's identity fields (None as -1), then its whole canonical text (a total order even for
    duplicate ids, which validation refuses anyway)."""
    def key(item: Any) -> tuple:
        ident = tuple(-1 if item.get(f) is None else item[f] for f in fields)
        return (*ident, _text(item))
    return key


# Paths to order-free lists ("*" matches any list index or mapping key) → the sort key of their items.
ORDER_FREE: dict[tuple[str, ...], _Key] = {
    ("pods",): _ident("id"),
    ("pods", "*", "segments"): _ident("id"),
    ("pods", "*", "segments", "*", "host_groups"): _ident("first"),
    ("cabling",): _ident("host", "nic", "nic_port"),
    ("devices", "*", "disabled_ports"): lambda port: port,
}


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _matches(path: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    return len(path) == len(pattern) and all(p == "*" or p == q for p, q in zip(pattern, path, strict=True))


def _canon(value: Any, path: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {k: _canon(v, (*path, str(k))) for k, v in value.items()}
    if isinstance(value, list):
        items = [_canon(v, (*path, "*")) for v in value]
        for pattern, key in ORDER_FREE.items():
            if _matches(path, pattern):
                return sorted(items, key=key)
        return items
    return value


def canonical(inv: Inventory) -> Any:
    """The inventory as plain JSON data with the order-free lists sorted."""
    return _canon(inv.model_dump(mode="json"), ())


def inventory_digest(inv: Inventory) -> str:
    """sha256 of the canonical inventory: equal for inventories that mean the same fabric."""
    return hashlib.sha256(_text(canonical(inv)).encode()).hexdigest()
