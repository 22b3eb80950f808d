"""SONiC MCLAG of a dual-homed segment: the exact config_db tables and FRR lines of a named pair, derived by hand from
tests.helpers.mlag_inventory('sonic'); SONiC's YANG models and FRR's own parsers on the rendered files; the
verifier's SONiC reader turning them into the neutral records, and catching a broken copy.

The fabric (tests/helpers.py): limits pods 4, segments_per_pod 4, rail_switches_per_segment 8,
uplinks_per_rail_switch 16, spines_per_pod 8, uplinks_per_spine 16; pools fabric_links 10.32.0.0/11, rail_subnets
172.16.0.0/12; model sw64 = 64 × 800G, 8 serdes lanes per port, breakout 2x400G; one segment, 2 rails, 4 hosts of
2 NICs × 2 ports of 400G, `dual_homing: mlag` → pairs p1-s1-rail0a/0b (rail 0) and p1-s1-rail1a/1b (rail 1).

Derivations used below:
- tier slot of a rail switch = ((pod−1)·segments_per_pod + (segment−1))·rail_switches_per_segment + (k−1),
  k = group·2 + side + 1: rail0a 0, rail0b 1, rail1a 2, rail1b 3. ASN = 4200100000 + tier slot, and a pair
  shares side a's: rail0a/0b 4200100000, rail1a/1b 4200100002.
- peer-link /31: peer_net_base = 4·4·8·16 + 4·8·16 = 2048 + 512 = 2560 /31 slots after 10.32.0.0, + side a's tier
  slot; ×2 addresses: rail0 pair 2·2560 = 5120 = 20·256 → 10.32.20.0/31, rail1 pair 2·2562 = 5124 → 10.32.20.4/31.
  The upper end of a link (z = side b) takes the even address: rail0b 10.32.20.0, rail0a 10.32.20.1.
- peer-link ports 31 and 32 (the top of the downlinks 1-32) → Ethernet(31−1)·8 = Ethernet240, Ethernet248.
- host ports: each 800G port splits into two 400G lanes, hosts fill ports from 1 in order: gpu001 port 1 lane 1
  = Ethernet0, gpu002 port 1 lane 2 = Ethernet0+8/2 = Ethernet4, gpu003 Ethernet8, gpu004 Ethernet12.
- MLAG id = port-channel number = 1000 + (host − 1)·rails-per-switch(1) + rail slot(0) + 1 → 1001..1004 on every
  switch; the peer link is PortChannel1000; MCLAG domain number = rail group + 1 (rail0 pair 1, rail1 pair 2).
- rail VLAN = 100 + rail; rail subnet of rail r = 172.16.r.0/24, gateway .1 (the same on both switches).
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from railfabric.cli import main
from railfabric.lab.frrcheck import bgpd_check, have_bgpd, have_vtysh, vtysh_check
from railfabric.verify.model import MlagObserved
from railfabric.verify.sonic import read_sonic
from railfabric.verify.sonic_yang.check import check_configs
from tests.helpers import dump, mlag_inventory, write_files

PAIR = ("p1-s1-rail0a", "p1-s1-rail0b")
BONDS = {1001: ("Ethernet0", "p1-s1-gpu001"), 1002: ("Ethernet4", "p1-s1-gpu002"),
         1003: ("Ethernet8", "p1-s1-gpu003"), 1004: ("Ethernet12", "p1-s1-gpu004")}
PEER_IP = {"p1-s1-rail0a": "10.32.20.1", "p1-s1-rail0b": "10.32.20.0"}  # side b = upper end = even address


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("mlag-sonic")
    write_files(base / "inv", {"fabric.yml": dump(mlag_inventory("sonic"))})
    assert main(["render", str(base / "inv"), "--out", str(base / "gen")]) == 0
    return base / "gen"


def config_db(out: Path, device: str) -> dict[str, Any]:
    return json.loads((out / "configs" / device / "config_db.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("me", PAIR)
def test_mclag_tables_of_the_rail0_pair(out: Path, me: str) -> None:
    db = config_db(out, me)
    peer = PAIR[1 - PAIR.index(me)]
    assert db["MCLAG_DOMAIN"] == {"1": {"source_ip": PEER_IP[me], "peer_ip": PEER_IP[peer],
                                        "peer_link": "PortChannel1000"}}
    assert db["MCLAG_INTERFACE"] == {f"1|PortChannel{n}": {"if_type": "PortChannel"} for n in BONDS}
    assert db["MCLAG_UNIQUE_IP"] == {"Vlan4094": {"unique_ip": "enable"}}
    assert "SAG" not in db  # the standby takes the active's MAC on the rail SVI (iccpd), see railfabric/device/mlag.py
    # iccpd, off on images that carry it (init_cfg), turned on; the push merges this one row into the switch's own
    # FEATURE table (sonic_ansible.ROW_TABLES) and refuses an image without it
    assert db["FEATURE"] == {"iccpd": {"state": "enabled"}}


@pytest.mark.parametrize("me", PAIR)
def test_port_channels_vlans_and_svis_of_the_rail0_pair(out: Path, me: str) -> None:
    db = config_db(out, me)
    peer = PAIR[1 - PAIR.index(me)]
    expected_pcs = {f"PortChannel{n}": {"admin_status": "up", "mtu": "9216", "min_links": "1", "lacp_key": "auto",
                                        "description": f"{host} nic0 bond rail0"} for n, (_m, host) in BONDS.items()}
    expected_pcs["PortChannel1000"] = {"admin_status": "up", "mtu": "9216", "min_links": "1", "lacp_key": "auto",
                                       "description": f"MLAG peer link {peer}"}
    mlag_pcs = {k: v for k, v in db["PORTCHANNEL"].items() if k in expected_pcs}
    assert mlag_pcs == expected_pcs
    members = {k for k in db["PORTCHANNEL_MEMBER"] if k.split("|")[0] in expected_pcs}
    assert members == {f"PortChannel{n}|{m}" for n, (m, _h) in BONDS.items()} | {
        "PortChannel1000|Ethernet240", "PortChannel1000|Ethernet248"}
    # neither a host bond nor the peer link is routed: no PORTCHANNEL_INTERFACE rows for them
    assert not any(k.split("|")[0] in expected_pcs for k in db.get("PORTCHANNEL_INTERFACE", {}))
    assert db["VLAN"] == {"Vlan100": {"vlanid": "100", "mtu": "9216", "description": "RAIL0"},
                          "Vlan4094": {"vlanid": "4094", "mtu": "9216", "description": "MLAG-PEER"}}
    assert db["VLAN_MEMBER"] == {
        **{f"Vlan100|PortChannel{n}": {"tagging_mode": "untagged"} for n in BONDS},
        "Vlan100|PortChannel1000": {"tagging_mode": "tagged"},
        "Vlan4094|PortChannel1000": {"tagging_mode": "tagged"}}
    assert db["VLAN_INTERFACE"] == {"Vlan100": {}, "Vlan100|172.16.0.1/24": {},
                                    "Vlan4094": {}, f"Vlan4094|{PEER_IP[me]}/31": {}}
    # the bond members and the peer-link members keep their speed, FEC and RoCE QoS
    for port, speed in (("Ethernet0", "400000"), ("Ethernet240", "800000"), ("Ethernet248", "800000")):
        assert (db["PORT"][port]["speed"], db["PORT"][port]["admin_status"]) == (speed, "up")
        assert db["PORT_QOS_MAP"][port]["pfc_enable"] == "3"
    assert "Ethernet0" not in {k.split("|")[1] for k in db["VLAN_MEMBER"]}  # the VLAN is on the bond


def test_only_the_pairs_enable_iccpd(out: Path) -> None:
    assert "FEATURE" not in config_db(out, "p1-spine1")  # a spine is no MCLAG member: the switch's features stay


def test_rail1_pair_has_its_own_domain_and_peer_subnet(out: Path) -> None:
    a, b = config_db(out, "p1-s1-rail1a"), config_db(out, "p1-s1-rail1b")
    assert a["MCLAG_DOMAIN"] == {"2": {"source_ip": "10.32.20.5", "peer_ip": "10.32.20.4",
                                       "peer_link": "PortChannel1000"}}
    assert b["MCLAG_DOMAIN"]["2"]["source_ip"] == "10.32.20.4"
    assert a["VLAN_INTERFACE"]["Vlan101|172.16.1.1/24"] == b["VLAN_INTERFACE"]["Vlan101|172.16.1.1/24"] == {}
    assert set(a["MCLAG_INTERFACE"]) == {f"2|PortChannel{n}" for n in BONDS}


@pytest.mark.parametrize("me", PAIR)
def test_frr_mlag_peer_group(out: Path, me: str) -> None:
    text = (out / "configs" / me / "frr.conf").read_text(encoding="utf-8")
    peer = PAIR[1 - PAIR.index(me)]
    assert "router bgp 4200100000\n" in text  # both switches of the pair: side a's ASN
    for line in (" neighbor MLAG-PEER peer-group\n",
                 " neighbor MLAG-PEER remote-as 4200100000\n",
                 " neighbor MLAG-PEER bfd profile RF-MLAG-PEER\n",  # tier mlag_peer, fabric-wide 300 ms x 3
                 f" neighbor {PEER_IP[peer]} peer-group MLAG-PEER\n",
                 f" neighbor {PEER_IP[peer]} description {peer}\n",
                 "  neighbor MLAG-PEER activate\n  neighbor MLAG-PEER next-hop-self\n"):
        assert line in text, line
    spine = (out / "configs" / "p1-spine1" / "frr.conf").read_text(encoding="utf-8")
    assert "next-hop-self" not in spine and "MLAG-PEER" not in spine


@pytest.mark.skipif(not have_vtysh(), reason="FRR (vtysh) is not installed: apt-get install frr")
def test_frr_parsers_accept_the_pair(out: Path, tmp_path: Path) -> None:
    for me in PAIR:
        path = out / "configs" / me / "frr.conf"
        assert vtysh_check(path) == []
        if have_bgpd():
            assert bgpd_check(path) == []
    # the parser does catch a mistyped form of the new line
    bad = tmp_path / "frr.conf"
    bad.write_text((out / "configs" / PAIR[0] / "frr.conf").read_text().replace("next-hop-self", "next-hop-selff"))
    assert vtysh_check(bad) != []




def test_every_config_db_of_the_mlag_fabric_passes_sonic_yang(out: Path, yang_models: Path) -> None:
    configs = {p.parent.name: json.loads(p.read_text()) for p in sorted(out.glob("configs/*/config_db.json"))}
    assert len(configs) == 6  # 4 rail switches + 2 spines
    assert [str(p) for p in check_configs(configs, yang_models)] == []
    broken = copy.deepcopy(configs["p1-s1-rail0a"])
    broken["MCLAG_INTERFACE"]["1|PortChannel1999"] = {"if_type": "PortChannel"}  # no such port-channel
    problems = [str(p) for p in check_configs({"x": broken}, yang_models)]
    assert len(problems) == 1 and "YANG008" in problems[0] and "PortChannel1999" in problems[0], problems


def test_reader_records_of_the_pair(out: Path) -> None:
    dev = read_sonic("p1-s1-rail0b", out)
    assert dev.failures == []
    assert dev.mlag == MlagObserved(domain="1", local_ip="10.32.20.0", peer_ip="10.32.20.1",
                                    peer_link="PortChannel1000", vlan=4094, virtual_mac=None)
    peer_link = dev.interfaces["PortChannel1000"]
    assert (peer_link.mode, peer_link.trunk_vlans, peer_link.mlag) == ("trunk", frozenset({100, 4094}), None)
    for n, (member, _host) in BONDS.items():
        bond = dev.interfaces[f"PortChannel{n}"]
        assert (bond.mode, bond.vlan, bond.mlag, bond.mtu) == ("access", 100, n, 9216)
        assert (dev.interfaces[member].mode, dev.interfaces[member].channel) == ("member", f"PortChannel{n}")
    for port in ("Ethernet240", "Ethernet248"):
        assert (dev.interfaces[port].mode, dev.interfaces[port].channel) == ("member", "PortChannel1000")
    rail, peer_vlan = dev.vlans[100], dev.vlans[4094]
    assert (rail.members, rail.tagged, rail.svi, rail.virtual) == (
        [f"PortChannel{n}" for n in BONDS], ["PortChannel1000"], ["172.16.0.1/24"], True)
    assert (peer_vlan.members, peer_vlan.tagged, peer_vlan.svi, peer_vlan.virtual) == (
        [], ["PortChannel1000"], ["10.32.20.0/31"], False)  # unique-ip: each switch its own address and MAC
    assert dev.interfaces["Vlan4094"].ipv4 == ["10.32.20.0/31"]  # as expected/bgp_sessions.csv names it
    nbr = dev.bgp.neighbors["10.32.20.1"]
    assert (nbr.remote_as, nbr.peer_group, nbr.bfd) == (4200100000, "MLAG-PEER", True)


def _break(out: Path, tmp_path: Path, change: Any) -> list[str]:
    gen = tmp_path / "gen"
    shutil.copytree(out, gen)
    path = gen / "configs" / "p1-s1-rail0a" / "config_db.json"
    db = json.loads(path.read_text())
    change(db)
    path.write_text(json.dumps(db))
    return [f.line() for f in read_sonic("p1-s1-rail0a", gen).failures]


FILE = "configs/p1-s1-rail0a/config_db.json"


def test_reader_catches_a_dangling_mclag_interface_and_peer_link(out: Path, tmp_path: Path) -> None:
    def change(db: dict[str, Any]) -> None:
        db["MCLAG_INTERFACE"]["1|PortChannel1999"] = {"if_type": "PortChannel"}
        db["MCLAG_DOMAIN"]["1"]["peer_link"] = "PortChannel999"

    assert sorted(_break(out, tmp_path, change)) == sorted([
        f"p1-s1-rail0a MCLAG_INTERFACE|1|PortChannel1999: expected port-channel PortChannel1999 defined in "
        f"PORTCHANNEL, found no such entry ({FILE})",
        f"p1-s1-rail0a MCLAG_DOMAIN|1: expected peer_link PortChannel999 defined in PORT or PORTCHANNEL, found no "
        f"such port ({FILE})",
        # the rail VLAN's bonds now have no peer link under the name the domain gives
        f"p1-s1-rail0a Vlan100: expected the peer link PortChannel999 a tagged member (an MCLAG bond is in the VLAN: "
        f"its traffic crosses the peer link when a host link fails), found not a member ({FILE})",
    ])


def test_reader_catches_a_foreign_source_ip_and_a_shared_peer_svi(out: Path, tmp_path: Path) -> None:
    def foreign(db: dict[str, Any]) -> None:
        db["MCLAG_DOMAIN"]["1"]["source_ip"] = "10.32.20.7"

    assert _break(out, tmp_path / "a", foreign) == [
        f"p1-s1-rail0a MCLAG_DOMAIN|1: expected source_ip 10.32.20.7 an address of the switch, found not "
        f"configured on any interface ({FILE})"]

    def shared(db: dict[str, Any]) -> None:
        del db["MCLAG_UNIQUE_IP"]
        del db["VLAN_MEMBER"]["Vlan100|PortChannel1000"]

    assert sorted(_break(out, tmp_path / "b", shared)) == sorted([
        f"p1-s1-rail0a MCLAG_DOMAIN|1: expected Vlan4094 (holds source_ip 10.32.20.1) in MCLAG_UNIQUE_IP, so it "
        f"keeps its own MAC on the standby, found not listed ({FILE})",
        f"p1-s1-rail0a Vlan100: expected the peer link PortChannel1000 a tagged member (an MCLAG bond is in the "
        f"VLAN: its traffic crosses the peer link when a host link fails), found not a member ({FILE})",
    ])


def test_verify_reads_every_bgp_session_of_the_pair(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The whole verifier on the rendered MLAG fabric: the MLAG-PEER sessions over Vlan4094 match
    expected/bgp_sessions.csv, nothing MCLAG-related fails. Host-port failures (a bond member is not an access
    port) wait for the cross-device MLAG checks of checks_links.py (another branch)."""
    main(["verify", str(out), "--no-frr"])
    lines = capsys.readouterr().out.splitlines()
    failing = [ln for ln in lines if ln.startswith("FAIL")]
    assert [ln for ln in failing if not ln.startswith("FAIL host:")] == []
    assert not any("Vlan4094" in ln or "MCLAG" in ln for ln in failing)
