"""The inventory's JSON Schemas as editors and CI use them.

`railfabric.inventory.intent.json_schema()` describes the whole inventory: every file under inventory/ merged into one
document, so it requires `fabric`, `pools`, `switch_models`, `host_models` and `pods`. Each shipped file holds only part
of that document, so an editor mapping the whole schema to `inventory/*.yml` flags every file. The per-file schema
is the same document with no top-level key required: the per-key definitions are shared unchanged and an unknown
top-level key is still refused. Its committed copy lives at PER_FILE_PATH (written by `make schema`, checked by
tests/test_schema_per_file.py).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from railfabric.inventory.intent import SCHEMA_VERSION, json_schema

PER_FILE_PATH = "schema/inventory.schema.json"  # relative to the repository root


def whole_inventory_schema() -> dict[str, Any]:
    """The schema the merged inventory (all files together) satisfies."""
    return json_schema()


def per_file_schema() -> dict[str, Any]:
    """The schema each inventory file satisfies on its own: every top-level key optional, nothing else changed."""
    schema = copy.deepcopy(json_schema())
    required = schema.pop("required", [])
    schema["$id"] = f"https://railfabric.invalid/schema/inventory-file-v{SCHEMA_VERSION}.json"
    schema["title"] = f"railfabric inventory file v{SCHEMA_VERSION}"
    schema["description"] = (
        "One file of a railfabric inventory. Files under inventory/ merge into one document; each top-level key "
        f"may live in any file but only once, and the merged inventory needs {', '.join(sorted(required))} "
        "(checked by `fabric validate`).")
    return schema


def schema_text(schema: dict[str, Any]) -> str:
    """The serialised form `fabric schema` prints and the committed file holds (stable key order)."""
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


__all__ = ["PER_FILE_PATH", "per_file_schema", "schema_text", "whole_inventory_schema"]
