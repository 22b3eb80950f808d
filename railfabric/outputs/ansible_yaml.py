"""YAML text for the Ansible files: scalars that read back as the same value in every YAML parser, `!unsafe` for
text holding a Jinja opener, and a small block-style writer.

Hand-written because PyYAML's pure-Python emitter costs 3 s for the host_vars of a 65K-GPU fabric and its C emitter
is not on every machine; the test suite reads every file back with yaml.safe_load.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import cast

import yaml

from railfabric.core.textsafe import JINJA_OPENERS, jinja_unsafe

# never starts with an indicator or '...'; \Z, not $: a text ending in a newline is no plain scalar
_PLAIN = re.compile(r"^(?!\.\.\.)[A-Za-z0-9./][A-Za-z0-9._/-]*\Z")
# YAML 1.2 numbers and YAML 1.1 y/n that PyYAML (1.1) reads as strings but other parsers might not: quoted too
_OTHER_PARSERS = re.compile(r"^(?:[-+]?\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?|0o[0-7]+|[yYnN])$")
_RESOLVER = yaml.resolver.Resolver()
_STR = "tag:yaml.org,2002:str"


def _scalar(value: object) -> str:
    """A YAML scalar: plain when it reads back as the same string (no quoting noise), else JSON double-quoted
    (JSON strings are valid YAML)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return _text(str(value))


# an IPv4 address or prefix: four runs of ASCII digits joined by dots are no number, boolean, null or timestamp of
# YAML 1.1 or 1.2 and hold no indicator, so it is plain; tested, and it spares the resolver the unique ones
_ADDRESS = re.compile(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}(?:/[0-9]{1,2})?")
# Two more kinds of text of plain characters (_PLAIN) that are plain without asking the resolver (tested against
# it; they spare it and its cache the unique ones: 20,000 paths and 27,000 switch and host names at 131,072 GPUs):
# - _UP: starting with "../" (the host_vars' config_files paths): YAML 1.1 and 1.2 read a scalar starting with "."
#   as a number only when a digit, "inf" or "nan" follows that first dot, and as nothing else (null, boolean,
#   timestamp, merge key, document marker: _PLAIN excludes "...");
# - _NAME: starting with an ASCII letter and holding a character that is not one (hostnames: p1-s1-rail0): every
#   word YAML 1.1 or 1.2 reads as other than a string and that starts with a letter is letters only (booleans,
#   nulls, y/n; numbers, timestamps and the merge and value keys start with a digit, a sign, a dot, "<" or "=")


def _text(text: str) -> str:
    """_scalar of a string: plain when it may be (_plain_text), else JSON double-quoted (_quoted)."""
    if _PLAIN.match(text):
        first = text[0]
        if first >= "A":  # a letter (_PLAIN's first characters: letters, digits, "." and "/")
            return _plain_text(text) if text.isalpha() else text  # _NAME
        if first == ".":
            return text if text.startswith("../") else _plain_text(text)  # _UP
        return text if first != "/" and _ADDRESS.fullmatch(text) else _plain_text(text)
    return _quoted(text)


@lru_cache(maxsize=1 << 16)
def _plain_text(text: str) -> str:
    """_text of a string of plain characters, once per distinct string: keys, gateways and route prefixes recur on
    every host, and PyYAML's resolver is the costly part (2 million calls for the host files of a 65K-GPU fabric).
    Texts that are never plain (the `ip rule` of every host address) bypass the cache, which they would flush."""
    if not _OTHER_PARSERS.match(text) and _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == _STR:
        return text
    return _quoted(text)


def _quoted(text: str) -> str:
    """json.dumps(text): a printable ASCII text without a quote or a backslash is written as it is between quotes
    (json.dumps escapes nothing else in it)."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return json.dumps(text)


def _value(value: object) -> str:
    """A YAML scalar for a value Ansible reads: text holding a Jinja opener is marked `!unsafe`, so Ansible never
    evaluates it on the controller (validation keeps such text out of the inventory, SEC004; this is the second
    guard)."""
    t = type(value)
    if t is str:  # the usual cases first, without _scalar's checks for the other types
        return _str_value(value)  # type: ignore[arg-type]
    if t is int:  # exactly int: a bool is not
        return str(value)
    text = _scalar(value)
    return jinja_unsafe(text, value) if isinstance(value, str) and "{" in value else text


assert all(o.startswith("{") for o in JINJA_OPENERS), "_value looks for a Jinja opener only where a '{' is"


_PLAIN_MATCH, _ADDRESS_MATCH = _PLAIN.match, _ADDRESS.fullmatch


def _str_value(text: str) -> str:
    """_value of a str: _text and _quoted inlined (the writer's most frequent call: a few hundred thousand values
    for the Ansible files of a 131K-GPU fabric), the same text (tests/test_ansible_yaml_fast.py)."""
    if _PLAIN_MATCH(text):
        first = text[0]
        if first >= "A":
            out = _plain_text(text) if text.isalpha() else text  # _NAME
        elif first == ".":
            out = text if text.startswith("../") else _plain_text(text)  # _UP
        else:
            out = text if first != "/" and _ADDRESS_MATCH(text) else _plain_text(text)
    elif text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        out = f'"{text}"'
    else:
        out = json.dumps(text)
    return jinja_unsafe(out, text) if "{" in text else out


def _yaml(data: Mapping[str, object], indent: int = 0) -> str:
    """Block-style YAML for mappings of scalars, lists of scalars (written in flow style) and nested mappings.
    Hand-written because PyYAML's pure-Python emitter costs 3 s for the host_vars of a 65K-GPU fabric and its C
    emitter is not on every machine; the test suite reads every file back with yaml.safe_load."""
    lines: list[str] = []
    _block(data, " " * indent, lines)
    return "".join(lines)


def _block(data: Mapping[str, object], pad: str, lines: list[str]) -> None:
    """_yaml's lines, appended to `lines`. Exact type checks first (a str, a dict, a list: what the callers mostly
    hold), the ABCs only for the other types: isinstance against Mapping costs a Python call each."""
    for key, value in data.items():
        k = _key(key) if type(key) is str else _scalar(key)
        t = type(value)
        if t is str:
            lines.append(f"{pad}{k}: {_str_value(value)}\n")  # type: ignore[arg-type]
        elif t is dict or (t is not list and t is not tuple and isinstance(value, Mapping)):
            if value:
                lines.append(f"{pad}{k}:\n")
                _block(value, pad + "  ", lines)  # type: ignore[arg-type]
            else:
                lines.append(f"{pad}{k}: {{}}\n")
        elif t is list or t is tuple or isinstance(value, list | tuple):
            lines.append(f"{pad}{k}: [{', '.join(map(_value, value))}]\n")  # type: ignore[call-overload]
        else:
            lines.append(f"{pad}{k}: {_value(value)}\n")


_KEYS: dict[str, str] = {}  # _text of the keys: names recur in every file, hostnames in several groups (bounded)


def _key(key: str) -> str:
    out = _KEYS.get(key)
    if out is None:
        if len(_KEYS) >= 1 << 16:
            _KEYS.clear()
        out = _KEYS[key] = _text(key)
    return out


# _flat_yaml's lines by (key, the value's exact type, the value; a list's items as a tuple): the same lines (role,
# platform, model, push account, vault names, ...) recur on thousands of switches (bounded)
_LINES: dict[tuple[str, type, object], str] = {}


def _flat_yaml(data: Mapping[str, object]) -> str:
    """_yaml(data) for a mapping of str keys whose values recur across many files (the host_vars): the line of a
    str, int, bool or None value, or of a list of str or of int (exact types: True is no 1 here), is made once by
    _block and kept under its key, its type and its value; an address is written as it is (_text: plain, and
    unique: not kept); any other value is written by _block each time."""
    out: list[str] = []
    for key, value in data.items():
        t = type(value)
        memo: tuple[str, type, object] | None = None
        if type(key) is str:
            if t is str:
                text = cast(str, value)
                if "0" <= text[:1] <= "9" and _ADDRESS_MATCH(text):
                    out.append(f"{_key(key)}: {text}\n")
                    continue
                memo = (key, t, text)
            elif t is int or t is bool or value is None:
                memo = (key, t, value)
            elif t is list:
                items = cast(list, value)
                if all(type(v) is str for v in items) or all(type(v) is int for v in items):
                    memo = (key, t, (type(items[0]) if items else None, *items))
        if memo is None:
            _block({key: value}, "", out)
            continue
        line = _LINES.get(memo)
        if line is None:
            if len(_LINES) >= 1 << 16:
                _LINES.clear()
            made: list[str] = []
            _block({key: value}, "", made)
            line = _LINES[memo] = made[0]
        out.append(line)
    return "".join(out)
