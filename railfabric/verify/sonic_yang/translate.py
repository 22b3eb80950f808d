"""One config_db.json as a YANG instance document, mapped the way SONiC's sonic-yang-mgmt maps it.

The mapping rules (learnt from sonic-buildimage `src/sonic-yang-mgmt/sonic_yang_ext.py`, `_xlateContainer` and
friends; this is an independent implementation):

- Table T is the container T inside the top-level container of the module that defines it; a table no module
  defines cannot be loaded (GCU's strict mode refuses it).
- A container's lists are used when there are several, or when its only list is named `<container>_LIST`. A row
  goes into the first list, in model order, whose key has as many leaves as the row key has `|`-separated parts
  and which knows every field of the row; the parts (stripped) become the key leaves. A row key naming a container
  of the table (DEVICE_METADATA's `localhost`) fills that container; one naming a leaf sets it.
- "Type 1" map tables (DSCP_TO_TC_MAP and the other maps listed below) keep a map per row: each field becomes an
  entry of the row's inner list, the field name its key and the value its other leaf.
- Fields become leaves. A leaf-list takes a JSON list; a few fields SONiC stores as a separated string (listed
  below) are split on their separator.
- Values are strings in config_db; XML encoding carries them as text, so libyang types them itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

from railfabric.verify.sonic_yang.schema import Node, Schema, Table

# sonic_yang_ext.Type_1_list_maps_model: lists whose rows are maps (field -> value), not records.
TYPE1_MAP_LISTS = frozenset({
    "DSCP_TO_TC_MAP_LIST", "DOT1P_TO_TC_MAP_LIST", "TC_TO_PRIORITY_GROUP_MAP_LIST", "TC_TO_QUEUE_MAP_LIST",
    "MAP_PFC_PRIORITY_TO_QUEUE_LIST", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP_LIST", "DSCP_TO_FC_MAP_LIST",
    "EXP_TO_FC_MAP_LIST", "CABLE_LENGTH_LIST", "MPLS_TC_TO_TC_MAP_LIST", "TC_TO_DSCP_MAP_LIST",
})
# sonic_yang_ext.LEAF_LIST_WITH_STRING_VALUE_DICT: leaf-lists config_db stores as one separated string.
STRING_LEAF_LISTS: dict[tuple[str, str], str] = {
    ("MIRROR_SESSION", "src_ip"): ",", ("NTP", "src_intf"): ";",
    ("BGP_ALLOWED_PREFIXES", "prefixes_v4"): ",", ("BGP_ALLOWED_PREFIXES", "prefixes_v6"): ",",
    ("BUFFER_PORT_EGRESS_PROFILE_LIST", "profile_list"): ",",
    ("BUFFER_PORT_INGRESS_PROFILE_LIST", "profile_list"): ",",
    ("PORT", "adv_speeds"): ",", ("PORT", "adv_interface_types"): ",",
}
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")

Origin = tuple[str, ...]  # (table, row key, field, ...): where a node came from in config_db.json


@dataclass(frozen=True, slots=True)
class Problem:
    code: str
    origin: Origin
    message: str

    @property
    def where(self) -> str:
        return "/".join(self.origin)


@dataclass(slots=True)
class Element:
    name: str
    origin: Origin
    text: str | None = None
    children: list[Element] = field(default_factory=list)
    keys: tuple[str, ...] = ()  # a list entry: its key leaves, in order


@dataclass(slots=True)
class Translation:
    roots: list[Element]  # one per module: its top-level container, xmlns on it
    namespaces: dict[str, str]  # root element name -> namespace
    problems: list[Problem]


def _scalar(value: object) -> str | None:
    """A config_db value as SONiC stringifies it (str()); None for values that are not scalars."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return str(value)
    return None


class _Mapper:
    def __init__(self, table: Table, problems: list[Problem]) -> None:
        self.table = table
        self.problems = problems

    def problem(self, code: str, origin: Origin, message: str) -> None:
        self.problems.append(Problem(code, origin, message))

    def text(self, value: object, origin: Origin) -> str | None:
        text = _scalar(value)
        if text is None:
            kind = "null" if value is None else type(value).__name__
            self.problem("YANG004", origin, f"value is a JSON {kind}; config_db values are strings")
        elif _NOT_XML.search(text):
            self.problem("YANG004", origin, "value holds a control character")
            return None
        return text

    def leaf(self, node: Node, value: object, origin: Origin) -> list[Element]:
        if node.kind == "leaf":
            if isinstance(value, list | dict):
                self.problem("YANG004", origin, f"'{node.name}' is a leaf: one string, not a JSON "
                                                f"{'list' if isinstance(value, list) else 'object'}")
                return []
            text = self.text(value, origin)
            return [] if text is None else [Element(node.name, origin, text)]
        if isinstance(value, str):
            sep = STRING_LEAF_LISTS.get((self.table.name, node.name))
            if sep is None:
                self.problem("YANG005", origin, f"'{node.name}' is a leaf-list: config_db.json needs a JSON list")
                return []
            value = [v.strip() for v in value.split(sep)]
        if not isinstance(value, list):
            self.problem("YANG004", origin, f"'{node.name}' is a leaf-list: config_db.json needs a JSON list")
            return []
        texts = [self.text(v, origin) for v in value]
        return [Element(node.name, origin, t) for t in texts if t is not None]

    def fields(self, node: Node, data: dict, origin: Origin, skip: frozenset[str] = frozenset()) -> list[Element]:
        """Fields of one list entry or container, in the model's order (unknown fields: see unknown())."""
        out: list[Element] = []
        for child in node.children:
            if child.name in skip or child.name not in data:
                continue
            value, where = data[child.name], (*origin, child.name)
            if child.kind == "container":
                if not isinstance(value, dict):
                    self.problem("YANG004", where, f"'{child.name}' is a container: a JSON object is needed")
                elif value:
                    out.append(Element(child.name, where, children=self.container(child, value, where)))
            elif child.kind in ("leaf", "leaf-list"):
                out.extend(self.leaf(child, value, where))
        return out

    @staticmethod
    def unknown(node: Node, data: dict) -> list[str]:
        known = {c.name for c in node.children if c.kind != "list"}
        return [f for f in data if f not in known]

    def entry(self, lst: Node, key: str, row: object, origin: Origin) -> Element:
        parts = [p.strip() for p in key.split("|")]
        keys = [Element(k, origin, p) for k, p in zip(lst.keys, parts, strict=True)]
        for k in keys:
            if k.text is not None and _NOT_XML.search(k.text):
                self.problem("YANG004", origin, "row key holds a control character")
                k.text = ""
        if not isinstance(row, dict):
            self.problem("YANG004", origin, "a row must be a JSON object of fields")
            return Element(lst.name, origin, children=keys, keys=lst.keys)
        if lst.name in TYPE1_MAP_LISTS:
            return Element(lst.name, origin, children=[*keys, *self.map_entries(lst, row, origin)], keys=lst.keys)
        fields = self.fields(lst, row, origin, frozenset(lst.keys))
        return Element(lst.name, origin, children=[*keys, *fields], keys=lst.keys)

    def map_entries(self, lst: Node, row: dict, origin: Origin) -> list[Element]:
        inner = next(iter(lst.of_kind("list")), None)
        if inner is None or not inner.keys:
            return []
        leaves = [c.name for c in inner.of_kind("leaf") if c.name != inner.keys[0]]
        if not leaves:
            return []
        out = []
        for name, value in row.items():
            where = (*origin, name)
            text = self.text(value, where)
            if text is None or _NOT_XML.search(name):
                continue
            out.append(Element(inner.name, where, children=[Element(inner.keys[0], where, name),
                                                             Element(leaves[-1], where, text)],
                               keys=inner.keys[:1]))
        return out

    def lists_of(self, node: Node) -> list[Node]:
        lists = node.of_kind("list")
        if len(lists) == 1 and lists[0].name != node.name + "_LIST":
            return []  # sonic-yang-mgmt uses a lone list only when it is named <container>_LIST
        return lists

    def container(self, node: Node, data: dict, origin: Origin) -> list[Element]:
        """The content of a container (a table, or a container inside one) from a config_db object."""
        lists, entries, rest = self.lists_of(node), [], {}
        for key, row in data.items():
            where = (*origin, key)
            fits = [lst for lst in lists if len(lst.keys) == len(key.split("|"))]
            known = [lst for lst in fits
                     if lst.name in TYPE1_MAP_LISTS or not isinstance(row, dict) or not self.unknown(lst, row)]
            if known:
                entries.append(self.entry(known[0], key, row, where))
            elif fits:
                names = ", ".join(repr(f) for f in self.unknown(fits[0], row))
                self.problem("YANG003", where, f"field(s) {names} not in the model ({fits[0].name})")
                entries.append(self.entry(fits[0], key, {k: v for k, v in row.items()
                                                        if k not in self.unknown(fits[0], row)}, where))
            elif (child := node.child(key)) is not None and child.kind != "list":
                rest[key] = row
            else:
                shapes = "; ".join(f"{lst.name} has {len(lst.keys)} key(s) ({' '.join(lst.keys)})" for lst in lists)
                self.problem("YANG002", where, f"row key has {len(key.split('|'))} part(s) and matches no list "
                                               f"or container of {node.name}" + (f": {shapes}" if shapes else ""))
        return [*self.fields(node, rest, origin), *entries]


def translate(config: object, schema: Schema) -> Translation:
    problems: list[Problem] = []
    if not isinstance(config, dict):
        return Translation([], {}, [Problem("YANG004", (), "config_db.json must be a JSON object of tables")])
    by_module: dict[str, Element] = {}
    namespaces: dict[str, str] = {}
    for name, rows in config.items():
        table = schema.tables.get(name)
        if table is None:
            problems.append(Problem("YANG001", (name,), "table has no YANG model; GCU (config replace/apply-patch) "
                                                        "refuses tables without one"))
            continue
        if not isinstance(rows, dict):
            problems.append(Problem("YANG004", (name,), "a table must be a JSON object of rows"))
            continue
        if not rows:
            problems.append(Problem("YANG006", (name,), "empty table: GCU refuses a target that leaves a table "
                                                        "empty; leave the table out"))
            continue
        content = _Mapper(table, problems).container(table.node, rows, (name,))
        root = by_module.setdefault(table.module, Element(table.module, ()))
        namespaces[table.module] = table.namespace
        root.children.append(Element(name, (name,), children=content))
    roots = [by_module[m] for m in sorted(by_module)]
    return Translation(roots, namespaces, problems)


def _without(element: Element, drop: set[Origin]) -> Element | None:
    if element.origin in drop:
        return None
    kids = [k for k in (_without(c, drop) for c in element.children) if k is not None]
    return Element(element.name, element.origin, element.text, kids, element.keys)


def pruned(translation: Translation, drop: set[Origin]) -> Translation:
    """The translation without the nodes whose origin is in `drop` (a row or a field), to look past an error."""
    roots = [r for r in (_without(root, drop) for root in translation.roots) if r is not None]
    return Translation(roots, translation.namespaces, translation.problems)


def _lines(element: Element, depth: int, xmlns: str | None) -> Iterator[tuple[str, Origin]]:
    pad = "  " * depth
    attr = f" xmlns={quoteattr(xmlns)}" if xmlns else ""
    if element.text is not None:
        yield f"{pad}<{element.name}{attr}>{escape(element.text)}</{element.name}>", element.origin
        return
    if not element.children:
        yield f"{pad}<{element.name}{attr}/>", element.origin
        return
    yield f"{pad}<{element.name}{attr}>", element.origin
    for child in element.children:
        yield from _lines(child, depth + 1, None)
    yield f"{pad}</{element.name}>", element.origin


def to_xml(translation: Translation) -> tuple[str, list[Origin]]:
    """The instance document (one top-level element per module) and, per line (0-based), the origin it holds."""
    lines: list[str] = []
    origins: list[Origin] = []
    for root in translation.roots:
        for text, origin in _lines(root, 0, translation.namespaces[root.name]):
            lines.append(text)
            origins.append(origin)
    return "\n".join(lines) + "\n", origins
