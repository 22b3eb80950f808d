"""startup.yaml text without PyYAML's pure-Python emitter in the loop: the same bytes, about 20 times faster.

PyYAML's emitter walks an event stream per node and costs about 0.14 s per switch (100 s for 704 NVUE switches).
The document is plain data (mappings, sequences, strings, ints, bools, None) written in block style with sorted
keys, so its layout is fixed by a few rules of PyYAML's emitter (yaml/emitter.py, indent 2, no flow style):
- a mapping value that is a non-empty mapping goes on the next lines, indented 2 more;
- a sequence inside a mapping is "indentless": its `- ` at the column of the mapping's keys;
- a mapping or sequence that is an item of a sequence starts on the dash's line (`- key: ...`, `- - ...`), its
  other lines 2 columns right of the dash;
- an empty mapping is `{}`, an empty sequence `[]`.
What is not fixed is how each scalar is written (plain, single or double quoted): that is PyYAML's own analysis,
so each distinct scalar is dumped once by PyYAML itself, as a key and as a value, and the text reused (the common
case, a word or an address, is decided by PyYAML's own resolver without the emitter: _SAFE below; a
single-quoted value with line breaks spans lines: its continuation lines are moved to its key's column + 2).
Anything outside these rules (a multi-line key or sequence item, a complex key, a type other than dict, list, str,
int, bool and None) makes dump() fall back to PyYAML for the whole document; tests compare both.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from functools import lru_cache

import yaml

_KEY_PROBE = 0  # value of the one-key mapping whose dump gives a key's text: "<key>: 0\n"
# Strings PyYAML's scalar analysis (Emitter.analyze_scalar) finds no indicator, space, break or special character
# in: printable ASCII from this set, not starting with "-" or "." (a "- " indicator, "---" / "..." markers). It
# writes them plain when its resolver reads the plain text back as a string, else single-quoted ('100', 'on').
# Short enough for a simple key (Emitter.check_simple_key: tag "!!str" + text < 128 characters).
_SAFE = re.compile(r"[A-Za-z0-9_/][A-Za-z0-9_./-]{0,99}\Z")
_STR = "tag:yaml.org,2002:str"


class Fallback(Exception):
    """The document holds something these rules do not cover: let PyYAML write it."""


def make_dump(dumper: type[yaml.SafeDumper]) -> Callable[[object], str]:
    """dump(doc): the text PyYAML's yaml.dump(doc, Dumper=dumper, sort_keys=True, default_flow_style=False,
    allow_unicode=False, width=1 << 30, indent=2) gives."""

    def pyyaml(doc: object) -> str:
        return yaml.dump(doc, Dumper=dumper, sort_keys=True, default_flow_style=False, allow_unicode=False,
                         width=1 << 30, indent=2)

    resolver = dumper(io.StringIO())  # the dumper's own implicit resolvers (int, float, bool, null, timestamp...)

    def simple(value: str | int | bool | None) -> str | None:
        """The text of a _SAFE string as PyYAML writes it (value or key), None for anything else."""
        if type(value) is not str or not _SAFE.match(value):
            return None
        return value if resolver.resolve(yaml.ScalarNode, value, (True, False)) == _STR else f"'{value}'"

    @lru_cache(maxsize=1 << 16)
    def value_text(value: str | int | bool | None) -> str:
        """The scalar as the value of a mapping at column 0; a single-quoted scalar holding line breaks spans
        several lines, its continuation lines indented 2 (PyYAML's write_indent) and its blank lines empty."""
        fast = simple(value)
        if fast is not None:
            return fast
        text = pyyaml({"k": value})
        if not text.startswith("k: "):
            raise Fallback(value)
        return text[3:-1]

    @lru_cache(maxsize=1 << 16)
    def key_text(key: str | int | bool | None) -> str:
        fast = simple(key)
        if fast is not None:
            return fast
        text = pyyaml({key: _KEY_PROBE})
        if not text.endswith(f": {_KEY_PROBE}\n") or text.count("\n") != 1 or text.startswith("? "):
            raise Fallback(key)
        return text[:-len(f": {_KEY_PROBE}\n")]

    def scalar(value: object, text_of: Callable[[str | int | bool | None], str]) -> str:
        if value is None or type(value) in (str, int, bool):
            return text_of(value)  # type: ignore[arg-type]
        raise Fallback(value)

    def items(mapping: dict[object, object]) -> list[tuple[object, object]]:
        pairs = list(mapping.items())
        try:
            return sorted(pairs)
        except TypeError:  # PyYAML keeps the order of keys it cannot sort
            return pairs

    def node(value: object, indent: int, out: list[str], first: str) -> None:
        """Append the non-empty mapping or sequence `value` at `indent`; `first` is what its first line starts with
        (the dashes of the sequence items it is in), "" when it starts on a line of its own."""
        if type(value) is dict:
            mapping(value, indent, out, first)
        elif type(value) is list:
            sequence(value, indent, out, first)
        else:  # tuples and other types: PyYAML's representers decide
            raise Fallback(value)

    def mapping(value: dict[object, object], indent: int, out: list[str], first: str) -> None:
        pad = " " * indent
        lead = first
        for k, v in items(value):
            head = (lead or pad) + scalar(k, key_text) + ":"
            lead = ""
            if type(v) is dict and v:
                out.append(head)
                mapping(v, indent + 2, out, "")
            elif type(v) is list and v:
                out.append(head)
                sequence(v, indent, out, "")  # indentless: the dashes at the keys' column
            else:
                text = leaf(v)
                if "\n" in text:  # continuation lines: 2 right of the key (relative to column 0 in value_text)
                    first_line, *rest = text.split("\n")
                    text = "\n".join([first_line, *(line and pad + line for line in rest)])
                out.append(head + " " + text)

    def sequence(value: list[object], indent: int, out: list[str], first: str) -> None:
        pad = " " * indent
        lead = first
        for v in value:
            dash = (lead or pad) + "- "
            lead = ""
            if (type(v) is dict or type(v) is list) and v:
                node(v, indent + 2, out, dash)
            else:
                text = leaf(v)
                if "\n" in text:  # a multi-line scalar as a sequence item: not covered here
                    raise Fallback(v)
                out.append(dash + text)

    def leaf(value: object) -> str:
        if type(value) is dict:
            return "{}"
        if type(value) is list:
            return "[]"
        return scalar(value, value_text)

    def dump(doc: object) -> str:
        out: list[str] = []
        try:
            if (type(doc) is dict or type(doc) is list) and doc:
                node(doc, 0, out, "")
            else:
                return pyyaml(doc)
        except Fallback:
            return pyyaml(doc)
        return "\n".join(out) + "\n"

    return dump
