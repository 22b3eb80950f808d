"""Finding formatters (text, JSON, SARIF 2.1.0, GitHub annotations), exit codes and de-duplication."""

from __future__ import annotations

import json

import pytest

from railfabric.core.causes import unique_sorted
from railfabric.core.finding import Finding, Severity, counts, exit_code, has_errors
from railfabric.core.formats import format_github, format_json, format_sarif, format_text
from railfabric.core.source_map import Location

ERR = Finding("SCH001", "unknown key 'host_mu' in fabric", Location("inventory/pods.yml", 3, 5),
              "did you mean 'host_mtu'?")
WARN = Finding("MTU002", "host MTU 4000 is too small for RoCE", Location("inventory/fabric.yml", 11, 13),
               "raise host_mtu to 9000", Severity.WARNING)
INFO = Finding("POOL002", "pool loopbacks is 90% used", Location("inventory/fabric.yml", 33, 14),
               severity=Severity.INFO)
DUP = Finding("LOAD002", "key 'name' is defined twice in this mapping (first at line 2)",
              Location("inventory/fabric.yml", 4, 3), "delete one of them",
              related=(Location("inventory/fabric.yml", 2, 3),))
FATAL = Finding("LOAD001", "YAML syntax error: mapping values are not allowed here",
                Location("inventory/pods.yml", 7, 12), fatal=True)
NOWHERE = Finding("LOAD008", "inventory path 'nope' does not exist", Location("nope"), fatal=True)
UNLOCATED = Finding("ID003", "two devices are called 'x'")


# --------------------------------------------------------------------------- Location


def test_location_str() -> None:
    assert str(Location("a.yml", 3, 5)) == "a.yml:3:5"
    assert str(Location("a.yml")) == "a.yml"


# --------------------------------------------------------------------------- text


def test_text_line_shape() -> None:
    out = format_text([ERR])
    assert out == (
        "inventory/pods.yml:3:5: error SCH001: unknown key 'host_mu' in fabric\n"
        "    hint: did you mean 'host_mtu'?\n"
        "1 error(s), 0 warning(s), 0 info\n"
    )


def test_text_related_severities_and_counts() -> None:
    out = format_text([DUP, WARN, INFO, NOWHERE, UNLOCATED])
    assert out.splitlines() == [
        "inventory/fabric.yml:4:3: error LOAD002: key 'name' is defined twice in this mapping (first at line 2)",
        "    see also inventory/fabric.yml:2:3",
        "    hint: delete one of them",
        "inventory/fabric.yml:11:13: warning MTU002: host MTU 4000 is too small for RoCE",
        "    hint: raise host_mtu to 9000",
        "inventory/fabric.yml:33:14: info POOL002: pool loopbacks is 90% used",
        "nope: error LOAD008: inventory path 'nope' does not exist",
        "<fabric>: error ID003: two devices are called 'x'",
        "3 error(s), 1 warning(s), 1 info",
    ]


def test_text_without_findings_is_the_count_line() -> None:
    assert format_text([]) == "0 error(s), 0 warning(s), 0 info\n"


# --------------------------------------------------------------------------- JSON


def test_json_findings_and_counts() -> None:
    doc = json.loads(format_json([ERR, WARN, DUP]))
    assert doc["counts"] == {"error": 2, "warning": 1, "info": 0}
    assert doc["exit_code"] == 1
    assert "summary" not in doc
    assert doc["findings"][0] == {
        "code": "SCH001",
        "severity": "error",
        "message": "unknown key 'host_mu' in fabric",
        "file": "inventory/pods.yml",
        "line": 3,
        "column": 5,
        "hint": "did you mean 'host_mtu'?",
        "related": [],
        "title": "Unknown key",
    }
    assert doc["findings"][1]["severity"] == "warning"
    assert doc["findings"][2]["related"] == ["inventory/fabric.yml:2:3"]


def test_json_empty_hint_no_location_unknown_code_and_summary() -> None:
    odd = Finding("XYZ999", "made up")
    doc = json.loads(format_json([odd, NOWHERE], summary={"switches_total": 3}))
    assert doc["findings"][0] == {"code": "XYZ999", "severity": "error", "message": "made up", "file": None,
                                  "line": None, "column": None, "hint": None, "related": [], "title": None}
    assert doc["findings"][1]["file"] == "nope"
    assert doc["findings"][1]["line"] == 0
    assert doc["summary"] == {"switches_total": 3}
    assert doc["exit_code"] == 2


def test_json_of_nothing() -> None:
    assert json.loads(format_json([])) == {"findings": [], "counts": {"error": 0, "warning": 0, "info": 0},
                                           "exit_code": 0}


# --------------------------------------------------------------------------- SARIF


def _sarif(findings: list[Finding]) -> dict:
    return json.loads(format_sarif(findings, "9.8.7"))


def test_sarif_envelope() -> None:
    doc = _sarif([ERR])
    assert doc["version"] == "2.1.0"
    assert "sarif" in doc["$schema"] and "2.1.0" in doc["$schema"]
    assert len(doc["runs"]) == 1
    driver = doc["runs"][0]["tool"]["driver"]
    assert driver["name"] == "railfabric"
    assert driver["version"] == "9.8.7"


def test_sarif_rules_and_rule_index() -> None:
    findings = [ERR, WARN, INFO, DUP, Finding("SCH001", "another", Location("inventory/x.yml", 1, 1))]
    run = _sarif(findings)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    # each used code once, sorted
    assert [r["id"] for r in rules] == ["LOAD002", "MTU002", "POOL002", "SCH001"]
    assert rules[3]["name"] == "unknown-key"
    assert rules[3]["shortDescription"] == {"text": "Unknown key"}
    assert "fabric schema" in rules[3]["fullDescription"]["text"]
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["SCH001", "MTU002", "POOL002", "LOAD002", "SCH001"]
    for res in results:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]


def test_sarif_levels_regions_and_messages() -> None:
    results = _sarif([ERR, WARN, INFO])["runs"][0]["results"]
    assert [r["level"] for r in results] == ["error", "warning", "note"]
    assert results[0]["locations"] == [{"physicalLocation": {
        "artifactLocation": {"uri": "inventory/pods.yml"},
        "region": {"startLine": 3, "startColumn": 5}}}]
    assert results[0]["message"]["text"] == "unknown key 'host_mu' in fabric\nhint: did you mean 'host_mtu'?"
    assert results[2]["message"]["text"] == "pool loopbacks is 90% used"


def test_sarif_related_and_partial_locations() -> None:
    line_only = Finding("SCH003", "bad", Location("a.yml", 7, 0))
    results = _sarif([DUP, NOWHERE, UNLOCATED, line_only])["runs"][0]["results"]
    assert results[0]["relatedLocations"] == [{
        "id": 0,
        "physicalLocation": {"artifactLocation": {"uri": "inventory/fabric.yml"},
                             "region": {"startLine": 2, "startColumn": 3}},
        "message": {"text": "related"},
    }]
    assert results[1]["locations"] == [{"physicalLocation": {"artifactLocation": {"uri": "nope"}}}]
    assert "locations" not in results[2]
    assert results[3]["locations"][0]["physicalLocation"]["region"] == {"startLine": 7}


def test_sarif_unknown_code_and_empty_run() -> None:
    run = _sarif([Finding("XYZ999", "made up")])["runs"][0]
    assert run["tool"]["driver"]["rules"] == [{"id": "XYZ999"}]
    assert run["results"][0]["ruleIndex"] == 0
    empty = _sarif([])["runs"][0]
    assert empty["results"] == []
    assert empty["tool"]["driver"]["rules"] == []


# --------------------------------------------------------------------------- GitHub annotations


def test_github_annotation_line() -> None:
    plain = Finding("SCH001", "unknown key 'host_mu' in fabric", Location("inventory/pods.yml", 3, 5))
    assert format_github([plain]) == (
        "::error file=inventory/pods.yml,line=3,col=5,title=SCH001::unknown key 'host_mu' in fabric\n")


def test_github_hint_newline_is_escaped() -> None:
    assert format_github([ERR]) == ("::error file=inventory/pods.yml,line=3,col=5,title=SCH001::"
                                    "unknown key 'host_mu' in fabric%0Ahint: did you mean 'host_mtu'?\n")


def test_github_escapes_message_data() -> None:
    # a finding never holds a line break (the Finding escapes it to the two characters backslash-r / backslash-n);
    # the formatter still escapes %, and the LF it puts before the hint; ':' and ',' stay
    f = Finding("SCH003", "50% of a\r\nb: c, d", Location("a.yml", 1, 2), hint="x")
    assert format_github([f]) == "::error file=a.yml,line=1,col=2,title=SCH003::50%25 of a\\r\\nb: c, d%0Ahint: x\n"


def test_github_escapes_properties() -> None:
    f = Finding("SCH003", "bad", Location("inv,entory/c:d%.yml", 2, 1))
    assert format_github([f]) == "::error file=inv%2Centory/c%3Ad%25.yml,line=2,col=1,title=SCH003::bad\n"


def test_github_levels_and_missing_positions() -> None:
    out = format_github([WARN, INFO, NOWHERE, UNLOCATED]).splitlines()
    assert out == [
        "::warning file=inventory/fabric.yml,line=11,col=13,title=MTU002::host MTU 4000 is too small for RoCE"
        "%0Ahint: raise host_mtu to 9000",
        "::notice file=inventory/fabric.yml,line=33,col=14,title=POOL002::pool loopbacks is 90%25 used",
        "::error file=nope,title=LOAD008::inventory path 'nope' does not exist",
        "::error title=ID003::two devices are called 'x'",
    ]


def test_github_of_nothing_is_empty() -> None:
    assert format_github([]) == ""


# --------------------------------------------------------------------------- exit codes, counts


@pytest.mark.parametrize(
    ("findings", "code"),
    [
        ([], 0),
        ([WARN], 0),
        ([WARN, INFO], 0),
        ([INFO], 0),
        ([ERR], 1),
        ([WARN, ERR, INFO], 1),
        ([FATAL], 2),
        ([ERR, FATAL, WARN], 2),
        ([NOWHERE], 2),
    ],
    ids=["clean", "warning", "warning-info", "info", "error", "mixed", "fatal", "fatal-mixed", "no-inventory"],
)
def test_exit_code(findings: list[Finding], code: int) -> None:
    assert exit_code(findings) == code


def test_counts_and_has_errors() -> None:
    assert counts([ERR, WARN, INFO, DUP]) == {"error": 2, "warning": 1, "info": 1}
    assert has_errors([ERR]) is True
    assert has_errors([WARN, INFO]) is False
    assert has_errors([]) is False


# --------------------------------------------------------------------------- unique_sorted


def test_unique_sorted_removes_exact_duplicates_and_sorts() -> None:
    again = Finding("SCH001", "unknown key 'host_mu' in fabric", Location("inventory/pods.yml", 3, 5),
                    "did you mean 'host_mtu'?")
    assert again == ERR and again is not ERR
    out = unique_sorted([ERR, WARN, again, INFO, ERR, DUP])
    assert out == [DUP, WARN, INFO, ERR]  # fabric.yml 4, 11, 33, then pods.yml 3


def test_unique_sorted_keeps_findings_that_differ() -> None:
    a = Finding("SCH003", "bad", Location("a.yml", 2, 5))
    other_col = Finding("SCH003", "bad", Location("a.yml", 2, 6))
    other_code = Finding("SCH001", "bad", Location("a.yml", 2, 5))
    other_msg = Finding("SCH003", "worse", Location("a.yml", 2, 5))
    other_sev = Finding("SCH003", "bad", Location("a.yml", 2, 5), severity=Severity.WARNING)
    out = unique_sorted([other_col, a, other_msg, other_code, other_sev])
    # same place: by code, then message (equal keys keep their input order); column 6 after column 5
    assert out == [other_code, a, other_sev, other_msg, other_col]


def test_unique_sorted_orders_lines_numerically() -> None:
    f10 = Finding("SCH003", "x", Location("a.yml", 10, 1))
    f9 = Finding("SCH003", "x", Location("a.yml", 9, 1))
    b1 = Finding("SCH003", "x", Location("b.yml", 1, 1))
    assert unique_sorted([b1, f10, f9]) == [f9, f10, b1]


def test_unique_sorted_does_not_drop_a_fatal_finding() -> None:
    soft = Finding("LOAD010", "bad key", Location("a.yml", 1, 1))
    hard = Finding("LOAD010", "bad key", Location("a.yml", 1, 1), fatal=True)
    assert exit_code([soft, hard]) == 2
    assert exit_code(unique_sorted([soft, hard])) == 2


# --------------------------------------------------------------------------- the finding budget


def test_unique_sorted_keeps_the_budget_and_counts_the_rest() -> None:
    found = [Finding("SCH001", f"unknown key 'k{i}'", Location("a.yml", i, 1)) for i in range(1, 6)]
    out = unique_sorted(found, limit=3)
    assert out[:3] == found[:3]
    assert [(f.code, f.location, f.message, f.fatal) for f in out[3:]] == [
        ("LOAD016", Location("a.yml", 4, 1), "2 more findings not shown (the first 1,000 are)", False)]  # at k4


def test_budget_note_merges_earlier_notes_and_keeps_a_hidden_fatal() -> None:
    # a stage already hid 40 findings; 2 more are cut here, one of them fatal: one note of 42, exit code 2
    earlier = unique_sorted([Finding("SCH001", f"k{i}", Location("a.yml", i, 1)) for i in range(1, 42)], limit=1)
    hard = Finding("LOAD001", "syntax", Location("b.yml", 1, 1), fatal=True)
    out = unique_sorted([*earlier, Finding("SCH001", "z", Location("c.yml", 1, 1)), hard], limit=1)
    assert [f.code for f in out] == ["SCH001", "LOAD016"]
    assert out[-1].message.startswith("42 more findings not shown")
    assert exit_code(out) == 2


def test_finding_text_is_one_bounded_line() -> None:
    f = Finding("SCH003", "x" * 5000 + "\n" + "y", Location("a.yml", 1, 1))
    assert "\n" not in f.message and len(f.message) == 2001 and f.message.endswith("…")
