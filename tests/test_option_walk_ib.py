"""The option walk on the InfiniBand example (examples/infiniband/inventory): every enum, boolean and optional
feature of the schema under `infiniband:` (tests/test_option_walk.py walks the rest on an Ethernet base) is tried on
the example and must change the rendered files or be refused with the code named here."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from railfabric.core.finding import Severity
from railfabric.emit.build import build_files
from railfabric.inventory.load import load_inventory
from tests.helpers import ROOT, run_data
from tests.test_option_walk import _MISSING, _concrete, _get, _options, _set, ib_only

BASE: dict[str, Any] = load_inventory(ROOT / "examples" / "infiniband" / "inventory").data
# optional features the example leaves out, and the value tried for each
OPTIONAL_IB: dict[str, Any] = {
    "infiniband.subnet_managers.*.host": "dgx01",  # with hca 0: the SM on dgx01's first HCA instead of a spine
    "infiniband.subnet_managers.*.hca": 0,
}
# optional features the example sets to what the schema would give anyway (unsetting them changes nothing): tried
# with another value instead
OTHER_VALUE: dict[str, Any] = {
    "infiniband.qos.sl2vl": [0, 1, 1] + [0] * 13,  # SL 2 on VL 1 as well
}
# what a variant needs besides itself (`host`/`hca` replace `node`)
WITH: dict[str, dict[tuple, Any]] = {
    "infiniband.subnet_managers.*.host": {("infiniband", "subnet_managers", 0, "node"): _MISSING,
                                          ("infiniband", "subnet_managers", 0, "hca"): 0},
    "infiniband.subnet_managers.*.hca": {("infiniband", "subnet_managers", 0, "node"): _MISSING,
                                         ("infiniband", "subnet_managers", 0, "host"): "dgx01"},
}
# variants that must be refused by an error finding (code)
REFUSED: dict[str, str] = {
    "infiniband=unset": "IB016",  # fabric.kind infiniband needs its subnet
    "infiniband.subnet_managers.*.node=unset": "SCH003",  # an SM names a switch or a host + HCA
    "infiniband.qos.max_vls=1": "IB030",  # the example maps SL 1 to VL 1: beyond one data VL
}


def _variants() -> list[tuple[str, dict[tuple, Any]]]:
    out: list[tuple[str, dict[tuple, Any]]] = []
    for dotted, kind, values, schema_default in _options():
        if not ib_only(dotted) or dotted == "fabric.kind":
            continue
        path = _concrete(BASE, dotted)
        current = _get(BASE, path)
        if kind == "optional":
            if current is _MISSING and dotted not in OPTIONAL_IB:
                out.append((f"{dotted}=MISSING", {}))  # test_every_option_is_tried reports it
                continue
            value = OTHER_VALUE.get(dotted, _MISSING) if current is not _MISSING else OPTIONAL_IB[dotted]
            shown = "unset" if value is _MISSING else json.dumps(value)
            out.append((f"{dotted}={shown}", {**WITH.get(dotted, {}), path: value}))
            continue
        default = current if current is not _MISSING else schema_default
        for value in values:
            if value != default:
                out.append((f"{dotted}={value if isinstance(value, str) else json.dumps(value)}", {path: value}))
    return out


VARIANTS = _variants()


def _set_or_drop(data: Any, path: tuple, value: Any) -> None:
    if value is _MISSING:
        parent = _get(data, path[:-1])
        parent.pop(path[-1], None)
    else:
        _set(data, path, value)


def _render(tmp: Path, changes: dict[tuple, Any]) -> tuple[dict[str, bytes] | None, list[str]]:
    data = copy.deepcopy(BASE)
    for path, value in changes.items():
        _set_or_drop(data, path, value)
    res = run_data(tmp, data)
    errors = [f.code for f in res.findings if f.severity is Severity.ERROR]
    if errors:
        return None, errors
    files = build_files(res)
    files.pop("manifest.json")
    return files, []


def test_every_option_is_tried() -> None:
    names = [n for n, _c in VARIANTS]
    assert [n for n in names if n.endswith("=MISSING")] == [], "give these optional features a value in OPTIONAL_IB"
    for expected in ("infiniband.routing_engine=updn", "infiniband.partitions.*.membership=limited",
                     "infiniband.default_partition.membership=full", "infiniband.qos=unset"):
        assert expected in names
    assert set(REFUSED) <= set(names)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    files, errors = _render(tmp_path_factory.mktemp("ib-base"), {})
    assert files is not None, errors
    return files


@pytest.mark.parametrize(("name", "change"), VARIANTS, ids=[n for n, _c in VARIANTS])
def test_ib_option_changes_output_or_is_refused(tmp_path: Path, baseline: dict[str, bytes], name: str,
                                                change: dict) -> None:
    files, errors = _render(tmp_path, change)
    if name in REFUSED:
        assert REFUSED[name] in errors, f"{name} should be refused with {REFUSED[name]}, got {errors or 'a render'}"
        return
    assert files is not None, f"{name} was refused ({errors}) but should render"
    changed = sorted(p for p in set(files) | set(baseline) if files.get(p) != baseline.get(p))
    assert changed, f"{name} changed no rendered file: the option is silently ignored"
