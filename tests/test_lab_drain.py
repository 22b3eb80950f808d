"""Graceful shutdown (RFC 8326) as the rollout's drain, run in the FRR lab on the rendered configs.

tests.helpers' mini fabric (2 spines, rail switches p1-s1-rail0/1, each cabled once to each spine; routing.drain
auto → graceful-shutdown, so every frr.conf carries the receiver route-map RM-GSHUT-IN on its eBGP group). By hand:
- p1-s1-rail1's rail subnet: pools.rail_subnets 172.16.0.0/12, segment 1 of pod 1 owns the first /21 (segment_rail_
  block 21), rail r its r-th /24 → 172.16.1.0/24. p1-s1-rail0 reaches it through both spines: ECMP width 2.
- p1-spine1's ASN: spine_base 4200001000 + pod 1 = 4200001001.
- `bgp graceful-shutdown` on p1-spine1 (the drain the rollout sends a SONiC switch) tags what it sends with 65535:0;
  p1-s1-rail0's RM-GSHUT-IN sets LOCAL_PREF 0 on those routes, so the path through p1-spine1 leaves the ECMP set:
  width 1, through p1-spine2. `no bgp graceful-shutdown` (the undrain) gives 2 again.
- Measured here, not found in FRR's documentation: FRR 8.4 also lowers LOCAL_PREF of a received 65535:0 route to 0
  by itself. With the route-map removed by hand on p1-s1-rail0 the width stays 1 while the spine drains; the rendered
  policy keeps the receipt explicit and independent of the FRR version a SONiC image ships.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers import base_inventory, run_data

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="the FRR lab needs root (network namespaces, FRR daemons)"),
    pytest.mark.skipif(shutil.which("vtysh") is None, reason="FRR is not installed: apt-get install frr"),
]

PREFIX = "172.16.1.0/24"
SPINE_ASN = 4200001001
RAIL0_ASN = 4200100000


def _vtysh(ns: str, *commands: str) -> str:
    args = ["vtysh", "-N", ns]
    for c in commands:
        args += ["-c", c]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _width(ns: str) -> int:
    """The number of active next hops of PREFIX in the switch's routing table (zebra)."""
    routes = json.loads(_vtysh(ns, f"show ip route {PREFIX} json") or "{}").get(PREFIX) or []
    selected = [r for r in routes if r.get("selected")]
    return sum(1 for nh in (selected[0]["nexthops"] if selected else []) if nh.get("active"))


def _wait_width(ns: str, want: int, timeout: float = 40.0) -> int:
    end = time.monotonic() + timeout
    got = _width(ns)
    while got != want and time.monotonic() < end:
        time.sleep(1)
        got = _width(ns)
    return got


def test_graceful_shutdown_of_a_spine_narrows_the_rail_switch_ecmp(tmp_path: Path) -> None:
    from railfabric.lab import run_lab, teardown_saved
    from railfabric.lab.runs import new_run_id

    res = run_data(tmp_path, base_inventory())
    assert res.plan is not None, [f.code for f in res.findings]
    rid = new_run_id()
    rail0, spine1 = f"rf{rid}-p1-s1-rail0", f"rf{rid}-p1-spine1"
    try:
        r = run_lab(res, keep=True, say=lambda _m: None, run_id=rid)
        assert r.ok, r.verdict
        assert _wait_width(rail0, 2) == 2  # both spines
        conf = _vtysh(rail0, "show running-config")
        assert "neighbor SPINES route-map RM-GSHUT-IN in" in conf  # the rendered receiver is loaded
        # the drain (templates/sonic: the drain file the rollout loads with vtysh -f)
        _vtysh(spine1, "configure terminal", f"router bgp {SPINE_ASN}", "bgp graceful-shutdown")
        assert _wait_width(rail0, 1) == 1
        shown = json.loads(_vtysh(rail0, f"show bgp ipv4 unicast {PREFIX} json"))
        lowered = [p for p in shown["paths"] if p.get("locPrf") == 0]
        assert len(lowered) == 1 and "graceful-shutdown" in json.dumps(lowered[0].get("community", {}))
        # FRR 8.4's own receiver: without the rendered route-map the path through p1-spine1 stays at LOCAL_PREF 0
        _vtysh(rail0, "configure terminal", f"router bgp {RAIL0_ASN}", "address-family ipv4 unicast",
               "no neighbor SPINES route-map RM-GSHUT-IN in")
        _vtysh(rail0, "clear bgp ipv4 unicast * soft in")
        assert "RM-GSHUT-IN in" not in _vtysh(rail0, "show running-config")
        time.sleep(5)
        assert _wait_width(rail0, 1) == 1
        shown = json.loads(_vtysh(rail0, f"show bgp ipv4 unicast {PREFIX} json"))
        assert sorted(p.get("locPrf", 100) for p in shown["paths"]) == [0, 100]
        _vtysh(rail0, "configure terminal", f"router bgp {RAIL0_ASN}", "address-family ipv4 unicast",
               "neighbor SPINES route-map RM-GSHUT-IN in")
        # the undrain
        _vtysh(spine1, "configure terminal", f"router bgp {SPINE_ASN}", "no bgp graceful-shutdown")
        assert _wait_width(rail0, 2) == 2
    finally:
        teardown_saved(run=rid)
