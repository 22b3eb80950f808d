"""All findings at once: an item that fails the schema or refers to an unknown model is left out (SKIP001), and
every later check still runs on the rest; a pruned run never renders."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

from railfabric.cli import main
from railfabric.core.finding import Severity, has_errors
from railfabric.pipeline import run
from tests.helpers import EXAMPLE, base_inventory, run_data

POD3 = """        rail_switch_model: sn5600
        host_groups:
          - {model: hgx-h100, count: 8}"""
POD1_LINKS = "      links_per_rail_switch: 2       # default"


def example_with(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    d = tmp_path / "inv"
    shutil.copytree(EXAMPLE, d)
    p = d / "pods.yml"
    text = p.read_text()
    for old, new in edits:
        assert text.count(old) == 1
        text = text.replace(old, new)
    p.write_text(text)
    return d


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_schema_error_in_pod_3_and_cap001_in_pod_1_are_both_reported(tmp_path: Path) -> None:
    # pod 3: an unknown key in its only segment; pod 1: 1 link per spine instead of 2, so segment 1's rail switches
    # have 16 × 400G = 6,400 down vs 4 × 800G = 3,200 up (2:1)
    d = example_with(tmp_path, (POD3, POD3.replace("host_groups:", "bogus: 1\n        host_groups:")),
                     (POD1_LINKS, POD1_LINKS.replace("2", "1", 1)))
    res = run(d)
    pods = d / "pods.yml"
    by_code = {f.code: f for f in res.findings}
    assert sorted(by_code) == ["CAP001", "SCH001", "SKIP001"]
    assert by_code["SCH001"].message == "unknown key 'bogus' in pods[2].segments[0]"
    assert by_code["SCH001"].location.line == line_of(pods, "bogus")  # type: ignore[union-attr]
    assert by_code["CAP001"].message.startswith("8 rail switches (p1-s1-rail0 … p1-s1-rail7): 6,400 Gbps down vs "
                                                "3,200 Gbps up = 2.00:1")
    skip = by_code["SKIP001"]
    assert skip.severity is Severity.INFO
    assert skip.message.startswith("checks of pods[2] (pod 3) skipped: every one of its segments is left out "
                                   "(segments[0]: it does not validate (1 schema error, listed here))")
    assert skip.location.line == line_of(pods, "- id: 3")  # type: ignore[union-attr]
    assert (res.stage_reached, res.pruned) == ("done", ["pods[2] (pod 3)"])
    assert "p3-s1-rail0" not in res.topology.switches  # type: ignore[union-attr]


def test_a_pruned_run_never_renders(tmp_path: Path) -> None:
    d = example_with(tmp_path, (POD3, POD3.replace("host_groups:", "bogus: 1\n        host_groups:")))
    res = run(d)
    assert res.plan is not None and has_errors(res.findings)  # checked as far as possible, but an error remains
    out = tmp_path / "out"
    assert main(["render", str(d), "--out", str(out)]) == 1
    assert not out.exists()


def test_unknown_model_prunes_its_segment_and_the_rest_is_checked(tmp_path: Path) -> None:
    # pod 1 segment 2 names a switch model that does not exist (REF001); pod 1 segment 1 is 2:1 (CAP001)
    d = example_with(tmp_path, ("        rail_switch_model: 7060x6-dual", "        rail_switch_model: 7060x6-duel"),
                     (POD1_LINKS, POD1_LINKS.replace("2", "1", 1)))
    res = run(d)
    codes = sorted(f.code for f in res.findings)
    # BIS001: with segment 1 at 2:1, pod 1's 16 hosts × 8 × 400G = 51,200 reach pod 2 over 8 × 4 × 800 = 25,600
    assert codes == ["BIS001", "CAP001", "REF001", "SKIP001"]
    (skip,) = [f for f in res.findings if f.code == "SKIP001"]
    assert skip.message.startswith("checks of pods[0].segments[1] (segment 1/2) skipped: REF001 switch model "
                                   "'7060x6-duel' is not defined in switch_models")
    assert not any(n.startswith("p1-s2-") for n in res.topology.switches)  # type: ignore[union-attr]
    assert "p1-s1-rail0" in res.topology.switches  # type: ignore[union-attr]


def test_locations_after_pruning_point_at_the_inventory(tmp_path: Path) -> None:
    # pod 1 fails the schema, so pod 2 is pods[0] of what is checked: its CAP001 must still point at pods[1]
    inv = base_inventory()
    pod2 = copy.deepcopy(inv["pods"][0])
    pod2["id"] = 2
    pod2["spines"]["count"] = 1  # 1 × 800G up vs 4 × 400G down: 2:1
    inv["pods"].append(pod2)
    inv["pods"][0]["spines"]["colour"] = "red"
    r = run_data(tmp_path, inv)
    (cap,) = [f for f in r.findings if f.code == "CAP001"]
    assert cap.location == r.loaded.source.loc(("pods", 1, "segments", 0))
    assert cap.location != r.loaded.source.loc(("pods", 0, "segments", 0))
    assert "2 rail switches (p2-s1-rail0 … p2-s1-rail1)" in cap.message
    assert r.pruned == ["pods[0] (pod 1)"]


def test_broken_switch_model_prunes_what_uses_it_without_false_ref001(tmp_path: Path) -> None:
    # a second model with a schema error, used by a second segment: the segment is left out, said once, no REF001
    inv = base_inventory()
    inv["switch_models"]["sw32"] = {"ports": 32, "speed": "fast"}
    seg2 = copy.deepcopy(inv["pods"][0]["segments"][0])
    seg2.update(id=2, rail_switch_model="sw32")
    inv["pods"][0]["segments"].append(seg2)
    r = run_data(tmp_path, inv)
    codes = sorted(f.code for f in r.findings)
    assert "REF001" not in codes and codes[0] == "SCH003"
    skips = {f.message.split(" skipped")[0]: f.message for f in r.findings if f.code == "SKIP001"}
    assert set(skips) == {"checks of switch_models.sw32", "checks of pods[0].segments[1] (segment 1/2)"}
    assert "it uses switch model 'sw32', which is left out" in skips["checks of pods[0].segments[1] (segment 1/2)"]
    assert r.stage_reached == "done"


def test_only_host_group_with_unknown_model_takes_its_segment(tmp_path: Path) -> None:
    inv = base_inventory()
    seg2 = copy.deepcopy(inv["pods"][0]["segments"][0])
    seg2["id"] = 2
    seg2["host_groups"][0]["model"] = "h3"
    inv["pods"][0]["segments"].append(seg2)
    r = run_data(tmp_path, inv)
    assert {f.code for f in r.findings} >= {"REF002", "SKIP001"}
    assert r.pruned == ["pods[0].segments[1] (segment 1/2)"]


def test_an_error_outside_any_item_still_stops_and_says_what_was_skipped(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["fabric"]["name"] = "not a label!"
    inv["pods"][0]["segments"][0]["rails"] = "two"
    r = run_data(tmp_path, inv)
    assert r.inventory is None and r.topology is None
    assert sorted(f.code for f in r.findings) == ["SCH003", "SCH003"]
    assert r.skipped == ("not checked: intent rules, topology, allocation, solver checks (the inventory does not "
                         "validate outside any pod, segment, host group, device override, model, super_spines or "
                         "system)")


def test_a_clean_inventory_prunes_nothing(tmp_path: Path) -> None:
    r = run_data(tmp_path, base_inventory())
    assert (r.findings, r.pruned, r.skipped) == ([], [], "")
