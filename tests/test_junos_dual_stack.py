"""Dual-stack loopbacks and rail subnets on Junos (routing.address_families: [ipv4, ipv6]), rendered over unnumbered
(auto-discovered) sessions only: railfabric/platforms/junos.py has the forms and their sources.

The fabric is tests.helpers' mini fabric on Junos with routing.addressing: unnumbered (tests/test_unnumbered_junos.py
derives its ports and groups). The IPv6 plan, as tests/test_eos_dual_stack.py derives it: the loopback /128 is
pools.loopbacks_v6 (2001:db8::/64) + the IPv4 slot (rail0: slot 40 = 0x28 → 2001:db8::28, spine1: 2001:db8::8);
segment (1, 1)'s first /56 of pools.rail_subnets_v6 (2001:db8:100::/48), /64 number i for its i-th rail subnet,
gateway ::1: rail0's VLAN 100 → 2001:db8:100::1/64.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import base_inventory, codes, render_to, run_data, verify_lines, with_system
from tests.test_ipv6 import dual


def _junos_dual(data: dict[str, Any], unnumbered: bool = True) -> dict[str, Any]:
    data["fabric"]["platform"] = "junos"
    if unnumbered:
        data.setdefault("routing", {})["addressing"] = "unnumbered"
        del data["pools"]["fabric_links"]
    return dual(with_system(data))


def _conf(gen: Path, name: str) -> str:
    return (gen / "configs" / name / "junos.conf").read_text(encoding="utf-8")


@pytest.fixture()
def rendered(tmp_path: Path) -> Path:
    return render_to(tmp_path, _junos_dual(base_inventory()))


def test_numbered_junos_is_refused_with_the_reason(tmp_path: Path) -> None:
    res = run_data(tmp_path, _junos_dual(base_inventory(), unnumbered=False))
    (f,) = [f for f in res.findings if f.code == "PLAT047"]
    assert "junos renders dual-stack over unnumbered sessions only" in f.message
    assert "IPv4-mapped next hop" in f.message


def test_unnumbered_junos_renders(tmp_path: Path) -> None:
    res = run_data(tmp_path, _junos_dual(base_inventory()))
    assert "PLAT047" not in codes(res) and res.plan is not None and res.plan.v6 is not None, codes(res)


def test_rail_switch_lines(rendered: Path) -> None:
    text = _conf(rendered, "p1-s1-rail0")
    assert ("        unit 100 {\n"
            "            description \"RAIL0 172.16.0.0/24\";\n"
            "            family inet {\n"
            "                mtu 9202;\n"
            "                address 172.16.0.1/24;\n"
            "            }\n"
            "            family inet6 {\n"
            "                address 2001:db8:100::1/64;\n"
            "            }\n"
            "        }\n") in text
    assert ("    lo0 {\n"
            "        unit 0 {\n"
            "            family inet {\n"
            "                address 10.0.0.40/32;\n"
            "            }\n"
            "            family inet6 {\n"
            "                address 2001:db8::28/128;\n"
            "            }\n") in text
    assert ("    prefix-list PL6-LOOPBACK-RAILS {\n"
            "        2001:db8::28/128;\n"
            "        2001:db8:100::/64;\n"
            "    }\n") in text
    assert ("        term connected-v6 {\n"
            "            from {\n"
            "                protocol direct;\n"
            "                prefix-list PL6-LOOPBACK-RAILS;\n"
            "            }\n"
            "            then accept;\n"
            "        }\n"
            "        term other-direct {\n") in text
    # the unnumbered group carries the IPv6 family already (auto-discovered peering); one rail per switch: no summary
    assert "            family inet6 {\n                unicast;\n            }\n" in text
    assert "rib inet6.0" not in text and "term summary-" not in text


def test_spine_has_its_loopback_only(rendered: Path) -> None:
    text = _conf(rendered, "p1-spine1")
    assert "    prefix-list PL6-LOOPBACK-RAILS {\n        2001:db8::8/128;\n    }\n" in text


def test_multi_rail_summary_twin(tmp_path: Path) -> None:
    """2 rail switches × 2 rails (tests/test_ipv6.py derives the plan): p1-s1-rail2-3 owns rails 2-3, IPv4
    172.16.2.0/23 and the IPv6 /63 over /64s 2 and 3, 2001:db8:100:2::/63. The export policy's summary terms are
    numbered IPv4 first, then IPv6."""
    data = _junos_dual(base_inventory())
    seg = data["pods"][0]["segments"][0]
    seg.update(rails=4, rail_design="multi-rail", rails_per_switch=2, links_per_spine=2)
    data["host_models"]["h4"] = {"gpus": 4, "nics": 4, "nic_speed": "400G"}
    seg["host_groups"] = [{"model": "h4", "count": 2}]
    text = _conf(render_to(tmp_path, data), "p1-s1-rail2-3")
    assert ("    aggregate {\n        route 172.16.2.0/23;\n    }\n"
            "    rib inet6.0 {\n        aggregate {\n            route 2001:db8:100:2::/63;\n        }\n"
            "    }\n") in text
    assert ("        term summary-2 {\n"
            "            from {\n"
            "                protocol aggregate;\n"
            "                route-filter 2001:db8:100:2::/63 exact;\n"
            "            }\n"
            "            then accept;\n"
            "        }\n"
            "        term suppress-2 {\n"
            "            from {\n"
            "                route-filter 2001:db8:100:2::/63 longer;\n"
            "            }\n"
            "            then reject;\n"
            "        }\n") in text
    assert "                route-filter 172.16.2.0/23 exact;\n" in text.split("term summary-2")[0]


def test_numbered_ipv4_only_files_do_not_change(tmp_path: Path) -> None:
    data = with_system(base_inventory())
    data["fabric"]["platform"] = "junos"
    text = _conf(render_to(tmp_path, data), "p1-s1-rail0")
    assert "inet6" not in text and "PL6" not in text and "connected-v6" not in text


def test_verify_reads_the_ipv6_addresses(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = verify_lines(rendered, capsys)
    assert code == 0 and lines[-1].endswith("all promises kept"), lines[-10:]


def test_verify_names_a_missing_ipv6_gateway(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf = rendered / "configs" / "p1-s1-rail0" / "junos.conf"
    conf.write_text(conf.read_text().replace(
        "            family inet6 {\n                address 2001:db8:100::1/64;\n            }\n", ""))
    row = next(n for n, ln in enumerate((rendered / "ipplan.csv").read_text().splitlines(), 1)
               if ln.startswith("2001:db8:100::1/64,p1-s1-rail0,"))
    code, lines = verify_lines(rendered, capsys)
    fails = [ln for ln in lines if ln.startswith("FAIL ")]
    assert fails[0] == (f"FAIL address: p1-s1-rail0 irb.100: expected 2001:db8:100::1/64 (ipplan.csv:{row}), found "
                        "172.16.0.1/24 (configs/p1-s1-rail0/junos.conf)"), fails
    assert code == 1
