"""The data tree of SONiC's YANG models: which module holds each config_db table, and its lists, keys and leaves.

Read from libyang's compiled schema as `yanglint -f tree` prints it (groupings, `uses` and typedefs already
resolved), one line per node:

    module: sonic-port
      +--rw sonic-port                       top-level container, named as the module
         +--rw PORT                          a config_db table
            +--rw PORT_LIST* [name]          a list and its keys
               +--rw name        string      a leaf (`?` optional)
               +--rw adv_speeds* union       a leaf-list
      +--rw (choice)? / +--:(case)           transparent: their leaves belong to the parent

Namespaces come from each module's `namespace` statement.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Kind = Literal["container", "list", "leaf", "leaf-list"]

_LINE = re.compile(r"^(?P<indent>[ |]*)[+xo]--(?P<rest>.*)$")
_NODE = re.compile(r"^(?:rw|ro|-w)\s+(?P<name>\(?[\w.-]+\)?)(?P<mark>[*?!]?)\s*(?P<tail>.*)$")
_CASE = re.compile(r"^:\((?P<name>[\w.-]+)\)")
_NAMESPACE = re.compile(r"""^\s*namespace\s+["']([^"']+)["']""", re.M)
_MODULE = re.compile(r"""^\s*module\s+([\w.-]+)""", re.M)


@dataclass(slots=True)
class Node:
    name: str
    kind: Kind
    keys: tuple[str, ...] = ()
    children: list[Node] = field(default_factory=list)
    type: str = ""

    def child(self, name: str) -> Node | None:
        for c in self.children:
            if c.name == name:
                return c
        return None

    def of_kind(self, *kinds: Kind) -> list[Node]:
        return [c for c in self.children if c.kind in kinds]


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    module: str
    namespace: str
    node: Node  # the table's container


@dataclass(slots=True)
class Schema:
    tables: dict[str, Table]
    modules: list[Path]  # every .yang file of the models directory, for yanglint


class SchemaError(Exception):
    """yanglint could not load the models."""


def _parse_node(rest: str) -> tuple[Node | None, bool]:
    """(node, transparent) for the text after `+--`; transparent nodes are choices and cases."""
    if _CASE.match(rest):
        return None, True
    m = _NODE.match(rest)
    if m is None:
        return None, False
    name, mark, tail = m["name"], m["mark"], m["tail"].strip()
    if name.startswith("("):
        return None, True
    if mark == "*" and tail.startswith("["):
        return Node(name, "list", keys=tuple(tail[1:tail.index("]")].split())), False
    if mark == "*":
        return Node(name, "leaf-list", type=tail.split()[0] if tail else ""), False
    if tail:
        return Node(name, "leaf", type=tail.split()[0]), False
    return Node(name, "container"), False


def parse_tree(text: str) -> dict[str, Node]:
    """module name -> its top-level data container, from `yanglint -f tree` output (rpcs etc. are skipped)."""
    modules: dict[str, Node] = {}
    module: str | None = None
    stack: list[tuple[int, Node | None]] = []  # (column, node); None = a transparent choice/case
    for line in text.splitlines():
        if line.startswith("module: "):
            module = line.split(":", 1)[1].strip()
            stack = []
            continue
        if line.startswith("  ") and not line.startswith("   ") and line.rstrip().endswith(":"):
            module = None  # rpcs:, notifications:, augment ...: sections carry no config_db tables
            continue
        m = _LINE.match(line)
        if module is None or m is None:
            continue
        column = len(m["indent"])
        node, transparent = _parse_node(m["rest"])
        if node is None and not transparent:
            continue
        while stack and stack[-1][0] >= column:
            stack.pop()
        parent = next((n for _, n in reversed(stack) if n is not None), None)
        if node is not None:
            if parent is None:
                modules.setdefault(module, node)
            else:
                parent.children.append(node)
        stack.append((column, node))
    return modules


def namespaces(files: list[Path]) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        mod, ns = _MODULE.search(text), _NAMESPACE.search(text)
        if mod and ns:
            out[mod.group(1)] = ns.group(1)
    return out


def model_files(models: Path) -> list[Path]:
    return sorted(p for p in models.iterdir() if p.suffix == ".yang" and p.is_file())


def load(models: Path, yanglint: str = "yanglint") -> Schema:
    """Every config_db table of the models in `models` (the rule of sonic-yang-mgmt: a module's top-level
    container is named as the module, and each container directly inside it is a table)."""
    files = model_files(models)
    proc = subprocess.run([yanglint, "-Q", "-f", "tree", "-L", "100000", "-p", str(models), *map(str, files)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SchemaError(f"yanglint cannot load the models in {models}: {proc.stderr.strip()[:2000]}")
    spaces = namespaces(files)
    tables: dict[str, Table] = {}
    for module, top in parse_tree(proc.stdout).items():
        if top.name != module or module not in spaces:
            continue
        for table in top.of_kind("container"):
            tables[table.name] = Table(table.name, module, spaces[module], table)
    return Schema(tables, files)
