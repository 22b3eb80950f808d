"""routing.addressing: unnumbered on Arista EOS (RFC 8950; the forms Arista's AVD writes, railfabric/platforms/eos.py).

The fabric is tests.helpers' mini fabric on EOS: one pod, spines p1-spine1/2 (ASN spine_base 4200001000 + pod 1 =
4200001001, router-id 10.0.0.8 for spine1), one single-rail segment with rail switches p1-s1-rail0/1 (ASNs
rail_switch_base 4200100000 + tier slot 0/1), each cabled once to each spine: 4 links, 4 sessions. EOS names an 800G
port at its native speed by its port and first lane, Ethernet<port>/1 (platforms/eos.py interface_name). A rail
switch's downlinks are ports 1-32 and its uplinks start at port 33: spine 1 → Ethernet33/1, spine 2 → Ethernet34/1;
a spine's downlink to rail switch k is port k + 1: rail0 → Ethernet1/1, rail1 → Ethernet2/1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from anta.catalog import AntaCatalog

from tests.helpers import (
    base_inventory,
    codes,
    mlag_inventory,
    render_to,
    run_data,
    verify_lines,
    with_system,
)

SPINE_AS, RAIL0_AS, RAIL1_AS = 4200001001, 4200100000, 4200100001


def _eos_unnumbered(data: dict[str, Any], pool: bool = False) -> dict[str, Any]:
    data["fabric"]["platform"] = "eos"
    data.setdefault("routing", {})["addressing"] = "unnumbered"
    if not pool:
        del data["pools"]["fabric_links"]
    return data


@pytest.fixture()
def rendered(tmp_path: Path) -> Path:
    return render_to(tmp_path, _eos_unnumbered(with_system(base_inventory())))


def _config(gen: Path, name: str) -> str:
    return (gen / "configs" / name / "running-config.cfg").read_text(encoding="utf-8")


def _block(text: str, header: str) -> list[str]:
    """The lines of the top-level section `header` (up to the next line starting with `!`)."""
    lines = text.splitlines()
    start = lines.index(header)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("!"))
    return lines[start:end]


def test_eos_is_no_longer_refused(tmp_path: Path) -> None:
    res = run_data(tmp_path, _eos_unnumbered(with_system(base_inventory())))
    assert "PLAT041" not in codes(res) and res.plan is not None, codes(res)


def test_rail_switch_lines(rendered: Path) -> None:
    text = _config(rendered, "p1-s1-rail0")
    # the uplink to spine 1 (port 33): routed, no IPv4 address, IPv6 link-local only
    port = _block(text, "interface Ethernet33/1")
    assert port[1] == "   description p1-spine1 Ethernet1/1"
    assert port[port.index("   no switchport") + 1] == "   ipv6 enable"
    assert not any(ln.startswith("   ip address") for ln in port)
    # IPv4 routing over IPv6 next hops, IPv6 routing (EOS looks for link-local peers only with it), mgmt VRF unrouted
    assert "\n!\nip routing ipv6 interfaces\nno ip routing vrf MGMT\n!\nipv6 unicast-routing\n!\n" in text
    assert "\nip routing\n" not in text
    # both spines share ASN 4200001001: the group holds it, and each interface neighbour repeats it (the form AVD
    # writes needs remote-as or a peer-filter on the line)
    bgp = text[text.index("router bgp 4200100000\n"):]
    assert ("   neighbor SPINES remote-as 4200001001\n" in bgp)
    assert ("   neighbor interface Ethernet33/1 peer-group SPINES remote-as 4200001001\n"
            "   neighbor interface Ethernet34/1 peer-group SPINES remote-as 4200001001\n") in bgp
    assert ("   address-family ipv4\n"
            "      neighbor SPINES next-hop address-family ipv6 originate\n"
            "      neighbor SPINES activate\n") in bgp
    assert "10.32." not in text  # no /31 from the (absent) fabric_links pool


def test_spine_lines(rendered: Path) -> None:
    text = _config(rendered, "p1-spine1")
    port = _block(text, "interface Ethernet2/1")  # the downlink to rail switch 1
    assert port[1] == "   description p1-s1-rail1 Ethernet33/1"
    assert "   ipv6 enable" in port and not any(ln.startswith("   ip address") for ln in port)
    bgp = _block(text, "router bgp 4200001001")
    # two rail switches, two ASNs: the group has none, each interface neighbour its own
    assert not any(ln.startswith("   neighbor RAIL-SWITCHES remote-as") for ln in bgp)
    assert [ln for ln in bgp if ln.startswith("   neighbor interface ")] == [
        "   neighbor interface Ethernet1/1 peer-group RAIL-SWITCHES remote-as 4200100000",
        "   neighbor interface Ethernet2/1 peer-group RAIL-SWITCHES remote-as 4200100001"]
    assert bgp[-2:] == ["      neighbor RAIL-SWITCHES next-hop address-family ipv6 originate",
                        "      neighbor RAIL-SWITCHES activate"]


def test_verify_reads_the_interface_neighbours(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = verify_lines(rendered, capsys)
    # 4 sessions seen from both ends: 8 neighbours, each named by its interface
    assert code == 0 and lines[-1].endswith("8 BGP neighbours: all promises kept"), lines[-10:]


def test_verify_names_a_session_missing_at_one_end(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # p1-s1-rail0's end of its session to p1-spine1 (its port 33, the spine's Ethernet1/1) removed. The sessions
    # file: title, header, then 2 rows per switch sorted by device and interface: rail0's Ethernet33/1 is line 3
    conf = rendered / "configs" / "p1-s1-rail0" / "running-config.cfg"
    conf.write_text(conf.read_text().replace(
        "   neighbor interface Ethernet33/1 peer-group SPINES remote-as 4200001001\n", ""))
    code, lines = verify_lines(rendered, capsys)
    assert [ln for ln in lines if ln.startswith("FAIL ")] == [
        "FAIL bgp: p1-spine1 neighbor Ethernet1/1 interface: expected a reverse unnumbered session on p1-s1-rail0 "
        "Ethernet33/1, found none (configs/p1-spine1/running-config.cfg)",
        "FAIL bgp-plan: p1-s1-rail0 neighbor Ethernet33/1: expected an unnumbered session to p1-spine1 "
        "(expected/bgp_sessions.csv:3), found none (configs/p1-s1-rail0/running-config.cfg)"]
    assert code == 1


def test_verify_finds_an_address_left_on_an_unnumbered_port(rendered: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    # the spine's downlink to rail0 given a /31 beside its `ipv6 enable`
    conf = rendered / "configs" / "p1-spine1" / "running-config.cfg"
    text = conf.read_text()
    port = "interface Ethernet1/1\n"
    head, tail = text.split(port, 1)
    conf.write_text(head + port + tail.replace("   ipv6 enable\n", "   ipv6 enable\n   ip address 10.9.9.0/31\n", 1))
    code, lines = verify_lines(rendered, capsys)
    # the sessions file: title, header, 2 rows each for p1-s1-rail0, p1-s1-rail1 (lines 3-6), then p1-spine1's
    # Ethernet1/1 on line 7
    assert [ln for ln in lines if ln.startswith("FAIL ")] == [
        "FAIL bgp-plan: p1-spine1 Ethernet1/1: expected no IPv4 address (unnumbered, expected/bgp_sessions.csv:7), "
        "found 10.9.9.0/31 (configs/p1-spine1/running-config.cfg)"]
    assert code == 1


def test_anta_names_unnumbered_peers_by_interface(rendered: Path, tmp_path: Path) -> None:
    path = rendered / "expected" / "anta" / "catalogs" / "p1-spine1.yml"
    AntaCatalog.parse(path)  # ANTA 1.10's own input models accept the interface form
    bgp = yaml.safe_load(path.read_text())["anta.tests.routing.bgp"]
    tag = {"tags": ["p1-spine1"]}
    # no peer has an address: VerifyBGPSpecificPeers (addresses only) is left out, the sessions are checked by
    # interface (ANTA's RFC 5549 form), and BFD (ANTA's BFDPeer needs an address) has no test
    assert bgp[:2] == [
        {"VerifyBGPPeerSession": {"bgp_peers": [{"interface": "Ethernet1/1", "vrf": "default"},
                                                {"interface": "Ethernet2/1", "vrf": "default"}], "filters": tag}},
        {"VerifyBGPPeerGroup": {"bgp_peers": [
            {"interface": "Ethernet1/1", "vrf": "default", "peer_group": "RAIL-SWITCHES"},
            {"interface": "Ethernet2/1", "vrf": "default", "peer_group": "RAIL-SWITCHES"}], "filters": tag}}]
    assert "anta.tests.bfd" not in yaml.safe_load(path.read_text())


def test_mlag_peer_keeps_its_numbered_ibgp(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = mlag_inventory("eos")
    data["routing"] = {"addressing": "unnumbered"}
    gen = render_to(tmp_path, data)  # fabric_links stays: the MLAG peer VLAN's /31 comes from it
    text = _config(gen, "p1-s1-rail0a")
    bgp = _block(text, "router bgp 4200100000")
    # the iBGP to the MLAG peer is an address neighbour, without the IPv6 next hop; the spines are interfaces
    ibgp = [ln for ln in bgp if "peer group MLAG" in ln and not ln.endswith(" peer group")]
    assert len(ibgp) == 1 and ibgp[0].split()[1][0].isdigit(), bgp
    originate = [ln.split()[1] for ln in bgp if ln.endswith("next-hop address-family ipv6 originate")]
    assert originate == ["SPINES"]
    code, lines = verify_lines(gen, capsys)
    assert code == 0, [ln for ln in lines if ln.startswith("FAIL")]


def test_verify_finds_the_ipv6_lines_an_interface_session_needs(rendered: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    # rail1's uplink to spine 2 (port 34, Ethernet34/1) without `ipv6 enable`; spine 2 without `ipv6 unicast-routing`
    rail = rendered / "configs" / "p1-s1-rail1" / "running-config.cfg"
    head, tail = rail.read_text().split("interface Ethernet34/1\n", 1)
    rail.write_text(head + "interface Ethernet34/1\n" + tail.replace("   ipv6 enable\n", "", 1))
    spine = rendered / "configs" / "p1-spine2" / "running-config.cfg"
    spine.write_text(spine.read_text().replace("!\nipv6 unicast-routing\n", ""))
    code, lines = verify_lines(rendered, capsys)
    assert [ln for ln in lines if ln.startswith("FAIL ")] == [
        "FAIL bgp: p1-s1-rail1 Ethernet34/1: expected ipv6 enable (an unnumbered BGP session's link-local address), "
        "found absent (configs/p1-s1-rail1/running-config.cfg)",
        "FAIL bgp: p1-spine2 ipv6 unicast-routing: expected ipv6 unicast-routing (unnumbered BGP sessions), found "
        "absent (configs/p1-spine2/running-config.cfg)"]
    assert code == 1


def test_an_unnumbered_port_channel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _eos_unnumbered(with_system(base_inventory()))
    data["pods"][0]["spines"].update(links_per_rail_switch=2, port_channel_members=2)
    gen = render_to(tmp_path, data)
    text = _config(gen, "p1-s1-rail0")
    # two links to each spine, bundled: rail0's uplinks are ports 33-34 (spine 1) and 35-36 (spine 2), each bundle
    # numbered by its first member port; min-links = both members
    assert _block(text, "interface Port-Channel33") == [
        "interface Port-Channel33", "   description p1-spine1 pc1", "   mtu 9214", "   no switchport",
        "   ipv6 enable", "   port-channel min-links 2"]
    assert [ln for ln in _block(text, "router bgp 4200100000") if ln.startswith("   neighbor interface ")] == [
        "   neighbor interface Port-Channel33 peer-group SPINES remote-as 4200001001",
        "   neighbor interface Port-Channel35 peer-group SPINES remote-as 4200001001"]
    code, lines = verify_lines(gen, capsys)
    assert code == 0 and lines[-1].endswith("8 BGP neighbours: all promises kept"), lines[-5:]


def test_rollout_keys_a_link_local_peer_by_its_interface() -> None:
    from railfabric.configs.eos.ansible_plugin import bgp_peers
    from railfabric.outputs.ansible_filters import rf_bgp_problems

    # an address peer as is; link-local peers `<fe80::...>%<short name>` (ANTA's form) by their full interface name
    show = {"vrfs": {"default": {"peers": {
        "10.32.0.1": {"peerState": "Established", "asn": "4200001001"},
        "fe80::1%Et33/1": {"peerState": "Established", "asn": "4200001001"},
        "fe80::2%Po35": {"peerState": "Active", "asn": "4200001001"}}}}}
    assert bgp_peers(show) == {"10.32.0.1": ("Established", "4200001001"),
                               "Ethernet33/1": ("Established", "4200001001"),
                               "Port-Channel35": ("Active", "4200001001")}
    rows = [{"interface": ifname, "neighbor_ip": "", "peer_device": "p1-spine1", "remote_asn": "4200001001"}
            for ifname in ("Ethernet33/1", "Port-Channel35")]
    assert rf_bgp_problems(show, rows, "eos") == ["Port-Channel35 unnumbered (p1-spine1): Active"]
