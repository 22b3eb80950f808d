"""The FRR lab on a fabric with raw configuration (`raw:`, docs/underlay.md): the raw lines reach the FRR that runs,
and a raw line FRR refuses is named by the lab.

The mini fabric of tests/helpers.py: spines p1-spine1/p1-spine2 (ASN 4200001001), rail switches p1-s1-rail0 (ASN
4200100000) and p1-s1-rail1 (4200100001), each cabled once to each spine: 4 eBGP sessions. railfabric renders no BGP
timers, and its frr.conf says `frr defaults datacenter`, whose timers are keepalive 3 s, hold 9 s (FRR's "frr
defaults" documentation). The raw block re-opens rail0's `router bgp 4200100000` at the end of its frr.conf with
`timers bgp 2 6`: a session's hold time is the smaller of the two ends' (RFC 4271 §4.2), so rail0's two sessions run
with 6 s on both ends (rail0 and each spine's session to rail0), and rail1's two keep 9 s.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from railfabric.core.finding import Severity
from railfabric.lab.spec import build_spec
from railfabric.pipeline import Result, run
from tests.helpers import base_inventory, dump, write_files
from tests.test_lab import root_only, run_id  # noqa: F401  (run_id: the fixture that checks nothing is left)

TIMERS = {"name": "fast-bgp-timers", "platform": "sonic", "devices": ["p1-s1-rail0"],
          "text": "router bgp 4200100000\n timers bgp 2 6\n"}
BOGUS = {"name": "typo", "platform": "sonic", "devices": ["p1-s1-rail1"], "text": "ip prefix-lisst X seq 5 deny any\n"}


def _with_raw(tmp_path: Path, blocks: list[dict[str, Any]]) -> Result:
    inv = base_inventory()
    inv["raw"] = blocks
    res = run(write_files(tmp_path / "inv", {"fabric.yml": dump(inv)}))
    assert res.plan is not None, [str(f) for f in res.findings]
    assert not [f for f in res.findings if f.severity is Severity.ERROR], [str(f) for f in res.findings]
    return res


def test_the_lab_loads_the_raw_lines(tmp_path: Path) -> None:
    spec = build_spec(_with_raw(tmp_path, [TIMERS]))
    conf = spec.nodes["p1-s1-rail0"].frr_conf
    # after everything railfabric manages (docs/underlay.md: SONiC raw text goes at the end of frr.conf)
    assert conf.index(" timers bgp 2 6\n") > conf.index("router bgp 4200100000\n")
    assert "timers bgp" not in spec.nodes["p1-s1-rail1"].frr_conf


def spec_ns(r: Any, node: str) -> str:
    return str(r.spec.nodes[node].ns)


def _hold_times(ns: str) -> dict[str, int]:
    """Each BGP neighbour's negotiated hold time in seconds, from FRR's own `show bgp neighbors json`."""
    proc = subprocess.run(["vtysh", "-N", ns, "-c", "show bgp neighbors json"],
                          capture_output=True, text=True, timeout=30, check=True)
    return {peer: int(v["bgpTimerHoldTimeMsecs"]) // 1000 for peer, v in json.loads(proc.stdout).items()
            if isinstance(v, dict) and v.get("bgpState") == "Established"}


@root_only
def test_raw_timers_run_in_frr_and_a_refused_line_is_named(tmp_path: Path, run_id: str) -> None:  # noqa: F811
    from railfabric.lab import format_result, run_lab
    from railfabric.lab.teardown import teardown_saved

    r = run_lab(_with_raw(tmp_path, [TIMERS, BOGUS]), keep=True, say=lambda _m: None, run_id=run_id)
    try:
        # the typo is FRR's to refuse: the lab's config check names the switch, the rest of the fabric still runs
        assert not r.ok, format_result(r)
        assert [f.split(":")[0] for f in r.checks["config"].bad] == ["p1-s1-rail1"], r.checks["config"].bad
        assert "prefix-lisst" in r.checks["config"].bad[0], r.checks["config"].bad
        failing = sorted(name for name, c in r.checks.items() if c.bad)
        assert failing == ["config"], format_result(r)  # 4 sessions up, every route at its width
        assert r.checks["sessions"].total == 4
        rail0 = _hold_times(spec_ns(r, "p1-s1-rail0"))
        rail1 = _hold_times(spec_ns(r, "p1-s1-rail1"))
        spine1 = _hold_times(spec_ns(r, "p1-spine1"))
        assert sorted(rail0.values()) == [6, 6], rail0
        assert sorted(rail1.values()) == [9, 9], rail1
        # the spine's side of each session: 6 s toward rail0's address on link 1, 9 s toward rail1's
        assert sorted(spine1.values()) == [6, 9], spine1
    finally:
        teardown_saved(run=run_id)
