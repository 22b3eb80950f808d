"""Arista EOS rendering (templates/eos/running-config.j2 and its partials) of the example inventory.

The example is all SONiC, so the fixture re-validates it with `fabric.platform: eos` (every switch becomes EOS;
addresses, ASNs and ports do not depend on the platform). Expected values are derived by hand from inventory/
and the layout rules in railfabric/plan/allocate.py and railfabric/topology/expand.py:

- p1-s1-rail3 (pod 1, segment 1, single-rail, rail 3): VLAN 100 + 3 = 103, subnet 172.16.3.0/24 (segment 1 of pod 1
  owns 172.16.0.0/21, rail r its r-th /24), gateway .1. 16 hosts on 2x400G breakouts of ports 1-7 and 9 (port 8
  is disabled in devices.yml), lanes /1 and /5 of each 8-lane OSFP; 4 spines × 2 links on ports 33-40.
- p2-s1-rail0-1-2-3 (pod 2, multi-rail): rail switch slot ((2-1)·8 + 0)·16 + 0 = 128, ASN 4200100000 + 128;
  rails 0-3 are 172.16.64.0/24 ... 172.16.67.0/24, summarised as 172.16.64.0/22; the pod-2 spines share
  4200001000 + 2; the first /31 of pod 2 (10.4.64.0/31) is its first port-channel, numbered by its first
  member's port (33), members on ports 33 and 34.
- p1-spine1: rail switches have unique ASNs (per-neighbor remote-as), super-spines share 4200000000.
- QoS (fabric.yml): RoCE DSCP 26 → TC3 (lossless, PFC priority 3), CNP DSCP 48 → TC6 (strict), the rest → TC0;
  ECN 150000/1500000 bytes at 100 %; watchdog 200/200/200 ms, action drop.

Golden files live in tests/golden/eos/<host>.cfg; regenerate with RAILFABRIC_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest

from railfabric.configs.render import render_device
from railfabric.device import DeviceConfig, build_devices
from railfabric.inventory.intent import Platform
from railfabric.pipeline import run
from railfabric.plan.allocate import allocate
from railfabric.platforms.asic import AsicFamily
from railfabric.topology import expand
from tests.helpers import EXAMPLE

GOLDEN = Path(__file__).resolve().parent / "golden" / "eos"
GOLDEN_HOSTS = ("p1-s1-rail3", "p2-s1-rail0-1-2-3")
OUTPUT = "running-config.cfg"


@pytest.fixture(scope="module")
def devices() -> dict[str, DeviceConfig]:
    r = run(EXAMPLE)
    assert r.findings == [], [str(f) for f in r.findings]
    assert r.inventory is not None
    # every switch EOS; the SN5600 (Spectrum-4: no EOS form, HW007) stands in as a Tomahawk 5 with its port layout,
    # like the example's 7060x6-dual, so every switch writes the Tomahawk forms (uc-tx-queue, MMU profile)
    models = {name: m.model_copy(update={"asic": AsicFamily.TOMAHAWK_5})
              for name, m in r.inventory.switch_models.items()}
    inv = r.inventory.model_copy(
        update={"fabric": r.inventory.fabric.model_copy(update={"platform": Platform.EOS}), "switch_models": models})
    topo = expand(inv)
    plan = allocate(inv, topo)
    devs = build_devices(inv, topo, plan)
    assert {d.platform for d in devs.values()} == {"eos"}
    return devs


@pytest.fixture(scope="module")
def configs(devices: dict[str, DeviceConfig]) -> dict[str, str]:
    return {name: render_device(dev)[OUTPUT] for name, dev in devices.items()}


def lines(text: str) -> list[str]:
    return text.splitlines()


def stanza(text: str, header: str) -> list[str]:
    """The lines of the top-level block that starts with exactly `header`, up to the next top-level line."""
    out: list[str] | None = None
    for line in lines(text):
        if out is None:
            if line == header:
                out = [line]
        elif line.startswith(" "):
            out.append(line)
        else:
            break
    assert out is not None, f"no {header!r} block"
    return out


def interface_blocks(text: str) -> dict[str, list[str]]:
    names = [line.split(" ", 1)[1] for line in lines(text) if line.startswith("interface ")]
    return {name: stanza(text, f"interface {name}") for name in names}


def qos_map(text: str) -> dict[int, int]:
    """DSCP → traffic class from the `qos map dscp ... to traffic-class N` lines; each DSCP at most once."""
    out: dict[int, int] = {}
    for line in lines(text):
        m = re.fullmatch(r"qos map dscp ([\d ]+) to traffic-class (\d)", line)
        if m:
            for dscp in m.group(1).split():
                assert int(dscp) not in out, f"DSCP {dscp} mapped twice"
                out[int(dscp)] = int(m.group(2))
    return out


# --- p2-s1-rail0-1-2-3: multi-rail, summary, port-channels ------------------------------------------------------

def test_multi_rail_bgp(configs: dict[str, str]) -> None:
    bgp = stanza(configs["p2-s1-rail0-1-2-3"], "router bgp 4200100128")
    assert "   router-id 10.0.1.16" in bgp
    assert "   maximum-paths 64 ecmp 64" in bgp
    assert "   bgp bestpath as-path multipath-relax" in bgp
    assert "   aggregate-address 172.16.64.0/22 summary-only" in bgp
    assert "   neighbor SPINES peer group" in bgp
    assert "   neighbor SPINES remote-as 4200001002" in bgp
    assert "   neighbor SPINES bfd" in bgp
    assert "   neighbor 10.4.64.0 peer group SPINES" in bgp
    assert not any(re.fullmatch(r"   neighbor [\d.]+ remote-as \d+", ln) for ln in bgp), "group ASN is shared"
    assert "   redistribute connected route-map RM-CONN-TO-BGP" in bgp
    assert bgp[-2:] == ["   address-family ipv4", "      neighbor SPINES activate"]


def test_multi_rail_port_channel(configs: dict[str, str]) -> None:
    text = configs["p2-s1-rail0-1-2-3"]
    assert stanza(text, "interface Port-Channel33") == [
        "interface Port-Channel33",
        "   description p2-spine1 pc1",
        "   mtu 9214",
        "   no switchport",
        "   ip address 10.4.64.1/31",
        "   port-channel min-links 2",
    ]
    for member in ("Ethernet33/1", "Ethernet34/1"):
        block = stanza(text, f"interface {member}")
        assert "   channel-group 33 mode active" in block
        assert not any(ln.startswith(("   ip address", "   mtu", "   switchport")) for ln in block)
        assert "   priority-flow-control priority 3 no-drop" in block  # PFC stays on the physical members
    assert "   channel-group 35 mode active" in stanza(text, "interface Ethernet35/1")


def test_multi_rail_vlans_and_prefix_list(configs: dict[str, str]) -> None:
    text = configs["p2-s1-rail0-1-2-3"]
    for rail in range(4):
        assert stanza(text, f"vlan {100 + rail}") == [f"vlan {100 + rail}", f"   name RAIL{rail}"]
        assert f"   ip address 172.16.{64 + rail}.1/24" in stanza(text, f"interface Vlan{100 + rail}")
    assert stanza(text, "ip prefix-list PL-LOOPBACK-RAILS") == [
        "ip prefix-list PL-LOOPBACK-RAILS",
        "   seq 10 permit 10.0.1.16/32",
        "   seq 20 permit 172.16.64.0/24",
        "   seq 30 permit 172.16.65.0/24",
        "   seq 40 permit 172.16.66.0/24",
        "   seq 50 permit 172.16.67.0/24",
    ]
    assert stanza(text, "route-map RM-CONN-TO-BGP permit 10") == [
        "route-map RM-CONN-TO-BGP permit 10", "   match ip address prefix-list PL-LOOPBACK-RAILS"]


# --- p1-s1-rail3: breakouts, disabled port, MTU note, QoS ------------------------------------------------------

def test_mtu_normalised(configs: dict[str, str]) -> None:
    text = configs["p1-s1-rail3"]
    assert lines(text)[:4] == [
        "! p1-s1-rail3 — generated by railfabric; do not edit",
        "! fabric mtu 9216 normalised to 9214, the eos maximum",
        "!",
        "hostname p1-s1-rail3",
    ]
    mtus = [ln.strip() for ln in lines(text) if ln.strip().startswith("mtu")]
    assert len(mtus) == 64 + 8 + 1  # 64 ports (8 of them as 2 breakout lanes), the rail SVI
    assert set(mtus) == {"mtu 9214"}
    assert "9216" not in text.replace(lines(text)[1], "")  # only the note mentions it


def test_no_mtu_note_when_not_normalised(devices: dict[str, DeviceConfig]) -> None:
    dev = dataclasses.replace(devices["p1-s1-rail3"], mtu_note="")
    assert lines(render_device(dev)[OUTPUT])[:3] == [
        "! p1-s1-rail3 — generated by railfabric; do not edit", "!", "hostname p1-s1-rail3"]


def test_breakout_host_ports(configs: dict[str, str]) -> None:
    text = configs["p1-s1-rail3"]
    # 2x400G on an 8-lane 800G OSFP: each host lane is a 4-lane 400G interface on the primaries /1 and /5, forced
    # with EOS's lane form, and 100G-per-lane PAM4 needs Reed-Solomon FEC (RS-544)
    assert stanza(text, "interface Ethernet1/1")[:7] == [
        "interface Ethernet1/1",
        "   description p1-s1-gpu001 nic3 port1 rail3",
        "   mtu 9214",
        "   speed 400g-4",
        "   error-correction encoding reed-solomon",
        "   switchport access vlan 103",
        "   switchport mode access",
    ]
    assert stanza(text, "interface Ethernet1/5")[3:7] == [
        "   speed 400g-4", "   error-correction encoding reed-solomon", "   switchport access vlan 103",
        "   switchport mode access"]
    speeds = [ln.strip() for ln in lines(text) if ln.startswith("   speed ")]
    # ports 1-7 and 9 carry two 400G hosts each (16 lanes); 8 unbroken ports of 800G uplinks (33-40) and the
    # 47 unused or disabled ports stay at their native 800g-8
    assert sorted(set(speeds)) == ["speed 400g-4", "speed 800g-8"]
    assert speeds.count("speed 400g-4") == 16 and speeds.count("speed 800g-8") == 64 - 8
    assert "   description p1-s1-gpu002 nic3 port1 rail3" in stanza(text, "interface Ethernet1/5")
    # hosts 15 and 16 moved from the disabled port 8 to port 9
    assert "   description p1-s1-gpu016 nic3 port1 rail3" in stanza(text, "interface Ethernet9/5")
    assert stanza(text, "vlan 103") == ["vlan 103", "   name RAIL3"]
    assert stanza(text, "interface Vlan103") == [
        "interface Vlan103", "   description RAIL3 172.16.3.0/24", "   mtu 9214", "   ip address 172.16.3.1/24"]


def test_disabled_and_unused_ports_shut(configs: dict[str, str]) -> None:
    text = configs["p1-s1-rail3"]
    assert stanza(text, "interface Ethernet8/1") == [
        "interface Ethernet8/1", "   description disabled in inventory", "   shutdown", "   mtu 9214",
        "   speed 800g-8", "   error-correction encoding reed-solomon"]
    assert stanza(text, "interface Ethernet10/1") == [
        "interface Ethernet10/1", "   description unused", "   shutdown", "   mtu 9214", "   speed 800g-8",
        "   error-correction encoding reed-solomon"]
    assert "interface Ethernet8/5" not in text  # port 8 is not broken out
    blocks = interface_blocks(text)
    shut = {name for name, block in blocks.items() if "   shutdown" in block}
    assert shut == {"Ethernet8/1"} | {f"Ethernet{p}/1" for p in (*range(10, 33), *range(41, 65))}


def test_fabric_ports_routed(configs: dict[str, str]) -> None:
    block = stanza(configs["p1-s1-rail3"], "interface Ethernet33/1")
    assert block[:7] == [
        "interface Ethernet33/1",
        "   description p1-spine1 Ethernet7/1",
        "   mtu 9214",
        "   speed 800g-8",
        "   error-correction encoding reed-solomon",
        "   no switchport",
        "   ip address 10.4.1.129/31",
    ]


def test_dscp_map_covers_every_dscp(configs: dict[str, str]) -> None:
    text = configs["p1-s1-rail3"]
    m = qos_map(text)
    assert sorted(m) == list(range(64))  # EOS defaults (24-31 → TC3) must never apply
    assert m[24] == 0 and m[25] == 0 and m[27] == 0
    assert m[26] == 3 and m[48] == 6
    assert {tc for d, tc in m.items() if d not in (26, 48)} == {0}
    assert "qos map dscp 26 to traffic-class 3" in lines(text)
    assert "qos map dscp 48 to traffic-class 6" in lines(text)
    assert " 23 24 25 27 28 " in next(ln for ln in lines(text) if ln.endswith("to traffic-class 0"))


def test_pfc_only_on_host_and_fabric_ports(configs: dict[str, str]) -> None:
    blocks = interface_blocks(configs["p1-s1-rail3"])
    hosts = {f"Ethernet{p}/{lane}" for p in (*range(1, 8), 9) for lane in (1, 5)}
    fabric = {f"Ethernet{p}/1" for p in range(33, 41)}
    with_pfc = {name for name, b in blocks.items() if "   priority-flow-control priority 3 no-drop" in b}
    assert with_pfc == hosts | fabric
    for name in hosts | fabric:
        b = blocks[name]
        assert "   qos trust dscp" in b and "   priority-flow-control on" in b
    for name in set(blocks) - hosts - fabric:
        assert not any("priority-flow-control" in ln or "tx-queue" in ln or "qos" in ln for ln in blocks[name]), name


def test_scheduler_and_ecn(configs: dict[str, str]) -> None:
    block = stanza(configs["p1-s1-rail3"], "interface Ethernet1/1")
    start = block.index("   priority-flow-control on")
    assert block[start:] == [
        "   priority-flow-control on",
        "   priority-flow-control priority 3 no-drop",
        "   priority-flow-control pause watchdog",
        "   !",
        "   uc-tx-queue 0",
        "      no priority",
        "      bandwidth percent 50",
        "   !",
        "   uc-tx-queue 3",
        "      no priority",
        "      bandwidth percent 50",
        "      random-detect ecn minimum-threshold 150000 bytes maximum-threshold 1500000 bytes"
        " max-mark-probability 100",
        "   !",
        "   uc-tx-queue 6",
        "      priority strict",
    ]
    text = configs["p1-s1-rail3"]
    assert text.count("random-detect ecn") == 24  # 16 host lanes + 8 uplinks


def test_pfc_watchdog_globals(configs: dict[str, str]) -> None:
    text = lines(configs["p1-s1-rail3"])
    i = text.index("priority-flow-control pause watchdog default timeout 0.2")
    assert text[i:i + 4] == [
        "priority-flow-control pause watchdog default timeout 0.2",
        "priority-flow-control pause watchdog default recovery-time 0.2",
        "priority-flow-control pause watchdog default polling-interval 0.2",
        "priority-flow-control pause watchdog action drop",
    ]


def test_watchdog_seconds_format(devices: dict[str, DeviceConfig]) -> None:
    dev = devices["p1-s1-rail3"]
    wd = dataclasses.replace(dev.qos.watchdog, detection_ms=1000, restoration_ms=1500, poll_ms=50)
    text = render_device(dataclasses.replace(dev, qos=dataclasses.replace(dev.qos, watchdog=wd)))[OUTPUT]
    assert "priority-flow-control pause watchdog default timeout 1" in lines(text)
    assert "priority-flow-control pause watchdog default recovery-time 1.5" in lines(text)
    assert "priority-flow-control pause watchdog default polling-interval 0.05" in lines(text)


@pytest.mark.parametrize("action", ["forward", "alert"])
def test_watchdog_action_without_eos_word_is_a_validation_error(tmp_path, action: str) -> None:
    from tests.helpers import base_inventory, run_data

    inv = base_inventory()
    inv["fabric"]["platform"] = "eos"
    inv["qos"] = {"pfc_watchdog": {"action": action}}
    found = [f for f in run_data(tmp_path, inv).findings if f.code == "PLAT001"]
    assert len(found) == 1 and f"PFC watchdog action '{action}' cannot be expressed on eos" in found[0].message


def test_qos_features_off(devices: dict[str, DeviceConfig]) -> None:
    dev = devices["p1-s1-rail3"]
    text = render_device(dataclasses.replace(dev, qos=dataclasses.replace(dev.qos, ecn=None, watchdog=None)))[OUTPUT]
    assert "random-detect" not in text
    assert "watchdog" not in text
    assert "   priority-flow-control priority 3 no-drop" in text


def test_management_and_loopback(configs: dict[str, str]) -> None:
    text = configs["p1-s1-rail3"]
    assert stanza(text, "interface Loopback0") == ["interface Loopback0", "   ip address 10.0.0.147/32"]
    assert stanza(text, "interface Management1") == [
        "interface Management1", "   vrf MGMT", "   ip address 192.168.15.3/20"]  # pinned in devices.yml
    assert "vrf instance MGMT" in lines(text)
    assert "ip route vrf MGMT 0.0.0.0/0 192.168.0.1" in lines(text)
    assert "spanning-tree mode none" in lines(text)


# --- single-rail and spine BGP ---------------------------------------------------------------------------------

def test_single_rail_has_no_summary(configs: dict[str, str]) -> None:
    text = configs["p1-s1-rail0"]
    assert "aggregate-address" not in text
    assert "router bgp 4200100000" in lines(text)
    assert "   neighbor SPINES remote-as 4200001001" in lines(text)


def test_spine_per_neighbor_asn(configs: dict[str, str]) -> None:
    bgp = stanza(configs["p1-spine1"], "router bgp 4200001001")
    assert "   neighbor SUPER-SPINES remote-as 4200000000" in bgp
    assert "   neighbor RAIL-SWITCHES peer group" in bgp
    assert not any(ln.startswith("   neighbor RAIL-SWITCHES remote-as") for ln in bgp)
    assert "   neighbor 10.4.0.1 peer group RAIL-SWITCHES" in bgp
    assert "   neighbor 10.4.0.1 remote-as 4200100000" in bgp
    assert "   neighbor 10.4.0.129 remote-as 4200100001" in bgp
    assert "   neighbor 10.6.0.0 peer group SUPER-SPINES" in bgp
    assert not any(ln.startswith("   neighbor 10.6.0.0 remote-as") for ln in bgp)
    assert "      neighbor SUPER-SPINES activate" in bgp and "      neighbor RAIL-SWITCHES activate" in bgp
    # a group is declared before any neighbor joins it
    first_member = next(i for i, ln in enumerate(bgp) if re.match(r"   neighbor [\d.]+ peer group ", ln))
    assert max(i for i, ln in enumerate(bgp) if ln.endswith(" peer group")) < first_member


# --- structure -------------------------------------------------------------------------------------------------

def test_section_order(configs: dict[str, str]) -> None:
    text = lines(configs["p2-s1-rail0-1-2-3"])

    def first(prefix: str) -> int:
        return next(i for i, ln in enumerate(text) if ln.startswith(prefix))

    order = ["hostname ", "spanning-tree mode none", "vlan ", "vrf instance MGMT", "interface Port-Channel",
             "interface Ethernet", "interface Loopback0", "interface Management1", "interface Vlan", "ip routing",
             "ip prefix-list ", "ip route vrf MGMT", "qos map dscp", "priority-flow-control pause watchdog default",
             "route-map ", "router bgp ", "end"]
    positions = [first(p) for p in order]
    assert positions == sorted(positions), dict(zip(order, positions, strict=True))
    assert text[-1] == "end"
    assert configs["p2-s1-rail0-1-2-3"].endswith("!\nend\n")


def test_every_switch_renders(configs: dict[str, str], devices: dict[str, DeviceConfig]) -> None:
    assert len(configs) == 34
    for name, text in configs.items():
        assert "None" not in text and "{{" not in text and "{%" not in text, name
        assert text.startswith(f"! {devices[name].hostname} — generated by railfabric")
        assert f"hostname {devices[name].hostname}" in lines(text)
        assert text.endswith("\nend\n"), name
        for ln in lines(text):
            # a qos map line lists at most 64 DSCPs (≤ 213 characters); everything else stays short
            limit = 220 if ln.startswith("qos map dscp ") else 200
            assert len(ln) <= limit, (name, ln)
            assert ln == ln.rstrip() and "\t" not in ln, (name, ln)
            indent = len(ln) - len(ln.lstrip(" "))
            # EOS indents 3 spaces per level; the `platform trident mmu queue profile` block 4, as AVD's intended
            # configs print it (railfabric/platforms/eos_asic.py)
            assert indent % 3 == 0 or (indent == 4 and ln.lstrip().startswith("ingress ")), (name, ln)
        assert sorted(qos_map(text)) == list(range(64)), name
    assert "hostname core-ss1" in lines(configs["core-ss1"])


@pytest.mark.parametrize("host", GOLDEN_HOSTS)
def test_golden(configs: dict[str, str], host: str) -> None:
    path = GOLDEN / f"{host}.cfg"
    if os.environ.get("RAILFABRIC_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(configs[host], encoding="utf-8")
    assert path.exists(), f"missing {path}; run with RAILFABRIC_UPDATE_GOLDEN=1 to create it"
    assert configs[host] == path.read_text(encoding="utf-8"), f"{host} differs from {path}"
