"""`fabric verify`: the parse-back verifier passes on a rendered mixed fabric and names exactly what is broken.

The fabric (MIXED below), derived by hand from the inventory:
- pod 1, 2 SONiC spines (p1-spine1/2, ASN 4200001000 + 1), segment 1 on EOS (p1-s1-rail0/1), segment 2 on SONiC
  (p1-s2-rail0/1); fabric.mtu 9214 so that both platforms carry the same number (EOS caps at 9214).
- every rail switch has 2 × 800G links to each spine bundled into one L3 port-channel: 4 rails × 2 spines × 2 =
  16 fabric links; 2 segments × 4 hosts × 2 NICs = 16 host ports (400G, lanes of 2x400G breakouts).
- BGP: one session per port-channel, 4 rails × 2 = 8 at the rails + 8 at the spines = 16 neighbours configured.
- p1-s2-rail0 (slot (0·4 + 1)·8 + 0 = 8): ASN 4200100000 + 8 = 4200100008; its /31 block starts at 10.32.0.0 +
  8·32 = 10.32.1.0: PortChannel33 (ports 33+34) to p1-spine1 is 10.32.1.1, the spine's end 10.32.1.0 on
  PortChannel17 (segment 2 starts at spine port 17 = Ethernet128 with ports_per_segment 16, 8 lanes per port).
- rail r is VLAN 100 + r (rail_vlan_base default 100): p1-s2-rail0 hosts sit in VLAN 100, SVI 172.16.8.1/24.

The renderer writes everything the verifier checks (SONiC lossless buffers and management tables, EOS `speed`,
eAPI and users, host_vars `push_user`): the rendered tree keeps every promise as is, and each test breaks one
thing in a copy of it by hand.
"""

from __future__ import annotations

import ast
import copy
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from railfabric.cli import main
from railfabric.platforms import PLATFORMS
from tests.helpers import ROOT, base_inventory, dump, with_system, write_files

PUSH_USER = "netops"
DB = "configs/{}/config_db.json"
EOS_CFG = "configs/{}/running-config.cfg"
EAPI = "management api http-commands\n   protocol https\n   no shutdown\n   !\n   vrf MGMT\n      no shutdown\n"
FORBIDDEN = ("railfabric.device", "railfabric.configs", "railfabric.topology", "railfabric.plan.allocate",
             "railfabric.pipeline")


def mixed_inventory() -> dict[str, Any]:
    inv = with_system(base_inventory())  # the push account netops (tests/helpers.py MINIMAL_SYSTEM)
    inv["fabric"]["mtu"] = 9214
    pod = inv["pods"][0]
    pod["spines"].update({"links_per_rail_switch": 2, "port_channel_members": 2, "ports_per_segment": 16})
    eos = pod["segments"][0]
    eos["platform"] = "eos"
    sonic = copy.deepcopy(eos)
    sonic["id"] = 2
    del sonic["platform"]
    pod["segments"].append(sonic)
    return inv


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("verify")
    write_files(base / "inv", {"fabric.yml": dump(mixed_inventory())})
    assert main(["render", str(base / "inv"), "--out", str(base / "raw")]) == 0
    return base


@pytest.fixture()
def gen(rendered: Path, tmp_path: Path) -> Path:
    """A fresh copy of the rendered tree, to break one thing in."""
    shutil.copytree(rendered / "raw", tmp_path / "gen")
    return tmp_path / "gen"


def verify(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, list[str], str]:
    code = main(["verify", str(path), "--no-frr", *extra])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def failures(lines: list[str]) -> list[str]:
    return [ln for ln in lines if ln.startswith("FAIL ")]


def edit_json(path: Path, change: Any) -> None:
    db = json.loads(path.read_text())
    change(db)
    path.write_text(json.dumps(db, indent=2))


# ---------------------------------------------------------------------------------------------- passing

def test_the_rendered_mixed_fabric_keeps_every_promise(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = verify(gen, capsys)
    assert failures(lines) == []
    assert lines[-1] == ("verify: 6 devices (2 EOS, 4 SONiC), 16 fabric links, 16 host ports "
        "(16 against the hosts' files), 16 BGP neighbours: "
                         "all promises kept")
    assert "note: EOS lossless buffers are platform defaults: nothing in running-config.cfg to verify" in lines
    assert code == 0


@pytest.mark.skipif(shutil.which("vtysh") is None, reason="FRR (vtysh) is not installed")
def test_frr_parser_reads_every_frr_conf(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(gen)]) == 0
    assert "note: FRR's parser (vtysh -C) read 4 frr.conf file(s)" in capsys.readouterr().out.splitlines()


@pytest.mark.skipif(shutil.which("vtysh") is None, reason="FRR (vtysh) is not installed")
def test_frr_parser_reports_a_command_it_rejects(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf = gen / "configs" / "p1-spine1" / "frr.conf"
    conf.write_text(conf.read_text().replace("log syslog informational", "log syslog loudly", 1))
    assert main(["verify", str(gen)]) == 1
    out = failures(capsys.readouterr().out.splitlines())
    assert out and all(ln.startswith("FAIL frr-parse: p1-spine1 frr.conf: expected FRR's parser (vtysh -C) "
                                     "accepts it, found ") for ln in out), out


def test_json_format(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(gen), "--no-frr", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and data["failures"] == []
    assert data["counts"] == {"devices": 6, "sonic": 4, "eos": 2, "links": 16,
                              "host_ports": 16, "host_nic_ports": 16, "bgp_neighbors": 16,
                              "failures": 0}  # the platforms present


# ---------------------------------------------------------------------------------------------- broken by hand

def test_mtu_changed_at_one_end_of_a_link(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # p1-s2-rail0 port 33 (Ethernet256, 8 lanes per port: (33-1)·8) ↔ p1-spine1 port 17 (Ethernet128), both 9214
    edit_json(gen / DB.format("p1-s2-rail0"), lambda db: db["PORT"]["Ethernet256"].update(mtu="9100"))
    code, lines, _ = verify(gen, capsys)
    assert failures(lines) == [
        "FAIL link: p1-s2-rail0 Ethernet256 (to p1-spine1 Ethernet128): expected the same MTU at both ends, found "
        "9100 here, 9214 at p1-spine1 Ethernet128 (configs/p1-s2-rail0/config_db.json, "
        "configs/p1-spine1/config_db.json)"]
    assert code == 1


def test_port_channel_mtu_on_eos(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # p1-s1-rail0's first bundle (ports 33+34) is Port-Channel33 on EOS; the spine's end is PortChannel1 (ports 1+2)
    cfg = gen / EOS_CFG.format("p1-s1-rail0")
    text = cfg.read_text()
    block = text.index("interface Port-Channel33")
    cfg.write_text(text[:block] + text[block:].replace("mtu 9214", "mtu 9000", 1))
    code, lines, _ = verify(gen, capsys)
    files = "(configs/p1-s1-rail0/running-config.cfg, configs/p1-spine1/config_db.json)"
    assert failures(lines) == [  # both members inherit the port-channel's MTU on EOS
        f"FAIL link: p1-s1-rail0 Ethernet33/1 (to p1-spine1 Ethernet0): expected the same MTU at both ends, found "
        f"9000 here, 9214 at p1-spine1 Ethernet0 {files}",
        f"FAIL link: p1-s1-rail0 Ethernet34/1 (to p1-spine1 Ethernet8): expected the same MTU at both ends, found "
        f"9000 here, 9214 at p1-spine1 Ethernet8 {files}",
        f"FAIL link: p1-s1-rail0 Port-Channel33 (to p1-spine1 PortChannel1): expected the same MTU at both ends, "
        f"found 9000 here, 9214 at p1-spine1 PortChannel1 {files}"]
    assert code == 1


def test_bgp_neighbour_remote_as(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # p1-spine1 peers p1-s2-rail0 (ASN 4200100008) at 10.32.1.1; make it 4200100009 (p1-s2-rail1's ASN).
    # bgp_sessions.csv: 8 rail rows (lines 3-10), then p1-spine1's in port order PortChannel1, 3, 17, 19: line 13
    conf = gen / "configs" / "p1-spine1" / "frr.conf"
    conf.write_text(conf.read_text().replace("neighbor 10.32.1.1 remote-as 4200100008",
                                             "neighbor 10.32.1.1 remote-as 4200100009"))
    code, lines, _ = verify(gen, capsys)
    assert failures(lines) == [
        "FAIL bgp: p1-spine1 neighbor 10.32.1.1: expected remote-as 4200100008 (router bgp of p1-s2-rail0), found "
        "remote-as 4200100009 (configs/p1-spine1/frr.conf)",
        "FAIL bgp-plan: p1-spine1 neighbor 10.32.1.1: expected remote-as 4200100008 "
        "(expected/bgp_sessions.csv:13), found remote-as 4200100009 (configs/p1-spine1/frr.conf)"]
    assert code == 1


def test_missing_reverse_session(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # bgp_sessions.csv: comment, header, then 2 rows per rail sorted by device: p1-s2-rail0 is third → lines 7-8
    conf = gen / "configs" / "p1-s2-rail0" / "frr.conf"
    conf.write_text(re.sub(r"^ neighbor 10\.32\.1\.0 .*\n", "", conf.read_text(), flags=re.M))
    code, lines, _ = verify(gen, capsys)
    assert failures(lines) == [
        "FAIL bgp: p1-spine1 neighbor 10.32.1.1: expected a reverse session on p1-s2-rail0 to one of this device's "
        "addresses, found none (configs/p1-spine1/frr.conf)",
        "FAIL bgp-plan: p1-s2-rail0 neighbor 10.32.1.0: expected a session to p1-spine1 "
        "(expected/bgp_sessions.csv:7), found none (configs/p1-s2-rail0/frr.conf)"]
    assert code == 1


def test_router_id_not_a_loopback(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # p1-spine2's loopback: the first limits.super_spines (8) loopbacks are the super-spines' (10.0.0.0-7), then
    # pod 1's spines from 10.0.0.8: spine 2 → 10.0.0.9
    cfg = gen / "configs" / "p1-spine2" / "frr.conf"
    text = cfg.read_text()
    assert " bgp router-id 10.0.0.9\n" in text
    cfg.write_text(text.replace(" bgp router-id 10.0.0.9", " bgp router-id 10.9.9.9"))
    code, lines, _ = verify(gen, capsys)
    assert failures(lines) == ["FAIL bgp: p1-spine2 router-id: expected a Loopback address (10.0.0.9), found "
                               "10.9.9.9 (configs/p1-spine2/frr.conf)"]
    assert code == 1


def test_deleted_buffer_pg(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # p1-s2-rail0 Ethernet0 is host p1-s2-gpu001 nic0 (port 1 lane 1); PFC priority 3 → TC 3 → PG 3 (identity map)
    edit_json(gen / DB.format("p1-s2-rail0"), lambda db: db["BUFFER_PG"].pop("Ethernet0|3"))
    code, lines, _ = verify(gen, capsys)
    assert failures(lines) == [
        "FAIL host: p1-s2-rail0 Ethernet0: expected lossless BUFFER_PG Ethernet0|3 (PFC priority 3), found none "
        "(configs/p1-s2-rail0/config_db.json)"]
    assert code == 1


def test_buffer_profile_that_does_not_exist(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_json(gen / DB.format("p1-s2-rail0"),
              lambda db: db["BUFFER_PG"]["Ethernet0|3"].update(profile="pg_lossless_400000_5m_profile"))
    code, lines, _ = verify(gen, capsys)
    assert failures(lines) == [
        "FAIL host: p1-s2-rail0 Ethernet0: expected buffer profiles that exist, found BUFFER_PG|Ethernet0|3 profile "
        "pg_lossless_400000_5m_profile not in BUFFER_PROFILE (configs/p1-s2-rail0/config_db.json)",
        "FAIL host: p1-s2-rail0 Ethernet0: expected lossless BUFFER_PG Ethernet0|3 (PFC priority 3), found none "
        "(configs/p1-s2-rail0/config_db.json)",
        "FAIL leafref: p1-s2-rail0 BUFFER_PG|Ethernet0|3: expected profile pg_lossless_400000_5m_profile defined in "
        "BUFFER_PROFILE, found no such entry (configs/p1-s2-rail0/config_db.json)"]
    assert code == 1


def test_vlan_member_names_a_missing_port(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_json(gen / DB.format("p1-s2-rail0"),
              lambda db: db["VLAN_MEMBER"].update({"Vlan100|Ethernet999": {"tagging_mode": "untagged"}}))
    code, lines, _ = verify(gen, capsys)
    assert failures(lines) == [
        "FAIL vlan: p1-s2-rail0 Vlan100 member Ethernet999: expected an interface of the device, found no such "
        "interface (configs/p1-s2-rail0/config_db.json)"]
    assert code == 1


def test_eapi_no_shutdown_removed(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = gen / EOS_CFG.format("p1-s1-rail0")
    cfg.write_text(cfg.read_text().replace("   vrf MGMT\n      no shutdown\n", "   vrf MGMT\n"))
    code, lines, _ = verify(gen, capsys)
    assert failures(lines) == [
        "FAIL mgmt: p1-s1-rail0 management api http-commands: expected vrf MGMT with no shutdown (the VRF of "
        "Management1), found vrfs none (configs/p1-s1-rail0/running-config.cfg)"]
    assert code == 1


def test_push_user_without_network_admin(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = gen / EOS_CFG.format("p1-s1-rail1")
    cfg.write_text(cfg.read_text().replace("role network-admin", "role network-operator"))
    code, lines, _ = verify(gen, capsys)
    assert failures(lines) == [
        "FAIL mgmt: p1-s1-rail1 username netops: expected role network-admin (the push account), found role "
        "network-operator (configs/p1-s1-rail1/running-config.cfg)"]
    assert code == 1


def test_push_user_unknown(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hv = gen / "ansible" / "host_vars" / "p1-s1-rail0.yml"
    hv.write_text(hv.read_text().replace(f"push_user: {PUSH_USER}\n", ""))
    code, lines, _ = verify(gen, capsys)
    assert failures(lines) == [
        "FAIL mgmt: p1-s1-rail0 push user: expected push_user or ansible_user in ansible/host_vars or group_vars, "
        "found push user unknown (ansible/host_vars/p1-s1-rail0.yml)"]
    assert code == 1


def test_host_port_speed_and_vlan(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # p1-s1-rail1 Ethernet1/5 is host p1-s1-gpu002 nic1 (port 1, second 400G lane of 2x400G: 1 + 8/2 = 5), rail 1
    cfg = gen / EOS_CFG.format("p1-s1-rail1")
    text = cfg.read_text()
    block = text.index("interface Ethernet1/5\n")
    cfg.write_text(text[:block] + text[block:].replace("speed 400g-4", "speed 200g-2", 1)
                   .replace("switchport access vlan 101", "switchport access vlan 100", 1))
    code, lines, _ = verify(gen, capsys)
    assert failures(lines) == [  # cabling.csv: gpu001 nic0, nic1, gpu002 nic0, nic1 → line 2 + 4 = 6
        "FAIL host: p1-s1-rail1 Ethernet1/5: expected speed 400G (cabling.csv:6), found 200G "
        "(configs/p1-s1-rail1/running-config.cfg)",
        "FAIL host: p1-s1-rail1 Ethernet1/5: expected access port in VLAN 101 (rail 1), found access port in VLAN 100 "
        "(configs/p1-s1-rail1/running-config.cfg)",
        "FAIL vlan: p1-s1-rail1 Ethernet1/5: expected VLAN 100 defined, found no such VLAN "
        "(configs/p1-s1-rail1/running-config.cfg)"]
    assert code == 1


def test_qos_map_reference_that_does_not_resolve(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_json(gen / DB.format("p1-spine2"), lambda db: db["QUEUE"]["Ethernet0|3"].update(wred_profile="AI_NOPE"))
    code, lines, _ = verify(gen, capsys)
    # p1-spine2 Ethernet0 faces p1-s1-rail0 Ethernet35/1 (EOS), whose tx-queue 3 marks ECN
    assert failures(lines) == [
        "FAIL link-qos: p1-s1-rail0 Ethernet35/1 (to p1-spine2 Ethernet0): expected ECN on queues {} as at p1-spine2 "
        "Ethernet0, found {3} (configs/p1-s1-rail0/running-config.cfg, configs/p1-spine2/config_db.json)",
        "FAIL leafref: p1-spine2 QUEUE|Ethernet0|3: expected wred_profile AI_NOPE defined in WRED_PROFILE, found no "
        "such entry (configs/p1-spine2/config_db.json)"]
    assert code == 1


def test_address_missing_from_the_plan(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = gen / EOS_CFG.format("p1-s1-rail0")
    cfg.write_text(cfg.read_text().replace("ip address 172.16.0.1/24", "ip address 172.16.0.254/24"))
    code, lines, _ = verify(gen, capsys)
    # rail 0 of segment 1: the segment's /21 is 172.16.0.0/21, rail r its r-th /24, gateway .1
    row = (gen / "ipplan.csv").read_text().splitlines().index("172.16.0.1/24,p1-s1-rail0,Vlan100,rail-gateway,"
                                                               "rail_subnets,rail 0 vlan 100") + 1
    # and every host on rail 0 still routes through .1, which the switch no longer answers: gpu00n nic0 is on
    # p1-s1-rail0 port 1 + (n-1)//2, lane 1 or 5 (two 400G hosts per 2x400G port)
    ports = ["Ethernet1/1", "Ethernet1/5", "Ethernet2/1", "Ethernet2/5"]
    assert failures(lines) == [
        f"FAIL address: p1-s1-rail0 Vlan100: expected 172.16.0.1/24 (ipplan.csv:{row}), found 172.16.0.254/24 "
        "(configs/p1-s1-rail0/running-config.cfg)"] + [
        f"FAIL host-gateway: p1-s1-gpu00{n} nic0 (nic0 port 1 (to p1-s1-rail0 {port})): expected routes only via "
        f"172.16.0.254 (p1-s1-rail0 Vlan100), found 172.16.0.1 (hosts/p1-s1-gpu00{n}/netplan.yaml)"
        for n, port in enumerate(ports, 1)]
    assert code == 1


# ---------------------------------------------------------------------------------------------- unusable input

def test_garbled_json_is_unusable_input(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = gen / DB.format("p1-spine1")
    path.write_text(path.read_text()[:200])
    code, lines, err = verify(gen, capsys)
    assert code == 2 and lines == []
    assert re.fullmatch(r"fabric verify: configs/p1-spine1/config_db\.json:\d+:\d+: not valid JSON: .+\n", err), err


def test_missing_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = verify(tmp_path / "nope", capsys)
    assert code == 2 and lines == []
    assert err == f"fabric verify: {tmp_path / 'nope'}: not a directory (render first: fabric render)\n"


def test_garbled_csv_and_binary_file(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (gen / "expected" / "bgp_sessions.csv").write_text("# railfabric expected bgp sessions v1\ndevice,interface\n")
    assert verify(gen, capsys)[2] == ("fabric verify: expected/bgp_sessions.csv: header lacks column(s) local_ip, "
                                      "local_asn, neighbor_ip, remote_asn, peer_device, peer_group, bfd\n")
    (gen / EOS_CFG.format("p1-s1-rail0")).write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = verify(gen, capsys)
    assert code == 2 and "Traceback" not in err


# ---------------------------------------------------------------------------------------------- the example

def test_the_shipped_example_keeps_every_promise(capsys: pytest.CaptureFixture[str]) -> None:
    """generated/ of the shipped example: 30 SONiC and 4 EOS switches (pod 1 segment 2), 192 fabric + 192 core
    cables, 56 hosts × 8 NICs = 448 host ports; BGP: each railfabric/core cable is a session except pod 2's 64 links
    bundled in 32 port-channels: (384 - 32) sessions × 2 ends = 704 neighbours."""
    code, lines, _ = verify(ROOT / "generated", capsys)
    assert failures(lines) == []
    assert lines[-1] == ("verify: 34 devices (4 EOS, 30 SONiC), 384 fabric links, 448 host ports "
        "(448 against the hosts' files), 704 BGP "
                         "neighbours: all promises kept")
    assert code == 0


# ---------------------------------------------------------------------------------------------- independence

def test_verifier_imports_no_device_model_template_or_pipeline(rendered: Path) -> None:
    """Run the verifier in a fresh interpreter and list what it loaded; also walk its own imports."""
    code = ("import sys; from pathlib import Path; from railfabric.verify import verify; "
            f"verify(Path({str(rendered / 'raw')!r}), frr_parser=False); "
            f"print(sorted(m for m in sys.modules if m in {FORBIDDEN!r} or m.startswith('jinja2')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
    for path in sorted((ROOT / "fabric" / "verify").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                # the platform registry is shared facts (file names, the reader to use), no generator logic
                assert not name.startswith("railfabric.") or name.startswith(("railfabric.verify",
                                                                             "railfabric.platforms")), \
                    (path.name, name)


@pytest.mark.parametrize(("file", "text", "code", "message"), [
    (DB.format("p1-spine1"), '{"PORT": {"Ethernet0": "up"}}', 2,
     "configs/p1-spine1/config_db.json: PORT|Ethernet0 is not an object of fields"),
    (DB.format("p1-spine1"), "[1, 2]", 2, "configs/p1-spine1/config_db.json: not a config_db (an object of tables)"),
    ("ansible/host_vars/p1-spine1.yml", "platform: ios\n", 2,
     f"ansible/host_vars/p1-spine1.yml: platform 'ios' is not one of {', '.join(PLATFORMS)}"),
    ("ansible/inventory.yml", "all: [\n", 2, "ansible/inventory.yml:2:1: not valid YAML"),
    ("cabling.csv", "# c\nlink_id,role,rail,a_device,a_interface,z_device,z_interface,speed,bundle\nx,fabric,,a,b,c,d,"
     "fast,\n", 2, "cabling.csv:3: speed 'fast' is not like 400G"),
    ("manifest.json", "{", 2, "manifest.json:1:2: not valid JSON: Expecting property name enclosed in double quotes"),
])
def test_unusable_input_is_one_clear_line(gen: Path, capsys: pytest.CaptureFixture[str], file: str, text: str,
                                          code: int, message: str) -> None:
    (gen / file).write_text(text)
    assert verify(gen, capsys)[0::2] == (code, f"fabric verify: {message}\n")


def test_odd_but_parseable_text_is_a_failure_not_a_crash(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = gen / EOS_CFG.format("p1-s1-rail0")
    cfg.write_text(cfg.read_text().replace("ip address 172.16.0.1/24", "ip address"))
    edit_json(gen / DB.format("p1-spine2"), lambda db: db["PORT"]["Ethernet0"].update(mtu="huge", speed=None))
    code, lines, err = verify(gen, capsys)
    assert code == 1 and err == ""
    # cabling.csv: 8 host cables of segment 1 (lines 3-10), then p1-s1-rail0's uplinks: spine1 #1, #2, spine2 #1
    assert failures(lines)[:2] == [
        "FAIL link: p1-s1-rail0 Ethernet35/1 (to p1-spine2 Ethernet0): expected the same MTU at both ends, found "
        "9214 here, no MTU set at p1-spine2 Ethernet0 (configs/p1-s1-rail0/running-config.cfg, "
        "configs/p1-spine2/config_db.json)",
        "FAIL link: p1-spine2 Ethernet0: expected speed 800G (cabling.csv:13), found no speed set "
        "(configs/p1-spine2/config_db.json)"]
    row = (gen / "ipplan.csv").read_text().splitlines().index("172.16.0.1/24,p1-s1-rail0,Vlan100,rail-gateway,"
                                                               "rail_subnets,rail 0 vlan 100") + 1
    assert (f"FAIL address: p1-s1-rail0 Vlan100: expected 172.16.0.1/24 (ipplan.csv:{row}), found none "
            "(configs/p1-s1-rail0/running-config.cfg)") in lines
