"""Rules on the raw configuration blocks (`raw:`, railfabric/inventory/intent_raw.py): RAW002-RAW008.

RAW001 (control characters in raw text) is the loader's (railfabric/inventory/load.py), RAW009 (a raw value that
replaces a managed one) needs the rendered files (railfabric/configs/raw_overrides.py). Here: each block's size
(RAW002) and form for its platform (RAW004), lines that would end the configuration early (RAW005), the types and
shape of data blocks (RAW006), selectors that name nothing (RAW007) or select no switch (RAW008), and what all the
blocks of one switch add together (RAW003).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import orjson

from railfabric.core.config_tree import ending_lines
from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.core.textsafe import quote
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_raw import (
    BLOCK_MAX_BYTES,
    DATA_MAX_DEPTH,
    DEVICE_MAX_BYTES,
    RawBlock,
    blocks_for,
    device_matches,
)
from railfabric.platforms import PLATFORMS
from railfabric.topology import Topology

SONIC_TABLE = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")  # CONFIG_DB table names (sonic-yang-models: upper case)


def block_bytes(block: RawBlock) -> int:
    """What a block adds to a file, for the limits: its text's UTF-8 bytes, or its data as compact JSON."""
    if block.text is not None:
        return len(block.text.encode())
    return len(orjson.dumps(block.data, option=orjson.OPT_NON_STR_KEYS))


def check_raw(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    if not inv.raw:
        return []
    out: list[Finding] = []
    first: dict[str, int] = {}
    for i, block in enumerate(inv.raw):
        if block.name in first:  # plan, show, host_vars and verify name blocks: a name is one block
            out.append(Finding("SCH003", f"raw[{i}].name: raw block name {block.name!r} is already raw"
                               f"[{first[block.name]}]'s", src.loc(("raw", i, "name")), "give each block its own name"))
        first.setdefault(block.name, i)
        out += _block(i, block, src)
        out += _selectors(i, block, inv, topo, src)
    out += _per_switch(inv, topo, src)
    return out


def _block(i: int, b: RawBlock, src: SourceMap) -> list[Finding]:
    traits = PLATFORMS[b.platform]
    form, path = ("text", ("raw", i, "text")) if b.text is not None else ("data", ("raw", i, "data"))
    takes = traits.raw_text_file if form == "text" else traits.raw_data_file
    if not takes:
        other = "data" if form == "text" else "text"
        return [Finding("RAW004", f"raw block {b.name!r}: {traits.title} takes no raw {form}"
                        + (f" (its raw {other} goes into {traits.raw_text_file or traits.raw_data_file})"
                           if traits.raw_text_file or traits.raw_data_file else ""),
                        src.key_loc(path), f"write the block as `{other}:` for {traits.title}")]
    out: list[Finding] = []
    size = block_bytes(b)
    if size > BLOCK_MAX_BYTES:
        out.append(Finding("RAW002", f"raw block {b.name!r} holds {size:,} bytes, above the limit of "
                           f"{BLOCK_MAX_BYTES:,}", src.loc(path), "a raw block is a few lines: model larger "
                           "configuration in railfabric or split the block by where it applies"))
    if b.text is not None:
        marks = [(n, "it reads as railfabric's own raw block marker, which `fabric verify` pairs")
                 for n, text in enumerate(b.text.split("\n"), 1) if "railfabric raw " in text]
        for line, why in ending_lines(b.text, traits.raw_syntax) + marks:
            out.append(Finding("RAW005", f"raw block {b.name!r} line {line}: {why}", src.loc(path),
                               "remove the line: railfabric places the block inside the file and closes the "
                               "configuration itself"))
    else:
        assert b.data is not None
        out += [Finding("RAW006", f"raw block {b.name!r}: {problem}", src.loc((*path, *at)) or src.loc(path), hint)
                for at, problem, hint in _data_problems(b.platform, b.data)]
    return out


_TYPES_HINT = "data values are strings, integers, booleans, mappings and lists"


def _data_problems(platform: str, data: dict[Any, Any]) -> Iterator[tuple[tuple, str, str]]:
    """(path inside the data, problem, hint) of each value of a data block of the wrong type or shape."""
    if platform == "sonic":
        yield from _sonic_shape(data)
    yield from _types(data, ())


def _types(value: Any, at: tuple) -> Iterator[tuple[tuple, str, str]]:
    if len(at) > DATA_MAX_DEPTH:
        yield at, f"nested deeper than {DATA_MAX_DEPTH} levels", "flatten the data"
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, bool) or not isinstance(k, str | int) or (isinstance(k, str) and not k):
                yield at, f"key {quote(k)} at {_dotted(at)} is not a non-empty string or an integer", _TYPES_HINT
                continue
            yield from _types(v, (*at, k))
    elif isinstance(value, list):
        for n, v in enumerate(value):
            yield from _types(v, (*at, n))
    elif value is None or isinstance(value, float):
        kind = "null" if value is None else f"the number {value!r}"
        yield at, f"{_dotted(at)} is {kind}", _TYPES_HINT + " (quote a number with a fraction; leave a key out " \
                                                            "instead of null)"


def _sonic_shape(data: dict[Any, Any]) -> Iterator[tuple[tuple, str, str]]:
    hint = "SONiC data is TABLE: {KEY: {field: value}} as in config_db.json"
    for table, rows in data.items():
        if not isinstance(table, str) or not SONIC_TABLE.match(table):
            yield (table,), f"{quote(table)} is not a CONFIG_DB table name (upper case letters, digits, '_')", hint
        elif not isinstance(rows, dict):
            yield (table,), f"table {table} is not a mapping of keys to rows", hint
        else:
            for key, row in rows.items():
                if not isinstance(row, dict):
                    yield (table, key), f"row {table}|{key} is not a mapping of fields", hint
                    continue
                for name, value in row.items():
                    scalar = isinstance(value, str | int) and not isinstance(value, float)
                    listed = isinstance(value, list) and all(isinstance(v, str | int) for v in value)
                    if not (scalar or listed):
                        yield (table, key, name), f"field {table}|{key}.{name} is not a value or a list of " \
                                                  "values", hint


def _dotted(at: tuple) -> str:
    return ".".join(str(a) for a in at) or "the top"


def _selectors(i: int, b: RawBlock, inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    out: list[Finding] = []
    pods = {p.id for p in inv.pods}
    segments = {f"{p.id}/{s.id}" for p in inv.pods for s in p.segments}
    for n, pod in enumerate(b.pods):
        if pod not in pods:
            out.append(Finding("RAW007", f"raw block {b.name!r} names pod {pod}, which the fabric does not have",
                               src.loc(("raw", i, "pods", n)), f"pods: {', '.join(map(str, sorted(pods)))}"))
    for n, seg in enumerate(b.segments):
        if seg not in segments:
            out.append(Finding("RAW007", f"raw block {b.name!r} names segment {seg}, which the fabric does not have",
                               src.loc(("raw", i, "segments", n)), "segments are POD/SEGMENT: "
                               + ", ".join(sorted(segments)[:10])))
    names = [n for sw in topo.switches.values() for n in {sw.key, sw.name}]
    for n, pattern in enumerate(b.devices):
        if not any(device_matches(pattern, name) for name in names):
            out.append(Finding("RAW007", f"raw block {b.name!r} names device {pattern!r}, which matches no switch",
                               src.loc(("raw", i, "devices", n)), "a pattern name (the key of devices:), a hostname "
                               "or a shell pattern such as 'p1-*-rail0'"))
    if not out and not any(b.selects(sw.platform, sw.role.value, sw.pod, sw.segment, (sw.key, sw.name))
                           for sw in topo.switches.values()):
        out.append(Finding("RAW008", f"raw block {b.name!r} applies to no switch: none of the switches it selects "
                           f"runs {b.platform}", src.loc(("raw", i)), "check the block's platform and selector",
                           severity=Severity.WARNING))
    return out


def _per_switch(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    """RAW003 once per set of blocks that is too large together, naming the switches it applies to."""
    sizes = [block_bytes(b) for b in inv.raw]
    too_large: dict[tuple[int, ...], list[str]] = defaultdict(list)
    for sw in topo.switches.values():
        chosen = tuple(i for i, _b in blocks_for(inv.raw, sw.platform, sw.role.value, sw.pod, sw.segment,
                                                 (sw.key, sw.name)))
        if sum(sizes[i] for i in chosen) > DEVICE_MAX_BYTES:
            too_large[chosen].append(sw.name)
    out = []
    for chosen, switches in sorted(too_large.items()):
        total = sum(sizes[i] for i in chosen)
        out.append(Finding("RAW003", f"raw blocks {', '.join(inv.raw[i].name for i in chosen)} add {total:,} bytes "
                           f"to {len(switches)} switch(es) ({', '.join(switches[:3])}"
                           f"{', ...' if len(switches) > 3 else ''}), above the limit of {DEVICE_MAX_BYTES:,}",
                           src.loc(("raw", chosen[-1])), "narrow the blocks' selectors or make them smaller"))
    return out
