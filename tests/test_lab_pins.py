"""The FRR lab on a fabric with pins (devices.<name>.asn / loopback / router_id): it still converges.

The mini fabric of tests/helpers.py: 2 spines (ASN 4200001001), p1-s1-rail0 and p1-s1-rail1 (computed loopbacks
10.0.0.40 / 10.0.0.41, ASNs 4200100000 / 4200100001: tests/test_pins.py derives them), each cabled once to each spine
→ 4 sessions. Pinned: p1-s1-rail0 asn 4200199999 and loopback 10.0.7.7, p1-s1-rail1 router_id 10.255.0.1.
"""

from __future__ import annotations

from pathlib import Path

from railfabric.lab.expect import expected
from railfabric.lab.spec import build_spec
from railfabric.pipeline import Result, run
from tests.helpers import base_inventory, dump, write_files
from tests.test_lab import root_only, run_id  # noqa: F401  (run_id: the fixture that checks nothing is left)

PINS = ("devices:\n  p1-s1-rail0:\n    asn: 4200199999\n    loopback: 10.0.7.7\n"
        "  p1-s1-rail1:\n    router_id: 10.255.0.1\n")


def _pinned(tmp_path: Path) -> Result:

    d = tmp_path / "inv"
    write_files(d, {"fabric.yml": dump(base_inventory()), "devices.yml": PINS})
    res = run(d)
    assert res.plan is not None and not [f for f in res.findings if f.severity == "error"]
    return res


def test_lab_expectations_follow_the_pins(tmp_path: Path) -> None:
    spec = build_spec(_pinned(tmp_path))
    exp = expected(spec)
    # rail0's two sessions (one per spine) run from its pinned ASN to the spines' 4200001001
    asns = sorted((s.a_as, s.z_as) if s.a == "p1-s1-rail0" else (s.z_as, s.a_as)
                  for s in exp.sessions if "p1-s1-rail0" in (s.a, s.z))
    assert asns == [(4200199999, 4200001001)] * 2
    # the pinned loopback: one path from each spine (its direct link), two from rail1 (over both spines)
    assert exp.routes["p1-spine1"]["10.0.7.7/32"] == 1 and exp.routes["p1-spine2"]["10.0.7.7/32"] == 1
    assert exp.routes["p1-s1-rail1"]["10.0.7.7/32"] == 2
    assert "10.0.0.40/32" not in exp.routes["p1-s1-rail1"]  # the computed address is nobody's now
    assert "bgp router-id 10.255.0.1" in spec.nodes["p1-s1-rail1"].frr_conf
    assert "router bgp 4200199999" in spec.nodes["p1-s1-rail0"].frr_conf


@root_only
def test_lab_with_pins_converges(tmp_path: Path, run_id: str) -> None:  # noqa: F811
    from railfabric.lab import format_result, run_lab

    r = run_lab(_pinned(tmp_path), say=lambda _m: None, run_id=run_id)
    assert r.ok, format_result(r)
