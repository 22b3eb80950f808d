"""PORT001 says the real limit of the block that is full, from the model's port map (issue 8 §3.4): a spine under
super-spines has the ports outside its uplink block (port_blocks.uplinks, default the upper half) for downlinks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers import SONIC_BUFFERS, base_inventory, run_data


def three_tier(links_per_rail_switch: int, spine_blocks: dict | None) -> dict[str, Any]:
    """base_inventory() under 2 super-spines. Rail switches use model 'leaf' (uplinks 5-64: 60 ports; hosts on
    1-4, 4 hosts × 2 lanes fit), so their 2 spines × N uplinks always fit; each spine needs 2 rail switches × N
    downlinks, and sends 2 super-spines × 4 links = 8 up."""
    inv = base_inventory()
    inv["switch_models"]["leaf"] = {"ports": 64, "speed": "800G", "breakouts": ["2x400G"],
                                    "port_blocks": {"uplinks": "5-64"}, "buffers": SONIC_BUFFERS}
    inv["switch_models"]["sp"] = {"ports": 64, "speed": "800G", "breakouts": ["2x400G"], "buffers": SONIC_BUFFERS}
    if spine_blocks:
        inv["switch_models"]["sp"]["port_blocks"] = spine_blocks
    inv["super_spines"] = {"count": 2, "model": "sw64"}
    inv["pods"][0]["spines"].update({"model": "sp", "links_per_rail_switch": links_per_rail_switch,
                                     "links_per_super_spine": 4})
    inv["pods"][0]["segments"][0]["rail_switch_model"] = "leaf"
    inv["solver"] = {"oversubscription": {"rail": 64, "spine": 64}}
    inv["limits"]["uplinks_per_rail_switch"] = 64
    return inv


def port001(tmp_path: Path, inv: dict[str, Any]) -> list[str]:
    return [f.message for f in run_data(tmp_path, inv).findings if f.code == "PORT001"]


def test_spine_downlinks_use_every_port_outside_the_uplink_block(tmp_path: Path) -> None:
    # 2 × 17 = 34 downlinks: more than the lower half (32), within ports 1-56 outside the uplinks 57-64
    res = run_data(tmp_path, three_tier(17, {"uplinks": "57-64"}))
    assert not [f for f in res.findings if f.severity == "error"], [(f.code, f.message) for f in res.findings]
    assert res.topology is not None
    down = sorted(lk.z.port for lk in res.topology.links if lk.z.device == "p1-spine1")
    up = sorted(lk.a.port for lk in res.topology.links if lk.a.device == "p1-spine1")
    assert down == list(range(1, 35)) and up == list(range(57, 65))


def test_port001_names_the_downlink_block_of_the_port_map(tmp_path: Path) -> None:
    # 2 × 29 = 58 downlinks on 56 ports
    assert port001(tmp_path, three_tier(29, {"uplinks": "57-64"})) == [
        f"spine switch p1-spine{i}: 2 link(s) do not fit its downlink ports: model 'sp' has 56 (ports 1-56; 57-64 "
        "are uplinks) and 58 are needed (2 more port(s) needed)" for i in (1, 2)]


def test_port001_names_the_default_halves(tmp_path: Path) -> None:
    # no port map: uplinks 33-64, downlinks 1-32; 2 × 17 = 34 downlinks
    assert port001(tmp_path, three_tier(17, None)) == [
        f"spine switch p1-spine{i}: 2 link(s) do not fit its downlink ports: model 'sp' has 32 (ports 1-32; 33-64 "
        "are uplinks) and 34 are needed (2 more port(s) needed)" for i in (1, 2)]


def test_port001_for_host_ports(tmp_path: Path) -> None:
    # hosts on the lower half: 32 ports × 2 lanes; 70 hosts need 35 ports
    inv = base_inventory()
    inv["pods"][0]["segments"][0]["host_groups"][0]["count"] = 70
    assert port001(tmp_path, inv)[0] == (
        "rail switch p1-s1-rail0: 6 link(s) do not fit its host ports: model 'sw64' has 32 (ports 1-32; 33-64 are "
        "uplinks) and 35 are needed (3 more port(s) needed)")
