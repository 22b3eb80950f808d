"""The host files through the real tools: every netplan file of the shipped example through Debian's netplan.io
(`netplan generate --root-dir`, which writes systemd-networkd files and applies nothing), the networkd files it writes
read back (a table and a rule per rail interface); the host play through ansible-playbook --syntax-check and the
inventory through ansible-inventory (every GPU host under gpu_hosts). As root without netplan the test fails
(`make test` installs netplan.io: tests/tools/install.sh); without root and without netplan it skips."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from railfabric.device import build_devices
from railfabric.hosts import build_hosts
from railfabric.outputs import artifacts
from railfabric.pipeline import run
from tests.helpers import EXAMPLE, write_files
from tests.rollout_support import ansible_bin, ansible_env


@pytest.fixture(scope="module")
def example():
    res = run(EXAMPLE)
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    devices = build_devices(res.inventory, res.topology, res.plan)
    return build_hosts(res.inventory, res.topology, res.plan), artifacts(res.inventory, res.topology, res.plan,
                                                                          devices)


def _netplan() -> str:
    found = shutil.which("netplan") or next((p for p in ("/usr/sbin/netplan",) if os.path.exists(p)), None)
    if found is None:
        if os.geteuid() == 0:
            pytest.fail("netplan is missing (apt-get install netplan.io; `make test` installs it)")
        pytest.skip("netplan is missing and not root: apt-get install netplan.io")
    return found


def _generator() -> list[str]:
    """The generator `netplan generate` runs (/usr/lib/netplan/generate, C: 35 ms against the CLI's 300 ms of Python
    start-up per host), else the CLI itself."""
    cli = _netplan()
    for path in ("/usr/lib/netplan/generate", "/lib/netplan/generate", "/usr/libexec/netplan/generate"):
        if os.access(path, os.X_OK):
            return [path]
    return [cli, "generate"]


def _sections(text: str) -> list[tuple[str, dict[str, str]]]:
    """A systemd .network file as (section, {key: value}) in order (sections repeat: configparser cannot)."""
    out: list[tuple[str, dict[str, str]]] = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            out.append((line[1:-1], {}))
        elif "=" in line and out:
            k, _, v = line.partition("=")
            out[-1][1][k] = v
    return out


def test_netplan_generate_accepts_every_example_host(tmp_path: Path, example) -> None:
    generator = _generator()
    plan, arts = example

    def generate(name: str) -> tuple[str, subprocess.CompletedProcess, Path]:
        root = tmp_path / name
        (root / "etc/netplan").mkdir(parents=True)
        f = root / "etc/netplan/60-railfabric.yaml"
        f.write_text(arts[f"hosts/{name}/netplan.yaml"])
        f.chmod(0o600)
        return name, subprocess.run([*generator, "--root-dir", str(root)], capture_output=True, text=True,
                                    timeout=60), root

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(generate, sorted(plan.hosts)))
    assert len(results) == 56  # the example: 16 + 16 + 16 + 8 hosts
    for name, proc, root in results:
        assert proc.returncode == 0, (name, proc.stderr)
        for iface in plan.hosts[name].interfaces:
            net = root / f"run/systemd/network/10-netplan-{iface.name}.network"
            sections = _sections(net.read_text())
            network = dict(sections)["Network"]
            assert network["Address"] == f"{iface.address}/{iface.prefix_len}", name
            rules = [s for k, s in sections if k == "RoutingPolicyRule"]
            assert rules == [{"From": iface.address, "Table": str(iface.table), "Priority": str(iface.table)}]
            routes = [s for k, s in sections if k == "Route"]
            assert {r["Table"] for r in routes} == {str(iface.table)}  # nothing into the main table
            assert [(r["Destination"], r.get("Gateway")) for r in routes] == [(x.to, x.via) for x in iface.routes]
            # the table ends with the whole rail pool (inventory/fabric.yml pools.rail_subnets): through the rail
            # gateway in pods 1 and 2 (spines), unreachable in the rail-only pod 3
            last = routes[-1]
            assert (last["Destination"], last.get("Gateway"), last.get("Type")) == (
                ("172.16.0.0/12", None, "unreachable") if name.startswith("p3-") else
                ("172.16.0.0/12", iface.gateway, None)), name
            link = dict(sections)["Link"]
            assert link["MTUBytes"] == "9000"


def test_netplan_generate_accepts_an_mlag_bond(tmp_path: Path) -> None:
    netplan = _netplan()
    from railfabric.outputs.hosts import hosts_files
    from tests.helpers import mlag_inventory, run_data

    res = run_data(tmp_path, mlag_inventory())
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    text = hosts_files(build_hosts(res.inventory, res.topology, res.plan))["hosts/p1-s1-gpu001/netplan.yaml"]
    root = tmp_path / "root"
    (root / "etc/netplan").mkdir(parents=True)
    (root / "etc/netplan/60-railfabric.yaml").write_text(text)
    (root / "etc/netplan/60-railfabric.yaml").chmod(0o600)
    proc = subprocess.run([netplan, "generate", "--root-dir", str(root)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    netdev = dict(_sections((root / "run/systemd/network/10-netplan-bond0.netdev").read_text()))
    assert netdev["NetDev"]["Kind"] == "bond" and netdev["Bond"]["Mode"] == "802.3ad"
    member = dict(_sections((root / "run/systemd/network/10-netplan-nic0p2.network").read_text()))
    assert member["Network"]["Bond"] == "bond0"
    bond = _sections((root / "run/systemd/network/10-netplan-bond0.network").read_text())
    # netplan 0.106 writes a bond's one rule twice (identical sections; networkd configures it once)
    assert {tuple(sorted(s.items())) for k, s in bond if k == "RoutingPolicyRule"} == \
        {(("From", "172.16.0.2"), ("Priority", "101"), ("Table", "101"))}


def test_ansible_gpu_hosts_and_play(tmp_path: Path, example) -> None:
    plan, arts = example
    inventory_bin, playbook_bin = ansible_bin("ansible-inventory"), ansible_bin("ansible-playbook")
    gen = write_files(tmp_path / "generated", arts)  # type: ignore[arg-type]
    env = ansible_env(tmp_path / "ansible", real_collections=False)
    out = subprocess.run([inventory_bin, "-i", str(gen / "ansible/inventory.yml"), "--list"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    listed = json.loads(out.stdout)
    children = listed["gpu_hosts"]["children"]
    assert sorted(children) == ["gpu_p1_s1_h1", "gpu_p1_s2_h1", "gpu_p1_s2_h9", "gpu_p2_s1_h1", "gpu_p3_s1_h1"]
    under = {h for c in children for h in listed[c]["hosts"]}
    assert under == set(plan.hosts)
    hv = listed["_meta"]["hostvars"]["p1-s2-gpu009"]
    assert hv["host_group"] == "p1-s2-h9" and hv["roce_script"] == "../hosts/_groups/p1-s2-h9/roce.sh"
    # p1-s2 is dual-rail: switch g serves rails g and g+4 on /25 halves; host 9 = gateway + 9 on rail 0's /25
    assert hv["rail_rules"][0] == f"from {plan.hosts['p1-s2-gpu009'].interfaces[0].address} lookup 101"
    assert hv["netplan_install"] == "/etc/netplan/60-railfabric.yaml"
    assert not (gen / "ansible/host_vars/p1-s2-gpu009.yml").exists()  # host_vars/ stays the switches' (verify)
    out = subprocess.run([playbook_bin, "-i", str(gen / "ansible/inventory.yml"), str(gen / "ansible/hosts.yml"),
                          "--syntax-check"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
