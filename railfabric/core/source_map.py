"""Where the inventory said it: Location (file, line, column) and SourceMap (every node of the merged tree → its
Location). railfabric.inventory.load fills a SourceMap while it reads the YAML files; every check asks it where to
point."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Path_ = tuple[Any, ...]  # a path into the tree: keys and list indices


@dataclass(frozen=True, slots=True, order=True)
class Location:
    """A place in the inventory: file path (as given), 1-based line and column."""

    file: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.col}"


@dataclass
class SourceMap:
    """Where every node of the merged tree came from."""

    values: dict[Path_, Location] = field(default_factory=dict)
    keys: dict[Path_, Location] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def loc(self, path: Path_) -> Location | None:
        """Mark of the value at `path`, or of its deepest existing ancestor."""
        p = tuple(path)
        while True:
            if p in self.values:
                return self.values[p]
            if not p:
                return None
            p = p[:-1]

    def key_loc(self, path: Path_) -> Location | None:
        """Mark of the key that introduces `path` (falls back to the value's mark)."""
        p = tuple(path)
        if p in self.keys:
            return self.keys[p]
        return self.loc(p)
