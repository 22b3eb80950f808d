"""The NVIDIA SM profile (railfabric/infiniband/outputs_nvidia_sm.py) shown to upstream OpenSM 3.3.23: it is the
upstream profile plus NVIDIA's keys and nothing else. `opensm -F ours -c back` complains about exactly the NVIDIA
keys we wrote (which is why the profile is NOT checkable offline) and writes every other value back unchanged
(routing_engine included: OpenSM checks engine names only when it routes). Skips, naming the package, when opensm
is not installed.

Cases (rail_fat_tree(hosts=2, rails=2, spines=2, ports=8) with two_tenants and TWO_CLASS_QOS, see
tests/test_ib_outputs.py): QM9700 switches -> ar_ftree, SHIELD and pFRN on: NVIDIA key pfrn_sl only (shield_mode
left at NVIDIA's default). Every switch a Q3400 (XDR) -> ar_updn, pFRN impossible: shield_mode 2 only. SHIELD off on
QM9700 -> shield_mode 0 only.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from railfabric.infiniband.build import TWO_CLASS_QOS, rail_fat_tree, two_tenants
from railfabric.infiniband.model import IbFabric
from railfabric.infiniband.opensm_conf import Paths
from railfabric.infiniband.outputs_nvidia_sm import nvidia_opensm_conf

OPENSM = shutil.which("opensm") or ("/usr/sbin/opensm" if Path("/usr/sbin/opensm").exists() else None)
pytestmark = pytest.mark.skipif(OPENSM is None, reason="needs opensm: apt-get install opensm (Debian 12)")


def _keys(text: str) -> dict[str, str]:
    return {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in text.splitlines()
            if line and not line.startswith("#")}


def _fabric(model: str = "QM9700") -> IbFabric:
    f = rail_fat_tree("lab", hosts=2, rails=2, spines=2, ports=8, qos=TWO_CLASS_QOS)
    f = replace(f, partitions=two_tenants(f))
    return replace(f, switches=tuple(replace(s, model=model) for s in f.switches))


@pytest.mark.parametrize(("model", "shield", "engine", "nvidia"), [
    ("QM9700", True, "ar_ftree", {"pfrn_sl": "0"}),
    ("Q3400", True, "ar_updn", {"shield_mode": "2"}),
    ("QM9700", False, "ar_ftree", {"shield_mode": "0"}),
])
def test_upstream_knows_everything_but_the_nvidia_keys(tmp_path: Path, model: str, shield: bool, engine: str,
                                                       nvidia: dict[str, str]) -> None:
    fab = _fabric(model)
    ours = nvidia_opensm_conf(fab, fab.master, Paths(log_file=str(tmp_path / "osm.log")), shield=shield)
    (tmp_path / "ours.conf").write_text(ours)
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "OSM_CACHE_DIR": str(tmp_path), "OSM_TMP_DIR": str(tmp_path)}
    proc = subprocess.run([str(OPENSM), "-F", str(tmp_path / "ours.conf"), "-c", str(tmp_path / "back.conf")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    unknown = {line.split('"')[1] for line in out.splitlines() if "Unrecognized token" in line}
    assert unknown == set(nvidia)
    assert "Invalid Cached Option Value" not in out
    mine = _keys(ours)
    assert mine["routing_engine"] == engine
    assert {k: v for k, v in mine.items() if k in nvidia} == nvidia
    back = _keys((tmp_path / "back.conf").read_text())
    assert {k: back[k] for k in mine if k not in nvidia} == {k: v for k, v in mine.items() if k not in nvidia}
