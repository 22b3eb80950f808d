"""Junos dual homing is refused, with the reason: Juniper documents MC-LAG (ICCP, mc-ae) for Junos OS on
QFX5100/QFX10000, EX and MX, and nothing found documents it for Junos OS Evolved on the QFX5240, the platform
railfabric renders (railfabric/platforms/junos.py). An MLAG pair on Junos is PLAT001 at its segment's dual_homing line,
the render writes nothing, and `dual_homing: two-vlans` (each switch of the segment its own VLAN, no pair) still
renders on Junos.

Hand derivation for tests.helpers.mlag_inventory("eos") moved to `platform: junos`: 2 rails dual-homed by MLAG, so
2 pairs: rail group 1 = p1-s1-rail0a + p1-s1-rail0b, rail group 2 = p1-s1-rail1a + p1-s1-rail1b; both switches of a
pair are Junos, so each pair gets one PLAT001 (the pair's platforms agree, so only side a is named).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from railfabric.cli import main
from railfabric.platforms.junos import NO_MLAG_REASON
from tests.helpers import dump, mlag_inventory, run_data, write_files


def junos_mlag_inventory() -> dict[str, Any]:
    data = mlag_inventory("eos")  # the EOS variant carries the system: block a full-replace push needs
    data["pods"][0]["segments"][0]["platform"] = "junos"
    return data


def test_an_mlag_pair_on_junos_is_refused_with_the_reason(tmp_path: Path) -> None:
    found = [f for f in run_data(tmp_path, junos_mlag_inventory()).findings if f.code == "PLAT001"]
    assert [f.message for f in found] == [
        f"MLAG pair p1-s1-rail{r}a / p1-s1-rail{r}b: dual_homing: mlag cannot be expressed on junos "
        f"(p1-s1-rail{r}a); junos offers no dual homing: {NO_MLAG_REASON}" for r in (0, 1)]
    lines = (tmp_path / "inv" / "fabric.yml").read_text().splitlines()
    for f in found:
        assert f.severity == "error" and f.location is not None
        assert lines[f.location.line - 1].strip() == "dual_homing: mlag", f.location


def test_render_writes_nothing(tmp_path: Path) -> None:
    write_files(tmp_path / "inv", {"fabric.yml": dump(junos_mlag_inventory())})
    assert main(["render", str(tmp_path / "inv"), "--out", str(tmp_path / "out"), "-q"]) == 1
    assert not (tmp_path / "out").exists()


def test_two_vlans_dual_homing_renders_on_junos(tmp_path: Path) -> None:
    """two-vlans needs nothing of the platform (each switch of the segment serves one port of every NIC in its own
    VLAN): it validates clean on Junos and renders a junos.conf without any MC-LAG statement."""
    data = junos_mlag_inventory()
    data["pods"][0]["segments"][0]["dual_homing"] = "two-vlans"
    assert [f for f in run_data(tmp_path / "run", data).findings if f.severity == "error"] == []
    write_files(tmp_path / "inv", {"fabric.yml": dump(data)})
    assert main(["render", str(tmp_path / "inv"), "--out", str(tmp_path / "out"), "-q"]) == 0
    confs = sorted((tmp_path / "out" / "configs").glob("p1-s1-rail*/junos.conf"))
    assert len(confs) == 4  # rail0a, rail0b, rail1a, rail1b
    for path in confs:
        text = path.read_text()
        for word in ("iccp", "mc-ae", "multi-chassis", "vrrp-group", "type internal"):
            assert word not in text, (path, word)
