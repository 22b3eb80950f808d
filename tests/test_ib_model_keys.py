"""The switch-model keys that mean nothing on InfiniBand (IB034-IB040, railfabric.inventory.intent_infiniband
.ETHERNET_ONLY): refused at the key's own line with a hint, taken out before the schema so nothing else is said
about them; what an InfiniBand switch model keeps (ports, speed, latency_ns, port_blocks' rails and uplinks)
still validates. The inventory is tests/test_ib_inventory.py's small one (switch model `qm`, 8 ports)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from railfabric.pipeline import run
from tests.helpers import dump, write_files
from tests.test_ib_inventory import small

BUFFERS = {"total_bytes": "64MB", "ingress_lossless_pool": "32MB", "ingress_lossy_pool": "16MB",
           "egress_lossless_pool": "32MB", "egress_lossy_pool": "16MB", "cell_bytes": 256,
           "pipeline_latency_bytes": 18432, "mac_phy_delay_bytes": 1024}
KEYS = [
    ("IB034", "buffers", BUFFERS),
    ("IB035", "hwsku", "Mellanox-SN5600-O128"),
    ("IB036", "asic", "spectrum-4"),
    ("IB037", "releases", {"nvue": "5.14"}),
    ("IB039", "serdes_lanes", 8),
    ("IB040", "breakouts", ["2x200G"]),
]


def _run(tmp_path: Path, model_extra: dict[str, Any]) -> tuple[Any, list[str]]:
    data = small()
    data["switch_models"]["qm"].update(model_extra)
    text = dump(data)
    return run(write_files(tmp_path / "inv", {"fabric.yml": text})), text.splitlines()


@pytest.mark.parametrize(("code", "key", "value"), KEYS, ids=[k[0] + "-" + k[1] for k in KEYS])
def test_an_ethernet_switch_model_key_is_refused_at_its_line(tmp_path: Path, code: str, key: str,
                                                              value: Any) -> None:
    res, lines = _run(tmp_path, {key: value})
    assert [(f.code, f.message.split(" (")[0]) for f in res.findings] == [
        (code, f"switch_models.qm.{key} is Ethernet-only")]
    f = res.findings[0]
    assert f.message.endswith("it means nothing on an InfiniBand fabric")
    assert f.hint.startswith("remove it: fabric.kind is infiniband")
    assert f.location is not None and f.location.file.endswith("fabric.yml")
    # the key's own line (1-based) and column (after its indentation), below `switch_models:`
    start = next(n for n, ln in enumerate(lines) if ln.startswith("switch_models:"))
    n = next(n for n, ln in enumerate(lines[start:], start) if ln.strip().startswith(f"{key}:"))
    assert (f.location.line, f.location.col) == (n + 1, len(lines[n]) - len(lines[n].lstrip()) + 1)
    assert f.severity.value == "error"


def test_peer_link_ports_are_refused_but_rails_and_uplinks_place_the_cables(tmp_path: Path) -> None:
    # uplinks moved to ports 7-8 (default: the top half from port 5); peer_link refused, the rest kept
    res, _ = _run(tmp_path, {"port_blocks": {"uplinks": [7, 8], "peer_link": [5, 6]}})
    assert [f.code for f in res.findings] == ["IB038"]
    assert res.findings[0].message.startswith("switch_models.qm.port_blocks.peer_link is Ethernet-only (the MLAG")
    assert "port_blocks.rails and port_blocks.uplinks still place the cables" in res.findings[0].hint
    ok, _ = _run(tmp_path / "ok", {"port_blocks": {"uplinks": [7, 8]}})
    assert ok.findings == []
    # leaf0's uplinks on 7 (spine1) and 8 (spine2): the blocks still place the InfiniBand cables
    ups = sorted((lk.a.port, lk.z.device) for lk in ok.topology.links if lk.a.device == "leaf0")
    assert ups == [(7, "spine1"), (8, "spine2")]


def test_the_breakout_hint_says_how_to_write_a_split_switch(tmp_path: Path) -> None:
    res, _ = _run(tmp_path, {"breakouts": ["2x200G"]})
    assert "ports: 128, speed: 200G" in res.findings[0].hint


def test_all_at_once_and_nothing_on_ethernet(tmp_path: Path) -> None:
    res, _ = _run(tmp_path, {k: v for _, k, v in KEYS})
    assert sorted(f.code for f in res.findings) == ["IB034", "IB035", "IB036", "IB037", "IB039", "IB040"]
    # the same keys on an Ethernet fabric are not IB findings (they are its own facts)
    data = small()
    data["fabric"] = {"name": "tiny"}
    del data["infiniband"]
    data["switch_models"]["qm"].update({"hwsku": "Mellanox-SN5600-O128", "asic": "spectrum-4", "serdes_lanes": 8})
    eth = run(write_files(tmp_path / "eth", {"fabric.yml": dump(data)}))
    assert not [f for f in eth.findings if f.code.startswith("IB")]
