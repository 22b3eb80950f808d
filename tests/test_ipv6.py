"""Dual-stack loopbacks and rail subnets (routing.address_families: [ipv4, ipv6]; issue 30).

The fabric is tests.helpers' mini fabric with two IPv6 pools: loopbacks_v6 2001:db8::/64, rail_subnets_v6
2001:db8:100::/48. Its limits: super_spines 8, spines_per_pod 8, pods 4, segments_per_pod 4, rail switches per
segment 8. Device slots (railfabric/plan/allocate.py): super-spines 0-7, spines 8 + (pod-1)·8 + (j-1) → p1-spine1 8,
p1-spine2 9; rail switches after every spine slot (8 + 4·8 = 40) + ((pod-1)·4 + (seg-1))·8 + (k-1) → p1-s1-rail0 40,
p1-s1-rail1 41. So the IPv4 loopbacks are 10.0.0.40 / .41 and the IPv6 ones 2001:db8:: + slot: ::8, ::9, ::28
(40 = 0x28), ::29.
Rail subnets: single-rail segment 1/1 (segment slot 0), one rail per switch, /24s: rail0's 172.16.0.0/24 is subnet 0
of the segment's IPv4 block 172.16.0.0/21, rail1's 172.16.1.0/24 subnet 1. The segment's /56 is the pool's first:
2001:db8:100::/56, and /64 number i of it is 2001:db8:100:i::/64 → rail0 2001:db8:100::/64 (gateway ::1), rail1
2001:db8:100:1::/64 (gateway 2001:db8:100:1::1). Host n = gateway + n: p1-s1-gpu001 (host 1) NIC 0 on rail0 →
2001:db8:100::2 (its IPv4 172.16.0.2).
Sessions: each rail switch has one /31 to each spine (10.32.0.0/31 and 10.32.0.2/31 for rail0, spine end even): the
IPv6 family rides on them (no IPv6 on fabric links: the next hop is the link-local address).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from railfabric.configs.render import render_device
from railfabric.core import safe_yaml
from railfabric.device import DeviceConfig
from railfabric.lab.frrcheck import bgpd_check, have_bgpd, have_vtysh, vtysh_check
from railfabric.outputs.ipplan import ipplan_csv
from railfabric.pipeline import Result
from railfabric.platforms.nvue_release import RELEASES
from railfabric.verify.nvue_schema import violations
from tests.helpers import base_inventory, devices_of, mlag_inventory, run_data, with_system

LO6, RAILS6 = "2001:db8::/64", "2001:db8:100::/48"


def dual(data: dict[str, Any], lo: str | None = LO6, rails: str | None = RAILS6) -> dict[str, Any]:
    data.setdefault("routing", {})["address_families"] = ["ipv4", "ipv6"]
    if lo is not None:
        data["pools"]["loopbacks_v6"] = lo
    if rails is not None:
        data["pools"]["rail_subnets_v6"] = rails
    return data


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Result:
    return run_data(tmp_path_factory.mktemp("ipv6"), dual(base_inventory()))


@pytest.fixture(scope="module")
def devices(mini: Result) -> dict[str, DeviceConfig]:
    return devices_of(mini)


# --------------------------------------------------------------------------- allocation


def test_loopbacks_rail_subnets_and_hosts(mini: Result) -> None:
    assert [f.code for f in mini.findings if f.severity.name == "ERROR"] == []
    v6 = mini.plan.v6 if mini.plan else None
    assert v6 is not None
    base = 0x20010DB8 << 96
    assert v6.loopback == {"p1-spine1": base + 8, "p1-spine2": base + 9, "p1-s1-rail0": base + 0x28,
                           "p1-s1-rail1": base + 0x29}
    assert {k: (str(s.prefix), s.gateway) for k, s in v6.rail_subnets.items()} == {
        ("p1-s1-rail0", 0): ("2001:db8:100::/64", (0x20010DB80100 << 80) + 1),
        ("p1-s1-rail1", 1): ("2001:db8:100:1::/64", (0x20010DB80100 << 80) + (1 << 64) + 1)}
    assert v6.host_addr["p1-s1-gpu001:nic0p1"] == (0x20010DB80100 << 80) + 2
    assert v6.aggregates == {} and v6.shortfalls == []  # single-rail: no summary


def test_ipv4_only_fabric_has_no_ipv6_plan(tmp_path: Path) -> None:
    res = run_data(tmp_path, base_inventory())
    assert res.plan is not None and res.plan.v6 is None


def test_multi_rail_summary_has_an_ipv6_twin(tmp_path: Path) -> None:
    """A segment of 2 rail switches × 2 rails (multi-rail, rails 0-3): switch k owns the IPv4 aggregate of its 2
    /24s (a /23: rail0-1 172.16.0.0/23, rail2-3 172.16.2.0/23), so its /64s are numbers 2k, 2k+1 of the segment's /56
    and its IPv6 summary the /63 over them: 2001:db8:100::/63 and 2001:db8:100:2::/63."""
    data = dual(base_inventory())
    seg = data["pods"][0]["segments"][0]
    seg.update(rails=4, rail_design="multi-rail", rails_per_switch=2, links_per_spine=2)
    data["host_models"]["h4"] = {"gpus": 4, "nics": 4, "nic_speed": "400G"}
    seg["host_groups"] = [{"model": "h4", "count": 2}]
    res = run_data(tmp_path, data)
    devs = devices_of(res)
    assert res.plan is not None and res.plan.v6 is not None
    names = sorted(res.plan.v6.aggregates)
    assert [str(res.plan.v6.aggregates[n]) for n in names] == ["2001:db8:100::/63", "2001:db8:100:2::/63"]
    frr = render_device(devs[names[1]])["frr.conf"]
    assert "  aggregate-address 2001:db8:100:2::/63 summary-only\n" in frr
    assert "ipv6 prefix-list PL6-LOOPBACK-RAILS seq 30 permit 2001:db8:100:3::/64\n" in frr


# --------------------------------------------------------------------------- findings


def _errors(tmp_path: Path, data: dict[str, Any]) -> list[str]:
    return [f.code for f in run_data(tmp_path, data).findings if f.severity.name == "ERROR"]


def test_dual_stack_without_pools_is_refused(tmp_path: Path) -> None:
    res = run_data(tmp_path, dual(base_inventory(), rails=None))
    (f,) = [f for f in res.findings if f.code == "V6001"]
    assert "pools.rail_subnets_v6 is missing" in f.message and f.severity.name == "ERROR"
    assert res.plan is not None and res.plan.v6 is None  # nothing allocated in IPv6, nothing rendered


def test_ipv6_only_is_refused(tmp_path: Path) -> None:
    data = dual(base_inventory())
    data["routing"]["address_families"] = ["ipv6"]
    assert "V6005" in _errors(tmp_path, data)


def test_overlapping_ipv6_pools_are_refused(tmp_path: Path) -> None:
    # 2001:db8::/64 lies inside 2001:db8::/48
    assert "V6004" in _errors(tmp_path, dual(base_inventory(), rails="2001:db8::/48"))


def test_unused_ipv6_pool_is_a_warning(tmp_path: Path) -> None:
    data = base_inventory()
    data["pools"]["loopbacks_v6"] = LO6
    res = run_data(tmp_path, data)
    assert [(f.code, f.severity.name) for f in res.findings if f.code.startswith("V6")] == [("V6006", "WARNING")]


def test_loopback_pool_too_small(tmp_path: Path) -> None:
    # a /123 holds 32 addresses; the highest slot is p1-s1-rail1's 41, so the plan needs 42: V6002 at that switch
    res = run_data(tmp_path, dual(base_inventory(), lo="2001:db8::/123"))
    (f,) = [f for f in res.findings if f.code == "V6002"]
    assert "p1-s1-rail1 at offset 41" in f.message and "a /122 holds the plan" in f.hint


def test_rail_pool_too_small(tmp_path: Path) -> None:
    # rail1's /64 is number 1: the pool needs 2 /64s, a /63; a /64 is one short
    res = run_data(tmp_path, dual(base_inventory(), rails="2001:db8:100::/64"))
    (f,) = [f for f in res.findings if f.code == "V6002"]
    assert "p1-s1-rail1 rail 1" in f.message and "a /63 holds the plan" in f.hint


@pytest.mark.parametrize("platform", ["eos", "nxos", "junos"])
def test_platforms_without_dual_stack_are_refused(tmp_path: Path, platform: str) -> None:
    data = with_system(dual(base_inventory()))
    data["fabric"]["platform"] = platform
    res = run_data(tmp_path, data)
    assert f"is not rendered on {platform}" in next(f.message for f in res.findings if f.code == "PLAT047")


def test_schema_refuses_ipv4_in_an_ipv6_pool(tmp_path: Path) -> None:
    res = run_data(tmp_path, dual(base_inventory(), lo="10.9.0.0/24"))
    assert any("IPv6 prefix" in f.message for f in res.findings if f.severity.name == "ERROR")


# --------------------------------------------------------------------------- SONiC


def test_frr_ipv6_family(devices: dict[str, DeviceConfig]) -> None:
    frr = render_device(devices["p1-s1-rail0"])["frr.conf"]
    assert ("ipv6 prefix-list PL6-LOOPBACK-RAILS seq 10 permit 2001:db8::28/128\n"
            "ipv6 prefix-list PL6-LOOPBACK-RAILS seq 20 permit 2001:db8:100::/64\n"
            "!\n"
            "route-map RM6-CONN-TO-BGP permit 10\n"
            " match ipv6 address prefix-list PL6-LOOPBACK-RAILS\n"
            "exit\n") in frr
    # every peer group of the IPv4 family, activated with the same inbound policy (graceful-shutdown receipt)
    assert (" address-family ipv6 unicast\n"
            "  redistribute connected route-map RM6-CONN-TO-BGP\n"
            "  neighbor SPINES activate\n"
            "  neighbor SPINES route-map RM-GSHUT-IN in\n"
            "  maximum-paths 64\n"
            " exit-address-family\n") in frr
    spine = render_device(devices["p1-spine1"])["frr.conf"]
    assert "ipv6 prefix-list PL6-LOOPBACK-RAILS seq 10 permit 2001:db8::8/128\n" in spine
    assert "seq 20" not in spine.split("route-map RM6")[0].split("PL6")[-1]  # a spine has no rail /64


def test_ipv4_only_frr_has_no_ipv6_family(tmp_path: Path) -> None:
    frr = render_device(devices_of(run_data(tmp_path, base_inventory()))["p1-s1-rail0"])["frr.conf"]
    assert "ipv6" not in frr and "PL6" not in frr


@pytest.mark.skipif(not (have_vtysh() and have_bgpd()), reason="FRR (vtysh, bgpd) is not installed")
def test_frr_parses_the_dual_stack_forms(devices: dict[str, DeviceConfig], tmp_path: Path) -> None:
    for name in ("p1-spine1", "p1-s1-rail0"):
        path = tmp_path / f"{name}.conf"
        path.write_text(render_device(devices[name])["frr.conf"], encoding="utf-8")
        assert vtysh_check(path) == [] and bgpd_check(path) == []


def test_config_db_ipv6_rows(devices: dict[str, DeviceConfig]) -> None:
    db = json.loads(render_device(devices["p1-s1-rail0"])["config_db.json"])
    assert db["LOOPBACK_INTERFACE"] == {"Loopback0": {}, "Loopback0|10.0.0.40/32": {},
                                        "Loopback0|2001:db8::28/128": {}}
    assert db["VLAN_INTERFACE"] == {"Vlan100": {}, "Vlan100|172.16.0.1/24": {}, "Vlan100|2001:db8:100::1/64": {}}
    # the uplinks keep their /31 and turn on their IPv6 link-local address (the IPv6 routes' next hop)
    assert db["INTERFACE"] == {"Ethernet256": {"ipv6_use_link_local_only": "enable"}, "Ethernet256|10.32.0.1/31": {},
                               "Ethernet264": {"ipv6_use_link_local_only": "enable"}, "Ethernet264|10.32.0.3/31": {}}


def test_dual_stack_config_db_against_sonic_yang(devices: dict[str, DeviceConfig], yang_models: Path) -> None:
    from railfabric.verify.sonic_yang.check import check_configs

    configs = {n: json.loads(render_device(devices[n])["config_db.json"]) for n in ("p1-s1-rail0", "p1-spine1")}
    assert [str(p) for p in check_configs(configs, yang_models)] == []


# --------------------------------------------------------------------------- NVUE


def _nvue(tmp_path: Path, data: dict[str, Any]) -> dict[str, DeviceConfig]:
    data["fabric"]["platform"] = "nvue"
    return devices_of(run_data(tmp_path, data))


def _set(dev: DeviceConfig, release: str) -> dict[str, Any]:
    doc = safe_yaml.load(render_device(dataclasses.replace(dev, release=release))["startup.yaml"])
    return doc[0]["set"]


def test_nvue_forms_by_release(tmp_path: Path) -> None:
    rail = _nvue(tmp_path, dual(base_inventory()))["p1-s1-rail0"]
    old, new = _set(rail, "5.14"), _set(rail, "5.18")
    # up to 5.14 `ip address` holds both families; from 5.15 `ipv4` and `ipv6` are apart
    assert old["interface"]["lo"]["ip"]["address"] == {"10.0.0.40/32": {}, "2001:db8::28/128": {}}
    assert new["interface"]["lo"]["ipv6"] == {"address": {"2001:db8::28/128": {}}}
    assert new["interface"]["vlan100"]["ipv6"] == {"address": {"2001:db8:100::1/64": {}}}
    policy = new["router"]["policy"]
    assert policy["prefix-list"]["PL6-LOOPBACK-RAILS"] == {"type": "ipv6", "rule": {
        "10": {"action": "permit", "match": {"2001:db8::28/128": {}}},
        "20": {"action": "permit", "match": {"2001:db8:100::/64": {}}}}}
    assert policy["route-map"]["RM6-CONN-TO-BGP"]["rule"]["10"]["match"] == {"ip-prefix-list": "PL6-LOOPBACK-RAILS",
                                                                             "type": "ipv6"}
    bgp = new["vrf"]["default"]["router"]["bgp"]
    assert bgp["address-family"]["ipv6-unicast"] == {
        "state": "enabled", "multipaths": {"ebgp": 64},
        "redistribute": {"connected": {"state": "enabled", "route-map": "RM6-CONN-TO-BGP"}}}
    assert bgp["peer-group"]["SPINES"]["address-family"]["ipv6-unicast"] == {
        "state": "enabled", "policy": {"inbound": {"route-map": "RM-GSHUT-IN"}}}


def test_nvue_mlag_vrr_ipv6(tmp_path: Path) -> None:
    """Under MLAG each switch has its own IPv6 address on the SVI beside the shared VRR one: side a the /64's last
    address but one (…:ffff:ffff:ffff:fffe), as in IPv4 (.254 of a /24)."""
    rail = _nvue(tmp_path, dual(mlag_inventory()))["p1-s1-rail0a"]
    vlan = _set(rail, "5.18")["interface"]["vlan100"]["ipv6"]
    assert vlan["address"] == {"2001:db8:100:0:ffff:ffff:ffff:fffe/64": {}}
    assert vlan["vrr"]["address"] == {"2001:db8:100::1/64": {}}
    old = _set(rail, "5.14")["interface"]["vlan100"]["ip"]
    assert old["vrr"]["address"] == {"172.16.0.1/24": {}, "2001:db8:100::1/64": {}}


def test_nvue_dual_stack_passes_every_release_schema(tmp_path: Path) -> None:
    problems = []
    for tag, data in (("plain", base_inventory()), ("mlag", mlag_inventory())):
        for name, dev in _nvue(tmp_path / tag, dual(data)).items():
            for release in RELEASES:
                doc = safe_yaml.load(render_device(dataclasses.replace(dev, release=release))["startup.yaml"])
                problems += [f"{name} {release}: {v}" for v in violations(doc, release)]
    assert problems == []


# --------------------------------------------------------------------------- IP plan


def test_ipplan_ipv6_rows(mini: Result, devices: dict[str, DeviceConfig]) -> None:
    assert mini.inventory and mini.topology and mini.plan
    text = ipplan_csv(mini.inventory, mini.topology, mini.plan, devices)["ipplan.csv"]
    lines = text.splitlines()
    v6 = lines[next(i for i, line in enumerate(lines) if line.startswith("2001:")):]
    assert all(":" in line.split(",")[0] for line in v6)  # every IPv6 row after every IPv4 row
    for row in ("2001:db8::/64,,,pool,loopbacks_v6,",
                "2001:db8::28/128,p1-s1-rail0,Loopback0,loopback,loopbacks_v6,",
                "2001:db8:100::/64,p1-s1-rail0,Vlan100,rail-subnet,rail_subnets_v6,rail 0 vlan 100",
                "2001:db8:100::1/64,p1-s1-rail0,Vlan100,rail-gateway,rail_subnets_v6,rail 0 vlan 100",
                "2001:db8:100::2/64,p1-s1-gpu001,nic0p1,host,rail_subnets_v6,rail 0 vlan 100 via p1-s1-rail0"):
        assert row in v6
    # 2 pools, 4 loopbacks, 2 rails × (subnet + gateway), 4 hosts × 2 NICs
    assert len(v6) == 2 + 4 + 4 + 8


# --------------------------------------------------------------------------- hosts


def _hosts(res: Result) -> tuple[Any, dict[str, str]]:
    """The host plan and the host files, made both ways (whole plan; per group with shared shapes, as the render
    does): the same bytes."""
    from railfabric.hosts.build import build_hosts, group_inputs
    from railfabric.outputs.hosts import group_input_files, hosts_files

    assert res.inventory and res.topology and res.plan
    plan = build_hosts(res.inventory, res.topology, res.plan)
    files = hosts_files(plan)
    shaped: dict[str, str] = {}
    for g in group_inputs(res.inventory, res.topology, res.plan):
        shaped.update(group_input_files(g))
    assert shaped == files
    return plan, files


def test_host_nic_dual_stack(mini: Result) -> None:
    """p1-s1-gpu001's NIC 0 is on rail0's 172.16.0.0/24 (host 1: 172.16.0.2) and 2001:db8:100::/64 (host 1:
    2001:db8:100::2); its table 101 (TABLE_BASE 100 + NIC 0 · 1 port + port 1) gets the /64 on-link and the IPv6
    rail pool via the IPv6 gateway after the IPv4 routes (pod 1 has spines), and a rule from each address."""
    plan, files = _hosts(mini)
    nic0 = plan.hosts["p1-s1-gpu001"].interfaces[0]
    assert (nic0.address_v6, nic0.gateway_v6) == ("2001:db8:100::2", "2001:db8:100::1")
    assert [(r.to, r.via) for r in nic0.routes_v6] == [("2001:db8:100::/64", None),
                                                       ("2001:db8:100::/48", "2001:db8:100::1")]
    data = safe_yaml.load(files["hosts/p1-s1-gpu001/netplan.yaml"])["network"]["ethernets"][nic0.name]
    assert data["addresses"] == ["172.16.0.2/24", "2001:db8:100::2/64"]
    assert data["routing-policy"] == [{"from": "172.16.0.2", "table": 101, "priority": 101},
                                      {"from": "2001:db8:100::2", "table": 101, "priority": 101}]
    assert data["routes"][2:] == [{"to": "2001:db8:100::/64", "scope": "link", "table": 101},
                                  {"to": "2001:db8:100::/48", "via": "2001:db8:100::1", "table": 101}]


def test_ipv4_only_host_files_unchanged(tmp_path: Path) -> None:
    """An IPv4-only fabric's host files carry no IPv6 (the v6 fields default to nothing)."""
    _plan, files = _hosts(run_data(tmp_path, base_inventory()))
    assert not any("2001:" in text or '":' in text for text in files.values())


def test_netplan_generate_takes_the_dual_stack_file(mini: Result, tmp_path: Path) -> None:
    import subprocess

    from tests.test_hosts_tools import _generator, _sections

    plan, files = _hosts(mini)
    root = tmp_path / "root"
    (root / "etc/netplan").mkdir(parents=True)
    f = root / "etc/netplan/60-railfabric.yaml"
    f.write_text(files["hosts/p1-s1-gpu001/netplan.yaml"])
    f.chmod(0o600)
    proc = subprocess.run([*_generator(), "--root-dir", str(root)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    nic0 = plan.hosts["p1-s1-gpu001"].interfaces[0]
    sections = _sections((root / f"run/systemd/network/10-netplan-{nic0.name}.network").read_text())
    assert [s["From"] for k, s in sections if k == "RoutingPolicyRule"] == ["172.16.0.2", "2001:db8:100::2"]
    assert [(s["Destination"], s.get("Gateway")) for k, s in sections if k == "Route"][2:] == [
        ("2001:db8:100::/64", None), ("2001:db8:100::/48", "2001:db8:100::1")]


# --------------------------------------------------------------------------- fabric verify


@pytest.mark.parametrize("platform", ["sonic", "nvue"])
def test_verify_keeps_every_promise_on_a_dual_stack_fabric(tmp_path: Path, platform: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """`fabric verify` reads the dual-stack files back: the hosts' IPv6 routes go through their rail SVI's IPv6
    gateway (the /64 of the host's address), beside the IPv4 one; nothing fails."""
    from railfabric.cli import main
    from tests.helpers import dump, write_files

    data = dual(with_system(base_inventory()) if platform == "nvue" else base_inventory())  # MGMT001: an account
    data["fabric"]["platform"] = platform
    write_files(tmp_path / "inv", {"fabric.yml": dump(data)})
    assert main(["render", str(tmp_path / "inv"), "--out", str(tmp_path / "gen"), "-q"]) == 0
    assert main(["verify", str(tmp_path / "gen"), "--no-frr"]) == 0, capsys.readouterr().out[-2000:]
    assert "2001:db8:100::1" in (tmp_path / "gen/hosts/p1-s1-gpu001/netplan.yaml").read_text()
