"""The InfiniBand lab (railfabric/infiniband/lab.py): the planned subnet in ibsim, the real OpenSM 3.3.23 with the
rendered files, checked against the plan; both faults caught; nothing left behind. Needs ibsim-utils, opensm and
infiniband-diags (no root, no InfiniBand hardware): skips, naming them, when they are missing.

The fabric (as tests/test_ib_files.py): rail_fat_tree(hosts=2, rails=4, spines=2, ports=8) with two tenant
partitions, a limited storage partition and two QoS classes.
  6 switches (2 spines + 4 leaves), 8 HCAs (2 hosts x 4 rails), 16 cables (8 HCA cables + 4 leaves x 2 spines).
  HCA pairs: 8 x 7 = 56 ordered pairs. Each leaf: 2 local HCAs, 6 remote, 2 uplinks (port 3 to spine1, port 4 to
  spine2): ftree spreads the 6 remote destinations 3 and 3.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

import railfabric.infiniband.lab as lab
from railfabric.infiniband.build import TWO_CLASS_QOS, rail_fat_tree, two_tenants
from railfabric.infiniband.sim import missing

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")

SPREAD = "; ".join(f"leaf-rail{r}: spine1 3, spine2 3 (3-3 per uplink port)" for r in range(4))


@pytest.fixture(scope="module")
def fab():
    f = rail_fat_tree("lab", hosts=2, rails=4, spines=2, ports=8, qos=TWO_CLASS_QOS)
    return replace(f, partitions=two_tenants(f))


def _ours() -> set[str]:
    """Scratch directories and processes of the lab: what must be gone after a run."""
    left = {p.name for p in Path(tempfile.gettempdir()).glob("railfabric-ib-*")}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if "railfabric-ib-" in os.readlink(f"/proc/{pid}/cwd"):
                left.add(f"process {pid}")
        except OSError:
            continue
    return left


@pytest.fixture
def clean():
    before = _ours()
    yield
    assert _ours() - before == set()


def test_the_planned_subnet_comes_up_as_planned(fab, clean) -> None:
    res = lab.run_ib_lab(fab)
    assert {c.name: (c.ok, c.detail) for c in res.checks} == {
        "topology": (True, "6 switches, 8 HCAs and 16 cables discovered as planned"),
        "subnet-up": (True, "SUBNET UP"),
        "routing-engine": (True, "ftree configured the tables (planned ftree)"),
        "sm-election": (True, "spine1 master (priority 15), spine2 standby (priority 14)"),
        "routable": (True, "56 of 56 HCA pairs routed"),
        "up-down": (True, "56 of 56 paths go up then down"),
        "rail-local": (True, "HCA pairs on one leaf stay on it"),
        "spread": (True, SPREAD),
        "pkeys": (True, "8 of 8 HCA PKey tables as planned"),
        "sl2vl": (True, "8 of 8 HCA SL-to-VL tables as planned"),
        # TWO_CLASS_QOS: storage (0x0b01) paths on SL 1, every other path SL 0
        "path-sl": (True, "Default SL 0, tenant-a SL 0, tenant-b SL 0, storage SL 1"),
        # spine1's OpenSM killed: spine2 (the only standby) polls it twice in 1 s (LAB_POLLING), takes over,
        # sweeps, and all 56 pairs are still routed from its tables
        "sm-takeover": (True, "spine1 killed: spine2 (priority 14) took over, SUBNET UP, 56 of 56 HCA pairs routed"),
    }
    assert res.ok
    # the files OpenSM ran with: 2 roots (the spines), 8 compute nodes, 3 partitions besides Default
    assert res.files["root-guids.conf"].count("\n") == 1 + 2
    # the lab's own copies poll the master faster; the rendered file (opensm_conf) keeps OpenSM's defaults
    assert res.files["opensm.conf"].endswith("sminfo_polling_timeout 1000\npolling_retry_number 2\n")
    assert "polling" not in lab.opensm_conf(fab, fab.master)
    assert res.files["cn-guids.conf"].count("\n") == 1 + 8
    assert [line.split("=")[0] for line in res.files["partitions.conf"].splitlines()
            if line and line[0] not in "#\t"] == ["Default", "tenant-a", "tenant-b", "storage"]


def test_miswire_is_caught_and_both_cables_named(fab, clean) -> None:
    # the fault crosses the first two leaf-HCA cables on different leaves: leaf-rail0[1] - dgx01 mlx5_0[1] and
    # leaf-rail1[1] - dgx01 mlx5_1[1]; discovery then finds mlx5_0 on leaf-rail1 port 1 and mlx5_1 on leaf-rail0
    # port 1. ibsim numbers HCAs in file order (mlx5_0 first), so the unplanned links come in that order.
    res = lab.run_ib_lab(fab, fault="miswire")
    assert not res.ok
    assert [c.name for c in res.checks] == ["topology"]  # the GUIDs cannot be bound: OpenSM is not started
    assert res.checks[0].detail == "; ".join([
        "cable leaf-rail0[1] - dgx01 mlx5_0[1] is missing: leaf-rail0[1] goes to dgx01 mlx5_1[1], "
        "dgx01 mlx5_0[1] goes to leaf-rail1[1]",
        "cable leaf-rail1[1] - dgx01 mlx5_1[1] is missing: leaf-rail1[1] goes to dgx01 mlx5_0[1], "
        "dgx01 mlx5_1[1] goes to leaf-rail0[1]",
        "cable dgx01 mlx5_0[1] - leaf-rail1[1] is discovered but not planned",
        "cable dgx01 mlx5_1[1] - leaf-rail0[1] is discovered but not planned",
    ])


def test_a_wrong_root_set_is_caught(fab, clean) -> None:
    # the root GUID file names the 4 leaves: ftree cannot rank the tree from them and OpenSM falls back to its
    # default engine, minhop (doc/current-routing.txt: ftree needs the roots at rank 0, all compute nodes at one rank)
    res = lab.run_ib_lab(fab, fault="sm")
    assert not res.ok
    assert res.check("routing-engine") == lab.Check("routing-engine", False,
                                                    "minhop configured the tables (planned ftree)")
    assert res.files["root-guids.conf"].count("\n") == 1 + 4


def test_a_wrong_pkey_table_would_be_seen(fab, clean, monkeypatch) -> None:
    # the check compares against the plan: with a plan that also makes dgx02 mlx5_0 a full member of 0x0b01, the
    # port (a limited member, 0x0b01, as rendered; full in tenant-b 0x8a02 and Default 0xffff) differs and is named
    real = lab.expected_pkeys

    def planned(f):
        out = dict(real(f))
        out["dgx02 mlx5_0"] = out["dgx02 mlx5_0"] - {0x0B01} | {0x8B01}
        return out

    monkeypatch.setattr(lab, "expected_pkeys", planned)
    check = lab.run_ib_lab(fab).check("pkeys")
    assert check == lab.Check("pkeys", False, "7 of 8 HCA PKey tables as planned; dgx02 mlx5_0: 0x0b01 0x8a02 "
                                              "0xffff (planned 0x8a02 0x8b01 0xffff)")


def test_a_missing_qos_policy_is_caught(fab, clean, monkeypatch) -> None:
    # without the policy file OpenSM gives every path SL 0: the storage pair asked (its first full member,
    # dgx01 mlx5_0, to the next member, dgx01 mlx5_1) gets SL 0, planned 1
    monkeypatch.setattr(lab, "qos_policy", lambda f: None)
    assert lab.run_ib_lab(fab).check("path-sl") == lab.Check(
        "path-sl", False, "Default SL 0, tenant-a SL 0, tenant-b SL 0, storage SL 0; storage (dgx01 mlx5_0 -> "
                          "dgx01 mlx5_1): SL 0 (planned 1)")


def test_a_wrong_priority_is_caught(fab, clean, monkeypatch) -> None:
    # the master's file says priority 0 instead of 15 (the plan says 15): spine2 (14) still comes up standby (it
    # finds a master), but sminfo shows the master's real priority. ibsim's spine1 node GUID: 0x200000 (the first
    # switch in the net file; ibsim numbers switches from 0x200000).
    real = lab.opensm_conf
    monkeypatch.setattr(lab, "opensm_conf",
                        lambda f, sm: real(f, sm).replace("sm_priority 15", "sm_priority 0"))
    assert lab.run_ib_lab(fab).check("sm-election") == lab.Check(
        "sm-election", False, "spine1 master (priority 15), spine2 standby (priority 14); sminfo reports 0x200000 "
                              "priority 0 SMINFO_MASTER (planned spine1 0x200000 priority 15)")


def test_a_standby_that_does_not_take_over_is_caught(fab, clean, monkeypatch) -> None:
    # with OpenSM's default polling (4 polls of 10 s: 40 s) the standby is still standby when the lab stops
    # waiting (timeout 12 s; every other step of this 8-HCA fabric takes well under a second)
    monkeypatch.setattr(lab, "LAB_POLLING", "")
    res = lab.run_ib_lab(fab, timeout=12)
    assert res.check("sm-takeover") == lab.Check(
        "sm-takeover", False, "spine1 killed: spine2 did not enter MASTER state within 12 s")


def test_a_failure_midway_still_tears_down(fab, clean, monkeypatch) -> None:
    def boom(_text: str):
        raise RuntimeError("boom")

    monkeypatch.setattr(lab, "bind_discovered", lambda fab, path: boom(path.read_text()))
    with pytest.raises(RuntimeError, match="boom"):
        lab.run_ib_lab(fab)


def test_kept_files(fab, tmp_path: Path) -> None:
    res = lab.run_ib_lab(fab, keep=tmp_path / "kept")
    assert res.ok
    kept = sorted(p.name for p in (tmp_path / "kept").iterdir())
    for name in ("fabric.net", "opensm.conf", "opensm-spine2.conf", "root-guids.conf", "cn-guids.conf",
                 "partitions.conf", "qos-policy.conf", "ibsim.log", "sm-spine1", "sm-spine2"):
        assert name in kept
    assert "SUBNET UP" in (tmp_path / "kept" / "sm-spine1" / "opensm.log").read_text()
    assert "Entering STANDBY state" in (tmp_path / "kept" / "sm-spine2" / "opensm.log").read_text()
    assert (tmp_path / "kept" / "opensm.conf").read_text() == res.files["opensm.conf"]


def test_miswire_needs_two_leaves(clean) -> None:
    # one rail = one leaf: there is no second leaf to cross a cable to
    one = rail_fat_tree("one", hosts=2, rails=1, spines=1, ports=8)
    assert lab.run_ib_lab(one, fault="miswire").checks == [
        lab.Check("plan", False, "the miswire fault needs leaf-HCA cables (leaf first) on two leaves")]


def test_missing_tools_are_named(fab, monkeypatch) -> None:
    monkeypatch.setattr(lab, "missing", lambda: "the InfiniBand lab needs ibsim: apt-get install ibsim-utils")
    assert lab.run_ib_lab(fab).checks == [
        lab.Check("tools", False, "the InfiniBand lab needs ibsim: apt-get install ibsim-utils")]


def test_nvidia_only_engine_is_refused(fab, clean) -> None:
    res = lab.run_ib_lab(replace(fab, routing_engine="ar_ftree"))
    assert res.checks == [lab.Check("plan", False, "routing engine ar_ftree is NVIDIA's SM only: the lab runs "
                                                   "upstream OpenSM")]


def test_one_scalable_unit(clean) -> None:
    # One DGX SuperPOD scalable unit's shape: 32 hosts x 8 rails = 256 HCAs on 8 QM9700 leaves (64 ports: 32 down,
    # 32 up), 4 spines with 8 links from each leaf (spine ports: 8 leaves x 8 = 64).
    #   switches 8 + 4 = 12; cables 256 + 8 x 32 = 512; ordered HCA pairs 256 x 255 = 65280;
    #   each leaf: 256 - 32 = 224 remote HCAs over 32 uplink ports = 7 per port, 8 x 7 = 56 per spine.
    su = rail_fat_tree("su", hosts=32, rails=8, spines=4, links=8, qos=TWO_CLASS_QOS)
    su = replace(su, partitions=two_tenants(su))
    res = lab.run_ib_lab(su)
    got = {c.name: c.detail for c in res.checks}
    assert res.ok, lab.format_result(res)
    assert got["topology"] == "12 switches, 256 HCAs and 512 cables discovered as planned"
    assert got["routable"] == "65280 of 65280 HCA pairs routed"
    assert got["spread"] == "; ".join(f"leaf-rail{r}: spine1 56, spine2 56, spine3 56, spine4 56 (7-7 per uplink "
                                      "port)" for r in range(8))
    assert got["pkeys"] == "256 of 256 HCA PKey tables as planned"
