"""Arista's own generator agrees with railfabric's EOS lines (tests/avd_oracle.py).

EOS has no validator that runs offline (docs/platforms.md). Arista's AVD (PyPI `pyavd`, eos_cli_config_gen) is the
closest thing Arista publishes: it validates a switch's "structured config" against Arista's schema and renders EOS
CLI from it. For every EOS switch of several fabrics, tests/avd_oracle.py writes what railfabric's device model says
in AVD's keys (from the model, not from railfabric's text); AVD must accept that data, and for every configuration
section AVD renders, railfabric's running-config.cfg must hold the same section with every one of AVD's lines, spelt
the same. Lines railfabric writes that AVD does not are allowed only where listed in OURS_ONLY, each with why.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

from railfabric.configs.render import render_device
from railfabric.device.model import DeviceConfig
from railfabric.pipeline import run
from tests.avd_oracle import QOS_PROFILE, sections, structured_config
from tests.helpers import EXAMPLE, base_inventory, devices_of, mlag_inventory, run_data, with_system
from tests.test_ipv6 import dual

pyavd = pytest.importorskip("pyavd", reason="pyavd (Arista AVD, the `test` extra) is not installed")

# lines railfabric writes that the mapped AVD data does not produce, per kind of section, and why
OURS_ONLY = {
    # a RoCE port's QoS lines: compared with AVD's qos profile instead (below)
    "interface Ethernet": re.compile(r"(qos trust dscp|priority-flow-control .*|(uc-)?tx-queue \d+( / .*)?)$"),
    # eBGP multipath across the rail switches' own ASNs: AVD has no key for it; the arista.eos collection's
    # bgp_global parser reads `bgp bestpath as-path multipath-relax|ignore`
    "router bgp": re.compile(r"bgp bestpath as-path multipath-relax$"),
}
# AVD takes an MD5 key only as an EOS type-7 encrypted string (`password 7 <hash>`); railfabric writes the vault's
# key in clear (`password 0 <key>`, filled in at push time): the same statement, another key encoding
PASSWORD = re.compile(r"neighbor (\S+) password [07] (%%vault\.\S+%%)$")
PORT_QOS = OURS_ONLY["interface Ethernet"]
# the per-port PFC watchdog switch: not in the AVD profile (tests/avd_oracle.py: pyavd's template fails on it)
WATCHDOG = "priority-flow-control pause watchdog"


def _port_qos(avd: dict[str, list[str]], ours: dict[str, list[str]]) -> tuple[list[str], int]:
    """Each RoCE port's QoS lines (a port with `qos trust dscp`) against AVD's qos profile of the same QoS."""
    profile = avd.pop(f"qos profile {QOS_PROFILE}")
    problems: list[str] = []
    ports = 0
    for head, lines in ours.items():
        mine = [ln for ln in lines if PORT_QOS.match(ln) and ln != WATCHDOG]
        if not head.startswith("interface Ethernet") or "qos trust dscp" not in mine:
            continue
        ports += 1
        if sorted(mine) != sorted(profile):
            problems.append(f"{head!r}: QoS lines {sorted(set(mine) ^ set(profile))} differ from AVD's qos profile")
    if not ports:
        problems.append("no RoCE port (qos trust dscp) to compare with AVD's qos profile")
    return problems, ports * len(profile)


def compare(avd_text: str, ours_text: str) -> tuple[list[str], int]:
    """Differences (one line each) between AVD's and railfabric's configuration of one switch, and the number of
    AVD lines compared."""
    avd, ours = sections(avd_text), sections(ours_text)
    problems, compared = _port_qos(avd, ours)
    for head, lines in avd.items():
        if head not in ours:
            problems.append(f"section {head!r}: AVD writes it, railfabric does not")
            continue
        mine = ours[head]
        kind = next((k for k in OURS_ONLY if head.startswith(k)), None)
        for ln in lines:
            compared += 1
            m = PASSWORD.match(ln)
            if ln not in mine and not (m and f"neighbor {m.group(1)} password 0 {m.group(2)}" in mine):
                problems.append(f"{head!r}: AVD writes {ln!r}, railfabric does not")
        for ln in mine:
            if ln in lines or (kind and OURS_ONLY[kind].match(ln)):
                continue
            m = PASSWORD.match(ln)
            if m and f"neighbor {m.group(1)} password 7 {m.group(2)}" in lines:
                continue
            problems.append(f"{head!r}: railfabric writes {ln!r}, AVD does not")
    return problems, compared


def _eos(data: dict[str, Any]) -> dict[str, Any]:
    data["fabric"]["platform"] = "eos"
    return with_system(data)


def _unnumbered_dual_stack() -> dict[str, Any]:
    data = _eos(base_inventory())
    data["routing"] = {"addressing": "unnumbered"}
    del data["pools"]["fabric_links"]
    return dual(data)


def _keys_and_timers() -> dict[str, Any]:
    data = _eos(base_inventory())
    data["routing"] = {"bfd_timers": {"interval_ms": 200, "multiplier": 4},
                       "authentication": {"rail_spine": {"password": {"vault": "bgp_rail"}}}}
    return data


def _tcp_ao_rollover_flowlet() -> dict[str, Any]:
    data = _eos(base_inventory())
    data["routing"] = {"ecmp": {"mode": "flowlet"}, "authentication": {"rail_spine": {
        "algorithm": "tcp-ao", "password": {"vault": "bgp_rail_2026"}, "key_id": 3,
        "next": {"password": {"vault": "bgp_rail_2027"}, "key_id": 4, "send_from": "2027-01-15T06:00:00Z"}}}}
    return data


def _port_channels() -> dict[str, Any]:
    data = _eos(base_inventory())
    data["pods"][0]["spines"].update(links_per_rail_switch=2, port_channel_members=2)
    return data


FABRICS = {  # name → inventory data (None: the shipped example, whose pod 1 segment 2 is EOS)
    "example": None,
    "mini-numbered-keys-bfd-timers": _keys_and_timers,
    "mini-port-channels": _port_channels,
    "mini-tcp-ao-rollover-flowlet": _tcp_ao_rollover_flowlet,
    "mini-mlag": lambda: mlag_inventory("eos"),
    "mini-unnumbered-dual-stack": _unnumbered_dual_stack,
}


def _devices(name: str) -> dict[str, DeviceConfig]:
    make = FABRICS[name]
    res = run(EXAMPLE) if make is None else run_data(Path(tempfile.mkdtemp(prefix="avd-")), make())
    return {n: d for n, d in devices_of(res).items() if d.platform == "eos"}


@pytest.mark.parametrize("fabric", sorted(FABRICS))
def test_avd_writes_what_railfabric_writes(fabric: str) -> None:
    devices = _devices(fabric)
    assert len(devices) == 4, sorted(devices)  # every fabric here has 4 EOS switches: the oracle ran on something
    for name, d in devices.items():
        data = structured_config(d)
        result = pyavd.validate_structured_config(data)
        assert not result.failed, (name, [str(e) for e in result.validation_errors])
        avd = pyavd.get_device_config(data)
        problems, compared = compare(avd, render_device(d)["running-config.cfg"])
        assert problems == [], (name, problems[:10])
        assert compared > 60, (name, compared)  # interfaces, VLANs, prefix-lists, route-maps, BGP: not a stub
        if fabric == "mini-tcp-ao-rollover-flowlet":  # both keys of the rollover and the DLB line were compared
            assert "ip hardware fib load-balance distribution dynamic" in sections(avd)
            secrets = [ln for ln in sections(avd)["management security"] if " / secret " in ln]
            assert [ln.split(" / ")[1].split()[:2] for ln in secrets] == [["secret", "3"], ["secret", "4"]], secrets


def test_a_misspelt_line_is_caught() -> None:
    d = _devices("mini-unnumbered-dual-stack")["p1-s1-rail0"]
    data = structured_config(d)
    ours = render_device(d)["running-config.cfg"]
    avd = pyavd.get_device_config(data)
    assert compare(avd, ours)[0] == []
    # one IPv6 family line spelt another way, one AVD line dropped, one stray line added: each named
    bad = (ours.replace("      neighbor SPINES activate\n      neighbor SPINES route-map RM-GSHUT-IN in\n",
                        "      neighbor SPINES activate\n      neighbor SPINES route-map RM-GSHUT-IN input\n")
           .replace("   ipv6 address 2001:db8::28/128\n", "")
           .replace("   ip address 172.16.0.1/24\n", "   ip address 172.16.0.1/24\n   arp 1\n")
           .replace("max-mark-probability 100\n", "max-mark-probability 10\n", 1))
    problems, _ = compare(avd, bad)
    assert sorted(problems) == sorted([
        "'router bgp 4200100000': AVD writes 'address-family ipv6 / neighbor SPINES route-map RM-GSHUT-IN in', "
        "railfabric does not",
        "'router bgp 4200100000': railfabric writes 'address-family ipv6 / neighbor SPINES route-map RM-GSHUT-IN "
        "input', AVD does not",
        "'interface Loopback0': AVD writes 'ipv6 address 2001:db8::28/128', railfabric does not",
        "'interface Vlan100': railfabric writes 'arp 1', AVD does not",
        # the first RoCE port of rail0 (host port Ethernet1/1): its ECN line changed
        "'interface Ethernet1/1': QoS lines ['uc-tx-queue 3 / random-detect ecn minimum-threshold 150000 bytes "
        "maximum-threshold 1500000 bytes max-mark-probability 10', 'uc-tx-queue 3 / random-detect ecn "
        "minimum-threshold 150000 bytes maximum-threshold 1500000 bytes max-mark-probability 100'] differ from AVD's "
        "qos profile"])
