"""Non-blocking capacity (CAP001): the worked example from the field and an oversubscribed example variant."""

from __future__ import annotations

import shutil
from pathlib import Path

from railfabric.pipeline import run
from tests.helpers import EXAMPLE, SONIC_BUFFERS, run_data


def worked_example(spines: int = 4, link_speed: str = "800G", links: int = 1, super_spines: int | None = None,
                   rails: int = 1) -> dict:
    """A rail switch with 32 × 100G down (3.2 Tb/s) and `spines` × `links` × `link_speed` up."""
    inv = {
        "fabric": {"name": "worked"},
        "pools": {"loopbacks": "10.0.0.0/16", "fabric_links": "10.32.0.0/11", "rail_subnets": "172.16.0.0/12",
                  "management": {"prefix": "192.168.0.0/16"}},
        "switch_models": {"sw": {"ports": 64, "speed": "800G", "breakouts": ["2x400G", "8x100G"],
                                 "buffers": SONIC_BUFFERS}},
        "host_models": {"h": {"gpus": rails, "nics": rails, "nic_speed": "100G"}},
        "pods": [{"id": 1,
                  "spines": {"count": spines, "model": "sw", "link_speed": link_speed, "links_per_rail_switch": links},
                  "segments": [{"id": 1, "rail_design": "single-rail", "rails": rails, "rail_switch_model": "sw",
                                "host_groups": [{"model": "h", "count": 32}]}]}],
    }
    if super_spines:
        inv["super_spines"] = {"count": super_spines, "model": "sw"}
    return inv


def caps(result) -> list:
    return [f for f in result.findings if f.code == "CAP001"]


def test_32x100g_needs_3_2t_up_4x800g_is_enough(tmp_path: Path) -> None:
    r = run_data(tmp_path, worked_example())
    assert r.findings == []
    row = r.report["capacity"]["switches"]["p1-s1-rail0"]  # type: ignore[index]
    assert (row["down_gbps"], row["up_gbps"], row["ratio"]) == (3200, 3200, 1.0)


def test_4_spines_x_2_x_400g_is_enough_too(tmp_path: Path) -> None:
    r = run_data(tmp_path, worked_example(link_speed="400G", links=2))
    assert r.findings == []
    assert r.report["capacity"]["tiers"]["rail"]["up_gbps"] == 4 * 2 * 400  # type: ignore[index]


def test_two_spines_are_2_to_1(tmp_path: Path) -> None:
    r = run_data(tmp_path, worked_example(spines=2))
    (f,) = caps(r)
    assert f.message == ("rail switch p1-s1-rail0: 3,200 Gbps down vs 1,600 Gbps up = 2.00:1, above the allowed "
                         "1:1 for the rail tier")
    assert f.hint.startswith("it needs 1,600 Gbps more up: 2 more 800G uplink(s) (links_per_spine (or "
                             "links_per_rail_switch) 1 → 2 on each of 2 spines)")
    assert f.location is not None and f.location.file.endswith("fabric.yml")


def test_slower_links_suggest_the_faster_speed(tmp_path: Path) -> None:
    r = run_data(tmp_path, worked_example(link_speed="400G", links=1))  # 4 × 400G = 1.6T
    (f,) = caps(r)
    assert "2.00:1" in f.message and "or its 4 uplinks at 800G" in f.hint


def test_declared_allowance_accepts_the_ratio(tmp_path: Path) -> None:
    inv = worked_example(spines=2)
    inv["solver"] = {"oversubscription": {"rail": 2.0}}
    r = run_data(tmp_path, inv)
    assert caps(r) == []
    assert r.report["capacity"]["tiers"]["rail"]["ratio"] == 2.0  # type: ignore[index]


def test_spine_aggregating_3_2t_needs_3_2t_to_super_spines(tmp_path: Path) -> None:
    # 4 rails → 4 rail switches, each 1 × 800G to every spine: a spine aggregates 4 × 800G = 3.2T
    ok = run_data(tmp_path / "a", worked_example(rails=4, super_spines=4))
    assert ok.findings == []
    spine = ok.report["capacity"]["switches"]["p1-spine1"]  # type: ignore[index]
    assert (spine["down_gbps"], spine["up_gbps"]) == (3200, 3200)
    bad = run_data(tmp_path / "b", worked_example(rails=4, super_spines=2))
    (f,) = caps(bad)
    assert f.message.startswith("4 spine switches (p1-spine1 … p1-spine4): 3,200 Gbps down vs 1,600 Gbps up = 2.00:1")
    assert "links_per_super_spine 1 → 2 on each of 2 super-spines" in f.hint


def test_oversubscribed_variant_of_the_example(tmp_path: Path) -> None:
    inv = tmp_path / "inv"
    shutil.copytree(EXAMPLE, inv)
    pods = inv / "pods.yml"
    pods.write_text(pods.read_text().replace("links_per_rail_switch: 2       # default", "links_per_rail_switch: 1  #"))
    r = run(inv)
    (f,) = caps(r)
    # p1-s1: 16 hosts × 400G = 6,400 down; 4 spines × 1 × 800G = 3,200 up
    assert f.message.startswith("8 rail switches (p1-s1-rail0 … p1-s1-rail7): 6,400 Gbps down vs 3,200 Gbps up = "
                                "2.00:1")
    assert f.location is not None and f.location.file.endswith("pods.yml")
    line = pods.read_text().splitlines()[f.location.line - 1]
    assert "rail_design: single-rail" in line or "id: 1" in line
    assert "4 more 800G uplink(s)" in f.hint and "1 → 2 on each of 4 spines" in f.hint


def test_example_tiers(tmp_path: Path) -> None:
    r = run(EXAMPLE)
    tiers = r.report["capacity"]["tiers"]  # type: ignore[index]
    # rail tier (pods 1 and 2): p1-s1 8 × 6.4T, p1-s2 4 × 12.8T, p2-s1 2 × 25.6T = 153.6T down, the same up
    assert (tiers["rail"]["switches"], tiers["rail"]["down_gbps"], tiers["rail"]["up_gbps"]) == (14, 153600, 153600)
    assert (tiers["spine"]["switches"], tiers["spine"]["down_gbps"], tiers["spine"]["ratio"]) == (8, 153600, 1.0)
