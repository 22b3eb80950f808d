"""The stand-in's running-config: a tree of configuration lines, kept in the order they were entered.

A file (a `configure replace` target, a checkpoint) is read by its indentation, as NX-OS writes it: two spaces per
level, `!` comment lines and blank lines dropped. Lines typed in configuration mode go through `Session` (cli.py),
which tracks the mode as NX-OS does: a command that enters a mode (`router bgp N`, `template peer T`,
`address-family ...`, `route-map M permit N`, `interface X`, ...) is looked up in the current mode and then in its
parents (NX-OS leaves a sub-mode for its parent when the command belongs there); any other line is a leaf of the
current mode. Merge rules, deliberately simple: a line that is already there is kept once, a new one is appended;
`no X` removes the lines of the current mode (or, failing that, of the nearest parent) that are X or start with
`X `, with their sub-lines. The stand-in has no NX-OS grammar: a leaf does not replace an older value of the same
keyword (the push never relies on that).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# mode kind → the commands that enter a sub-mode from it (regex, sub-mode kind); the kinds name the prompt
MODES: dict[str, list[tuple[str, str]]] = {
    "config": [(r"interface \S+", "config-if"), (r"router bgp \d+(\.\d+)?", "config-router"),
               (r"route-map \S+ (permit|deny) \d+", "config-route-map"), (r"vrf context \S+", "config-vrf"),
               (r"vlan [\d,-]+", "config-vlan"), (r"class-map .+", "config-cmap"),
               (r"policy-map .+", "config-pmap"), (r"system qos", "config-sys-qos"),
               (r"line (console|vty)", "config-line")],
    "config-router": [(r"template peer \S+", "config-router-ptmp"), (r"neighbor \S+", "config-router-neighbor"),
                      (r"address-family .+", "config-router-af"), (r"vrf \S+", "config-router-vrf")],
    "config-router-vrf": [(r"neighbor \S+", "config-router-neighbor"), (r"address-family .+", "config-router-af")],
    "config-router-ptmp": [(r"address-family .+", "config-router-ptmp-af")],
    "config-router-neighbor": [(r"address-family .+", "config-router-neighbor-af")],
    "config-pmap": [(r"class .+", "config-pmap-c")],
}


@dataclass
class Node:
    text: str
    kind: str = "config"
    children: list[Node] = field(default_factory=list)

    def child(self, text: str) -> Node | None:
        return next((c for c in self.children if c.text == text), None)

    def add(self, text: str, kind: str = "leaf") -> Node:
        found = self.child(text)
        if found is None:
            found = Node(text, kind)
            self.children.append(found)
        return found

    def remove(self, text: str) -> bool:
        """Remove the children that are `text` or start with `text ` (NX-OS's `no route-map M` removes every
        sequence of M); whether any was removed."""
        kept = [c for c in self.children if not (c.text == text or c.text.startswith(text + " "))]
        removed = len(kept) != len(self.children)
        self.children = kept
        return removed


def sub_mode(kind: str, line: str) -> str | None:
    """The mode `line` enters from a mode of `kind`, or None (a leaf)."""
    return next((k for pattern, k in MODES.get(kind, []) if re.fullmatch(pattern, line)), None)


def parse(text: str) -> Node:
    """A configuration file read by its indentation (how `configure replace` and `rollback` read their file)."""
    root = Node("", "config")
    stack: list[tuple[int, Node]] = [(-1, root)]
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("!"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        line = raw.strip()
        node = parent.add(line, sub_mode(parent.kind, line) or "leaf")
        stack.append((indent, node))
    return root


def lines(root: Node) -> list[str]:
    """The running-config's lines, two spaces per level (what `show running-config` prints after its header)."""
    out: list[str] = []

    def walk(node: Node, depth: int) -> None:
        for c in node.children:
            out.append("  " * depth + c.text)
            walk(c, depth + 1)

    walk(root, 0)
    return out


def text(root: Node) -> str:
    return "".join(line + "\n" for line in lines(root))


def hostname(root: Node) -> str:
    name = next((c.text.split()[1] for c in root.children if re.fullmatch(r"hostname \S+", c.text)), None)
    return name or "switch"
