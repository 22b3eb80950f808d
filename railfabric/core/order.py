"""The natural order of names: runs of digits compare as numbers, so p1-s1-gpu9 comes before p1-s1-gpu010."""

from __future__ import annotations

import re

_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple:
    """'p1-s1-gpu010' sorts after 'p1-s1-gpu9' and 'x#10' after 'x#2': runs of digits compare as numbers."""
    parts: list = _DIGITS.split(text)
    # re.split with a capturing group alternates text, number, text, ...: types line up position by position
    parts[1::2] = map(int, parts[1::2])
    return tuple(parts)
