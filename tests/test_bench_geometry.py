"""The bench's synthetic fabric generator (bench/bench_pipeline.py): sizes up to 131,072 GPUs without editing its
limits, and the same limits and pools at every size (so a fabric's address plan does not depend on its size)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from railfabric.pipeline import run

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from bench_pipeline import LIMITS, Geometry, fabric_yml, pods_yml, write_inventory


def test_131072_gpus() -> None:
    """131,072 GPUs / 128 per segment = 1,024 segments, 8 a pod = 128 pods; d = smallest power of two >= 128/2 = 64
    super-spines a plane, more than a spine's 32 uplink ports: 400G lanes, 64 / 64 = 1 lane to each.
    Switches: 1,024 x 8 rail + 128 x 16 spines + 16 x 64 super-spines = 8,192 + 2,048 + 1,024 = 11,264.
    Links: 16,384 hosts x 8 + 8,192 x 16 + 2,048 x 64 = 131,072 x 3 = 393,216."""
    geo = Geometry.for_gpus(131072)
    assert (geo.segments, geo.pods, geo.super_spines_per_plane) == (1024, 128, 64)
    assert (geo.core_speed, geo.spine_uplinks, geo.links_per_super_spine) == ("400G", 64, 1)
    assert geo.expected() == {"gpus": 131072, "hosts": 16384, "switches": 11264, "links": 393216,
                              "rail_switches": 8192, "spines": 2048, "super_spines": 1024}
    text = pods_yml(geo)
    assert text.count("super_spine_link_speed: 400G") == 128 and "ports_per_pod: 1 " in text


def test_65536_gpus_unchanged_geometry() -> None:
    """64 pods: d = 32 super-spines a plane, 32 / 32 = 1 800G port to each (as before the 131K sizes)."""
    geo = Geometry.for_gpus(65536)
    assert (geo.pods, geo.super_spines_per_plane, geo.core_speed, geo.links_per_super_spine) == (64, 32, "800G", 1)
    assert geo.expected()["switches"] == 5632 and geo.expected()["links"] == 163840


def test_beyond_the_limits_refused() -> None:
    with pytest.raises(ValueError, match="129 pods"):
        Geometry.for_gpus(131072 + 128)
    assert LIMITS["pods"] == 128


def test_limits_and_pools_do_not_depend_on_size() -> None:
    def policy(gpus: int) -> str:
        return fabric_yml(Geometry.for_gpus(gpus)).split("pools:", 1)[1]

    assert policy(1024) == policy(65536) == policy(131072)


def test_small_size_validates(tmp_path: Path) -> None:
    """1,024 GPUs under the 131K limits: no finding (the pools hold the limits: POOL001/002 would be errors)."""
    r = run(write_inventory(tmp_path / "inv", Geometry.for_gpus(1024)))
    assert [f.code for f in r.findings] == []
    assert r.topology is not None and len(r.topology.switches) == 96
