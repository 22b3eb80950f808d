"""Text to one printable line: the escaping a finding applies to its own message and hint (railfabric.core.finding),
and that railfabric.core.textsafe builds its quoting on. Nothing here knows any output format."""

from __future__ import annotations


def escape(text: str) -> str:
    """repr's escaping without the quotes."""
    return repr(text)[1:-1]


def one_line(text: str, limit: int) -> str:
    """`text` unchanged when it is one printable line of at most `limit` characters; else escaped and cut."""
    if len(text) <= limit and text.isprintable():
        return text
    return escape(text[:limit]) + ("…" if len(text) > limit else "")
