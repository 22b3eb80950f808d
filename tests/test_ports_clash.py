"""Port clashes compare physical ports, lanes and breakout modes, whatever the link kind (issue 8 §3.1).

base_inventory(): sw64 = 64 × 800G, breakout 2x400G; 2 spines at 800G; segment 1 single-rail, 2 rails, 4 hosts of
2 × 400G NICs. So on p1-s1-rail0: host n's NIC 0 on port (n-1)//2+1 lane (n-1)%2+1 (host 4 → 2/2), uplinks on the
top half from 33 by spine (spine 1 → port 33 native, spine 2 → 34); spines take rail switch k on port k.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from railfabric.cli import main
from railfabric.emit.build import build_files
from tests.helpers import base_inventory, dump, run_data, write_files


def cable(host: int, switch: str, port: int, lane: int, nic: int = 0) -> dict[str, Any]:
    return {"host": f"p1-s1-gpu{host:03d}", "nic": nic, "switch": switch, "port": port, "lane": lane}


def messages(res, code: str) -> list[str]:
    return [f.message for f in res.findings if f.code == code]


def test_host_on_a_lane_of_a_native_uplink_port_is_a_clash(tmp_path: Path) -> None:
    """The issue's case: it validated clean, then `fabric render` died with KeyError in outputs/cabling.py."""
    inv = base_inventory()
    inv["cabling"] = [cable(4, "p1-s1-rail0", 33, 1)]
    res = run_data(tmp_path, inv)
    assert messages(res, "PORT002") == [
        "switch p1-s1-rail0 port 33 carries a native cable (p1-s1-rail0>p1-spine1#1) and breakout lane(s) 33/1 "
        "(p1-s1-gpu004:nic0p1): a native port takes one cable"]
    f = next(f for f in res.findings if f.code == "PORT002")
    assert f.location is not None and f.location.file.endswith("fabric.yml")  # the cabling entry
    d = write_files(tmp_path / "cli", {"fabric.yml": dump(inv)})
    assert main(["render", str(d), "--out", str(tmp_path / "out")]) == 1  # refused with the finding, no traceback
    assert not (tmp_path / "out").exists()


def test_host_on_a_spine_downlink_port_clashes_there_too(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["cabling"] = [cable(4, "p1-spine1", 1, 1)]
    res = run_data(tmp_path, inv)
    assert ("switch p1-spine1 port 1 carries a native cable (p1-s1-rail0>p1-spine1#1) and breakout lane(s) 1/1 "
            "(p1-s1-gpu004:nic0p1): a native port takes one cable") in messages(res, "PORT002")
    assert messages(res, "RAIL011")  # and it is on the wrong tier altogether


def test_two_different_lanes_of_one_port_do_not_clash_and_render(tmp_path: Path) -> None:
    # hosts 3 and 4 swap onto the two lanes of the free port 3: distinct lanes of one 2x400G port
    inv = base_inventory()
    inv["cabling"] = [cable(3, "p1-s1-rail0", 3, 2), cable(4, "p1-s1-rail0", 3, 1)]
    res = run_data(tmp_path, inv)
    assert not [f for f in res.findings if f.severity == "error"], [(f.code, f.message) for f in res.findings]
    files = build_files(res)
    rows = files["cabling.csv"].decode().splitlines()
    assert any(r.startswith("p1-s1-gpu003:nic0p1,host,0,") and ",p1-s1-rail0,3/2," in r for r in rows)
    assert any(r.startswith("p1-s1-gpu004:nic0p1,host,0,") and ",p1-s1-rail0,3/1," in r for r in rows)


def test_equal_lanes_clash(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["cabling"] = [cable(4, "p1-s1-rail0", 1, 2)]  # host 2 is on 1/2
    assert messages(run_data(tmp_path, inv), "PORT002") == [
        "switch p1-s1-rail0 port 1/2 carries 2 cables: p1-s1-gpu002:nic0p1, p1-s1-gpu004:nic0p1"]


def test_two_breakout_modes_on_one_port_clash(tmp_path: Path) -> None:
    # one spine at 200G: the rail switch's uplink is lane 1 of port 33 broken out 4x200G; host 4 (400G, so
    # 2x400G) is cabled on lane 2 of the same port
    inv = base_inventory()
    inv["switch_models"]["sw64"]["breakouts"] = ["2x400G", "4x200G"]
    inv["pods"][0]["spines"].update({"count": 1, "link_speed": "200G"})
    inv["solver"] = {"oversubscription": {"rail": 64}}
    inv["cabling"] = [cable(4, "p1-s1-rail0", 33, 2)]
    assert messages(run_data(tmp_path, inv), "PORT002") == [
        "switch p1-s1-rail0 port 33 is cabled at 2 breakout modes (2x400G: p1-s1-gpu004:nic0p1; 4x200G: "
        "p1-s1-rail0>p1-spine1#1); one port runs one mode"]


def test_cable_on_a_disabled_port(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["devices"] = {"p1-s1-rail0": {"disabled_ports": [5]}}
    inv["cabling"] = [cable(4, "p1-s1-rail0", 5, 1)]
    res = run_data(tmp_path, inv)
    assert messages(res, "PORT007") == ["p1-s1-gpu004:nic0p1 is cabled to p1-s1-rail0 port 5/1, a disabled port"]


def test_lane_the_port_mode_does_not_have(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["cabling"] = [cable(4, "p1-s1-rail0", 5, 0), cable(3, "p1-s1-rail0", 6, 3)]
    res = run_data(tmp_path, inv)
    assert sorted(messages(res, "PORT006")) == [
        "p1-s1-gpu003:nic0p1 is cabled to p1-s1-rail0 port 6/3 at 400G, a 2x400G breakout: lane 3 does not exist",
        "p1-s1-gpu004:nic0p1 is cabled to p1-s1-rail0 port 5 at 400G, a 2x400G breakout: the lane is missing"]
    hints = {f.hint for f in res.findings if f.code == "PORT006"}
    assert hints == {"model 'sw64' runs 400G as 2x400G: lane 1 to 2"}
