"""routing.addressing: unnumbered on Junos (RFC 8950 as Juniper's BGP auto-discovered neighbors: `dynamic-neighbor ...
peer-auto-discovery`; the forms and their sources are in railfabric/platforms/junos.py, "BGP unnumbered").

The fabric is tests.helpers' mini fabric on Junos: one pod, spines p1-spine1/2 (ASN spine_base 4200001000 + pod 1 =
4200001001), one single-rail segment with rail switches p1-s1-rail0/1 (ASNs rail_switch_base 4200100000 + tier slot
0/1), each cabled once to each spine: 4 links, 4 sessions, 8 neighbours seen from both ends. Junos names port p
et-0/0/<p - 1> (platforms/junos.py interface_name). A rail switch's downlinks are ports 1-32 and its uplinks start at
port 33: spine 1 → et-0/0/32, spine 2 → et-0/0/33; a spine's downlink to rail switch k is port k + 1: rail0 →
et-0/0/0, rail1 → et-0/0/1. The switch MTU 9216 is above Junos's IP maximum 9216 - 14 = 9202 (media MTU 9216 minus
the 14-byte Ethernet header), so a routed port has media `mtu 9216` and `family inet { mtu 9202; }`. BFD: routing.bfd
on with the fabric-wide default 300 ms × 3.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from railfabric.cli import main
from railfabric.configs.junos import ansible_plugin as junos
from railfabric.configs.junos.conf import as_list_members
from railfabric.outputs import ansible_filters as f
from tests.helpers import base_inventory, codes, render_to, run_data, verify_lines, with_system

SPINE_AS, RAIL0_AS, RAIL1_AS = 4200001001, 4200100000, 4200100001
CONF = "configs/{}/junos.conf"


def _junos_unnumbered(data: dict[str, Any]) -> dict[str, Any]:
    data["fabric"]["platform"] = "junos"
    data.setdefault("routing", {})["addressing"] = "unnumbered"
    del data["pools"]["fabric_links"]
    return data


@pytest.fixture()
def rendered(tmp_path: Path) -> Path:
    return render_to(tmp_path, _junos_unnumbered(with_system(base_inventory())))


def _conf(gen: Path, name: str) -> str:
    return (gen / CONF.format(name)).read_text(encoding="utf-8")


def _block(text: str, header: str) -> list[str]:
    """The lines of the block opened by the line `header` (its indentation + `{`) up to its closing brace."""
    lines = text.splitlines()
    start = lines.index(header)
    indent = header[:len(header) - len(header.lstrip())]
    end = lines.index(indent + "}", start)
    return lines[start:end + 1]


def test_junos_is_no_longer_refused(tmp_path: Path) -> None:
    res = run_data(tmp_path, _junos_unnumbered(with_system(base_inventory())))
    assert "PLAT041" not in codes(res) and res.plan is not None, codes(res)


def test_rail_switch_lines(rendered: Path) -> None:
    text = _conf(rendered, "p1-s1-rail0")
    # the uplink to spine 1 (port 33): routed, no IPv4 address, IPv6 for its link-local address
    assert _block(text, "    et-0/0/32 {") == [
        "    et-0/0/32 {", '        description "p1-spine1 et-0/0/0";', "        speed 800g;", "        mtu 9216;",
        "        unit 0 {", "            family inet {", "                mtu 9202;", "            }",
        "            family inet6;", "        }", "    }"]
    # router advertisements on both uplinks' unit 0 (IPv6 ND finds the spines)
    assert _block(text, "    router-advertisement {") == [
        "    router-advertisement {", "        interface et-0/0/32.0;", "        interface et-0/0/33.0;", "    }"]
    # both spines share ASN 4200001001: the group's peer-as, no as-list
    assert _block(text, "        group SPINES {") == [
        "        group SPINES {", "            type external;",
        '            description "uplinks to the pod\'s spines";',
        "            family inet {", "                unicast {", "                    extended-nexthop;",
        "                }", "            }", "            family inet6 {", "                unicast;", "            }",
        "            export RF-EXPORT;", f"            peer-as {SPINE_AS};", "            multipath {",
        "                multiple-as;", "            }", "            bfd-liveness-detection {",
        "                minimum-interval 300;", "                multiplier 3;", "            }",
        "            dynamic-neighbor SPINES-LINKS {", "                peer-auto-discovery {",
        "                    family inet6 {", "                        ipv6-nd;", "                    }",
        "                    interface et-0/0/32.0;", "                    interface et-0/0/33.0;", "                }",
        "            }", "        }"]
    assert "as-list" not in text and "neighbor 10." not in text
    assert "10.32." not in text  # no /31 from the (absent) fabric_links pool


def test_spine_lines(rendered: Path) -> None:
    text = _conf(rendered, "p1-spine1")
    port = _block(text, "    et-0/0/1 {")  # the downlink to rail switch 1
    assert port[1] == '        description "p1-s1-rail1 et-0/0/32";' and "            family inet6;" in port
    assert not any("address" in ln for ln in port)
    group = _block(text, "        group RAIL-SWITCHES {")
    # two rail switches, two ASNs: no group peer-as, the as-list of both; 4200100000 and 4200100001 are consecutive,
    # so one range
    assert "            peer-as-list RAIL-SWITCHES-ASNS;" in group
    assert not any(ln.startswith("            peer-as ") for ln in group)
    assert group[group.index("            dynamic-neighbor RAIL-SWITCHES-LINKS {") + 5:][:2] == [
        "                    interface et-0/0/0.0;", "                    interface et-0/0/1.0;"]
    assert f"    as-list RAIL-SWITCHES-ASNS members {RAIL0_AS}-{RAIL1_AS};" in text.splitlines()


def test_as_list_members() -> None:
    # sorted and deduplicated, consecutive runs as first-last, a lone ASN bare
    assert as_list_members([4200100001, 4200100000]) == ("4200100000-4200100001",)
    assert as_list_members([7, 5, 9, 8, 5, 1]) == ("1", "5", "7-9")
    assert as_list_members([65001]) == ("65001",)


def test_as_list_with_a_gap_is_a_list(tmp_path: Path) -> None:
    # a second segment like the first: its rail switches take the tier slots of segment 2, (segment - 1) ×
    # limits.rail_switches_per_segment 8 + k = 8 and 9, ASNs 4200100008-4200100009; the spines' list has a gap
    # (4200100002-4200100007 are no peer), so two entries in a [ ] list
    data = _junos_unnumbered(with_system(base_inventory()))
    seg2 = dict(data["pods"][0]["segments"][0], id=2)
    data["pods"][0]["segments"].append(seg2)
    gen = render_to(tmp_path, data)
    assert "    as-list RAIL-SWITCHES-ASNS members [ 4200100000-4200100001 4200100008-4200100009 ];" in \
        _conf(gen, "p1-spine1").splitlines()
    code = main(["verify", str(gen), "--no-frr"])
    assert code == 0


def test_numbered_junos_has_none_of_it(tmp_path: Path) -> None:
    data = with_system(base_inventory())
    data["fabric"]["platform"] = "junos"
    text = _conf(render_to(tmp_path, data), "p1-s1-rail0")
    for absent in ("family inet6", "router-advertisement", "dynamic-neighbor", "extended-nexthop", "as-list"):
        assert absent not in text
    port = _block(text, "    et-0/0/32 {")
    assert port[5:9] == ["            family inet {", "                mtu 9202;",
                         port[7], "            }"] and port[7].startswith("                address 10.")


def _fails(lines: list[str]) -> list[str]:
    return [ln for ln in lines if ln.startswith("FAIL ")]


def test_verify_reads_the_dynamic_neighbours(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = verify_lines(rendered, capsys)
    # 4 sessions seen from both ends: 8 neighbours, each named by its interface
    assert code == 0 and lines[-1].endswith("8 BGP neighbours: all promises kept"), lines[-10:]


def test_verify_names_a_session_missing_at_one_end(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # p1-s1-rail0's uplink et-0/0/32 (to p1-spine1's et-0/0/0) taken out of its dynamic neighbour (20 spaces: the
    # line under peer-auto-discovery, not the router-advertisement one). The sessions file: title, header, then 2
    # rows per switch sorted by device and interface: rail0's et-0/0/32 is line 3
    conf = rendered / CONF.format("p1-s1-rail0")
    conf.write_text(conf.read_text().replace(" " * 20 + "interface et-0/0/32.0;\n", ""))
    code, lines = verify_lines(rendered, capsys)
    assert _fails(lines) == [
        "FAIL bgp: p1-spine1 neighbor et-0/0/0 interface: expected a reverse unnumbered session on p1-s1-rail0 "
        "et-0/0/32, found none (configs/p1-spine1/junos.conf)",
        "FAIL bgp-plan: p1-s1-rail0 neighbor et-0/0/32: expected an unnumbered session to p1-spine1 "
        "(expected/bgp_sessions.csv:3), found none (configs/p1-s1-rail0/junos.conf)"]
    assert code == 1


def test_verify_names_an_as_list_without_the_peer(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # p1-spine1's list narrowed to rail1's ASN: its session to rail0 (its et-0/0/0, sessions file line 7: after the
    # 4 rail switch rows) no longer accepts 4200100000
    conf = rendered / CONF.format("p1-spine1")
    conf.write_text(conf.read_text().replace(f"members {RAIL0_AS}-{RAIL1_AS};", f"members {RAIL1_AS};"))
    code, lines = verify_lines(rendered, capsys)
    assert _fails(lines) == [
        f"FAIL bgp: p1-spine1 neighbor et-0/0/0 interface: expected remote-as {RAIL0_AS} (router bgp of p1-s1-rail0), "
        f"found peer-as-list {RAIL1_AS} (configs/p1-spine1/junos.conf)",
        f"FAIL bgp-plan: p1-spine1 neighbor et-0/0/0: expected remote-as {RAIL0_AS} (expected/bgp_sessions.csv:7), "
        f"found peer-as-list {RAIL1_AS} (configs/p1-spine1/junos.conf)"]
    assert code == 1


def test_verify_finds_the_statements_a_dynamic_neighbour_needs(rendered: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # rail1 without extended-nexthop; spine2 without the router advertisement on et-0/0/1.0 (its downlink to rail1)
    # and without family inet6 on et-0/0/0 (its downlink to rail0, the first `family inet6;` of the file)
    rail = rendered / CONF.format("p1-s1-rail1")
    rail.write_text(rail.read_text().replace("                    extended-nexthop;\n", ""))
    spine = rendered / CONF.format("p1-spine2")
    spine.write_text(spine.read_text().replace("\n        interface et-0/0/1.0;\n", "\n")
                     .replace("            family inet6;\n", "", 1))
    code, lines = verify_lines(rendered, capsys)
    assert _fails(lines) == [
        "FAIL bgp: p1-s1-rail1 group SPINES: expected family inet unicast extended-nexthop (IPv4 routes over the "
        "unnumbered sessions' IPv6 next hops), found absent (configs/p1-s1-rail1/junos.conf)",
        "FAIL bgp: p1-spine2 et-0/0/0: expected family inet6 on et-0/0/0.0 (the unnumbered session's link-local "
        "address), found absent (configs/p1-spine2/junos.conf)",
        "FAIL bgp: p1-spine2 et-0/0/1: expected protocols router-advertisement interface et-0/0/1.0 (IPv6 neighbour "
        "discovery of the unnumbered peer), found absent (configs/p1-spine2/junos.conf)"]
    assert code == 1


@pytest.mark.parametrize(("auth", "lines"), [
    ({"password": {"vault": "bgp_rail_key"}}, ['                authentication-key "%%vault.bgp_rail_key%%";']),
    ({"password": {"vault": "bgp_rail_key"}, "algorithm": "tcp-ao"},
     # the tier's key chain is named RF-<TIER> (railfabric/device/sessions.py)
     ["                authentication-algorithm ao;", "                authentication-key-chain RF-RAIL-SPINE;"]),
])
def test_the_key_is_under_the_dynamic_neighbour(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                auth: dict[str, Any], lines: list[str]) -> None:
    data = _junos_unnumbered(with_system(base_inventory()))
    data["routing"]["authentication"] = {"rail_spine": auth}
    gen = render_to(tmp_path, data)
    group = _block(_conf(gen, "p1-s1-rail0"), "        group SPINES {")
    # Junos refuses a key at the group of a dynamic neighbour: it is the dynamic neighbour's (interface-scoped), first
    # in its block
    at = group.index("            dynamic-neighbor SPINES-LINKS {")
    assert group[at + 1:at + 1 + len(lines)] == lines
    assert not any(ln.startswith("            authentication-") for ln in group)
    code, out = verify_lines(gen, capsys)  # both ends read with the same key
    assert code == 0 and out[-1].endswith("8 BGP neighbours: all promises kept"), _fails(out)
    # the key moved up to rail0's group (the form Junos refuses): named at the group
    conf = gen / CONF.format("p1-s1-rail0")
    text = conf.read_text()
    for ln in lines:
        text = text.replace(ln + "\n", "")
    conf.write_text(text.replace("            export RF-EXPORT;\n", "            export RF-EXPORT;\n"
                                 + "".join(ln[4:] + "\n" for ln in lines), 1))
    code, out = verify_lines(gen, capsys)
    algorithm = "md5" if len(lines) == 1 else "tcp-ao"
    assert _fails(out) == [
        "FAIL bgp: p1-s1-rail0 group SPINES: expected the session key under its dynamic-neighbor (Junos refuses a "
        f"key at the group of auto-discovered peers), found {algorithm} key at the group "
        "(configs/p1-s1-rail0/junos.conf)"]
    assert code == 1


def test_an_unnumbered_ae_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _junos_unnumbered(with_system(base_inventory()))
    data["pods"][0]["spines"].update(links_per_rail_switch=2, port_channel_members=2)
    gen = render_to(tmp_path, data)
    text = _conf(gen, "p1-s1-rail0")
    # two links to each spine, bundled: rail0's uplinks are ports 33-34 (spine 1) and 35-36 (spine 2), each bundle
    # numbered by its first member port (ae33, ae35); min-links = both members
    assert _block(text, "    ae33 {") == [
        "    ae33 {", '        description "p1-spine1 pc1";', "        mtu 9216;", "        aggregated-ether-options {",
        "            minimum-links 2;", "            lacp {", "                active;", "            }", "        }",
        "        unit 0 {", "            family inet {", "                mtu 9202;", "            }",
        "            family inet6;", "        }", "    }"]
    assert _block(text, "    router-advertisement {")[1:] == ["        interface ae33.0;", "        interface ae35.0;",
                                                             "    }"]
    group = _block(text, "        group SPINES {")
    assert [ln.strip() for ln in group if ln.strip().startswith("interface ")] == [
        "interface ae33.0;", "interface ae35.0;"]
    code, lines = verify_lines(gen, capsys)
    assert code == 0 and lines[-1].endswith("8 BGP neighbours: all promises kept"), _fails(lines)


def test_rollout_keys_an_auto_discovered_peer_by_its_interface() -> None:
    # an address peer as is (its +port dropped); `<link-local>%<unit>` by the interface without unit 0
    show = {"bgp-information": [{"bgp-peer": [
        {"peer-address": [{"data": "10.32.0.1+179"}], "peer-state": [{"data": "Established"}],
         "peer-as": [{"data": str(SPINE_AS)}]},
        {"peer-address": [{"data": "fe80::205:86ff:fe3d:f503%et-0/0/32.0"}], "peer-state": [{"data": "Established"}],
         "peer-as": [{"data": str(SPINE_AS)}]},
        {"peer-address": [{"data": "fe80::1%ae1.0+50172"}], "peer-state": [{"data": "Active"}],
         "peer-as": [{"data": str(SPINE_AS)}]}]}]}
    assert junos.bgp_peers(show) == {"10.32.0.1": ("Established", str(SPINE_AS)),
                                     "et-0/0/32": ("Established", str(SPINE_AS)), "ae1": ("Active", str(SPINE_AS))}
    rows = [{"interface": ifname, "neighbor_ip": "", "peer_device": "p1-spine1", "remote_asn": str(SPINE_AS)}
            for ifname in ("et-0/0/32", "ae1", "et-0/0/33")]
    assert f.rf_bgp_problems(show, rows, "junos") == ["ae1 unnumbered (p1-spine1): Active",
                                                      "et-0/0/33 unnumbered (p1-spine1): absent"]


def test_rollout_lldp_names_a_miswired_uplink(rendered: Path) -> None:
    # a dynamic neighbour would peer with whichever spine answers on et-0/0/32 (both spines are AS 4200001001): the
    # LLDP check does not depend on the addressing and names the swapped port. rail0's planned uplinks, from its
    # expected file: et-0/0/32 → p1-spine1 et-0/0/0, et-0/0/33 → p1-spine2 et-0/0/0; seen swapped
    rows = [r for r in f.rf_expected_rows((rendered / "expected" / "lldp_neighbors.csv").read_text(), "p1-s1-rail0")
            if r["role"] == "fabric"]
    assert [(r["interface"], r["neighbor"], r["neighbor_interface"]) for r in rows] == [
        ("et-0/0/32", "p1-spine1", "et-0/0/0"), ("et-0/0/33", "p1-spine2", "et-0/0/0")]
    seen = {"lldp-neighbors-information": [{"lldp-neighbor-information": [
        {"lldp-local-port-id": [{"data": local}], "lldp-remote-system-name": [{"data": name}],
         "lldp-remote-port-id": [{"data": "et-0/0/0"}]}
        for local, name in (("et-0/0/32", "p1-spine2"), ("et-0/0/33", "p1-spine1"))]}]}
    assert f.rf_lldp_problems(json.dumps(seen), rows, "junos") == [
        "et-0/0/32: planned p1-spine1 et-0/0/0, seen p1-spine2 et-0/0/0",
        "et-0/0/33: planned p1-spine2 et-0/0/0, seen p1-spine1 et-0/0/0"]
