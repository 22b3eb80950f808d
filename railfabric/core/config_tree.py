"""Configuration text and data as statements in their hierarchy: what the raw-configuration rules need to check raw
blocks (RAW005) and to see a raw value replace a managed one (RAW009). Pure functions of text and data.

- CLI text (EOS, NX-OS, FRR): a line's parents are the lines above it with less indentation (the hierarchy
  `show running-config` prints, and hier_config reads the same way); `!` comments and blank lines are skipped, so are
  FRR's and EOS's sub-mode closers (`exit`, `exit-address-family`, `exit-vrf`), which are not statements.
- Junos text: the curly-brace hierarchy (`words { ... }` blocks, `words ;` statements, "quoted strings", `[ a b ]`
  lists, `/* */` and `#` comments), as `show configuration` prints it.
- Data (SONiC config_db.json, the NVUE `set` tree): the leaves of nested mappings, a path per leaf.

A statement is (path, words, line): `path` the words of its parents, outermost first, `words` its own words, `line`
its 1-based line in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

Statement = tuple[tuple[str, ...], tuple[str, ...], int]
Override = tuple[int, str, str]  # (raw line, the raw statement, the managed one it replaces) as text

_CLOSERS = frozenset({"exit", "exit-address-family", "exit-vrf", "exit-vni", "quit"})
_JUNOS_TOKEN = re.compile(r'[ \t]+|/\*.*?\*/|#[^\n]*|"(?:[^"\\\n]|\\.)*"|[{};\[\]\n]|[^\s{};\[\]"]+', re.S)


class JunosTextError(ValueError):
    """Junos text whose braces, quotes or comments do not close: the line and the problem."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line, self.problem = line, problem


def cli_statements(text: str) -> list[Statement]:
    """The statements of indented CLI text (EOS, NX-OS, FRR)."""
    out: list[Statement] = []
    stack: list[tuple[int, tuple[str, ...]]] = []  # (indent, path through it) of the open parents
    for n, line in enumerate(text.split("\n"), 1):
        body = line.strip()
        if not body or body[0] in "!#":
            continue
        indent = len(line) - len(line.lstrip(" \t"))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        words = tuple(body.split())
        if words[0] in _CLOSERS:
            continue
        parent = stack[-1][1] if stack else ()
        out.append((parent, words, n))
        stack.append((indent, (*parent, " ".join(words))))
    return out


def junos_statements(text: str) -> list[Statement]:
    """The statements of Junos curly-brace text (a block's own words are a statement too); JunosTextError when its
    braces, quotes, lists or comments do not close."""
    out: list[Statement] = []
    path: list[str] = []
    words: list[str] = []
    line, start = 1, 1
    in_list = False
    pos = 0
    while pos < len(text):
        m = _JUNOS_TOKEN.match(text, pos)
        if m is None:  # an opening quote or comment that never closes
            raise JunosTextError(line, "a quoted string or /* comment that does not close")
        tok = m.group()
        pos = m.end()
        if tok == "\n" or tok.startswith("/*"):
            line += tok.count("\n") if tok.startswith("/*") else 1
            continue
        if tok[0] in " \t#":
            continue
        if not words:
            start = line
        if tok == "[":
            in_list = True
        elif tok == "]":
            if not in_list:
                raise JunosTextError(line, "']' without '['")
            in_list = False
        elif tok == "{":
            out.append((tuple(path), tuple(words), start))
            path.append(" ".join(words))
            words = []
        elif tok == ";":
            if words:
                out.append((tuple(path), tuple(words), start))
            words = []
        elif tok == "}":
            if words or not path:
                raise JunosTextError(line, "'}' " + ("without '{'" if not path else "after a statement without ';'"))
            path.pop()
        else:
            words.append(tok[1:-1] if tok.startswith('"') else tok)
    if path or words or in_list:
        raise JunosTextError(line, "the text ends inside " + (f"'{path[-1]} {{'" if path else
                                                              "a statement without ';'"))
    return out


def statements(text: str, syntax: str) -> list[Statement]:
    """The statements of `text` in a platform's raw syntax ("cli", "frr" or "junos": Platform.raw_syntax)."""
    return junos_statements(text) if syntax == "junos" else cli_statements(text)


def ending_lines(text: str, syntax: str) -> list[tuple[int, str]]:
    """(line, why) of every line of raw `text` that would end the configuration early where it is placed: `end` in
    any mode (EOS, NX-OS, FRR: it leaves configuration mode), a top-level `exit` (EOS, NX-OS: it leaves
    configuration mode from global configuration); Junos: braces, lists, quotes or comments that do not close."""
    if syntax == "junos":
        try:
            junos_statements(text)
        except JunosTextError as exc:
            return [(exc.line, exc.problem)]
        return []
    out: list[tuple[int, str]] = []
    for n, line in enumerate(text.split("\n"), 1):
        words = line.split()
        if words[:1] == ["end"]:
            out.append((n, "`end` leaves configuration mode: every later line of the file would run outside it"))
        elif syntax == "cli" and words[:1] == ["exit"] and line[:1] not in (" ", "\t"):
            out.append((n, "`exit` at the top level leaves configuration mode: every later line of the file would "
                           "run outside it"))
    return out


def _sections(found: list[Statement]) -> set[tuple[str, ...]]:
    """The statements that open a section (the parents of others), as their path with their own words."""
    return {path for path, _words, _line in found if path}


def _shown(path: tuple[str, ...], words: tuple[str, ...]) -> str:
    return " > ".join((*path, " ".join(words)))


def overrides(managed: Iterable[Statement], raw: Iterable[Statement]) -> list[Override]:
    """Raw statements that replace a managed one: under the same parents, the same words but the last (the value)
    where the managed file has that setting once with another value; or `no X` of a managed X (and X of a managed
    `no X`). A setting the managed file writes several times (a list: NTP servers, VLAN members) is not a single
    value to replace, so a raw one beside them is not flagged; nor is a section (`interface E2`, `router bgp N`):
    its last word names it, it is not a value."""
    managed, raw = list(managed), list(raw)
    by_key: dict[tuple[tuple[str, ...], tuple[str, ...]], list[tuple[str, ...]]] = {}
    exact: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    negated: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()  # (path, X) of each managed `no X`
    managed_sections = _sections(managed)
    for path, words, _line in managed:
        exact.add((path, words))
        if words[0] == "no":
            negated.add((path, words[1:]))
        if len(words) >= 2 and (*path, " ".join(words)) not in managed_sections:
            by_key.setdefault((path, words[:-1]), []).append(words)
    out: list[Override] = []
    raw_sections = _sections(raw)
    for path, words, line in raw:
        if (path, words) in exact or (*path, " ".join(words)) in raw_sections:
            continue  # the same statement again, or a section: its last word names it (`interface E2`), no value
        hit: tuple[str, ...] | None = None
        if words[0] == "no" and len(words) > 1:
            rest = words[1:]
            hit = rest if (path, rest) in exact else next(
                (w for p, w, _l in managed if p == path and w[:len(rest)] == rest), None)
        elif (path, words) in negated:
            hit = ("no", *words)
        elif len(words) >= 2:
            same = by_key.get((path, words[:-1]), [])
            if len(same) == 1:
                hit = same[0]
        if hit is not None:
            out.append((line, _shown(path, words), _shown(path, hit)))
    return out


# --------------------------------------------------------------------------- data


def leaves(data: Mapping[str, Any], path: tuple[str, ...] = ()) -> Iterable[tuple[tuple[str, ...], Any]]:
    """(path, value) of every leaf of nested mappings (a list or an empty mapping is a leaf)."""
    for key, value in data.items():
        if isinstance(value, Mapping) and value:
            yield from leaves(value, (*path, key))
        else:
            yield (*path, key), value


def merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with `extra` merged in, in place: mappings key by key, any other value (a list too) replaced."""
    for key, value in extra.items():
        here = base.get(key)
        if isinstance(here, dict) and isinstance(value, Mapping):
            merge(here, value)
        else:
            base[key] = _copy(value)
    return base


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def data_overrides(managed: Mapping[str, Any], raw: Mapping[str, Any]) -> list[tuple[tuple[str, ...], str, str]]:
    """(path, raw value, managed value; the values as text) for each raw leaf that replaces a managed value: the
    same path with another value, or a path through a managed leaf (a mapping replacing a value)."""
    out: list[tuple[tuple[str, ...], str, str]] = []
    for path, value in leaves(raw):
        node: Any = managed
        for i, key in enumerate(path):
            if not isinstance(node, Mapping) or key not in node:
                node = _ABSENT
                break
            node = node[key]
            if i < len(path) - 1 and not isinstance(node, Mapping):
                out.append((path, _text(value), f"{'.'.join(path[:i + 1])} = {_text(node)}"))
                node = _ABSENT
                break
        if node is _ABSENT or node == value:
            continue
        if isinstance(node, Mapping) and node and not (isinstance(value, Mapping) and not value):
            out.append((path, _text(value), f"{len(node)} managed key(s) under it"))
        elif not isinstance(node, Mapping):
            out.append((path, _text(value), _text(node)))
    return out


_ABSENT = object()


def _text(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)
