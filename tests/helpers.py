"""Shared test helpers: the example inventory path, a small valid inventory, and runners."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from railfabric.device import DeviceConfig, build_devices
from railfabric.pipeline import Result, run
from railfabric.plan.buffers import SN5600_BUFFERS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "inventory"

# Buffer facts of a Spectrum-4 SN5600 (inventory/hardware.yml cites the sources). Every test model of a SONiC
# switch needs them (BUF001): without them it cannot be made lossless.
SONIC_BUFFERS: dict[str, Any] = dict(SN5600_BUFFERS)
SONIC_BUFFERS_FLOW = yaml.safe_dump(SONIC_BUFFERS, default_flow_style=True, width=1000).strip()  # for YAML text

# A small 2-tier fabric: one pod, 2 spines, one single-rail segment of 4 hosts with 2 NICs each.
_BASE: dict[str, Any] = {
    "fabric": {"name": "mini", "platform": "sonic"},
    "pools": {
        "loopbacks": "10.0.0.0/16",
        "fabric_links": "10.32.0.0/11",
        "rail_subnets": "172.16.0.0/12",
        "management": {"prefix": "192.168.0.0/16"},
    },
    "limits": {"pods": 4, "segments_per_pod": 4, "rail_switches_per_segment": 8, "spines_per_pod": 8,
               "super_spines": 8, "uplinks_per_rail_switch": 16, "uplinks_per_spine": 16,
               "segment_rail_block": 21},
    # sw64's family is tomahawk-5 so the tests that move it to EOS have a queue form there (HW006); its buffer facts
    # are the Spectrum-4 ones the SONiC tests need (the two facts are not cross-checked)
    "switch_models": {"sw64": {"ports": 64, "speed": "800G", "breakouts": ["2x400G"], "buffers": SONIC_BUFFERS,
                               "asic": "tomahawk-5"}},
    "host_models": {"h2": {"gpus": 2, "nics": 2, "nic_speed": "400G"}},
    "pods": [{
        "id": 1,
        "spines": {"count": 2, "model": "sw64", "link_speed": "800G"},
        "segments": [{"id": 1, "rail_design": "single-rail", "rails": 2, "rail_switch_model": "sw64",
                      "host_groups": [{"model": "h2", "count": 4}]}],
    }],
}


def example_all_sonic(directory: Path) -> Path:
    """A copy of the example inventory with pod 1 segment 2 (EOS in the example) on SONiC, for tests of the SONiC
    renderer that cover every rail design (the dual-rail segment is the EOS one in the shipped example)."""
    import shutil

    shutil.copytree(EXAMPLE, directory)
    pods = directory / "pods.yml"
    text = pods.read_text(encoding="utf-8")
    line = ("        platform: eos                # Arista rail switches under SONiC spines: those links run at "
            "EOS's 9214\n")
    assert text.count(line) == 1, "the example's EOS segment moved: update tests/helpers.py"
    pods.write_text(text.replace(line, ""), encoding="utf-8")
    return directory


def base_inventory() -> dict[str, Any]:
    """A fresh deep copy of the small valid inventory (mutate freely)."""
    return copy.deepcopy(_BASE)


# The smallest `system:` an EOS switch needs (MGMT001/MGMT002/MGMT010): one admin account the push logs in as, its
# password hash kept in Ansible Vault. EOS configs are pushed as a full replace, so without it the push would delete
# its own account.
MINIMAL_SYSTEM: dict[str, Any] = {
    "users": {"netops": {"role": "network-admin", "password": {"vault": "netops_password_hash"}}},
    "push_user": "netops",
}


def with_system(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with the minimal `system:` block added (for inventories with EOS switches)."""
    data["system"] = copy.deepcopy(MINIMAL_SYSTEM)
    return data


def write_files(directory: Path, files: dict[str, str | bytes]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return directory


def dump(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False)


def run_data(tmp_path: Path, data: dict[str, Any], name: str = "fabric.yml") -> Result:
    """Write `data` as one YAML file in a fresh directory and run the validate pipeline on it."""
    d = tmp_path / "inv"
    write_files(d, {name: dump(data)})
    return run(d)


def devices_of(result: Result) -> dict[str, DeviceConfig]:
    """The device models of a run that reached a plan (its finding codes shown when it did not)."""
    assert result.inventory and result.topology and result.plan, codes(result)
    return build_devices(result.inventory, result.topology, result.plan)


def codes(result: Result) -> list[str]:
    return [f.code for f in result.findings]


def mlag_inventory(platform: str = "sonic", rails: int = 2, hosts: int = 4, **segment: Any) -> dict[str, Any]:
    """The small inventory with its segment dual-homed by MLAG: hosts with 2 NICs × 2 ports of 400G, so each rail
    has a pair of switches (p1-s1-rail<r>a / b) joined by a peer link (default: ports 31-32, the top of the
    downlinks 1-32 of the 64-port model), and each NIC is one LACP bond over both. `platform: eos` adds the
    smallest `system:` an EOS push needs."""
    data = with_system(base_inventory()) if platform == "eos" else base_inventory()
    data["host_models"]["h2d"] = {"gpus": 2, "nics": 2, "nic_speed": "400G", "ports_per_nic": 2}
    seg = data["pods"][0]["segments"][0]
    seg.update(rails=rails, dual_homing="mlag", host_groups=[{"model": "h2d", "count": hosts}], **segment)
    if platform == "eos":
        seg["platform"] = "eos"
    return data


# Cisco Nexus N9K-C9364E-SG2 as a `switch_models:` entry (NX-OS; railfabric/plan/sizing.py preset n9364e-sg2): 64 ×
# 800G, breakouts 2x400G and 4x200G. NX-OS carves its buffers itself, so no `buffers:` block is needed.
NEXUS_9364E_SG2: dict[str, Any] = {"ports": 64, "speed": "800G", "breakouts": ["2x400G", "4x200G"]}


def render_to(tmp: Path, data: dict[str, Any]) -> Path:
    """`fabric render` (in this process) of `data` written as tmp/inv/fabric.yml into tmp/gen; returns tmp/gen."""
    from railfabric.cli import main

    write_files(tmp / "inv", {"fabric.yml": dump(data)})
    assert main(["render", str(tmp / "inv"), "--out", str(tmp / "gen"), "-q"]) == 0
    return tmp / "gen"


def verify_lines(gen: Path, capsys: Any) -> tuple[int, list[str]]:
    """`fabric verify --no-frr` of a rendered tree: its exit code and the lines it printed (capsys: pytest's)."""
    from railfabric.cli import main

    code = main(["verify", str(gen), "--no-frr"])
    return code, capsys.readouterr().out.splitlines()
