"""The `fabric` command, in-process through railfabric.cli.main and once as a real subprocess.

Numbers for the shipped example (inventory/) were counted by hand from its YAML:
- switches: 4 super-spines; pod 1: 4 spines, segment 1 single-rail 8 rails → 8 rail switches, segment 2 dual-rail
  8 rails → 4; pod 2: 4 spines, multi-rail 8 rails at 4 per switch → 2; pod 3 (rail-only): 8. Total 34
  (super-spine 4, spine 8, rail 22).
- hosts: 16 + (8 + 8) + 16 + 8 = 56 HGX H100 with 8 GPUs each → 448 GPUs; one host link per NIC → 448 links.
- fabric links: pod 1 8×4×2 + 4×4×4 = 128, pod 2 2×4×8 = 64 → 192; core: pod 1 4 spines × 4 super-spines × 8 = 128,
  pod 2 4 × 4 × 4 = 64 → 192.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from railfabric import __version__
from railfabric.cli import main
from tests.helpers import EXAMPLE, ROOT, base_inventory, dump, write_files

SEGMENT = "{id: 1, rail_design: single-rail, rails: 2, rail_switch_model: sw64, host_groups: [{model: h2, count: 4}]}"


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _typo_inventory(root: Path) -> None:
    base = base_inventory()
    del base["fabric"]
    # "  host_mu: 9000" is line 3; the key starts at column 3
    write_files(root / "inv", {"base.yml": dump(base), "fabric.yml": "fabric:\n  name: mini\n  host_mu: 9000\n"})


def _duplicate_pod_inventory(root: Path) -> None:
    base = base_inventory()
    del base["pods"]
    # the second "  - id: 1" is line 4; "  - id: " is 8 characters, so the value is column 9 (the first at 2:9)
    pods = f"pods:\n  - id: 1\n    segments: [{SEGMENT}]\n  - id: 1\n    segments: [{SEGMENT}]\n"
    write_files(root / "inv", {"base.yml": dump(base), "pods.yml": pods})


def _syntax_error_inventory(root: Path) -> None:
    # line 3 "  platform: sonic: eos": the second ':' is column 18
    write_files(root / "inv", {"a.yml": "fabric:\n  name: mini\n  platform: sonic: eos\n"})


# --------------------------------------------------------------------------- validate: the example


def test_validate_example_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "0 error(s), 0 warning(s), 0 info"
    assert out[1] == "fabric atlas: 3 pod(s), 4 segment(s)"
    assert out[2] == "  switches       34  (super-spine 4, spine 8, rail 22)"
    assert out[3] == "  hosts          56  (448 GPUs)"
    assert out[4] == "  links         832  (core 192, fabric 192, host 448)"
    assert out[5].split()[:3] == ["pool", "loopbacks", "10.0.0.0/20"]


def test_validate_default_inventory_is_dot_inventory(capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["validate", "-q"]) == 0
    assert capsys.readouterr().out == ""  # quiet and clean: nothing to say


def test_validate_example_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(EXAMPLE), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["exit_code"] == 0
    assert doc["findings"] == []
    assert doc["counts"] == {"error": 0, "warning": 0, "info": 0}
    s = doc["summary"]
    assert s["fabric"] == "atlas"
    assert s["switches_total"] == 34
    assert s["switches"] == {"super-spine": 4, "spine": 8, "rail": 22}
    assert s["pods"] == 3
    assert s["segments"] == 4
    assert s["hosts"] == 56
    assert s["gpus"] == 448
    assert s["links"] == {"core": 192, "fabric": 192, "host": 448}
    assert s["links_total"] == 832
    # one /32 loopback per switch; one management address per switch except p1-s1-rail3, pinned in devices.yml
    assert s["pools"]["loopbacks"]["prefix"] == "10.0.0.0/20"
    assert s["pools"]["loopbacks"]["size"] == 4096
    assert s["pools"]["loopbacks"]["used"] == 34
    assert s["pools"]["management"]["used"] == 33


def test_validate_verbose_reports_progress_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(EXAMPLE), "-q", "-v"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "checked up to stage 'done'" in captured.err


# --------------------------------------------------------------------------- validate: broken inventories


def test_validate_text_on_a_schema_error(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _typo_inventory(in_tmp)
    assert main(["validate", "inv"]) == 1
    assert capsys.readouterr().out == (
        "inv/fabric.yml:3:3: error SCH001: unknown key 'host_mu' in fabric\n"
        "    hint: did you mean 'host_mtu'?\n"
        "1 error(s), 0 warning(s), 0 info\n"
        "note: not checked: intent rules, topology, allocation, solver checks (the inventory does not validate "
        "outside any pod, segment, host group, device override, model, super_spines or system)\n"
    )


def test_validate_sarif_on_a_broken_inventory(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _typo_inventory(in_tmp)
    assert main(["validate", "inv", "--format", "sarif"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    assert run["tool"]["driver"]["name"] == "railfabric"
    assert run["tool"]["driver"]["version"] == __version__
    assert [r["ruleId"] for r in run["results"]] == ["SCH001"]
    assert run["results"][0]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "inv/fabric.yml"}, "region": {"startLine": 3, "startColumn": 3}}
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["SCH001"]


def test_validate_github_on_a_broken_inventory(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _typo_inventory(in_tmp)
    assert main(["validate", "inv", "--format", "github"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "::error file=inv/fabric.yml,line=3,col=3,title=SCH001::unknown key 'host_mu' in fabric"
        "%0Ahint: did you mean 'host_mtu'?",
    ]


def test_validate_json_on_a_broken_inventory_has_no_summary(in_tmp: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    _typo_inventory(in_tmp)
    assert main(["validate", "inv", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["exit_code"] == 1
    assert "summary" not in doc
    assert [(f["code"], f["file"], f["line"], f["column"]) for f in doc["findings"]] == [
        ("SCH001", "inv/fabric.yml", 3, 3)]


def test_semantic_error_exits_1(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _duplicate_pod_inventory(in_tmp)
    assert main(["validate", "inv"]) == 1
    assert capsys.readouterr().out == (  # the second pod is left out (SKIP001) and the rest checked
        "inv/pods.yml:4:5: info SKIP001: checks of pods[1] (pod 1) skipped: ID001 pod id 1 is used twice; every "
        "other item was checked (intent rules, topology, allocation, solver)\n"
        "    hint: fix the errors above and run again for this item's own checks; nothing is rendered while any "
        "error remains\n"
        "inv/pods.yml:4:9: error ID001: pod id 1 is used twice\n"
        "    see also inv/pods.yml:2:9\n"
        "    hint: give every pod its own id; ids decide every address of the pod\n"
        "1 error(s), 0 warning(s), 1 info\n"
    )


def test_yaml_syntax_error_exits_2(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _syntax_error_inventory(in_tmp)
    assert main(["validate", "inv"]) == 2
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("inv/a.yml:3:18: error LOAD001: YAML syntax error")


def test_yaml_syntax_error_as_github_annotation(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _syntax_error_inventory(in_tmp)
    assert main(["validate", "inv", "--format", "github"]) == 2
    out = capsys.readouterr().out
    assert out.startswith("::error file=inv/a.yml,line=3,col=18,title=LOAD001::YAML syntax error")
    assert out.count("\n") == 1  # the hint is joined with %0A, not a real newline


def test_missing_inventory_exits_2(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "does-not-exist"]) == 2
    assert capsys.readouterr().out.startswith("does-not-exist: error LOAD008: ")


# --------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    "argv",
    [["bogus"], ["validate", "--nope"], ["validate", "--format", "xml"], ["show"], ["--frobnicate"]],
    ids=["unknown-command", "unknown-option", "bad-format", "missing-argument", "unknown-global-option"],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage: fabric" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["-5", "0", "-0.0", "nan", "inf", "-inf", "86401", "1e309", "soon"])
def test_lab_refuses_a_timeout_it_cannot_wait(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 28: `fabric lab --timeout -5` was accepted and reported a healthy fabric as failed. Refused by the
    parser: exit 2 before anything is built (no root needed)."""
    with pytest.raises(SystemExit) as exc:
        main(["lab", f"--timeout={value}"])  # one word: argparse would read "-inf" as an option
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument --timeout:" in err
    assert ("not a number of seconds" if value == "soon" else "must be more than 0 and at most 86,400 seconds") in err


def test_lab_accepts_a_positive_timeout() -> None:
    from railfabric.cli.parser import build_parser

    assert build_parser().parse_args(["lab", "--timeout", "0.5"]).timeout == 0.5
    assert build_parser().parse_args(["lab", "--timeout", "86400"]).timeout == 86400.0
    assert build_parser().parse_args(["lab"]).timeout == 90.0


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: fabric" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--help"], ["validate", "--help"]], ids=["top", "validate"])
def test_help_mentions_exit_codes(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "exit codes:" in out
    assert "0  clean (warnings allowed)" in out
    assert "1  errors found" in out
    assert "2  unusable input or usage" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"railfabric {__version__}"


# --------------------------------------------------------------------------- schema


def test_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    props = set(schema["properties"])
    assert {"fabric", "pools", "pods", "switch_models", "host_models", "devices"} <= props
    assert props == {"fabric", "routing", "qos", "pools", "limits", "solver", "switch_models", "host_models",
                     "super_spines", "pods", "devices", "cabling", "system", "raw", "infiniband"}
    # the fields without defaults (pools: required of an Ethernet fabric by the model's validator, SCH002; an
    # InfiniBand fabric has none)
    assert set(schema["required"]) == {"fabric", "switch_models", "host_models", "pods"}
    # unknown keys are forbidden: at the top and in every nested model
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["FabricSettings"]["additionalProperties"] is False
    assert schema["$defs"]["Segment"]["additionalProperties"] is False
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


# --------------------------------------------------------------------------- explain


def test_explain_a_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "POOL002"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "POOL002 (pool-exhausted): Address pool too small"
    assert "Grow the pool" in out


def test_explain_is_case_insensitive(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "load001"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "LOAD001 (yaml-syntax): YAML syntax error"


def test_explain_unknown_code_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "NOPE"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "unknown code 'NOPE'" in captured.err


def test_explain_lists_all_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "LOAD001  YAML syntax error" in lines
    assert "POOL002  Address pool too small" in lines
    assert "SEC001   String contains a newline or control character" in lines


# --------------------------------------------------------------------------- show


def test_show_a_rail_switch(capsys: pytest.CaptureFixture[str]) -> None:
    # p1-s1-rail3: pod 1, segment 1, index 4 (rail 3). Loopback slot = 16 super-spine slots + 8 pods × 16 spine
    # slots + (pod 0, segment 0) × 16 + 3 = 147; ASN = rail_switch_base + rail-tier slot 3; VLAN 100 + 3; the
    # segment's /21 block starts at 172.16.0.0 and single-rail switch 4 owns the 4th /24. Management is pinned.
    assert main(["show", "p1-s1-rail3", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "p1-s1-rail3  role=rail pod=1 segment=1 rack=DH1-R07 index=4 model=sn5600 platform=sonic"
    assert "  loopback   10.0.0.147/32" in lines
    assert "  router-id  10.0.0.147" in lines  # the loopback address: nothing pins it
    assert "  management 192.168.15.3/20  (pinned: devices.p1-s1-rail3)" in lines
    assert "  asn        4200100003" in lines
    assert "  rail 3     vlan 103  subnet 172.16.3.0/24  gateway 172.16.3.1" in lines
    assert "10.0.0.147/32" in out and "4200100003" in out and "vlan 103" in out and "172.16.3.0/24" in out
    # port 8 is disabled (bad cage): hosts 15 and 16 land on the lanes of port 9 instead
    assert re.search(r"^  port 9/1\s+host\s+p1-s1-gpu015:1\s", out, re.M)
    assert re.search(r"^  port 9/2\s+host\s+p1-s1-gpu016:1\s", out, re.M)
    assert not re.search(r"^  port 8/", out, re.M)
    # 4 spines × 2 links_per_rail_switch = 8 uplinks on the top half, from port 33
    assert len(re.findall(r"^  port \d+\s+fabric ", out, re.M)) == 8
    assert re.search(r"^  port 33\s+fabric p1-spine1:", out, re.M)


def test_show_by_pattern_name_of_a_renamed_switch(capsys: pytest.CaptureFixture[str]) -> None:
    # devices.yml renames ss1 to core-ss1; it is super-spine slot 0 with the shared super-spine ASN
    assert main(["show", "ss1", str(EXAMPLE)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("core-ss1  role=super-spine ")
    assert "  loopback   10.0.0.0/32" in lines
    assert "  asn        4200000000" in lines


def test_show_unknown_device_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "nosuchdevice", str(EXAMPLE)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no switch or host named 'nosuchdevice'" in captured.err


def test_show_misspelt_device_suggests(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "p1-s1-rial3", str(EXAMPLE)]) == 2
    err = capsys.readouterr().err
    assert "no switch or host named 'p1-s1-rial3'; did you mean " in err
    assert "p1-s1-rail3" in err


def test_show_on_a_broken_inventory_prints_findings(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _syntax_error_inventory(in_tmp)
    assert main(["show", "p1-s1-rail0", "inv"]) == 2
    assert capsys.readouterr().out.startswith("inv/a.yml:3:18: error LOAD001: ")


def test_show_on_a_schema_error_exits_1(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _typo_inventory(in_tmp)
    assert main(["show", "p1-s1-rail0", "inv"]) == 1
    assert "SCH001" in capsys.readouterr().out


# --------------------------------------------------------------------------- a real process


def test_subprocess_validate_example() -> None:
    proc = subprocess.run([sys.executable, "-m", "railfabric.cli", "validate", "inventory", "--format", "json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["summary"]["switches_total"] == 34
    assert doc["summary"]["hosts"] == 56
    assert doc["summary"]["gpus"] == 448
    assert doc["exit_code"] == 0


def test_subprocess_exit_code_2_on_a_syntax_error(tmp_path: Path) -> None:
    _syntax_error_inventory(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "railfabric.cli", "validate", "inv", "--format", "github"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2
    assert proc.stdout.startswith("::error file=inv/a.yml,line=3,col=18,title=LOAD001::")


def test_report_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    # rail tier: 14 rail switches with uplinks, 153.6T each way (see tests/test_solver_capacity.py)
    assert "rail       14 switches       153,600 Gbps down       153,600 Gbps up    1.00:1" in out
    assert "cross-pod  5 switch(es)    4,330 ns" in out
    assert "448 NICs of 56 hosts lose their rail" in out
    assert main(["report", str(EXAMPLE), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"capacity", "ports", "rails", "failures", "reachability", "bisection", "latency"}
