"""Report formats: a list of findings as text (humans), JSON (scripts), SARIF 2.1.0 (code scanning), GitHub
workflow annotations or a GitLab code quality report. The finding record itself, its budget and exit codes live
in railfabric.core.finding.

Root cause first (railfabric.core.causes): text and GitHub annotations show a root once, with a count of the findings
it caused ('--all' lists them, indented under it); JSON, SARIF and code quality carry every finding, a folded one
with `caused_by` (the root's code and location) and a root with `causes` (how many, per code).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from railfabric.core.causes import folded_text
from railfabric.core.codes import CODES
from railfabric.core.finding import Cause, Finding, Severity, counts, exit_code
from railfabric.core.source_map import Location


def format_text(findings: Sequence[Finding], unfold: bool = False) -> str:
    """A finding per line (then its related places and hint). A root cause is followed by the count of what it
    caused, or with `unfold` by those findings themselves, indented; the count line counts every finding."""
    lines: list[str] = []
    folded = 0
    for f in findings:
        pad = "    " if f.caused_by is not None else ""
        if f.caused_by is not None and not unfold:
            folded += 1
            continue
        where = str(f.location) if f.location else "<fabric>"
        lines.append(f"{pad}{where}: {f.severity.value} {f.code}: {f.message}")
        for rel in f.related:
            lines.append(f"{pad}    see also {rel}")
        if f.hint:
            lines.append(f"{pad}    hint: {f.hint}")
        if f.causes:
            more = "; listed below" if unfold else "; `fabric validate --all` lists them"
            lines.append(f"    {folded_text(f)}{more}")
    c = counts(findings)
    tail = f" ({folded:,} of them folded under their cause)" if folded else ""
    lines.append(f"{c['error']} error(s), {c['warning']} warning(s), {c['info']} info{tail}")
    return "\n".join(lines) + "\n"


def _cause_dict(cause: Cause) -> dict:
    loc = cause.location
    return {"code": cause.code, "file": loc.file if loc else None, "line": loc.line if loc else None,
            "column": loc.col if loc else None}


def _as_dict(f: Finding) -> dict:
    links: dict = {}
    if f.caused_by is not None:
        links["caused_by"] = _cause_dict(f.caused_by)
    if f.causes:
        links["causes"] = {"count": f.caused(), "codes": dict(f.causes)}
    return {**links,
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


def sarif_uri(file: str) -> str:
    """A finding's file as SARIF's artifactLocation.uri, which must be a URI reference (RFC 3986): a relative path
    (the usual case, relative to where `validate` ran: the repository root in CI) is percent-encoded, so a space
    or '#' in a directory name stays part of the path; an absolute path becomes a file:// URI."""
    path = PurePosixPath(file)
    if path.is_absolute():
        return Path(file).as_uri()
    return quote(file, safe="/")


def _sarif_location(loc: Location) -> dict:
    region: dict = {}
    if loc.line > 0:
        region["startLine"] = loc.line
        if loc.col > 0:
            region["startColumn"] = loc.col
    phys: dict = {"artifactLocation": {"uri": sarif_uri(loc.file)}}
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
        related = [(r, "related") for r in f.related]
        if f.caused_by is not None and f.caused_by.location is not None:
            related.append((f.caused_by.location, f"caused by {f.caused_by.code}"))
        if related:
            res["relatedLocations"] = [
                {"id": i, **_sarif_location(r), "message": {"text": text}} for i, (r, text) in enumerate(related)
            ]
        if f.caused_by is not None or f.causes:
            res["properties"] = {k: v for k, v in _as_dict(f).items() if k in ("caused_by", "causes")}
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
        if f.caused_by is not None:
            continue  # folded under its root, whose message counts it
        props = []
        if f.location:
            props.append(f"file={_gh_escape(f.location.file, True)}")
            if f.location.line > 0:
                props.append(f"line={f.location.line}")
            if f.location.col > 0:
                props.append(f"col={f.location.col}")
        props.append(f"title={_gh_escape(f.code, True)}")
        msg = f.message + (f"\nhint: {f.hint}" if f.hint else "") + (f"\n{folded_text(f)}" if f.causes else "")
        lines.append(f"::{_GH_LEVEL[f.severity]} {','.join(props)}::{_gh_escape(msg)}")
    return "\n".join(lines) + ("\n" if lines else "")


# GitLab code quality report (artifacts:reports:codequality): a JSON array of issues in the subset of the Code Climate
# issue format that GitLab reads: description, check_name, fingerprint, severity, location.path and
# location.lines.begin. Severities are Code Climate's: info, minor, major, critical, blocker.
_CQ_SEVERITY = {Severity.ERROR: "critical", Severity.WARNING: "minor", Severity.INFO: "info"}


def format_codequality(findings: Sequence[Finding], inventory: str) -> str:
    """`inventory` stands in as the path of a finding that has no location (GitLab needs a path for each issue).
    The fingerprint identifies a finding across pipelines (GitLab compares the merge request's report with the
    target branch's): a digest of code, file and message, not the line, so a finding does not turn "new" when a
    line is inserted above it; findings equal in all three are told apart by their order."""
    issues: list[dict] = []
    seen: dict[str, int] = {}
    for f in findings:
        path = f.location.file if f.location else inventory
        key = "\0".join((f.code, path, f.message))
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key += f"\0{seen[key]}"
        cause = f.caused_by
        issues.append({
            "description": f"{f.code}: {f.message}" + (f" (hint: {f.hint})" if f.hint else "")
            + (f" (caused by {cause.code} at {cause.location or '<fabric>'})" if cause else "")
            + (f" ({folded_text(f)})" if f.causes else ""),
            "check_name": f.code,
            "fingerprint": hashlib.sha256(key.encode("utf-8")).hexdigest()[:32],
            "severity": _CQ_SEVERITY[f.severity],
            "location": {"path": path, "lines": {"begin": max(f.location.line, 1) if f.location else 1}},
        })
    return json.dumps(issues, indent=2, sort_keys=True) + "\n"
