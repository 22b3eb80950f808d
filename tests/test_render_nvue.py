"""NVIDIA Cumulus Linux NVUE rendering (railfabric/configs/nvue/startup.py) of the example inventory, read back.

The fixture re-builds the example with `fabric.platform: nvue`: every switch becomes Cumulus except pod 1 segment 2,
which says `platform: eos` itself, so the fabric is mixed. (Validated as a whole, that inventory is refused: pod 2
bundles its uplinks in pairs with min-links 2, which NVUE bonds cannot say; test_bundle_rules below. The device
model and the renderer do not depend on it, so the fixture renders every section anyway.) Addresses, ASNs and
ports do not depend on the platform; the expected values are derived by hand from inventory/ and the layout rules
(railfabric/plan/allocate.py, railfabric/topology/):

- loopbacks 10.0.0.0/20: 16 super-spine slots (limits.super_spines), then 8 pods × 16 spine slots = 128, so rail
  switch slot s has 10.0.0.(144 + s); p1-s1-rail3 is slot 3 → 10.0.0.147/32, ASN 4200100000 + 3 = 4200100003.
- p1-s1-rail3 uplink 0 (port 33) → /31 number 3 × 64 (uplinks_per_rail_switch) + 0 = 192 of 10.4.0.0/14 →
  10.4.1.128/31; the spine takes the even address, the rail switch 10.4.1.129. The spine end is p1-spine1 port 7
  (segment 1 lands on spine ports 1-16, rail switch 3's two links to a spine are its ports 2·3+1 = 7 and 8). Pod 1
  spines share ASN 4200001000 + 1 = 4200001001.
- p1-s1-rail3 hosts: 16 hosts × 400G on 2x400G breakouts of 800G ports: ports 1-7 and 9 (port 8 is disabled in
  devices.yml; its hosts 15 and 16 are re-cabled to port 9 lanes 1-2). Cumulus names lane l of port p swp<p>s<l-1>.
  Rail 3 → VLAN 100 + 3 = 103, subnet 172.16.3.0/24 (segment 1 of pod 1 owns 172.16.0.0/21), gateway .1.
- p2-s1-rail0-1-2-3 (pod 2, multi-rail): slot ((2-1)·8 + 0)·16 + 0 = 128 → ASN 4200100128, loopback 10.0.1.16
  (144 + 128 = 272 = 1·256 + 16); rails 0-3 = 172.16.64.0/24 ... 172.16.67.0/24 summarised as 172.16.64.0/22; its
  first /31 (10.4.64.0/31) is a 2-member bond numbered by its first member's port 33; pod 2 spines: 4200001002.
- MTU: fabric 9216, Cumulus ceiling 9216; links to the EOS segment (pod 1 segment 2, spine ports 17-32) run at
  EOS's 9214 at both ends.
- QoS (fabric.yml): RoCE DSCP 26 → switch priority 3 → TC3, lossless (PFC on priority 3); CNP DSCP 48 → 6 → TC6,
  strict; every other DSCP → 0; ECN on TC3 at 150000/1500000 bytes, probability 100; DWRR TC0 50 %, TC3 50 %;
  watchdog poll 200 ms, detection 200 ms → robustness ceil(200/200) = 1.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from railfabric.configs.nvue.startup import breakout_word, startup_yaml
from railfabric.configs.nvue.system import ssh_key_entries
from railfabric.configs.render import render_device
from railfabric.core import safe_yaml
from railfabric.device import DeviceConfig, build_devices
from railfabric.inventory.intent import Platform
from railfabric.outputs.ansible_filters import rf_vault_resolve
from railfabric.pipeline import run
from railfabric.plan.allocate import allocate
from railfabric.topology import expand
from railfabric.verify.run import verify
from tests.helpers import EXAMPLE, base_inventory, codes, run_data, with_system

OUTPUT = "startup.yaml"


@pytest.fixture(scope="module")
def devices() -> dict[str, DeviceConfig]:
    r = run(EXAMPLE)
    assert r.findings == [], [str(f) for f in r.findings]
    assert r.inventory is not None
    inv = r.inventory.model_copy(
        update={"fabric": r.inventory.fabric.model_copy(update={"platform": Platform("nvue")})})
    topo = expand(inv)
    plan = allocate(inv, topo)
    return build_devices(inv, topo, plan)


@pytest.fixture(scope="module")
def trees(devices: dict[str, DeviceConfig]) -> dict[str, dict[str, Any]]:
    """Each Cumulus switch's startup.yaml read back with PyYAML (the document is `- set: {...}`)."""
    out = {}
    for name, dev in devices.items():
        if dev.platform != "nvue":
            continue
        doc = safe_yaml.load(render_device(dev)[OUTPUT])
        assert isinstance(doc, list) and len(doc) == 1 and list(doc[0]) == ["set"]
        out[name] = doc[0]["set"]
    return out


def test_the_fabric_is_mixed(devices: dict[str, DeviceConfig]) -> None:
    assert {d.platform for d in devices.values()} == {"nvue", "eos"}
    assert {n for n, d in devices.items() if d.platform == "eos"} == {
        n for n in devices if n.startswith("p1-s2-")}


def test_breakout_host_ports(trees: dict[str, dict[str, Any]]) -> None:
    ifs = trees["p1-s1-rail3"]["interface"]
    for port in (1, 2, 3, 4, 5, 6, 7, 9):
        assert ifs[f"swp{port}"] == {"type": "swp", "link": {"breakout": {"2x": {}}}}
        for lane in (0, 1):
            node = ifs[f"swp{port}s{lane}"]
            assert node["link"] == {"mtu": 9216, "speed": "400G", "fec": "rs", "state": {"up": {}}}
            assert node["bridge"] == {"domain": {"br_default": {"access": 103}}}
            assert node["qos"] == {"pfc-watchdog": {}}
    assert ifs["swp9s0"]["description"] == "p1-s1-gpu015 nic3 port1 rail3"  # the re-cabled host (devices.yml)
    # port 8 (disabled) is not broken out and stays down; so do the unused ports 10-32 and 41-64
    assert ifs["swp8"]["link"]["state"] == {"down": {}} and ifs["swp8"]["description"] == "disabled in inventory"
    down = {n for n, v in ifs.items() if v.get("link", {}).get("state") == {"down": {}}}
    assert down == {f"swp{p}" for p in (8, *range(10, 33), *range(41, 65))}


def test_svi_and_bridge(trees: dict[str, dict[str, Any]]) -> None:
    t = trees["p1-s1-rail3"]
    assert t["bridge"] == {"domain": {"br_default": {"vlan": {"103": {}}}}}
    assert t["interface"]["vlan103"] == {"type": "svi", "vlan": 103, "description": "RAIL3", "link": {"mtu": 9216},
                                         "ip": {"address": {"172.16.3.1/24": {}}}}


def test_fabric_port_routed(trees: dict[str, dict[str, Any]]) -> None:
    node = trees["p1-s1-rail3"]["interface"]["swp33"]
    assert node == {"type": "swp", "description": "p1-spine1 swp7", "ip": {"address": {"10.4.1.129/31": {}}},
                    "link": {"mtu": 9216, "speed": "800G", "fec": "rs", "state": {"up": {}}},
                    "qos": {"pfc-watchdog": {}}}
    assert trees["p1-spine1"]["interface"]["swp7"]["ip"] == {"address": {"10.4.1.128/31": {}}}


def test_bgp_of_a_single_rail_switch(trees: dict[str, dict[str, Any]]) -> None:
    t = trees["p1-s1-rail3"]
    assert t["router"]["bgp"] == {"enable": "on", "autonomous-system": 4200100003, "router-id": "10.0.0.147"}
    bgp = t["vrf"]["default"]["router"]["bgp"]
    assert bgp["neighbor"]["10.4.1.128"] == {"type": "numbered", "peer-group": "SPINES", "remote-as": 4200001001,
                                            "description": "p1-spine1 swp7"}
    assert len(bgp["neighbor"]) == 8  # 4 spines × 2 links
    # routing.bfd_timers unset: the fabric-wide 300 ms x 3 on the group (the 5.9-5.14 peer-group leaves)
    assert bgp["peer-group"]["SPINES"]["bfd"] == {"enable": "on", "detect-multiplier": 3, "min-rx-interval": 300,
                                                  "min-tx-interval": 300}
    af = bgp["address-family"]["ipv4-unicast"]
    assert af["multipaths"] == {"ebgp": 64}
    assert "aggregate-route" not in af  # single rail: no summary
    assert af["redistribute"] == {"connected": {"enable": "on", "route-map": "RM-CONN-TO-BGP"}}
    assert bgp["path-selection"] == {"multipath": {"aspath-ignore": "on"}}
    policy = t["router"]["policy"]
    assert policy["prefix-list"]["PL-LOOPBACK-RAILS"]["rule"] == {
        "10": {"action": "permit", "match": {"10.0.0.147/32": {}}},
        "20": {"action": "permit", "match": {"172.16.3.0/24": {}}}}
    assert policy["route-map"]["RM-CONN-TO-BGP"]["rule"]["10"]["match"] == {
        "ip-prefix-list": "PL-LOOPBACK-RAILS", "type": "ipv4"}


def test_multi_rail_summary_and_bond(trees: dict[str, dict[str, Any]]) -> None:
    t = trees["p2-s1-rail0-1-2-3"]
    assert t["router"]["bgp"]["autonomous-system"] == 4200100128
    bgp = t["vrf"]["default"]["router"]["bgp"]
    assert bgp["address-family"]["ipv4-unicast"]["aggregate-route"] == {"172.16.64.0/22": {"summary-only": "on"}}
    assert bgp["neighbor"]["10.4.64.0"]["remote-as"] == 4200001002
    bond = t["interface"]["bond33"]
    assert bond["bond"]["member"] == {"swp33": {}, "swp34": {}}
    assert bond["ip"] == {"address": {"10.4.64.1/31": {}}}
    assert "ip" not in t["interface"]["swp33"]  # the address is on the bond, not the member
    assert t["interface"]["swp33"]["qos"] == {"pfc-watchdog": {}}  # PFC watchdog stays on the physical member
    assert set(t["bridge"]["domain"]["br_default"]["vlan"]) == {"100", "101", "102", "103"}


def test_mixed_link_mtu(trees: dict[str, dict[str, Any]]) -> None:
    spine = trees["p1-spine1"]["interface"]
    assert spine["swp1"]["link"]["mtu"] == 9216  # to a Cumulus rail switch of segment 1
    assert spine["swp17"]["link"]["mtu"] == 9214  # to an EOS rail switch of segment 2


def test_qos_policy(trees: dict[str, dict[str, Any]]) -> None:
    q = trees["p1-s1-rail3"]["qos"]
    assert q["roce"] == {"enable": "on", "mode": "lossless"}
    dscp = q["mapping"]["default-global"]["dscp"]
    assert len(dscp) == 64
    assert {d: v["switch-priority"] for d, v in dscp.items() if v["switch-priority"]} == {"26": 3, "48": 6}
    assert q["mapping"]["default-global"]["trust"] == "both"
    assert q["egress-queue-mapping"]["default-global"]["switch-priority"] == {
        "3": {"traffic-class": 3}, "6": {"traffic-class": 6}}
    assert q["pfc"] == {"default-global": {"switch-priority": {"3": {}}}}
    assert q["congestion-control"]["default-global"]["traffic-class"] == {
        "3": {"ecn": "enable", "min-threshold": 150000, "max-threshold": 1500000, "probability": 100}}
    assert q["egress-scheduler"]["default-global"]["traffic-class"] == {
        "0": {"mode": "dwrr", "bw-percent": 50}, "3": {"mode": "dwrr", "bw-percent": 50}, "6": {"mode": "strict"}}
    assert q["pfc-watchdog"] == {"polling-interval": 200, "robustness": 1}


def test_small_decisions() -> None:
    assert [breakout_word(m) for m in ("2x400G", "4x200G", "8x100G")] == ["2x", "4x", "8x"]
    assert ssh_key_entries(("ssh-ed25519 AAAAkey ops@jump", "ssh-rsa BBBB")) == {
        "ops@jump": {"type": "ssh-ed25519", "key": "AAAAkey"}, "key2": {"type": "ssh-rsa", "key": "BBBB"}}


def test_management_and_accounts(devices: dict[str, DeviceConfig], trees: dict[str, dict[str, Any]]) -> None:
    t = trees["p1-s1-rail3"]
    assert t["interface"]["eth0"] == {"type": "eth", "ip": {"address": {"192.168.15.3/20": {}},  # devices.yml pin
                                                            "gateway": {"192.168.0.1": {}}, "vrf": "mgmt"}}
    assert t["interface"]["lo"] == {"type": "loopback", "ip": {"address": {"10.0.0.147/32": {}}}}
    aaa = t["system"]["aaa"]
    push = devices["p1-s1-rail3"].system.push_user
    assert aaa["user"][push]["role"] == "system-admin"
    assert aaa["user"][push]["hashed-password"].startswith("%%vault.")
    assert t["system"]["hostname"] == "p1-s1-rail3"
    assert t["system"]["ssh-server"] == {"vrf": {"mgmt": {}}}  # a set in NVIDIA's schema
    assert t["service"]["ntp"] == {"mgmt": {"server": {"192.0.2.22": {"iburst": "on"},  # devices.yml override
                                                       "192.0.2.23": {"iburst": "on"}}}}
    text = render_device(devices["p1-s1-rail3"])[OUTPUT]
    assert '"%%vault.' in text and "'%%vault." not in text  # placeholders double-quoted: resolved JSON-escaped


def test_secret_resolution_keeps_yaml_valid(devices: dict[str, DeviceConfig]) -> None:
    text = render_device(devices["p1-s1-rail3"])[OUTPUT]
    names = sorted(set(__import__("re").findall(r"%%vault\.([a-z_0-9]+)%%", text)))
    nasty = 'k"ey\\with: #quotes\' and é'
    resolved = rf_vault_resolve(text, dict.fromkeys(names, nasty), "json")
    tree = safe_yaml.load(resolved)[0]["set"]
    # 5.14 (the default) keys TACACS+ servers by host: the example's first is 192.0.2.10 (inventory/system.yml)
    assert tree["system"]["aaa"]["tacacs"]["server"]["192.0.2.10"]["secret"] == nasty


def test_adaptive_routing_for_packet_spraying(devices: dict[str, DeviceConfig]) -> None:
    dev = dataclasses.replace(devices["p1-s1-rail3"], ecmp_mode="packet")
    t = safe_yaml.load(startup_yaml(dev))[0]["set"]
    assert t["router"]["adaptive-routing"] == {"enable": "on"}
    ar = {n for n, v in t["interface"].items() if "router" in v}
    # routed fabric ports only (the 8 uplinks on ports 33-40); host ports are bridged, SVIs and eth0 never
    assert ar == {f"swp{p}" for p in range(33, 41)}
    assert all(t["interface"][n]["router"] == {"adaptive-routing": {"enable": "on"}} for n in ar)
    # pod 2 bundles its uplinks into bonds, where Cumulus has no adaptive routing: nothing to enable per port
    bonded = safe_yaml.load(startup_yaml(dataclasses.replace(devices["p2-s1-rail0-1-2-3"], ecmp_mode="packet")))
    assert not any("router" in v for v in bonded[0]["set"]["interface"].values())
    flow = safe_yaml.load(startup_yaml(devices["p1-s1-rail3"]))[0]["set"]
    assert "adaptive-routing" not in flow["router"]


def test_deterministic(devices: dict[str, DeviceConfig]) -> None:
    dev = devices["p1-spine1"]
    assert startup_yaml(dev) == startup_yaml(dev)
    assert "&id" not in startup_yaml(dev)


# --------------------------------------------------------------------------- Cumulus Linux 5.15's renamed forms
# The same switches rendered for 5.14 (the default) and 5.15; the addresses, ASNs and ports are the ones derived at
# the top of this file, only the NVUE spelling changes (railfabric/platforms/nvue_release.py names each source).


def _at(dev: DeviceConfig, release: str, **changes: Any) -> dict[str, Any]:
    return safe_yaml.load(startup_yaml(dataclasses.replace(dev, release=release, **changes)))[0]["set"]


def test_interface_addresses_move_to_ipv4_in_5_15(devices: dict[str, DeviceConfig]) -> None:
    """`interface <i> ip address` → `ipv4 address`, `ip gateway` → `ipv4 gateway`, `ip vrf` → the interface's
    `vrf` (5.15 "IP Interface" tab). p1-s1-rail3: uplink swp33 10.4.1.129/31, loopback 10.0.0.147/32, SVI vlan103
    172.16.3.1/24, eth0 192.168.15.3/20 (devices.yml pin) via 192.168.0.1 in mgmt; p2-s1-rail0-1-2-3's bond33
    10.4.64.1/31."""
    old, new = _at(devices["p1-s1-rail3"], "5.14")["interface"], _at(devices["p1-s1-rail3"], "5.15")["interface"]
    for name, address in (("swp33", "10.4.1.129/31"), ("lo", "10.0.0.147/32"), ("vlan103", "172.16.3.1/24")):
        assert old[name]["ip"] == {"address": {address: {}}} and "ipv4" not in old[name]
        assert new[name]["ipv4"] == {"address": {address: {}}} and "ip" not in new[name]
    assert old["eth0"] == {"type": "eth", "ip": {"address": {"192.168.15.3/20": {}}, "gateway": {"192.168.0.1": {}},
                                                 "vrf": "mgmt"}}
    assert new["eth0"] == {"type": "eth", "ipv4": {"address": {"192.168.15.3/20": {}},
                                                   "gateway": {"192.168.0.1": {}}}, "vrf": "mgmt"}
    bond = _at(devices["p2-s1-rail0-1-2-3"], "5.15")["interface"]["bond33"]
    assert bond["ipv4"] == {"address": {"10.4.64.1/31": {}}} and "ip" not in bond


def test_adaptive_routing_is_switched_by_state_in_5_15(devices: dict[str, DeviceConfig]) -> None:
    """`router adaptive-routing enable on` → `state enabled`, per port too (5.15 "On/Off" tab); the 8 routed
    uplinks of p1-s1-rail3 are ports 33-40."""
    old = _at(devices["p1-s1-rail3"], "5.14", ecmp_mode="packet")
    new = _at(devices["p1-s1-rail3"], "5.15", ecmp_mode="packet")
    assert old["router"]["adaptive-routing"] == {"enable": "on"}
    assert new["router"]["adaptive-routing"] == {"state": "enabled"}
    for p in range(33, 41):
        assert old["interface"][f"swp{p}"]["router"] == {"adaptive-routing": {"enable": "on"}}
        assert new["interface"][f"swp{p}"]["router"] == {"adaptive-routing": {"state": "enabled"}}


def test_bgp_switches_and_booleans_in_5_15(devices: dict[str, DeviceConfig]) -> None:
    """`router bgp`, `vrf default router bgp`, its ipv4-unicast family and `redistribute connected`, a peer group's
    family: `enable on` → `state enabled`; `aspath-ignore` and `summary-only` on → enabled (5.15 "On/Off" tab)."""
    old, new = _at(devices["p1-s1-rail3"], "5.14"), _at(devices["p1-s1-rail3"], "5.15")
    assert old["router"]["bgp"] == {"enable": "on", "autonomous-system": 4200100003, "router-id": "10.0.0.147"}
    assert new["router"]["bgp"] == {"state": "enabled", "autonomous-system": 4200100003, "router-id": "10.0.0.147"}
    ob, nb = old["vrf"]["default"]["router"]["bgp"], new["vrf"]["default"]["router"]["bgp"]
    assert (ob["enable"], nb["state"]) == ("on", "enabled") and "enable" not in nb
    oaf, naf = ob["address-family"]["ipv4-unicast"], nb["address-family"]["ipv4-unicast"]
    assert (oaf["enable"], naf["state"]) == ("on", "enabled") and "enable" not in naf
    assert oaf["redistribute"] == {"connected": {"enable": "on", "route-map": "RM-CONN-TO-BGP"}}
    assert naf["redistribute"] == {"connected": {"state": "enabled", "route-map": "RM-CONN-TO-BGP"}}
    # the inbound policy is the RFC 8326 receipt (the example drains by graceful shutdown: tests/test_drain.py)
    inbound = {"policy": {"inbound": {"route-map": "RM-GSHUT-IN"}}}
    assert ob["peer-group"]["SPINES"]["address-family"] == {"ipv4-unicast": {"enable": "on", **inbound}}
    assert nb["peer-group"]["SPINES"]["address-family"] == {"ipv4-unicast": {"state": "enabled", **inbound}}
    assert ob["path-selection"] == {"multipath": {"aspath-ignore": "on"}}
    assert nb["path-selection"] == {"multipath": {"aspath-ignore": "enabled"}}
    summary = _at(devices["p2-s1-rail0-1-2-3"], "5.15")["vrf"]["default"]["router"]["bgp"]["address-family"]
    assert summary["ipv4-unicast"]["aggregate-route"] == {"172.16.64.0/22": {"summary-only": "enabled"}}


def test_bfd_is_a_profile_from_5_15(devices: dict[str, DeviceConfig]) -> None:
    """5.15 dropped `peer-group <g> bfd enable` for `router bfd state enabled` + `router bfd profile <p>` attached
    by `peer-group <g> bfd profile <p>` (BFD guide 5.15): one profile per session tier, a rail switch's SPINES group
    being tier rail_spine (RF-RAIL-SPINE), with the fabric-wide 3 × 300 ms (no bfd_timers in the example); up to
    5.14 the same timers sit on the peer group; a group without BFD gets no `bfd` at all from 5.15."""
    old, new = _at(devices["p1-s1-rail3"], "5.14"), _at(devices["p1-s1-rail3"], "5.15")
    assert old["vrf"]["default"]["router"]["bgp"]["peer-group"]["SPINES"]["bfd"] == {
        "enable": "on", "detect-multiplier": 3, "min-rx-interval": 300, "min-tx-interval": 300}
    assert "bfd" not in old["router"]
    assert new["vrf"]["default"]["router"]["bgp"]["peer-group"]["SPINES"]["bfd"] == {"profile": "RF-RAIL-SPINE"}
    assert new["router"]["bfd"] == {"state": "enabled", "profile": {"RF-RAIL-SPINE": {
        "detect-multiplier": 3, "min-rx-interval": 300, "min-tx-interval": 300}}}
    dev = devices["p1-s1-rail3"]
    quiet = dataclasses.replace(dev, bgp=dataclasses.replace(dev.bgp, peer_groups=tuple(
        dataclasses.replace(g, bfd=False, bfd_timers=None) for g in dev.bgp.peer_groups)))
    assert _at(quiet, "5.14")["vrf"]["default"]["router"]["bgp"]["peer-group"]["SPINES"]["bfd"] == {"enable": "off"}
    off = _at(quiet, "5.15")
    assert "bfd" not in off["vrf"]["default"]["router"]["bgp"]["peer-group"]["SPINES"] and "bfd" not in off["router"]


def test_roce_is_switched_by_state_in_5_15(devices: dict[str, DeviceConfig]) -> None:
    assert _at(devices["p1-s1-rail3"], "5.14")["qos"]["roce"] == {"enable": "on", "mode": "lossless"}
    assert _at(devices["p1-s1-rail3"], "5.15")["qos"]["roce"] == {"state": "enabled", "mode": "lossless"}


def test_the_5_15_file_passes_the_push_access_check(devices: dict[str, DeviceConfig]) -> None:
    """The pre-flight reads eth0 from either side of the renaming: `ipv4` address and the interface's `vrf`."""
    from railfabric.configs.nvue import ansible_plugin as nvue

    dev = devices["p1-s1-rail3"]
    doc = [{"set": _at(dev, "5.15")}]
    assert nvue.rf_nvue_access_problems(doc, "192.168.15.3", dev.system.push_user) == []
    doc[0]["set"]["interface"]["eth0"]["vrf"] = "default"
    assert nvue.rf_nvue_access_problems(doc, "192.168.15.3", dev.system.push_user) == [
        "system ssh-server vrf is mgmt, not 'default' (the VRF of eth0)"]


# --------------------------------------------------------------------------- capabilities


def _nvue(data: dict[str, Any]) -> dict[str, Any]:
    data["fabric"]["platform"] = "nvue"
    return with_system(data)


@pytest.mark.parametrize(("platform", "mode", "refused"), [
    ("nvue", "packet", False), ("nvue", "flow", False), ("nvue", "flowlet", True),
    ("sonic", "packet", True), ("eos", "packet", True)])
def test_ecmp_modes(tmp_path: Path, platform: str, mode: str, refused: bool) -> None:
    data = with_system(base_inventory())
    data["fabric"]["platform"] = platform
    data["routing"] = {"ecmp": {"mode": mode}}
    assert ("PLAT001" in codes(run_data(tmp_path, data))) is refused


def test_watchdog_action_other_than_drop_is_refused(tmp_path: Path) -> None:
    data = _nvue(base_inventory())
    data["qos"] = {"pfc_watchdog": {"action": "forward"}}
    assert "PLAT001" in codes(run_data(tmp_path, data))


def test_mlag_renders(tmp_path: Path) -> None:
    """dual_homing: mlag validates on NVUE (MLAG + VRR with per-switch SVI addresses; the sections are asserted in
    tests/test_mlag_nvue.py)."""
    data = _nvue(base_inventory())
    data["host_models"]["h2d"] = {"gpus": 2, "nics": 2, "nic_speed": "400G", "ports_per_nic": 2}
    seg = data["pods"][0]["segments"][0]
    seg["host_groups"] = [{"model": "h2d", "count": 4}]
    seg["dual_homing"] = "mlag"
    from railfabric.cli import main

    result = run_data(tmp_path, data)
    assert [f for f in result.findings if f.severity == "error"] == []
    assert main(["render", str(tmp_path / "inv"), "--out", str(tmp_path / "out"), "-q"]) == 0
    assert "peerlink.4094" in (tmp_path / "out" / "configs" / "p1-s1-rail0a" / "startup.yaml").read_text()


# --------------------------------------------------------------------------- parse-back


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example rendered with NVUE rail switches under SONiC spines (pod 1 segment 1 on nvue)."""
    from railfabric.cli import main

    base = tmp_path_factory.mktemp("nvue")
    inv = base / "inv"
    shutil.copytree(EXAMPLE, inv)
    pods = inv / "pods.yml"
    line = "        rail_design: single-rail     # one rail per switch: 8 switches, one subnet each, no summary\n"
    text = pods.read_text(encoding="utf-8")
    assert text.count(line) == 1, "the example's segment 1 moved: update this test"
    pods.write_text(text.replace(line, line + "        platform: nvue\n"), encoding="utf-8")
    assert main(["render", str(inv), "--out", str(base / "out")]) == 0
    return base / "out"


def test_mixed_fabric_verifies_clean(rendered: Path) -> None:
    result = verify(rendered, frr_parser=False)
    assert result.failures == [], [f.line() for f in result.failures[:5]]
    assert result.counts["nvue"] == 8 and result.counts["sonic"] == 22 and result.counts["eos"] == 4


def _break(rendered: Path, tmp_path: Path, edit: Any) -> list[tuple[str, str, str]]:
    out = tmp_path / "broken"
    shutil.copytree(rendered, out)
    path = out / "configs" / "p1-s1-rail3" / OUTPUT
    doc = safe_yaml.load(path.read_text(encoding="utf-8"))
    edit(doc[0]["set"])
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return [(f.check, f.device, f.line()) for f in verify(out, frr_parser=False).failures]


def test_verifier_catches_a_broken_mtu(rendered: Path, tmp_path: Path) -> None:
    def edit(t: dict) -> None:
        t["interface"]["swp33"]["link"]["mtu"] = 9000
    found = _break(rendered, tmp_path, edit)
    assert len(found) == 1 and found[0][0] == "link" and "9000" in found[0][2] and "p1-s1-rail3" in found[0][2]


def test_verifier_catches_a_missing_pfc_priority(rendered: Path, tmp_path: Path) -> None:
    def edit(t: dict) -> None:
        t["qos"]["pfc"]["default-global"]["switch-priority"] = {"4": {}}
    found = _break(rendered, tmp_path, edit)
    # every host port (16) and every uplink (8) of the switch lost its lossless priority, and each host NIC on
    # it (16) still runs PFC on priority 3, which the switch port no longer does
    assert {c for c, _d, _l in found} == {"host", "link-qos", "host-qos"} and len(found) >= 16
    assert all("p1-s1-rail3" in line for _c, _d, line in found)
    host_qos = [line for c, _d, line in found if c == "host-qos"]
    assert len(host_qos) == 16 and all("expected PFC on {4}" in line and "found {3}" in line for line in host_qos)


def test_verifier_catches_a_wrong_peer_asn(rendered: Path, tmp_path: Path) -> None:
    def edit(t: dict) -> None:
        t["vrf"]["default"]["router"]["bgp"]["neighbor"]["10.4.1.128"]["remote-as"] = 65000
    found = _break(rendered, tmp_path, edit)
    assert found and all("65000" in line for _c, _d, line in found)


def test_host_vars_point_at_the_yaml(rendered: Path) -> None:
    hv = safe_yaml.load((rendered / "ansible" / "host_vars" / "p1-s1-rail3.yml").read_text(encoding="utf-8"))
    assert json.dumps(hv["config_files"]) == json.dumps({OUTPUT: "../configs/p1-s1-rail3/startup.yaml"})


# --------------------------------------------------------------------------- push filters


def test_nvue_access_check(devices: dict[str, DeviceConfig], tmp_path: Path) -> None:
    from railfabric.configs.nvue import ansible_plugin as nvue
    from railfabric.outputs import ansible_filters as f

    dev = devices["p1-s1-rail3"]
    text = render_device(dev)[OUTPUT]
    doc = safe_yaml.load(text)
    push = dev.system.push_user
    assert nvue.rf_nvue_access_problems(doc, "192.168.15.3", push) == []
    (tmp_path / OUTPUT).write_text(text)
    assert f.rf_access_problems(str(tmp_path), "nvue", "192.168.15.3", push) == []  # the pre-flight's entry point
    assert nvue.rf_nvue_access_problems(doc, "192.168.15.4", push) == [
        "interface eth0 has no address 192.168.15.4, the address Ansible connects to"]
    assert nvue.rf_nvue_access_problems(doc, "192.168.15.3", "noc") == [  # an nvue-monitor account cannot push
        "no `system aaa user noc role system-admin`: the push account would lose its access"]
    del doc[0]["set"]["system"]["ssh-server"]
    assert nvue.rf_nvue_access_problems(doc, "192.168.15.3", push) == [
        "system ssh-server vrf is None, not 'mgmt' (the VRF of eth0)"]


def test_nvue_drain_commands(devices: dict[str, DeviceConfig]) -> None:
    from railfabric.configs.nvue import ansible_plugin as nvue

    doc = safe_yaml.load(render_device(devices["p1-spine1"])[OUTPUT])
    # p1-spine1 (ASN 4200001001) has two peer groups: RAIL-SWITCHES (down) and SUPER-SPINES (up)
    assert nvue.rf_nvue_drain(doc, 2) == [
        "nv set router policy route-map RF-DRAIN rule 10 action permit",
        "nv set router policy route-map RF-DRAIN rule 10 set as-path-prepend as 4200001001,4200001001",
        "nv set vrf default router bgp peer-group RAIL-SWITCHES address-family ipv4-unicast policy outbound "
        "route-map RF-DRAIN",
        "nv set vrf default router bgp peer-group SUPER-SPINES address-family ipv4-unicast policy outbound "
        "route-map RF-DRAIN"]
    assert nvue.rf_nvue_undrain(doc) == [
        "nv unset vrf default router bgp peer-group RAIL-SWITCHES address-family ipv4-unicast policy outbound "
        "route-map",
        "nv unset vrf default router bgp peer-group SUPER-SPINES address-family ipv4-unicast policy outbound "
        "route-map",
        "nv unset router policy route-map RF-DRAIN"]


def test_the_drain_route_map_passes_nvidias_schema(devices: dict[str, DeviceConfig]) -> None:
    """The drain's `nv set` lines as the object they set, checked against NVIDIA's schema of every rendered release:
    the prepended ASNs are one comma-separated list (a space-separated one is refused: the schema's pattern)."""
    from railfabric.configs.nvue import ansible_plugin as nvue
    from railfabric.platforms.nvue_release import RELEASES
    from railfabric.verify.nvue_schema import violations

    doc = safe_yaml.load(render_device(devices["p1-spine1"])[OUTPUT])
    value = nvue.rf_nvue_drain(doc, 3)[1].rsplit(" ", 1)[1]
    assert value == "4200001001,4200001001,4200001001"
    for release in RELEASES:
        for asns, refused in ((value, False), ("4200001001 4200001001", True)):
            tree = {"router": {"policy": {"route-map": {"RF-DRAIN": {"rule": {"10": {
                "action": {"permit": {}}, "set": {"as-path-prepend": {"as": asns}}}}}}}}}
            assert bool(violations([{"set": tree}], release)) is refused, (release, asns)


# --------------------------------------------------------------------------- bundles on NVUE


def _bundled(data: dict[str, Any]) -> dict[str, Any]:
    data["pods"][0]["spines"]["links_per_rail_switch"] = 2
    data["pods"][0]["spines"]["port_channel_members"] = 2
    return data


def test_bundle_rules(tmp_path: Path) -> None:
    # bundles of 2 with the default min-links (every member = 2): NVUE bonds cannot say it
    found = run_data(tmp_path / "a", _bundled(_nvue(base_inventory()))).findings
    assert [(f.code, f.message) for f in found] == [
        ("PLAT001", "port-channel p1-s1-rail0>p1-spine1#pc1 (p1-s1-rail0): min-links 2 cannot be expressed on nvue, "
                    "whose bonds have no min-links (pod 1)")]
    # min-links 1 is what a Linux bond does: renders
    data = _bundled(_nvue(base_inventory()))
    data["pods"][0]["spines"]["port_channel_min_links"] = 1
    assert codes(run_data(tmp_path / "b", data)) == []
    # per-packet ECMP needs routed ports: refused over bonds, fine without them
    data["routing"] = {"ecmp": {"mode": "packet"}}
    data["host_models"]["h2"]["accepts_out_of_order"] = True  # HOST007 otherwise (tests/test_spraying.py)
    assert codes(run_data(tmp_path / "c", data)) == ["PLAT001"]
    plain = _nvue(base_inventory())
    plain["routing"] = {"ecmp": {"mode": "packet"}}
    plain["host_models"]["h2"]["accepts_out_of_order"] = True
    assert codes(run_data(tmp_path / "d", plain)) == []
    # SONiC bundles keep their min-links: no finding
    assert codes(run_data(tmp_path / "e", _bundled(with_system(base_inventory())))) == []


def test_sized_skeleton_on_nvue_validates(tmp_path: Path) -> None:
    """`fabric size --switch-model sn5600` (64 × 800G, breakouts 2x400G and 4x200G: the SN5600 data sheet as
    railfabric/plan/sizing.py presets() has it) printed for NVUE validates clean, push account included (MGMT001)."""
    from railfabric.plan.sizing import host_preset, inventory_skeleton, size_fabric, switch_preset

    sized = size_fabric(1024, host_preset("dgx-h100"), switch_preset("sn5600"))
    (tmp_path / "fabric.yml").write_text(inventory_skeleton(sized, platform="nvue"), encoding="utf-8")
    assert run(tmp_path).findings == []


def test_watchdog_restoration_is_named_when_nvue_cannot_take_it(tmp_path: Path) -> None:
    """NVUE's pfc-watchdog has a polling interval and a robustness count, no restoration time: an inventory that
    writes restoration_ms gets a PLAT001 warning on NVUE (the switch's own restoration applies), none when it leaves
    the value to its default, and none on SONiC, which writes it (restoration_time)."""
    data = with_system(base_inventory())
    data["fabric"]["platform"] = "nvue"
    assert "PLAT001" not in codes(run_data(tmp_path / "default", data))
    data["qos"] = {"pfc_watchdog": {"restoration_ms": 400}}
    found = [f for f in run_data(tmp_path / "set", data).findings if f.code == "PLAT001"]
    assert len(found) == 1 and found[0].severity.value == "warning"
    assert found[0].message.startswith("PFC watchdog restoration_ms 400 cannot be expressed on nvue")
    data["fabric"]["platform"] = "sonic"
    assert "PLAT001" not in codes(run_data(tmp_path / "sonic", data))
