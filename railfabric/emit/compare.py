"""What a render made against what the output directory holds: the kinds of content a render hands the writer
(`Content`: bytes made now, a file kept from the earlier render, a file in the staging directory), which files
differ (`compare`) and a short unified diff of one (`unified`). Reading only, and never through a symbolic link
(railfabric.emit.intact): a link anywhere under the output directory is a difference of its own (`Diff.links`), and the
files behind it are missing. Names read from the output directory (an extra file, a link and its text) are
attacker-controlled where generated/ comes from a pull request: they are printed through `shown` and `link_text`
(one printable line each, escaped), never as they are."""

from __future__ import annotations

import difflib
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from railfabric.core.text import one_line
from railfabric.core.textsafe import quote
from railfabric.emit.intact import Listing, listing, read_file
from railfabric.emit.reuse import Kept
from railfabric.emit.staging import Staged

Content = bytes | Kept | Staged


def payload(content: Content) -> bytes:
    return content if isinstance(content, bytes) else content.read()


@dataclass
class Diff:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)  # symbolic links under the output directory: {path: text}

    @property
    def clean(self) -> bool:
        return not (self.added or self.removed or self.changed or self.links)


def shown(path: str) -> str:
    """A path read from the output directory as a message shows it: itself when it is one printable line, else
    escaped (a name may hold a newline, an escape sequence or a CI workflow command)."""
    return one_line(path, 200)


def link_text(path: str, text: str) -> str:
    """A symbolic link as a message names it: `path -> 'its text'` (both escaped, the text quoted)."""
    return f"{shown(path)} -> {quote(text, 120)}"


def _read(have: str) -> bytes:
    """A listed file's bytes; its last component is not followed (the listing entered no link on its way)."""
    fd = os.open(have, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def _differs(have: str, content: Content) -> bool:
    if isinstance(content, Staged):
        if os.lstat(have).st_size != content.size:
            return True
        return hashlib.sha256(_read(have)).hexdigest() != content.sha256
    if isinstance(content, Kept):
        if have == content.source:  # verified against the manifest's sha256 (and its size) when it was kept
            return False
        if os.lstat(have).st_size != content.size:
            return True
        return hashlib.sha256(_read(have)).hexdigest() != content.sha256
    if os.lstat(have).st_size != len(content):
        return True
    return _read(have) != content


def compare(out: Path, files: Mapping[str, Content], listed: Listing | None = None) -> Diff:
    """What differs between `out` and `files`. `listed`: `out`'s listing (railfabric.emit.intact.listing) when it was
    taken already (by the background hashing of railfabric.emit.reuse, for a comparison that only reports)."""
    if listed is None:
        listed = listing(out)
    have = listed.files
    diff = Diff(links=dict(listed.links))
    for path, data in files.items():
        where = have.get(path)
        if where is None:
            diff.added.append(path)
        elif _differs(where, data):
            diff.changed.append(path)
    diff.removed = sorted(set(have) - set(files))
    return diff


def unified(out: Path, path: str, new: Content | None, context: int = 2) -> list[str]:
    """A unified diff of generated/`path` against `new`. The lines both share at the start and the end are set
    aside first (difflib is quadratic in what it compares: a one-line change in a 100,000-line CSV takes seconds
    otherwise); hunk line numbers are those of the whole files."""
    before = read_file(out, path)  # never through a link: a plan must not print a file the link points at
    old = before.decode(errors="replace").splitlines() if before is not None else []
    cur = payload(new).decode(errors="replace").splitlines() if new is not None else []
    head = 0
    while head < len(old) and head < len(cur) and old[head] == cur[head]:
        head += 1
    tail = 0
    while tail < len(old) - head and tail < len(cur) - head and old[-1 - tail] == cur[-1 - tail]:
        tail += 1
    lo = max(0, head - context)
    lines = list(difflib.unified_diff(old[lo:len(old) - tail + min(tail, context)],
                                      cur[lo:len(cur) - tail + min(tail, context)],
                                      f"a/{shown(path)}", f"b/{shown(path)}", n=context, lineterm=""))
    return [_shift(line, lo) for line in lines]


def _shift(line: str, offset: int) -> str:
    """A hunk header of a diff of slices starting at line `offset`, renumbered for the whole files."""
    if not offset or not line.startswith("@@ "):
        return line
    old, new = line[3:line.index(" @@")].split(" ")

    def moved(rng: str) -> str:
        start, _, count = rng[1:].partition(",")  # an empty range's start is the line before it: shifts alike
        return f"{rng[0]}{int(start) + offset}" + (f",{count}" if count else "")

    return f"@@ {moved(old)} {moved(new)} @@{line[line.index(' @@') + 3:]}"
