"""railfabric/inventory/canonical.py: the inventory digest ignores the order of order-free lists and nothing else."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from railfabric.inventory.canonical import canonical, inventory_digest
from railfabric.inventory.intent import Inventory
from railfabric.inventory.load import load_inventory
from railfabric.inventory.schema_check import check_schema
from tests.helpers import EXAMPLE


@pytest.fixture(scope="module")
def example() -> dict[str, Any]:
    return load_inventory(EXAMPLE).data


def _inv(data: dict[str, Any]) -> Inventory:
    inv, findings = check_schema(data, load_inventory(EXAMPLE).source)
    assert inv is not None, findings
    return inv


def test_reordering_pods_and_segments_keeps_the_digest(example: dict[str, Any]) -> None:
    # before: emit.input_digest hashed model_dump() as is, so this reordering read as drift
    shuffled = copy.deepcopy(example)
    shuffled["pods"] = [shuffled["pods"][i] for i in (2, 0, 1)]  # pods 3, 1, 2
    shuffled["pods"][1]["segments"].reverse()  # pod 1: segments 2, 1
    shuffled["pods"][1]["segments"][0]["host_groups"].reverse()  # pod 1 segment 2: the group with first 9 first
    assert [p["id"] for p in shuffled["pods"]] == [3, 1, 2]
    assert inventory_digest(_inv(shuffled)) == inventory_digest(_inv(example))


def test_reordering_cabling_and_disabled_ports_keeps_the_digest(example: dict[str, Any]) -> None:
    a, b = copy.deepcopy(example), copy.deepcopy(example)
    cables = [{"host": "p1-s1-gpu001", "nic": 0, "switch": "p1-s1-rail0", "port": 1},
              {"host": "p1-s1-gpu002", "nic": 0, "switch": "p1-s1-rail0", "port": 2}]
    a["cabling"], b["cabling"] = cables, cables[::-1]
    a["devices"]["p1-s1-rail3"]["disabled_ports"] = [8, 12]
    b["devices"]["p1-s1-rail3"]["disabled_ports"] = [12, 8]
    assert inventory_digest(_inv(a)) == inventory_digest(_inv(b))


def test_changing_a_value_changes_the_digest(example: dict[str, Any]) -> None:
    changed = copy.deepcopy(example)
    changed["pods"][0]["segments"][0]["host_groups"][0]["count"] = 15  # pod 1 segment 1: 16 hosts → 15
    assert inventory_digest(_inv(changed)) != inventory_digest(_inv(example))


def test_order_with_meaning_is_kept(example: dict[str, Any]) -> None:
    # rail_groups: group g is rail switch g (its name, slot and addresses), so their order is part of the intent
    swapped = copy.deepcopy(example)
    groups = swapped["pods"][0]["segments"][1]["rail_groups"]
    groups[0], groups[1] = groups[1], groups[0]
    assert inventory_digest(_inv(swapped)) != inventory_digest(_inv(example))


def test_canonical_form_sorts_by_identity(example: dict[str, Any]) -> None:
    shuffled = copy.deepcopy(example)
    shuffled["pods"].reverse()
    canon = canonical(_inv(shuffled))
    assert [p["id"] for p in canon["pods"]] == [1, 2, 3]
    assert [s["id"] for s in canon["pods"][0]["segments"]] == [1, 2]
    assert [g["first"] for g in canon["pods"][0]["segments"][1]["host_groups"]] == [1, 9]


def test_digest_is_a_sha256_hex() -> None:
    digest = inventory_digest(_inv(load_inventory(Path(EXAMPLE)).data))
    assert len(digest) == 64 and int(digest, 16) >= 0
