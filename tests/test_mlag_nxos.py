"""Cisco NX-OS vPC: the running-config sections of a dual-homed pair, the NX-OS reader and `fabric verify` on them
(passing, and failing on hand-broken copies), ipplan.csv and expected/ rows, validation.

Hand derivation for tests.helpers.mlag_inventory("eos") moved to `platform: nxos` (2 rails, 4 hosts with 2 NICs × 2
ports of 400G, sw64: 64 ports of 800G, 2 spines; the plan is the EOS/NVUE tests' one, tests/test_mlag_nvue.py,
only the names and the peer VLAN change):
- pairs: rail group 1 = p1-s1-rail0a (side a, primary) + p1-s1-rail0b; rail group 2 = p1-s1-rail1a + rail1b.
  vPC domain = the rail group number: 1 and 2. Role priority: side a 2048, side b 32667 (NX-OS's default).
- peer link: ports 31 and 32 (the highest free downlinks), Ethernet1/31 + Ethernet1/32 in port-channel1000
  (1000 = topology.MLAG_PEER_CHANNEL), a trunk of the rail VLAN (100 + rail) and the peer VLAN.
- peer VLAN: NX-OS reserves 3968-4094, so 3967 (not the model's 4094); /31s 10.32.20.0/31 (group 1) and
  10.32.20.4/31 (group 2), side b (the upper end) takes the even address: rail0b .0, rail0a .1, rail1b .4,
  rail1a .5, on interface Vlan3967.
- peer-keepalive: destination = the peer's mgmt0 address, source = its own, vrf management.
- host bonds: port-channel1001..1004 (= MLAG id = vpc id: 1000 + (host − 1)·1 + 0 + 1), members on the 400G lanes of
  the 2x breakout: host 1 Ethernet1/1/1, 2 Ethernet1/1/2, 3 Ethernet1/2/1, 4 Ethernet1/2/2; access VLAN 100 + rail.
- rail SVI: own address (side a the last usable .254, side b .253 of the /24) + HSRP v2 group = VLAN id, virtual IP
  the gateway 172.16.<rail>.1, priority side a 110, side b 100, preempt.
- iBGP: template MLAG-PEER with next-hop-self, remote-as = the pair's shared ASN (4200100000 for group 1,
  4200100002 for group 2: rail_switch_base + tier slot 0 / 2); neighbour = the peer's /31 address.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from railfabric.cli import main
from railfabric.verify.nxos import read_nxos
from tests.helpers import dump, mlag_inventory, run_data, write_files

PAIRS = {"p1-s1-rail0a": "p1-s1-rail0b", "p1-s1-rail0b": "p1-s1-rail0a",
         "p1-s1-rail1a": "p1-s1-rail1b", "p1-s1-rail1b": "p1-s1-rail1a"}


def nxos_mlag_inventory() -> dict[str, Any]:
    data = mlag_inventory("eos")  # the EOS variant carries the system: block a full-replace push needs
    data["pods"][0]["segments"][0]["platform"] = "nxos"
    return data


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("mlag-nxos")
    write_files(base / "inv", {"fabric.yml": dump(nxos_mlag_inventory())})
    assert main(["render", str(base / "inv"), "--out", str(base / "raw"), "-q"]) == 0
    return base / "raw"


@pytest.fixture()
def gen(rendered: Path, tmp_path: Path) -> Path:
    shutil.copytree(rendered, tmp_path / "gen")
    return tmp_path / "gen"


def config(root: Path, host: str) -> str:
    return (root / "configs" / host / "running-config.cfg").read_text()


def block(text: str, header: str) -> list[str]:
    """The lines of the top-level block `header` (itself included), without blank lines."""
    lines = text.splitlines()
    start = lines.index(header)
    out = [header]
    for ln in lines[start + 1:]:
        if ln and not ln.startswith(" "):
            break
        if ln.strip():
            out.append(ln)
    return out


def mgmt0(text: str) -> str:
    (address,) = re.findall(r"^interface mgmt0\n  vrf member management\n  ip address (\S+)/", text, re.M)
    return address


# ------------------------------------------------------------------------------------------------ rendering

def test_features(rendered: Path) -> None:
    text = config(rendered, "p1-s1-rail0a")
    features = [ln for ln in text.splitlines() if ln.startswith("feature ")]
    assert features == ["feature bgp", "feature bfd", "feature interface-vlan", "feature hsrp", "feature lacp",
                        "feature lldp", "feature nxapi", "feature vpc"]
    spine = config(rendered, "p1-spine1") if (rendered / "configs/p1-spine1/running-config.cfg").exists() else ""
    assert "feature vpc" not in spine  # spines stay SONiC here; no NX-OS switch outside a pair gets vPC


@pytest.mark.parametrize(("host", "domain", "priority"), [
    ("p1-s1-rail0a", 1, 2048), ("p1-s1-rail0b", 1, 32667), ("p1-s1-rail1a", 2, 2048), ("p1-s1-rail1b", 2, 32667)])
def test_vpc_domain(rendered: Path, host: str, domain: int, priority: int) -> None:
    mine, theirs = config(rendered, host), config(rendered, PAIRS[host])
    assert mgmt0(mine) != mgmt0(theirs)
    assert block(mine, f"vpc domain {domain}") == [
        f"vpc domain {domain}", f"  role priority {priority}",
        f"  peer-keepalive destination {mgmt0(theirs)} source {mgmt0(mine)} vrf management",
        "  peer-gateway", "  ip arp synchronize"]


def test_peer_link_and_peer_vlan(rendered: Path) -> None:
    a, b = config(rendered, "p1-s1-rail0a"), config(rendered, "p1-s1-rail0b")
    assert block(a, "vlan 3967") == ["vlan 3967", "  name VPC-PEER"]
    assert block(a, "interface port-channel1000") == [
        "interface port-channel1000", "  description MLAG peer link p1-s1-rail0b", "  mtu 9216", "  switchport",
        "  switchport mode trunk", "  switchport trunk allowed vlan 100,3967", "  spanning-tree port type network",
        "  vpc peer-link", "  no shutdown"]
    member = block(a, "interface Ethernet1/31")
    assert member[1:10] == [
        "  description MLAG peer link p1-s1-rail0b Ethernet1/31", "  speed 800000", "  mtu 9216", "  switchport",
        "  switchport mode trunk", "  switchport trunk allowed vlan 100,3967", "  channel-group 1000 mode active",
        "  priority-flow-control mode on", "  priority-flow-control watch-dog-interval on"]
    assert block(a, "interface Vlan3967") == [
        "interface Vlan3967", "  description vPC peer p1-s1-rail0b", "  mtu 9216", "  ip address 10.32.20.1/31",
        # the iBGP session of tier mlag_peer runs over this SVI: its BFD timers (fabric-wide 300 ms x 3) sit here
        "  no ip redirects", "  bfd interval 300 min_rx 300 multiplier 3", "  no shutdown"]
    assert "  ip address 10.32.20.0/31" in block(b, "interface Vlan3967")
    assert "ip address 10.32.20.5/31" in config(rendered, "p1-s1-rail1a")
    for text in (a, b):
        assert "4094" not in text  # reserved on NX-OS


def test_host_bonds(rendered: Path) -> None:
    for host in ("p1-s1-rail0a", "p1-s1-rail0b"):
        text = config(rendered, host)
        for n, member in ((1, "Ethernet1/1/1"), (2, "Ethernet1/1/2"), (3, "Ethernet1/2/1"), (4, "Ethernet1/2/2")):
            assert block(text, f"interface port-channel100{n}") == [
                f"interface port-channel100{n}", f"  description p1-s1-gpu00{n} nic0 bond rail0", "  mtu 9216",
                "  switchport", "  switchport mode access", "  switchport access vlan 100",
                "  spanning-tree port type edge", f"  vpc 100{n}", "  no shutdown"]
            port = block(text, f"interface {member}")
            assert port[2:8] == ["  speed 400000", "  mtu 9216", "  switchport", "  switchport mode access",
                                 "  switchport access vlan 100", f"  channel-group 100{n} mode active"]
    assert "  switchport access vlan 101" in block(config(rendered, "p1-s1-rail1b"), "interface port-channel1003")


@pytest.mark.parametrize(("host", "vid", "own", "priority"), [
    ("p1-s1-rail0a", 100, "172.16.0.254/24", 110), ("p1-s1-rail0b", 100, "172.16.0.253/24", 100),
    ("p1-s1-rail1a", 101, "172.16.1.254/24", 110), ("p1-s1-rail1b", 101, "172.16.1.253/24", 100)])
def test_hsrp_gateways(rendered: Path, host: str, vid: int, own: str, priority: int) -> None:
    assert block(config(rendered, host), f"interface Vlan{vid}") == [
        f"interface Vlan{vid}", f"  description RAIL{vid - 100} 172.16.{vid - 100}.0/24", "  mtu 9216",
        f"  ip address {own}", "  hsrp version 2", f"  hsrp {vid}", f"    priority {priority}", "    preempt",
        f"    ip 172.16.{vid - 100}.1", "  no shutdown"]


def test_mlag_peer_ibgp(rendered: Path) -> None:
    bgp = block(config(rendered, "p1-s1-rail0a"), "router bgp 4200100000")
    start = bgp.index("  template peer MLAG-PEER")
    assert bgp[start:start + 6] == ["  template peer MLAG-PEER", "    remote-as 4200100000", "    bfd",
                                    "    description iBGP to the MLAG peer over the peer VLAN",
                                    "    address-family ipv4 unicast", "      next-hop-self"]
    start = bgp.index("  neighbor 10.32.20.0")
    assert bgp[start:start + 3] == ["  neighbor 10.32.20.0", "    inherit peer MLAG-PEER",
                                    "    description p1-s1-rail0b"]
    spines = bgp[bgp.index("  template peer SPINES"):]
    assert "      next-hop-self" not in spines[:6]
    assert "  neighbor 10.32.20.4" in block(config(rendered, "p1-s1-rail1a"), "router bgp 4200100002")


# ------------------------------------------------------------------------------------------------ verifier

def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["verify", str(path), "--no-frr"])
    return code, [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(("FAIL ", "verify:"))]


def test_reader_records(rendered: Path) -> None:
    dev = read_nxos("p1-s1-rail0a", rendered)
    pl, bond, member = (dev.interfaces[n] for n in ("port-channel1000", "port-channel1003", "Ethernet1/2/1"))
    assert (pl.mode, pl.trunk_vlans, pl.mlag) == ("trunk", frozenset({100, 3967}), None)
    assert (bond.mode, bond.vlan, bond.mlag, bond.mtu) == ("access", 100, 1003, 9216)
    assert (member.mode, member.channel, dev.interfaces["Ethernet1/31"].channel) == (
        "member", "port-channel1003", "port-channel1000")
    assert dev.vlans[100].virtual and dev.vlans[100].svi == ["172.16.0.254/24", "172.16.0.1/24"]
    assert dev.vlans[100].own == ["172.16.0.254/24"] and dev.vlans[100].tagged == ["port-channel1000"]
    assert dev.vlans[3967].svi == ["10.32.20.1/31"] and not dev.vlans[3967].virtual
    m = dev.mlag
    assert m is not None
    b = config(rendered, "p1-s1-rail0b")
    assert (m.domain, m.vlan, m.local_ip, m.peer_ip, m.peer_link, m.virtual_mac) == (
        "1", 3967, mgmt0(config(rendered, "p1-s1-rail0a")), mgmt0(b), "port-channel1000", None)


def test_rendered_pairs_keep_every_promise(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 4 rail switches × 2 spine uplinks + 2 pairs × 2 peer cables = 12 links; 4 hosts × 2 NICs × 2 ports = 16 host
    # ports; BGP: each rail switch 2 spines + its vPC peer (12), each spine 4 rail switches (8) = 20
    assert verify(gen, capsys) == (0, ["verify: 6 devices (4 Cisco NX-OS, 2 SONiC), 12 fabric links, "
                                       "16 host ports "
        "(16 against the hosts' files), 20 BGP neighbours: all promises kept"])


def edit(root: Path, host: str, old: str, new: str) -> str:
    path = root / "configs" / host / "running-config.cfg"
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))
    return f"configs/{host}/running-config.cfg"


def ipplan_line(root: Path, row: str) -> int:
    return (root / "ipplan.csv").read_text().splitlines().index(row) + 1


def test_vpc_id_mismatch(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b0 = edit(gen, "p1-s1-rail0b", "  vpc 1002\n", "  vpc 1003\n")
    code, lines = verify(gen, capsys)
    assert code == 1
    assert lines[:-1] == [
        "FAIL mlag: p1-s1-rail0b port-channel1002: expected MLAG id 1002 as on p1-s1-rail0a port-channel1002 (host "
        f"bond p1-s1-gpu002:nic0), found mlag 1003 (configs/p1-s1-rail0a/running-config.cfg, {b0})"]


def test_keepalive_to_the_wrong_peer(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """rail1b's keepalive aims at its own address instead of rail1a's: the vPC peer address check names it."""
    a1, b1 = mgmt0(config(gen, "p1-s1-rail1a")), mgmt0(config(gen, "p1-s1-rail1b"))
    path = edit(gen, "p1-s1-rail1b", f"destination {a1} source", f"destination {b1} source")
    code, lines = verify(gen, capsys)
    assert code == 1
    assert lines[:-1] == [
        f"FAIL mlag: p1-s1-rail1b MLAG peer address: expected {a1} (the local address of p1-s1-rail1a), found {b1} "
        f"(configs/p1-s1-rail1a/running-config.cfg, {path})"]


def test_gateway_without_hsrp(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a0 = edit(gen, "p1-s1-rail0a", "  ip address 172.16.0.254/24\n  hsrp version 2\n  hsrp 100\n    priority 110\n"
              "    preempt\n    ip 172.16.0.1\n", "  ip address 172.16.0.1/24\n")
    line = ipplan_line(gen, "172.16.0.254/24,p1-s1-rail0a,Vlan100,rail-own,rail_subnets,rail 0 vlan 100 own address "
                            "beside the gateway shared with MLAG peer p1-s1-rail0b")
    code, lines = verify(gen, capsys)
    assert code == 1
    assert lines[:-1] == [
        "FAIL mlag: p1-s1-rail0a Vlan100: expected a virtual gateway shared with p1-s1-rail0b (rail 0), found ip "
        f"address 172.16.0.1/24 ({a0})",
        f"FAIL mlag: p1-s1-rail0a Vlan100: expected own address 172.16.0.254/24 beside the shared gateway "
        f"(ipplan.csv:{line}), found none ({a0})"]


def test_own_address_broken_by_hand(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """rail0b takes rail0a's own address (.254 instead of its .253)."""
    b0 = edit(gen, "p1-s1-rail0b", "  ip address 172.16.0.253/24\n", "  ip address 172.16.0.254/24\n")
    line = ipplan_line(gen, "172.16.0.253/24,p1-s1-rail0b,Vlan100,rail-own,rail_subnets,rail 0 vlan 100 own address "
                            "beside the gateway shared with MLAG peer p1-s1-rail0a")
    code, lines = verify(gen, capsys)
    assert code == 1
    assert lines[:-1] == [
        "FAIL mlag: p1-s1-rail0a Vlan100: expected an own address distinct from p1-s1-rail0b's, found 172.16.0.254 "
        f"on both (configs/p1-s1-rail0a/running-config.cfg, {b0})",
        f"FAIL mlag: p1-s1-rail0b Vlan100: expected own address 172.16.0.253/24 beside the shared gateway "
        f"(ipplan.csv:{line}), found 172.16.0.254/24 ({b0})"]


def test_peer_link_without_the_peer_vlan(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a1 = edit(gen, "p1-s1-rail1a", "interface port-channel1000\n  description MLAG peer link p1-s1-rail1b\n  mtu 9216\n"
              "  switchport\n  switchport mode trunk\n  switchport trunk allowed vlan 101,3967\n",
              "interface port-channel1000\n  description MLAG peer link p1-s1-rail1b\n  mtu 9216\n"
              "  switchport\n  switchport mode trunk\n  switchport trunk allowed vlan 101\n")
    code, lines = verify(gen, capsys)
    assert code == 1
    assert lines[:-1] == [
        "FAIL mlag: p1-s1-rail1a port-channel1000: expected a trunk carrying VLANs 101,3967 (the rail VLANs and the "
        f"peer VLAN), found trunk port carrying 101 ({a1})"]  # both peer cables: reported once


# ------------------------------------------------------------------------------------------------ plan files

def csv_rows(path: Path) -> list[list[str]]:
    return [row.split(",") for row in path.read_text().splitlines()[2:]]


def test_ipplan_and_expected_use_vlan3967(rendered: Path) -> None:
    rows = csv_rows(rendered / "ipplan.csv")
    peer = [r[:3] for r in rows if r[2] == "Vlan3967"]
    assert peer == [["10.32.20.0/31", "p1-s1-rail0b", "Vlan3967"], ["10.32.20.1/31", "p1-s1-rail0a", "Vlan3967"],
                    ["10.32.20.4/31", "p1-s1-rail1b", "Vlan3967"], ["10.32.20.5/31", "p1-s1-rail1a", "Vlan3967"]]
    assert not any("4094" in r[2] for r in rows)
    own = [r[:3] for r in rows if r[3] == "rail-own"]
    assert own == [["172.16.0.253/24", "p1-s1-rail0b", "Vlan100"], ["172.16.0.254/24", "p1-s1-rail0a", "Vlan100"],
                   ["172.16.1.253/24", "p1-s1-rail1b", "Vlan101"], ["172.16.1.254/24", "p1-s1-rail1a", "Vlan101"]]
    sessions = [r[:3] for r in csv_rows(rendered / "expected" / "bgp_sessions.csv") if r[8] == "MLAG-PEER"]
    assert sessions == [["p1-s1-rail0a", "Vlan3967", "10.32.20.1"], ["p1-s1-rail0b", "Vlan3967", "10.32.20.0"],
                        ["p1-s1-rail1a", "Vlan3967", "10.32.20.5"], ["p1-s1-rail1b", "Vlan3967", "10.32.20.4"]]


def test_nxos_mlag_validates_clean(tmp_path: Path) -> None:
    findings = run_data(tmp_path, nxos_mlag_inventory()).findings
    assert [f for f in findings if f.severity == "error"] == []
    assert not [f for f in findings if f.code == "PLAT001"]
