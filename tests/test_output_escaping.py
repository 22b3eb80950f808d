"""User text in findings and outputs: findings quote a short escaped excerpt, free text is refused at validation
(SEC004) when it could inject into an output, and the writers escape it again (CSV formulas, Ansible Jinja)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml

from railfabric.core.finding import Finding
from railfabric.core.source_map import Location
from railfabric.core.textsafe import csv_cell, free_text_problem, quote
from railfabric.outputs._common import csv_text
from railfabric.outputs.ansible import _yaml
from tests.helpers import base_inventory, run_data


def _with_rack(rack: str) -> dict:
    data = base_inventory()
    data["devices"] = {"p1-s1-rail0": {"rack": rack}}
    return data


# --------------------------------------------------------------------------- quoting in findings


def test_quote_escapes_and_bounds() -> None:
    assert quote("DH1-R07") == "'DH1-R07'"
    assert quote("a\nb\tc\u202e") == "'a\\nb\\tc\\u202e'"  # line break, tab and a bidi override shown escaped
    assert quote("x" * 100) == "'" + "x" * 40 + "…'"
    assert quote(12) == "12"


def test_finding_never_holds_a_line_break() -> None:
    f = Finding("SCH003", "line1\nline2", Location("a.yml", 1, 1), hint="h\r\n")
    assert (f.message, f.hint) == ("line1\\nline2", "h\\r\\n")


def test_unknown_key_is_a_short_excerpt(tmp_path: Path) -> None:
    # before: the whole 5,000-character key was repeated in the message
    data = base_inventory()
    data["fabric"]["k" * 5000] = 1
    [f] = [f for f in run_data(tmp_path, data).findings if f.code != "SKIP001"]
    assert f.code == "SCH001"
    assert f.message == "unknown key '" + "k" * 40 + "…' in fabric"


def test_bad_value_is_a_short_excerpt(tmp_path: Path) -> None:
    # before: the validator's {v!r} put all 10,000 characters of the value into the message (twice, with "got")
    data = base_inventory()
    data["pools"]["loopbacks"] = "1" * 10_000
    [f] = [f for f in run_data(tmp_path, data).findings if f.code != "SKIP001"]
    assert f.code == "SCH003"
    assert len(f.message) < 200 and "1" * 41 not in f.message


# --------------------------------------------------------------------------- free text: SEC004


@pytest.mark.parametrize(("rack", "problem"), [
    ("{{ lookup('pipe', 'id') }}", "contains '{{'"),  # Ansible would run it on the controller
    ("R{% raw %}", "contains '{%'"),
    ("=HYPERLINK(\"http://x\")", "starts with '='"),  # a spreadsheet formula in cabling.csv
    ("-2+3", "starts with '-'"),
    ('R7"; x', "contains the character '\"'"),  # breaks a JSON / config quoting context
    ("R7 ", "ends with a space"),
])
def test_unsafe_rack_is_refused_at_validation(tmp_path: Path, rack: str, problem: str) -> None:
    res = run_data(tmp_path, _with_rack(rack))
    [f] = [f for f in res.findings if f.code != "SKIP001"]  # SKIP001 (info): the item's own checks were skipped
    assert f.code == "SEC004"
    assert f.hint.startswith("free text may hold letters, digits, spaces and")
    assert f.message.startswith(f"devices.p1-s1-rail0.rack: free text {quote(rack)} {problem}")
    assert f.location is not None and (f.location.line, f.location.col) == (
        _line_of(res, "rack"), len("    rack: ") + 1)


def _line_of(res, key: str) -> int:
    text = Path(res.loaded.files[0]).read_text()
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.strip().startswith(f"{key}:"))


def test_ordinary_rack_names_pass(tmp_path: Path) -> None:
    for rack in ("DH1-R07", "Hall 2 / Row C, R12", "R07 (top)"):
        assert free_text_problem(rack) is None
    assert run_data(tmp_path, _with_rack("Hall 2 / Row C, R12")).findings == []


# --------------------------------------------------------------------------- writers: the second guard


def test_csv_cells_that_spreadsheets_run_are_escaped() -> None:
    text = csv_text("t v1", ("a", "b", "c"), [("=1+1", "@SUM(A1)", 5), ("-x", "ok", "\tz")])
    rows = list(csv.reader(io.StringIO(text)))[2:]
    assert rows == [["'=1+1", "'@SUM(A1)", "5"], ["'-x", "ok", "'\tz"]]
    assert csv_cell(-3) == -3  # numbers are not text: unchanged


def test_csv_formula_cells_are_found_after_any_delimiter_and_inside_quotes() -> None:
    """csv_text writes all rows at once and looks for a cell that may start a formula afterwards: one in the last
    row, one written quoted (it holds a comma) and one after a plain cell are escaped; cells that merely hold a
    formula character elsewhere are left as they are."""
    rows = [("a-b", "x=1", 2)] * 3 + [("ok", "=1,2", "fine"), ("ok", "fine", "+3")]
    assert csv_text("t v1", ("a", "b", "c"), rows) == \
        "# t v1\na,b,c\n" + "a-b,x=1,2\n" * 3 + "ok,\"'=1,2\",fine\nok,fine,'+3\n"
    # nothing to escape: the text is csv.writer's own, a quoted cell with a comma and a dash inside included
    assert csv_text("t v1", ("a",), [("p1-s1",), ("x,-y",)]) == '# t v1\na\np1-s1\n"x,-y"\n'


def test_plain_lines_are_what_csv_writer_writes() -> None:
    """csv_lines_plain (the cabling plan's, expected/'s and the rail map's writer) takes rows made as lines of a
    template, '{},{}' here: when a cell would need quoting or escaping it gives None (the caller then writes the
    cells through csv_text), else the lines as csv_text writes them."""
    from railfabric.outputs._common import csv_lines_plain

    assert csv_lines_plain("t v1", ("a", "b"), ["10.0.0.0/31,", "x,peer s1 Ethernet0"]) == \
        "# t v1\na,b\n10.0.0.0/31,\nx,peer s1 Ethernet0\n"
    assert csv_lines_plain("t v1", ("a", "b"), []) == "# t v1\na,b\n"
    for rows in ([("a,b", "c")], [('q"', "")], [("x\n", "y")], [("=x", "y")], [("-1", "a")], [("a\x1fb", "c")],
                 [("a\x1eb", "c")], [("a\nb", "c"), ("d", "e")], [("a", "b"), ("c", "\r")], [("a", "b"), ("c", "@d")]):
        # a comma, quote, line break or formula character, or a control character that plain text never holds
        assert csv_lines_plain("t v1", ("a", "b"), [f"{x},{y}" for x, y in rows]) is None, rows


def test_ansible_values_with_jinja_are_marked_unsafe() -> None:
    text = _yaml({"rack": "{{ lookup('pipe', 'id') }}", "model": "sn5600", "rails": ["{# x #}", 1]})
    assert text == ('rack: !unsafe "{{ lookup(\'pipe\', \'id\') }}"\n'
                    "model: sn5600\n"
                    'rails: [!unsafe "{# x #}", 1]\n')

    class _AnsibleLike(yaml.SafeLoader):
        pass

    _AnsibleLike.add_constructor("!unsafe", lambda loader, node: ("unsafe", loader.construct_scalar(node)))
    assert yaml.load(text, Loader=_AnsibleLike)["rack"] == ("unsafe", "{{ lookup('pipe', 'id') }}")
