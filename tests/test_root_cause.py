"""Root cause first (railfabric.core.causes) and isolation of an unknown key: every count below is derived by hand from
the shipped example (inventory/), edited on a copy."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.core.causes import fold
from railfabric.core.finding import Cause, Finding, Severity, exit_code
from railfabric.core.source_map import Location
from railfabric.pipeline import Result, run
from tests.helpers import EXAMPLE


def edited(tmp_path: Path, *edits: tuple[str, str, str]) -> Path:
    """A copy of the example with (file, old, new) replacements, each `old` found exactly once."""
    d = tmp_path / "inv"
    shutil.copytree(EXAMPLE, d)
    for name, old, new in edits:
        p = d / name
        text = p.read_text()
        assert text.count(old) == 1, (name, old)
        p.write_text(text.replace(old, new))
    return d


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def shown(res: Result) -> list[Finding]:
    return [f for f in res.findings if f.caused_by is None]


NIC_4000G = ("hardware.yml", "nic_speed: 400G", "nic_speed: 4000G")

# The one host model hgx-h100 at 4000G (4T): neither rail switch model runs 4T in any mode (sn5600: 800G, 2x400G,
# 4x200G, 8x100G; 7060x6-dual: 800G, 2x400G), so each host port takes a whole switch port. Host ports: pod 1
# segment 1 16 hosts × 8 NICs = 128, segment 2 16 × 8 = 128, pod 2 16 × 8 = 128, pod 3 8 × 8 = 64: 448.
# - PORT005 ×1 (warning): p1-s1-rail3 port 8 is disabled and now carries host 8's NIC 3 (was hosts 15-16 at 2x400G).
# - PORT006 ×447: every other host port is cabled at 4T, which no mode runs: 448 - 1 (the cables of hosts 15 and 16
#   on rail 3 are the two explicit `cabling:` entries, still at 4T).
# - RAIL012 ×64: segment 1/2's dual-rail switches have 8 ports per rail slot; hosts 1-8 fill them and hosts 9-16
#   (8 hosts × 8 NICs) land past the blocks.
# - PORT002 ×33: there both slots' hosts 9-16 land on the same ports 65-72: 8 ports × 4 switches = 32; and on
#   p1-s1-rail3 port 9 host 9's native cable meets the two pinned lanes 9/1, 9/2: 1.
# - PORT001 ×6: segment 1/2's 4 switches need 32 host ports of 16; pod 2's 2 multi-rail switches 4 × 16 = 64 of 32.
# - HW001 ×4: one per segment (4 segments) for host links at 4T.
# - CAP001 ×4: rail switches with uplinks at 16 × 4T down vs 6.4T/12.8T/25.6T up: segment 1/1 in two groups (7
#   switches at 64,000 down; p1-s1-rail3 with 15 hosts at 60,000), segment 1/2 (one group), pod 2 (one group).
#   Pod 3 has no spines, hence no uplinks to compare.
# - BUF003 ×1: one (model, speed) pair without a pause-quanta figure, sn5600 at 4T (7060x6-dual runs EOS: no SONiC
#   buffer tables).
# - BIS001 ×1 (warning): pod 1 against pod 2, whose hosts now send ten times what the spines carry.
CAUSED_4000G = {"PORT006": 447, "RAIL012": 64, "PORT002": 33, "PORT001": 6, "CAP001": 4, "HW001": 4, "BIS001": 1,
                "BUF003": 1, "PORT005": 1}


def test_nic_speed_typo_is_one_root_first_with_every_derived_finding_folded(tmp_path: Path) -> None:
    d = edited(tmp_path, NIC_4000G)
    res = run(d)
    root = res.findings[0]
    assert root.code == "HOST005" and root.severity is Severity.ERROR
    assert root.location == Location(str(d / "hardware.yml"), line_of(d / "hardware.yml", "nic_speed"), 16)
    assert dict(root.causes) == CAUSED_4000G
    assert root.caused() == sum(CAUSED_4000G.values()) == 561
    assert len(res.findings) == 1 + 561
    assert all(f.caused_by == Cause("HOST005", root.location) for f in res.findings[1:])
    assert shown(res) == [root]
    assert exit_code(res.findings) == 1  # folded errors are still errors


def test_text_folds_and_all_unfolds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = edited(tmp_path, NIC_4000G)
    assert main(["validate", "-q", str(d)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{d / 'hardware.yml'}:55:16: error HOST005: host model 'hgx-h100': its NICs run at "
                               "4T, a speed no rail switch model it is cabled to runs")
    assert lines[2] == ("    + 561 findings caused by this (PORT006 ×447, RAIL012 ×64, PORT002 ×33, PORT001 ×6, "
                        "CAP001 ×4, HW001 ×4, …); `fabric validate --all` lists them")
    # 559 derived errors + the root; the 2 warnings (PORT005, BIS001) are folded too
    assert lines[3:] == ["560 error(s), 2 warning(s), 0 info (561 of them folded under their cause)"]
    assert main(["validate", "-q", "--all", str(d)]) == 1
    unfolded = capsys.readouterr().out.splitlines()
    # every folded finding gets its line, indented under the root
    assert sum(1 for line in unfolded if line.startswith(f"    {d}")) == 561


def test_json_and_sarif_carry_the_links(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = edited(tmp_path, NIC_4000G)
    assert main(["validate", "--format", "json", str(d)]) == 1
    doc = json.loads(capsys.readouterr().out)
    first, rest = doc["findings"][0], doc["findings"][1:]
    assert first["code"] == "HOST005" and first["causes"] == {"count": 561, "codes": CAUSED_4000G}
    link = {"code": "HOST005", "file": str(d / "hardware.yml"), "line": 55, "column": 16}
    assert len(rest) == 561 and all(f["caused_by"] == link for f in rest)
    assert Counter(f["code"] for f in rest) == CAUSED_4000G
    assert doc["exit_code"] == 1 and doc["counts"] == {"error": 559 + 1, "warning": 2, "info": 0}
    assert main(["validate", "--format", "sarif", str(d)]) == 1
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert results[0]["properties"]["causes"]["count"] == 561
    assert all(r["properties"]["caused_by"] == link for r in results[1:])
    assert results[1]["relatedLocations"][-1]["message"]["text"] == "caused by HOST005"


def test_a_good_example_has_no_links(tmp_path: Path) -> None:
    res = run(edited(tmp_path))
    assert all(f.caused_by is None and not f.causes for f in res.findings)


# --------------------------------------------------------------------------- other roots


def test_host_model_nics_fold_the_segments_rail001(tmp_path: Path) -> None:
    # nics: 4 with a 4-entry gpu_to_nic: each of the 4 segments has 8 rails → RAIL001 ×4 under HOST006 at nics
    d = edited(tmp_path, ("hardware.yml", "    nics: 8", "    nics: 4\n    gpu_to_nic: [0, 0, 1, 1, 2, 2, 3, 3]"))
    res = run(d)
    root = res.findings[0]
    assert (root.code, root.location.line) == ("HOST006", line_of(d / "hardware.yml", "nics: 4"))  # type: ignore
    assert dict(root.causes) == {"RAIL001": 4}
    assert [f.code for f in shown(res)] == ["HOST006"]


def test_host_model_ports_per_nic_folds_topo004(tmp_path: Path) -> None:
    # ports_per_nic: 2 and none of the 4 segments has dual_homing → TOPO004 ×4 under HOST006
    d = edited(tmp_path, ("hardware.yml", "ports_per_nic: 1", "ports_per_nic: 2"))
    res = run(d)
    assert [(f.code, f.caused()) for f in shown(res)] == [("HOST006", 4)]


def test_switch_model_ports_typo_is_one_root(tmp_path: Path) -> None:
    # sn5600 with 32 ports: the super-spines, pod 1's spines and pod 2's rail switches (3 objects) overflow
    d = edited(tmp_path, ("hardware.yml", "    ports: 64\n    speed: 800G\n    breakouts: [2x400G, 4x200G, 8x100G]",
                          "    ports: 32\n    speed: 800G\n    breakouts: [2x400G, 4x200G, 8x100G]"))
    res = run(d)
    root = res.findings[0]
    assert (root.code, root.location.line) == ("HW004", 6)  # type: ignore[union-attr]
    assert {f.code for f in res.findings[1:]} <= {"PORT001", "PORT002"}
    assert [f.code for f in shown(res)] == ["HW004"]


def test_switch_model_speed_typo_folds_under_its_breakouts(tmp_path: Path) -> None:
    # speed 8000G: each of sn5600's 3 breakouts (2x400G, 4x200G, 8x100G) is 800G, not 8T → HW002 ×3 at the model;
    # everything cabled to an sn5600 (HW001, PORT006) is folded under the first one
    d = edited(tmp_path, ("hardware.yml", "    speed: 800G\n    breakouts: [2x400G, 4x200G, 8x100G]",
                          "    speed: 8000G\n    breakouts: [2x400G, 4x200G, 8x100G]"))
    res = run(d)
    assert [f.code for f in shown(res)] == ["HW002", "HW002", "HW002"]
    assert set(dict(shown(res)[0].causes)) == {"HW001", "PORT006"}


def test_pool_too_small_folds_the_pinned_address(tmp_path: Path) -> None:
    # management /27 (192.168.0.0-31): p1-s1-rail3's pinned 192.168.15.3 is outside it (POOL003), under POOL002
    d = edited(tmp_path, ("fabric.yml", "prefix: 192.168.0.0/20", "prefix: 192.168.0.0/27"))
    res = run(d)
    assert [(f.code, dict(f.causes)) for f in shown(res)] == [("POOL002", {"POOL003": 1})]


# --------------------------------------------------------------------------- an unknown key anywhere is isolated


POD2_LINKS = "      links_per_rail_switch: 8"


def test_unknown_key_on_a_pod_leaves_the_other_pods_checked(tmp_path: Path) -> None:
    # pod 1 gets an unknown key; pod 2 (a deliberate second error) 4 links per spine instead of 8: each of its 2
    # multi-rail switches has 4 rails × 16 hosts × 400G = 25,600 down vs 4 spines × 4 × 800G = 12,800 up (2:1)
    d = edited(tmp_path, ("pods.yml", "  - id: 1\n    spines:", "  - id: 1\n    colour: red\n    spines:"),
               ("pods.yml", POD2_LINKS, "      links_per_rail_switch: 4"))
    res = run(d)
    pods = d / "pods.yml"
    sch = res.findings[0]
    assert (sch.code, sch.message, sch.location.line) == (  # type: ignore[union-attr]
        "SCH001", "unknown key 'colour' in pods[0]", line_of(pods, "colour"))
    # pod 1's device override (p1-s1-rail3) and its two cables name what pod 1 would have made: folded under it
    assert dict(sch.causes) == {"REF003": 1, "REF004": 2}
    rest = [f for f in shown(res) if f is not sch]
    assert [f.code for f in rest] == ["SKIP001", "CAP001"]
    assert rest[0].message.startswith("checks of pods[0] (pod 1) skipped: it does not validate")
    assert rest[1].message.startswith("2 rail switches (p2-s1-rail0-1-2-3 … p2-s1-rail4-5-6-7): 25,600 Gbps down vs "
                                      "12,800 Gbps up = 2.00:1")
    assert res.pruned == ["pods[0] (pod 1)"] and res.stage_reached == "done"


def test_unknown_key_on_the_super_spines_leaves_the_rail_only_pod_checked(tmp_path: Path) -> None:
    # the super-spines are left out, and with them pods 1 and 2 (their spines uplink there); pod 3 (rail-only) is
    # checked: its deliberate error, rail_prefix_len 29 (8 addresses - network, gateway, broadcast = 5 hosts < 8)
    d = edited(tmp_path, ("pods.yml", "  count: 4\n  model: sn5600", "  count: 4\n  colour: red\n  model: sn5600"),
               ("pods.yml", "        rail_prefix_len: 24\n        rail_switch_model: sn5600\n        host_groups:\n"
                "          - {model: hgx-h100, count: 8}",
                "        rail_prefix_len: 29\n        rail_switch_model: sn5600\n        host_groups:\n"
                "          - {model: hgx-h100, count: 8}"))
    res = run(d)
    sch = res.findings[0]
    assert (sch.code, sch.message) == ("SCH001", "unknown key 'colour' in super_spines")
    # devices.yml names p1-s1-rail3 and ss1, cabling two hosts of pod 1: all made by what is left out
    assert dict(sch.causes) == {"REF003": 2, "REF004": 2}
    skips = sorted(f.message.split(" skipped")[0] for f in shown(res) if f.code == "SKIP001")
    assert skips == ["checks of pods[0] (pod 1)", "checks of pods[1] (pod 2)", "checks of super_spines"]
    (pool,) = [f for f in shown(res) if f.code == "POOL006"]
    assert pool.message.startswith("segment 3/1: host number 8 does not fit a /29 rail subnet (gateway + 5 hosts)")


def test_unknown_key_in_system_leaves_the_fabric_checked(tmp_path: Path) -> None:
    # system is left out: the EOS switches of segment 1/2 then have no local user (MGMT001), folded under the
    # schema error; pod 2's 2:1 (the deliberate second error) is still found, and so is what follows from it:
    # BIS001, pod 1's 16 × 8 × 400G = 51,200 host Gbps reach pod 2 over its 2 switches × 4 spines × 4 × 800G =
    # 25,600 Gbps of rail uplinks
    d = edited(tmp_path, ("system.yml", "  push_user: netops", "  push_user: netops\n  colour: red"),
               ("pods.yml", POD2_LINKS, "      links_per_rail_switch: 4"))
    res = run(d)
    sch = res.findings[0]
    assert (sch.code, dict(sch.causes)) == ("SCH001", {"MGMT001": 1})
    assert sorted(f.code for f in shown(res)[1:]) == ["BIS001", "CAP001", "SKIP001"]


def test_unparseable_speed_on_spines_is_the_root_of_its_pods_references(tmp_path: Path) -> None:
    # pod 1's spines link_speed 80OG does not parse: pod 1 is left out (SKIP001), the device override and cables
    # that name its switches and hosts are folded under the SCH003, and pods 2 and 3 are checked (clean)
    d = edited(tmp_path, ("pods.yml", "      link_speed: 800G\n      links_per_rail_switch: 2",
                          "      link_speed: 80OG\n      links_per_rail_switch: 2"))
    res = run(d)
    assert [(f.code, dict(f.causes)) for f in shown(res)] == [("SCH003", {"REF003": 1, "REF004": 2}),
                                                              ("SKIP001", {})]


# --------------------------------------------------------------------------- the mechanism


def _f(code: str, line: int, subject: tuple = (), uses: tuple = (), sev: Severity = Severity.ERROR) -> Finding:
    return Finding(code, f"{code} at {line}", Location("x.yml", line, 1), severity=sev, subject=subject, uses=uses)


def test_fold_follows_chains_and_cuts_loops() -> None:
    a = _f("HOST005", 1, subject=("h",))
    b = _f("HW001", 2, subject=("s",), uses=(("h",),))  # a root that is itself caused by a
    c = _f("PORT006", 3, uses=(("s",),))  # caused by b, so by a
    w = _f("BIS001", 4, uses=(("h",),), sev=Severity.WARNING)
    lone = _f("CAP001", 0)
    out = fold([lone, a, b, c, w])
    assert [f.code for f in out] == ["HOST005", "HW001", "PORT006", "BIS001", "CAP001"]
    assert dict(out[0].causes) == {"HW001": 1, "PORT006": 1, "BIS001": 1}
    assert {f.caused_by for f in out[1:4]} == {Cause("HOST005", a.location)}
    assert fold(out) == out and [f.caused_by for f in fold(out)] == [f.caused_by for f in out]  # idempotent
    x = _f("A", 1, subject=("x",), uses=(("y",),))
    y = _f("B", 2, subject=("y",), uses=(("x",),))
    looped = fold([x, y])  # a loop is cut at its first finding, which stays the root
    assert [(f.code, f.caused_by) for f in looped] == [("A", None), ("B", Cause("A", x.location))]


def test_a_warning_is_never_a_root_and_a_definition_beats_a_derived_error() -> None:
    warn = _f("TOPO002", 1, subject=("s",), sev=Severity.WARNING)
    derived = _f("PORT001", 2, subject=("s",), uses=(("s",),))  # faults s but also uses it
    own = _f("HW001", 3, subject=("s",))
    out = fold([warn, derived, own])
    assert [(f.code, f.caused_by and f.caused_by.code) for f in out] == [
        ("HW001", None), ("PORT001", "HW001"), ("TOPO002", None)]
