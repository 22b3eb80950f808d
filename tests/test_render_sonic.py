"""SONiC rendering (config_db.json: railfabric/platforms/sonic_config_db*.py; frr.conf: templates/sonic/) of the shipped
example (with its EOS segment, pod 1 segment 2, moved to SONiC: tests/helpers.py example_all_sonic), checked against
values derived by hand from inventory/ and the layout rules of railfabric/plan/allocate.py and
railfabric/topology/expand.py.

Derivations (example limits: 16 super-spines, 8 pods × 16 spines, 8 segments per pod × 16 rail switches,
64 uplinks per rail switch, a /21 of 172.16.0.0/12 per segment; sn5600 = 64 × 800G with 8 serdes lanes, so SONiC
names port p Ethernet(8·(p-1)) and its second 2x400G lane Ethernet(8·(p-1)+4)):
- p1-s1-rail3: rail tier slot 3 → ASN 4200100000 + 3; device slot 16 + 128 + 3 = 147 → loopback 10.0.0.147;
  rail 3 → VLAN 103; segment (1,1) is block 0 = 172.16.0.0/21, single-rail switch 3 owns 172.16.3.0/24, gateway .1;
  hosts sit two per 2x400G port from port 1 (Ethernet0 = port 1 lane 1, 400G); port 8 is disabled (Ethernet56);
  uplinks: slot 3 × 64 /31s = 10.4.1.128 onwards, the spine takes the even end, port 33 = Ethernet256 → .129/31.
- p2-s1-rail0-1-2-3: rail tier slot (2-1)·8·16 = 128 → ASN 4200100128, uplinks from 10.4.0.0 + 128·64·2 = 10.4.64.0;
  links to each spine bundle in pairs, the first on ports 33+34 → PortChannel33 (Ethernet256 + Ethernet264) with
  10.4.64.1/31; pod 2's spines share 4200001000 + 2; segment (2,1) is block 8 = 172.16.64.0/21, its 4 rails take
  one /24 each of the /22 summary 172.16.64.0/22.
- p1-s2-rail1-5: segment (1,2) is block 1 = 172.16.8.0/21; rail group 1 (rails 1 and 5) owns the second /24 of it,
  172.16.9.0/24, split into two /25 rail subnets.
- p1-spine1: its first rail-switch neighbour is p1-s1-rail0 (slot 0: the first /31 10.4.0.0/31, spine end even, so
  the neighbour address is 10.4.0.1, ASN 4200100000); every rail switch has its own ASN, so RAIL-SWITCHES carries
  no shared remote-as; the super-spines share 4200000000.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from railfabric.configs.render import render_device
from railfabric.device import DeviceConfig, build_devices
from railfabric.pipeline import run
from tests.helpers import ROOT, example_all_sonic

GOLDEN = ROOT / "tests" / "golden" / "sonic"
GOLDEN_HOSTS = ("p1-s1-rail3", "p2-s1-rail0-1-2-3")
UPDATE = os.environ.get("RAILFABRIC_UPDATE_GOLDEN") == "1"


@pytest.fixture(scope="module")
def devices(tmp_path_factory: pytest.TempPathFactory) -> dict[str, DeviceConfig]:
    # the example with its EOS segment (pod 1 segment 2, dual-rail) on SONiC, so every rail design is rendered here
    r = run(example_all_sonic(tmp_path_factory.mktemp("example") / "inventory"))
    assert r.findings == [], [str(f) for f in r.findings]
    assert r.inventory is not None and r.topology is not None and r.plan is not None
    return build_devices(r.inventory, r.topology, r.plan)


@pytest.fixture(scope="module")
def rendered(devices: dict[str, DeviceConfig]) -> dict[str, dict[str, str]]:
    return {name: render_device(dev) for name, dev in devices.items()}


def config_db(rendered: dict[str, dict[str, str]], host: str) -> dict:
    return json.loads(rendered[host]["config_db.json"])


def frr_lines(rendered: dict[str, dict[str, str]], host: str) -> list[str]:
    return rendered[host]["frr.conf"].splitlines()


# --- config_db.json ---------------------------------------------------------------------------------------------

def test_rail_switch_identity(rendered: dict[str, dict[str, str]]) -> None:
    c = config_db(rendered, "p1-s1-rail3")
    meta = c["DEVICE_METADATA"]["localhost"]
    assert meta["hostname"] == "p1-s1-rail3"
    assert meta["bgp_asn"] == "4200100003"
    assert meta["type"] == "LeafRouter"
    assert meta["docker_routing_config_mode"] == "split"  # BGP lives in frr.conf
    assert meta["default_pfcwd_status"] == "enable"
    assert meta["buffer_model"] == "traditional"
    assert "hwsku" not in meta  # the example's switch models name no SKU
    assert "BGP_NEIGHBOR" not in c
    assert c["LOOPBACK_INTERFACE"] == {"Loopback0": {}, "Loopback0|10.0.0.147/32": {}}
    # management pinned in devices.yml; the /20 and gateway come from pools.management
    assert c["MGMT_INTERFACE"] == {"eth0|192.168.15.3/20": {"gwaddr": "192.168.0.1"}}


def test_roles_map_to_sonic_types(rendered: dict[str, dict[str, str]]) -> None:
    assert config_db(rendered, "p1-spine1")["DEVICE_METADATA"]["localhost"]["type"] == "SpineRouter"
    assert config_db(rendered, "core-ss1")["DEVICE_METADATA"]["localhost"]["type"] == "SpineRouter"
    assert config_db(rendered, "core-ss1")["DEVICE_METADATA"]["localhost"]["bgp_asn"] == "4200000000"


def test_rail_vlan_and_host_ports(rendered: dict[str, dict[str, str]]) -> None:
    c = config_db(rendered, "p1-s1-rail3")
    assert c["VLAN"] == {"Vlan103": {"vlanid": "103", "mtu": "9216", "description": "RAIL3"}}
    assert c["VLAN_INTERFACE"] == {"Vlan103": {}, "Vlan103|172.16.3.1/24": {}}
    # 16 hosts, two per 2x400G port on ports 1-7 and 9 (port 8 is disabled): lanes at +0 and +4
    expected = [f"Ethernet{8 * (p - 1) + off}" for p in (1, 2, 3, 4, 5, 6, 7, 9) for off in (0, 4)]
    assert sorted(c["VLAN_MEMBER"]) == sorted(f"Vlan103|{e}" for e in expected)
    assert all(v == {"tagging_mode": "untagged"} for v in c["VLAN_MEMBER"].values())
    host = c["PORT"]["Ethernet0"]
    assert host["speed"] == "400000" and host["admin_status"] == "up" and host["mtu"] == "9216"
    assert host["description"] == "p1-s1-gpu001 nic3 port1 rail3"
    assert c["PORT"]["Ethernet4"]["speed"] == "400000"
    # 400G over 4 lanes = 100G-per-lane PAM4: RS-FEC at both ends (sonic-port.yang: fec "rs|fc|none|auto")
    assert host["fec"] == "rs" and c["PORT"]["Ethernet4"]["fec"] == "rs"
    assert {p["fec"] for p in c["PORT"].values()} == {"rs"}  # every port of this switch runs 100G lanes
    assert "Ethernet0" not in c.get("INTERFACE", {})  # access ports carry no IP


def test_breakout_and_disabled_port(rendered: dict[str, dict[str, str]]) -> None:
    c = config_db(rendered, "p1-s1-rail3")
    assert c["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": "2x400G"}
    assert "Ethernet4" not in c["BREAKOUT_CFG"]  # keyed by the lane-1 interface only
    assert sorted(c["BREAKOUT_CFG"], key=lambda n: int(n[8:])) == [
        f"Ethernet{8 * (p - 1)}" for p in (1, 2, 3, 4, 5, 6, 7, 9)]
    assert c["PORT"]["Ethernet56"]["admin_status"] == "down"  # port 8: bad cage
    assert c["PORT"]["Ethernet56"]["speed"] == "800000"  # not broken out
    assert c["PORT"]["Ethernet56"]["description"] == "disabled in inventory"
    assert c["PORT"]["Ethernet504"]["admin_status"] == "down"  # port 64: unused
    assert len(c["PORT"]) == 64 - 8 + 2 * 8  # 8 ports broken out into 2 lanes each


def test_routed_uplinks(rendered: dict[str, dict[str, str]]) -> None:
    c = config_db(rendered, "p1-s1-rail3")
    assert "Ethernet256|10.4.1.129/31" in c["INTERFACE"]  # port 33 → p1-spine1
    assert "Ethernet256" in c["INTERFACE"]
    # 4 spines × 2 links on ports 33-40, consecutive /31s
    assert sorted(k for k in c["INTERFACE"] if "|" in k) == sorted(
        f"Ethernet{256 + 8 * i}|10.4.1.{129 + 2 * i}/31" for i in range(8))
    assert c["PORT"]["Ethernet256"]["speed"] == "800000"
    assert c["PORT"]["Ethernet256"]["description"] == "p1-spine1 Ethernet48"
    assert "PORTCHANNEL" not in c


def test_port_channels(rendered: dict[str, dict[str, str]]) -> None:
    c = config_db(rendered, "p2-s1-rail0-1-2-3")
    assert c["PORTCHANNEL"]["PortChannel33"] == {
        "admin_status": "up", "mtu": "9216", "min_links": "2", "description": "p2-spine1 pc1"}
    assert {k for k in c["PORTCHANNEL_MEMBER"] if k.startswith("PortChannel33|")} == {
        "PortChannel33|Ethernet256", "PortChannel33|Ethernet264"}
    assert "PortChannel33|10.4.64.1/31" in c["PORTCHANNEL_INTERFACE"]
    assert "PortChannel33" in c["PORTCHANNEL_INTERFACE"]
    # 4 spines × 8 links in pairs → 16 port-channels named after their first member port: 33, 35, ..., 63
    assert sorted(c["PORTCHANNEL"], key=lambda n: int(n[11:])) == [f"PortChannel{p}" for p in range(33, 64, 2)]
    assert "INTERFACE" not in c  # members carry no IP of their own
    assert c["VLAN_INTERFACE"]["Vlan100|172.16.64.1/24"] == {}
    assert c["VLAN_INTERFACE"]["Vlan103|172.16.67.1/24"] == {}


def test_roce_qos_maps(rendered: dict[str, dict[str, str]]) -> None:
    c = config_db(rendered, "p1-s1-rail3")
    dscp = c["DSCP_TO_TC_MAP"]["AI_ROCE"]
    assert len(dscp) == 64  # every DSCP mapped: nothing falls back to SONiC's AZURE map
    assert dscp["26"] == "3"  # RoCE data → lossless TC 3
    assert dscp["48"] == "6"  # CNP → strict TC 6
    # the SONiC trap: its default map makes DSCP 3 and 4 lossless; ours sends them (and 24) to best effort
    assert dscp["3"] == dscp["4"] == dscp["24"] == "0"
    assert c["TC_TO_QUEUE_MAP"]["AI_ROCE"] == {str(i): str(i) for i in range(8)}
    assert c["TC_TO_PRIORITY_GROUP_MAP"]["AI_ROCE"] == {**{str(i): "0" for i in range(8)}, "3": "3"}
    assert c["MAP_PFC_PRIORITY_TO_QUEUE"]["AI_ROCE"] == {"3": "3"}
    assert c["PORT_QOS_MAP"]["Ethernet0"] == {
        "dscp_to_tc_map": "AI_ROCE", "tc_to_queue_map": "AI_ROCE", "tc_to_pg_map": "AI_ROCE",
        "pfc_to_queue_map": "AI_ROCE", "pfc_enable": "3", "pfcwd_sw_enable": "3"}
    assert "Ethernet256" in c["PORT_QOS_MAP"]  # fabric uplinks too
    assert "Ethernet56" not in c["PORT_QOS_MAP"]  # not the disabled port
    assert c["WRED_PROFILE"]["AI_LOSSLESS"] == {
        "ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "150000",
        "green_max_threshold": "1500000", "green_drop_probability": "100"}


def test_scheduler_queues_and_watchdog(rendered: dict[str, dict[str, str]]) -> None:
    c = config_db(rendered, "p1-s1-rail3")
    sched = c["SCHEDULER"]
    types = {name: s["type"] for name, s in sched.items()}
    assert sorted(types.values()) == ["DWRR", "DWRR", "STRICT"]
    q0, q3, q6 = (c["QUEUE"][f"Ethernet0|{q}"] for q in (0, 3, 6))
    assert sched[q6["scheduler"]]["type"] == "STRICT" and "wred_profile" not in q6  # CNP
    assert sched[q3["scheduler"]] == {"type": "DWRR", "weight": "50"}  # RoCE: 50 %
    assert sched[q0["scheduler"]] == {"type": "DWRR", "weight": "50"}  # the rest: 50 %
    assert q3["wred_profile"] == "AI_LOSSLESS" and "wred_profile" not in q0  # ECN only on the lossless queue
    assert c["PFC_WD"]["GLOBAL"] == {"POLL_INTERVAL": "200"}
    assert c["PFC_WD"]["Ethernet0"] == {"action": "drop", "detection_time": "200", "restoration_time": "200"}
    assert set(c["PFC_WD"]) - {"GLOBAL"} == set(c["PORT_QOS_MAP"])


def test_qos_switches_off(devices: dict[str, DeviceConfig]) -> None:
    """No ECN → no WRED profile anywhere; no watchdog → no PFC_WD, no pfcwd_sw_enable, pfcwd status disabled."""
    dev = devices["p1-s1-rail3"]
    off = dataclasses.replace(dev, qos=dataclasses.replace(dev.qos, ecn=None, watchdog=None), hwsku="ACME-64x800G")
    c = json.loads(render_device(off)["config_db.json"])
    meta = c["DEVICE_METADATA"]["localhost"]
    assert meta["default_pfcwd_status"] == "disable" and meta["hwsku"] == "ACME-64x800G"
    assert "WRED_PROFILE" not in c and "PFC_WD" not in c
    assert all("wred_profile" not in q for q in c["QUEUE"].values())
    assert c["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] == "3"
    assert "pfcwd_sw_enable" not in c["PORT_QOS_MAP"]["Ethernet0"]


# --- frr.conf ---------------------------------------------------------------------------------------------------

def test_frr_header_and_policy(rendered: dict[str, dict[str, str]]) -> None:
    lines = frr_lines(rendered, "p1-s1-rail0")
    assert lines[0] == "! p1-s1-rail0 — generated by railfabric; do not edit"
    assert lines[1:5] == ["frr defaults datacenter", "hostname p1-s1-rail0", "log syslog informational",
                          "service integrated-vtysh-config"]
    # slot 0: loopback 10.0.0.144, rail 0 subnet 172.16.0.0/24
    assert "ip prefix-list PL-LOOPBACK-RAILS seq 10 permit 10.0.0.144/32" in lines
    assert "ip prefix-list PL-LOOPBACK-RAILS seq 20 permit 172.16.0.0/24" in lines
    i = lines.index("route-map RM-CONN-TO-BGP permit 10")
    assert lines[i + 1] == " match ip address prefix-list PL-LOOPBACK-RAILS"
    assert "  redistribute connected route-map RM-CONN-TO-BGP" in lines
    assert not any("aggregate-address" in ln for ln in lines)  # single-rail: the /24 is the summary


def test_frr_rail_switch_bgp(rendered: dict[str, dict[str, str]]) -> None:
    lines = frr_lines(rendered, "p2-s1-rail0-1-2-3")
    assert "router bgp 4200100128" in lines
    assert " bgp router-id 10.0.1.16" in lines  # slot 144 + 128 = 272 → 10.0.1.16
    assert " bgp bestpath as-path multipath-relax" in lines
    assert " no bgp ebgp-requires-policy" in lines
    assert "  aggregate-address 172.16.64.0/22 summary-only" in lines
    assert " neighbor SPINES remote-as 4200001002" in lines
    assert " neighbor SPINES bfd profile RF-RAIL-SPINE" in lines  # tier rail_spine, the fabric-wide 300 ms x 3
    assert "  maximum-paths 64" in lines
    # one session per port-channel: 16, at the spine (even) end of each /31
    members = [ln.split()[1] for ln in lines if ln.endswith(" peer-group SPINES")]
    assert members == [f"10.4.64.{4 * i}" for i in range(16)]
    assert not any(re.match(r" neighbor 10\.\S+ remote-as", ln) for ln in lines)  # the group carries it
    af = lines[lines.index(" address-family ipv4 unicast"):lines.index(" exit-address-family")]
    assert "  neighbor SPINES activate" in af


def test_frr_dual_rail_summary(rendered: dict[str, dict[str, str]]) -> None:
    lines = frr_lines(rendered, "p1-s2-rail1-5")
    assert "  aggregate-address 172.16.9.0/24 summary-only" in lines
    assert "ip prefix-list PL-LOOPBACK-RAILS seq 20 permit 172.16.9.0/25" in lines
    assert "ip prefix-list PL-LOOPBACK-RAILS seq 30 permit 172.16.9.128/25" in lines


def test_frr_spine_per_neighbor_asn(rendered: dict[str, dict[str, str]]) -> None:
    lines = frr_lines(rendered, "p1-spine1")
    assert "router bgp 4200001001" in lines
    assert " neighbor SUPER-SPINES remote-as 4200000000" in lines
    assert not any(ln.startswith(" neighbor RAIL-SWITCHES remote-as") for ln in lines)
    # FRR needs the remote-as before joining a group that has none
    i = lines.index(" neighbor 10.4.0.1 remote-as 4200100000")
    assert lines[i + 1] == " neighbor 10.4.0.1 peer-group RAIL-SWITCHES"
    assert " neighbor 10.4.1.129 remote-as 4200100003" in lines  # p1-s1-rail3's first uplink
    assert " neighbor 10.4.1.129 description p1-s1-rail3 Ethernet256" in lines
    assert not any("aggregate-address" in ln for ln in lines)  # spine_pod_aggregate is off in the example


def test_rail_only_pod_has_no_peers(rendered: dict[str, dict[str, str]]) -> None:
    lines = frr_lines(rendered, "p3-s1-rail0")
    assert not any(ln.startswith(" neighbor") for ln in lines)
    assert "  redistribute connected route-map RM-CONN-TO-BGP" in lines


# --- every device -----------------------------------------------------------------------------------------------

def test_every_device_renders_consistently(rendered: dict[str, dict[str, str]]) -> None:
    assert len(rendered) == 4 + 8 + 22
    for host, files in rendered.items():
        assert set(files) == {"config_db.json", "frr.conf"}, host
        c = json.loads(files["config_db.json"])
        frr = files["frr.conf"]
        assert "None" not in frr and "{{" not in frr and "{%" not in frr, host
        assert "None" not in files["config_db.json"], host
        # SONiC wants every leaf as a string (a YANG leaf-list, e.g. DNS_OPTIONS search, as a list of strings)
        for table, rows in c.items():
            for key, row in rows.items():
                assert all(isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))
                           for v in row.values()), (host, table, key)
        ports = set(c["PORT"])
        assert {k.split("|")[1] for k in c.get("VLAN_MEMBER", {})} <= ports, host
        assert {k.split("|")[1] for k in c.get("PORTCHANNEL_MEMBER", {})} <= ports, host
        assert set(c.get("PORT_QOS_MAP", {})) <= ports, host
        assert {k.split("|")[0] for k in c.get("INTERFACE", {})} <= ports, host
        assert {q["scheduler"] for q in c.get("QUEUE", {}).values()} <= set(c["SCHEDULER"]), host
        for key in c.get("PORTCHANNEL_MEMBER", {}):  # a member's MTU must match its channel's
            pc, member = key.split("|")
            assert c["PORT"][member]["mtu"] == c["PORTCHANNEL"][pc]["mtu"], (host, key)
        # every BGP neighbour gets a remote-as, from its group or its own line
        group_as = set(re.findall(r"^ neighbor (\S+) remote-as \d+$", frr, re.M))
        for ip, group in re.findall(r"^ neighbor (\S+) peer-group (\S+)$", frr, re.M):
            assert group in group_as or ip in group_as, (host, ip)
        assert f"router bgp {c['DEVICE_METADATA']['localhost']['bgp_asn']}" in frr.splitlines(), host


@pytest.mark.skipif(shutil.which("vtysh") is None, reason="FRR (vtysh) is not installed")
def test_frr_conf_parses_with_vtysh(rendered: dict[str, dict[str, str]], tmp_path: Path) -> None:
    for host, files in rendered.items():
        path = tmp_path / f"{host}.conf"
        path.write_text(files["frr.conf"], encoding="utf-8")
        proc = subprocess.run(["vtysh", "-C", "-f", str(path)], capture_output=True, text=True, timeout=60)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 0 and "%" not in output, f"{host}: {output}"


# --- golden files -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("host", GOLDEN_HOSTS)
@pytest.mark.parametrize("filename", ["config_db.json", "frr.conf"])
def test_golden(rendered: dict[str, dict[str, str]], host: str, filename: str) -> None:
    """Byte-for-byte against tests/golden/sonic/<host>/; RAILFABRIC_UPDATE_GOLDEN=1 rewrites them."""
    path = GOLDEN / host / filename
    text = rendered[host][filename]
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} missing: run with RAILFABRIC_UPDATE_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(list(difflib.unified_diff(expected.splitlines(keepends=True), text.splitlines(keepends=True),
                                                 f"golden/{host}/{filename}", "rendered"))[:80])
        pytest.fail(f"{host}/{filename} differs from the golden file "
                    f"(RAILFABRIC_UPDATE_GOLDEN=1 to accept):\n{diff}")


def test_port_lanes_follow_sequential_serdes_numbering() -> None:
    """sn5600: 8 serdes lanes per port; a 2x400G breakout gives each half 4 lanes; native 800G ports all 8."""
    from railfabric.device import build_devices
    from railfabric.pipeline import run
    from tests.helpers import EXAMPLE

    r = run(EXAMPLE)
    dev = build_devices(r.inventory, r.topology, r.plan)["p1-s1-rail3"]  # type: ignore[arg-type]
    assert dev.interface("Ethernet0").lanes == (0, 1, 2, 3)
    assert dev.interface("Ethernet4").lanes == (4, 5, 6, 7)
    assert dev.interface("Ethernet256").lanes == tuple(range(256, 264))  # port 33, uplink, native 800G
