"""`fabric validate --format sarif` against the official SARIF 2.1.0 JSON Schema (OASIS, errata 01), checked by
jsonschema with every format it knows (uri and uri-reference through rfc3986-validator, date-time through
rfc3339-validator). The schema file and where it comes from: tests/data/README.md.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from railfabric.cli import main
from tests.helpers import EXAMPLE

SCHEMA_FILE = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def _validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert schema["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    jsonschema.Draft4Validator.check_schema(schema)
    checker = jsonschema.FormatChecker()
    # without these the formats SARIF uses would pass unchecked (jsonschema skips formats it cannot check)
    assert {"uri", "uri-reference", "date-time"} <= set(checker.checkers)
    return jsonschema.Draft4Validator(schema, format_checker=checker)


def _errors(doc: dict[str, Any]) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in _validator().iter_errors(doc)]


def _broken_example(root: Path) -> None:
    """The shipped example with four errors injected (line numbers count the yaml-language-server first line):
    pods.yml line 25 `rail_prefix_len` of pod 1 segment 1 misspelt (SCH001 at 25:9, the key's column);
    pods.yml line 35 segment 2's model misspelt '7060x6-duo' (REF001 at 35:28, the value's column);
    `solver.latency_budget_ns` written in devices.yml (appended to its 18 lines: blank line 19, `solver:` 20, the
    key 21:3) and again in fabric.yml (LOAD003 at the second one, related location devices.yml:21:3).
    Both segments of pod 1 are then left out, so pod 1 is (SKIP001 at its item, pods.yml 13:5), and so are the
    devices.yml entries that name its switches and hosts: the override of p1-s1-rail3 (REF003, devices.yml 4:3)
    and the two explicit cables of hosts p1-s1-gpu015/016 (REF004, devices.yml 17:5 and 18:5)."""
    shutil.copytree(EXAMPLE, root)
    pods = root / "pods.yml"
    text = pods.read_text(encoding="utf-8")
    for old, new in (("        rail_prefix_len: 24\n", "        rail_prefx_len: 24\n"),
                     ("        rail_switch_model: 7060x6-dual\n", "        rail_switch_model: 7060x6-duo\n")):
        assert text.count(old) >= 1, "the example changed: update this test"
        text = text.replace(old, new, 1)
    pods.write_text(text, encoding="utf-8")
    devices = root / "devices.yml"
    assert len(devices.read_text(encoding="utf-8").splitlines()) == 18, "the example changed: update this test"
    for name, budget in (("devices.yml", 10000), ("fabric.yml", 20000)):
        with (root / name).open("a", encoding="utf-8") as out:
            out.write(f"\nsolver:\n  latency_budget_ns: {budget}\n")


def _sarif(capsys: pytest.CaptureFixture[str], inventory: str) -> dict[str, Any]:
    assert main(["validate", inventory, "--format", "sarif"]) == 1
    return json.loads(capsys.readouterr().out)


def _where(result: dict[str, Any]) -> tuple[str, str, int, int]:
    phys = result["locations"][0]["physicalLocation"]
    return (result["ruleId"], phys["artifactLocation"]["uri"], phys["region"]["startLine"],
            phys["region"]["startColumn"])


def test_sarif_of_the_broken_example_validates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    _broken_example(tmp_path / "inventory")
    doc = _sarif(capsys, "inventory")
    assert _errors(doc) == []
    results = doc["runs"][0]["results"]
    assert sorted(_where(r) for r in results) == [
        ("LOAD003", "inventory/fabric.yml", 56, 3),  # fabric.yml has 53 lines: blank 54, `solver:` 55, key 56
        ("REF001", "inventory/pods.yml", 35, 28),
        ("REF003", "inventory/devices.yml", 4, 3),
        ("REF004", "inventory/devices.yml", 17, 5),
        ("REF004", "inventory/devices.yml", 18, 5),
        ("SCH001", "inventory/pods.yml", 25, 9),
        ("SKIP001", "inventory/pods.yml", 13, 5),
    ]
    load003 = next(r for r in results if r["ruleId"] == "LOAD003")
    assert load003["relatedLocations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "inventory/devices.yml"}, "region": {"startLine": 21, "startColumn": 3}}
    assert {r["level"] for r in results} == {"error", "note"}  # SKIP001 is info → note


def test_a_path_with_spaces_is_a_valid_uri_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # a directory name with a space and a '#': as a raw path neither is allowed in a URI reference
    monkeypatch.chdir(tmp_path)
    _broken_example(tmp_path / "my inv#2")
    doc = _sarif(capsys, "my inv#2")
    assert _errors(doc) == []
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]}
    assert uris == {"my%20inv%232/devices.yml", "my%20inv%232/fabric.yml", "my%20inv%232/pods.yml"}


def test_an_absolute_inventory_path_gives_file_uris(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _broken_example(tmp_path / "inv")
    doc = _sarif(capsys, str(tmp_path / "inv"))
    assert _errors(doc) == []
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]}
    assert uris == {(tmp_path / "inv" / name).as_uri() for name in ("devices.yml", "fabric.yml", "pods.yml")}


def test_the_clean_example_validates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(EXAMPLE), "--format", "sarif"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["runs"][0]["results"] == []
    assert _errors(doc) == []


def test_the_schema_rejects_what_it_should(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    # the validator is not vacuous: the same log, damaged in three ways the schema forbids, fails on each
    monkeypatch.chdir(tmp_path)
    _broken_example(tmp_path / "inventory")
    doc = _sarif(capsys, "inventory")
    first = doc["runs"][0]["results"][0]
    no_message = json.loads(json.dumps(doc))
    del no_message["runs"][0]["results"][0]["message"]
    assert _errors(no_message) == ["['runs', 0, 'results', 0]: 'message' is a required property"]
    bad_level = json.loads(json.dumps(doc))
    bad_level["runs"][0]["results"][0]["level"] = "fatal"
    assert len(_errors(bad_level)) == 1 and "'fatal' is not one of" in _errors(bad_level)[0]
    raw_path = json.loads(json.dumps(doc))
    raw_path["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "a b.yml"
    assert _errors(raw_path) == [
        "['runs', 0, 'results', 0, 'locations', 0, 'physicalLocation', 'artifactLocation', 'uri']: "
        "'a b.yml' is not a 'uri-reference'"]
    assert first["message"]["text"]
