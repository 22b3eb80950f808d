"""The stand-in's model of a Junos configuration: the curly-brace text as a tree whose statements keep their tokens as
written (a quoted string stays quoted, a `[ list ]` keeps its brackets), so a tree prints back as Junos text.

What the NETCONF stand-in does with it (each the Junos operation of the same name, no more):
- `load override` (candidate := the text), `load merge` (blocks merged, a leaf statement replaced by keyword);
- `load set`: `set` / `delete` lines applied to the tree (a `set` of a leaf replaces the leaf with the same keyword;
  `delete PATH` removes the statement or block PATH names, and everything under it);
- `show configuration | display set` (set_lines) and `show | compare` (compare: the statements removed and added,
  under their [edit ...] hierarchy).

Where `set` creates a hierarchy that does not exist yet, the stand-in must split the words into blocks without
Junos' schema: a word of NAMED takes the next word as its name (`policy-statement RF-DRAIN`), any other word is a
block of its own, and the last keyword with its value (a word, a quoted string or a [ list ]) is the leaf. That is
right for every line the rollout sends (its drain and undrain); a leaf whose value is several bare words would be
split wrongly (the rollout sends none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TOKEN = re.compile(r'\s+|/\*.*?\*/|#[^\n]*|"(?:[^"\\]|\\.)*"|\[[^\]]*\]|[{};]|[^\s{};\[\]"]+', re.S)
NAMED = frozenset({"policy-statement", "group", "neighbor", "term", "interface", "unit", "prefix-list", "user",
                   "routing-instances", "instance", "forwarding-class", "scheduler", "scheduler-map",
                   "drop-profile", "classifier", "vlan", "host", "server", "community"})


class ConfigError(ValueError):
    """A configuration or a set line the stand-in refuses (answered as an rpc-error, like Junos' syntax error)."""


@dataclass(slots=True)
class Stmt:
    words: tuple[str, ...]  # tokens as written: `export`, `[ A B ]`; `"quoted text"`
    children: list[Stmt] = field(default_factory=list)
    block: bool = False

    def child(self, words: tuple[str, ...]) -> Stmt | None:
        return next((c for c in self.children if c.block and c.words == words), None)


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() != pos:
            raise ConfigError(f"syntax error at offset {pos}")
        pos = m.end()
        tok = m.group(0)
        if not tok.isspace() and not tok.startswith(("/*", "#")):
            items = tok[1:-1].split() if tok.startswith("[") else None
            # a list of one prints as its item (Junos shows `export RF-EXPORT;`, not `export [ RF-EXPORT ];`)
            out.append(tok if items is None else items[0] if len(items) == 1 else f"[ {' '.join(items)} ]")
    if pos != len(text):
        raise ConfigError(f"syntax error at offset {pos}")
    return out


def parse(text: str) -> Stmt:
    root = Stmt((), block=True)
    stack = [root]
    words: list[str] = []
    for tok in _tokens(text):
        if tok == ";":
            if words:
                stack[-1].children.append(Stmt(tuple(words)))
            words = []
        elif tok == "{":
            node = Stmt(tuple(words), block=True)
            stack[-1].children.append(node)
            stack.append(node)
            words = []
        elif tok == "}":
            if words or len(stack) == 1:
                raise ConfigError("syntax error: unbalanced '}' or a statement without ';'")
            stack.pop()
        else:
            words.append(tok)
    if len(stack) != 1 or words:
        raise ConfigError("syntax error: unterminated block or statement")
    return root


def to_text(root: Stmt) -> str:
    lines: list[str] = []

    def walk(node: Stmt, depth: int) -> None:
        for c in node.children:
            pad = "    " * depth
            if c.block:
                lines.append(f"{pad}{' '.join(c.words)} {{")
                walk(c, depth + 1)
                lines.append(f"{pad}}}")
            else:
                lines.append(f"{pad}{' '.join(c.words)};")

    walk(root, 0)
    return "\n".join(lines) + "\n"


def leaves(root: Stmt) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(hierarchy, statement) of every leaf statement and empty block, in order."""
    out: list[tuple[tuple[str, ...], tuple[str, ...]]] = []

    def walk(node: Stmt, path: tuple[str, ...]) -> None:
        for c in node.children:
            if c.block and c.children:
                walk(c, path + c.words)
            else:
                out.append((path, c.words))

    walk(root, ())
    return out


def set_lines(root: Stmt) -> list[str]:
    """`show configuration | display set`: one line per leaf statement (and per empty block)."""
    return ["set " + " ".join(path + words) for path, words in leaves(root)]


def _split_new(words: list[str]) -> list[tuple[str, ...]]:
    """Words of a hierarchy that does not exist yet → block headers, then the leaf (see the module's docstring)."""
    parts: list[tuple[str, ...]] = []
    i = 0
    while len(words) - i > 2:
        if words[i] in NAMED:
            parts.append((words[i], words[i + 1]))
            i += 2
        else:
            parts.append((words[i],))
            i += 1
    rest = tuple(words[i:])
    if len(rest) == 2 and rest[0] in NAMED:
        parts.append(rest)  # an empty named block: `set ... neighbor 10.0.0.1`
        return parts
    parts.append(rest)
    return parts


def _descend(root: Stmt, words: list[str]) -> tuple[Stmt, list[str]]:
    """The deepest existing block the words lead to, and the words left."""
    node = root
    while words:
        nxt = next((c for c in node.children if c.block and tuple(words[:len(c.words)]) == c.words), None)
        if nxt is None:
            break
        node, words = nxt, words[len(nxt.words):]
    return node, words


def apply_set(root: Stmt, line: str) -> None:
    toks = _tokens(line)
    if not toks or toks[0] not in ("set", "delete"):
        raise ConfigError(f"not a set/delete line: {line!r}")
    op, words = toks[0], toks[1:]
    if not words:
        raise ConfigError(f"{op} of nothing")
    node, rest = _descend(root, words)
    if op == "delete":
        if not rest:  # the block itself
            _remove(root, node)
            return
        # a leaf (statement words) or a leaf keyword (`delete ... export` removes `export X;`)
        victims = [c for c in node.children if not c.block and c.words[:len(rest)] == tuple(rest)]
        # nothing to delete: Junos warns (`statement not found`) and goes on; junos_config never sends one
        node.children = [c for c in node.children if c not in victims]
        return
    if not rest:
        return  # `set` of an existing block: nothing to do
    parts = _split_new(rest)
    for header in parts[:-1]:
        blk = node.child(header)
        if blk is None:
            blk = Stmt(header, block=True)
            node.children.append(blk)
        node = blk
    leaf = parts[-1]
    if leaf[0] in NAMED and len(leaf) == 2:  # an empty named block
        if node.child(leaf) is None:
            node.children.append(Stmt(leaf, block=True))
        return
    for i, c in enumerate(node.children):
        if not c.block and c.words[0] == leaf[0]:
            node.children[i] = Stmt(leaf)
            return
    node.children.append(Stmt(leaf))


def _remove(root: Stmt, target: Stmt) -> None:
    def walk(node: Stmt) -> bool:
        for c in node.children:
            if c is target:
                node.children.remove(c)
                return True
            if c.block and walk(c):
                return True
        return False

    if target is root or not walk(root):
        raise ConfigError("statement not found")


def merge(into: Stmt, other: Stmt) -> None:
    """`load merge`: blocks merged by header, a leaf statement replacing the one with the same keyword."""
    for c in other.children:
        if c.block:
            mine = into.child(c.words)
            if mine is None:
                into.children.append(c)
            else:
                merge(mine, c)
        else:
            for i, m in enumerate(into.children):
                if not m.block and m.words[0] == c.words[0]:
                    into.children[i] = c
                    break
            else:
                into.children.append(c)


def compare(old: str, new: str) -> str:
    """`show | compare`: removed (-) and added (+) statements under their [edit ...] hierarchy; "" when equal."""
    before, after = leaves(parse(old)), leaves(parse(new))
    changed = [("-", x) for x in before if x not in set(after)] + [("+", x) for x in after if x not in set(before)]
    out: list[str] = []
    for path in dict.fromkeys(p for _sign, (p, _w) in changed):
        out.append(f"[edit {' '.join(path)}]" if path else "[edit]")
        out += [f"{sign}   {' '.join(w)};" for sign, (p, w) in changed if p == path]
    return "\n".join(out)


def same_statements(a: str, b: str) -> bool:
    """The two texts hold the same statements (order of siblings aside: Junos prints in its schema's order)."""
    return sorted(set_lines(parse(a))) == sorted(set_lines(parse(b)))
