"""A reader of the Junos curly-brace configuration text: statements (`words ;`) and blocks (`words { ... }`) into a
tree, with quoted strings, `[ a b ]` lists and `/* */` / `#` comments (the syntax `show configuration` prints).

The verifier's own parser: it knows nothing of railfabric's templates or device model. hier_config's Junos driver
works on `set` lines, not on this hierarchy, so it is not used here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TOKEN = re.compile(r'\s+|/\*.*?\*/|#[^\n]*|"(?:[^"\\]|\\.)*"|[{};\[\]]|[^\s{};\[\]"]+', re.S)


class JunosSyntaxError(ValueError):
    pass


@dataclass(slots=True)
class Node:
    words: tuple[str, ...]  # the statement's words, a quoted string unquoted, a [ list ] as its items
    children: list[Node] = field(default_factory=list)
    block: bool = False

    @property
    def key(self) -> str:
        return self.words[0] if self.words else ""

    def find(self, *path: str) -> Node | None:
        """The first descendant reached by matching each step against the whole words of a child (`"unit 0"`)
        or, failing that, its first word."""
        node: Node | None = self
        for step in path:
            if node is None:
                return None
            want = tuple(step.split())
            node = next((c for c in node.children if c.words == want), None) \
                or next((c for c in node.children if c.words[:len(want)] == want), None)
        return node

    def all(self, first: str) -> list[Node]:
        return [c for c in self.children if c.key == first]

    def has(self, *words: str) -> bool:
        return any(c.words == words for c in self.children)

    def value(self, first: str) -> str | None:
        """The second word of the first child statement `first X`."""
        node = next((c for c in self.children if c.key == first and len(c.words) > 1), None)
        return node.words[1] if node else None


def _unquote(token: str) -> str:
    return re.sub(r"\\(.)", r"\1", token[1:-1]) if token.startswith('"') else token


def parse(text: str) -> Node:
    root = Node(())
    stack = [root]
    words: list[str] = []
    in_list = False
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() != pos:
            raise JunosSyntaxError(f"unexpected text at offset {pos}")
        pos = m.end()
        tok = m.group(0)
        if tok.isspace() or tok.startswith(("/*", "#")):
            continue
        if tok == "[":
            in_list = True
        elif tok == "]":
            in_list = False
        elif tok == ";" and not in_list:
            if words:
                stack[-1].children.append(Node(tuple(words)))
            words = []
        elif tok == "{":
            node = Node(tuple(words), block=True)
            stack[-1].children.append(node)
            stack.append(node)
            words = []
        elif tok == "}":
            if words or len(stack) == 1:
                raise JunosSyntaxError("unbalanced '}' or a statement without ';'")
            stack.pop()
        else:
            words.append(_unquote(tok))
    if pos != len(text):
        raise JunosSyntaxError(f"unexpected text at offset {pos}")
    if len(stack) != 1 or words:
        raise JunosSyntaxError("unterminated block or statement at the end of the file")
    return root
