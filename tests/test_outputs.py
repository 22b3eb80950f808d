"""The artifacts under generated/ (railfabric/outputs): cabling plan, IP plan, host rail map, expected state and the
Ansible inventory/playbook, checked against values derived by hand from the example inventory/.

Hand derivations (see tests/test_example.py for the address layout):
- p1-s1-rail3 has port 8 disabled, so hosts 15 and 16 take port 9 lanes 1 and 2 (2x400G breakout of an 800G port);
  SONiC names port 9 lane 1 Ethernet((9-1)·8) = Ethernet64. Its rack is DH1-R07 (devices.yml).
- p1-s1-gpu015 NIC 3 → rail 3 → 172.16.3.0/24, gateway .1, host 15 → 172.16.3.16.
- p1-s2-gpu009 GPU 5 → NIC 5 → rail 5, paired with rail 1 on p1-s2-rail1-5 (slot 1): group 1's /24 is 172.16.9.0/24,
  slot 1 is its upper /25 172.16.9.128/25, gateway .129, host 9 → .138. Slot-1 ports are [2, 5, 8, 11, 14, ...]
  at 2x400G: host 9 is position 8 → block[8 // 2] = port 14, lane 1 → Ethernet((14-1)·8) = Ethernet104.
- Links: 448 host + 192 fabric + 192 core = 832. /31s: 128 routed fabric links in pod 1, 32 port-channels of 2 in
  pod 2, 192 core links = 352, each with two ends.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from railfabric.core.address import cidr_key
from railfabric.device import DeviceConfig, build_devices
from railfabric.outputs import artifacts
from railfabric.outputs._common import natural_key
from railfabric.pipeline import Result, run
from railfabric.platforms import PLATFORMS
from tests.helpers import EXAMPLE, base_inventory, run_data, with_system, write_files

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def res() -> Result:
    r = run(EXAMPLE)
    assert r.findings == [], [str(f) for f in r.findings]
    return r


@pytest.fixture(scope="module")
def devices(res: Result) -> dict[str, DeviceConfig]:
    return build_devices(res.inventory, res.topology, res.plan)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def arts(res: Result, devices: dict[str, DeviceConfig]) -> dict[str, str]:
    return artifacts(res.inventory, res.topology, res.plan, devices)  # type: ignore[arg-type]


def read_csv(text: str, title: str) -> list[dict[str, str]]:
    first, _, rest = text.partition("\n")
    assert first == f"# {title}"
    return list(csv.DictReader(io.StringIO(rest)))


def one(rows: list[dict[str, str]], **match: str) -> dict[str, str]:
    found = [r for r in rows if all(r[k] == v for k, v in match.items())]
    assert len(found) == 1, (match, found)
    return found[0]


def mini_artifacts(tmp_path: Path, data: dict) -> tuple[Result, dict[str, str]]:
    r = run_data(tmp_path, data)
    assert r.findings == [], [str(f) for f in r.findings]
    devs = build_devices(r.inventory, r.topology, r.plan)  # type: ignore[arg-type]
    return r, artifacts(r.inventory, r.topology, r.plan, devs)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the set of files, determinism


def test_paths(res: Result, arts: dict[str, str]) -> None:
    switches = set(res.topology.switches)  # type: ignore[union-attr]
    assert len(switches) == 34
    expected = {"ansible/inventory.yml", "ansible/deploy.yml", "ansible/requirements.yml", "cabling.csv",
                "ipplan.csv", "hosts/railmap.csv", "expected/bgp_sessions.csv", "expected/lldp_neighbors.csv"}
    expected |= {f"ansible/host_vars/{s}.yml" for s in switches}
    expected |= {"ansible/rollout_plan.yml", "ansible/filter_plugins/railfabric.py"}
    # each platform's own filter plugin beside the shared one (railfabric/configs/<name>/ansible_plugin.py)
    expected |= {f"ansible/filter_plugins/railfabric_{p}.py" for p in ("eos", "junos", "nvue", "nxos", "sonic")}
    expected |= {f"ansible/tasks/{t}.yml" for t in ("preflight", "sonic", "sonic_push", "sonic_verify",
                                                   "sonic_rollback", "eos", "junos", "nvue", "nxos")}
    # the GPU servers (railfabric/outputs/hosts*.py): a netplan file per host, three files per host group, the play
    expected |= {f"hosts/{h}/netplan.yaml" for h in res.topology.hosts}  # type: ignore[union-attr]
    expected |= {f"hosts/_groups/{g}/{f}" for g in ("p1-s1-h1", "p1-s2-h1", "p1-s2-h9", "p2-s1-h1", "p3-s1-h1")
                 for f in ("roce.sh", "railfabric-roce.service", "nccl.conf")}
    expected.add("ansible/hosts.yml")
    # expected state per switch; ANTA catalogs for the four EOS switches (pod 1 segment 2) and their inventory
    expected |= {f"expected/state/{s}.json" for s in switches}
    expected |= {f"expected/anta/catalogs/p1-s2-rail{a}-{a + 4}.yml" for a in range(4)}
    expected.add("expected/anta/inventory.yml")
    assert set(arts) == expected
    assert list(arts) == sorted(arts)
    for path, text in arts.items():
        assert not path.startswith("/") and ".." not in path.split("/"), path
        assert text.endswith("\n") and "\r" not in text, path


def test_pure_and_repeatable(res: Result, devices: dict[str, DeviceConfig], arts: dict[str, str]) -> None:
    fresh = build_devices(res.inventory, res.topology, res.plan)  # type: ignore[arg-type]
    again = artifacts(res.inventory, res.topology, res.plan, fresh)  # type: ignore[arg-type]
    assert again == arts
    assert list(again) == list(arts)


_DIGEST = """
import hashlib
from pathlib import Path
from railfabric.device import build_devices
from railfabric.outputs import artifacts
from railfabric.pipeline import run
r = run(Path({path!r}))
a = artifacts(r.inventory, r.topology, r.plan, build_devices(r.inventory, r.topology, r.plan))
h = hashlib.sha256()
for k, v in a.items():
    h.update(k.encode() + b"\\0" + v.encode() + b"\\0")
print(h.hexdigest())
"""


def test_byte_identical_across_hash_seeds(arts: dict[str, str]) -> None:
    h = hashlib.sha256()
    for k, v in arts.items():
        h.update(k.encode() + b"\0" + v.encode() + b"\0")
    digests = set()
    for seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", _DIGEST.format(path=str(EXAMPLE))], env=env, cwd=ROOT,
                             capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert digests == {h.hexdigest()}


# --------------------------------------------------------------------------- cabling.csv


def test_cabling(arts: dict[str, str]) -> None:
    rows = read_csv(arts["cabling.csv"], "railfabric cabling plan v1")
    assert list(rows[0]) == ["link_id", "role", "rail", "a_device", "a_port", "a_interface", "a_rack", "z_device",
                             "z_port", "z_interface", "z_rack", "speed", "bundle"]
    assert len(rows) == 832
    assert sum(r["role"] == "host" for r in rows) == 448
    assert [r["link_id"] for r in rows] == sorted((r["link_id"] for r in rows), key=natural_key)
    assert one(rows, link_id="p1-s1-gpu015:nic3p1") == {
        "link_id": "p1-s1-gpu015:nic3p1", "role": "host", "rail": "3",
        "a_device": "p1-s1-gpu015", "a_port": "nic3p1", "a_interface": "nic3", "a_rack": "",
        "z_device": "p1-s1-rail3", "z_port": "9/1", "z_interface": "Ethernet64", "z_rack": "DH1-R07",
        "speed": "400G", "bundle": ""}
    assert one(rows, link_id="p1-s1-gpu016:nic3p1")["z_port"] == "9/2"
    assert one(rows, link_id="p1-s1-gpu016:nic3p1")["z_interface"] == "Ethernet68"
    assert not [r for r in rows if r["z_device"] == "p1-s1-rail3" and r["z_port"].startswith("8/")]  # disabled
    # rail switch → spine: uplinks take the top half (33-64); spine downlinks start at (segment-1)·16+1
    assert one(rows, link_id="p1-s1-rail0>p1-spine1#1") == {
        "link_id": "p1-s1-rail0>p1-spine1#1", "role": "fabric", "rail": "",
        "a_device": "p1-s1-rail0", "a_port": "33", "a_interface": "Ethernet256", "a_rack": "",
        "z_device": "p1-spine1", "z_port": "1", "z_interface": "Ethernet0", "z_rack": "", "speed": "800G",
        "bundle": ""}
    pc = one(rows, link_id="p2-s1-rail0-1-2-3>p2-spine1#2")
    assert pc["bundle"] == "p2-s1-rail0-1-2-3>p2-spine1#pc1" and pc["a_port"] == "34"
    core = one(rows, link_id="p1-spine1>core-ss1#1")
    assert (core["role"], core["z_device"], core["z_rack"], core["speed"]) == ("core", "core-ss1", "DH1-R01", "800G")


def test_cabling_has_each_cable_once(arts: dict[str, str]) -> None:
    rows = read_csv(arts["cabling.csv"], "railfabric cabling plan v1")
    ends = [(r["a_device"], r["a_port"]) for r in rows] + [(r["z_device"], r["z_port"]) for r in rows]
    assert len(ends) == len(set(ends))  # no port (lane) is cabled twice, so no A/Z reversed duplicate either
    pairs = {frozenset({(r["a_device"], r["a_port"]), (r["z_device"], r["z_port"])}) for r in rows}
    assert len(pairs) == len(rows)
    assert len({r["link_id"] for r in rows}) == len(rows)


# --------------------------------------------------------------------------- ipplan.csv


def test_ipplan_rows(arts: dict[str, str]) -> None:
    rows = read_csv(arts["ipplan.csv"], "railfabric ip plan v1")
    assert list(rows[0]) == ["address", "owner", "interface", "purpose", "pool", "detail"]

    def row(address: str, owner: str) -> tuple[str, str, str]:
        r = one(rows, address=address, owner=owner)
        return r["interface"], r["purpose"], r["pool"]

    assert row("10.0.0.147/32", "p1-s1-rail3") == ("Loopback0", "loopback", "loopbacks")
    assert row("192.168.15.3/20", "p1-s1-rail3") == ("eth0", "management", "management")  # pinned
    assert row("172.16.3.16/24", "p1-s1-gpu015") == ("nic3p1", "host", "rail_subnets")
    assert row("172.16.3.0/24", "p1-s1-rail3") == ("Vlan103", "rail-subnet", "rail_subnets")
    assert row("172.16.3.1/24", "p1-s1-rail3") == ("Vlan103", "rail-gateway", "rail_subnets")
    assert row("172.16.9.128/25", "p1-s2-rail1-5") == ("Vlan105", "rail-subnet", "rail_subnets")
    assert row("172.16.9.138/25", "p1-s2-gpu009") == ("nic5p1", "host", "rail_subnets")
    assert row("172.16.9.0/24", "p1-s2-rail1-5") == ("", "aggregate", "rail_subnets")
    assert row("172.16.64.0/22", "p2-s1-rail0-1-2-3") == ("", "aggregate", "rail_subnets")
    # /31 of p1-s1-rail0 uplink 0: slot 0 → 10.4.0.0/31, the spine (upper end) even
    assert row("10.4.0.0/31", "p1-spine1") == ("Ethernet0", "p2p", "fabric_links")
    assert row("10.4.0.1/31", "p1-s1-rail0") == ("Ethernet256", "p2p", "fabric_links")
    assert one(rows, address="10.4.0.1/31")["detail"] == "peer p1-spine1 Ethernet0"
    # port-channel of p2-s1-rail0-1-2-3 (tier slot 128 → /31 slot 128·64 → 10.4.64.0/31), named by its first member
    assert row("10.4.64.1/31", "p2-s1-rail0-1-2-3") == ("PortChannel33", "p2p", "fabric_links")
    assert row("10.4.64.0/31", "p2-spine1") == ("PortChannel1", "p2p", "fabric_links")
    # pools, blocks and the management gateway belong to nobody
    assert row("10.0.0.0/20", "") == ("", "pool", "loopbacks")
    assert row("172.16.0.0/12", "") == ("", "pool", "rail_subnets")
    assert row("192.168.0.1/20", "") == ("", "management-gateway", "management")
    assert one(rows, address="172.16.64.0/21")["purpose"] == "segment-block"


def test_ipplan_complete_sorted_unique(arts: dict[str, str]) -> None:
    rows = read_csv(arts["ipplan.csv"], "railfabric ip plan v1")
    count = {}
    for r in rows:
        count[r["purpose"]] = count.get(r["purpose"], 0) + 1
    assert count == {"pool": 4, "segment-block": 4, "management-gateway": 1, "loopback": 34, "management": 34,
                     "p2p": 2 * 352, "rail-subnet": 32, "rail-gateway": 32, "aggregate": 4 + 2, "host": 448}
    keys = [cidr_key(r["address"]) for r in rows]
    assert keys == sorted(keys)
    assert len({(r["address"], r["owner"]) for r in rows}) == len(rows)
    # interface addresses are unique fabric-wide
    owned = [r["address"].split("/")[0] for r in rows if r["purpose"] in ("loopback", "management", "p2p", "host")]
    assert len(owned) == len(set(owned))


# --------------------------------------------------------------------------- hosts/railmap.csv


def test_railmap(arts: dict[str, str]) -> None:
    rows = read_csv(arts["hosts/railmap.csv"], "railfabric host rail map v2")
    assert list(rows[0]) == ["host", "gpu", "nic", "nic_port", "rail", "switch", "switch_interface", "vlan",
                             "address", "gateway", "mtu", "bond", "bond_mode"]
    assert len(rows) == 56 * 8
    # rail 5 is the second rail (slot 1) of p1-s2-rail1-5: block [2, 5, 8, 11, 14, ...], two hosts per port, so host 9
    # is the 5th port (14), lane 1; EOS names it Ethernet14/1
    r = one(rows, host="p1-s2-gpu009", gpu="5")
    assert r == {"host": "p1-s2-gpu009", "gpu": "5", "nic": "5", "nic_port": "1", "rail": "5",
                 "switch": "p1-s2-rail1-5", "switch_interface": "Ethernet14/1", "vlan": "105",
                 "address": "172.16.9.138/25", "gateway": "172.16.9.129", "mtu": "9000", "bond": "", "bond_mode": ""}
    r = one(rows, host="p1-s1-gpu015", gpu="3")
    assert (r["switch"], r["switch_interface"], r["address"], r["gateway"]) == (
        "p1-s1-rail3", "Ethernet64", "172.16.3.16/24", "172.16.3.1")
    assert [(r["host"], int(r["gpu"])) for r in rows] == sorted(((r["host"], int(r["gpu"])) for r in rows),
                                                                key=lambda t: (natural_key(t[0]), t[1]))


def test_railmap_interface_matches_cabling(arts: dict[str, str]) -> None:
    cables = {r["link_id"]: r for r in read_csv(arts["cabling.csv"], "railfabric cabling plan v1")}
    for r in read_csv(arts["hosts/railmap.csv"], "railfabric host rail map v2"):
        c = cables[f"{r['host']}:nic{r['nic']}p{r['nic_port']}"]
        assert (c["z_device"], c["z_interface"]) == (r["switch"], r["switch_interface"])


def test_railmap_shared_nics_and_dual_homing(tmp_path: Path) -> None:
    data = base_inventory()
    data["host_models"]["h4"] = {"gpus": 4, "nics": 2, "nic_speed": "400G", "gpu_to_nic": [0, 0, 1, 1]}
    data["pods"][0]["segments"][0]["host_groups"][0]["model"] = "h4"
    _, a = mini_artifacts(tmp_path / "shared", data)
    rows = read_csv(a["hosts/railmap.csv"], "railfabric host rail map v2")
    assert len(rows) == 4 * 4  # 4 hosts × 4 GPUs, two GPUs per NIC
    host1 = [(r["gpu"], r["nic"], r["rail"], r["switch"], r["address"]) for r in rows if r["host"] == "p1-s1-gpu001"]
    assert host1 == [("0", "0", "0", "p1-s1-rail0", "172.16.0.2/24"), ("1", "0", "0", "p1-s1-rail0", "172.16.0.2/24"),
                     ("2", "1", "1", "p1-s1-rail1", "172.16.1.2/24"), ("3", "1", "1", "p1-s1-rail1", "172.16.1.2/24")]

    data = base_inventory()
    data["host_models"]["h2"]["ports_per_nic"] = 2
    data["pods"][0]["segments"][0]["dual_homing"] = "two-vlans"
    _, a = mini_artifacts(tmp_path / "dual", data)
    rows = read_csv(a["hosts/railmap.csv"], "railfabric host rail map v2")
    assert len(rows) == 4 * 2 * 2  # one row per GPU and NIC port
    gpu0 = [(r["nic_port"], r["switch"], r["address"], r["gateway"]) for r in rows
            if r["host"] == "p1-s1-gpu001" and r["gpu"] == "0"]
    assert gpu0 == [("1", "p1-s1-rail0a", "172.16.0.2/24", "172.16.0.1"),
                    ("2", "p1-s1-rail0b", "172.16.1.2/24", "172.16.1.1")]


# --------------------------------------------------------------------------- expected/


def test_expected_bgp_sessions(arts: dict[str, str]) -> None:
    rows = read_csv(arts["expected/bgp_sessions.csv"], "railfabric expected bgp sessions v1")
    assert len(rows) == 2 * 352
    r = one(rows, device="p1-s1-rail0", neighbor_ip="10.4.0.0")
    assert r == {"device": "p1-s1-rail0", "interface": "Ethernet256", "local_ip": "10.4.0.1",
                 "local_asn": "4200100000", "neighbor_ip": "10.4.0.0", "remote_asn": "4200001001",
                 "peer_device": "p1-spine1", "peer_interface": "Ethernet0", "peer_group": "SPINES", "bfd": "yes"}
    pc = one(rows, device="p2-spine1", neighbor_ip="10.4.64.1")
    assert (pc["interface"], pc["peer_device"], pc["peer_interface"], pc["remote_asn"]) == (
        "PortChannel1", "p2-s1-rail0-1-2-3", "PortChannel33", "4200100128")
    # every session is seen from both ends, with mirrored addresses and ASNs
    seen = {(r["device"], r["local_ip"], r["local_asn"], r["peer_device"], r["neighbor_ip"], r["remote_asn"])
            for r in rows}
    assert all((p, n, ra, d, lo, la) in seen for d, lo, la, p, n, ra in seen)


def test_expected_lldp(arts: dict[str, str]) -> None:
    rows = read_csv(arts["expected/lldp_neighbors.csv"], "railfabric expected lldp neighbors v1")
    assert len(rows) == 448 + 2 * (192 + 192)  # host links seen by the switch, switch links from both ends
    assert one(rows, device="p1-s1-rail3", interface="Ethernet64") == {
        "device": "p1-s1-rail3", "interface": "Ethernet64", "neighbor": "p1-s1-gpu015",
        "neighbor_interface": "nic3p1", "role": "host"}
    assert one(rows, device="p2-spine1", interface="Ethernet0")["neighbor_interface"] == "Ethernet256"


# --------------------------------------------------------------------------- ansible/ (content)


def test_ansible_inventory_content(res: Result, arts: dict[str, str]) -> None:
    inv = yaml.safe_load(arts["ansible/inventory.yml"])
    groups = inv["all"]["children"]
    assert list(groups) == ["role_super_spine", "role_spine", "role_rail", "pod1", "pod2", "pod3",
                            *(f"platform_{p}" for p in sorted(PLATFORMS)), "rollout"] + \
        [f"rollout_wave_{i}" for i in range(1, 18)] + ["gpu_hosts"]  # every platform's group, possibly empty
    assert len(groups["rollout"]["hosts"]) == 34  # the waves: tests/test_rollout_plan.py
    assert groups["role_rail"]["hosts"]["p1-s1-rail3"] == {"ansible_host": "192.168.15.3"}
    assert groups["role_super_spine"]["hosts"]["core-ss1"] == {"ansible_host": "192.168.0.16"}
    assert len(groups["role_rail"]["hosts"]) == 22 and len(groups["role_spine"]["hosts"]) == 8
    assert "p3-s1-rail0" in groups["pod3"]["hosts"] and "core-ss1" not in groups["pod1"]["hosts"]
    assert groups["platform_sonic"]["vars"]["ansible_connection"] == "ssh"
    assert groups["platform_sonic"]["vars"]["ansible_network_os"] == "sonic"
    eos = {f"p1-s2-rail{r}-{r + 4}" for r in range(4)}  # pod 1 segment 2 is the example's EOS segment
    assert set(groups["platform_eos"]["hosts"]) == eos
    assert groups["platform_eos"]["vars"]["ansible_network_os"] == "arista.eos.eos"
    assert groups["platform_eos"]["vars"]["ansible_connection"] == "ansible.netcommon.network_cli"
    assert set(groups["platform_sonic"]["hosts"]) == set(res.topology.switches) - eos  # type: ignore[union-attr]


def test_ansible_host_vars(arts: dict[str, str]) -> None:
    assert yaml.safe_load(arts["ansible/host_vars/p1-s1-rail3.yml"]) == {
        "role": "rail", "pod": 1, "segment": 1, "rails": [3], "asn": 4200100003, "loopback": "10.0.0.147/32",
        "management": "192.168.15.3/20", "platform": "sonic", "model": "sn5600", "rack": "DH1-R07",
        # routing.drain is auto (not set in inventory/) and the example runs SONiC and EOS, which both send
        # GRACEFUL_SHUTDOWN (Platform.graceful_shutdown): the fabric drains by graceful shutdown
        "rollout_drain": "graceful-shutdown",
        "rollout_wave": 4,  # the 4th switch of segment p1-s1 (wave 1 is p1-s1-rail0 alone)
        "config_files": {"config_db.json": "../configs/p1-s1-rail3/config_db.json",
                         "frr.conf": "../configs/p1-s1-rail3/frr.conf"},
        # inventory/system.yml: push_user netops; SONiC's way in is SSH in its own VRF `mgmt` (eAPI is EOS's);
        # p1-s1-rail3 overrides only ntp, so every secret of the fabric-wide block is still referenced
        "push_user": "netops", "management_access": ["ssh"], "management_vrf": "mgmt",
        "vault_variables": ["netops_password_hash", "noc_password_hash", "snmp_monitor_auth", "snmp_monitor_priv",
                            "tacacs_key"]}
    ss = yaml.safe_load(arts["ansible/host_vars/core-ss1.yml"])
    assert (ss["role"], ss["pod"], ss["segment"], ss["rails"], ss["asn"]) == ("super-spine", None, None, [], 4200000000)
    assert ss["rollout_wave"] == 14  # after 9 rail waves and 4 spine waves


def test_deploy_playbook_structure(arts: dict[str, str]) -> None:
    """One play over the `rollout` group, serial from the waves, the first failure stops everything; the platform
    tasks by the host's `platform` (the tasks themselves: tests/test_rollout_playbook.py, test_rollout_lab.py)."""
    (play,) = yaml.safe_load(arts["ansible/deploy.yml"])
    # the `rollout` group in the rendered waves, unless `fabric impact --emit-waves` gave maintenance waves (the
    # filters: rf_wave_pattern returns "rollout" and rf_wave_sizes the rendered sizes without them;
    # tests/test_rollout_waves.py runs the playbook with and without)
    assert play["hosts"] == "{{ rollout_maintenance_waves | default([]) | rf_wave_pattern }}"
    assert play["vars_files"] == ["rollout_plan.yml"]
    assert play["serial"] == ("{{ rollout_maintenance_waves | default([]) | rf_wave_sizes(rollout_wave_sizes)\n"
                              "   | rf_batches(rollout_batch | default(1)) }}")
    assert play["max_fail_percentage"] == 0 and play["any_errors_fatal"] is True
    push = play["tasks"][-1]
    assert [t["ansible.builtin.include_tasks"] for t in push["block"]] == ["tasks/preflight.yml",
                                                                          "tasks/{{ platform }}.yml"]
    def commands(tasks: list[dict]) -> list[str]:  # in file order, blocks first, then their rescue
        out = []
        for t in tasks:
            out += [t["ansible.builtin.command"]] if "ansible.builtin.command" in t else []
            out += commands(t.get("block", [])) + commands(t.get("rescue", []))
        return out

    assert commands(yaml.safe_load(arts["ansible/tasks/sonic_push.yml"])) == [
        "{{ rf_vtysh }} -c 'show bgp summary json'",  # the sessions up before (a rollback brings them back)
        "{{ rf_vtysh }} -f {{ rf_frr_seen }}/{{ rf_frr_temp }}.drain.conf",  # drain
        "{{ rf_vtysh }} -c 'show running-config'",  # ... is in the running config
        "{{ rf_vtysh }} -f {{ rf_frr_seen }}/{{ rf_frr_temp }}.undrain.conf",  # (rescue: a partial drain undone)
        "{{ rf_config }} checkpoint {{ rf_checkpoint }}",
        "{{ rf_config }} replace {{ rf_target }}",
        "{{ rf_frr_reload }} --reload {{ rf_frr_seen }}/{{ rf_frr_temp }}.drained.conf",
        "{{ rf_vtysh }} -f {{ rf_frr_seen }}/{{ rf_frr_temp }}.undrain.conf"]  # after sonic_verify.yml
    assert all("config reload" not in text for path, text in arts.items() if path.startswith("ansible/tasks/"))
    requirements = yaml.safe_load(arts["ansible/requirements.yml"])
    assert [c["name"] for c in requirements["collections"]] == ["arista.eos", "cisco.nxos", "ansible.netcommon",
                                                                "ansible.utils", "junipernetworks.junos"]


@pytest.mark.parametrize("text", ["yes", "No", "on", "null", "~", "", "12", "1.5", "1e3", "0o7", "0x1f", "1_000",
                                  "1:20", "y", "n", ".inf", "#x", "a b", "x: y", "-x", "...", "..", "../configs/a",
                                  "/usr/bin/python3", "2001-01-01", "Ethernet1/1", "10.0.0.147/32", "p1-s1-rail3",
                                  "héllo", "<<", "*a", "&a", "!x", "%x", "@x", "`x", "'x", '"x', "[x]", "{x}"])
def test_yaml_scalars_read_back(text: str) -> None:
    from railfabric.outputs.ansible import _scalar, _yaml

    assert yaml.safe_load(f"k: {_scalar(text)}") == {"k": text}
    data = {text or "empty": {"a": [text, 1, None, True], "b": {}, "c": text}, "d": []}
    assert yaml.safe_load(_yaml(data)) == data


def test_ansible_eos_hosts(tmp_path: Path) -> None:
    data = with_system(base_inventory())
    data["devices"] = {"p1-spine1": {"platform": "eos"}}
    _, a = mini_artifacts(tmp_path, data)
    groups = yaml.safe_load(a["ansible/inventory.yml"])["all"]["children"]
    assert list(groups["platform_eos"]["hosts"]) == ["p1-spine1"]
    assert list(groups["platform_sonic"]["hosts"]) == ["p1-s1-rail0", "p1-s1-rail1", "p1-spine2"]
    hv = yaml.safe_load(a["ansible/host_vars/p1-spine1.yml"])
    assert hv["config_files"] == {"running-config.cfg": "../configs/p1-spine1/running-config.cfg"}


# --------------------------------------------------------------------------- ansible/ (with ansible-core)


def _ansible_bin(name: str) -> str:
    """The ansible executable next to this interpreter (the venv), else on PATH; skip (saying why) without it."""
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    if not found:
        reason = f"{name} not found next to {sys.executable} nor on PATH: pip install 'ansible-core>=2.16,<3'"
        print(f"SKIP: {reason}", file=sys.stderr)
        pytest.skip(reason)
    return found


def _ansible_env(tmp_path: Path) -> dict[str, str]:
    """Everything Ansible writes goes under tmp_path; no ansible.cfg from the machine is read. The EOS play's
    arista.eos.eos_config must resolve for --syntax-check, and the collection is not on PyPI on its own (only in the
    large `ansible` bundle) nor fetchable offline, so a stub collection declaring just that module name is put on
    the collections path: the syntax check validates the playbook's structure, not module arguments."""
    stub = tmp_path / "collections" / "ansible_collections" / "arista" / "eos" / "plugins" / "modules"
    stub.mkdir(parents=True)
    (stub / "eos_config.py").write_text('DOCUMENTATION = """\nmodule: eos_config\nshort_description: test stub\n"""\n')
    for d in ("home", "local_tmp", "remote_tmp"):
        (tmp_path / d).mkdir()
    (tmp_path / "ansible.cfg").write_text("")
    return {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "ANSIBLE_HOME": str(tmp_path / "home" / ".ansible"),
        "ANSIBLE_CONFIG": str(tmp_path / "ansible.cfg"),
        "ANSIBLE_LOCAL_TEMP": str(tmp_path / "local_tmp"),
        "ANSIBLE_REMOTE_TEMP": str(tmp_path / "remote_tmp"),
        "ANSIBLE_COLLECTIONS_PATH": str(tmp_path / "collections"),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_RETRY_FILES_ENABLED": "0",
        "LC_ALL": "C.UTF-8",
    }


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_ansible_inventory_and_syntax(tmp_path: Path, res: Result, devices: dict[str, DeviceConfig],
                                     arts: dict[str, str]) -> None:
    inventory_bin, playbook_bin = _ansible_bin("ansible-inventory"), _ansible_bin("ansible-playbook")
    gen = write_files(tmp_path / "generated", arts)  # type: ignore[arg-type]
    env = _ansible_env(tmp_path / "ansible")
    out = _run([inventory_bin, "-i", str(gen / "ansible/inventory.yml"), "--list"], env, tmp_path)
    assert out.returncode == 0, out.stderr
    listed = json.loads(out.stdout)
    hostvars = listed["_meta"]["hostvars"]
    for name, sw in res.topology.switches.items():  # type: ignore[union-attr]
        assert name in hostvars, name
        assert hostvars[name]["ansible_host"] == devices[name].management.split("/")[0]
        assert hostvars[name]["ansible_network_os"] == {"sonic": "sonic", "eos": "arista.eos.eos"}[sw.platform]
        assert hostvars[name]["role"] == sw.role.value  # host_vars/ next to the inventory are read
    assert hostvars["p1-s1-rail3"]["ansible_host"] == "192.168.15.3"
    assert set(listed["role_rail"]["hosts"]) == {n for n, s in res.topology.switches.items()  # type: ignore[union-attr]
                                                 if s.role.value == "rail"}
    assert "Found variable using reserved name" not in out.stderr

    out = _run([playbook_bin, "-i", str(gen / "ansible/inventory.yml"), str(gen / "ansible/deploy.yml"),
                "--syntax-check"], env, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "reserved name" not in out.stderr


def test_ansible_eos_syntax(tmp_path: Path) -> None:
    inventory_bin, playbook_bin = _ansible_bin("ansible-inventory"), _ansible_bin("ansible-playbook")
    data = with_system(base_inventory())
    data["fabric"]["platform"] = "eos"
    _, a = mini_artifacts(tmp_path / "inv", data)
    gen = write_files(tmp_path / "generated", a)  # type: ignore[arg-type]
    env = _ansible_env(tmp_path / "ansible")
    out = _run([inventory_bin, "-i", str(gen / "ansible/inventory.yml"), "--list"], env, tmp_path)
    assert out.returncode == 0, out.stderr
    hostvars = json.loads(out.stdout)["_meta"]["hostvars"]
    # the switches, and the mini fabric's 4 GPU servers (gpu_hosts, railfabric/outputs/hosts.py)
    assert set(hostvars) == {"p1-spine1", "p1-spine2", "p1-s1-rail0", "p1-s1-rail1",
                             *(f"p1-s1-gpu00{n}" for n in range(1, 5))}
    switches = [h for n, h in hostvars.items() if "-gpu" not in n]
    assert {h["ansible_network_os"] for h in switches} == {"arista.eos.eos"}
    assert {h["ansible_connection"] for h in switches} == {"ansible.netcommon.network_cli"}
    out = _run([playbook_bin, "-i", str(gen / "ansible/inventory.yml"), str(gen / "ansible/deploy.yml"),
                "--syntax-check"], env, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr


