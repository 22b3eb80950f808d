"""TOPO005: dense spine / super-spine downlinks move existing cables when a lower id is inserted (issue 8 §3.3).

base_inventory(): pod 1 with 2 spines (sw64: 64 ports, all downlinks without super-spines), segment 1 with 2 rail
switches × 1 link per spine; limits.segments_per_pod 4, limits.pods 4.
"""

from __future__ import annotations

import copy
from pathlib import Path

from railfabric.pipeline import run
from tests.helpers import EXAMPLE, base_inventory, run_data


def topo005(res) -> list[tuple[str, str, str]]:
    return [(f.severity, f.message, f.hint) for f in res.findings if f.code == "TOPO005"]


def with_segment_3(stride: int | None = None) -> dict:
    inv = base_inventory()
    seg = inv["pods"][0]["segments"][0]
    inv["pods"][0]["segments"].append({**copy.deepcopy(seg), "id": 3})
    if stride:
        inv["pods"][0]["spines"]["ports_per_segment"] = stride
    return inv


def test_dense_spine_downlinks_warn_with_the_stride_that_fits(tmp_path: Path) -> None:
    # each segment needs 2 rail switches × 1 link = 2 ports per spine; 64 ports / 4 segment ids = 16
    res = run_data(tmp_path, with_segment_3())
    assert topo005(res) == [(
        "warning", "pod 1: spine downlinks are dense (no spines.ports_per_segment) over segments 1, 3: a segment "
        "inserted with a lower id, or one that grows, moves the spine-side cables of every later segment",
        "pin them with spines.ports_per_segment: 16 (the largest segment needs 2 port(s) per spine; 4 segment id(s) "
        "× 16 fit the 64 downlink ports); it re-cables once, now")]
    loc = next(f.location for f in res.findings if f.code == "TOPO005")
    assert loc is not None and loc.line == 44  # the pods[0].spines mapping (its key `spines:` is line 43)


def test_the_suggested_stride_silences_it_and_pins_the_ports(tmp_path: Path) -> None:
    small = run_data(tmp_path / "a", with_segment_3(stride=16))
    assert topo005(small) == []
    grown = with_segment_3(stride=16)
    grown["pods"][0]["segments"].append({**copy.deepcopy(grown["pods"][0]["segments"][0]), "id": 2})
    big = run_data(tmp_path / "b", grown)
    assert small.topology is not None and big.topology is not None
    before = {lk.id: (lk.z.device, lk.z.port) for lk in small.topology.links}
    after = {lk.id: (lk.z.device, lk.z.port) for lk in big.topology.links}
    assert {k: after[k] for k in before} == before
    assert before["p1-s3-rail0>p1-spine1#1"] == ("p1-spine1", 33)  # (3-1) × 16 + 1


def test_one_segment_numbered_1_or_strides_set_do_not_warn(tmp_path: Path) -> None:
    assert topo005(run_data(tmp_path, base_inventory())) == []  # appending segment 2 appends its cables
    assert topo005(run(EXAMPLE)) == []  # the example sets both strides


def test_dense_super_spine_downlinks_warn(tmp_path: Path) -> None:
    # 2 pods × 2 spines × 1 link per super-spine: 2 ports per pod; 64 ports / 4 pod ids = 16
    inv = base_inventory()
    inv["super_spines"] = {"count": 2, "model": "sw64"}
    inv["pods"].append({**copy.deepcopy(inv["pods"][0]), "id": 2})
    assert [m for _s, m, _h in topo005(run_data(tmp_path, inv))] == [
        "super-spine downlinks are dense (no super_spines.ports_per_pod) over pods 1, 2: a pod inserted with a "
        "lower id, or a spine added to a pod, moves the super-spine-side cables of every later pod"]
    inv["super_spines"]["ports_per_pod"] = 16
    assert topo005(run_data(tmp_path / "b", inv)) == []
