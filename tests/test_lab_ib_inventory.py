"""`fabric lab` on an InfiniBand inventory: the shipped example (examples/infiniband/inventory, one DGX SuperPOD
scalable unit) through the IB lab (railfabric/cli/ib.py ib_lab -> railfabric/infiniband/lab.py), as planned and
with both faults. Needs ibsim-utils, opensm and infiniband-diags (no root): skips without them.

The example, from its YAML by hand: 32 DGX H100 x 8 HCAs = 256 HCAs on 8 QM9700 rail leaves (su1-leaf0..7), 4
spines (su1-spine1..4) with 8 links from every leaf: switches 8 + 4 = 12; cables 256 + 8 x 32 = 512; ordered HCA
pairs 256 x 255 = 65280. Each leaf: 256 - 32 = 224 remote HCAs over 32 uplink ports = 7 per port, 8 ports per
spine = 56 per spine. SMs: su1-spine1 priority 15 (master), su1-spine2 14 (standby). Default partition limited for
every HCA (no full member: no path record to ask); tenant-a (dgx01-16) and tenant-b (dgx17-32) full, no service
level of their own: the compute SL, 0. Host dgx01's HCAs in rail order: mlx5_0, mlx5_3, ... (rdma_devices).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.infiniband.sim import missing
from tests.helpers import ROOT

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")

IB_EXAMPLE = ROOT / "examples" / "infiniband" / "inventory"
SPREAD = "; ".join(f"su1-leaf{r}: " + ", ".join(f"su1-spine{s} 56" for s in range(1, 5)) + " (7-7 per uplink port)"
                   for r in range(8))
PLANNED = {
    "topology": "ok   topology: 12 switches, 256 HCAs and 512 cables discovered as planned",
    "subnet-up": "ok   subnet-up: SUBNET UP",
    "routing-engine": "ok   routing-engine: ftree configured the tables (planned ftree)",
    "sm-election": "ok   sm-election: su1-spine1 master (priority 15), su1-spine2 standby (priority 14)",
    "routable": "ok   routable: 65280 of 65280 HCA pairs routed",
    "up-down": "ok   up-down: 65280 of 65280 paths go up then down",
    "rail-local": "ok   rail-local: HCA pairs on one leaf stay on it",
    "spread": f"ok   spread: {SPREAD}",
    "pkeys": "ok   pkeys: 256 of 256 HCA PKey tables as planned",
    "sl2vl": "ok   sl2vl: 256 of 256 HCA SL-to-VL tables as planned",
    "path-sl": "ok   path-sl: Default: no pair to ask, tenant-a SL 0, tenant-b SL 0",
    "sm-takeover": "ok   sm-takeover: su1-spine1 killed: su1-spine2 (priority 14) took over, SUBNET UP, 65280 of 65280 "
                   "HCA pairs routed",
}


def _checks(out: str) -> dict[str, str]:
    rows = [line[2:] for line in out.splitlines() if line.startswith(("  ok  ", "  FAIL"))]
    return {row[5:].split(":", 1)[0]: row for row in rows}


def test_the_example_as_planned_and_bound_as_a_site_would(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["lab", str(IB_EXAMPLE), "--keep"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("InfiniBand lab of su1 (run ")
    assert _checks(out) == PLANNED
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("ib-lab-su1-")]
    assert len(kept) == 1 and out.endswith(f"files and logs kept in {kept[0].relative_to(tmp_path)} (the lab's "
                                           "processes are ended)\n")
    # what the lab ran OpenSM with is what `fabric ib bind` writes from the same ibnetdiscover output
    assert main(["ib", "bind", str(IB_EXAMPLE), "--discovered", str(kept[0] / "ibnetdiscover.out"),
                 "--out", str(tmp_path / "bound")]) == 0
    for name in ("root-guids.conf", "cn-guids.conf", "partitions.conf"):
        assert (tmp_path / "bound" / name).read_text() == (kept[0] / name).read_text(), name
    # OpenSM ran the rendered files (examples/infiniband/generated, committed, checked by render --check): each
    # opensm.conf as rendered with /etc/opensm/ moved to the lab's directory, then the lab's own keys; the QoS
    # policy and the net file ibsim built the subnet from unchanged
    generated = IB_EXAMPLE.parent / "generated" / "infiniband"
    for conf, sm in (("opensm.conf", "su1-spine1"), ("opensm-su1-spine2.conf", "su1-spine2")):
        ran = (kept[0] / conf).read_text()
        rendered, lab_only = ran.split("# lab only: ", 1)
        want = (generated / sm / "opensm.conf").read_text()
        assert rendered.replace(f" {kept[0].resolve()}/", " /etc/opensm/") == want
        assert lab_only.startswith(f"/etc/opensm/ is {kept[0].resolve()}/ here\nlog_file ")
    assert (kept[0] / "qos-policy.conf").read_text() == (generated / "qos-policy.conf").read_text()
    assert (kept[0] / "fabric.net").read_text() == (generated / "topology.net").read_text()
    # 4 roots (the spines), 256 compute nodes
    assert (kept[0] / "root-guids.conf").read_text().count("\n") == 1 + 4
    assert (kept[0] / "cn-guids.conf").read_text().count("\n") == 1 + 256


def test_miswire_is_caught_and_named(capsys: pytest.CaptureFixture[str]) -> None:
    # the fault crosses the first two leaf-HCA cables on different leaves: su1-leaf0[1] - dgx01 mlx5_0[1] and
    # su1-leaf1[1] - dgx01 mlx5_3[1] (dgx01's rail-0 and rail-1 HCAs); ibsim numbers HCAs in file order, so
    # mlx5_0's unplanned link comes first
    assert main(["lab", str(IB_EXAMPLE), "--fault", "miswire"]) == 1
    assert _checks(capsys.readouterr().out) == {"topology": "FAIL topology: " + "; ".join([
        "cable su1-leaf0[1] - dgx01 mlx5_0[1] is missing: su1-leaf0[1] goes to dgx01 mlx5_3[1], dgx01 mlx5_0[1] "
        "goes to su1-leaf1[1]",
        "cable su1-leaf1[1] - dgx01 mlx5_3[1] is missing: su1-leaf1[1] goes to dgx01 mlx5_0[1], dgx01 mlx5_3[1] "
        "goes to su1-leaf0[1]",
        "cable dgx01 mlx5_0[1] - su1-leaf1[1] is discovered but not planned",
        "cable dgx01 mlx5_3[1] - su1-leaf0[1] is discovered but not planned"])}


def test_a_wrong_root_set_is_caught(capsys: pytest.CaptureFixture[str]) -> None:
    # the root GUID file names the 8 leaves: ftree cannot rank the tree and OpenSM falls back to minhop
    assert main(["lab", str(IB_EXAMPLE), "--fault", "sm"]) == 1
    checks = _checks(capsys.readouterr().out)
    assert checks["routing-engine"] == "FAIL routing-engine: minhop configured the tables (planned ftree)"
    assert [name for name, row in checks.items() if row.startswith("FAIL")] == ["routing-engine"]


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lab", str(IB_EXAMPLE), "--fault", "asn"]) == 2
    assert capsys.readouterr().err == ("fabric lab: unknown fault 'asn' for an InfiniBand fabric (one of miswire, "
                                       "sm)\n")
    assert main(["lab", str(IB_EXAMPLE), "--pod", "1"]) == 2
    assert capsys.readouterr().err == "fabric lab: --pod is for the FRR lab of an Ethernet fabric\n"
    assert main(["lab", str(IB_EXAMPLE), "--down", "su1-spine1"]) == 2
    assert capsys.readouterr().err == "fabric lab: --down is for the FRR lab of an Ethernet fabric\n"
    assert main(["lab", str(IB_EXAMPLE), "--fault", "miswire,sm"]) == 2
    assert capsys.readouterr().err == "fabric lab: one fault at a time on an InfiniBand fabric\n"


def test_teardown_with_nothing_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RAILFABRIC_IB_RUNS", str(tmp_path / "runs"))
    assert main(["lab", str(IB_EXAMPLE), "--teardown"]) == 0
    assert capsys.readouterr().out == "no InfiniBand lab left by a killed run\n"
