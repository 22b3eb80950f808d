"""serdes_lanes defaults from the port speed and breakouts (issue 8 §3.5; the table and its IEEE sources are in
railfabric/core/units.py): 800G = 8 × 100G, 400G = 8 × 50G, 200G = 4 × 50G, 100G = 4 × 25G, 40G = 4 × 10G, 25G = 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from railfabric.emit.build import build_files
from railfabric.inventory.intent import SwitchModel
from tests.helpers import SONIC_BUFFERS, base_inventory, run_data


@pytest.mark.parametrize(("speed", "breakouts", "lanes"), [
    ("800G", ["2x400G", "4x200G", "8x100G"], 8), ("400G", [], 8), ("400G", ["4x100G"], 8), ("200G", [], 4),
    ("100G", [], 4), ("100G", ["4x25G"], 4), ("50G", [], 2), ("40G", ["4x10G"], 4), ("25G", [], 1), ("10G", [], 1),
    ("25G", ["2x12G"], 2),  # widened to a whole number of SerDes lanes per breakout lane (HW002 refuses it anyway)
])
def test_default_serdes_lanes(speed: str, breakouts: list[str], lanes: int) -> None:
    assert SwitchModel(ports=32, speed=speed, breakouts=breakouts).serdes_lanes == lanes


def test_an_explicit_value_wins() -> None:
    assert SwitchModel(ports=32, speed="400G", serdes_lanes=4).serdes_lanes == 4  # 400G on 100G SerDes (QSFP112)


def test_serdes_lanes_must_split_into_breakout_lanes(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["switch_models"]["sw64"]["breakouts"] = ["2x400G", "8x100G"]
    inv["switch_models"]["sw64"]["serdes_lanes"] = 4
    found = [(f.message, f.hint) for f in run_data(tmp_path, inv).findings if f.code == "HW003"]
    assert found == [("serdes_lanes 4 do not split into the 8 lanes of breakout 8x100G",
                      "use a multiple of 8, or leave serdes_lanes out to derive it from the speed")]


def test_a_100g_switch_renders_4_sonic_lanes_per_port(tmp_path: Path) -> None:
    # 32 × 100G QSFP28 switches, 100G NICs and links: port p is Ethernet(4·(p-1)) on lanes 4(p-1) .. 4(p-1)+3
    inv = base_inventory()
    inv["switch_models"] = {"s100": {"ports": 32, "speed": "100G", "buffers": SONIC_BUFFERS}}
    inv["host_models"]["h2"]["nic_speed"] = "100G"
    inv["pods"][0]["spines"].update({"model": "s100", "link_speed": "100G"})
    inv["pods"][0]["spines"]["count"] = 4  # 4 hosts × 100G down = 4 spines × 100G up
    inv["pods"][0]["segments"][0]["rail_switch_model"] = "s100"
    res = run_data(tmp_path, inv)
    assert not [f for f in res.findings if f.severity == "error"], [(f.code, f.message) for f in res.findings]
    db = json.loads(build_files(res)["configs/p1-s1-rail0/config_db.json"])
    port = db["PORT"]
    assert port["Ethernet0"]["lanes"] == "0,1,2,3"  # host 1 on port 1
    assert port["Ethernet4"]["lanes"] == "4,5,6,7"  # host 2 on port 2
    assert port["Ethernet64"]["lanes"] == "64,65,66,67"  # port 17: the first uplink (upper half 17-32)
    assert len(port) == 32 and "Ethernet124" in port and "Ethernet128" not in port
