"""The `infiniband` fabric kind of the inventory: the `infiniband:` section, the Ethernet-only keys it refuses, and
`ib_fabric(inventory, topology)` (railfabric/infiniband/from_inventory.py). Expected values are derived by hand
from the inventories below (the shipped example examples/infiniband/inventory and small ones written here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from railfabric.infiniband.from_inventory import ib_fabric
from railfabric.infiniband.model import Cable, End, Membership, SubnetManager, Tier, problems
from railfabric.inventory.intent import Inventory
from railfabric.inventory.load import load_inventory
from railfabric.inventory.schema_check import validate
from railfabric.topology import Topology, expand
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
    assert {s.model for s in fab.switches} == {"qm9700"}
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
    assert (fab.qos.default_sl, fab.qos.sl2vl[:2], fab.qos.max_vls, fab.qos.partition_sl) == (0, (0, 1), 2, ())
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
