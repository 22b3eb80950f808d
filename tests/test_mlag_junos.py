"""Junos MC-LAG (QFX): the junos.conf sections of a named pair (parsed back with the verifier's curly-brace reader),
the Junos reader's records and `fabric verify` on the render (passing, and failing on hand-broken copies).

Hand derivation for tests.helpers.mlag_inventory("eos") moved to `platform: junos` (2 rails, 4 hosts with 2 NICs × 2
ports of 400G, 64 ports of 800G, 2 spines; the same plan as tests/test_mlag_eos.py and tests/test_mlag_nvue.py,
only the names, the MTU and the Junos statements change):
- pairs: rail group 1 = p1-s1-rail0a (side a) + p1-s1-rail0b; rail group 2 = p1-s1-rail1a + p1-s1-rail1b.
- ICL: ports 31 and 32 (the top of the free downlinks 1-32), Junos numbers ports from 0: et-0/0/30 and et-0/0/31,
  members of ae1000 (topology.MLAG_PEER_CHANNEL), a trunk of the rail VLAN (RAIL0, 100) and MLAG-PEER (4094).
- peer VLAN 4094 on irb.4094: /31s 10.32.20.0/31 (group 1) and 10.32.20.4/31 (group 2); side b (the upper end)
  takes the even address: rail0b .0, rail0a .1, rail1b .4, rail1a .5. ICCP local-ip-addr = own end, peer = the
  other end; multi-chassis-protection <peer end> interface ae1000.
- service-id = the rail group number (Mlag.domain_number): 1 for the rail0 pair, 2 for the rail1 pair.
- LACP system-id 02:1c:73:ff:hh:ll, hhll = low 16 bits of the /31's number (network address / 2): 10.32.20.0 →
  low 17 bits of the address are 20·256 = 5120 (10.32 contributes a multiple of 2^17), 5120 / 2 = 2560 = 0x0a00 →
  02:1c:73:ff:0a:00; 10.32.20.4 → 2562 = 0x0a02 → 02:1c:73:ff:0a:02.
- host bonds ae1001..ae1004: MLAG id = 1000 + (host − 1)·1 + 0 + 1, mc-ae-id = admin-key = the id; members are the
  400G channels of the 2x breakout of ports 1-2: host 1 et-0/0/0:0, 2 et-0/0/0:1, 3 et-0/0/1:0, 4 et-0/0/1:1.
  NIC r of a host is its rail-r bond (description `nic<r> bond rail<r>`).
  Side a: chassis-id 0, status-control active; side b: chassis-id 1, standby. The highest ae is 1004, so
  device-count is 1005.
- rail IRB: own address (side a the last usable .254, side b .253 of the /24: rail 0 = 172.16.0.0/24, rail 1 =
  172.16.1.0/24) with vrrp-group 1 (the switch's only rail VLAN) virtual-address = the gateway .1, priority 200 on
  side a, 100 on side b.
- iBGP: group MLAG-PEER `type internal` (the pair shares side a's ASN: 4200100000 for group 1, 4200100002 for 2),
  export [ RF-NEXT-HOP-SELF RF-EXPORT ], neighbour = the peer's /31 end.
- MTU: fabric 9216 is the Junos media MTU; IP MTU 9216 − 14 = 9202.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from fabric.cli import main
from fabric.verify.junos import read_junos
from fabric.verify.junos_tree import Node, parse
from tests.helpers import dump, mlag_inventory, write_files

OWN = {"p1-s1-rail0a": "172.16.0.254/24", "p1-s1-rail0b": "172.16.0.253/24",  # see the derivation above
       "p1-s1-rail1a": "172.16.1.254/24", "p1-s1-rail1b": "172.16.1.253/24"}
PEER_END = {"p1-s1-rail0a": ("10.32.20.1", "10.32.20.0"), "p1-s1-rail0b": ("10.32.20.0", "10.32.20.1"),
            "p1-s1-rail1a": ("10.32.20.5", "10.32.20.4"), "p1-s1-rail1b": ("10.32.20.4", "10.32.20.5")}


def junos_mlag_inventory() -> dict[str, Any]:
    data = mlag_inventory("eos")  # the EOS variant carries the system: block a full-replace push needs
    data["pods"][0]["segments"][0]["platform"] = "junos"
    return data


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("mlag-junos")
    write_files(base / "inv", {"fabric.yml": dump(junos_mlag_inventory())})
    assert main(["render", str(base / "inv"), "--out", str(base / "raw"), "-q"]) == 0
    return base / "raw"


@pytest.fixture()
def gen(rendered: Path, tmp_path: Path) -> Path:
    shutil.copytree(rendered, tmp_path / "gen")
    return tmp_path / "gen"


def conf(root: Path, host: str) -> Node:
    return parse((root / "configs" / host / "junos.conf").read_text())


def stmts(node: Node | None) -> list[tuple[str, ...]]:
    """The statements (leaves) under a block, as word tuples, depth first."""
    assert node is not None
    out: list[tuple[str, ...]] = []
    for c in node.children:
        out += [c.words + w for w in stmts(c)] if c.children else [c.words]
    return out


def mgmt(t: Node) -> str:
    return t.find("interfaces", "re0:mgmt-0", "unit 0", "family inet").value("address").split("/")[0]


# ------------------------------------------------------------------------------------------------ rendering

def test_iccp_icl_and_service_id(rendered: Path) -> None:
    for host, peer_host, service in (("p1-s1-rail0a", "p1-s1-rail0b", "1"), ("p1-s1-rail0b", "p1-s1-rail0a", "1"),
                                     ("p1-s1-rail1a", "p1-s1-rail1b", "2")):
        t, mine, theirs = conf(rendered, host), *PEER_END[host]
        assert stmts(t.find("protocols", "iccp")) == [
            ("local-ip-addr", mine),
            ("peer", theirs, "session-establishment-hold-time", "50"),
            ("peer", theirs, "redundancy-group-id-list", "1"),
            ("peer", theirs, "backup-liveness-detection", "backup-peer-ip", mgmt(conf(rendered, peer_host))),
            ("peer", theirs, "liveness-detection", "minimum-interval", "1000"),
            ("peer", theirs, "liveness-detection", "multiplier", "3")]
        assert stmts(t.find("multi-chassis")) == [("multi-chassis-protection", theirs, "interface", "ae1000")]
        assert stmts(t.find("switch-options")) == [("service-id", service)]
        assert stmts(t.find("interfaces", "irb", "unit 4094")) == [
            ("description", f"MC-LAG peer {peer_host}"), ("family", "inet", "mtu", "9202"),
            ("family", "inet", "address", f"{mine}/31")]
        assert stmts(t.find("vlans", "MLAG-PEER")) == [
            ("description", f"MC-LAG peer {peer_host}"), ("vlan-id", "4094"), ("l3-interface", "irb.4094")]


def test_icl_trunk(rendered: Path) -> None:
    t = conf(rendered, "p1-s1-rail0a")
    assert stmts(t.find("interfaces", "ae1000")) == [
        ("description", "MLAG peer link p1-s1-rail0b"), ("mtu", "9216"),
        ("aggregated-ether-options", "minimum-links", "1"), ("aggregated-ether-options", "lacp", "active"),
        ("unit", "0", "family", "ethernet-switching", "interface-mode", "trunk"),
        ("unit", "0", "family", "ethernet-switching", "vlan", "members", "RAIL0", "MLAG-PEER")]
    for port in ("et-0/0/30", "et-0/0/31"):
        assert t.find("interfaces", port, "ether-options").value("802.3ad") == "ae1000"
    assert t.find("chassis", "aggregated-devices", "ethernet").value("device-count") == "1005"


def test_mc_ae_host_bonds(rendered: Path) -> None:
    for host, chassis, status, system_id in (("p1-s1-rail0a", "0", "active", "02:1c:73:ff:0a:00"),
                                             ("p1-s1-rail0b", "1", "standby", "02:1c:73:ff:0a:00"),
                                             ("p1-s1-rail1b", "1", "standby", "02:1c:73:ff:0a:02")):
        t = conf(rendered, host)
        rail = host[10]
        for n, member in ((1, "et-0/0/0:0"), (2, "et-0/0/0:1"), (3, "et-0/0/1:0"), (4, "et-0/0/1:1")):
            mlag_id = str(1000 + n)
            assert stmts(t.find("interfaces", f"ae{mlag_id}")) == [
                ("description", f"p1-s1-gpu00{n} nic{rail} bond rail{rail}"), ("mtu", "9216"),
                ("aggregated-ether-options", "minimum-links", "1"),
                ("aggregated-ether-options", "lacp", "active"),
                ("aggregated-ether-options", "lacp", "system-id", system_id),
                ("aggregated-ether-options", "lacp", "admin-key", mlag_id),
                ("aggregated-ether-options", "mc-ae", "mc-ae-id", mlag_id),
                ("aggregated-ether-options", "mc-ae", "redundancy-group", "1"),
                ("aggregated-ether-options", "mc-ae", "chassis-id", chassis),
                ("aggregated-ether-options", "mc-ae", "mode", "active-active"),
                ("aggregated-ether-options", "mc-ae", "status-control", status),
                ("unit", "0", "family", "ethernet-switching", "interface-mode", "access"),
                ("unit", "0", "family", "ethernet-switching", "vlan", "members", f"RAIL{rail}")]
            assert t.find("interfaces", member, "ether-options").value("802.3ad") == f"ae{mlag_id}"


def test_vrrp_gateways(rendered: Path) -> None:
    for host, vid, gateway, priority in (("p1-s1-rail0a", 100, "172.16.0.1", "200"),
                                         ("p1-s1-rail0b", 100, "172.16.0.1", "100"),
                                         ("p1-s1-rail1a", 101, "172.16.1.1", "200"),
                                         ("p1-s1-rail1b", 101, "172.16.1.1", "100")):
        inet = ("family", "inet")
        assert stmts(conf(rendered, host).find("interfaces", "irb", f"unit {vid}")) == [
            ("description", f"RAIL{vid - 100} 172.16.{vid - 100}.0/24"), (*inet, "mtu", "9202"),
            (*inet, "address", OWN[host], "vrrp-group", "1", "virtual-address", gateway),
            (*inet, "address", OWN[host], "vrrp-group", "1", "priority", priority),
            (*inet, "address", OWN[host], "vrrp-group", "1", "accept-data")]


def test_mlag_peer_ibgp(rendered: Path) -> None:
    for host, asn in (("p1-s1-rail0a", "4200100000"), ("p1-s1-rail1b", "4200100002")):
        t = conf(rendered, host)
        assert t.find("routing-options").value("autonomous-system") == asn
        assert stmts(t.find("protocols", "bgp", "group MLAG-PEER")) == [
            ("type", "internal"), ("description", "iBGP to the MLAG peer over the peer VLAN"),
            ("export", "RF-NEXT-HOP-SELF", "RF-EXPORT"),
            ("bfd-liveness-detection", "minimum-interval", "1000"), ("bfd-liveness-detection", "multiplier", "3"),
            ("neighbor", PEER_END[host][1], "description", f"p1-s1-rail{host[10]}{'b' if host[-1] == 'a' else 'a'}")]
        assert stmts(t.find("policy-options", "policy-statement RF-NEXT-HOP-SELF")) == [("then", "next-hop", "self")]
        assert t.find("protocols", "bgp", "group SPINES").value("type") == "external"


# ------------------------------------------------------------------------------------------------ verifier

def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["verify", str(path), "--no-frr"])
    return code, [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(("FAIL ", "verify:"))]


def test_reader_records(rendered: Path) -> None:
    dev = read_junos("p1-s1-rail0a", rendered)
    icl, bond, member = (dev.interfaces[n] for n in ("ae1000", "ae1003", "et-0/0/1:0"))
    assert (icl.mode, icl.trunk_vlans, icl.mlag) == ("trunk", frozenset({100, 4094}), None)
    assert (bond.mode, bond.vlan, bond.mlag, bond.mtu) == ("access", 100, 1003, 9202)
    assert (member.mode, member.channel) == ("member", "ae1003")
    assert dev.vlans[100].virtual and dev.vlans[100].svi == ["172.16.0.254/24", "172.16.0.1/24"]
    assert dev.vlans[100].own == ["172.16.0.254/24"]
    assert dev.vlans[4094].svi == ["10.32.20.1/31"] and dev.vlans[4094].tagged == ["ae1000"]
    irb = dev.interfaces["irb.4094"]  # the peer VLAN's routed interface, as ipplan.csv names it
    assert (irb.mode, irb.ipv4, irb.mtu) == ("routed", ["10.32.20.1/31"], 9202)
    assert dev.bgp.neighbors["10.32.20.0"].remote_as == 4200100000  # type internal: the local AS
    m = dev.mlag
    assert m is not None
    assert (m.domain, m.vlan, m.local_ip, m.peer_ip, m.peer_link, m.virtual_mac) == (
        "1", 4094, "10.32.20.1", "10.32.20.0", "ae1000", None)


def test_rendered_pairs_keep_every_promise(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 4 rail switches × 2 spine uplinks + 2 pairs × 2 peer cables = 12 links; 4 hosts × 2 NICs × 2 ports = 16 host
    # ports; BGP: each rail switch 2 spines + its MC-LAG peer (12), each spine 4 rail switches (8) = 20
    assert verify(gen, capsys) == (0, ["verify: 6 devices (4 Junos, 2 SONiC), 12 fabric links, 16 host ports "
        "(16 against the hosts' files), "
                                       "20 BGP neighbours: all promises kept"])


def rewrite(root: Path, host: str, old: str, new: str) -> str:
    """Replace the one occurrence of `old` in the junos.conf of `host`; returns its path for the message."""
    path = root / "configs" / host / "junos.conf"
    text = path.read_text()
    assert len(re.findall(re.escape(old), text)) == 1, old
    path.write_text(text.replace(old, new))
    return f"configs/{host}/junos.conf"


def test_mc_ae_id_mismatch(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b0 = rewrite(gen, "p1-s1-rail0b", "mc-ae-id 1002;", "mc-ae-id 1003;")
    code, lines = verify(gen, capsys)
    assert code == 1
    assert lines[:-1] == [
        "FAIL mlag: p1-s1-rail0b ae1002: expected MLAG id 1002 as on p1-s1-rail0a ae1002 (host bond "
        f"p1-s1-gpu002:nic0), found mlag 1003 (configs/p1-s1-rail0a/junos.conf, {b0})"]


def test_service_id_mismatch(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b1 = rewrite(gen, "p1-s1-rail1b", "service-id 2;", "service-id 1;")
    code, lines = verify(gen, capsys)
    assert code == 1
    assert lines[:-1] == [
        "FAIL mlag: p1-s1-rail1b MLAG domain (peer p1-s1-rail1a): expected domain 2 as on p1-s1-rail1a, found 1 "
        f"(configs/p1-s1-rail1a/junos.conf, {b1})"]


def test_vrrp_gateway_and_own_address_broken(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b0 = rewrite(gen, "p1-s1-rail0b", "virtual-address 172.16.0.1;", "virtual-address 172.16.0.2;")
    a1 = rewrite(gen, "p1-s1-rail1a", "address 172.16.1.254/24 {", "address 172.16.1.253/24 {")
    code, lines = verify(gen, capsys)
    assert code == 1
    a0, b1 = "configs/p1-s1-rail0a/junos.conf", "configs/p1-s1-rail1b/junos.conf"
    assert "FAIL mlag: p1-s1-rail0a Vlan100: expected gateway 172.16.0.2/24 as on p1-s1-rail0b, found " \
           f"172.16.0.1/24 ({a0}, {b0})" in lines
    assert "FAIL mlag: p1-s1-rail1a Vlan101: expected own address 172.16.1.254/24 beside the shared gateway " \
           f"(ipplan.csv:52), found 172.16.1.253/24 ({a1})" in lines
    assert "FAIL mlag: p1-s1-rail1a Vlan101: expected an own address distinct from p1-s1-rail1b's, found " \
           f"172.16.1.253 on both ({a1}, {b1})" in lines


def test_iccp_peer_wrong(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a0 = rewrite(gen, "p1-s1-rail0a", "peer 10.32.20.0 {", "peer 10.32.20.2 {")
    code, lines = verify(gen, capsys)
    assert code == 1
    assert "FAIL mlag: p1-s1-rail0a MLAG peer address: expected 10.32.20.0 (the local address of p1-s1-rail0b), " \
           f"found 10.32.20.2 ({a0}, configs/p1-s1-rail0b/junos.conf)" in lines
