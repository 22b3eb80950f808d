"""Validate instance documents with libyang's `yanglint` and read its errors back as problems.

yanglint (libyang 2.1) stops at the first error of a file. So a failing file is validated again and again, each
time without the node the last error was about (the field, or the row for a missing mandatory leaf or a bad key),
until it passes, so that every error is reported, not only the first. Errors that only follow from a node dropped
that way (a leafref to a dropped row, a dropped mandatory leaf) are not reported twice.

Flags: `-t config` (configuration data, as SONiC's no_state), strict parsing (the default: unknown data is an
error), `-i` (every module referenced is implemented, so no `must`/`when` check is skipped), `-Q` (no warnings).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from railfabric.verify.sonic_yang.schema import Schema
from railfabric.verify.sonic_yang.translate import Element, Origin, Problem, Translation, pruned, to_xml

MAX_ROUNDS = 60  # errors reported per file at most (each costs one yanglint run of ~0.3 s)

_DATA_LOC = re.compile(r'Data location "(?P<path>(?:[^"\\]|\\.)*?)"(?:, line number (?P<line>\d+))?\.\)')
_LINE_ONLY = re.compile(r"\(Line number (?P<line>\d+)\.\)")
_SCHEMA_LOC = re.compile(r'Schema location "(?P<path>[^"]+)"')
_LEAFREF = re.compile(r'Invalid leafref value "(?P<value>[^"]*)" - no target instance "(?P<target>[^"]+)"')
_UNION = re.compile(r'Invalid union value "(?P<value>[^"]*)" - no matching subtype')
_FAILED_FILE = re.compile(r'Failed to parse input data file "(?P<file>[^"]+)"')
_CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("YANG008", re.compile(r"leafref|no target instance|instance-identifier", re.I)),
    ("YANG009", re.compile(r"Mandatory node|Too few|min-elements", re.I)),
    ("YANG010", re.compile(r"(Must|When) condition", re.I)),
    ("YANG007", re.compile(r"Unsatisfied|out of type|does not fit|Invalid (?:value|enumeration|boolean|union|type)|"
                           r"Invalid .* value", re.I)),
)


@dataclass(slots=True)
class LintError:
    message: str  # libyang's text, location part removed
    data_path: str = ""
    schema_path: str = ""
    line: int = 0  # 1-based line in the instance file, 0 when not given

    @property
    def code(self) -> str:
        return next((code for code, rx in _CLASSES if rx.search(self.message)), "YANG011")


def parse_errors(stderr: str) -> tuple[list[LintError], str | None]:
    """libyang's error messages (multi-line ones joined) and the file yanglint gave up on."""
    errors: list[LintError] = []
    failed: str | None = None
    current: list[str] | None = None
    for line in [*stderr.splitlines(), "YANGLINT[END]"]:
        if line.startswith(("libyang ", "YANGLINT")):
            if current is not None:
                errors.append(_error(re.sub(r"\s+", " ", " ".join(current))))
                current = None
            if line.startswith("libyang err"):
                current = [line.split(":", 1)[1].strip()]
            if m := _FAILED_FILE.search(line):
                failed = m["file"]
        elif current is not None:
            current.append(line.strip())
    return errors, failed


def _error(text: str) -> LintError:
    err = LintError(text)
    if m := _DATA_LOC.search(text):
        err.data_path, err.line = m["path"], int(m["line"] or 0)
        err.message = text[: m.start()].rstrip(" (")
    elif m := _SCHEMA_LOC.search(text):
        err.schema_path = m["path"]
        err.message = text[: m.start()].rstrip(" (")
    elif m := _LINE_ONLY.search(text):
        err.line = int(m["line"])
        err.message = text[: m.start()].rstrip(" (")
    return err


def _quote(value: str) -> str:
    return f'"{value}"' if "'" in value else f"'{value}'"


def data_paths(translation: Translation) -> dict[str, Origin]:
    """libyang's data path of every element (`/mod:top/TABLE/LIST[k='v']/leaf`) -> its origin."""
    out: dict[str, Origin] = {}

    def walk(el: Element, prefix: str) -> None:
        if el.text is not None:
            out.setdefault(f"{prefix}/{el.name}", el.origin)
            out.setdefault(f"{prefix}/{el.name}[.={_quote(el.text)}]", el.origin)
            return
        if el.keys:
            texts = {c.name: c.text or "" for c in el.children}
            path = f"{prefix}/{el.name}" + "".join(f"[{k}={_quote(texts.get(k, ''))}]" for k in el.keys)
        else:
            path = f"{prefix}/{el.name}"
        out.setdefault(path, el.origin)
        for child in el.children:
            walk(child, path)

    for root in translation.roots:
        for table in root.children:
            walk(table, f"/{root.name}:{root.name}")
    return out


@dataclass(slots=True)
class FileResult:
    problems: list[Problem] = field(default_factory=list)
    rounds: int = 0


class Linter:
    def __init__(self, schema: Schema, models: Path, yanglint: str = "yanglint") -> None:
        self.schema = schema
        self.models = models
        self.command = [yanglint, "-i", "-Q", "-t", "config", "-p", str(models)]

    def modules_for(self, translations: list[Translation]) -> list[str]:
        """The modules whose data the documents hold; libyang loads (and, with -i, implements) their imports
        from the search path, which covers every leafref, must and when they can reach. Loading 30 modules
        instead of all 146 makes a run 6x faster."""
        names = sorted({root.name for tr in translations for root in tr.roots})
        files = [self.models / f"{name}.yang" for name in names]
        if not files or not all(f.is_file() for f in files):
            return [str(f) for f in self.schema.modules]
        return [str(f) for f in files]

    def run(self, files: list[Path], modules: list[str]) -> tuple[list[LintError], str | None, int]:
        proc = subprocess.run([*self.command, *modules, *map(str, files)], capture_output=True, text=True,
                              check=False)
        errors, failed = parse_errors(proc.stderr)
        return errors, failed, proc.returncode

    def check_many(self, translations: dict[str, Translation]) -> dict[str, list[Problem]]:
        """name -> yanglint problems, for every translation (one yanglint run per document while it passes)."""
        with tempfile.TemporaryDirectory(prefix="fabric-sonic-yang-") as tmp:
            scratch = Path(tmp) / "config.xml"
            return {name: self.check_one(tr, scratch) for name, tr in translations.items()}

    def lint(self, translation: Translation, scratch: Path) -> tuple[list[LintError], int]:
        """Validate one document. libyang 2.1.30's yanglint can crash (SIGSEGV) on several data files with a
        partial module set, so one file per run, and a crash is retried once with every module."""
        scratch.write_text(to_xml(translation)[0], encoding="utf-8")
        errors, _, rc = self.run([scratch], self.modules_for([translation]))
        if rc < 0:
            errors, _, rc = self.run([scratch], [str(f) for f in self.schema.modules])
        if rc < 0:
            errors = [LintError(f"yanglint crashed (signal {-rc})")]
        elif rc != 0 and not errors:
            errors = [LintError(f"yanglint failed (exit {rc}) without an error message")]
        return errors, rc

    def check_one(self, translation: Translation, scratch: Path) -> list[Problem]:
        """Every error of one document: look past each by dropping what it is about, then validate again."""
        problems: list[Problem] = []
        dropped: set[Origin] = set()
        current = translation
        for _ in range(MAX_ROUNDS):
            errors, rc = self.lint(current, scratch)
            if rc == 0:
                return problems
            err = errors[0]
            found, drop = locate(err, current)
            problems.extend(p for p in found if not _follows_from_dropped(err, p, dropped))
            if not drop - dropped:
                problems.append(Problem("YANG011", (), f"cannot look past this error; later errors not checked: "
                                                      f"{err.message}"))
                return problems
            dropped |= drop
            current = pruned(translation, dropped)
        problems.append(Problem("YANG012", (), f"more than {MAX_ROUNDS} errors; the rest are not shown"))
        return problems


def _follows_from_dropped(err: LintError, problem: Problem, dropped: set[Origin]) -> bool:
    """An error that only follows from a node this check dropped to look past an earlier error (a leafref to a
    dropped row, a mandatory leaf that was dropped): the earlier error already covers it."""
    if err.schema_path and (*problem.origin, err.schema_path.rsplit("/", 1)[-1].split(":")[-1]) in dropped:
        return True
    if m := _LEAFREF.search(err.message):
        parts = [p.split(":")[-1] for p in m["target"].strip("/").split("/")]
        table = parts[1] if len(parts) > 1 else ""
        return any(len(o) == 2 and o[0] == table and m["value"] in o[1].split("|") for o in dropped)
    if m := _UNION.search(err.message):  # a union of leafrefs (PFC_WD's port or GLOBAL): the target is not named
        return any(len(o) == 2 and m["value"] in o[1].split("|") for o in dropped)
    return False


def _origin_of_path(path: str, paths: dict[str, Origin]) -> Origin | None:
    while path:
        if path in paths:
            return paths[path]
        path = path.rsplit("/", 1)[0] if "/" in path else ""
    return None


def _missing(translation: Translation, schema_path: str) -> list[Origin]:
    """Rows (or containers) of the schema path's parent that lack its last node."""
    parts = [p.split(":")[-1] for p in schema_path.strip("/").split("/")]
    if len(parts) < 3:
        return []
    parents: list[Element] = [r for r in translation.roots if r.name == parts[0]]
    for name in parts[1:-1]:
        parents = [c for p in parents for c in p.children if c.name == name]
    return [p.origin for p in parents if not any(c.name == parts[-1] for c in p.children)]


def locate(err: LintError, translation: Translation) -> tuple[list[Problem], set[Origin]]:
    """The problems one yanglint error stands for, and the origins to drop to look past it."""
    code = err.code
    if err.schema_path and not err.data_path:
        rows = _missing(translation, err.schema_path)
        leaf = err.schema_path.rsplit("/", 1)[-1].split(":")[-1]
        if rows:
            return [Problem(code, o, f"{err.message} (leaf '{leaf}')") for o in rows], set(rows)
        return [Problem(code, (), f"{err.message} ({err.schema_path})")], set()
    origin: Origin | None = None
    if err.data_path:  # exact; libyang's line number is where its parser stood, not always the node
        origin = _origin_of_path(err.data_path, data_paths(translation))
    if not origin and err.line:
        lines = to_xml(translation)[1]
        if 0 < err.line <= len(lines):
            origin = lines[err.line - 1]
    if not origin:
        return [Problem(code, (), f"{err.message} ({err.data_path or 'no location'})")], set()
    return [Problem(code, origin, err.message)], {origin}
