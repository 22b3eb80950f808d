"""The rollout order and waves (railfabric/outputs/rollout.py), derived by hand from the example fabric.

Example (inventory/): pod 1 = segment 1 with 8 single-rail switches p1-s1-rail0..7 and segment 2 with 4 dual-rail
switches p1-s2-rail0-4 .. rail3-7, 4 spines; pod 2 = one segment of 2 multi-rail switches, 4 spines; pod 3 = one
rail-only segment of 8 switches p3-s1-rail0..7 (no spine); 4 super-spines core-ss1, ss2, ss3, ss4 without planes
(each meets every spine of pods 1 and 2).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from railfabric.device import build_devices
from railfabric.outputs.rollout import conflicts, neighbours, rollout_plan
from railfabric.pipeline import run
from tests.helpers import EXAMPLE, base_inventory, run_data


@pytest.fixture(scope="module")
def devices():
    res = run(EXAMPLE)
    return build_devices(res.inventory, res.topology, res.plan)


def test_example_waves(devices) -> None:
    plan = rollout_plan(devices)
    # wave 1: the canary alone. Rail switches: the k-th switch of every segment goes in wave k+1 (one rail switch
    # of a segment per wave; pod 1 segment 1 starts at its 2nd switch, the 1st was the canary). Segment sizes
    # 8 / 4 / 2 / 8 → rail waves 2..9 hold 4, 4, 3, 3, 2, 2, 2, 1 switches.
    assert plan.waves[:9] == (
        ("p1-s1-rail0",),
        ("p1-s1-rail1", "p1-s2-rail0-4", "p2-s1-rail0-1-2-3", "p3-s1-rail0"),
        ("p1-s1-rail2", "p1-s2-rail1-5", "p2-s1-rail4-5-6-7", "p3-s1-rail1"),
        ("p1-s1-rail3", "p1-s2-rail2-6", "p3-s1-rail2"),
        ("p1-s1-rail4", "p1-s2-rail3-7", "p3-s1-rail3"),
        ("p1-s1-rail5", "p3-s1-rail4"),
        ("p1-s1-rail6", "p3-s1-rail5"),
        ("p1-s1-rail7", "p3-s1-rail6"),
        ("p3-s1-rail7",),
    )
    # spines: one per pod per wave (pods 1 and 2 are not cabled to each other) → 4 waves of 2
    assert plan.waves[9:13] == tuple((f"p1-spine{i}", f"p2-spine{i}") for i in range(1, 5))
    # super-spines: no planes, so every two share all 8 spines → one per wave
    assert plan.waves[13:] == (("core-ss1",), ("ss2",), ("ss3",), ("ss4",))
    assert plan.sizes == [1, 4, 4, 3, 3, 2, 2, 2, 1, 2, 2, 2, 2, 1, 1, 1, 1] and sum(plan.sizes) == 34
    assert plan.order[:3] == ("p1-s1-rail0", "p1-s1-rail1", "p1-s2-rail0-4")


def test_no_wave_holds_two_conflicting_switches(devices) -> None:
    plan = rollout_plan(devices)
    near = neighbours(devices)
    for wave in plan.waves:
        for i, a in enumerate(wave):
            for b in wave[i + 1:]:
                assert not conflicts(devices[a], devices[b], near), (a, b)


def test_conflict_reasons(devices) -> None:
    near = neighbours(devices)
    d = devices
    assert conflicts(d["p1-s1-rail0"], d["p1-spine1"], near) == "cabled to each other"
    assert conflicts(d["p1-s1-rail0"], d["p1-s1-rail1"], near) == "rail switches of one segment"
    assert conflicts(d["p1-s1-rail0"], d["p1-s2-rail0-4"], near) == ""  # other segment, rail 0 too
    assert conflicts(d["p1-spine1"], d["p1-spine2"], near) == "spines of one pod"
    assert conflicts(d["p1-spine1"], d["p2-spine1"], near) == ""
    assert conflicts(d["core-ss1"], d["ss2"], near) == "super-spines of one plane"
    assert near["p1-s1-rail0"] == {"p1-spine1", "p1-spine2", "p1-spine3", "p1-spine4"}


def test_same_rail_group_of_a_segment(tmp_path: Path) -> None:
    """The brief's minimum rule: two switches serving the same rail of one segment. The schema has no two such
    switches today (one switch per rail group), so the second is a copy of p1-s1-rail0 under another name."""
    import dataclasses

    res = run_data(tmp_path, base_inventory())
    devs = build_devices(res.inventory, res.topology, res.plan)
    a = devs["p1-s1-rail0"]
    twin = dataclasses.replace(a, hostname="p1-s1-rail0b", interfaces=())
    near = {**neighbours(devs), "p1-s1-rail0b": set()}
    assert conflicts(a, twin, near) == "same rail group of a segment"
    assert conflicts(twin, devs["p1-s1-rail1"], near) == "rail switches of one segment"


def test_planes_split_super_spines(tmp_path: Path) -> None:
    """With 4 planes, super-spine plane i meets only spine i of each pod: the 4 super-spines share no spine, so
    they go in one wave (after the spines' 4 waves)."""
    import shutil

    inv = tmp_path / "inv"
    shutil.copytree(EXAMPLE, inv)
    pods = inv / "pods.yml"
    pods.write_text(pods.read_text().replace("  # planes: 4  ", "  planes: 4    "))
    res = run(inv)
    assert res.topology is not None and res.plan is not None  # CAP001 (planes cut the uplinks) is not our concern
    devs = build_devices(res.inventory, res.topology, res.plan)
    near = neighbours(devs)
    assert near["core-ss1"] == {"p1-spine1", "p2-spine1"}
    plan = rollout_plan(devs)
    assert plan.waves[-1] == ("core-ss1", "ss2", "ss3", "ss4")
    assert plan.waves[-5:-1] == tuple((f"p1-spine{i}", f"p2-spine{i}") for i in range(1, 5))


def test_mini_fabric_order(tmp_path: Path) -> None:
    """tests.helpers' mini fabric (the FRR rollout test's): 2 single-rail switches of one segment, 2 spines, all
    rail switches cabled to both spines → strictly one switch per wave: rail0, rail1, spine1, spine2."""
    res = run_data(tmp_path, base_inventory())
    plan = rollout_plan(build_devices(res.inventory, res.topology, res.plan))
    assert plan.waves == (("p1-s1-rail0",), ("p1-s1-rail1",), ("p1-spine1",), ("p1-spine2",))


def test_inventory_and_plan_files(tmp_path: Path) -> None:
    from railfabric.outputs.ansible import ansible_files

    res = run_data(tmp_path, base_inventory())
    files = ansible_files(build_devices(res.inventory, res.topology, res.plan))
    inv = yaml.safe_load(files["ansible/inventory.yml"])["all"]["children"]
    assert list(inv["rollout"]["hosts"]) == ["p1-s1-rail0", "p1-s1-rail1", "p1-spine1", "p1-spine2"]
    assert [list(inv[f"rollout_wave_{i}"]["hosts"]) for i in range(1, 5)] == \
        [["p1-s1-rail0"], ["p1-s1-rail1"], ["p1-spine1"], ["p1-spine2"]]
    assert yaml.safe_load(files["ansible/rollout_plan.yml"]) == {"rollout_wave_sizes": [1, 1, 1, 1]}
    assert yaml.safe_load(files["ansible/host_vars/p1-spine2.yml"])["rollout_wave"] == 4
    # the playbook files are copied verbatim from templates/ansible/
    from railfabric.configs.render import TEMPLATES

    assert files["ansible/deploy.yml"] == (TEMPLATES / "ansible" / "deploy.yml").read_text()
    assert files["ansible/tasks/sonic.yml"] == (TEMPLATES / "sonic" / "ansible" / "tasks" / "sonic.yml").read_text()
    assert "class FilterModule" in files["ansible/filter_plugins/railfabric.py"]
    # each platform's plugin copied verbatim, named as the shared plugin looks it up (railfabric_<platform>.py)
    from railfabric.configs.eos import ansible_plugin as eos_ansible

    assert files["ansible/filter_plugins/railfabric_eos.py"] == Path(eos_ansible.__file__).read_text()
