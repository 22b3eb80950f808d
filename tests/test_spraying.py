"""HOST007: per-packet spraying (routing.ecmp.mode: packet, NVUE adaptive routing) only toward NICs that place
out-of-order packets (host_models.<m>.accepts_out_of_order), in pods with spines (a rail-only pod has no uplinks
to spray over). The host files of a spraying fabric turn the NICs' out-of-order placement on for NCCL's QPs
(NCCL_IB_ADAPTIVE_ROUTING=1).

Hand derivation on tests.helpers.base_inventory() moved to NVUE (the one platform that sprays): one pod with 2
spines, one segment of host model h2 (2 NICs of 400G, 4 hosts): h2 receives sprayed packets, so packet mode
without `accepts_out_of_order: true` on h2 is exactly one HOST007, at routing.ecmp.mode.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from railfabric.core.finding import Severity
from railfabric.hosts import build_hosts
from tests.helpers import base_inventory, run_data, with_system


def _nvue(mode: str, out_of_order: bool | None = None) -> dict[str, Any]:
    data = with_system(base_inventory())  # an NVUE push replaces the whole config: it needs its account
    data["fabric"]["platform"] = "nvue"
    data["routing"] = {"ecmp": {"mode": mode}}
    if out_of_order is not None:
        data["host_models"]["h2"]["accepts_out_of_order"] = out_of_order
    return data


def test_spraying_toward_nics_that_cannot_reorder_is_refused(tmp_path: Path) -> None:
    found = [f for f in run_data(tmp_path, _nvue("packet")).findings if f.code == "HOST007"]
    assert len(found) == 1
    (f,) = found
    assert f.severity is Severity.ERROR
    assert "host model 'h2' does not declare NICs that accept out-of-order packets" in f.message
    assert f.hint.startswith("set host_models.h2.accepts_out_of_order: true")
    lines = (tmp_path / "inv" / "fabric.yml").read_text().splitlines()
    assert f.location is not None and lines[f.location.line - 1].strip() == "mode: packet"
    assert f.uses == (("host_models", "h2"),)


def test_declared_out_of_order_nics_take_spraying(tmp_path: Path) -> None:
    res = run_data(tmp_path, _nvue("packet", True))
    assert [f.code for f in res.findings if f.severity is Severity.ERROR] == []
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    plan = build_hosts(res.inventory, res.topology, res.plan)
    assert ("NCCL_IB_ADAPTIVE_ROUTING", "1") in plan.groups["p1-s1-h1"].nccl


def test_flow_hashing_needs_no_out_of_order_nics(tmp_path: Path) -> None:
    for mode in ("flow", "packet"):
        explicit_false = _nvue(mode, False)
        codes = [f.code for f in run_data(tmp_path / mode, explicit_false).findings]
        assert ("HOST007" in codes) is (mode == "packet")


def test_a_rail_only_pod_sprays_nothing(tmp_path: Path) -> None:
    """Pod 2 without spines holds host model h2r (no out-of-order flag): its rail switches have no uplinks, so
    nothing is sprayed toward it; pod 1's h2 declares the flag. No HOST007."""
    data = _nvue("packet", True)
    pod2 = copy.deepcopy(data["pods"][0])
    del pod2["spines"]
    pod2["id"] = 2
    pod2["segments"][0]["host_groups"] = [{"model": "h2r", "count": 4}]
    data["host_models"]["h2r"] = {"gpus": 2, "nics": 2, "nic_speed": "400G"}
    data["pods"].append(pod2)
    assert "HOST007" not in [f.code for f in run_data(tmp_path, data).findings]
