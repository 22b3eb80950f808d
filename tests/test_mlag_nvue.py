"""Cumulus Linux (NVUE) MLAG: the startup.yaml sections of a named pair (parsed by PyYAML), the NVUE reader and
`fabric verify` on them (passing, and failing on hand-broken copies), ipplan.csv and expected/ rows, validation.

Hand derivation for tests.helpers.mlag_inventory("eos") moved to `platform: nvue` (2 rails, 4 hosts with 2 NICs × 2
ports of 400G, sw64: 64 ports of 800G, 2 spines; the EOS test's derivation, tests/test_mlag_eos.py, gives the same
plan, only the names and the MTU change):
- pairs: rail group 1 = p1-s1-rail0a (side a, primary) + p1-s1-rail0b; rail group 2 = p1-s1-rail1a + rail1b.
- peer link: ports 31 and 32 (the highest of the free ports 1-32), native 800G on an 8-lane port: swp31, swp32,
  in NVUE's bond `peerlink` (type peerlink); the model's port-channel 1000 (bond1000) is never written.
- peer VLAN 4094 = the subinterface peerlink.4094 (never a bridge VLAN): /31s 10.32.20.0/31 (group 1) and
  10.32.20.4/31 (group 2); side b (the upper end) takes the even address: rail0b 10.32.20.0, rail0a 10.32.20.1,
  rail1b 10.32.20.4, rail1a 10.32.20.5. `mlag peer-ip` = the other switch's address.
- MLAG system MAC: 44:38:39:ff + the low 16 bits of the /31's number (network address / 2). 10.32.20.0: the low 17
  bits of the address are 20·256 + 0 = 5120 (10.32 = 0x0a20 contributes 0x20·65536 = 2^21, a multiple of 2^17),
  5120 / 2 = 2560 = 0x0a00 → 44:38:39:ff:0a:00; 10.32.20.4: (5120 + 4) / 2 = 2562 = 0x0a02 → 44:38:39:ff:0a:02.
- priority: side a 2048 (primary), side b 32768; backup = the peer's eth0 address, vrf mgmt.
- host bonds: bond1001..bond1004 (MLAG id = number = 1000 + (host − 1)·1 + 0 + 1), the same on both switches,
  access VLAN 100 + rail; members: 400G lanes of the 2x breakout, host 1 swp1s0, 2 swp1s1, 3 swp2s0, 4 swp2s1.
- rail SVI: vlan100 (rail 0) / vlan101 (rail 1), gateway 172.16.0.1/24 / 172.16.1.1/24 as `ip vrr address`,
  `ip vrr mac-address` 02:1c:73:00:00:01 (the model's VIRTUAL_ROUTER_MAC), `router vrr enable on`.
- own SVI addresses (NVUE sets mlag_own_svi_address): rail subnets are /24 (the default rail_prefix_len): rail 0 =
  172.16.0.0/24 (group 1 = aggregate 0 of the segment block 172.16.0.0/21), rail 1 = 172.16.1.0/24 (group 2,
  one /24 further). Side a takes the last usable address (network + 256 − 2 = .254), side b the one before (.253):
  rail0a 172.16.0.254/24, rail0b 172.16.0.253/24, rail1a 172.16.1.254/24, rail1b 172.16.1.253/24.
- iBGP: MLAG-PEER peer group with next-hop-self; neighbour = the peer's /31 address, remote-as = the pair's shared
  ASN (side a's: rail_switch_base 4200100000 + tier slot 0 → 4200100000 for group 1, slot 2 → 4200100002 for 2).
- MTU 9216 (the NVUE maximum, the fabric MTU unchanged).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from railfabric.cli import main
from railfabric.verify.nvue import read_nvue
from tests.helpers import dump, mlag_inventory, run_data, write_files


def nvue_mlag_inventory() -> dict[str, Any]:
    data = mlag_inventory("eos")  # the EOS variant carries the system: block a full-replace push needs
    data["pods"][0]["segments"][0]["platform"] = "nvue"
    return data


OWN = {"p1-s1-rail0a": "172.16.0.254/24", "p1-s1-rail0b": "172.16.0.253/24",  # see the derivation above
       "p1-s1-rail1a": "172.16.1.254/24", "p1-s1-rail1b": "172.16.1.253/24"}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("mlag-nvue")
    write_files(base / "inv", {"fabric.yml": dump(nvue_mlag_inventory())})
    assert main(["render", str(base / "inv"), "--out", str(base / "raw"), "-q"]) == 0
    return base / "raw"


@pytest.fixture()
def gen(rendered: Path, tmp_path: Path) -> Path:
    shutil.copytree(rendered, tmp_path / "gen")
    return tmp_path / "gen"


def tree(root: Path, host: str) -> dict[str, Any]:
    doc = yaml.safe_load((root / "configs" / host / "startup.yaml").read_text())
    assert isinstance(doc, list) and len(doc) == 1 and set(doc[0]) == {"set"}
    return doc[0]["set"]


def eth0(t: dict[str, Any]) -> str:
    (address,) = t["interface"]["eth0"]["ip"]["address"]
    return address.split("/")[0]


# ------------------------------------------------------------------------------------------------ rendering

def test_mlag_section(rendered: Path) -> None:
    a, b = tree(rendered, "p1-s1-rail0a"), tree(rendered, "p1-s1-rail0b")
    assert a["mlag"] == {"enable": "on", "mac-address": "44:38:39:ff:0a:00", "peer-ip": "10.32.20.0",
                         "priority": 2048, "backup": {eth0(b): {"vrf": "mgmt"}}}
    assert b["mlag"] == {"enable": "on", "mac-address": "44:38:39:ff:0a:00", "peer-ip": "10.32.20.1",
                         "priority": 32768, "backup": {eth0(a): {"vrf": "mgmt"}}}
    assert eth0(a) != eth0(b)
    c = tree(rendered, "p1-s1-rail1a")
    assert (c["mlag"]["mac-address"], c["mlag"]["peer-ip"], c["mlag"]["priority"]) == (
        "44:38:39:ff:0a:02", "10.32.20.4", 2048)


def test_peerlink_and_peer_vlan(rendered: Path) -> None:
    a, b = tree(rendered, "p1-s1-rail0a"), tree(rendered, "p1-s1-rail0b")
    assert a["interface"]["peerlink"] == {
        "type": "peerlink", "description": "MLAG peer link p1-s1-rail0b", "link": {"mtu": 9216},
        "bond": {"member": {"swp31": {}, "swp32": {}}}}
    assert a["interface"]["peerlink.4094"] == {
        "type": "sub", "base-interface": "peerlink", "vlan": 4094, "description": "MLAG peer p1-s1-rail0b",
        "link": {"mtu": 9216}, "ip": {"address": {"10.32.20.1/31": {}}}}
    assert b["interface"]["peerlink.4094"]["ip"] == {"address": {"10.32.20.0/31": {}}}
    for t in (a, b):
        assert "bond1000" not in t["interface"] and "vlan4094" not in t["interface"]
        assert t["bridge"] == {"domain": {"br_default": {"vlan": {"100": {}}}}}  # 4094 is not a bridge VLAN
        port = t["interface"]["swp31"]
        assert (port["link"]["speed"], port["link"]["mtu"], port["qos"]) == ("800G", 9216, {"pfc-watchdog": {}})
        assert "bridge" not in port and "ip" not in port


def test_host_bonds(rendered: Path) -> None:
    for host in ("p1-s1-rail0a", "p1-s1-rail0b"):
        t = tree(rendered, host)
        for n, member in ((1, "swp1s0"), (2, "swp1s1"), (3, "swp2s0"), (4, "swp2s1")):
            assert t["interface"][f"bond100{n}"] == {
                "type": "bond", "description": f"p1-s1-gpu00{n} nic0 bond rail0", "link": {"mtu": 9216},
                "bond": {"member": {member: {}}, "mlag": {"enable": "on", "id": 1000 + n}},
                "bridge": {"domain": {"br_default": {"access": 100}}}}
            port = t["interface"][member]
            assert port["link"]["speed"] == "400G" and "bridge" not in port and "ip" not in port
    c = tree(rendered, "p1-s1-rail1b")
    assert c["interface"]["bond1003"]["bridge"] == {"domain": {"br_default": {"access": 101}}}


def test_vrr_gateways(rendered: Path) -> None:
    for host, vid, gateway in (("p1-s1-rail0a", 100, "172.16.0.1/24"), ("p1-s1-rail0b", 100, "172.16.0.1/24"),
                               ("p1-s1-rail1a", 101, "172.16.1.1/24"), ("p1-s1-rail1b", 101, "172.16.1.1/24")):
        t = tree(rendered, host)
        assert t["interface"][f"vlan{vid}"] == {
            "type": "svi", "vlan": vid, "description": f"RAIL{vid - 100}", "link": {"mtu": 9216},
            "ip": {"address": {OWN[host]: {}},
                   "vrr": {"enable": "on", "address": {gateway: {}}, "mac-address": "02:1c:73:00:00:01",
                           "state": {"up": {}}}}}
        assert t["router"]["vrr"] == {"enable": "on"}


def test_mlag_peer_ibgp(rendered: Path) -> None:
    a, c = tree(rendered, "p1-s1-rail0a"), tree(rendered, "p1-s1-rail1a")
    bgp = a["vrf"]["default"]["router"]["bgp"]
    assert bgp["neighbor"]["10.32.20.0"] == {"type": "numbered", "peer-group": "MLAG-PEER",
                                             "remote-as": 4200100000, "description": "p1-s1-rail0b"}
    assert a["router"]["bgp"]["autonomous-system"] == 4200100000
    assert bgp["peer-group"]["MLAG-PEER"]["address-family"] == {"ipv4-unicast": {"enable": "on",
                                                                                  "nexthop-setting": "self"}}
    assert "nexthop-setting" not in bgp["peer-group"]["SPINES"]["address-family"]["ipv4-unicast"]
    cb = c["vrf"]["default"]["router"]["bgp"]
    assert cb["neighbor"]["10.32.20.4"]["remote-as"] == 4200100002 == c["router"]["bgp"]["autonomous-system"]


# ------------------------------------------------------------------------------------------------ verifier

def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["verify", str(path), "--no-frr"])
    return code, [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(("FAIL ", "verify:"))]


def test_reader_records(rendered: Path) -> None:
    dev = read_nvue("p1-s1-rail0a", rendered)
    pl, bond, member = (dev.interfaces[n] for n in ("peerlink", "bond1003", "swp2s0"))
    assert (pl.mode, pl.trunk_vlans, pl.mlag) == ("trunk", frozenset({100, 4094}), None)
    assert (bond.mode, bond.vlan, bond.mlag, bond.mtu) == ("access", 100, 1003, 9216)
    assert (member.mode, member.channel) == ("member", "bond1003")
    assert dev.vlans[100].virtual and dev.vlans[100].svi == ["172.16.0.254/24", "172.16.0.1/24"]
    assert dev.vlans[100].own == ["172.16.0.254/24"]
    assert dev.vlans[4094].svi == ["10.32.20.1/31"] and dev.vlans[4094].tagged == ["peerlink"]
    sub = dev.interfaces["peerlink.4094"]  # the peer VLAN's routed interface, as ipplan.csv names it
    assert (sub.mode, sub.ipv4, sub.mtu) == ("routed", ["10.32.20.1/31"], 9216)
    m = dev.mlag
    assert m is not None
    assert (m.domain, m.vlan, m.local_ip, m.peer_ip, m.peer_link, m.virtual_mac) == (
        "44:38:39:ff:0a:00", 4094, "10.32.20.1", "10.32.20.0", "peerlink", "02:1c:73:00:00:01")


def test_rendered_pairs_keep_every_promise(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 4 rail switches × 2 spine uplinks + 2 pairs × 2 peer cables = 12 links; 4 hosts × 2 NICs × 2 ports = 16 host
    # ports; BGP: each rail switch 2 spines + its MLAG peer (12), each spine 4 rail switches (8) = 20
    assert verify(gen, capsys) == (0, ["verify: 6 devices (4 Cumulus Linux (NVUE), 2 SONiC), 12 fabric links, "
                                       "16 host ports "
        "(16 against the hosts' files), 20 BGP neighbours: all promises kept"])


def rewrite(root: Path, host: str, change: Any) -> str:
    """Apply `change` to the parsed startup.yaml of `host` and write it back; returns its path for the message."""
    path = root / "configs" / host / "startup.yaml"
    doc = yaml.safe_load(path.read_text())
    change(doc[0]["set"])
    path.write_text(yaml.safe_dump(doc, sort_keys=True))
    return f"configs/{host}/startup.yaml"


def test_mlag_id_mismatch(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b0 = rewrite(gen, "p1-s1-rail0b", lambda t: t["interface"]["bond1002"]["bond"]["mlag"].update(id=1003))
    code, lines = verify(gen, capsys)
    assert code == 1
    assert lines[:-1] == [
        "FAIL mlag: p1-s1-rail0b bond1002: expected MLAG id 1002 as on p1-s1-rail0a bond1002 (host bond "
        f"p1-s1-gpu002:nic0), found mlag 1003 (configs/p1-s1-rail0a/startup.yaml, {b0})"]


def test_system_mac_mismatch(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b1 = rewrite(gen, "p1-s1-rail1b", lambda t: t["mlag"].update({"mac-address": "44:38:39:ff:0a:00"}))
    code, lines = verify(gen, capsys)
    assert code == 1
    assert lines[:-1] == [
        "FAIL mlag: p1-s1-rail1b MLAG domain (peer p1-s1-rail1a): expected domain 44:38:39:ff:0a:02 as on "
        f"p1-s1-rail1a, found 44:38:39:ff:0a:00 (configs/p1-s1-rail1a/startup.yaml, {b1})"]


def test_gateway_without_vrr(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def plain(t: dict[str, Any]) -> None:
        t["interface"]["vlan100"]["ip"] = {"address": {"172.16.0.1/24": {}}}

    a0 = rewrite(gen, "p1-s1-rail0a", plain)
    code, lines = verify(gen, capsys)
    assert code == 1
    # rail0a's one SVI was its only VRR, so the pair's virtual MAC differs too (NVUE writes it per SVI); its own
    # address (.254, the derivation above) went with the `ip` replaced
    line = ipplan_line(gen, "172.16.0.254/24,p1-s1-rail0a,vlan100,rail-own,rail_subnets,rail 0 vlan 100 own address "
                            "beside the gateway shared with MLAG peer p1-s1-rail0b")
    assert lines[:-1] == [
        "FAIL mlag: p1-s1-rail0a Vlan100: expected a virtual gateway shared with p1-s1-rail0b (rail 0), found ip "
        f"address 172.16.0.1/24 ({a0})",
        f"FAIL mlag: p1-s1-rail0a Vlan100: expected own address 172.16.0.254/24 beside the shared gateway "
        f"(ipplan.csv:{line}), found none ({a0})",
        "FAIL mlag: p1-s1-rail0b MLAG domain (peer p1-s1-rail0a): expected virtual MAC None as on p1-s1-rail0a, "
        f"found 02:1c:73:00:00:01 ({a0}, configs/p1-s1-rail0b/startup.yaml)"]


def ipplan_line(root: Path, row: str) -> int:
    """The 1-based line of `row` in ipplan.csv (the verifier cites it)."""
    lines = (root / "ipplan.csv").read_text().splitlines()
    return lines.index(row) + 1


def test_own_address_broken_by_hand(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """rail0b takes rail0a's own address (.254 instead of its .253): the verifier names both the plan row it
    breaks and the clash with the peer."""
    b0 = rewrite(gen, "p1-s1-rail0b", lambda t: t["interface"]["vlan100"]["ip"].update(
        address={"172.16.0.254/24": {}}))
    line = ipplan_line(gen, "172.16.0.253/24,p1-s1-rail0b,vlan100,rail-own,rail_subnets,rail 0 vlan 100 own address "
                            "beside the gateway shared with MLAG peer p1-s1-rail0a")
    code, lines = verify(gen, capsys)
    assert code == 1
    assert lines[:-1] == [
        "FAIL mlag: p1-s1-rail0a Vlan100: expected an own address distinct from p1-s1-rail0b's, found 172.16.0.254 "
        f"on both (configs/p1-s1-rail0a/startup.yaml, {b0})",
        f"FAIL mlag: p1-s1-rail0b Vlan100: expected own address 172.16.0.253/24 beside the shared gateway "
        f"(ipplan.csv:{line}), found 172.16.0.254/24 ({b0})"]


def test_own_address_outside_the_subnet(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a1 = rewrite(gen, "p1-s1-rail1a", lambda t: t["interface"]["vlan101"]["ip"].update(
        address={"172.16.9.254/24": {}}))
    line = ipplan_line(gen, "172.16.1.254/24,p1-s1-rail1a,vlan101,rail-own,rail_subnets,rail 1 vlan 101 own address "
                            "beside the gateway shared with MLAG peer p1-s1-rail1b")
    code, lines = verify(gen, capsys)
    assert code == 1
    assert lines[:-1] == [
        f"FAIL mlag: p1-s1-rail1a Vlan101: expected own address 172.16.1.254/24 beside the shared gateway "
        f"(ipplan.csv:{line}), found 172.16.9.254/24 ({a1})",
        f"FAIL mlag: p1-s1-rail1a Vlan101: expected an own address inside the rail subnet 172.16.1.0/24, found "
        f"172.16.9.254/24 ({a1})"]


def csv_rows(path: Path) -> list[list[str]]:
    return [row.split(",") for row in path.read_text().splitlines()[2:]]


def test_ipplan_rows(rendered: Path) -> None:
    """One rail-own row per switch and rail SVI (the derivation above), hosts 172.16.r.2-5 (gateway + host number
    1-4) never reaching them, and the peer /31s on NVUE's peerlink.4094."""
    rows = csv_rows(rendered / "ipplan.csv")
    own = [r[:4] for r in rows if r[3] == "rail-own"]
    assert own == [["172.16.0.253/24", "p1-s1-rail0b", "vlan100", "rail-own"],
                   ["172.16.0.254/24", "p1-s1-rail0a", "vlan100", "rail-own"],
                   ["172.16.1.253/24", "p1-s1-rail1b", "vlan101", "rail-own"],
                   ["172.16.1.254/24", "p1-s1-rail1a", "vlan101", "rail-own"]]
    hosts = sorted(r[0] for r in rows if r[3] == "host")
    assert hosts == [f"172.16.{rail}.{n}/24" for rail in (0, 1) for n in (2, 3, 4, 5)]
    peer = [r for r in rows if r[2].startswith("peerlink")]
    assert peer == [["10.32.20.0/31", "p1-s1-rail0b", "peerlink.4094", "p2p", "fabric_links",
                     "peer p1-s1-rail0a peerlink.4094"],
                    ["10.32.20.1/31", "p1-s1-rail0a", "peerlink.4094", "p2p", "fabric_links",
                     "peer p1-s1-rail0b peerlink.4094"],
                    ["10.32.20.4/31", "p1-s1-rail1b", "peerlink.4094", "p2p", "fabric_links",
                     "peer p1-s1-rail1a peerlink.4094"],
                    ["10.32.20.5/31", "p1-s1-rail1a", "peerlink.4094", "p2p", "fabric_links",
                     "peer p1-s1-rail1b peerlink.4094"]]
    assert not any("Vlan4094" in r[2] for r in rows)


def test_expected_peer_sessions(rendered: Path) -> None:
    """The MLAG-PEER iBGP session runs on peerlink.4094 (the /31s and the pair ASNs of the derivation; BFD on, as
    every peer group of the base inventory)."""
    rows = [r for r in csv_rows(rendered / "expected" / "bgp_sessions.csv") if r[8] == "MLAG-PEER"]
    assert rows == [
        ["p1-s1-rail0a", "peerlink.4094", "10.32.20.1", "4200100000", "10.32.20.0", "4200100000", "p1-s1-rail0b",
         "peerlink.4094", "MLAG-PEER", "yes"],
        ["p1-s1-rail0b", "peerlink.4094", "10.32.20.0", "4200100000", "10.32.20.1", "4200100000", "p1-s1-rail0a",
         "peerlink.4094", "MLAG-PEER", "yes"],
        ["p1-s1-rail1a", "peerlink.4094", "10.32.20.5", "4200100002", "10.32.20.4", "4200100002", "p1-s1-rail1b",
         "peerlink.4094", "MLAG-PEER", "yes"],
        ["p1-s1-rail1b", "peerlink.4094", "10.32.20.4", "4200100002", "10.32.20.5", "4200100002", "p1-s1-rail1a",
         "peerlink.4094", "MLAG-PEER", "yes"]]


# ------------------------------------------------------------------------------------------------ validation

@pytest.mark.parametrize("platform", ["sonic", "eos", "nvue", "nxos"])
def test_every_platform_takes_the_pair(tmp_path: Path, platform: str) -> None:
    """Every platform but Junos renders dual homing (SONiC MCLAG, EOS MLAG, NVUE MLAG + VRR, NX-OS vPC + HSRP): no
    PLAT001 for an MLAG pair on any of them. Junos refuses it: tests/test_mlag_junos.py."""
    data = nvue_mlag_inventory()
    data["pods"][0]["segments"][0]["platform"] = platform
    plat = [f.message for f in run_data(tmp_path, data).findings if f.code == "PLAT001" and "MLAG pair" in f.message]
    assert plat == []


def test_nvue_mlag_validates_clean(tmp_path: Path) -> None:
    errors = [f for f in run_data(tmp_path, nvue_mlag_inventory()).findings if f.severity == "error"]
    assert errors == []


def test_hosts_stop_below_the_own_addresses(tmp_path: Path) -> None:
    """A /29 rail subnet has 8 addresses: network, gateway (.1), broadcast (.7) and, on NVUE, the pair's own .6
    (side a) and .5 (side b) leave host numbers 1-3 (.2-.4); host 4 would be .5, side b's address. Growing to a
    /28 (16 - 5 = 11 hosts) fits: length_for(4 + 3 + 2 = 9) = /28. On EOS (one shared address, no own ones)
    8 - 3 = 5 hosts fit, so 4 hosts are fine."""
    data = nvue_mlag_inventory()
    data["pods"][0]["segments"][0]["rail_prefix_len"] = 29
    pool = [f.message for f in run_data(tmp_path / "nvue", data).findings if f.code == "POOL006"]
    assert pool == ["segment 1/1: host number 4 does not fit a /29 rail subnet (gateway + 2 switch addresses + 3 "
                    "hosts); the two switches of each MLAG pair need their own address on every rail SVI beside the "
                    "shared gateway (the last two usable addresses)"]
    data["pods"][0]["segments"][0]["platform"] = "eos"
    assert [f for f in run_data(tmp_path / "eos", data).findings if f.code == "POOL006"] == []


def test_own_addresses_are_stable(tmp_path: Path) -> None:
    """Own addresses depend on the rail subnet and the side only: doubling the hosts changes none of them (nor the
    gateway), and EOS pairs get none."""
    def own(data: dict[str, Any], where: Path) -> dict[tuple[str, int], int | None]:
        plan = run_data(where, data).plan
        assert plan is not None
        return {k: s.own for k, s in plan.rail_subnets.items()}

    small = own(nvue_mlag_inventory(), tmp_path / "a")
    grown = nvue_mlag_inventory()
    grown["pods"][0]["segments"][0]["host_groups"][0]["count"] = 8
    assert own(grown, tmp_path / "b") == small
    base = (172 << 24) + (16 << 16)  # 172.16.0.0
    assert small == {("p1-s1-rail0a", 0): base + 254, ("p1-s1-rail0b", 0): base + 253,
                     ("p1-s1-rail1a", 1): base + 256 + 254, ("p1-s1-rail1b", 1): base + 256 + 253}
    eos = nvue_mlag_inventory()
    eos["pods"][0]["segments"][0]["platform"] = "eos"
    assert set(own(eos, tmp_path / "c").values()) == {None}


def test_fabric_show_prints_the_own_svi_address(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`fabric show` of an MLAG switch names its own SVI address beside the shared gateway (OWN above)."""
    inv = rendered.parent / "inv"
    assert main(["show", "p1-s1-rail0b", str(inv)]) == 0
    out = capsys.readouterr().out
    assert "  rail 0     vlan 100  subnet 172.16.0.0/24  gateway 172.16.0.1  own 172.16.0.253" in out
