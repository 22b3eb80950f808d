"""Findings: every problem the tool reports, with a stable code, a severity, a location and a hint.

Formatters turn a list of findings into text (humans), JSON (scripts), SARIF 2.1.0 (code scanning)
or GitHub workflow annotations.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from fabric.rules.codes import CODES
from fabric.textsafe import one_line

# The finding budget: after this many findings the rest are summed up in one LOAD016 finding.
MAX_FINDINGS = 1000
# A backstop behind textsafe.quote: no message or hint is longer than this or spans lines.
MAX_TEXT = 2000


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", one_line(self.message, MAX_TEXT))
        object.__setattr__(self, "hint", one_line(self.hint, MAX_TEXT))

    def sort_key(self) -> tuple:
        loc = self.location or Location("")
        return (loc.file, loc.line, loc.col, self.code, self.message)


def unique_sorted(findings: Iterable[Finding], limit: int = MAX_FINDINGS) -> list[Finding]:
    """Each finding once, in file/line order; of two copies the fatal one wins. At most `limit` of them, then one
    LOAD016 finding that counts the rest (budget notes of earlier stages are merged into it)."""
    kept: dict[tuple, Finding] = {}
    hidden: list[Finding] = []
    noted = 0
    for f in findings:
        if f.code == OVERFLOW_CODE:
            noted += _hidden_count(f)
            hidden.append(f)
            continue
        key = (f.code, f.message, f.location, f.severity)
        if key not in kept or (f.fatal and not kept[key].fatal):
            kept[key] = f
    ordered = sorted(kept.values(), key=Finding.sort_key)
    shown, cut = ordered[:limit], ordered[limit:]
    if not cut and not noted:
        return shown
    last = next((f.location for f in reversed(shown) if f.location is not None), None)
    return [*shown, overflow_note(noted + len(cut), [*cut, *hidden], last)]


OVERFLOW_CODE = "LOAD016"
_OVERFLOW = re.compile(r"^([\d,]+) more findings not shown")


def _hidden_count(f: Finding) -> int:
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


# --------------------------------------------------------------------------- formatters


def format_text(findings: Sequence[Finding]) -> str:
    lines: list[str] = []
    for f in findings:
        where = str(f.location) if f.location else "<fabric>"
        lines.append(f"{where}: {f.severity.value} {f.code}: {f.message}")
        for rel in f.related:
            lines.append(f"    see also {rel}")
        if f.hint:
            lines.append(f"    hint: {f.hint}")
    c = counts(findings)
    lines.append(f"{c['error']} error(s), {c['warning']} warning(s), {c['info']} info")
    return "\n".join(lines) + "\n"


def _as_dict(f: Finding) -> dict:
    return {
        "code": f.code,
        "severity": f.severity.value,
        "message": f.message,
        "file": f.location.file if f.location else None,
        "line": f.location.line if f.location else None,
        "column": f.location.col if f.location else None,
        "hint": f.hint or None,
        "related": [str(r) for r in f.related],
        "title": CODES[f.code].title if f.code in CODES else None,
    }


def format_json(findings: Sequence[Finding], summary: dict | None = None) -> str:
    doc = {
        "findings": [_as_dict(f) for f in findings],
        "counts": counts(findings),
        "exit_code": exit_code(findings),
    }
    if summary is not None:
        doc["summary"] = summary
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _sarif_location(loc: Location) -> dict:
    region: dict = {}
    if loc.line > 0:
        region["startLine"] = loc.line
        if loc.col > 0:
            region["startColumn"] = loc.col
    phys: dict = {"artifactLocation": {"uri": loc.file}}
    if region:
        phys["region"] = region
    return {"physicalLocation": phys}


def format_sarif(findings: Sequence[Finding], tool_version: str) -> str:
    used = sorted({f.code for f in findings})
    rules = []
    for code in used:
        info = CODES.get(code)
        rule: dict = {"id": code}
        if info:
            rule["name"] = info.name
            rule["shortDescription"] = {"text": info.title}
            rule["fullDescription"] = {"text": info.explanation}
        rules.append(rule)
    index = {code: i for i, code in enumerate(used)}
    results = []
    for f in findings:
        text = f.message + (f"\nhint: {f.hint}" if f.hint else "")
        res: dict = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": _SARIF_LEVEL[f.severity],
            "message": {"text": text},
        }
        if f.location:
            res["locations"] = [_sarif_location(f.location)]
        if f.related:
            res["relatedLocations"] = [
                {"id": i, **_sarif_location(r), "message": {"text": "related"}} for i, r in enumerate(f.related)
            ]
        results.append(res)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "railfabric",
                        "version": tool_version,
                        "informationUri": "https://example.invalid/railfabric",
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def _gh_escape(text: str, prop: bool = False) -> str:
    # GitHub workflow command escaping: % CR LF always; ':' and ',' inside properties.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


_GH_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def format_github(findings: Sequence[Finding]) -> str:
    lines = []
    for f in findings:
        props = []
        if f.location:
            props.append(f"file={_gh_escape(f.location.file, True)}")
            if f.location.line > 0:
                props.append(f"line={f.location.line}")
            if f.location.col > 0:
                props.append(f"col={f.location.col}")
        props.append(f"title={_gh_escape(f.code, True)}")
        msg = f.message + (f"\nhint: {f.hint}" if f.hint else "")
        lines.append(f"::{_GH_LEVEL[f.severity]} {','.join(props)}::{_gh_escape(msg)}")
    return "\n".join(lines) + ("\n" if lines else "")
