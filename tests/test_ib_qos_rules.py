"""IB050 / IB051 (railfabric/checks/rules/ib_qos_rules.py): the VL arbitration forms NVIDIA's Quantum-2 firmware
release notes warn about (known issues 955641 and 1249608), found on a QM97xx fabric only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from railfabric.core.finding import Severity
from tests.helpers import run_data
from tests.test_ib_inventory import small

TWO_TABLES = {"vlarb_high": [[0, 128], [1, 64]], "vlarb_low": [[0, 4], [1, 4]], "high_limit": 255}
LOW_ONLY = {"vlarb_high": [], "vlarb_low": [[0, 128], [1, 64]], "high_limit": 0}


def _findings(tmp_path: Path, model: str, qos: dict[str, Any]) -> list[tuple[str, str, Severity, int | None]]:
    data = small(qos=qos)
    data["switch_models"] = {model: data["switch_models"]["qm"]}
    pod = data["pods"][0]
    pod["spines"]["model"] = model
    pod["segments"][0]["rail_switch_model"] = model
    res = run_data(tmp_path, data)
    return [(f.code, f.message, f.severity, f.location.line if f.location else None) for f in res.findings
            if f.code.startswith("IB05")]


def test_the_two_table_plan_on_quantum2_is_warned(tmp_path: Path) -> None:
    found = _findings(tmp_path, "QM9700", TWO_TABLES)
    assert [(c, s) for c, _m, s, _l in found] == [("IB050", Severity.WARNING)]
    assert "vlarb_high 2 entries, high_limit 255" in found[0][1] and "(QM9700)" in found[0][1]
    assert found[0][3] is not None  # at the qos: key


def test_the_low_table_plan_on_quantum2_is_clean(tmp_path: Path) -> None:
    assert _findings(tmp_path, "QM9790", LOW_ONLY) == []


def test_a_high_limit_alone_is_warned(tmp_path: Path) -> None:
    found = _findings(tmp_path, "QM9700", dict(LOW_ONLY, high_limit=255))
    assert [c for c, *_ in found] == ["IB050"]


def test_a_weight_of_zero_is_warned_per_entry(tmp_path: Path) -> None:
    found = _findings(tmp_path, "QM9700", dict(LOW_ONLY, vlarb_low=[[0, 128], [1, 0], [2, 0]]))
    assert [(c, m.split(" on ")[0]) for c, m, *_ in found] == [("IB051", "vlarb_low gives VL 1 weight 0"),
                                                               ("IB051", "vlarb_low gives VL 2 weight 0")]


@pytest.mark.parametrize("model", ["qm", "Q3400"])
def test_other_models_are_not_judged(tmp_path: Path, model: str) -> None:
    assert _findings(tmp_path, model, dict(TWO_TABLES, vlarb_low=[[0, 0]])) == []
