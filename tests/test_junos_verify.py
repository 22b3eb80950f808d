"""Junos parse-back and push: a mixed fabric (Junos rail switches under SONiC spines, one EOS segment) verifies
clean through the Junos reader and fails on configs broken by hand; the push filters and the Junos tasks.

Inventory (tests/helpers.py base_inventory, one pod of 4 spines, 64-port 800G models): segment 1 on Junos, segment 2
a copy on SONiC, both under SONiC spines, two links per (rail switch, spine). Facts derived by hand:
- the fabric MTU 9216 is above Junos' IP ceiling 9216 - 14 = 9202, so every link of a Junos rail switch runs at
  9202 at both ends (railfabric/plan/mtu.py: the lower ceiling of the two ends), and its ports say `mtu 9216` (media)
  with `family inet mtu 9202`;
- p1-s1-rail0's first uplink is its port 33 = et-0/0/32 (Junos numbers ports from 0), to p1-spine1.
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from railfabric.cli import main
from railfabric.configs.junos import ansible_plugin as junos
from railfabric.configs.junos.system import quoted
from railfabric.outputs import ansible_filters as f
from railfabric.verify.junos_tree import parse
from tests.helpers import base_inventory, dump, with_system, write_files
from tests.rollout_support import ansible_bin, ansible_env

CONF = "configs/{}/junos.conf"


def junos_inventory() -> dict[str, Any]:
    inv = with_system(base_inventory())
    pod = inv["pods"][0]
    junos = pod["segments"][0]
    junos["platform"] = "junos"
    sonic = copy.deepcopy(junos)
    sonic["id"] = 2
    del sonic["platform"]
    pod["segments"].append(sonic)
    pod["spines"]["ports_per_segment"] = 16
    return inv


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("junos")
    write_files(base / "inv", {"fabric.yml": dump(junos_inventory())})
    assert main(["render", str(base / "inv"), "--out", str(base / "raw")]) == 0
    return base / "raw"


@pytest.fixture()
def gen(rendered: Path, tmp_path: Path) -> Path:
    shutil.copytree(rendered, tmp_path / "gen")
    return tmp_path / "gen"


def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["verify", str(path), "--no-frr"])
    return code, capsys.readouterr().out.splitlines()


def failures(lines: list[str]) -> list[str]:
    return [ln for ln in lines if ln.startswith("FAIL ")]


def edit(gen: Path, device: str, old: str, new: str, count: int = 1) -> None:
    path = gen / CONF.format(device)
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, count))


def test_mixed_fabric_keeps_every_promise(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = verify(gen, capsys)
    assert failures(lines) == []
    assert re.fullmatch(r"verify: \d+ devices \(\d+ Junos, \d+ SONiC\), .* all promises kept", lines[-1]), lines[-1]
    assert "Junos" in lines[-1] and code == 0
    text = (gen / CONF.format("p1-s1-rail0")).read_text()
    port = parse(text).find("interfaces", "et-0/0/32")
    assert port is not None and port.value("mtu") == "9216"
    assert port.find("unit 0", "family inet").value("mtu") == "9202"


def test_ip_mtu_changed_at_one_end(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail0", "mtu 9202;\n                address", "mtu 9100;\n                address")
    code, lines = verify(gen, capsys)
    fails = failures(lines)
    assert len(fails) == 1 and fails[0].startswith("FAIL link: p1-s1-rail0 et-0/0/32 (to p1-spine1 ")
    assert "found 9100 here, 9202 at p1-spine1" in fails[0] and code == 1


def test_media_mtu_without_family_mtu(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # without `family inet mtu`, the IP MTU is the media MTU - 14: 9216 → 9202, still equal at both ends
    edit(gen, "p1-s1-rail0", "                mtu 9202;\n                address 10.", "                address 10.")
    code, lines = verify(gen, capsys)
    assert failures(lines) == [] and code == 0


def test_pfc_removed_from_the_profile(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail0", "flow-control-queue 3;", "")
    code, lines = verify(gen, capsys)
    fails = failures(lines)
    assert any(ln.startswith("FAIL host: p1-s1-rail0 ") and "expected PFC on the RoCE priority, found no PFC "
               "priority" in ln for ln in fails)
    assert any(ln.startswith("FAIL link-qos: p1-s1-rail0 et-0/0/32 ") and "PFC priorities {3}" in ln for ln in fails)
    assert code == 1


def test_peer_as_changed(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (gen / CONF.format("p1-s1-rail0")).read_text()
    asn = re.search(r"peer-as (\d+);", text).group(1)  # the SONiC spines' ASN
    edit(gen, "p1-s1-rail0", f"peer-as {asn};", f"peer-as {int(asn) + 1};")
    code, lines = verify(gen, capsys)
    fails = failures(lines)
    assert fails and all(ln.startswith(("FAIL bgp: p1-s1-rail0 neighbor", "FAIL bgp-plan: p1-s1-rail0 neighbor"))
                         for ln in fails)
    assert f"found remote-as {int(asn) + 1}" in fails[0] and code == 1


def test_netconf_and_push_user(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail0", "        netconf {\n            ssh;\n        }\n", "")
    edit(gen, "p1-s1-rail0", "class super-user;", "class read-only;")
    code, lines = verify(gen, capsys)
    assert failures(lines) == [
        "FAIL mgmt: p1-s1-rail0 system services netconf ssh: expected NETCONF over SSH enabled (the push's API), "
        "found absent (configs/p1-s1-rail0/junos.conf)",
        "FAIL mgmt: p1-s1-rail0 username netops: expected role network-admin (the push account), found role "
        "network-operator (configs/p1-s1-rail0/junos.conf)"]
    assert code == 1


def test_garbled_file_is_unusable(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(gen, "p1-s1-rail0", "system {", "system {{")
    assert main(["verify", str(gen), "--no-frr"]) == 2


# --------------------------------------------------------------------------- escaping

def test_quoted_strings_round_trip() -> None:
    """Defence in depth behind validation (free text holds no quote or backslash): a quote or backslash is escaped
    and reads back as itself; a line break becomes the two characters \\n (the login message's separator)."""
    for text in ("plain", 'a "quoted" word; }', "back\\slash"):
        q = quoted(text)
        node = parse(f"system {{ login {{ message {q}; }} }}").find("system", "login")
        assert node is not None and node.value("message") == text
    assert quoted("two\nlines") == '"two\\nlines"'


def test_banner_text_stays_one_statement(rendered: Path) -> None:
    text = (rendered / CONF.format("p1-s1-rail0")).read_text()
    messages = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("message ")]
    for m in messages:
        assert re.fullmatch(r'message "([^"\\]|\\.)*";', m), m


# --------------------------------------------------------------------------- push filters and tasks

def test_access_check(rendered: Path) -> None:
    text = (rendered / CONF.format("p1-s1-rail0")).read_text()
    address = parse(text).find("interfaces", "re0:mgmt-0", "unit 0", "family inet").value("address").split("/")[0]
    assert junos.rf_junos_access_problems(text, address, "netops") == []
    broken = text.replace("class super-user;", "class read-only;").replace("        netconf {\n            ssh;\n"
                                                                            "        }\n", "")
    assert junos.rf_junos_access_problems(broken, "192.0.2.99", "netops") == [
        f"re0:mgmt-0 has no address 192.0.2.99, the address Ansible connects to (has: {address}/"
        f"{text.split(address + '/')[1].split(';')[0]})",
        "no `system services netconf ssh`: the push's NETCONF session would be refused",
        "no `system login user netops class super-user`: the push account would lose its access"]


def test_drain_lines_and_drained_file(rendered: Path) -> None:
    text = (rendered / CONF.format("p1-s1-rail0")).read_text()
    asn = parse(text).find("routing-options").value("autonomous-system")
    assert junos.rf_junos_drain_lines(text, 2) == [
        f'set policy-options policy-statement RF-DRAIN then as-path-prepend "{asn} {asn}"',
        "delete protocols bgp group SPINES export", "set protocols bgp group SPINES export [ RF-DRAIN RF-EXPORT ]"]
    assert junos.rf_junos_undrain_lines(text) == [
        "delete protocols bgp group SPINES export", "set protocols bgp group SPINES export [ RF-EXPORT ]",
        "delete policy-options policy-statement RF-DRAIN"]
    drained = parse(junos.rf_junos_drained(text, 2))
    assert drained.find("protocols", "bgp", "group SPINES", "export").words == ("export", "RF-DRAIN", "RF-EXPORT")
    assert drained.find("policy-options", "policy-statement RF-DRAIN", "then").value("as-path-prepend") == \
        f"{asn} {asn}"
    # the forwarding-table export (ECMP) is not a BGP export: untouched
    assert drained.find("routing-options", "forwarding-table").value("export") == "RF-ECMP"
    with pytest.raises(junos.FilterError):
        junos.rf_junos_drain_lines(junos.rf_junos_drained(text))  # already drained


def test_junos_show_json() -> None:
    bgp = {"bgp-information": [{"bgp-peer": [
        {"peer-address": [{"data": "10.4.0.0"}], "peer-state": [{"data": "Established"}],
         "peer-as": [{"data": "4200001001"}]},
        {"peer-address": [{"data": "10.4.0.2+179"}], "peer-state": [{"data": "Active"}],
         "peer-as": [{"data": "4200001001"}]}]}]}
    rows = [{"interface": "et-0/0/32", "neighbor_ip": "10.4.0.0", "peer_device": "s1", "remote_asn": "4200001001"},
            {"interface": "et-0/0/33", "neighbor_ip": "10.4.0.2", "peer_device": "s1", "remote_asn": "4200001001"}]
    assert f.rf_bgp_problems(bgp, rows, "junos") == ["et-0/0/33 10.4.0.2 (s1): Active"]
    assert f.rf_established(bgp, "junos") == ["10.4.0.0"]
    lldp = {"lldp-neighbors-information": [{"lldp-neighbor-information": [
        {"lldp-local-port-id": [{"data": "et-0/0/32"}], "lldp-remote-system-name": [{"data": "p1-spine1"}],
         "lldp-remote-port-id": [{"data": "Ethernet0"}]}]}]}
    assert f.rf_lldp_problems(lldp, [{"interface": "et-0/0/32", "neighbor": "p1-spine1",
                                      "neighbor_interface": "Ethernet0"}], "junos") == []


def test_junos_tasks_pass_syntax_check(rendered: Path, tmp_path: Path) -> None:
    """tasks/junos.yml imported statically into a one-task play, checked with the real junipernetworks.junos."""
    env = ansible_env(tmp_path / "ansible")
    ans = tmp_path / "gen" / "ansible"
    shutil.copytree(rendered / "ansible", ans)
    assert (ans / "tasks" / "junos.yml").is_file()
    assert yaml.safe_load((ans / "host_vars" / "p1-s1-rail0.yml").read_text())["platform"] == "junos"
    wrapper = ans / "syntax-junos.yml"
    wrapper.write_text(yaml.safe_dump([{"hosts": "rollout", "gather_facts": False,
                                        "tasks": [{"ansible.builtin.import_tasks": "tasks/junos.yml"}]}]))
    for book in (ans / "deploy.yml", wrapper):
        out = subprocess.run([ansible_bin("ansible-playbook"), "-i", str(ans / "inventory.yml"), str(book),
                              "--syntax-check"], env=env, cwd=ans, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, (book.name, out.stdout + out.stderr)
    requirements = yaml.safe_load((ans / "requirements.yml").read_text())
    assert {"name": "junipernetworks.junos", "version": ">=11.0.0,<12.0.0"} in requirements["collections"]


# --------------------------------------------------------------------------- sizing preset

def test_qfx5240_preset_sizes_and_validates_on_junos(tmp_path: Path) -> None:
    from railfabric.pipeline import run
    from railfabric.plan.sizing import host_preset, inventory_skeleton, size_fabric, switch_preset

    qfx = switch_preset("qfx5240-64od")
    # 64 OSFP ports at 800G; a 2x400G breakout doubles the radix at the 400G of a DGX B200 NIC
    assert (qfx.ports, qfx.speed_gbps, qfx.lanes_at(800), qfx.lanes_at(400), qfx.lanes_at(100)) == (64, 800, 1, 2, 8)
    s = size_fabric(1024, host_preset("dgx-b200"), qfx)
    # 1,024 GPUs = 128 hosts × 8 rails; radix 128 at 400G = 64 down + 64 up per rail switch, so a segment holds 64
    # hosts: 2 segments × 8 rail switches = 16, and 16 × 64 uplinks / 128 spine ports = 8 spines
    assert (s.hosts, s.rails, s.hosts_per_segment, s.spines_per_pod) == (128, 8, 64, 8)
    inv = tmp_path / "inv"
    write_files(inv, {"fabric.yml": inventory_skeleton(s, platform="junos")})
    result = run(inv)
    assert [f.code for f in result.findings if f.severity.value == "error"] == []


def test_plat030_warns_about_percent_ecn(tmp_path: Path) -> None:
    from railfabric.core.finding import Severity
    from tests.helpers import run_data

    data = with_system(base_inventory())
    data["fabric"]["platform"] = "junos"
    found = [f for f in run_data(tmp_path / "a", data).findings if f.code == "PLAT030"]
    # the schema defaults: 150000 / 1500000 bytes, rendered at JVD's 55/90 % (railfabric/configs/junos/cos.py)
    assert [(f.severity, f.message) for f in found] == [(Severity.WARNING, (
        "ECN thresholds 150000/1500000 bytes cannot be expressed on junos (used at fabric.platform): rendered as "
        "queue fill levels 55/90 %"))]
    data.setdefault("qos", {})["ecn"] = {"enabled": False}
    assert "PLAT030" not in [f.code for f in run_data(tmp_path / "b", data).findings]
    assert main(["explain", "PLAT030"]) == 0


def test_ipplan_names_the_junos_irb(rendered: Path) -> None:
    """The rail gateway of a Junos switch lives on irb.<vlan> (vlans ... l3-interface irb.N), as ipplan.csv says."""
    rows = [ln.split(",") for ln in (rendered / "ipplan.csv").read_text().splitlines()
            if ",p1-s1-rail0," in ln and ",rail-gateway," in ln]
    assert rows and all(r[2] == f"irb.{r[5].split()[3]}" for r in rows), rows
    sonic = [ln.split(",") for ln in (rendered / "ipplan.csv").read_text().splitlines()
             if ",p1-s2-rail0," in ln and ",rail-gateway," in ln]
    assert sonic and all(r[2].startswith("Vlan") for r in sonic)
