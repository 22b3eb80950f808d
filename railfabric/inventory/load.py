"""Load the inventory: YAML files → one plain tree plus a source map of line/column marks.

Safe by construction: only YAML's standard scalar tags are built (no Python objects), duplicate keys are
errors naming both lines, alias expansion is bounded, and every string is checked for control characters
before it can reach a device configuration. Nothing outside the inventory directory is read (symlinks that leave
it are refused), files are size-checked before they are read (each, and all together) and findings stop at a
budget. Several files merge into one tree; mappings merge key by key and
a key defined twice (in one file or across files) is an error naming both places.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from railfabric.core.finding import MAX_FINDINGS, Finding, overflow_note
from railfabric.core.source_map import Location, Path_, SourceMap
from railfabric.core.textsafe import quote
from railfabric.inventory.files import display_path, over_budget, read_file, scan

MAX_ALIAS_NODES = 100_000  # nodes built while expanding aliases, all files together
MAX_DEPTH = 64  # nesting of mappings/sequences; inventories need about 8

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE_TAG = "tag:yaml.org,2002:merge"
_COLLECTION_TAGS = frozenset({"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"})
_NULL_TAG = "tag:yaml.org,2002:null"
# C0 controls except none (tab included: it has no business in a device name or description), DEL, C1,
# and the Unicode line/paragraph separators that some consumers treat as newlines.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# raw configuration text (`raw[i].text`, railfabric/inventory/intent_raw.py) is lines: newline and tab allowed
_RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _is_raw_text(path: Path_) -> bool:
    return len(path) == 3 and path[0] == "raw" and isinstance(path[1], int) and path[2] == "text"


@dataclass
class Loaded:
    data: dict[str, Any]
    source: SourceMap
    findings: list[Finding]
    files: list[Path]
    # sha256 of every file as read (its name as findings show it, then its bytes): what the findings' text is a
    # function of, besides railfabric's code (the canonical inventory digest ignores comments and key order, which
    # move a finding's line and column)
    source_sha256: str = ""


def _mark(file: str, mark: Any) -> Location:
    return Location(file, mark.line + 1, mark.column + 1)


class _Builder:
    """Builds plain Python values from composed YAML nodes, recording marks and problems."""

    def __init__(self, file: str, source: SourceMap, findings: list[Finding], budget: list[int]) -> None:
        self.file = file
        self.source = source
        self.findings = findings
        self.budget = budget  # shared, mutable: [remaining alias nodes, findings not shown]
        self.constructor = yaml.constructor.SafeConstructor()
        self.seen: set[int] = set()
        self.stack: set[int] = set()
        self.in_alias = 0
        self.aborted = False

    def err(self, code: str, msg: str, node: Any, hint: str = "", fatal: bool = False,
            related: tuple[Location, ...] = ()) -> None:
        if len(self.findings) >= MAX_FINDINGS and not fatal:
            self.budget[1] += 1  # past the finding budget: counted, not built
            return
        self.findings.append(Finding(code, msg, _mark(self.file, node.start_mark), hint,
                                     related=related, fatal=fatal))

    def build(self, node: Any, path: Path_) -> Any:
        if self.aborted:
            return None
        nid = id(node)
        if nid in self.stack:
            self.err("LOAD007", "alias refers to a node that contains it (recursive structure)", node,
                     "remove the recursive alias", fatal=True)
            self.aborted = True
            return None
        alias = nid in self.seen and not isinstance(node, yaml.ScalarNode)
        self.seen.add(nid)
        if alias:
            self.in_alias += 1
        try:
            if self.in_alias:
                self.budget[0] -= 1
                if self.budget[0] < 0:
                    self.err("LOAD007", f"aliases expand to more than {MAX_ALIAS_NODES:,} nodes", node,
                             "this looks like a 'billion laughs' file; write the data out or use fewer aliases",
                             fatal=True)
                    self.aborted = True
                    return None
            self.source.values.setdefault(path, _mark(self.file, node.start_mark))
            if not isinstance(node, yaml.ScalarNode) and node.tag not in _COLLECTION_TAGS:
                self.err("SCH003", f"tag {quote(node.tag)} is not allowed here", node,
                         "remove the tag: the inventory holds plain mappings, lists and scalars")
                return None
            if isinstance(node, yaml.MappingNode):
                self.stack.add(nid)
                try:
                    return self._mapping(node, path)
                finally:
                    self.stack.discard(nid)
            if isinstance(node, yaml.SequenceNode):
                self.stack.add(nid)
                try:
                    return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
                finally:
                    self.stack.discard(nid)
            return self._scalar(node, path)
        finally:
            if alias:
                self.in_alias -= 1

    def _scalar(self, node: Any, path: Path_) -> Any:
        try:
            value = self.constructor.construct_object(node)
        except yaml.YAMLError as exc:
            self.err("SCH003", f"cannot use this value: {getattr(exc, 'problem', None) or exc}", node,
                     "only plain YAML scalars (strings, numbers, booleans, null) are allowed")
            return None
        except ValueError:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
            self.err("SCH003", f"a number of {len(str(node.value)):,} characters is past every range", node,
                     "every number of the inventory has a range (railfabric/core/bounds.py); quote it if it is "
                     "a name")
            return None
        if isinstance(value, str) and _is_raw_text(path):
            bad_raw = _RAW_CONTROL.search(value)
            if bad_raw:  # raw configuration text: newlines and tabs are its lines, nothing else is allowed
                line = value.count("\n", 0, bad_raw.start()) + 1
                self.err("RAW001", f"raw text line {line} contains control character U+{ord(bad_raw.group()):04X}",
                         node, "raw text may hold newlines and tabs only; remove the character (a CR: save the "
                         "file with LF line ends or write the text as a YAML block scalar `|`)")
            return value
        if isinstance(value, str) and _CONTROL.search(value):
            bad = _CONTROL.search(value).group()  # type: ignore[union-attr]
            self.err("SEC001", f"string contains control character U+{ord(bad):04X} "
                     f"({'newline' if bad in chr(10) + chr(13) else 'control'})", node,
                     "inventory strings end up in device configs; remove line breaks and control characters")
            return value
        if not isinstance(value, str | int | float | bool | type(None)):
            self.err("SCH003", f"unsupported value type {type(value).__name__} ({quote(node.value)})", node,
                     "quote the value to make it a string")
        return value

    def _key(self, knode: Any) -> tuple[bool, Any]:
        if not isinstance(knode, yaml.ScalarNode):
            self.err("LOAD010", "mapping key is a collection, not a plain scalar", knode,
                     "use a string key", fatal=True)
            return False, None
        key = self._scalar(knode, ())
        if isinstance(key, bool):
            self.err("LOAD010", f"mapping key {quote(knode.value)} is read as the boolean {key}", knode,
                     f"quote the key: {quote(knode.value)}")
            return False, None
        if not isinstance(key, str | int):
            self.err("LOAD010", f"mapping key {quote(knode.value)} is not a string or an integer", knode,
                     "quote the key")
            return False, None
        return True, key

    def _mapping(self, node: Any, path: Path_) -> dict:
        out: dict = {}
        merges: list[tuple[Any, Any]] = []
        for knode, vnode in node.value:
            if knode.tag == _MERGE_TAG:
                merges.append((knode, vnode))
                continue
            ok, key = self._key(knode)
            if not ok:
                continue
            kpath = (*path, key)
            kloc = _mark(self.file, knode.start_mark)
            if key in out:
                first = self.source.keys.get(kpath)
                self.err("LOAD002", f"key {quote(key)} is defined twice in this mapping"
                         + (f" (first at line {first.line})" if first else ""), knode,
                         "delete one of them; YAML would otherwise keep only the last value silently",
                         related=(first,) if first else ())
                continue
            self.source.keys[kpath] = kloc
            out[key] = self.build(vnode, kpath)
        # YAML merge keys (<<: *anchor): explicit keys win, merged keys fill in.
        for _knode, vnode in merges:
            sources = vnode.value if isinstance(vnode, yaml.SequenceNode) else [vnode]
            for src in sources:
                if not isinstance(src, yaml.MappingNode):
                    self.err("LOAD010", "merge key '<<' needs a mapping or a list of mappings", src)
                    continue
                self.in_alias += 1
                try:
                    merged = self.build(src, ("<<", *path))
                finally:
                    self.in_alias -= 1
                if isinstance(merged, dict):
                    for key, value in merged.items():
                        if key not in out:
                            out[key] = value
                            src_loc = self.source.values.get(("<<", *path, key))
                            if src_loc:
                                self.source.values.setdefault((*path, key), src_loc)
                                self.source.keys.setdefault((*path, key), src_loc)
        return out


def _load_file(path: Path, name: str, source: SourceMap, findings: list[Finding],
               budget: list[int]) -> tuple[Any, bytes]:
    raw = read_file(path, name, findings)
    if raw is None:
        return None, b""
    if b"\x00" in raw:
        off = raw.index(b"\x00")
        line = raw.count(b"\n", 0, off) + 1
        findings.append(Finding("LOAD006", f"file contains NUL bytes (binary data) at byte {off}",
                                Location(name, line, 1), "inventory files must be UTF-8 YAML text", fatal=True))
        return None, raw
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        findings.append(Finding("LOAD006", f"file is not UTF-8 text (bad byte 0x{raw[exc.start]:02x} at offset "
                                f"{exc.start})", Location(name, line, 1),
                                "save the file as UTF-8", fatal=True))
        return None, raw
    try:
        deep = _too_deep(text)
        if deep is not None:
            findings.append(Finding("LOAD001", f"nesting deeper than {MAX_DEPTH} levels", _mark(name, deep),
                                    "flatten the structure; inventories need a handful of levels", fatal=True))
            return None, raw
        docs = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        col = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        char = exc.character if isinstance(exc.character, str) else chr(exc.character)
        findings.append(Finding("SEC001", f"file contains control character U+{ord(char):04X}",
                                Location(name, line, col), "remove it; inventory text must be printable", fatal=True))
        return None, raw
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = _mark(name, mark) if mark else Location(name)
        problem = exc.problem or exc.context or "syntax error"
        findings.append(Finding("LOAD001", f"YAML syntax error: {problem}"
                                + (f" ({exc.context})" if exc.context and exc.problem else ""),
                                loc, "check indentation, quoting and ':' after keys", fatal=True))
        return None, raw
    except yaml.YAMLError as exc:
        findings.append(Finding("LOAD001", f"YAML error: {exc}", Location(name, 1, 1), fatal=True))
        return None, raw
    except RecursionError:
        findings.append(Finding("LOAD001", "YAML nesting is too deep", Location(name, 1, 1), fatal=True))
        return None, raw
    docs = [d for d in docs if not _empty_document(d)]
    if not docs:
        findings.append(Finding("LOAD004", "file is empty (no YAML document)", Location(name, 1, 1),
                                "delete the file or add inventory sections to it", fatal=True))
        return None, raw
    if len(docs) > 1:
        findings.append(Finding("LOAD009", f"file holds {len(docs)} YAML documents; only one is allowed",
                                _mark(name, docs[1].start_mark), "split it into separate files", fatal=True))
        return None, raw
    root = docs[0]
    if not isinstance(root, yaml.MappingNode):
        kind = "a list" if isinstance(root, yaml.SequenceNode) else f"a scalar ({quote(root.value)})"
        findings.append(Finding("LOAD005", f"top level of the file is {kind}, not a mapping",
                                _mark(name, root.start_mark),
                                "start the file with section keys such as `fabric:` or `pods:`", fatal=True))
        return None, raw
    builder = _Builder(name, source, findings, budget)
    try:
        tree = builder.build(root, ())
    except RecursionError:
        findings.append(Finding("LOAD001", "YAML nesting is too deep", Location(name, 1, 1), fatal=True))
        return None, raw
    return (None if builder.aborted else tree), raw


def _empty_document(node: Any) -> bool:
    """A document with nothing in it ('---' and comments) composes to an empty null scalar."""
    return node is None or (isinstance(node, yaml.ScalarNode) and node.tag == _NULL_TAG and node.value == "")


def _too_deep(text: str) -> Any:
    """Mark where collections nest deeper than MAX_DEPTH, else None. libyaml composes nested collections
    recursively in C, so a pathological file could exhaust the C stack: walk the flat event stream first."""
    depth = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                return event.start_mark
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return None


def _merge(dst: dict, src: dict, path: Path_, file_source: SourceMap, source: SourceMap,
           findings: list[Finding]) -> None:
    for key, value in src.items():
        kpath = (*path, key)
        if key not in dst:
            dst[key] = value
            continue
        if isinstance(dst[key], dict) and isinstance(value, dict):
            _merge(dst[key], value, kpath, file_source, source, findings)
            continue
        first = source.key_loc(kpath)
        second = file_source.key_loc(kpath)
        where = ".".join(str(p) for p in kpath)
        findings.append(Finding(
            "LOAD003", f"key {quote(where, 80)} is defined in two files (first at {first})", second,
            "keep one definition; mappings merge across files, but a key may be defined only once",
            related=(first,) if first else ()))


def load_inventory(root: Path) -> Loaded:
    """Load every YAML file under `root` (or the single file `root`) into one tree."""
    findings: list[Finding] = []
    source = SourceMap()
    data: dict[str, Any] = {}
    if not root.exists():
        findings.append(Finding("LOAD008", f"inventory path {quote(display_path(root), 80)} does not exist",
                                Location(display_path(root)), "pass a directory of .yml files or one file",
                                fatal=True))
        return Loaded(data, source, findings, [])
    files = scan(root, findings)
    if not files and not findings:
        findings.append(Finding("LOAD008", f"no .yml or .yaml files in {quote(display_path(root), 80)}",
                                Location(display_path(root)), "add fabric.yml (see docs/inventory.md)", fatal=True))
    over = over_budget(files, root)
    if over is not None:
        findings.append(over)
    if not files or over is not None:
        return Loaded(data, source, findings, files)
    budget = [MAX_ALIAS_NODES, 0]
    read = hashlib.sha256()
    for path in files:
        name = display_path(path)
        source.files.append(name)
        file_source = SourceMap()
        tree, raw = _load_file(path, name, file_source, findings, budget)
        label = name.encode("utf-8", "surrogateescape")
        read.update(b"%d:%s%d:" % (len(label), label, len(raw)))
        read.update(raw)
        if not isinstance(tree, dict):
            continue
        _merge(data, tree, (), file_source, source, findings)
        for k, v in file_source.values.items():
            source.values.setdefault(k, v)
        for k, v in file_source.keys.items():
            source.keys.setdefault(k, v)
    if budget[1]:
        findings.append(overflow_note(budget[1]))
    return Loaded(data, source, findings, files, read.hexdigest())
