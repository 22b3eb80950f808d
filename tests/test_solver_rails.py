"""Rail mapping (NIC r on a rail-r switch of its own segment, in the rail's port block; dual-homed NICs on two
switches; one cable per port) and the port budget, with explicit `cabling:` entries as the field would write them."""

from __future__ import annotations

import shutil
from pathlib import Path

from railfabric.pipeline import run
from tests.helpers import EXAMPLE, base_inventory, run_data


def with_cabling(tmp_path: Path, text: str) -> Path:
    """The example plus the cables of `text` ("cabling:\n  - {...}\n"), after the example's own two re-cables of
    p1-s1-rail3's disabled port 8 (moved from devices.yml: a key lives in one file only)."""
    inv = tmp_path / "inv"
    shutil.copytree(EXAMPLE, inv)
    head, _, example_cables = (inv / "devices.yml").read_text().partition("\ncabling:\n")
    assert example_cables.count("- {host:") == 2
    (inv / "devices.yml").write_text(head + "\n")
    (inv / "cabling.yml").write_text(text + example_cables)
    return inv


def only(result, code: str):
    found = [f for f in result.findings if f.code == code]
    assert len(found) == 1, [(f.code, f.message) for f in result.findings]
    return found[0]


def test_miswired_nic3_on_the_rail4_switch(tmp_path: Path) -> None:
    inv = with_cabling(tmp_path, "cabling:\n  - {host: p1-s1-gpu003, nic: 3, switch: p1-s1-rail4, port: 12, lane: 1}\n")
    r = run(inv)
    f = only(r, "RAIL010")
    assert f.message == ("host p1-s1-gpu003 NIC 3 port 1 (rail 3) is cabled to p1-s1-rail4 port 12/1, which serves "
                         "rail(s) 4")
    assert f.hint == "NIC 3 belongs on p1-s1-rail3"
    assert f.location is not None and f.location.file.endswith("cabling.yml") and f.location.line == 2
    # pinned: this cable and the example's two re-cables of p1-s1-rail3 port 8 (disabled)
    assert r.report["rails"]["miswired"] == 1 and r.report["rails"]["pinned_cables"] == 3  # type: ignore[index]
    assert [f.code for f in r.findings if f.code.startswith("PORT") or f.code == "LOAD003"] == []


def test_cable_to_another_segment(tmp_path: Path) -> None:
    inv = with_cabling(tmp_path, "cabling:\n  - {host: p1-s1-gpu003, nic: 3, switch: p3-s1-rail3, port: 20, lane: 1}\n")
    f = only(run(inv), "RAIL011")
    assert "not of its own segment 1/1" in f.message and "pod 3 segment 1" in f.message


def test_cable_outside_the_rail_port_block(tmp_path: Path) -> None:
    # p1-s2-rail1-5 serves rail 1 on ports 1,4,7,...,22 (slot 0) and rail 5 on 2,5,8,...,23 (slot 1)
    cable = "{host: p1-s2-gpu001, nic: 1, switch: p1-s2-rail1-5, port: 3, lane: 1}"
    inv = with_cabling(tmp_path, f"cabling:\n  - {cable}\n")
    f = only(run(inv), "RAIL012")
    assert "outside the rail's port block (slot 0: ports 1, 4, 7, 10, 13, 16 …)" in f.message


def test_two_cables_on_one_port(tmp_path: Path) -> None:
    # host 1's rail-3 NIC moved onto port 1/2, where host 2 already is
    inv = with_cabling(tmp_path, "cabling:\n  - {host: p1-s1-gpu001, nic: 3, switch: p1-s1-rail3, port: 1, lane: 2}\n")
    f = only(run(inv), "PORT002")
    assert f.message == "switch p1-s1-rail3 port 1/2 carries 2 cables: p1-s1-gpu001:nic3p1, p1-s1-gpu002:nic3p1"


def test_unknown_host_or_switch_in_cabling(tmp_path: Path) -> None:
    inv = with_cabling(tmp_path, "cabling:\n  - {host: p1-s1-gpu099, nic: 3, switch: p1-s1-rail3, port: 30}\n"
                                 "  - {host: p1-s1-gpu001, nic: 3, switch: p1-s1-rail33, port: 30}\n")
    r = run(inv)
    msgs = sorted(f.message for f in r.findings if f.code == "REF004")
    assert msgs == ["cabling[0]: no host p1-s1-gpu099 nic3 port 1 in the fabric",
                    "cabling[1]: no switch named 'p1-s1-rail33'"]


def test_dual_homed_nic_on_one_switch(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["host_models"]["h2"]["ports_per_nic"] = 2
    inv["pods"][0]["segments"][0]["dual_homing"] = "mlag"
    inv["pods"][0]["spines"]["links_per_rail_switch"] = 1
    # port 2 of NIC 0 of host 1 moved from p1-s1-rail0b to p1-s1-rail0a (a free port)
    inv["cabling"] = [{"host": "p1-s1-gpu001", "nic": 0, "nic_port": 2, "switch": "p1-s1-rail0a", "port": 20}]
    f = only(run_data(tmp_path, inv), "RAIL013")
    assert f.message == ("both ports of NIC 0 of host p1-s1-gpu001 land on p1-s1-rail0a; a dual-homed NIC needs two "
                         "distinct switches")


def test_rail_map_and_port_budget_of_the_example() -> None:
    r = run(EXAMPLE)
    rails = r.report["rails"]  # type: ignore[index]
    assert rails["host_links"] == 448 and rails["miswired"] == 0
    seg = next(s for s in rails["segments"] if (s["pod"], s["segment"]) == (1, 2))
    assert seg["rails"]["1"] == ["p1-s2-rail1-5"] and seg["rails"]["5"] == ["p1-s2-rail1-5"]
    ports = r.report["ports"]  # type: ignore[index]
    # p1-s1-rail3: hosts on ports 1-7 and 9 (8 ports), port 8 disabled, uplinks 33-40 (8): 16 used, 47 free
    assert ports["switches"]["p1-s1-rail3"] == {"model": "sn5600", "ports": 64, "used": 16, "disabled": 1,
                                                "free": 47}
    # p1-s2 rail switches (7060x6-dual): 16 host ports + 16 uplinks each, 4 switches
    assert ports["models"]["7060x6-dual"] == {"switches": 4, "ports": 256, "used": 128, "disabled": 0, "free": 128}
