"""The shipped InfiniBand example (examples/infiniband/): the solver's figures and the rendered files, derived by hand
from its YAML, and its committed generated/ tree up to date (`render --check`, as `make check` runs it).

The example: 32 DGX H100 × 8 HCAs of 400G NDR; 8 rail leaves QM9700 (64 ports, latency_ns 300); 4 spines QM9700,
8 links from every leaf to every spine; solver defaults: cables host 3 m, fabric 30 m, 5 ns/m; budget 5,000 ns.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.pipeline import Result, run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "infiniband" / "inventory"
GENERATED = ROOT / "examples" / "infiniband" / "generated"


@pytest.fixture(scope="module")
def res() -> Result:
    return run(EXAMPLE)


def test_it_validates_clean(res: Result) -> None:
    assert res.findings == []
    assert res.plan is None and res.report is not None


def test_capacity_one_to_one(res: Result) -> None:
    assert res.report is not None
    cap = res.report["capacity"]
    # a leaf: 32 hosts × 400G = 12,800 Gbps down; 4 spines × 8 links × 400G = 12,800 Gbps up → 1:1
    for r in range(8):
        row = cap["switches"][f"su1-leaf{r}"]
        assert (row["down_gbps"], row["up_gbps"], row["ratio"]) == (12_800, 12_800, 1.0)
    # the rail tier: 8 × 12,800 = 102,400 both ways
    tier = cap["tiers"]["rail"]
    assert (tier["switches"], tier["down_gbps"], tier["up_gbps"], tier["ratio"]) == (8, 102_400, 102_400, 1.0)
    # a spine: 8 leaves × 8 links × 400G = 25,600 Gbps down, nothing up (two tiers)
    for s in range(1, 5):
        assert (cap["switches"][f"su1-spine{s}"]["down_gbps"], cap["switches"][f"su1-spine{s}"]["up_gbps"]) == (
            25_600, 0)


def test_ports_used_per_switch(res: Result) -> None:
    assert res.report is not None
    ports = res.report["ports"]
    # 12 QM9700 × 64 ports = 768; every leaf uses 32 host + 32 uplink ports = 64, every spine 8 leaves × 8 = 64
    rows = ports["models"]["QM9700"]
    assert (rows["switches"], rows["ports"], rows["used"], rows["free"]) == (12, 768, 768, 0)
    assert {name: row["used"] for name, row in ports["switches"].items()} == {
        **{f"su1-leaf{r}": 32 + 32 for r in range(8)}, **{f"su1-spine{s}": 8 * 8 for s in range(1, 5)}}


def test_worst_single_failure(res: Result) -> None:
    assert res.report is not None
    tier = res.report["failures"]["tiers"]["rail"]
    # a spine down: every leaf keeps 3 of its 4 spines: 24 × 400 = 9,600 of 12,800 = 75%; the tier 8 × 9,600 = 76,800
    sw = tier["switch_failure"]
    assert (sw["failed"], sw["left_gbps"], sw["left_pct"], sw["tier_left_gbps"], sw["tier_left_pct"]) == (
        "su1-spine1", 9_600, 75.0, 76_800, 75.0)
    # one uplink down: 31 of 32 = 12,400 Gbps = 96.875%; the tier 102,400 − 400 = 102,000 = 99.609%
    link = tier["link_failure"]
    assert (link["left_gbps"], link["left_pct"], link["tier_left_gbps"], link["tier_left_pct"]) == (
        12_400, 96.875, 102_000, 99.609)


def test_bisection(res: Result) -> None:
    assert res.report is not None
    bis = res.report["bisection"]
    # half the hosts: 16 × 8 × 400G = 51,200 Gbps each side; the spines carry all of it: 100%
    assert (bis["a_host_gbps"], bis["b_host_gbps"], bis["max_flow_gbps"], bis["ratio"]) == (51_200, 51_200, 51_200,
                                                                                             1.0)


def test_latency(res: Result) -> None:
    assert res.report is not None
    paths = res.report["latency"]["paths"]
    # same rail: 1 switch × 300 ns + 2 host cables × 3 m × 5 ns/m = 300 + 30 = 330 ns
    assert (paths["same-rail"]["switches"], paths["same-rail"]["latency_ns"]) == (1, 330)
    # across rails: leaf → spine → leaf, 3 switch hops × 300 = 900 ns + (2 × 3 m + 2 × 30 m) × 5 ns/m = 330 ns
    inpod = paths["in-pod"]
    assert (inpod["switches"], inpod["switch_ns"], inpod["cable_m"], inpod["cable_ns"], inpod["latency_ns"]) == (
        3, 900, 66, 330, 1_230)


def test_the_subnet_figures(res: Result) -> None:
    assert res.report is not None
    ib = res.report["infiniband"]
    # 256 HCAs + 12 switches = 268 end ports, LMC 0 → 268 LIDs; 256 host + 256 leaf-spine cables
    assert (ib["hcas"], ib["switches"], ib["cables"], ib["lids_needed"], ib["islands"], ib["max_switch_hops"]) == (
        256, 12, 512, 268, 1, 3)
    assert ib["master"] == "su1-spine1"


def test_the_committed_tree_is_up_to_date() -> None:
    assert main(["render", str(EXAMPLE), "--out", str(GENERATED), "--check"]) == 0


def test_the_rendered_files() -> None:
    files = sorted(str(p.relative_to(GENERATED)) for p in GENERATED.rglob("*") if p.is_file())
    # ours, then the site outputs (railfabric.infiniband.outputs_site): one nccl.conf per host (32), the hosts'
    # JSON, the ibdiagnet topology with the IBNL of the 8-HCA host type, NVIDIA's SM profile per SM (2); the page
    # with the glance and the rail diagram of the one segment; the rail map
    nccl = [f"infiniband/hosts/dgx{h:02d}/nccl.conf" for h in range(1, 33)]
    docs = ["docs/fabric-at-a-glance.svg", "docs/fabric.md", "docs/rails/pod-1-segment-1.svg"]
    assert files == ["cabling.csv", *docs, "hosts/railmap.csv", *nccl, "infiniband/hosts/hosts.json",
                     "infiniband/ibdiag/ibnl/hca_mlx5_8.ibnl",
                     "infiniband/ibdiag/topology.topo", "infiniband/nvidia-sm/opensm-su1-spine1.conf",
                     "infiniband/nvidia-sm/opensm-su1-spine2.conf", "infiniband/partitions.conf",
                     "infiniband/qos-policy.conf", "infiniband/su1-spine1/opensm.conf",
                     "infiniband/su1-spine2/opensm.conf", "infiniband/topology.net", "manifest.json", "report.json"]
    # dgx01: its HCAs in rail order with the DGX H100 device names; the compute SL 0
    assert "NCCL_IB_HCA==mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_9:1,mlx5_10:1,mlx5_11:1" in (
        GENERATED / "infiniband/hosts/dgx01/nccl.conf").read_text().splitlines()
    master = (GENERATED / "infiniband/su1-spine1/opensm.conf").read_text().splitlines()
    assert master[2:] == [
        "subnet_prefix 0xfe80000000000000", "routing_engine ftree", "root_guid_file /etc/opensm/root-guids.conf",
        "cn_guid_file /etc/opensm/cn-guids.conf", "lmc 0", "sm_priority 15", "sweep_interval 10",
        "partition_config_file /etc/opensm/partitions.conf", "qos TRUE", "qos_max_vls 2", "qos_high_limit 0",
        "qos_vlarb_high ", "qos_vlarb_low 0:128,1:64", "qos_sl2vl 0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0",
        "qos_policy_file /etc/opensm/qos-policy.conf"]
    standby = (GENERATED / "infiniband/su1-spine2/opensm.conf").read_text().splitlines()
    assert [a for a, b in zip(master, standby, strict=True) if a != b] == [
        master[0], master[1], "sm_priority 15"]  # the SM's name in the title, and the priority
    parts = (GENERATED / "infiniband/partitions.conf").read_text().splitlines()
    rules = [ln for ln in parts if ln and not ln.startswith("#")]
    # fail-closed: the default partition by keywords (hosts limited), both tenants with an empty member list
    assert rules == ["Default=0x7fff, ipoib : ALL_CAS=limited, ALL_SWITCHES=full, SELF=full ;",
                     "tenant-a=0x0a01 : ;", "tenant-b=0x0a02 : ;"]
    # the planned members as comments: 16 hosts × 8 HCAs each
    assert sum(ln.startswith("#   dgx") for ln in parts) == 256
    assert "#   dgx17 mlx5_0=full" in parts
    net = (GENERATED / "infiniband/topology.net").read_text()
    # leaf3: host 5's HCA 3 (mlx5_5) on port 5; port 33 + 8 × 1 + 0 = 41 to spine2 port 8 × 3 + 1 = 25
    leaf3 = net.split('Switch\t64 "su1-leaf3"\n', 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(leaf3) == 64
    assert leaf3[4] == '[5]\t"dgx05 mlx5_5"[1]' and leaf3[40] == '[41]\t"su1-spine2"[25]'
    cabling = (GENERATED / "cabling.csv").read_text().splitlines()
    assert len(cabling) == 2 + 512  # title, header, 256 host and 256 fabric cables
    # the host end names the HCA: rail 3 = rdma_devices[3] = mlx5_5, its port 1
    assert "dgx05:nic3p1,host,3,dgx05,1,mlx5_5,,su1-leaf3,5,5,,400G," in cabling


def test_each_example_file_validates_against_the_committed_per_file_schema() -> None:
    import json

    import jsonschema
    import yaml

    schema = json.loads((ROOT / "schema" / "inventory.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted(EXAMPLE.glob("*.yml")):
        assert path.read_text(encoding="utf-8").startswith(
            "# yaml-language-server: $schema=../../../schema/inventory.schema.json\n"), path.name
        assert [e.message for e in validator.iter_errors(yaml.safe_load(path.read_text(encoding="utf-8")))] == []


def test_plan_says_no_changes_and_two_renders_are_byte_identical(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(EXAMPLE), "--out", str(GENERATED)]) == 0
    assert "No changes." in capsys.readouterr().out
    trees = []
    for name in ("one", "two"):
        out = tmp_path / name
        assert main(["render", str(EXAMPLE), "--out", str(out), "--quiet"]) == 0
        trees.append({str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()})
    assert trees[0] == trees[1]
    assert trees[0] == {str(p.relative_to(GENERATED)): p.read_bytes() for p in GENERATED.rglob("*") if p.is_file()}
