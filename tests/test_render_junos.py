"""Juniper Junos rendering (railfabric/configs/junos/conf.py + templates/junos/) of the example inventory.

The example is SONiC with one EOS segment; the fixture re-validates it with `fabric.platform: junos` (the EOS
segment stays EOS: a segment's own platform wins). Expected values are derived by hand from inventory/ and the
layout rules in railfabric/plan/allocate.py and railfabric/topology/ (the same facts tests/test_render_eos.py derives):

- p1-s1-rail3 (pod 1, segment 1, single-rail, rail 3): VLAN 100 + 3 = 103, subnet 172.16.3.0/24 (segment 1 of pod 1
  owns 172.16.0.0/21, rail r its r-th /24), gateway .1. Its rail-switch slot is ((1-1)·8 + 0)·16 + 3 = 3, so its
  ASN is 4200100000 + 3 and its /31s start at slot 3 × 64 uplinks = /31 number 192 of 10.4.0.0/14: 10.4.0.0 + 384
  = 10.4.1.128/31 for the first uplink (to p1-spine1), the spine end even (.128), the rail end odd (.129).
  16 hosts on 2x400G breakouts of ports 1-7 and 9 (port 8 is disabled in devices.yml): Junos numbers ports from 0
  and channels from 0, so port 1 is et-0/0/0 with channels et-0/0/0:0 and :1, port 9 is et-0/0/8, port 8 is
  et-0/0/7; the 4 spines × 2 links land on ports 33-40 = et-0/0/32 .. et-0/0/39. The pod-1 spines share ASN
  4200001000 + 1.
- p2-s1-rail0-1-2-3 (pod 2, multi-rail): slot ((2-1)·8 + 0)·16 + 0 = 128, ASN 4200100128; rails 0-3 are
  172.16.64.0/24 .. 172.16.67.0/24 summarised as 172.16.64.0/22; its first port-channel (to p2-spine1, members on
  ports 33 and 34 = et-0/0/32 and et-0/0/33) is numbered by its first member's port: ae33 with 10.4.64.1/31, so the
  chassis needs 34 ae devices at least; the highest bundle starts at port 63 (8 links to each of 4 spines in
  pairs: ports 33..64), so device-count is 63 + 1 = 64.
- MTU: fabric mtu 9216 is the Junos media MTU ceiling; the IP MTU is 9216 - 14 (Ethernet header) = 9202, written
  as `family inet mtu 9202` under a media `mtu 9216`.
- QoS (fabric.yml): RoCE DSCP 26 = 011010 → class RF-ROCE on queue 3, `no-loss pfc-priority 3`, PFC input on DSCP
  011010 and output 802.1p code point 3 = 011 → flow-control-queue 3; CNP DSCP 48 = 110000 → RF-CNP on queue 6,
  strict-high; the other 62 DSCPs → RF-TC0 queue 0; DWRR 50/50 of (0, 3) → 50 % each; watchdog poll 200 ms,
  detection 200 / 200 = 1 poll, recovery 200 ms; ECN drop probability 100 at JVD fill levels 55/90 %.
"""

from __future__ import annotations

import re

import pytest

from railfabric.configs.render import render_device
from railfabric.device import DeviceConfig, build_devices
from railfabric.inventory.intent import Platform
from railfabric.pipeline import run
from railfabric.plan.allocate import allocate
from railfabric.topology import expand
from railfabric.verify.junos_tree import Node, parse
from tests.helpers import EXAMPLE

OUTPUT = "junos.conf"


@pytest.fixture(scope="module")
def devices() -> dict[str, DeviceConfig]:
    r = run(EXAMPLE)
    assert r.findings == [], [str(f) for f in r.findings]
    assert r.inventory is not None
    inv = r.inventory.model_copy(
        update={"fabric": r.inventory.fabric.model_copy(update={"platform": Platform.JUNOS})})
    topo = expand(inv)
    plan = allocate(inv, topo)
    devs = build_devices(inv, topo, plan)
    assert {d.platform for d in devs.values()} == {"junos", "eos"}
    return {n: d for n, d in devs.items() if d.platform == "junos"}


@pytest.fixture(scope="module")
def configs(devices: dict[str, DeviceConfig]) -> dict[str, str]:
    return {name: render_device(dev)[OUTPUT] for name, dev in devices.items()}


@pytest.fixture(scope="module")
def trees(configs: dict[str, str]) -> dict[str, Node]:
    return {name: parse(text) for name, text in configs.items()}


def statements(node: Node) -> list[tuple[str, ...]]:
    """Every statement under `node` as its words (blocks as their header), depth first."""
    out = []
    for c in node.children:
        out.append(c.words)
        out += [c.words + s for s in statements(c)]
    return out


def at(tree: Node, *path: str) -> Node:
    node = tree.find(*path)
    assert node is not None, path
    return node


# --- interfaces ---------------------------------------------------------------------------------------------

def test_breakout_host_port(trees: dict[str, Node]) -> None:
    ifs = at(trees["p1-s1-rail3"], "interfaces")
    parent = at(ifs, "et-0/0/0")
    assert [c.words for c in parent.children] == [("description", "breakout 2x400G"), ("number-of-sub-ports", "2"),
                                                  ("speed", "400g")]
    ch = at(ifs, "et-0/0/0:0")
    assert statements(ch) == [
        ("description", "p1-s1-gpu001 nic3 port1 rail3"), ("mtu", "9216"), ("unit", "0"),
        ("unit", "0", "family", "ethernet-switching"),
        ("unit", "0", "family", "ethernet-switching", "interface-mode", "access"),
        ("unit", "0", "family", "ethernet-switching", "vlan"),
        ("unit", "0", "family", "ethernet-switching", "vlan", "members", "RAIL3")]
    assert at(ifs, "et-0/0/0:1").find("description").words[1] == "p1-s1-gpu002 nic3 port1 rail3"
    # host channels on ports 1-7 and 9 (et-0/0/0..6, et-0/0/8), none on the disabled port 8 (et-0/0/7)
    channels = sorted(c.key for c in ifs.children if re.fullmatch(r"et-0/0/\d+:\d", c.key))
    assert channels == sorted(f"et-0/0/{p}:{c}" for p in (0, 1, 2, 3, 4, 5, 6, 8) for c in (0, 1))


def test_disabled_and_unused_ports(trees: dict[str, Node]) -> None:
    ifs = at(trees["p1-s1-rail3"], "interfaces")
    assert [c.words for c in at(ifs, "et-0/0/7").children] == [
        ("description", "disabled in inventory"), ("disable",), ("speed", "800g")]
    disabled = {c.key for c in ifs.children if c.has("disable")}
    # port 8 and every port without a cable: 10-32 and 41-64 (0-based 9-31 and 40-63)
    assert disabled == {"et-0/0/7"} | {f"et-0/0/{p}" for p in (*range(9, 32), *range(40, 64))}


def test_fabric_port_routed(trees: dict[str, Node]) -> None:
    port = at(trees["p1-s1-rail3"], "interfaces", "et-0/0/32")
    assert statements(port) == [
        ("description", "p1-spine1 et-0/0/6"), ("speed", "800g"), ("mtu", "9216"), ("unit", "0"),
        ("unit", "0", "family", "inet"), ("unit", "0", "family", "inet", "mtu", "9202"),
        ("unit", "0", "family", "inet", "address", "10.4.1.129/31")]


def test_rail_vlan_irb_loopback_management(trees: dict[str, Node]) -> None:
    t = trees["p1-s1-rail3"]
    assert statements(at(t, "vlans", "RAIL3")) == [
        ("description", "RAIL3 172.16.3.0/24"), ("vlan-id", "103"), ("l3-interface", "irb.103")]
    irb = at(t, "interfaces", "irb", "unit 103", "family inet")
    assert [c.words for c in irb.children] == [("mtu", "9202"), ("address", "172.16.3.1/24")]
    assert at(t, "interfaces", "lo0", "unit 0", "family inet").value("address") == "10.0.0.147/32"
    # management address pinned in devices.yml, in the management instance with its default route
    assert at(t, "interfaces", "re0:mgmt-0", "unit 0", "family inet").value("address") == "192.168.15.3/20"
    assert at(t, "system").has("management-instance")
    assert at(t, "routing-instances", "mgmt_junos", "routing-options", "static").children[0].words == (
        "route", "0.0.0.0/0", "next-hop", "192.168.0.1")


def test_port_channels(trees: dict[str, Node]) -> None:
    t = trees["p2-s1-rail0-1-2-3"]
    assert at(t, "chassis", "aggregated-devices", "ethernet").value("device-count") == "64"
    ae = at(t, "interfaces", "ae33")
    assert ae.find("aggregated-ether-options").value("minimum-links") == "2"
    assert ae.find("aggregated-ether-options", "lacp").has("active")
    assert at(ae, "unit 0", "family inet").value("address") == "10.4.64.1/31"
    for member in ("et-0/0/32", "et-0/0/33"):
        assert at(t, "interfaces", member, "ether-options").value("802.3ad") == "ae33"
        assert at(t, "interfaces", member).find("unit 0") is None  # no address on a member


# --- routing --------------------------------------------------------------------------------------------------

def test_bgp_rail_switch(trees: dict[str, Node]) -> None:
    t = trees["p1-s1-rail3"]
    assert at(t, "routing-options").value("autonomous-system") == "4200100003"
    assert at(t, "routing-options").value("router-id") == "10.0.0.147"
    group = at(t, "protocols", "bgp", "group SPINES")
    assert group.value("type") == "external" and group.value("peer-as") == "4200001001"
    assert group.value("export") == "RF-EXPORT"
    assert group.find("multipath").has("multiple-as")
    # the inventory writes no bfd_timers: the fabric-wide default 300 ms x 3 (intent_routing.BfdTimers), the same
    # timers every platform of the fabric runs (it was Juniper's JVD 1000 ms x 3 on Junos only)
    assert [c.words for c in group.find("bfd-liveness-detection").children] == [
        ("minimum-interval", "300"), ("multiplier", "3")]
    neighbors = [n.words[1] for n in group.all("neighbor")]
    # 4 spines × 2 links: the even ends of 10.4.1.128/31 .. 10.4.1.142/31
    assert neighbors == [f"10.4.1.{128 + 2 * i}" for i in range(8)]
    assert at(t, "routing-options").value("maximum-ecmp") == "64"  # routing.ecmp.width 64 is an accepted value
    assert t.find("chassis") is None  # no port-channel here: no aggregated devices to declare
    assert at(t, "routing-options", "forwarding-table").value("export") == "RF-ECMP"
    assert statements(at(t, "policy-options", "policy-statement RF-ECMP")) == [
        ("then",), ("then", "load-balance", "per-packet")]


def test_spine_per_neighbor_peer_as(trees: dict[str, Node]) -> None:
    group = at(trees["p1-spine1"], "protocols", "bgp", "group RAIL-SWITCHES")
    assert group.value("peer-as") is None  # rail switches have unique ASNs
    n = at(group, "neighbor 10.4.0.1")
    assert n.value("peer-as") == "4200100000"
    assert at(group, "neighbor 10.4.0.129").value("peer-as") == "4200100001"
    assert at(trees["p1-spine1"], "protocols", "bgp", "group SUPER-SPINES").value("peer-as") == "4200000000"


def test_summary_and_redistribution(trees: dict[str, Node]) -> None:
    t = trees["p2-s1-rail0-1-2-3"]
    assert at(t, "routing-options", "aggregate").value("route") == "172.16.64.0/22"
    pl = at(t, "policy-options", "prefix-list PL-LOOPBACK-RAILS")
    assert [c.words[0] for c in pl.children] == [
        "10.0.1.16/32", "172.16.64.0/24", "172.16.65.0/24", "172.16.66.0/24", "172.16.67.0/24"]
    policy = at(t, "policy-options", "policy-statement RF-EXPORT")
    assert [c.words for c in policy.children] == [("term", "summary-1"), ("term", "suppress-1"),
                                                  ("term", "connected"), ("term", "other-direct")]
    assert statements(at(policy, "term summary-1")) == [
        ("from",), ("from", "protocol", "aggregate"), ("from", "route-filter", "172.16.64.0/22", "exact"),
        ("then", "accept")]
    assert statements(at(policy, "term suppress-1")) == [
        ("from",), ("from", "route-filter", "172.16.64.0/22", "longer"), ("then", "reject")]
    single = at(trees["p1-s1-rail3"], "routing-options")
    assert single.find("aggregate") is None  # single-rail: no summary


# --- class of service -------------------------------------------------------------------------------------------

def test_cos_classes_and_classifier(trees: dict[str, Node]) -> None:
    cos = at(trees["p1-s1-rail3"], "class-of-service")
    assert [c.words for c in at(cos, "forwarding-classes").children] == [
        ("class", "RF-TC0", "queue-num", "0"), ("class", "RF-ROCE", "queue-num", "3", "no-loss", "pfc-priority", "3"),
        ("class", "RF-CNP", "queue-num", "6")]
    dscp = at(cos, "classifiers", "dscp RF-DSCP")
    mapped = {}
    for fc in dscp.all("forwarding-class"):
        for p in fc.children[0].words[3:]:
            assert p not in mapped
            mapped[p] = fc.words[1]
    assert len(mapped) == 64  # every code point explicitly
    assert mapped["011010"] == "RF-ROCE" and mapped["110000"] == "RF-CNP"
    assert {c for p, c in mapped.items() if p not in ("011010", "110000")} == {"RF-TC0"}


def test_cos_pfc_watchdog_ecn_schedulers(trees: dict[str, Node]) -> None:
    cos = at(trees["p1-s1-rail3"], "class-of-service")
    cnp = at(cos, "congestion-notification-profile RF-PFC")
    assert statements(cnp) == [
        ("input",), ("input", "dscp"), ("input", "dscp", "code-point", "011010"),
        ("input", "dscp", "code-point", "011010", "pfc"),
        ("output",), ("output", "ieee-802.1"), ("output", "ieee-802.1", "code-point", "011"),
        ("output", "ieee-802.1", "code-point", "011", "flow-control-queue", "3"),
        ("pfc-watchdog",), ("pfc-watchdog", "poll-interval", "200"), ("pfc-watchdog", "detection", "1"),
        ("pfc-watchdog", "recovery", "200")]
    assert statements(at(cos, "drop-profiles", "RF-ECN")) == [
        ("interpolate",), ("interpolate", "fill-level", "55", "90"), ("interpolate", "drop-probability", "0", "100")]
    assert statements(at(cos, "schedulers")) == [
        ("RF-TC0",), ("RF-TC0", "transmit-rate", "percent", "50"),
        ("RF-ROCE",), ("RF-ROCE", "transmit-rate", "percent", "50"),
        ("RF-ROCE", "drop-profile-map", "loss-priority", "any", "protocol", "any", "drop-profile", "RF-ECN"),
        ("RF-ROCE", "explicit-congestion-notification"),
        ("RF-CNP",), ("RF-CNP", "priority", "strict-high")]


def test_cos_bound_on_every_roce_port(trees: dict[str, Node]) -> None:
    bound = at(trees["p1-s1-rail3"], "class-of-service", "interfaces")
    names = [c.key for c in bound.children]
    hosts = [f"et-0/0/{p}:{c}" for p in (0, 1, 2, 3, 4, 5, 6, 8) for c in (0, 1)]
    assert names == hosts + [f"et-0/0/{p}" for p in range(32, 40)]
    assert statements(bound.children[0]) == [
        ("scheduler-map", "RF-SCHED"), ("congestion-notification-profile", "RF-PFC"), ("unit", "0"),
        ("unit", "0", "classifiers"), ("unit", "0", "classifiers", "dscp", "RF-DSCP")]
    # a bundle carries CoS on the ae, not on its members
    pc = [c.key for c in at(trees["p2-s1-rail0-1-2-3"], "class-of-service", "interfaces").children]
    assert "ae33" in pc and "et-0/0/32" not in pc


# --- system ------------------------------------------------------------------------------------------------------

def test_system_services_users_aaa(trees: dict[str, Node]) -> None:
    s = at(trees["p1-s1-rail3"], "system")
    assert s.value("host-name") == "p1-s1-rail3"
    # Junos commits nothing without a root password; its hash stays a vault placeholder
    assert at(s, "root-authentication").value("encrypted-password") == "%%vault.junos_root_password_hash%%"
    assert at(s, "services", "netconf").has("ssh")  # the push's API
    user = at(s, "login", "user netops")
    assert user.value("class") == "super-user"
    assert at(user, "authentication").value("encrypted-password") == "%%vault.netops_password_hash%%"
    assert at(s, "login", "user noc").value("class") == "read-only"
    assert at(s, "authentication-order").words == ("authentication-order", "tacplus", "password")
    tac = at(s, "tacplus-server", "192.0.2.10")
    assert [c.words for c in tac.children] == [("port", "49"), ("secret", "%%vault.tacacs_key%%"),
                                               ("source-address", "192.168.15.3"),
                                               ("routing-instance", "mgmt_junos")]


def test_no_plaintext_secret_and_balanced(configs: dict[str, str]) -> None:
    for name, text in configs.items():
        parse(text)  # balanced braces, every statement terminated
        for line in text.splitlines():
            if re.search(r"\b(secret|encrypted-password|authentication-password|privacy-password) ", line):
                assert re.search(r'"%%vault\.[a-z_][a-z0-9_]*%%"', line), (name, line)


def test_maximum_ecmp_takes_an_accepted_value() -> None:
    from railfabric.configs.junos.conf import maximum_ecmp

    # accepted: 16, 32, 64, then steps of 32 up to 512; a width is rounded up to the next one
    assert [maximum_ecmp(w) for w in (1, 16, 17, 64, 65, 96, 97, 512)] == [16, 16, 32, 64, 96, 96, 128, 512]
