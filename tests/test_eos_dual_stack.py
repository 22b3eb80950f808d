"""Dual-stack loopbacks and rail subnets on Arista EOS (routing.address_families: [ipv4, ipv6]), rendered over
unnumbered sessions only (railfabric/platforms/eos.py: the forms Arista's AVD writes, pyavd 5.4.0).

The fabric is tests.helpers' mini fabric on EOS with routing.addressing: unnumbered (tests/test_eos_unnumbered.py
derives its ports and ASNs): spines p1-spine1/2 (loopback slots 8, 9: 10.0.0.8, 10.0.0.9), rail switches
p1-s1-rail0/1 (slots 40, 41: 10.0.0.40, 10.0.0.41), one single-rail segment with rail 0 on rail0 (VLAN 100,
172.16.0.0/24) and rail 1 on rail1 (VLAN 101, 172.16.1.0/24). The IPv6 plan (railfabric/plan/allocate_v6.py, docs/
underlay.md): a switch's loopback /128 is pools.loopbacks_v6 (2001:db8::/64) + its IPv4 slot, so rail0 is
2001:db8::28 (40 = 0x28) and spine1 2001:db8::8; segment (1, 1) owns the first /56 of pools.rail_subnets_v6
(2001:db8:100::/48 → 2001:db8:100::/56), the segment's i-th rail subnet is its /64 number i and the gateway is ::1:
rail0 2001:db8:100::1/64 (/64 number 0), rail1 2001:db8:100:1::1/64 (number 1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers import (
    base_inventory,
    codes,
    mlag_inventory,
    render_to,
    run_data,
    verify_lines,
    with_system,
)
from tests.test_eos_unnumbered import _block, _config
from tests.test_ipv6 import dual


def _eos_dual(data: dict[str, Any], unnumbered: bool = True) -> dict[str, Any]:
    data["fabric"]["platform"] = "eos"
    if unnumbered:
        data.setdefault("routing", {})["addressing"] = "unnumbered"
        del data["pools"]["fabric_links"]
    return dual(data)


@pytest.fixture()
def rendered(tmp_path: Path) -> Path:
    return render_to(tmp_path, _eos_dual(with_system(base_inventory())))


def test_numbered_eos_is_refused_with_the_reason(tmp_path: Path) -> None:
    res = run_data(tmp_path, _eos_dual(with_system(base_inventory()), unnumbered=False))
    (f,) = [f for f in res.findings if f.code == "PLAT047"]
    assert "eos renders dual-stack over unnumbered sessions only (routing.addressing: unnumbered)" in f.message
    # SONiC and NVUE render it on any fabric, EOS and Junos over unnumbered sessions (platforms/<name>.py)
    assert f.hint == ("keep routing.address_families: [ipv4], or move these switches to a platform that renders "
                      "dual-stack (nvue, sonic; eos, junos with routing.addressing: unnumbered and no MLAG)")


def test_an_eos_mlag_segment_is_refused(tmp_path: Path) -> None:
    # the MLAG pair's iBGP is an IPv4 /31 session (the MLAG peer VLAN keeps pools.fabric_links)
    data = dual(mlag_inventory("eos"))
    data["routing"]["addressing"] = "unnumbered"
    res = run_data(tmp_path, data)
    (f,) = [f for f in res.findings if f.code == "PLAT047"]
    assert "pod 1 segment 1 has MLAG pairs, whose iBGP runs over an IPv4 /31" in f.message


def test_unnumbered_eos_renders(tmp_path: Path) -> None:
    res = run_data(tmp_path, _eos_dual(with_system(base_inventory())))
    assert "PLAT047" not in codes(res) and res.plan is not None and res.plan.v6 is not None, codes(res)


def test_rail_switch_lines(rendered: Path) -> None:
    text = _config(rendered, "p1-s1-rail0")
    assert _block(text, "interface Loopback0") == [
        "interface Loopback0", "   ip address 10.0.0.40/32", "   ipv6 address 2001:db8::28/128"]
    assert _block(text, "interface Vlan100") == [
        "interface Vlan100", "   description RAIL0 172.16.0.0/24", "   mtu 9214", "   ip address 172.16.0.1/24",
        "   ipv6 address 2001:db8:100::1/64"]
    # what BGP may redistribute: the loopback and the rail subnet, each family through its own list and map
    assert _block(text, "ipv6 prefix-list PL6-LOOPBACK-RAILS") == [
        "ipv6 prefix-list PL6-LOOPBACK-RAILS", "   seq 10 permit 2001:db8::28/128",
        "   seq 20 permit 2001:db8:100::/64"]
    assert _block(text, "route-map RM6-CONN-TO-BGP permit 10") == [
        "route-map RM6-CONN-TO-BGP permit 10", "   match ipv6 address prefix-list PL6-LOOPBACK-RAILS"]
    # the IPv6 family on the same (link-local) sessions, with the graceful-shutdown receipt repeated in it
    bgp = text[text.index("router bgp 4200100000\n"):]
    assert ("   address-family ipv6\n"
            "      neighbor SPINES activate\n"
            "      neighbor SPINES route-map RM-GSHUT-IN in\n"
            "      redistribute connected route-map RM6-CONN-TO-BGP\n!\n") in bgp
    assert "aggregate-address" not in bgp  # one rail per switch: no summary in either family


def test_spine_lines(rendered: Path) -> None:
    text = _config(rendered, "p1-spine1")
    assert _block(text, "interface Loopback0")[-1] == "   ipv6 address 2001:db8::8/128"
    assert _block(text, "ipv6 prefix-list PL6-LOOPBACK-RAILS") == [
        "ipv6 prefix-list PL6-LOOPBACK-RAILS", "   seq 10 permit 2001:db8::8/128"]  # a spine has no rail /64
    bgp = _block(text, "router bgp 4200001001")
    assert bgp[bgp.index("   address-family ipv6"):] == [
        "   address-family ipv6", "      neighbor RAIL-SWITCHES activate",
        "      neighbor RAIL-SWITCHES route-map RM-GSHUT-IN in",
        "      redistribute connected route-map RM6-CONN-TO-BGP"]


def test_multi_rail_summary_twin(tmp_path: Path) -> None:
    """2 rail switches × 2 rails (tests/test_ipv6.py test_multi_rail_summary_has_an_ipv6_twin derives the plan):
    rail switch p1-s1-rail2-3 owns rails 2-3, IPv4 172.16.2.0/23 and the IPv6 /63 over /64s 2 and 3,
    2001:db8:100:2::/63."""
    data = _eos_dual(with_system(base_inventory()))
    seg = data["pods"][0]["segments"][0]
    seg.update(rails=4, rail_design="multi-rail", rails_per_switch=2, links_per_spine=2)
    data["host_models"]["h4"] = {"gpus": 4, "nics": 4, "nic_speed": "400G"}
    seg["host_groups"] = [{"model": "h4", "count": 2}]
    text = _config(render_to(tmp_path, data), "p1-s1-rail2-3")  # multi-rail switches are named by their rails
    bgp = text[text.index("router bgp "):]
    assert ("   aggregate-address 172.16.2.0/23 summary-only\n"
            "   aggregate-address 2001:db8:100:2::/63 summary-only\n") in bgp
    assert _block(text, "ipv6 prefix-list PL6-LOOPBACK-RAILS")[-2:] == [
        "   seq 20 permit 2001:db8:100:2::/64", "   seq 30 permit 2001:db8:100:3::/64"]


def test_verify_reads_the_ipv6_addresses(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = verify_lines(rendered, capsys)
    assert code == 0 and lines[-1].endswith("all promises kept"), lines[-10:]


def test_verify_names_a_missing_ipv6_loopback(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # ipplan.csv: header, the IPv4 rows (4 loopbacks, 2 rail gateways, 4 management, 8 hosts' NICs...), then the
    # IPv6 rows; the row number is read from the file rather than restated, the address and owner are hand-derived
    conf = rendered / "configs" / "p1-s1-rail0" / "running-config.cfg"
    conf.write_text(conf.read_text().replace("   ipv6 address 2001:db8::28/128\n", ""))
    row = next(n for n, ln in enumerate((rendered / "ipplan.csv").read_text().splitlines(), 1)
               if ln.startswith("2001:db8::28/128,p1-s1-rail0,Loopback0,"))
    code, lines = verify_lines(rendered, capsys)
    assert [ln for ln in lines if ln.startswith("FAIL ")] == [
        f"FAIL address: p1-s1-rail0 Loopback0: expected 2001:db8::28/128 (ipplan.csv:{row}), found 10.0.0.40/32 "
        "(configs/p1-s1-rail0/running-config.cfg)"]
    assert code == 1
