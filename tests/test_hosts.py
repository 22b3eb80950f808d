"""The host model and host files (railfabric/hosts/, railfabric/outputs/hosts*.py), with values derived by hand from the
mini fabric of tests.helpers: one pod with 2 spines, one single-rail segment (id 1) of 2 rails, 4 hosts of model h2
(2 GPUs, 2 one-port NICs), rail subnets pool 172.16.0.0/12 with /21 segment blocks.

Derivation (railfabric/plan/allocate.py): segment (1, 1) owns block 0 = 172.16.0.0/21; single-rail: rail r's switch
p1-s1-rail<r> owns subnet r = 172.16.<r>.0/24, gateway .1, host n = gateway + n, so p1-s1-gpu002 has 172.16.0.3
(rail 0) and 172.16.1.3 (rail 1); VLAN 100 + r. The pod has spines, so each rail table holds the NIC's subnet on-link
and the whole pool 172.16.0.0/12 through the NIC's gateway (railfabric/hosts/routes.py: stable aggregates, never a route
per segment). Tables 100 + nic + 1.
QoS defaults: RoCE DSCP 26 -> 3, CNP 48 -> 6, PFC on 3, ECN on: ToS = 26 << 2 | 2 = 106.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import yaml

from railfabric.checks.rules.host_rules import reserved_netdev
from railfabric.core.source_map import Location
from railfabric.hosts import build_hosts
from railfabric.hosts.build import group_inputs
from railfabric.outputs._common import host_bond
from railfabric.outputs.hosts import gpu_hosts, hosts_files
from railfabric.outputs.hosts_netplan import netplan_data
from railfabric.outputs.hosts_roce import nccl_conf, roce_script
from railfabric.pipeline import run
from railfabric.plan.nic_names import bond
from tests.helpers import base_inventory, codes, dump, mlag_inventory, run_data, write_files


def _plan(tmp_path: Path, data: dict):
    res = run_data(tmp_path, data)
    assert res.topology is not None and res.plan is not None and res.inventory is not None, res.findings
    return res, build_hosts(res.inventory, res.topology, res.plan)


def _l3(address: str, table: int, subnet: str, gateway: str) -> dict:
    return {"addresses": [f"{address}/24"], "mtu": 9000, "dhcp4": False, "dhcp6": False, "accept-ra": False,
            "optional": True,
            "routes": [{"to": subnet, "scope": "link", "table": table},
                       {"to": "172.16.0.0/12", "via": gateway, "table": table}],
            "routing-policy": [{"from": address, "table": table, "priority": table}]}


def test_netplan_of_a_named_host(tmp_path: Path) -> None:
    res, plan = _plan(tmp_path, base_inventory())
    assert [f.code for f in res.findings if f.severity.value == "error"] == []
    expected = {"network": {"version": 2, "renderer": "networkd", "ethernets": {
        "nic0": _l3("172.16.0.3", 101, "172.16.0.0/24", "172.16.0.1"),
        "nic1": _l3("172.16.1.3", 102, "172.16.1.0/24", "172.16.1.1")}}}
    assert netplan_data(plan.hosts["p1-s1-gpu002"]) == expected
    text = hosts_files(plan)["hosts/p1-s1-gpu002/netplan.yaml"]
    assert yaml.safe_load(text) == expected  # the emitter writes what the data says
    iface = plan.hosts["p1-s1-gpu002"].interfaces[1]
    assert (iface.rail, iface.vlan, iface.gpus, iface.rdma_device, iface.uplinks[0][0]) == \
        (1, 101, (1,), "mlx5_1", "p1-s1-rail1")


def test_roce_script_and_nccl_of_the_group(tmp_path: Path) -> None:
    res, plan = _plan(tmp_path, base_inventory())
    assert list(plan.groups) == ["p1-s1-h1"]
    g = plan.groups["p1-s1-h1"]
    assert g.hosts == ("p1-s1-gpu001", "p1-s1-gpu002", "p1-s1-gpu003", "p1-s1-gpu004")
    assert (g.roce.dscp_prio, g.roce.pfc_prios, g.roce.tos) == (((26, 3), (48, 6)), (3,), 106)
    script = roce_script(g)
    for port in ("nic0", "nic1"):
        assert f"dcb app replace dev {port} dscp-prio 26:3 48:6\n" in script
        assert f"dcb pfc set dev {port} prio-pfc all:off 3:on\n" in script
        assert f"maybe /sys/class/net/{port}/ecn/roce_np/enable/3 1\n" in script
        assert f"maybe /sys/class/net/{port}/ecn/roce_rp/enable/3 1\n" in script
        assert f"maybe /sys/class/net/{port}/ecn/roce_np/cnp_dscp 48\n" in script
        assert f"put /proc/sys/net/ipv4/conf/{port}/arp_ignore 1\n" in script
        assert f"put /proc/sys/net/ipv4/conf/{port}/rp_filter 2\n" in script
    for dev in ("mlx5_0", "mlx5_1"):
        assert f'put "$cm"/{dev}/ports/1/default_roce_tos 106\n' in script
    assert script.startswith("#!/bin/sh\n") and "\nset -eu\n" in script
    assert subprocess.run(["sh", "-n"], input=script, text=True).returncode == 0
    # pod with spines, ECMP per flow: no NCCL_CROSS_NIC, no adaptive routing
    assert nccl_conf(g).splitlines()[2:] == ["NCCL_IB_GID_INDEX=3", "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1",
                                             "NCCL_IB_TC=106"]
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    child = gpu_hosts(group_inputs(res.inventory, res.topology, res.plan))["children"]["gpu_p1_s1_h1"]  # type: ignore[index]
    assert list(child["hosts"]) == list(g.hosts)
    assert child["hosts"]["p1-s1-gpu002"] == {"rail_rules": ["from 172.16.0.3 lookup 101",
                                                             "from 172.16.1.3 lookup 102"]}
    assert child["vars"]["rail_ports"] == ["nic0", "nic1"] and child["vars"]["pfc_expected"] == "3:on"


def test_rail_only_pod_isolates_rails(tmp_path: Path) -> None:
    data = base_inventory()
    del data["pods"][0]["spines"]
    _, plan = _plan(tmp_path, data)
    iface = plan.hosts["p1-s1-gpu001"].interfaces[0]
    # no spine: rail 0's switch reaches only its own subnet, so the table holds that subnet on-link, and the rest
    # of the pool (rail 1's 172.16.1.0/24 among it) is unreachable: never the main table's route out of NIC 1
    assert [(r.to, r.via, r.unreachable) for r in iface.routes] == [("172.16.0.0/24", None, False),
                                                                     ("172.16.0.0/12", None, True)]
    assert ("NCCL_CROSS_NIC", "0") in plan.groups["p1-s1-h1"].nccl


def test_rail_only_multi_rail_switch_routes_between_its_own_rails(tmp_path: Path) -> None:
    data = base_inventory()
    del data["pods"][0]["spines"]
    data["pods"][0]["segments"][0].update(rail_design="multi-rail", rails_per_switch=2)
    _, plan = _plan(tmp_path, data)
    # one rail switch p1-s1-rail0-1 holds rail 0 (172.16.0.0/24) and rail 1 (172.16.1.0/24): its gateway leads to
    # both, merged into 172.16.0.0/23; the rest of the pool is unreachable, last
    (nic0, nic1) = plan.hosts["p1-s1-gpu001"].interfaces
    assert [(r.to, r.via, r.unreachable) for r in nic0.routes] == [("172.16.0.0/24", None, False),
                                                                    ("172.16.0.0/23", "172.16.0.1", False),
                                                                    ("172.16.0.0/12", None, True)]
    assert [(r.to, r.via, r.unreachable) for r in nic1.routes] == [("172.16.1.0/24", None, False),
                                                                    ("172.16.0.0/23", "172.16.1.1", False),
                                                                    ("172.16.0.0/12", None, True)]


def test_mlag_host_gets_one_bond_per_nic(tmp_path: Path) -> None:
    _, plan = _plan(tmp_path, mlag_inventory())
    host = plan.hosts["p1-s1-gpu001"]
    assert [i.name for i in host.interfaces] == ["bond0", "bond1"]
    b0 = host.interfaces[0]
    # NIC 0 of model h2d (2 ports): netdevs nic0p1, nic0p2; table 100 + 0·2 + 1; host 1 = gateway + 1
    assert (b0.members, b0.table, b0.address, b0.gateway, b0.rdma_device) == \
        (("nic0p1", "nic0p2"), 101, "172.16.0.2", "172.16.0.1", "mlx5_bond_0")
    assert host.interfaces[1].table == 103
    assert [sw for sw, _ in b0.uplinks] == ["p1-s1-rail0a", "p1-s1-rail0b"]
    net = netplan_data(host)["network"]
    assert net["bonds"]["bond0"]["interfaces"] == ["nic0p1", "nic0p2"]  # type: ignore[index]
    assert net["bonds"]["bond0"]["parameters"]["mode"] == "802.3ad"  # type: ignore[index]
    assert net["ethernets"]["nic0p1"] == {"mtu": 9000, "dhcp4": False, "dhcp6": False,  # type: ignore[index]
                                          "accept-ra": False, "optional": True}
    assert plan.groups["p1-s1-h1"].ports == ("nic0p1", "nic0p2", "nic1p1", "nic1p2")
    assert bond(3) == host_bond(3)


def test_shared_nic_model(tmp_path: Path) -> None:
    data = base_inventory()
    data["host_models"]["h8"] = {"gpus": 8, "nics": 2, "nic_speed": "400G", "gpu_to_nic": [0, 0, 0, 0, 1, 1, 1, 1],
                                 "netdevs": ["ens1np0", "ens2np0"], "rdma_devices": ["mlx5_2", "mlx5_7"]}
    data["pods"][0]["segments"][0]["host_groups"] = [{"model": "h8", "count": 2}]
    res, plan = _plan(tmp_path, data)
    assert "HOST001" not in codes(res) and "HOST002" not in codes(res)
    ifaces = plan.hosts["p1-s1-gpu001"].interfaces
    assert [(i.name, i.gpus, i.rdma_device) for i in ifaces] == [("ens1np0", (0, 1, 2, 3), "mlx5_2"),
                                                                  ("ens2np0", (4, 5, 6, 7), "mlx5_7")]
    assert dict(plan.groups["p1-s1-h1"].nccl)["NCCL_IB_HCA"] == "=mlx5_2:1,mlx5_7:1"


def test_host_rules(tmp_path: Path) -> None:
    data = base_inventory()
    data["host_models"]["h2"].update(netdevs=["a0"], rdma_devices=["m0", "m0"])
    got = codes(run_data(tmp_path, data))
    assert got.count("HOST001") == 1 and got.count("HOST002") == 0 and got.count("HOST003") == 1
    data = base_inventory()
    data["host_models"]["h2"].update(rdma_devices=["m0", "m1", "m2"])
    assert "HOST002" in codes(run_data(tmp_path / "b", data))
    data = mlag_inventory()
    data["host_models"]["h2d"]["netdevs"] = ["bond1", "x0", "x1", "x2"]
    assert "HOST004" in codes(run_data(tmp_path / "c", data))


def test_reserved_nic_names_refused_at_their_line(tmp_path: Path) -> None:
    """Issue 28: `lo` was accepted as a NIC name (netplan would have configured the loopback as a rail NIC)."""
    data = base_inventory()
    del data["host_models"]
    # hosts.yml line 7 is "      - lo", line 8 '      - "7"': each value starts after "      - " (8 characters), at
    # column 9
    hosts = ('host_models:\n  h2:\n    gpus: 2\n    nics: 2\n    nic_speed: 400G\n    netdevs:\n'
             '      - lo\n      - "7"\n')
    inv = write_files(tmp_path / "inv", {"fabric.yml": dump(data), "hosts.yml": hosts})
    found = [f for f in run(inv).findings if f.code == "HOST008"]
    assert [(f.location, f.message) for f in found] == [
        (Location(str(inv / "hosts.yml"), 7, 9),
         "host model h2: NIC port name 'lo' is reserved: the loopback interface every Linux network namespace has"),
        (Location(str(inv / "hosts.yml"), 8, 9),
         "host model h2: NIC port name '7' is reserved: a name of digits only reads as an interface index "
         "(systemd-networkd refuses it)"),
    ]
    assert all(f.hint.startswith("name the port as the server does") for f in found)
    assert [n for n in ("lo", "all", "default", "bonding_masters", "0", "42", "lo0", "eth0", "100g0", "nic1")
            if reserved_netdev(n)] == ["lo", "all", "default", "bonding_masters", "0", "42"]


def test_injection_in_nic_names_refused(tmp_path: Path) -> None:
    for i, bad in enumerate(["a;reboot", "$(id)", "a\nb", "../etc", "x" * 16, "-rf", "a b"]):
        data = base_inventory()
        data["host_models"]["h2"]["netdevs"] = [bad, "ok1"]
        res = run_data(tmp_path / str(i), data)
        assert any(c in ("SCH003", "SEC001") for c in codes(res)), (bad, codes(res))
        data = base_inventory()
        data["host_models"]["h2"]["rdma_devices"] = ["mlx5_0", bad if len(bad) < 16 else "-x"]
        assert any(c in ("SCH003", "SEC001") for c in codes(run_data(tmp_path / f"r{i}", data))), bad


def test_every_script_word_is_quoted(tmp_path: Path) -> None:
    # validated names are shell-safe already; the script still quotes them (defence in depth): shlex.split of
    # each dcb line gives back the name as one word
    _, plan = _plan(tmp_path, base_inventory())
    for line in roce_script(plan.groups["p1-s1-h1"]).splitlines():
        if line.startswith("dcb "):
            assert shlex.split(line)[4] in ("nic0", "nic1")


def test_fabric_show_host(capsys) -> None:
    from railfabric.cli import main
    from tests.helpers import EXAMPLE

    assert main(["show", "p1-s1-gpu001", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    # p1-s1 is single-rail: rail 0 = 172.16.0.0/24 (segment block 0), host 1 = gateway + 1; NIC 0 of the example's
    # DGX H100 names is enp24s0np0 / mlx5_0 (inventory/hardware.yml)
    assert "  rail 0   enp24s0np0 (NIC 0 port 1; rdma mlx5_0; gpus 0)\n" in out
    assert "address 172.16.0.2/24 gateway 172.16.0.1 vlan 100 mtu 9000 -> p1-s1-rail0 port 1/1\n" in out
    assert "rule from 172.16.0.2 lookup 101 (priority 101)" in out


def test_route_tables_of_example_hosts() -> None:
    """The shipped example (inventory/): pools.rail_subnets 172.16.0.0/12, segment blocks /21, 8 segments per pod, so
    segment (pod p, s) owns block (p-1)·8 + (s-1) = 172.16.0.0 + that · 2,048 addresses (railfabric/plan/allocate.py).

    p1-s2-gpu009: block 1 = 172.16.8.0/21; dual-rail, rail groups [0, 4], [1, 5], [2, 6], [3, 7]: switch g owns the
    g-th /24 of the block (2 × /25), its first /25 for rail g, the second for rail g + 4; gateway = first address,
    host 9 = gateway + 9. NIC n carries rail n (one-port NICs), table 100 + n + 1. Pod 1 has spines: each table is the
    NIC's /25 on-link and the whole pool through its gateway, nothing else (no route per segment or pod).
    p3-s1-gpu001: block (3-1)·8 = 16 = 172.16.128.0/21; single-rail, rail r = 172.16.(128 + r).0/24, host 1 = .2.
    Pod 3 is rail-only and its switches serve one rail each: the /24 on-link, then the pool unreachable."""
    from railfabric.pipeline import run
    from tests.helpers import EXAMPLE

    res = run(EXAMPLE)
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    plan = build_hosts(res.inventory, res.topology, res.plan)
    pool = "172.16.0.0/12"
    got = [(i.rail, i.address, i.table, [(r.to, r.via, r.unreachable) for r in i.routes])
           for i in plan.hosts["p1-s2-gpu009"].interfaces]
    want = []
    for rail in range(8):
        third, low = 8 + rail % 4, 128 * (rail // 4)  # 172.16.<third>.<low>/25
        gateway = f"172.16.{third}.{low + 1}"
        want.append((rail, f"172.16.{third}.{low + 10}", 101 + rail,
                     [(f"172.16.{third}.{low}/25", None, False), (pool, gateway, False)]))
    assert got == want
    assert want[4] == (4, "172.16.8.138", 105, [("172.16.8.128/25", None, False), (pool, "172.16.8.129", False)])
    got = [(i.rail, i.address, i.table, [(r.to, r.via, r.unreachable) for r in i.routes])
           for i in plan.hosts["p3-s1-gpu001"].interfaces]
    assert got == [(r, f"172.16.{128 + r}.2", 101 + r, [(f"172.16.{128 + r}.0/24", None, False), (pool, None, True)])
                   for r in range(8)]
