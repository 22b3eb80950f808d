"""opensm.conf against the real OpenSM 3.3.23 (Debian 12's `opensm`): every key we write is one of the keys
`opensm -c` writes in its template, and `opensm -F ours -c out` loads our file without complaint and writes each of
our values back. Skips, naming the package, when opensm is not installed (tests/tools/install.sh installs it)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from railfabric.infiniband.build import TWO_CLASS_QOS, rail_fat_tree, two_tenants
from railfabric.infiniband.opensm_conf import Paths, opensm_conf

OPENSM = shutil.which("opensm") or ("/usr/sbin/opensm" if Path("/usr/sbin/opensm").exists() else None)
pytestmark = pytest.mark.skipif(OPENSM is None, reason="needs opensm: apt-get install opensm (Debian 12)")


def _keys(text: str) -> dict[str, str]:
    return {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in text.splitlines()
            if line and not line.startswith("#")}


def _run(*args: str, cwd: Path) -> str:
    # -c writes the file and exits; no subnet is touched. OSM_CACHE_DIR/OSM_TMP_DIR keep it out of /var.
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "OSM_CACHE_DIR": str(cwd), "OSM_TMP_DIR": str(cwd)}
    proc = subprocess.run([str(OPENSM), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("osm")
    _run("-c", str(d / "template.conf"), cwd=d)
    return _keys((d / "template.conf").read_text())


def test_the_template_has_the_keys_of_3_3_23(template) -> None:
    # OpenSM 3.3.23's template: 160 options (REFERENCE-IB-AND-UNDERLAY.md section 2), among them the ones we use
    assert len(template) == 160
    assert template["routing_engine"] == "(null)" and template["sm_priority"] == "0"


@pytest.mark.parametrize("engine", ["ftree", "updn"])
@pytest.mark.parametrize("qos", [TWO_CLASS_QOS, None])
def test_opensm_loads_our_file(tmp_path: Path, template, engine, qos) -> None:
    fab = rail_fat_tree("lab", hosts=2, rails=4, spines=2, ports=8, routing_engine=engine, qos=qos)
    fab = replace(fab, partitions=two_tenants(fab))
    ours = opensm_conf(fab, fab.sms[1], Paths(log_file=str(tmp_path / "osm.log"), dump_files_dir=str(tmp_path),
                                              flush_log=True))
    (tmp_path / "ours.conf").write_text(ours)
    out = _run("-F", str(tmp_path / "ours.conf"), "-c", str(tmp_path / "back.conf"), cwd=tmp_path)
    assert "Unrecognized token" not in out and "Invalid Cached Option Value" not in out, out
    mine = _keys(ours)
    assert set(mine) <= set(template), set(mine) - set(template)
    back = _keys((tmp_path / "back.conf").read_text())
    assert {k: back[k] for k in mine} == mine


def test_a_bad_key_or_value_would_be_seen(tmp_path: Path) -> None:
    # the complaint the test above looks for is real: a misspelt key and an out-of-range priority
    (tmp_path / "bad.conf").write_text("routing_engin ftree\nsm_priority 16\n")
    out = _run("-F", str(tmp_path / "bad.conf"), "-c", str(tmp_path / "back.conf"), cwd=tmp_path)
    assert 'Unrecognized token: "routing_engin"' in out
    assert "Invalid Cached Option Value:sm_priority = 16" in out
