"""The finding record: every problem the tool reports, with a stable code (railfabric.core.codes), a severity, a
location and a hint; the finding budget (at most MAX_FINDINGS shown, the rest counted in one LOAD016 finding) and the
exit code a list of findings gives. The report formats are in railfabric.core.formats.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from railfabric.core.source_map import Location
from railfabric.core.text import one_line

# The finding budget: after this many findings the rest are summed up in one LOAD016 finding.
MAX_FINDINGS = 1000
# A backstop behind textsafe.quote: no message or hint is longer than this or spans lines.
MAX_TEXT = 2000


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Cause(NamedTuple):
    """The finding another one was folded under (railfabric.core.causes): its code and location."""

    code: str
    location: Location | None


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    message: str
    location: Location | None = None
    hint: str = ""
    severity: Severity = Severity.ERROR
    # Other places the finding is about (e.g. the first definition of a duplicate key).
    related: tuple[Location, ...] = field(default=())
    # Input that cannot be used at all (syntax errors, binary files): exit 2 instead of 1.
    fatal: bool = False
    # Root cause first (railfabric.core.causes). `subject`: the inventory object (its data path, e.g.
    # ("host_models", "hgx-h100")) whose own definition this finding faults; `uses`: the objects whose facts the
    # finding was derived from, most likely cause first. An error with a subject is the root of every finding that
    # uses that object: fold() sets their `caused_by`, and the root's `causes` ((code, count) of what it caused).
    # None of the four takes part in equality: they say how findings relate, not what a finding is.
    subject: tuple[Any, ...] = field(default=(), compare=False)
    uses: tuple[tuple[Any, ...], ...] = field(default=(), compare=False)
    caused_by: Cause | None = field(default=None, compare=False)
    causes: tuple[tuple[str, int], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", one_line(self.message, MAX_TEXT))
        object.__setattr__(self, "hint", one_line(self.hint, MAX_TEXT))

    def caused(self) -> int:
        """How many findings are folded under this one."""
        return sum(n for _code, n in self.causes)

    def sort_key(self) -> tuple:
        loc = self.location or Location("")
        return (loc.file, loc.line, loc.col, self.code, self.message)


OVERFLOW_CODE = "LOAD016"
_OVERFLOW = re.compile(r"^([\d,]+) more findings not shown")


def hidden_count(f: Finding) -> int:
    m = _OVERFLOW.match(f.message)
    return int(m.group(1).replace(",", "")) if m else 0


def overflow_note(count: int, hidden: Iterable[Finding] = (), where: Location | None = None) -> Finding:
    """The one finding that stands for `count` findings past the budget: an error (fatal) when one of `hidden` is.
    It sits at the first hidden finding's place, else at `where` (the last finding shown)."""
    hidden = list(hidden)
    severity = min((f.severity for f in hidden), key=list(Severity).index, default=Severity.ERROR)
    location = next((f.location for f in hidden if f.location is not None), where)
    return Finding(OVERFLOW_CODE, f"{count:,} more findings not shown (the first {MAX_FINDINGS:,} are)", location,
                   "fix the findings above and run again", severity, fatal=any(f.fatal for f in hidden))


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.severity is Severity.ERROR for f in findings)


def exit_code(findings: Sequence[Finding]) -> int:
    """0 clean (warnings allowed), 1 errors, 2 unusable input."""
    if any(f.fatal for f in findings):
        return 2
    return 1 if has_errors(findings) else 0


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    c = {s.value: 0 for s in Severity}
    for f in findings:
        c[f.severity.value] += 1
    return c
