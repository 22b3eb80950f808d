"""How a render's parts are split between this process and its helpers (railfabric/emit/workers.py): whole-fabric parts
one by one, many-part artifacts in chunks, and a shared value that both sides read computed once, before they part."""

from __future__ import annotations

import pytest

from railfabric.emit import workers
from railfabric.outputs import Once, Part


def _part(key: str, artifact: str, shares: tuple[Once[object], ...] = ()) -> Part:
    return Part(key, artifact, "digest", dict, shares)


def test_few_part_artifacts_go_alone_and_many_part_ones_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "PART_CHUNK", 3)
    # "ipplan" has 1 part and "docs" 2 (fewer than PART_CHUNK = 3: whole-fabric), "state" 7 (in chunks of 3, broken
    # where another artifact's part sits between them)
    parts = [_part("ipplan", "ipplan"), *(_part(f"state:{i}", "state") for i in range(4)), _part("docs", "docs"),
             *(_part(f"state:{i}", "state") for i in range(4, 7)), _part("docs:pictures", "docs")]
    whole, many = workers._part_chunks(parts)
    assert whole == [(0, 1), (5, 6), (9, 10)]
    assert many == [(1, 4), (4, 5), (6, 9)]


def test_a_value_both_sides_read_is_computed_before_they_part() -> None:
    made: list[str] = []
    both = Once(lambda: made.append("both"))
    here_only = Once(lambda: made.append("here only"))
    there_only = Once(lambda: made.append("there only"))
    parts = [_part("expected", "expected", (both, here_only)), _part("state:a", "state", (both, there_only)),
             _part("state:b", "state", (both,))]
    workers._share(parts, whole=[(0, 1)], many=[(1, 3)])
    assert made == ["both"]  # once; the values one side alone reads are left to it
    workers._share(parts, whole=[(0, 1)], many=[])
    assert made == ["both"]


def test_the_fabric_index_is_declared_shared_by_its_readers() -> None:
    """expected/ (this process's side) and the state files (the helpers' side) both read the fabric index: each
    part names the same Once, so it is built once before the helpers fork."""
    from pathlib import Path

    from railfabric.emit.build import build_models
    from railfabric.outputs import Sources, artifact_parts
    from railfabric.pipeline import run

    res = run(Path(__file__).resolve().parents[1] / "inventory")
    models = build_models(res)
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    src = Sources(res.inventory, res.topology, res.plan, models.devices, res.report, res.summary(), models.digests)
    parts = {p.key: p for p in artifact_parts(src)}
    (index,) = parts["expected"].shares
    state = [p for k, p in parts.items() if k.startswith("state:") and k != "state:anta"]
    assert len(state) == len(models.devices) and all(p.shares == (index,) for p in state)
