"""Slurm's compressed host lists (`p1-s1-gpu[001-016]`, `p1-s[1-2]-gpu[001-004,009]`): the forms `scontrol show
hostnames` expands. Comma-separated names, each with any number of bracket ranges; a range keeps the zero padding of
its lower bound (`[001-016]` → 001 … 016), as Slurm does. Used by `fabric impact --jobs` and by InfiniBand
partitions' `hosts:`. A list that would expand to more than MAX_NAMES names is refused (inventory text comes from
pull requests: `a[0-999999]b[0-999999]` must not take the machine's memory)."""

from __future__ import annotations

import re

MAX_NAMES = 1_000_000
_RANGE = re.compile(r"\[([^\[\]]*)\]")


def expand_hostlist(text: str) -> list[str]:
    """Slurm's compressed host list → names, in order; ValueError on a malformed list."""
    out: list[str] = []
    for part in _split_top(text.strip()):
        if _count(part) + len(out) > MAX_NAMES:
            raise ValueError(f"host list {text!r} expands to more than {MAX_NAMES:,} names")
        out += _expand_one(part)
    return out


def _count(part: str) -> int:
    """How many names one comma-free part expands to (checked before expanding it)."""
    n = 1
    for m in _RANGE.finditer(part):
        n *= len(_range(m.group(1), part))
        if n > MAX_NAMES:
            break
    return n


def _split_top(text: str) -> list[str]:
    """Split on the commas outside brackets."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
            if depth > 1:
                raise ValueError(f"nested '[' in host list {text!r}")
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unmatched ']' in host list {text!r}")
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise ValueError(f"unclosed '[' in host list {text!r}")
    parts.append("".join(cur).strip())
    if any(not p for p in parts):
        raise ValueError(f"empty name in host list {text!r}")
    return parts


def _range(spec: str, whole: str) -> list[str]:
    out = []
    for item in spec.split(","):
        item = item.strip()
        lo, dash, hi = item.partition("-")
        if not lo.isdigit() or (dash and not hi.isdigit()):
            raise ValueError(f"bad range {item!r} in host list {whole!r} (digits, or digits-digits)")
        if not dash:
            out.append(lo)
            continue
        a, b = int(lo), int(hi)
        if b < a:
            raise ValueError(f"range {item!r} runs backwards in host list {whole!r}")
        if b - a >= 1_000_000:
            raise ValueError(f"range {item!r} in host list {whole!r} is too long")
        out += [str(n).zfill(len(lo)) for n in range(a, b + 1)]
    return out


def _expand_one(part: str) -> list[str]:
    m = _RANGE.search(part)
    if m is None:
        if "]" in part:
            raise ValueError(f"unmatched ']' in host list {part!r}")
        return [part]
    head, tail = part[: m.start()], part[m.end():]
    return [head + n + rest for n in _range(m.group(1), part) for rest in _expand_one(tail)] if tail else \
        [head + n for n in _range(m.group(1), part)]
