"""Small value parsers shared by the schema: link speeds, breakouts, port lists, name patterns."""

from __future__ import annotations

import math
import re
import string
from collections.abc import Iterable
from fractions import Fraction

from railfabric.core.bounds import PORTS_MAX, SPEED_GBPS_MAX
from railfabric.core.textsafe import quote

_SPEED = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([GgTt])(?:b(?:ps)?|bE)?\s*$")
_SPEED_DIGITS = 12  # digits (and a dot) of a speed: 10000 needs 5, '1.6T' 3; more is a typo or an attack


def parse_speed(value: object) -> int:
    """'400G' → 400, '1.6T' → 1600, 100 → 100 (Gbit/s): a whole number from 1 to SPEED_GBPS_MAX
    (railfabric/core/bounds.py). Exact arithmetic (no float: '1e400'-like digit strings never overflow into
    infinity)."""
    if isinstance(value, bool):
        raise ValueError("speed must look like '400G' or '1.6T'")
    if isinstance(value, int):
        gbps = value
        shown = str(value)
    elif isinstance(value, str):
        m = _SPEED.match(value)
        if not m:
            raise ValueError(f"speed {quote(value)} must look like '400G' or '1.6T'")
        shown = quote(value)
        if len(m.group(1)) > _SPEED_DIGITS:  # far past any speed (and no huge number is built from it)
            raise ValueError(f"speed {shown} is above {format_speed(SPEED_GBPS_MAX)}")
        num = Fraction(m.group(1)) * (1000 if m.group(2) in "Tt" else 1)
        if num.denominator != 1:
            raise ValueError(f"speed {shown} is not a whole number of Gbit/s")
        gbps = int(num)
    else:
        raise ValueError("speed must look like '400G' or '1.6T'")
    if gbps < 1:
        raise ValueError("speed must be positive")
    if gbps > SPEED_GBPS_MAX:
        raise ValueError(f"speed {shown} is above {format_speed(SPEED_GBPS_MAX)}")
    return gbps


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


_BREAKOUT = re.compile(r"^\s*(\d{1,3})\s*[xX]\s*(\S+)\s*$")


def parse_breakout(value: object) -> tuple[int, int]:
    """'2x400G' → (2, 400)."""
    if not isinstance(value, str):
        raise ValueError("breakout must look like '2x400G'")
    m = _BREAKOUT.match(value)
    if not m:
        raise ValueError(f"breakout {quote(value)} must look like '2x400G'")
    lanes = int(m.group(1))
    if lanes < 1 or lanes > 16:
        raise ValueError(f"breakout {quote(value)}: 1 to 16 lanes")
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
            raise ValueError(f"port entry {quote(item)} must be a number or 'a-b'")
        text = item.strip()
        if re.fullmatch(r"\d{1,12}", text):
            out.append(int(text))
            continue
        m = re.fullmatch(r"(\d{1,12})\s*-\s*(\d{1,12})", text)
        if not m:
            raise ValueError(f"port entry {quote(item)} must be a number or a range 'a-b'")
        a, b = int(m.group(1)), int(m.group(2))
        if b < a:
            raise ValueError(f"port range {quote(item)} runs backwards")
        if b - a > 4096:
            raise ValueError(f"port range {quote(item)} is implausibly long")
        out.extend(range(a, b + 1))
    if any(p < 1 for p in out):
        raise ValueError("port numbers start at 1")
    if any(p > PORTS_MAX for p in out):
        raise ValueError(f"port {max(out)} is past {PORTS_MAX}, the most front-panel ports a switch model has")
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
        raise ValueError(f"name pattern {quote(pattern)}: {exc}") from None
    for _literal, field_name, spec, conv in parsed:
        if field_name is None:
            continue
        if field_name not in allowed:
            raise ValueError(f"name pattern {quote(pattern)}: unknown placeholder {{{field_name}}}; "
                             f"use {', '.join('{' + a + '}' for a in sorted(allowed))}")
        if conv or not _SPEC.match(spec or ""):
            raise ValueError(f"name pattern {quote(pattern)}: placeholder {{{field_name}}} may only carry a width "
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


def format_ports(ports: Iterable[int]) -> str:
    """(1, 2, 3, 7, 9, 10) → '1-3, 7, 9-10' (runs of consecutive ports, in the given order)."""
    runs: list[list[int]] = []
    for p in ports:
        if runs and p == runs[-1][1] + 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


# Electrical (SerDes) lanes behind one port, by native port speed, at the lane rate of the switch ASICs that ship
# that speed (IEEE 802.3 attachment-unit interfaces): 1.6T = 8 × 200G (802.3dj 1.6TAUI-8); 800G = 8 × 100G PAM4
# (802.3df/ck 800GAUI-8, OSFP / QSFP-DD800); 400G = 8 × 50G PAM4 (802.3bs 400GAUI-8, QSFP-DD / OSFP on 50G-SerDes
# ASICs; a 400G port on 100G SerDes, QSFP112, is 4 lanes: say serdes_lanes: 4); 200G = 4 × 50G PAM4 (200GAUI-4,
# QSFP56); 100G = 4 × 25G NRZ (802.3bm CAUI-4, QSFP28); 50G = 2 × 25G; 40G = 4 × 10G (XLAUI, QSFP+); 25G and
# 10G = 1 lane.
SERDES_LANES_BY_SPEED = {1600: 8, 800: 8, 400: 8, 200: 4, 100: 4, 50: 2, 40: 4, 25: 1, 10: 1, 1: 1}


def default_serdes_lanes(speed: int, breakouts: Iterable[tuple[int, int]] = ()) -> int:
    """SerDes lanes of a `speed` port: the table above (8 for speeds it does not list), widened to a multiple of
    every breakout's lane count (a lane of a breakout takes a whole number of SerDes lanes) while that stays ≤ 16."""
    lanes = SERDES_LANES_BY_SPEED.get(speed, 8)
    for count, _lane_speed in breakouts:
        wider = math.lcm(lanes, count)
        if wider <= 16:
            lanes = wider
    return lanes
