"""The VL arbitration tables OpenSM programs from the rendered qos_* options, read back with `smpquery vlarb` on the
simulated subnet (ibsim + the real OpenSM 3.3.23; skips, naming the packages, when they are missing).

Two plans on rail_fat_tree(hosts=2, rails=2, spines=2), SL 0 -> VL 0, SL 1 -> VL 1, two data VLs:
- the Quantum-2 form (IB050, railfabric/checks/rules/ib_qos_rules.py): vlarb_high [] and high_limit 0, the weights
  in the low table: [(0, 128), (1, 64)]. Expected on every HCA port: low table VL 0 weight 0x80, VL 1 weight 0x40,
  the other 6 entries (LowCap 8) weight 0; high table all 8 entries weight 0 (an empty qos_vlarb_high programs no
  high-priority entry: nothing bypasses the low table's weights).
- the upstream two-table form (build.TWO_CLASS_QOS): high [(0, 128), (1, 64)], low [(0, 4), (1, 4)] -> high table
  0x80, 0x40, then zeros; low table 0x4, 0x4, then zeros.
"""

from __future__ import annotations

import re

import pytest

from railfabric.infiniband.build import TWO_CLASS_QOS, rail_fat_tree
from railfabric.infiniband.model import Qos
from railfabric.infiniband.sim import missing
from tests.ib_sweep import swept

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")

QUANTUM2 = Qos(max_vls=2, high_limit=0, vlarb_high=(), vlarb_low=((0, 128), (1, 64)), sl2vl=(0, 1) + (0,) * 14)


def _tables(qos: Qos) -> dict[str, dict[str, list[tuple[int, int]]]]:
    """HCA name -> {"low": [(VL, weight)] * 8, "high": [...]} as smpquery vlarb prints them."""
    fab = rail_fat_tree("vlarb", hosts=2, rails=2, spines=2, ports=8, qos=qos)
    with swept(fab, "vlarb") as sw:
        return {h.name: _parse(sw.query("smpquery", "vlarb", str(sw.lid(h.name)))) for h in fab.hcas}


def _parse(text: str) -> dict[str, list[tuple[int, int]]]:
    """smpquery vlarb: '# Low priority ...' / '# High priority ...' each followed by a VL row and a WEIGHT row."""
    out: dict[str, list[tuple[int, int]]] = {}
    table = ""
    vls: list[int] = []
    for line in text.splitlines():
        if line.startswith("# Low priority"):
            table = "low"
        elif line.startswith("# High priority"):
            table = "high"
        elif line.startswith("VL") and table:
            vls = [int(v, 16) for v in re.findall(r"0x[0-9a-fA-F]+", line)]
        elif line.startswith("WEIGHT") and table:
            out[table] = list(zip(vls, [int(v, 16) for v in re.findall(r"0x[0-9a-fA-F]+", line)], strict=True))
    return out


def test_the_quantum2_form_programs_only_the_low_table() -> None:
    tables = _tables(QUANTUM2)
    assert len(tables) == 4  # 2 hosts x 2 rails
    for name, t in tables.items():
        assert t["low"] == [(0, 0x80), (1, 0x40)] + [(0, 0)] * 6, name
        assert [w for _vl, w in t["high"]] == [0] * 8, name


def test_the_two_table_form_programs_both() -> None:
    for name, t in _tables(TWO_CLASS_QOS).items():
        assert t["high"] == [(0, 0x80), (1, 0x40)] + [(0, 0)] * 6, name
        assert t["low"] == [(0, 0x4), (1, 0x4)] + [(0, 0)] * 6, name
