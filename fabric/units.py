"""Small value parsers shared by the schema: link speeds, breakouts, port lists, name patterns."""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

_SPEED = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([GgTt])(?:b(?:ps)?|bE)?\s*$")


def parse_speed(value: object) -> int:
    """'400G' → 400, '1.6T' → 1600, 100 → 100 (Gbit/s)."""
    if isinstance(value, bool):
        raise ValueError("speed must look like '400G' or '1.6T'")
    if isinstance(value, int):
        if value <= 0:
            raise ValueError("speed must be positive")
        return value
    if not isinstance(value, str):
        raise ValueError("speed must look like '400G' or '1.6T'")
    m = _SPEED.match(value)
    if not m:
        raise ValueError(f"speed {value!r} must look like '400G' or '1.6T'")
    num = float(m.group(1)) * (1000 if m.group(2) in "Tt" else 1)
    if num != int(num) or num <= 0:
        raise ValueError(f"speed {value!r} is not a whole number of Gbit/s")
    return int(num)


def format_speed(gbps: int) -> str:
    if gbps >= 1000 and gbps % 100 == 0 and gbps % 1000 != 0:
        return f"{gbps / 1000:g}T"
    if gbps >= 1000 and gbps % 1000 == 0:
        return f"{gbps // 1000}T"
    return f"{gbps}G"


def lanes_at(native: int, breakouts: Iterable[tuple[int, int]], speed: int) -> int:
    """Logical ports per physical port of a `native`-speed port running at `speed`: 1 natively, the breakout's lane
    count, or 0 when no mode offers that speed."""
    if speed == native:
        return 1
    for lanes, lane_speed in breakouts:
        if lane_speed == speed:
            return lanes
    return 0


_BREAKOUT = re.compile(r"^\s*(\d+)\s*[xX]\s*(\S+)\s*$")


def parse_breakout(value: object) -> tuple[int, int]:
    """'2x400G' → (2, 400)."""
    if not isinstance(value, str):
        raise ValueError("breakout must look like '2x400G'")
    m = _BREAKOUT.match(value)
    if not m:
        raise ValueError(f"breakout {value!r} must look like '2x400G'")
    lanes = int(m.group(1))
    if lanes < 1 or lanes > 16:
        raise ValueError(f"breakout {value!r}: 1 to 16 lanes")
    return lanes, parse_speed(m.group(2))


def parse_ports(value: object) -> tuple[int, ...]:
    """A port list: [1, 4, 7, 10], ["1-16"], "1-16", "1,4,7" or "33-64"; order kept, duplicates refused."""
    items: Iterable[object]
    if isinstance(value, str):
        items = [p for p in value.split(",")]
    elif isinstance(value, list):
        items = value
    elif isinstance(value, int) and not isinstance(value, bool):
        items = [value]
    else:
        raise ValueError("ports must be a list like [1, 4, 7] or a range string like '1-16'")
    out: list[int] = []
    for item in items:
        if isinstance(item, bool):
            raise ValueError("ports must be numbers")
        if isinstance(item, int):
            out.append(item)
            continue
        if not isinstance(item, str):
            raise ValueError(f"port entry {item!r} must be a number or 'a-b'")
        text = item.strip()
        if re.fullmatch(r"\d+", text):
            out.append(int(text))
            continue
        m = re.fullmatch(r"(\d+)\s*-\s*(\d+)", text)
        if not m:
            raise ValueError(f"port entry {item!r} must be a number or a range 'a-b'")
        a, b = int(m.group(1)), int(m.group(2))
        if b < a:
            raise ValueError(f"port range {item!r} runs backwards")
        if b - a > 4096:
            raise ValueError(f"port range {item!r} is implausibly long")
        out.extend(range(a, b + 1))
    if any(p < 1 for p in out):
        raise ValueError("port numbers start at 1")
    dup = sorted({p for p in out if out.count(p) > 1}) if len(out) < 4096 else []
    if dup or len(set(out)) != len(out):
        raise ValueError(f"port(s) listed twice: {dup[:5]}")
    return tuple(out)


PLACEHOLDERS = frozenset({"pod", "segment", "rail", "rails", "index", "side", "host", "plane"})
_SPEC = re.compile(r"^(0?\d{1,2}d|d|)$")


def check_pattern(pattern: str, allowed: frozenset[str]) -> None:
    """Refuse placeholders outside `allowed`, attribute/index access and odd format specs."""
    try:
        parsed = list(string.Formatter().parse(pattern))
    except ValueError as exc:
        raise ValueError(f"name pattern {pattern!r}: {exc}") from None
    for _literal, field_name, spec, conv in parsed:
        if field_name is None:
            continue
        if field_name not in allowed:
            raise ValueError(f"name pattern {pattern!r}: unknown placeholder {{{field_name}}}; "
                             f"use {', '.join('{' + a + '}' for a in sorted(allowed))}")
        if conv or not _SPEC.match(spec or ""):
            raise ValueError(f"name pattern {pattern!r}: placeholder {{{field_name}}} may only carry a width "
                             f"such as :02d")


def expand_pattern(pattern: str, **values: object) -> str:
    return pattern.format(**values)


_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")


def hostname_problem(name: str) -> str | None:
    """Why `name` is not an RFC 1123 host label, or None."""
    if not name:
        return "is empty"
    if len(name) > 63:
        return f"is {len(name)} characters long (at most 63)"
    if not _LABEL.match(name):
        return "may only hold letters, digits and inner hyphens (RFC 1123)"
    return None
