"""Small helpers shared by the SONiC reader and its reference check: table access, keys, references."""

from __future__ import annotations

from typing import Any

Table = dict[str, dict[str, Any]]


def table(db: dict[str, Any], name: str) -> Table:
    t = db.get(name)
    return t if isinstance(t, dict) else {}


def ref_name(value: Any) -> str:
    """A reference as config_db writes it: `NAME` (current SONiC) or `[TABLE|NAME]` (older images)."""
    text = str(value).strip()
    if text.startswith("[") and text.endswith("]") and "|" in text:
        return text[1:-1].split("|", 1)[1]
    return text


def split_key(key: str) -> tuple[str, str]:
    """`Ethernet0|3` → ("Ethernet0", "3"); a key without `|` → (key, "")."""
    head, _, tail = key.partition("|")
    return head, tail


def key_ports(key: str) -> list[str]:
    """The ports a BUFFER_PG / BUFFER_QUEUE / QUEUE key names: `Ethernet0|3`, `Ethernet0,Ethernet4|3-4`."""
    return [p for p in split_key(key)[0].split(",") if p]


def key_indexes(key: str) -> list[int]:
    """The PG or queue numbers of a key: `...|3` → [3], `...|3-4` → [3, 4]; [] when not numeric."""
    tail = split_key(key)[1]
    lo, _, hi = tail.partition("-")
    if not lo.isdigit() or (hi and not hi.isdigit()):
        return []
    return list(range(int(lo), int(hi or lo) + 1))


def int_list(text: Any) -> frozenset[int]:
    """`"3,4"` → {3, 4}; ignores what is not a number (the reference check reports bad values)."""
    return frozenset(int(x) for x in str(text).split(",") if x.strip().isdigit())


def int_map(entry: Any) -> dict[int, int]:
    if not isinstance(entry, dict):
        return {}
    return {int(k): int(v) for k, v in entry.items() if str(k).isdigit() and str(v).isdigit()}
