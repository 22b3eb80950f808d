"""routing.addressing: unnumbered (RFC 8950: eBGP over each fabric link's IPv6 link-local addresses, IPv4 routes
over IPv6 next hops).

The fabric is tests.helpers' mini fabric: one pod, spines p1-spine1/2 (ASN spine_base 4200001000 + pod 1 =
4200001001), one single-rail segment with rail switches p1-s1-rail0/1 (ASNs rail_switch_base 4200100000 + tier slot
0/1), each cabled once to each spine: 4 links, 4 sessions. The 64-port 800G model has 8 serdes lanes per port, and
SONiC names a port by its first lane: Ethernet(8·(port - 1)). A rail switch's downlinks are ports 1-32 and its
uplinks start at port 33: spine 1 → port 33 = Ethernet256, spine 2 → port 34 = Ethernet264
(tests/test_device_build.py); a spine's downlink to rail switch k is port k: rail0 → Ethernet0, rail1 → Ethernet8.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from railfabric.configs.render import render_device
from railfabric.core import safe_yaml
from railfabric.device import DeviceConfig
from railfabric.lab.frrcheck import bgpd_check, have_bgpd, have_vtysh, reference_problems, vtysh_check
from railfabric.outputs.expected import expected_files
from railfabric.pipeline import Result
from railfabric.platforms.nvue_release import RELEASES
from railfabric.verify.nvue_schema import violations
from tests.helpers import base_inventory, codes, devices_of, mlag_inventory, run_data, verify_lines, with_system

SPINE_AS, RAIL0_AS, RAIL1_AS = 4200001001, 4200100000, 4200100001


def _unnumbered(data: dict[str, Any], pool: bool = False) -> dict[str, Any]:
    data.setdefault("routing", {})["addressing"] = "unnumbered"
    if not pool:
        del data["pools"]["fabric_links"]
    return data


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Result:
    return run_data(tmp_path_factory.mktemp("unnumbered"), _unnumbered(base_inventory()))


@pytest.fixture(scope="module")
def devices(mini: Result) -> dict[str, DeviceConfig]:
    return devices_of(mini)


# --------------------------------------------------------------------------- allocation and the pool


def test_no_link_pool_and_no_slash31(mini: Result) -> None:
    assert [f for f in mini.findings if f.severity.name == "ERROR"] == []
    assert mini.plan is not None and mini.plan.p2p == {} and "fabric_links" not in mini.plan.pools


def test_a_numbered_fabric_without_the_pool_is_refused(tmp_path: Path) -> None:
    data = base_inventory()
    del data["pools"]["fabric_links"]
    res = run_data(tmp_path, data)
    (f,) = [f for f in res.findings if f.code == "UND001"]
    assert "routing.addressing is numbered" in f.message and res.plan is None
    # the pools mapping: fabric 1, name 2, platform 3, `pools:` 4, its first key (loopbacks) on line 5, column 3
    assert f.location is not None and (f.location.line, f.location.col) == (5, 3)


def test_an_mlag_pair_keeps_its_numbered_peer_vlan(tmp_path: Path) -> None:
    res = run_data(tmp_path / "a", _unnumbered(mlag_inventory()))
    assert "UND001" in codes(res) and "pod 1 segment 1 has MLAG pairs" in next(
        f.message for f in res.findings if f.code == "UND001")
    res = run_data(tmp_path / "b", _unnumbered(mlag_inventory(), pool=True))
    assert res.plan is not None, codes(res)
    # only the MLAG peer links draw from fabric_links: one /31 per pair (rails 0 and 1 → 2 pairs, keyed a=b), none
    # per uplink
    assert sorted(res.plan.p2p) == ["p1-s1-rail0a=p1-s1-rail0b", "p1-s1-rail1a=p1-s1-rail1b"]
    devs = devices_of(res)
    a = devs["p1-s1-rail0a"]
    assert a.mlag is not None and a.mlag.local_ip  # the iBGP session over the peer VLAN stays numbered
    mlag_group = next(g for g in a.bgp.peer_groups if g.next_hop_self)
    assert [n.interface for n in mlag_group.neighbors] == [""] and mlag_group.neighbors[0].ip == a.mlag.peer_ip
    spines = next(g for g in a.bgp.peer_groups if g.name == "SPINES")
    assert [n.ip for n in spines.neighbors] == ["", ""] and all(n.interface for n in spines.neighbors)


def test_nxos_without_a_confirmed_form_is_refused(tmp_path: Path) -> None:
    # EOS and Junos render it: tests/test_eos_unnumbered.py, tests/test_unnumbered_junos.py
    platform = "nxos"
    data = _unnumbered(with_system(base_inventory()))
    data["fabric"]["platform"] = platform
    data["system"]["syslog"] = []
    res = run_data(tmp_path, data)
    msgs = [f.message for f in res.findings if f.code == "PLAT041"]
    assert len(msgs) == 1 and f"not rendered on {platform} (used at fabric.platform)" in msgs[0], codes(res)


# --------------------------------------------------------------------------- the device model


def test_neighbors_are_interfaces(devices: dict[str, DeviceConfig]) -> None:
    rail0, spine1 = devices["p1-s1-rail0"], devices["p1-spine1"]
    (g,) = rail0.bgp.peer_groups
    # both spines share ASN 4200001001: the group holds it; neighbors in port order, named by the local port
    assert (g.name, g.remote_as) == ("SPINES", SPINE_AS)
    assert [(n.interface, n.ip, n.local_ip, n.peer, n.peer_interface) for n in g.neighbors] == [
        ("Ethernet256", "", "", "p1-spine1", "Ethernet0"), ("Ethernet264", "", "", "p1-spine2", "Ethernet0")]
    (s,) = spine1.bgp.peer_groups
    assert s.remote_as is None  # two rail switches, two ASNs
    assert [(n.interface, n.remote_as) for n in s.neighbors] == [("Ethernet0", RAIL0_AS), ("Ethernet8", RAIL1_AS)]
    routed = [i for i in rail0.interfaces if i.mode == "routed"]
    assert [(i.name, i.ipv4, i.unnumbered) for i in routed] == [("Ethernet256", None, True),
                                                               ("Ethernet264", None, True)]


# --------------------------------------------------------------------------- SONiC


def test_frr_conf_forms(devices: dict[str, DeviceConfig]) -> None:
    spine = render_device(devices["p1-spine1"])["frr.conf"]
    # per neighbor: its interface joins the group, then its own remote-as (the group has none), then its description
    assert (" neighbor Ethernet0 interface peer-group RAIL-SWITCHES\n"
            " neighbor Ethernet0 remote-as 4200100000\n"
            " neighbor Ethernet0 description p1-s1-rail0 Ethernet256\n"
            " neighbor Ethernet8 interface peer-group RAIL-SWITCHES\n"
            " neighbor Ethernet8 remote-as 4200100001\n"
            " neighbor Ethernet8 description p1-s1-rail1 Ethernet256\n") in spine
    rail = render_device(devices["p1-s1-rail0"])["frr.conf"]
    assert " neighbor SPINES remote-as 4200001001\n" in rail
    assert (" neighbor Ethernet256 interface peer-group SPINES\n"
            " neighbor Ethernet256 description p1-spine1 Ethernet0\n") in rail
    assert " remote-as external" not in rail and "10.32." not in rail  # no /31 anywhere


def test_config_db_interfaces(devices: dict[str, DeviceConfig]) -> None:
    db = json.loads(render_device(devices["p1-s1-rail0"])["config_db.json"])
    assert db["INTERFACE"] == {"Ethernet256": {"ipv6_use_link_local_only": "enable"},
                               "Ethernet264": {"ipv6_use_link_local_only": "enable"}}


@pytest.mark.skipif(not (have_vtysh() and have_bgpd()), reason="FRR (vtysh, bgpd) is not installed")
def test_frr_parses_the_unnumbered_forms(devices: dict[str, DeviceConfig], tmp_path: Path) -> None:
    for name in ("p1-spine1", "p1-s1-rail0"):
        path = tmp_path / f"{name}.conf"
        path.write_text(render_device(devices[name])["frr.conf"], encoding="utf-8")
        assert vtysh_check(path) == [] and bgpd_check(path) == []


def test_reference_check_reads_interface_neighbors(devices: dict[str, DeviceConfig]) -> None:
    text = render_device(devices["p1-spine1"])["frr.conf"]
    assert reference_problems(text) == []


# --------------------------------------------------------------------------- NVUE


@pytest.fixture(scope="module")
def nvue_devices(tmp_path_factory: pytest.TempPathFactory) -> dict[str, DeviceConfig]:
    data = _unnumbered(base_inventory())
    data["fabric"]["platform"] = "nvue"
    return devices_of(run_data(tmp_path_factory.mktemp("nvue"), data))


def test_nvue_neighbors(nvue_devices: dict[str, DeviceConfig]) -> None:
    doc = safe_yaml.load(render_device(nvue_devices["p1-spine1"])["startup.yaml"])[0]["set"]
    bgp = doc["vrf"]["default"]["router"]["bgp"]
    # NVUE names ports swpN: the spine's downlinks are swp1 (rail0) and swp2 (rail1)
    assert bgp["neighbor"] == {
        "swp1": {"type": "unnumbered", "peer-group": "RAIL-SWITCHES", "remote-as": RAIL0_AS,
                 "description": "p1-s1-rail0 swp33"},
        "swp2": {"type": "unnumbered", "peer-group": "RAIL-SWITCHES", "remote-as": RAIL1_AS,
                 "description": "p1-s1-rail1 swp33"}}
    assert "ip" not in doc["interface"]["swp1"] and "ipv4" not in doc["interface"]["swp1"]


@pytest.mark.parametrize("release", RELEASES)
def test_nvue_unnumbered_passes_nvidias_schema(nvue_devices: dict[str, DeviceConfig], release: str) -> None:
    out = []
    for name, dev in nvue_devices.items():
        doc = safe_yaml.load(render_device(dataclasses.replace(dev, release=release))["startup.yaml"])
        out += [f"{name}: {v}" for v in violations(doc, release)]
    assert out == []


# --------------------------------------------------------------------------- what names a session


def test_expected_sessions(devices: dict[str, DeviceConfig]) -> None:
    rows = expected_files(devices)["expected/bgp_sessions.csv"].splitlines()
    # no addresses: local_ip and neighbor_ip empty; each end named by its interface and the peer's
    assert "p1-s1-rail0,Ethernet256,,4200100000,,4200001001,p1-spine1,Ethernet0,SPINES,yes" in rows
    assert "p1-spine1,Ethernet8,,4200001001,,4200100001,p1-s1-rail1,Ethernet256,RAIL-SWITCHES,yes" in rows
    assert len(rows) == 2 + 8  # title, header, 4 sessions seen from both ends


# --------------------------------------------------------------------------- fabric verify reads them back


@pytest.fixture()
def rendered(tmp_path: Path) -> Path:
    from railfabric.cli import main
    from tests.helpers import dump, write_files

    write_files(tmp_path / "inv", {"fabric.yml": dump(_unnumbered(base_inventory()))})
    assert main(["render", str(tmp_path / "inv"), "--out", str(tmp_path / "gen"), "-q"]) == 0
    return tmp_path / "gen"


def test_verify_keeps_the_unnumbered_promises(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = verify_lines(rendered, capsys)
    # 4 sessions seen from both ends: 8 neighbours, each named by its interface
    assert code == 0 and lines[-1].endswith("8 BGP neighbours: all promises kept"), lines[-3:]


def test_verify_names_a_missing_unnumbered_session(rendered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # p1-s1-rail0's session to p1-spine1 is on its port 33 = Ethernet256, the spine's end on Ethernet0. The sessions
    # file: title, header, then 2 rows per switch sorted by device: p1-s1-rail0's Ethernet256 row is line 3
    conf = rendered / "configs" / "p1-s1-rail0" / "frr.conf"
    conf.write_text(conf.read_text().replace(" neighbor Ethernet256 interface peer-group SPINES\n", "")
                    .replace(" neighbor Ethernet256 description p1-spine1 Ethernet0\n", ""))
    code, lines = verify_lines(rendered, capsys)
    assert [ln for ln in lines if ln.startswith("FAIL ")] == [
        "FAIL bgp: p1-spine1 neighbor Ethernet0 interface: expected a reverse unnumbered session on p1-s1-rail0 "
        "Ethernet256, found none (configs/p1-spine1/frr.conf)",
        "FAIL bgp-plan: p1-s1-rail0 neighbor Ethernet256: expected an unnumbered session to p1-spine1 "
        "(expected/bgp_sessions.csv:3), found none (configs/p1-s1-rail0/frr.conf)"]
    assert code == 1


def test_sessions_view_names_unnumbered_ends(devices: dict[str, DeviceConfig]) -> None:
    from railfabric.outputs.views import session_of

    # (peer%peer interface, me%my interface, remote AS): what the index and the digests read of a session
    assert session_of(devices["p1-s1-rail0"]) == (RAIL0_AS, (("SPINES", True, (
        ("p1-spine1%Ethernet0", "p1-s1-rail0%Ethernet256", SPINE_AS),
        ("p1-spine2%Ethernet0", "p1-s1-rail0%Ethernet264", SPINE_AS))),))


def test_the_push_check_finds_unnumbered_sessions_by_interface(devices: dict[str, DeviceConfig]) -> None:
    from railfabric.outputs import ansible_filters as f

    csv_text = expected_files(devices)["expected/bgp_sessions.csv"]
    rows = f.rf_expected_rows(csv_text, "p1-s1-rail0")
    # FRR's `show bgp summary json` keys an interface peer by its interface (as the FRR lab reads it: "idType":
    # "interface"); Ethernet264's session to p1-spine2 is down
    frr = {"ipv4Unicast": {"peers": {
        "Ethernet256": {"remoteAs": SPINE_AS, "state": "Established", "idType": "interface"},
        "Ethernet264": {"remoteAs": SPINE_AS, "state": "Active", "idType": "interface"}}}}
    assert f.rf_bgp_problems(frr, rows, "sonic") == ["Ethernet264 unnumbered (p1-spine2): Active"]


def test_unnumbered_config_db_against_sonic_yang(tmp_path: Path, yang_models: Path) -> None:
    """SONiC's YANG models (sonic-interface.yang INTERFACE_LIST, sonic-portchannel.yang PORTCHANNEL_INTERFACE_LIST:
    leaf ipv6_use_link_local_only) accept the unnumbered rows of routed ports and of L3 port-channels."""
    from railfabric.verify.sonic_yang.check import check_configs

    data = _unnumbered(base_inventory())  # routed ports: Ethernet256/264 on each rail switch, Ethernet0/8 on spines
    bundled = _unnumbered(base_inventory())
    # 2 links per rail switch and spine, bundled: on a spine rail0's arrive on ports 1-2 (PortChannel1), rail1's on
    # ports 3-4 (PortChannel3)
    bundled["pods"][0]["spines"].update(links_per_rail_switch=2, port_channel_members=2)
    configs = {}  # one switch of each kind (yanglint runs per file: slow)
    for tag, inv, name in (("routed", data, "p1-s1-rail0"), ("bundled", bundled, "p1-spine1")):
        dev = devices_of(run_data(tmp_path / tag, inv))[name]
        configs[f"{tag}-{name}"] = json.loads(render_device(dev)["config_db.json"])
    assert configs["routed-p1-s1-rail0"]["INTERFACE"] == {
        "Ethernet256": {"ipv6_use_link_local_only": "enable"}, "Ethernet264": {"ipv6_use_link_local_only": "enable"}}
    assert configs["bundled-p1-spine1"]["PORTCHANNEL_INTERFACE"] == {
        "PortChannel1": {"ipv6_use_link_local_only": "enable"}, "PortChannel3": {"ipv6_use_link_local_only": "enable"}}
    assert [str(p) for p in check_configs(configs, yang_models)] == []


def test_host_files_do_not_change(tmp_path: Path) -> None:
    """The hosts' routes go to their rail gateway and the rail pool (rail subnets are the same either way): the
    unnumbered underlay changes no host file."""
    from railfabric.cli import main
    from tests.helpers import dump, write_files

    trees = []
    for tag, data in (("numbered", base_inventory()), ("unnumbered", _unnumbered(base_inventory()))):
        write_files(tmp_path / tag, {"fabric.yml": dump(data)})
        assert main(["render", str(tmp_path / tag), "--out", str(tmp_path / f"{tag}-gen"), "-q"]) == 0
        root = tmp_path / f"{tag}-gen" / "hosts"
        trees.append({p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()})
    assert trees[0] and trees[0] == trees[1]


# --------------------------------------------------------------------------- the IP plan lists every link


def test_ipplan_lists_each_unnumbered_link_end(mini: Result, devices: dict[str, DeviceConfig]) -> None:
    from railfabric.outputs.ipplan import ipplan_csv

    assert mini.inventory and mini.topology and mini.plan
    text = ipplan_csv(mini.inventory, mini.topology, mini.plan, devices)["ipplan.csv"]
    rows = [ln for ln in text.splitlines() if ",unnumbered," in ln]
    # 4 links (each rail switch to each spine), both ends: 8 rows, no address and no pool, after every addressed
    # row, by owner then interface. Rail switch uplinks: spine 1 on port 33 = Ethernet256, spine 2 on port 34 =
    # Ethernet264; a spine's downlink to rail switch k is port k: rail0 Ethernet0, rail1 Ethernet8 (module docstring).
    assert rows == [
        ",p1-s1-rail0,Ethernet256,unnumbered,,peer p1-spine1 Ethernet0 over IPv6 link-local",
        ",p1-s1-rail0,Ethernet264,unnumbered,,peer p1-spine2 Ethernet0 over IPv6 link-local",
        ",p1-s1-rail1,Ethernet256,unnumbered,,peer p1-spine1 Ethernet8 over IPv6 link-local",
        ",p1-s1-rail1,Ethernet264,unnumbered,,peer p1-spine2 Ethernet8 over IPv6 link-local",
        ",p1-spine1,Ethernet0,unnumbered,,peer p1-s1-rail0 Ethernet256 over IPv6 link-local",
        ",p1-spine1,Ethernet8,unnumbered,,peer p1-s1-rail1 Ethernet256 over IPv6 link-local",
        ",p1-spine2,Ethernet0,unnumbered,,peer p1-s1-rail0 Ethernet264 over IPv6 link-local",
        ",p1-spine2,Ethernet8,unnumbered,,peer p1-s1-rail1 Ethernet264 over IPv6 link-local"]
    assert text.splitlines()[-8:] == rows and "p2p" not in text


def test_ipplan_unnumbered_rows_sort_interfaces_as_numbers() -> None:
    from railfabric.outputs.ipplan import PlanAddresses, ipplan_files
    from railfabric.outputs.views import Addresses

    # one switch with three unnumbered ends: Ethernet8 sorts before Ethernet16 (digits as numbers); an interface
    # cell a spreadsheet would read as a formula ("=cmd", never from a valid inventory) gets the CSV writer's
    # leading apostrophe (textsafe.csv_cell) and sorts first ('=' before 'E')
    dev = Addresses("10.0.0.1/32", (), None, (), (("Ethernet16", "b", "E1"), ("Ethernet8", "a", "E2"),
                                                  ("Ethernet100", "c", "E3"), ("=cmd", "d", "E4")))
    plan = PlanAddresses((), (), None, 24, {})
    text = ipplan_files(plan, {"sw": dev}, {"sw": ()}, {"sw": ("sonic", "192.168.0.9/24")}, {"sw": ()}, [],
                        {})["ipplan.csv"]
    rows = [ln for ln in text.splitlines() if "unnumbered" in ln]
    assert rows == [",sw,'=cmd,unnumbered,,peer d E4 over IPv6 link-local",
                    ",sw,Ethernet8,unnumbered,,peer a E2 over IPv6 link-local",
                    ",sw,Ethernet16,unnumbered,,peer b E1 over IPv6 link-local",
                    ",sw,Ethernet100,unnumbered,,peer c E3 over IPv6 link-local"]
