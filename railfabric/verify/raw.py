"""The raw configuration blocks read back (`raw:` in the inventory; nothing here reads it or railfabric's model).

Text blocks stand in their file between two marker comments, `railfabric raw NAME (LEVEL): begin` and `railfabric
raw NAME: end`, in the platform's comment form (`!` on EOS, NX-OS and FRR, `/* */` on Junos); the reader counts the
lines of each block and fails a file whose markers do not pair or that lacks a block its host_vars `raw_text` names
(or holds one they do not). Data blocks leave no mark in JSON or YAML: every leaf of the host_vars `raw_data` must be
in the platform's data file with that value (SONiC config_db.json, the NVUE startup.yaml `set` tree).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from railfabric.core import safe_yaml
from railfabric.platforms import PLATFORMS
from railfabric.verify.inputs import DeviceVars, read_text
from railfabric.verify.model import Failure, VerifyInputError

_MARK = re.compile(r"^\s*(?:!+|/\*)\s*railfabric raw ([A-Za-z0-9][A-Za-z0-9_.-]*)(?: \(\w+\))?: (begin|end)"
                   r"\s*(?:\*/)?\s*$")


@dataclass(slots=True)
class RawSeen:
    """What the raw blocks of the tree came to: lines of text blocks, data values, devices carrying any."""

    lines: int = 0
    blocks: int = 0
    values: int = 0
    devices: set[str] = field(default_factory=set)

    def note(self) -> str:
        return (f"raw configuration: {self.lines} line(s) of {self.blocks} text block(s) and {self.values} data "
                f"value(s) found in {len(self.devices)} device(s)")


def text_blocks(text: str) -> tuple[dict[str, int], list[str]]:
    """(block name → its lines that are not blank, in file order; problems) of the raw markers in `text`."""
    found: dict[str, int] = {}
    problems: list[str] = []
    open_name: str | None = None
    for n, line in enumerate(text.split("\n"), 1):
        m = _MARK.match(line)
        if m is None:
            if open_name is not None and line.strip():
                found[open_name] += 1
            continue
        name, edge = m.groups()
        if edge == "begin":
            if open_name is not None:
                problems.append(f"line {n}: raw block {name} begins inside raw block {open_name}")
            open_name = name
            found.setdefault(name, 0)
        elif name != open_name:
            problems.append(f"line {n}: the end of raw block {name}, which is not open")
        else:
            open_name = None
    if open_name is not None:
        problems.append(f"raw block {open_name} has no end marker")
    return found, problems


def _leaves(data: Mapping[str, Any], path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for key, value in data.items():
        if isinstance(value, Mapping) and value:
            yield from _leaves(value, (*path, str(key)))
        else:
            yield (*path, str(key)), value


def _data_root(text: str, file: str) -> Any:
    """The data a raw block merges into: config_db.json's object, or startup.yaml's `set` tree."""
    if file.endswith(".json"):
        return json.loads(text)
    doc = safe_yaml.load(text)
    if isinstance(doc, list) and doc and isinstance(doc[0], dict) and "set" in doc[0]:
        return doc[0]["set"]
    return doc


def _lookup(root: Any, path: tuple[str, ...]) -> Any:
    node = root
    for key in path:
        if not isinstance(node, Mapping):
            return _MISSING
        hit = node.get(key, _MISSING)
        if hit is _MISSING and key.lstrip("-").isdigit():
            hit = node.get(int(key), _MISSING)  # a YAML key written as a number (NVUE VLAN ids)
        if hit is _MISSING:
            return _MISSING
        node = hit
    return node


_MISSING = object()


def check_raw(root: Path, devices: dict[str, DeviceVars], seen: RawSeen) -> list[Failure]:
    """Failures of the raw blocks of every device; what was found is added to `seen`."""
    out: list[Failure] = []
    for name, dev in sorted(devices.items()):
        traits = PLATFORMS[dev.platform]
        if traits.raw_text_file:
            where = f"configs/{name}/{traits.raw_text_file}"
            found, problems = text_blocks(read_text(root / where, root))
            out += [Failure("raw", name, traits.raw_text_file, "raw block markers that pair", p, where)
                    for p in problems]
            for block in sorted(set(dev.raw_text) - set(found)):
                out.append(Failure("raw", name, f"raw block {block}", "in the file (host_vars raw_text)", "none",
                                   where))
            for block in sorted(set(found) - set(dev.raw_text)):
                out.append(Failure("raw", name, f"raw block {block}", "only the blocks host_vars raw_text names",
                                   f"{found[block]} line(s)", where))
            if found:
                seen.devices.add(name)
                seen.blocks += len(found)
                seen.lines += sum(found.values())
        if dev.raw_data and traits.raw_data_file:
            where = f"configs/{name}/{traits.raw_data_file}"
            try:
                data = _data_root(read_text(root / where, root), traits.raw_data_file)
            except (ValueError, yaml.YAMLError) as exc:
                raise VerifyInputError(f"{where}: cannot read: {exc}") from None
            seen.devices.add(name)
            for path, value in _leaves(dev.raw_data):
                got = _lookup(data, path)
                seen.values += 1
                if got is _MISSING or got != value:
                    out.append(Failure("raw", name, f"raw data {'.'.join(path)}", repr(value),
                                       "none" if got is _MISSING else repr(got), where))
    return out


def merged_sections(text: str) -> str:
    """Indented CLI text with every repeated section merged into its first occurrence (children appended in order,
    recursively; a repeated leaf line kept once): a raw block that re-opens a section railfabric wrote (`interface
    Ethernet1`, `router bgp N`) is how the switch reads it too, one section, while hier_config refuses a duplicate.
    `!` comment lines are dropped. Text without a repeated section comes back with only its comments dropped."""
    root: dict[str, dict] = {}
    stack: list[tuple[int, dict[str, dict]]] = [(-1, root)]
    closing = ""  # inside a banner: the line that ends it (EOS `EOF`, NX-OS the delimiter), kept verbatim
    for line in text.split("\n"):
        body = line.strip()
        if closing:
            stack[-1][1][f"{len(stack[-1][1])}\0{line}"] = {}  # a banner line: never merged with another
            closing = "" if body == closing else closing
            continue
        if not body or body.startswith("!"):
            continue
        if body.startswith("banner "):
            words = body.split()
            closing = "EOF" if len(words) == 2 else words[2] if len(words) == 3 else ""
        indent = len(line) - len(line.lstrip(" "))
        while stack[-1][0] >= indent:
            stack.pop()
        children = stack[-1][1]
        key = line.rstrip()
        node = children.setdefault(key, {})
        stack.append((indent, node))
    out: list[str] = []

    def emit(children: dict[str, dict]) -> None:
        for key, node in children.items():
            out.append(key.split("\0", 1)[-1])
            emit(node)
    emit(root)
    return "\n".join(out) + "\n"
