"""The `infiniband` fabric kind of the inventory: the `infiniband:` section, the Ethernet-only keys it refuses, and
`ib_fabric(inventory, topology)` (railfabric/topology/infiniband.py). Expected values are derived by hand
from the inventories below (the shipped example examples/infiniband/inventory and small ones written here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from railfabric.infiniband.model import Cable, End, Membership, SubnetManager, Tier, problems
from railfabric.inventory.intent import Inventory
from railfabric.inventory.load import load_inventory
from railfabric.inventory.schema_check import validate
from railfabric.topology import Topology, expand
from railfabric.topology.infiniband import ib_fabric
from tests.helpers import dump, write_files

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "infiniband" / "inventory"
DGX_H100_RDMA = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]


def _expanded(path: Path) -> tuple[Inventory, Topology]:
    loaded = load_inventory(path)
    assert not loaded.findings
    inv, errors = validate(loaded.data)
    assert inv is not None, errors
    return inv, expand(inv)


def small(**ib: Any) -> dict[str, Any]:
    """2 hosts × 2 HCAs (no rdma_devices: mlx5_0, mlx5_1), 2 leaves, 2 spines, 1 link each."""
    section: dict[str, Any] = {"subnet_managers": [{"node": "spine1", "priority": 15},
                                                   {"host": "h02", "hca": 1, "priority": 3}]}
    section.update(ib)
    return {
        "fabric": {"name": "tiny", "kind": "infiniband"},
        "infiniband": section,
        "switch_models": {"qm": {"ports": 8, "speed": "400G", "latency_ns": 300}},
        "host_models": {"box": {"gpus": 2, "nics": 2, "nic_speed": "400G"}},
        "pods": [{"id": 1, "spines": {"count": 2, "model": "qm", "name": "spine{index}", "link_speed": "400G"},
                  "segments": [{"id": 1, "rail_design": "single-rail", "rails": 2, "rail_switch_model": "qm",
                                "rail_switch_name": "leaf{rails}",
                                "host_groups": [{"model": "box", "count": 2, "name": "h{host:02d}"}]}]}],
    }


def _small(tmp_path: Path, data: dict[str, Any]) -> tuple[Inventory, Topology]:
    return _expanded(write_files(tmp_path / "inv", {"fabric.yml": dump(data)}))


def test_the_example_subnet_as_planned() -> None:
    inv, topo = _expanded(EXAMPLE)
    fab = ib_fabric(inv, topo)
    assert problems(fab) == []
    # 4 spines then 8 leaves (topology order), QM9700 = 64 ports
    assert [(s.name, s.tier, s.ports) for s in fab.switches] == (
        [(f"su1-spine{i}", Tier.SPINE, 64) for i in range(1, 5)] + [(f"su1-leaf{r}", Tier.LEAF, 64) for r in range(8)])
    assert {s.model for s in fab.switches} == {"QM9700"}
    # 32 hosts × 8 HCAs = 256, each host's in rail order with the DGX H100 device names (hardware.yml)
    assert len(fab.hcas) == 256
    assert [(h.name, h.rail) for h in fab.hcas[:8]] == [(f"dgx01 {d}", r) for r, d in enumerate(DGX_H100_RDMA)]
    assert fab.hcas[-1].name == "dgx32 mlx5_11"
    # 256 host cables + 8 leaves × 32 uplinks = 512
    assert len(fab.cables) == 512
    cables = set(fab.cables)
    # leaf r port h (h = 1..32: the topology's host ports) to host h's HCA r: leaf5 port 17 → dgx17 mlx5_9 (rail 5)
    assert Cable(End("su1-leaf5", 17), End("dgx17 mlx5_9", 1)) in cables
    assert Cable(End("su1-leaf0", 1), End("dgx01 mlx5_0", 1)) in cables
    # uplinks: leaf r port 33 + 8·s + k to spine s+1 port 8·r + k + 1 (k = 0..7): leaf3, s = 2, k = 5 → leaf port
    # 33 + 16 + 5 = 54, spine3 port 24 + 5 + 1 = 30
    assert Cable(End("su1-leaf3", 54), End("su1-spine3", 30)) in cables
    assert Cable(End("su1-leaf7", 64), End("su1-spine4", 64)) in cables
    assert fab.sms == (SubnetManager("su1-spine1", 15), SubnetManager("su1-spine2", 14))
    assert (fab.routing_engine, fab.lmc, fab.subnet_prefix) == ("ftree", 0, 0xFE80000000000000)
    assert fab.default_membership is Membership.LIMITED
    a, b = fab.partitions
    # tenant-a = dgx[01-16] → 16 × 8 = 128 HCAs, full; tenant-b = dgx[17-32]
    assert (a.name, a.pkey, len(a.members)) == ("tenant-a", 0x0A01, 128)
    assert (b.name, b.pkey, len(b.members)) == ("tenant-b", 0x0A02, 128)
    assert a.members[0].node == "dgx01 mlx5_0" and a.members[-1].node == "dgx16 mlx5_11"
    assert b.members[0].node == "dgx17 mlx5_0"
    assert {m.membership for m in a.members + b.members} == {Membership.FULL}
    assert fab.qos is not None
    # both tenants say service_level: compute → the compute SL 0 on their PKeys' path records
    assert (fab.qos.default_sl, fab.qos.sl2vl[:2], fab.qos.max_vls, fab.qos.partition_sl) == (
        0, (0, 1), 2, ((0x0A01, 0), (0x0A02, 0)))
    assert [s.name for s in fab.roots] == ["su1-spine1", "su1-spine2", "su1-spine3", "su1-spine4"]


def test_an_sm_on_a_host_hca_service_levels_and_host_lists(tmp_path: Path) -> None:
    data = small(routing_engine="updn", lmc=2, subnet_prefix="0xfe800000000000aa",
                 partitions=[{"name": "jobs", "pkey": "0x0101", "hosts": ["h01,h02"], "service_level": "storage"},
                             {"name": "one", "pkey": 0x0102, "hosts": ["h[02-02]"], "membership": "limited",
                              "ipoib": True, "service_level": 7}],
                 qos={"service_levels": {"compute": 2, "storage": 5}, "sl2vl": [0] * 16, "max_vls": 1,
                      "vlarb_high": [[0, 1]], "vlarb_low": [[0, 1]]})
    inv, topo = _small(tmp_path, data)
    fab = ib_fabric(inv, topo)
    # no rdma_devices: mlx5_<index>; host h02's HCA 1 = "h02 mlx5_1"
    assert [h.name for h in fab.hcas] == ["h01 mlx5_0", "h01 mlx5_1", "h02 mlx5_0", "h02 mlx5_1"]
    assert fab.sms == (SubnetManager("spine1", 15), SubnetManager("h02 mlx5_1", 3))
    assert (fab.routing_engine, fab.lmc, fab.subnet_prefix) == ("updn", 2, 0xFE800000000000AA)
    jobs, one = fab.partitions
    assert [m.node for m in jobs.members] == ["h01 mlx5_0", "h01 mlx5_1", "h02 mlx5_0", "h02 mlx5_1"]
    assert [(m.node, m.membership) for m in one.members] == [("h02 mlx5_0", Membership.LIMITED),
                                                             ("h02 mlx5_1", Membership.LIMITED)]
    assert one.ipoib and not jobs.ipoib
    assert fab.qos is not None
    # compute SL 2 is the default; jobs says storage → 5, one says 7
    assert (fab.qos.default_sl, fab.qos.partition_sl) == (2, ((0x0101, 5), (0x0102, 7)))
    # leaves: 8 ports, hosts on 1-2, uplinks from the top half (5-8) : leaf0 port 5 → spine1 port 1,
    # leaf1 port 6 → spine2 port 2 (spine s port r + 1)
    assert Cable(End("leaf0", 5), End("spine1", 1)) in fab.cables
    assert Cable(End("leaf1", 6), End("spine2", 2)) in fab.cables
    assert Cable(End("leaf1", 2), End("h02 mlx5_1", 1)) in fab.cables
    assert problems(fab) == []  # updn takes LMC 2; 4 HCAs + 4 switches << 2 = 32 LIDs


def test_ib_fabric_needs_the_section(tmp_path: Path) -> None:
    inv, topo = _expanded(EXAMPLE)
    with pytest.raises(ValueError, match=r"fabric\.kind: infiniband"):
        ib_fabric(inv.model_copy(update={"infiniband": None}), topo)


# --------------------------------------------------------------------------- the kind, refusals and rules

def _run(tmp_path: Path, data: dict[str, Any]) -> Any:
    from railfabric.pipeline import run

    return run(write_files(tmp_path / "inv", {"fabric.yml": dump(data)}))


def _lines(text: str) -> dict[str, int]:
    """key → line number (1-based) of each `key:` at the start of a line or after indentation, first wins."""
    out: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        key = line.strip().lstrip("- ").split(":")[0]
        out.setdefault(key, n)
    return out


def test_the_small_inventory_is_clean(tmp_path: Path) -> None:
    res = _run(tmp_path, small())
    assert [f.code for f in res.findings] == []
    assert res.plan is None  # nothing allocated on InfiniBand
    assert res.report is not None
    # 4 HCAs + 4 switches, LMC 0 → 8 LIDs; two tiers → leaf, spine, leaf = 3 switch hops
    ib = res.report["infiniband"]
    assert (ib["hcas"], ib["switches"], ib["cables"], ib["lids_needed"], ib["max_switch_hops"]) == (4, 4, 8, 8, 3)
    # the Ethernet routing is not in an InfiniBand report: no ECMP width, BFD detection or summarization
    assert "ecmp_width" not in res.report["capacity"]
    assert "detection" not in res.report["failures"] and "summarization" not in res.report["failures"]


# each Ethernet-only key, where it is written, and its own code
REFUSED = [
    ("IB001", {"routing": {"bfd": True}}, ("routing",)),
    ("IB002", {"qos": {"roce": {"dscp": 26, "priority": 3}}}, ("qos",)),
    ("IB003", {"pools": {"loopbacks": "10.0.0.0/24"}}, ("pools",)),
    ("IB004", {"system": {"banner": "x"}}, ("system",)),
    ("IB005", {"raw": []}, ("raw",)),
    ("IB006", {"limits": {"pods": 2}}, ("limits",)),
    ("IB007", {"fabric": {"name": "tiny", "kind": "infiniband", "platform": "sonic"}}, ("fabric", "platform")),
    ("IB008", {"fabric": {"name": "tiny", "kind": "infiniband", "host_mtu": 4200}}, ("fabric", "host_mtu")),
    ("IB009", {"fabric": {"name": "tiny", "kind": "infiniband", "rail_vlan_base": 200}}, ("fabric", "rail_vlan_base")),
    ("IB013", {"devices": {"leaf0": {"loopback": "10.0.0.1"}}}, ("devices", "leaf0", "loopback")),
]


@pytest.mark.parametrize(("code", "extra", "path"), REFUSED, ids=[r[0] + "-" + r[2][-1] for r in REFUSED])
def test_an_ethernet_only_key_is_refused_at_its_key(tmp_path: Path, code: str, extra: dict[str, Any],
                                                     path: tuple[str, ...]) -> None:
    data = {**small(), **extra}
    res = _run(tmp_path, data)
    found = [f for f in res.findings if f.code.startswith("IB")]
    assert [f.code for f in found] == [code]
    f = found[0]
    assert f.message.startswith(f"{'.'.join(path)} is Ethernet-only (")
    assert "remove it" in f.hint
    assert f.location is not None and f.location.file.endswith("fabric.yml")
    text = (tmp_path / "inv" / "fabric.yml").read_text()
    # the finding points at the key's own line: the last key of the path, searched after its parent's line
    lines = text.splitlines()
    start = _lines(text)[path[0]]
    line = next(n for n, ln in enumerate(lines[start - 1:], start) if ln.strip().startswith(f"{path[-1]}:"))
    assert f.location.line == line
    assert res.stage_reached != "done" or any(x.severity.value == "error" for x in res.findings)


def test_segment_spine_and_device_keys_are_refused(tmp_path: Path) -> None:
    data = small()
    seg = data["pods"][0]["segments"][0]
    seg.update({"rail_prefix_len": 24, "dual_homing": "mlag", "vlan_base": 300, "platform": "eos"})
    data["pods"][0]["spines"].update({"port_channel_members": 2, "platform": "sonic"})
    data["devices"] = {"spine1": {"asn": 65001, "router_id": "10.0.0.9", "management": "192.168.0.9",
                                  "release": "5.12", "rack": "R1"}}
    res = _run(tmp_path, data)
    got = sorted((f.code, f.message.split(" is Ethernet-only")[0]) for f in res.findings if f.code.startswith("IB"))
    assert got == [
        ("IB009", "pods[0].segments[0].vlan_base"),
        ("IB010", "pods[0].segments[0].rail_prefix_len"),
        ("IB011", "pods[0].segments[0].dual_homing"),
        ("IB012", "pods[0].spines.port_channel_members"),
        ("IB013", "devices.spine1.asn"),
        ("IB013", "devices.spine1.management"),
        ("IB013", "devices.spine1.router_id"),
        ("IB014", "devices.spine1.release"),
        ("IB014", "pods[0].segments[0].platform"),
        ("IB014", "pods[0].spines.platform"),
    ]
    assert "SCH" not in " ".join(f.code for f in res.findings)  # the keys were taken out before the schema


def test_an_infiniband_section_on_ethernet_and_an_infiniband_fabric_without_one(tmp_path: Path) -> None:
    data = small()
    data["fabric"]["kind"] = "ethernet"
    res = _run(tmp_path / "a", data)
    assert "IB015" in [f.code for f in res.findings]
    data = small()
    del data["infiniband"]
    res = _run(tmp_path / "b", data)
    assert [f.code for f in res.findings] == ["IB016"]


def test_an_ethernet_inventory_still_needs_pools(tmp_path: Path) -> None:
    data = small()
    data["fabric"] = {"name": "tiny"}
    del data["infiniband"]
    res = _run(tmp_path, data)
    # as before the infiniband kind: the missing key at the top of the file (SCH002)
    assert [(f.code, f.message, f.location.line if f.location else 0) for f in res.findings] == [
        ("SCH002", "<top> is missing required key 'pools'", 1)]


def _ib_codes(tmp_path: Path, data: dict[str, Any]) -> list[tuple[str, str]]:
    res = _run(tmp_path, data)
    return [(f.code, f.severity.value) for f in res.findings]


def test_subnet_manager_rules(tmp_path: Path) -> None:
    one = small(subnet_managers=[{"node": "spine1", "priority": 15}])
    assert _ib_codes(tmp_path / "one", one) == [("IB020", "warning")]
    same = small(subnet_managers=[{"node": "spine1", "priority": 9}, {"node": "spine2", "priority": 9}])
    assert _ib_codes(tmp_path / "same", same) == [("IB022", "error")]
    nowhere = small(subnet_managers=[{"node": "spine9", "priority": 15}, {"host": "h07", "hca": 0, "priority": 1}])
    assert _ib_codes(tmp_path / "nowhere", nowhere) == [("IB021", "error"), ("IB021", "error")]


def test_partition_rules(tmp_path: Path) -> None:
    dup = small(partitions=[{"name": "a", "pkey": "0x0101", "hosts": ["h01"]},
                            {"name": "b", "pkey": "0x0101", "hosts": ["h02"]}])
    assert _ib_codes(tmp_path / "dup", dup) == [("IB023", "error")]
    unknown = small(partitions=[{"name": "a", "pkey": "0x0101", "hosts": ["h[01-03]"]}])
    res = _run(tmp_path / "unknown", unknown)
    assert [(f.code, f.message) for f in res.findings] == [
        ("IB024", "partition a names 1 host(s) the fabric does not have: 'h03'")]
    bad = small(partitions=[{"name": "a", "pkey": "0x0101", "hosts": ["h[01-"]}])
    assert _ib_codes(tmp_path / "bad", bad) == [("IB024", "error")]


def test_lmc_rules(tmp_path: Path) -> None:
    assert _ib_codes(tmp_path / "ftree", small(lmc=1)) == [("IB025", "error")]
    assert _ib_codes(tmp_path / "updn", small(lmc=1, routing_engine="updn")) == []
    # the LID space: 100 hosts × 4 HCAs + 4 leaves + 2 spines = 406 end ports; 406 << 7 = 51,968 > 0xbfff = 49,151
    # (with LMC 6: 25,984, fits); 250-port leaves (at most 255 on InfiniBand) take the 100 hosts
    data = small(lmc=7, routing_engine="updn")
    data["switch_models"]["qm"]["ports"] = 250
    data["host_models"]["box"].update({"gpus": 4, "nics": 4})
    data["pods"][0]["segments"][0]["rails"] = 4
    data["pods"][0]["segments"][0]["host_groups"][0]["count"] = 100
    res = _run(tmp_path / "lids", data)
    assert [(f.code, f.message) for f in res.findings if f.code.startswith("IB")] == [
        ("IB026", "406 end ports with LMC 7 need 51968 LIDs, more than 49151")]
    assert res.report is not None and res.report["infiniband"]["lids_needed"] == 51968


def test_a_rail_only_pod_is_islands_and_nvidia_engines_warn(tmp_path: Path) -> None:
    data = small(routing_engine="ar_ftree", subnet_managers=[{"host": "h01", "hca": 0, "priority": 15},
                                                             {"host": "h01", "hca": 1, "priority": 14}])
    del data["pods"][0]["spines"]
    res = _run(tmp_path, data)
    got = sorted((f.code, f.severity.value) for f in res.findings if f.code.startswith("IB"))
    # and leaves alone are a tree of rank 1: ftree's minimum is 2 (IB032)
    assert got == [("IB027", "error"), ("IB029", "warning"), ("IB032", "error")]
    # 2 leaves with no spine: HCA 0 of both hosts on leaf0, HCA 1 on leaf1 → 2 islands of 2
    assert next(f for f in res.findings if f.code == "IB027").message.startswith(
        "the subnet falls apart into 2 islands of HCAs (2 HCAs in the largest)")


def test_qos_beyond_the_data_vls(tmp_path: Path) -> None:
    data = small(qos={"max_vls": 1})  # the default sl2vl maps SL 1 to VL 1: beyond 1 data VL
    res = _run(tmp_path, data)
    # the VL arbitration tables may name VL 1 (VL 0-14 is what the table takes); only the SL-to-VL map is wrong
    assert [(f.code, f.message) for f in res.findings] == [("IB030", "QoS: SL 1 maps to VL 1, beyond the 1 data VLs")]


def test_ports_per_switch_are_the_topology_rule_once_per_switch(tmp_path: Path) -> None:
    # qm has 8 ports: hosts on 1-4, uplinks 5-8 (the top half); 5 hosts need a fifth host port on each leaf
    data = small()
    data["pods"][0]["segments"][0]["host_groups"][0]["count"] = 5
    res = _run(tmp_path, data)
    ports = [f.message for f in res.findings if f.code in ("PORT001", "IB028")]
    assert ports == [f"rail switch leaf{r}: 1 link(s) do not fit its host ports: model 'qm' has 4 (ports 1-4; 5-8 are "
                     "uplinks) and 5 are needed (1 more port(s) needed)" for r in range(2)]


def test_ftree_rank_and_switch_radix(tmp_path: Path) -> None:
    # one rail, no spines: a single leaf, rank 1 (one switch tier): ftree's minimum is 2; minhop is fine
    data = small(subnet_managers=[{"node": "leaf0", "priority": 15}, {"host": "h01", "hca": 0, "priority": 1}])
    del data["pods"][0]["spines"]
    data["pods"][0]["segments"][0]["rails"] = 1
    data["host_models"]["box"]["nics"] = 1
    data["host_models"]["box"]["gpus"] = 1
    res = _run(tmp_path / "rank", data)
    assert [(f.code, f.message) for f in res.findings if f.code.startswith("IB")] == [
        ("IB032", "ftree needs a fat tree of rank 2 to 8; this fabric has 1 switch tier(s)")]
    data["infiniband"]["routing_engine"] = "minhop"
    assert [f.code for f in _run(tmp_path / "minhop", data).findings if f.code.startswith("IB")] == []
    # 256 ports: one more than OpenSM's 255
    wide = small()
    wide["switch_models"]["qm"]["ports"] = 256
    res = _run(tmp_path / "wide", wide)
    assert [(f.code, f.message) for f in res.findings if f.code.startswith("IB")] == [
        ("IB033", "switch model 'qm' has 256 ports: an InfiniBand switch has at most 255")]
