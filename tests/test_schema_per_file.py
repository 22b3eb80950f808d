"""The per-file JSON Schema (schema/inventory.schema.json) that editors map to inventory/*.yml: every shipped file
validates against it on its own, typos and wrong types still fail, the committed copy is what `fabric schema
--per-file` prints, and the whole inventory still validates against the whole-inventory schema.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from railfabric.cli import main
from railfabric.inventory.schema_files import PER_FILE_PATH, per_file_schema, schema_text, whole_inventory_schema
from tests.helpers import EXAMPLE, ROOT

COMMITTED = ROOT / PER_FILE_PATH
SHIPPED = sorted(EXAMPLE.glob("*.yml"))
MODELINE = "# yaml-language-server: $schema=../schema/inventory.schema.json"


def _validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def _errors(schema: dict[str, Any], doc: Any) -> list[str]:
    return sorted(f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in _validator(schema).iter_errors(doc))


def _committed() -> dict[str, Any]:
    return json.loads(COMMITTED.read_text(encoding="utf-8"))


def test_the_committed_schema_is_what_fabric_schema_per_file_prints(capsys: pytest.CaptureFixture[str]) -> None:
    # stale check: regenerate with `make schema` after a change to railfabric/inventory/intent*.py
    assert main(["schema", "--per-file"]) == 0
    assert capsys.readouterr().out == COMMITTED.read_text(encoding="utf-8"), "stale: run `make schema`"


def test_the_default_is_still_the_whole_inventory_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    assert capsys.readouterr().out == schema_text(whole_inventory_schema())


def test_per_file_differs_from_the_whole_only_in_required_and_its_name() -> None:
    whole, one = whole_inventory_schema(), per_file_schema()
    # pools is required of an Ethernet fabric only (the model's validator, SCH002): an InfiniBand one has none
    assert whole["required"] == ["fabric", "switch_models", "host_models", "pods"]
    assert "required" not in one
    assert one["additionalProperties"] is False  # an unknown top-level key is still refused
    assert one["$id"] != whole["$id"]
    same = {k: v for k, v in whole.items() if k not in ("required", "$id", "title", "description")}
    assert {k: v for k, v in one.items() if k not in ("$id", "title", "description")} == same


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_each_shipped_file_validates_on_its_own(path: Path) -> None:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(doc, dict) and doc  # a file with keys: a vacuous pass on an empty document proves nothing
    assert _errors(_committed(), doc) == []


def test_the_whole_schema_would_flag_every_file_on_its_own() -> None:
    # what the per-file schema fixes: each shipped file lacks some required top-level key of the whole inventory
    for path in SHIPPED:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert any("is a required property" in e for e in _errors(whole_inventory_schema(), doc)), path.name


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_each_shipped_file_names_the_committed_schema_on_its_first_line(path: Path) -> None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == MODELINE
    # yaml-language-server resolves a relative $schema against the YAML file's own directory
    assert (path.parent / first.split("$schema=", 1)[1]).resolve() == COMMITTED.resolve()


def test_the_whole_example_validates_against_the_whole_schema() -> None:
    merged: dict[str, Any] = {}
    for path in SHIPPED:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert not set(doc) & set(merged), "the example splits a top-level key: merge deeper here"
        merged.update(doc)
    assert set(merged) >= set(whole_inventory_schema()["required"])
    assert _errors(whole_inventory_schema(), merged) == []


def test_a_typo_key_fails() -> None:
    top: dict[str, Any] = {"swtich_models": {}}
    assert _errors(_committed(), top) == [
        ": Additional properties are not allowed ('swtich_models' was unexpected)"]
    nested = {"fabric": {"name": "atlas", "host_mu": 9000}}
    assert _errors(_committed(), nested) == [
        "fabric: Additional properties are not allowed ('host_mu' was unexpected)"]


def test_a_wrong_type_fails() -> None:
    doc = {"fabric": {"name": "atlas", "host_mtu": "jumbo"}, "pods": {"id": 1}}
    errors = _errors(_committed(), doc)
    assert len(errors) == 2
    assert errors[0].startswith("fabric.host_mtu: 'jumbo' is not of type 'integer'")
    assert errors[1] == "pods: {'id': 1} is not of type 'array'"


def test_a_file_split_differently_still_validates() -> None:
    # any top-level key may live in any file: pools alone, and qos with routing, are files of their own
    shipped = yaml.safe_load((EXAMPLE / "fabric.yml").read_text(encoding="utf-8"))
    assert _errors(_committed(), {"pools": shipped["pools"]}) == []
    assert _errors(_committed(), {"qos": shipped["qos"], "routing": shipped["routing"]}) == []
    assert _errors(_committed(), {}) == []  # an empty file (or one holding only comments) is fine too
