"""The PKey index written as NCCL_IB_PKEY (railfabric/infiniband/outputs_hosts.py), proven on the simulated subnet:
ibsim with the planned fabric, GUIDs bound from ibnetdiscover, the real OpenSM 3.3.23 sweeping once with the
rendered partitions.conf, then every HCA's PKey table read back with `smpquery pkeys <lid>` (LIDs from dump_fts).
Uses railfabric.infiniband.sim / netfile / binding / opensm_conf / partitions read-only. Needs ibsim-utils, opensm
and infiniband-diags: skips, naming them, when they are missing.

The fabric: rail_fat_tree(hosts=2, rails=2, spines=2, ports=8): dgx01, dgx02 with mlx5_0 (rail 0), mlx5_1 (rail 1).
Partitions, in this file order (chosen so that file order, order by value and OpenSM's order all differ):
  tenant-a 0x0a01  dgx01's HCAs full          (compute partition of dgx01)
  tenant-b 0x0a02  dgx02's HCAs full          (compute partition of dgx02)
  storage  0x0b01  every HCA limited
  zeta     0x0102  every HCA limited
  alpha    0x7000  dgx01's HCAs limited
OpenSM's order (outputs_hosts docstring): default 0x7fff at index 0, then by the PKey's low byte, then high byte:
  dgx01: 0x7000 (00,70), 0x0a01 (01,0a), 0x0b01 (01,0b), 0x0102 (02,01) -> tenant-a at index 2
  dgx02: 0x0b01 (01,0b), 0x0102 (02,01), 0x0a02 (02,0a)                 -> tenant-b at index 3
(by value dgx01 would be 0x0102, 0x0a01, ...: tenant-a at 2 too, but 0x0102 at 1; by file order tenant-a at 1.)
Entries as the HCA holds them: full members carry bit 15 (0x8000); every HCA is a full member of the default
partition (rail_fat_tree's default membership), so 0xffff at index 0.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from railfabric.infiniband.build import rail_fat_tree
from railfabric.infiniband.model import IbFabric, Member, Membership, Partition
from railfabric.infiniband.outputs_hosts import host_plans, nccl_conf, pkey_table
from railfabric.infiniband.sim import missing
from tests.ib_sweep import swept

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")

L = Membership.LIMITED


def _fabric() -> IbFabric:
    f = rail_fat_tree("pkeys", hosts=2, rails=2, spines=2, ports=8)
    one = [h.name for h in f.hcas if h.host == "dgx01"]
    two = [h.name for h in f.hcas if h.host == "dgx02"]
    every = [h.name for h in f.hcas]
    return replace(f, partitions=(
        Partition("tenant-a", 0x0A01, tuple(Member(n) for n in one)),
        Partition("tenant-b", 0x0A02, tuple(Member(n) for n in two)),
        Partition("storage", 0x0B01, tuple(Member(n, L) for n in every)),
        Partition("zeta", 0x0102, tuple(Member(n, L) for n in every)),
        Partition("alpha", 0x7000, tuple(Member(n, L) for n in one)),
    ))


# Hand-derived (module docstring): index order and membership bits.
TABLES = {
    "dgx01": [0xFFFF, 0x7000, 0x8A01, 0x0B01, 0x0102],
    "dgx02": [0xFFFF, 0x0B01, 0x0102, 0x8A02],
}
INDEX = {"dgx01": 2, "dgx02": 3}


def _read_tables(fab: IbFabric) -> dict[str, list[int]]:
    """Run the subnet, return every HCA's PKey table as read by smpquery (entries up to the last non-zero)."""
    with swept(fab, "ibhosts") as sw:
        out: dict[str, list[int]] = {}
        for h in fab.hcas:
            text = sw.query("smpquery", "pkeys", str(sw.lid(h.name)))
            # "   0: 0xffff 0x7000 0x8a01 ..." (8 entries a line, the first index of the line first)
            entries: list[int] = []
            for line in text.splitlines():
                m = re.match(r"\s*(\d+):\s*(.*)$", line)
                if m:
                    assert int(m.group(1)) == len(entries)
                    entries += [int(v, 16) for v in m.group(2).split()]
            while entries and entries[-1] == 0:
                entries.pop()
            out[h.name] = entries
        return out


@pytest.fixture(scope="module")
def tables() -> dict[str, list[int]]:
    return _read_tables(_fabric())


def test_opensm_fills_pkey_tables_in_the_predicted_order(tables) -> None:
    fab = _fabric()
    for h in fab.hcas:
        assert tables[h.name] == TABLES[h.host], h.name
        # what outputs_hosts predicts (bases, membership bit cleared) is what OpenSM programmed
        assert tuple(k & 0x7FFF for k in tables[h.name]) == pkey_table(fab, h.name)


def test_nccl_pkey_index_selects_the_compute_partition(tables) -> None:
    fab = _fabric()
    for hp in host_plans(fab):
        assert hp.pkey_index == INDEX[hp.host]
        assert hp.partition is not None
        for h in hp.hcas:
            # the entry at NCCL_IB_PKEY is the compute partition, full member (bit 15)
            assert tables[h.name][hp.pkey_index] == hp.partition.pkey | 0x8000
        assert f"NCCL_IB_PKEY={INDEX[hp.host]}\n" in nccl_conf(fab, hp)


def test_nothing_left_behind(tables) -> None:
    assert not list(Path(tempfile.gettempdir()).glob("railfabric-ibhosts-*"))
