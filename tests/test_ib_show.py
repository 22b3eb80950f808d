"""`fabric show NAME` on an InfiniBand inventory (railfabric/cli/show_ib.py). Every expected line is derived by hand
from the shipped example (examples/infiniband/inventory: 32 DGX H100 × 8 HCAs, 8 rail leaves su1-leaf0..7, 4 spines,
8 links from each leaf to each spine, QM9700 = 64 ports; SMs su1-spine1 priority 15 and su1-spine2 priority 14;
ftree; tenant-a = dgx[01-16] PKey 0x0a01, tenant-b = dgx[17-32] PKey 0x0a02, both compute SL 0; the default
partition limited) or from the small inventory of tests/test_ib_inventory.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.cli import main
from tests.helpers import dump, write_files
from tests.test_ib_inventory import EXAMPLE, small

# the DGX H100's HCAs in rail order (hardware.yml rdma_devices)
DEV = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"]


def _show(capsys: pytest.CaptureFixture[str], name: str, inv: Path = EXAMPLE) -> tuple[int, list[str], str]:
    rc = main(["show", name, str(inv)])
    out, err = capsys.readouterr()
    return rc, out.splitlines(), err


def _uplink(r: int, s: int, k: int) -> tuple[int, int]:
    """(leaf port, spine port) of leaf r's k-th link (k = 0..7) to spine s+1: the leaf's host ports are 1-32, its
    uplinks 33-64 spine by spine (33 + 8s + k); a spine's ports 1-64 leaf by leaf (8r + k + 1)."""
    return 33 + 8 * s + k, 8 * r + k + 1


def test_a_leaf(capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines, err = _show(capsys, "su1-leaf3")
    assert (rc, err) == (0, "")
    # 32 host ports + 4 spines × 8 uplinks = 64 = every port of a QM9700
    assert lines[:5] == ["su1-leaf3  tier=leaf pod=1 segment=1 model=QM9700",
                         "  ports      64: 64 used, 0 free",
                         "  rails      3",
                         "  subnet manager  none",
                         "  ftree root  no"]
    cables = lines[5:]
    assert len(cables) == 64
    # host port h → dgx<h>'s rail-3 HCA, mlx5_5, on its port 1
    assert cables[0] == "  port 1    -> dgx01 mlx5_5 port 1"
    assert cables[31] == "  port 32   -> dgx32 mlx5_5 port 1"
    # port 33: the first link to spine1 → spine1 port 8·3 + 1 = 25; port 64: the last to spine4 → 8·3 + 8 = 32
    assert cables[32] == "  port 33   -> su1-spine1 port 25"
    assert cables[63] == "  port 64   -> su1-spine4 port 32"
    assert _uplink(3, 0, 0) == (33, 25) and _uplink(3, 3, 7) == (64, 32)


def test_the_master_and_the_standby_spine(capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines, _ = _show(capsys, "su1-spine1")
    assert rc == 0
    assert lines[:4] == ["su1-spine1  tier=spine pod=1 model=QM9700",
                         "  ports      64: 64 used, 0 free",  # 8 leaves × 8 links
                         "  subnet manager  priority 15, master",
                         "  ftree root  yes (in root_guid_file)"]  # the top tier (no cores): the spines
    # spine1 port 1 = leaf0's first uplink (port 33); port 64 = leaf7's 8th link to spine1: 33 + 7 = 40
    assert lines[4] == "  port 1    -> su1-leaf0 port 33"
    assert lines[-1] == "  port 64   -> su1-leaf7 port 40"
    rc, lines, _ = _show(capsys, "su1-spine2")
    assert lines[2:4] == ["  subnet manager  priority 14, standby (master su1-spine1, priority 15)",
                          "  ftree root  yes (in root_guid_file)"]
    # spine2 port 1 = leaf0's 9th uplink: 33 + 8 = 41
    assert lines[4] == "  port 1    -> su1-leaf0 port 41"


@pytest.mark.parametrize(("host", "part", "pkey"), [("dgx17", "tenant-b", "0x0a02"), ("dgx01", "tenant-a", "0x0a01")])
def test_a_host(capsys: pytest.CaptureFixture[str], host: str, part: str, pkey: str) -> None:
    rc, lines, err = _show(capsys, host)
    assert (rc, err) == (0, "")
    h = int(host[3:])
    # HCA r on leaf r, port h (the leaf's host ports in host order)
    hcas = [f"  rail {r:<3} {DEV[r]:<8} port 1 -> su1-leaf{r} port {h}" for r in range(8)]
    assert lines == [
        f"{host}  pod=1 segment=1 number={h} model=dgx-h100 gpus=8",
        *hcas,
        # PKey table: the default partition at index 0, the host's one tenant partition next (index 1)
        "  partition  default 0x7fff limited (index 0)",
        f"  partition  {part} {pkey} full (index 1)",
        f"  compute    {part} {pkey}",
        # nccl.conf: every HCA port in rail order, exact names ('='); SL = compute 0; PKEY = the index, 1
        "  nccl       NCCL_IB_HCA==" + ",".join(f"{d}:1" for d in DEV) + " NCCL_IB_SL=0 NCCL_IB_PKEY=1",
    ]


def test_an_hca_by_its_node_description_shows_its_host(capsys: pytest.CaptureFixture[str]) -> None:
    # "dgx17 mlx5_9" is dgx17's rail-5 HCA (rdma-ndd's "<host> <device>", as ibnetdiscover prints it)
    rc, lines, _ = _show(capsys, "dgx17 mlx5_9")
    assert rc == 0
    assert lines[0].startswith("dgx17  pod=1 segment=1 number=17")
    assert lines[6] == "  rail 5   mlx5_9   port 1 -> su1-leaf5 port 17"


def test_free_ports_an_sm_on_a_host_and_an_engine_without_roots(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    # small(): 8-port switches; 2 hosts × 2 HCAs (mlx5_0, mlx5_1); leaf<r> for rails 0-1; 2 spines, 1 link each;
    # SMs spine1 (15) and h02's HCA 1 (3). minhop reads no root GUID file; no partitions, no QoS.
    inv = write_files(tmp_path / "inv", {"fabric.yml": dump(small(routing_engine="minhop"))})
    rc, lines, _ = _show(capsys, "leaf1", inv)
    assert rc == 0
    # host ports 1-2 (h01, h02); the uplinks start at the top half, port 5: spine1 on 5, spine2 on 6; the leaf is
    # spine s's (s-1)·1 + r + 1-th port: leaf1 → spine port 2
    assert lines == ["leaf1  tier=leaf pod=1 segment=1 model=qm",
                     "  ports      8: 4 used, 4 free (3-4, 7-8)",
                     "  rails      1",
                     "  subnet manager  none",
                     "  minhop root  - (minhop uses no root GUID file)",
                     "  port 1    -> h01 mlx5_1 port 1",
                     "  port 2    -> h02 mlx5_1 port 1",
                     "  port 5    -> spine1 port 2",
                     "  port 6    -> spine2 port 2"]
    rc, lines, _ = _show(capsys, "h02", inv)
    assert lines == [
        "h02  pod=1 segment=1 number=2 model=box gpus=2",
        "  rail 0   mlx5_0   port 1 -> leaf0 port 2",
        "  rail 1   mlx5_1   port 1 -> leaf1 port 2; subnet manager priority 3, standby (master spine1, priority 15)",
        "  partition  default 0x7fff full (index 0)",
        "  compute    the default partition 0x7fff",
        "  nccl       NCCL_IB_HCA==mlx5_0:1,mlx5_1:1",  # no QoS: no SL; the default partition: no PKEY
    ]


def test_an_unknown_name_and_an_inventory_with_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, lines, err = _show(capsys, "su1-leaf9")
    assert (rc, lines) == (2, [])
    assert err.startswith("fabric show: no switch or host named 'su1-leaf9'; did you mean su1-leaf")
    bad = small()
    bad["routing"] = {"bfd": True}  # IB001
    inv = write_files(tmp_path / "bad", {"fabric.yml": dump(bad)})
    rc, lines, err = _show(capsys, "leaf0", inv)
    assert rc == 1 and any("IB001" in line for line in lines) and "Traceback" not in err
