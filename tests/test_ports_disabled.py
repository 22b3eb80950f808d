"""A disabled port takes its own link(s) off and moves nothing else (issue 8 §3.2).

base_inventory(): on p1-s1-rail0, host n's NIC 0 sits on port (n-1)//2+1, lane (n-1)%2+1 (2x400G breakout of the
800G ports 1-32); uplinks from port 33 by spine (spine 1 → 33, spine 2 → 34); spine j takes rail switch k on port k.
"""

from __future__ import annotations

from pathlib import Path

from railfabric.emit.build import build_files
from railfabric.pipeline import Result
from tests.helpers import base_inventory, run_data


def ports(res: Result) -> dict[str, tuple]:
    assert res.topology is not None
    return {link.id: (link.a.device, link.a.port, link.a.lane, link.z.device, link.z.port, link.z.lane)
            for link in res.topology.links}


def found(res: Result, code: str) -> list[tuple[str, str, str]]:
    return [(f.severity, f.message, f.hint) for f in res.findings if f.code == code]


def test_a_disabled_host_port_takes_its_hosts_off_and_moves_nobody(tmp_path: Path) -> None:
    before = ports(run_data(tmp_path / "a", base_inventory()))
    inv = base_inventory()
    inv["devices"] = {"p1-s1-rail0": {"disabled_ports": [1]}}  # hosts 1 and 2 (NIC 0) sit on port 1
    res = run_data(tmp_path / "b", inv)
    after = ports(res)
    gone = {"p1-s1-gpu001:nic0p1", "p1-s1-gpu002:nic0p1"}
    assert set(before) - set(after) == gone and set(after) <= set(before)
    assert {k: before[k] for k in after} == after  # host 3 stays on 2/1, host 4 on 2/2: nothing shifted
    assert after["p1-s1-gpu003:nic0p1"][3:] == ("p1-s1-rail0", 2, 1)
    # the hint offers free ports from the top of the host block (1-32) down, where growth arrives last
    assert found(res, "PORT005") == [
        ("warning", "host p1-s1-gpu001 NIC 0 port 1 (rail 0) has no switch port: its port p1-s1-rail0 1/1 is disabled",
         "re-cable it under `cabling:`, e.g. {host: p1-s1-gpu001, nic: 0, switch: p1-s1-rail0, port: 32, lane: 1} "
         "(a free port); no other host moved"),
        ("warning", "host p1-s1-gpu002 NIC 0 port 1 (rail 0) has no switch port: its port p1-s1-rail0 1/2 is disabled",
         "re-cable it under `cabling:`, e.g. {host: p1-s1-gpu002, nic: 0, switch: p1-s1-rail0, port: 32, lane: 2} "
         "(a free port); no other host moved")]
    f = next(f for f in res.findings if f.code == "PORT005")
    assert f.location is not None and f.location.line == 58  # the disabled_ports list (line 57 is its key)


def test_recabling_puts_the_hosts_back_and_renders(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["devices"] = {"p1-s1-rail0": {"disabled_ports": [1]}}
    inv["cabling"] = [{"host": "p1-s1-gpu001", "nic": 0, "switch": "p1-s1-rail0", "port": 32, "lane": 1},
                      {"host": "p1-s1-gpu002", "nic": 0, "switch": "p1-s1-rail0", "port": 32, "lane": 2}]
    res = run_data(tmp_path, inv)
    assert res.findings == [] or all(f.severity != "error" and f.code != "PORT005" for f in res.findings)
    after = ports(res)
    assert after["p1-s1-gpu001:nic0p1"][3:] == ("p1-s1-rail0", 32, 1)
    assert after["p1-s1-gpu002:nic0p1"][3:] == ("p1-s1-rail0", 32, 2)
    assert res.plan is not None and res.plan.host_addr["p1-s1-gpu001:nic0p1"] == 0xAC100000 + 2  # 172.16.0.2
    # the link keeps its place in the link order (as if generated there)
    assert [lk.id for lk in res.topology.links][:2] == ["p1-s1-gpu001:nic0p1", "p1-s1-gpu001:nic1p1"]  # type: ignore
    files = build_files(res)
    assert b"p1-s1-gpu001:nic0p1,host,0,p1-s1-gpu001,nic0p1,nic0,,p1-s1-rail0,32/1," in files["cabling.csv"]


def test_a_disabled_uplink_port_takes_that_uplink_off_only(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["devices"] = {"p1-s1-rail0": {"disabled_ports": [33]}, "p1-spine2": {"disabled_ports": [2]}}
    res = run_data(tmp_path, inv)
    after = ports(res)
    assert "p1-s1-rail0>p1-spine1#1" not in after  # rail0 port 33 is spine 1's
    assert "p1-s1-rail1>p1-spine2#1" not in after  # spine 2 port 2 is rail switch 2's
    assert after["p1-s1-rail0>p1-spine2#1"] == ("p1-s1-rail0", 34, 0, "p1-spine2", 1, 0)  # not shifted to 33
    assert after["p1-s1-rail1>p1-spine1#1"] == ("p1-s1-rail1", 33, 0, "p1-spine1", 2, 0)
    assert [m for _s, m, _h in found(res, "PORT005")] == [
        "fabric link p1-s1-rail0>p1-spine1#1 is left out: its port p1-s1-rail0 33 is disabled (800G less fabric "
        "capacity)",
        "fabric link p1-s1-rail1>p1-spine2#1 is left out: its port p1-spine2 2 is disabled (800G less fabric "
        "capacity)"]
    # the capacity verdict follows: 4 × 400G down, 800G up on each rail switch now
    assert {f.code for f in res.findings if f.severity == "error"} == {"CAP001"}
