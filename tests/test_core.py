"""railfabric.core: the bottom layer. It imports nothing else of fabric, and its types behave as every stage assumes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import railfabric.core
from railfabric.core.codes import CODES
from railfabric.core.finding import MAX_TEXT, Finding
from railfabric.core.source_map import Location, SourceMap
from railfabric.core.text import escape, one_line

CORE = Path(railfabric.core.__file__).parent


def _fabric_imports(path: Path) -> set[str]:
    mods: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            mods.add(("." * node.level) + node.module)
        elif isinstance(node, ast.Import):
            mods.update(a.name for a in node.names)
    return {m for m in mods if m.startswith(("fabric", "."))}


def test_core_imports_only_core() -> None:
    modules = sorted(CORE.glob("*.py"))
    assert {p.name for p in modules} >= {"__init__.py", "codes.py", "finding.py", "source_map.py", "text.py"}
    for path in modules:
        outside = {m for m in _fabric_imports(path) if not m.startswith("railfabric.core")}
        assert not outside, (path.name, outside)


def test_no_module_outside_core_defines_the_moved_types() -> None:
    # one home each: no second SourceMap, Location, Finding or CODES table anywhere in railfabric/
    defined = re.compile(r"^(class (SourceMap|Location|Finding|Severity)\b|CODES\s*[:=])", re.M)
    for path in Path(railfabric.core.__file__).parents[1].rglob("*.py"):
        if path.parent != CORE:
            assert not defined.search(path.read_text(encoding="utf-8")), path


def test_source_map_falls_back_to_the_deepest_known_ancestor() -> None:
    src = SourceMap()
    src.values[("pods",)] = Location("pods.yml", 1, 1)
    src.values[("pods", 0)] = Location("pods.yml", 2, 5)
    src.keys[("pods", 0, "id")] = Location("pods.yml", 2, 7)
    # ("pods", 0, "segments", 3) is not in the map: its nearest ancestor ("pods", 0) is
    assert src.loc(("pods", 0, "segments", 3)) == Location("pods.yml", 2, 5)
    # a key's mark wins over the value's; without one, the value's (here: the ancestor's)
    assert src.key_loc(("pods", 0, "id")) == Location("pods.yml", 2, 7)
    assert src.key_loc(("pods", 0, "name")) == Location("pods.yml", 2, 5)
    assert src.loc(("fabric",)) is None  # no ancestor at all


def test_location_text() -> None:
    assert str(Location("a.yml", 3, 9)) == "a.yml:3:9"
    assert str(Location("a.yml")) == "a.yml"  # no line: the file alone


def test_finding_text_is_one_bounded_line() -> None:
    f = Finding("LOAD001", "a\nb", hint="x" * (MAX_TEXT + 5))
    assert f.message == "a\\nb"  # the newline escaped, as repr writes it
    assert f.hint == "x" * MAX_TEXT + "…"
    assert one_line("plain", 10) == "plain"
    assert escape("tab\there") == "tab\\there"


def test_codes_are_well_formed() -> None:
    # a code is 2-5 capitals and three digits (or V6 and three digits: the dual-stack family, V6001-V6009, as issue
    # 30 assigned it); a machine name is lower-case words joined by '-'
    for code, info in CODES.items():
        assert re.fullmatch(r"[A-Z]{2,5}\d{3}|V6\d{3}", code), code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", info.name), (code, info.name)
        assert info.title and info.explanation, code
