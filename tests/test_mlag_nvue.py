"""Cumulus Linux (NVUE) MLAG: the startup.yaml sections of a named pair (parsed by PyYAML), the NVUE reader and
`fabric verify` on them (passing, and failing on hand-broken copies), and validation (NVUE MLAG is still refused).

NVUE's PLATFORM refuses dual_homing: mlag (PLAT001: Cumulus MLAG + VRR gives each switch its own SVI address, the
plan has one shared address per rail SVI; fabric/platforms/nvue.py). The rendering tests enable it on a copy of the
platform record (`enabled` fixture), as the lead's one-line switch would, so the built sections are tested now.

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
- rail SVI: vlan100 (rail 0) / vlan101 (rail 1), gateway 172.16.0.1/24 / 172.16.1.1/24 as `ip vrr address` only,
  `ip vrr mac-address` 02:1c:73:00:00:01 (the model's VIRTUAL_ROUTER_MAC), `router vrr enable on`.
- iBGP: MLAG-PEER peer group with next-hop-self; neighbour = the peer's /31 address, remote-as = the pair's shared
  ASN (side a's: rail_switch_base 4200100000 + tier slot 0 → 4200100000 for group 1, slot 2 → 4200100002 for 2).
- MTU 9216 (the NVUE maximum, the fabric MTU unchanged).
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from fabric.cli import main
from fabric.platforms import PLATFORMS
from fabric.verify.nvue import read_nvue
from tests.helpers import dump, mlag_inventory, run_data, write_files

STOCK_NVUE = PLATFORMS["nvue"]  # the shipped record, before any test enables mlag on a copy


def nvue_mlag_inventory() -> dict[str, Any]:
    data = mlag_inventory("eos")  # the EOS variant carries the system: block a full-replace push needs
    data["pods"][0]["segments"][0]["platform"] = "nvue"
    return data


@pytest.fixture(scope="module")
def enabled() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(PLATFORMS, "nvue", dataclasses.replace(PLATFORMS["nvue"], dual_homing=frozenset({"mlag"})))
        yield


@pytest.fixture(scope="module")
def rendered(enabled: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
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
                               ("p1-s1-rail1a", 101, "172.16.1.1/24")):
        t = tree(rendered, host)
        assert t["interface"][f"vlan{vid}"] == {
            "type": "svi", "vlan": vid, "description": f"RAIL{vid - 100}", "link": {"mtu": 9216},
            "ip": {"vrr": {"enable": "on", "address": {gateway: {}}, "mac-address": "02:1c:73:00:00:01",
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
    assert dev.vlans[100].virtual and dev.vlans[100].svi == ["172.16.0.1/24"]
    assert dev.vlans[4094].svi == ["10.32.20.1/31"] and dev.vlans[4094].tagged == ["peerlink"]
    m = dev.mlag
    assert m is not None
    assert (m.domain, m.vlan, m.local_ip, m.peer_ip, m.peer_link, m.virtual_mac) == (
        "44:38:39:ff:0a:00", 4094, "10.32.20.1", "10.32.20.0", "peerlink", "02:1c:73:00:00:01")


def test_rendered_pairs_keep_every_promise(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 4 rail switches × 2 spine uplinks + 2 pairs × 2 peer cables = 12 links; 4 hosts × 2 NICs × 2 ports = 16 host
    # ports; BGP: each rail switch 2 spines + its MLAG peer (12), each spine 4 rail switches (8) = 20
    assert verify(gen, capsys) == (0, ["verify: 6 devices (4 Cumulus Linux (NVUE), 2 SONiC), 12 fabric links, "
                                       "16 host ports, 20 BGP neighbours: all promises kept"])


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
    # rail0a's one SVI was its only VRR, so the pair's virtual MAC differs too (NVUE writes it per SVI)
    assert lines[:-1] == [
        "FAIL mlag: p1-s1-rail0a Vlan100: expected a virtual gateway shared with p1-s1-rail0b (rail 0), found ip "
        f"address 172.16.0.1/24 ({a0})",
        "FAIL mlag: p1-s1-rail0b MLAG domain (peer p1-s1-rail0a): expected virtual MAC None as on p1-s1-rail0a, "
        f"found 02:1c:73:00:00:01 ({a0}, configs/p1-s1-rail0b/startup.yaml)"]


# ------------------------------------------------------------------------------------------------ validation

@pytest.mark.parametrize("platform", ["nvue", "nxos", "junos"])
def test_mlag_still_refused(tmp_path: Path, platform: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped NVUE record refuses the pair (per-switch SVI addresses are missing from the plan), as NX-OS
    (vPC) and Junos (MC-LAG) do: one PLAT001 per pair."""
    monkeypatch.setitem(PLATFORMS, "nvue", STOCK_NVUE)  # the module's `enabled` fixture may still be active
    assert "mlag" not in STOCK_NVUE.dual_homing
    data = nvue_mlag_inventory()
    data["pods"][0]["segments"][0]["platform"] = platform
    plat = [f.message for f in run_data(tmp_path, data).findings if f.code == "PLAT001" and "MLAG pair" in f.message]
    assert [m.split(":")[0] for m in plat] == ["MLAG pair p1-s1-rail0a / p1-s1-rail0b",
                                               "MLAG pair p1-s1-rail1a / p1-s1-rail1b"]
    assert f"dual_homing: mlag cannot be expressed on {platform} (p1-s1-rail0a)" in plat[0]


def test_enabled_nvue_validates_clean(enabled: None, tmp_path: Path) -> None:
    """With mlag in NVUE's record the inventory has no error at all (the render fixture depends on it)."""
    errors = [f for f in run_data(tmp_path, nvue_mlag_inventory()).findings if f.severity == "error"]
    assert errors == []
