"""The ibdiagnet topology file (railfabric/infiniband/outputs_ibdiag.py) read by a real parser: the legacy IBDM
topology checker `ibdmchk` (Debian 12 package ibutils 1.5.7) in design mode, with our IBNL files (hosts and
switches) in IBDM_IBNL_PATH. Its parser reads widths and speeds up to 10G only, so the width-only form is checked
(`topology_file(fab, speed=False)`: `-4x->`). Skips, naming the package, when ibdmchk is missing.

ibdmchk 1.5.7 ends with SIGSEGV (exit -11) after a complete report, also on the example topology it ships
(/usr/lib/<triplet>/ibdm1.5.7/ibnl/Buffalo8.topo): the test accepts 0 or -11 and requires the report's last line.

Hand derivation, rail_fat_tree("lab", hosts=2, rails=4, spines=2, ports=8):
  systems: 2 spines + 4 leaves + 2 hosts = 8; nodes: 6 switches + 2 hosts x 4 HCAs = 14 -> "Defined 8/14".
  CA-to-CA ordered pairs: 8 HCAs -> 8 x 7 = 56. Same leaf (HCA -> leaf -> HCA, 2 hops): each leaf holds 2 HCAs,
  2 ordered pairs per leaf, 4 leaves -> 8. The rest, 48, go HCA -> leaf -> spine -> leaf -> HCA: 4 hops.
  LIDs: 14 nodes, one LID each (lmc 0).
One scalable unit of a DGX SuperPOD, rail_fat_tree(hosts=32, rails=8, spines=4, links=8, ports=64):
  systems 4 + 8 + 32 = 44; nodes 12 switches + 256 HCAs = 268. Pairs 256 x 255 = 65,280; same leaf: 8 leaves x
  32 x 31 = 7,936 at 2 hops; the other 57,344 at 4 hops.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from railfabric.infiniband.build import rail_fat_tree
from railfabric.infiniband.outputs_ibdiag import ibnl_files, topology_file

pytestmark = pytest.mark.skipif(shutil.which("ibdmchk") is None,
                                reason="needs ibdmchk: apt-get install ibutils (Debian 12)")

LAST = "-I- no credit loops found"


def _ibdmchk(topo: str, ibnl: dict[str, str], sm: str) -> tuple[int, str]:
    work = Path(tempfile.mkdtemp(prefix="railfabric-ibdm-"))
    try:
        (work / "ibnl").mkdir()
        for name, text in ibnl.items():
            (work / "ibnl" / name).write_text(text)
        (work / "fabric.topo").write_text(topo)
        run = subprocess.run(["ibdmchk", "-t", "fabric.topo", "-n", sm, "-p", "1"], cwd=work, capture_output=True,
                             text=True, timeout=120, env={**os.environ, "IBDM_IBNL_PATH": str(work / "ibnl")})
        return run.returncode, run.stdout + run.stderr
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _histogram(out: str, title: str) -> dict[int, int]:
    block = out.split(title, 1)[1].split("-----", 1)[0]
    return {int(a): int(b) for a, b in re.findall(r"^\s+(\d+)\s+(\d+)\s*$", block, re.M)}


@pytest.mark.parametrize(("size", "systems", "nodes", "hops"), [
    ({"hosts": 2, "rails": 4, "spines": 2, "ports": 8}, 8, 14, {2: 8, 4: 48}),
    ({"hosts": 32, "rails": 8, "spines": 4, "links": 8, "ports": 64}, 44, 268, {2: 7936, 4: 57344}),
])
def test_ibdmchk_reads_the_topology_as_planned(size: dict[str, int], systems: int, nodes: int,
                                               hops: dict[int, int]) -> None:
    fab = rail_fat_tree("lab", **size)
    rc, out = _ibdmchk(topology_file(fab, speed=False), ibnl_files(fab, switches=True), "spine1/U1")
    assert rc in (0, -11), out[-500:]
    assert "-W- Ignoring" not in out and "-E-" not in out
    assert f"-I- Defined {systems}/{nodes} systems/nodes" in out
    assert f"-I- Assigned {nodes} LIDs" in out
    assert "CA with no connected ports" not in out
    assert _histogram(out, "HOPS NUM-CA-CA-PAIRS") == hops
    assert LAST in out


def test_ibdmchk_refuses_what_it_cannot_read() -> None:
    # The same file with the speed token (100G is beyond this parser): every link line is ignored, the CAs are left
    # unconnected; without the switch IBNL the MQM9700 systems cannot be made. Shows the test above can fail.
    fab = rail_fat_tree("lab", hosts=2, rails=4, spines=2, ports=8)
    _, out = _ibdmchk(topology_file(fab), ibnl_files(fab, switches=True), "spine1/U1")
    assert "-W- Ignoring '   P1 -4x-100G-> HCA_mlx5_4 dgx01 mlx5_0/P1' (line:" in out
    assert "-W- CA with no connected ports:dgx01/mlx5_0" in out
    rc, out = _ibdmchk(topology_file(fab, speed=False), ibnl_files(fab), "spine1/U1")
    assert rc == 1
    assert "-E- Fail to find definition for system:MQM9700" in out
