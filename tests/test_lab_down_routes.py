"""`fabric lab --down` under a pod aggregate (blackholing spines) and on a dual-stack fabric (the IPv6 twins).

Two fabrics, each derived by hand from the inventory (tests.helpers' mini fabric: per pod 2 spines pN-spine1/2, one
single-rail segment of 2 rails, rail switches pN-s1-rail0/1, 4 hosts of 2 GPUs and 2 NICs, NIC r on rail r; one
link per (rail switch, spine), one per (spine, super-spine)):

TWO PODS with routing.spine_pod_aggregate, under 2 super-spines. Rail subnets: pools.rail_subnets 172.16.0.0/12,
segment_rail_block 21, limits.segments_per_pod 4: segment slot (pod-1)·4 + (segment-1) owns the slot-th /21, rail r
its r-th /24: pod 1's are 172.16.0.0/24 and 172.16.1.0/24 (slot 0), pod 2's 172.16.32.0/24 and 172.16.33.0/24
(slot 4: 4 × 8 = 32). A pod's rail block is its 4 segment slots, 4 × /21 = /19: the spines of pod 1 advertise
172.16.0.0/19 summary-only, those of pod 2 172.16.32.0/19, and no rail switch holds any /24 but its own.
Down: the link p1-s1-rail0>p1-spine1#1. p1-spine1 loses its only route to 172.16.0.0/24 but keeps 172.16.1.0/24
(p1-s1-rail1), so it keeps advertising 172.16.0.0/19: it blackholes p1-s1-rail0's /24 (SUM001's case, RFC 7938
§8.2), seen in FRR as 172.16.0.0/19 still at both super-spines with a next hop to p1-spine1 while p1-spine1 has no
172.16.0.0/24. p1-spine2 keeps both /24s; pod 2 is untouched. Blackhole items: 4 rail switches × the 2 spines of
their pod = 8, exactly one blackholing (p1-s1-rail0, p1-spine1).
Widths (the aggregates are what the rail switches route by): p1-s1-rail0 has one live uplink left (p1-spine2), so 1
next hop toward both /19s; every other rail switch keeps its 2 spines: 2 toward both /19s. 4 × 2 = 8 widths.
Nothing withdrawn, unreachable or isolated (a spine link carries no GPU); impact's changed destinations (every
width from p1-s1-rail0) are /24s under an aggregate: no histogram FRR could show, said so.

DUAL-STACK one pod, test_lab_down's fabric of 4 single-rail switches (rails 0-3, 4 hosts of 4 NICs) with
routing.address_families [ipv4, ipv6] and pools.rail_subnets_v6 2001:db8:100::/48: segment slot 0 owns
2001:db8:100::/56, rail r its /64 number r (railfabric/plan/allocate_v6.py): 172.16.r.0/24 ↔ 2001:db8:100:r::/64.
Down: p1-s1-rail0, IPv4 as test_lab_down's (a): at rail switches 1-3 the 2 other /24s at 2 spines × 1 link = 2
(6 widths) and 172.16.0.0/24 absent (3 unreachable), absent at the 5 live switches as withdrawn (5) and as the
isolated GPUs' subnet (5: NIC 0 of the 4 hosts). The IPv6 twins the same: 6 + 3 + 5 + 5 = 19 IPv6 items.
The lab tests need root and FRR (skipped with the reason otherwise).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.lab.downcheck import compare
from railfabric.lab.expect import expected
from railfabric.lab.spec import build_spec
from railfabric.lab.verify import Observed
from railfabric.pipeline import Result
from tests.helpers import base_inventory, run_data
from tests.test_ipv6 import dual
from tests.test_lab_down import _counts, _lab, needs_lab

LINK = "p1-s1-rail0>p1-spine1#1"
AGG = {1: "172.16.0.0/19", 2: "172.16.32.0/19"}
SUBNET = {"p1-s1-rail0": "172.16.0.0/24", "p1-s1-rail1": "172.16.1.0/24", "p2-s1-rail0": "172.16.32.0/24",
          "p2-s1-rail1": "172.16.33.0/24"}
RAILS = list(SUBNET)


def _two_pods(tmp_path: Path) -> Result:
    data = base_inventory()
    data["pods"].append({**data["pods"][0], "id": 2})
    data["super_spines"] = {"count": 2, "model": "sw64"}
    data["routing"] = {"spine_pod_aggregate": True}
    res = run_data(tmp_path, data)
    assert res.plan is not None, [f.code for f in res.findings]
    assert {sw: str(s.prefix) for (sw, _r), s in res.plan.rail_subnets.items()} == SUBNET
    return res


def _prepare(res: Result, *names: str):
    from railfabric.lab.downrun import prepare_down

    spec = build_spec(res)
    return prepare_down(res, spec, expected(spec), names)


def _scenario_aggregate(tmp_path: Path):
    dr = _prepare(_two_pods(tmp_path), LINK)
    p = dr.prediction
    assert p.report["routes"]["blackholing"] == [{"rail_switches": ["p1-s1-rail0"], "spines": ["p1-spine1"]}]
    hand = {x: {AGG[1]: 2, AGG[2]: 2} for x in RAILS}
    hand["p1-s1-rail0"] = {AGG[1]: 1, AGG[2]: 1}
    assert p.widths == hand
    assert [(y, mine, s, aggs, named) for y, mine, s, aggs, named in p.blackholes] == [
        (y, [SUBNET[y]], f"p{y[1]}-spine{k}", [AGG[int(y[1])]], (y, k) == ("p1-s1-rail0", 1))
        for y in RAILS for k in (1, 2)]
    assert p.withdrawn == [] and p.isolated_gpus == 0 and p.histograms == [] and p.v6 == {}
    assert p.aggregate_note == ""
    return dr


def test_pod_aggregate_blackhole_prediction(tmp_path: Path) -> None:
    dr = _scenario_aggregate(tmp_path)
    legit = {n.key: n.why for n in dr.not_run() if n.legitimate}
    assert legit["down-histogram"].startswith("the changed destinations' prefixes reach the rail switches only")
    assert "down-blackhole" not in legit and legit["down-ipv6"] == "IPv4-only fabric (routing.address_families)"


def _route(prefix: str, hops: list[tuple[str, str]]) -> dict:
    return {prefix: [{"protocol": "bgp", "selected": True,
                      "nexthops": [{"ip": ip, "interfaceName": ifn, "active": True, "fib": True} for ip, ifn in hops]}]}


def test_blackhole_compare_names_the_spine_both_ways(tmp_path: Path) -> None:
    """compare() on hand-made tables: p1-spine1 with no 172.16.0.0/24 and ss1 holding 172.16.0.0/19 through it is a
    blackhole (agrees with impact); the same spine still holding the /24 is not: one mismatch naming it, and a spine
    impact does not name (p1-spine2) shown blackholing is one too ("no more, no fewer")."""
    dr = _scenario_aggregate(tmp_path)
    p = dr.prediction
    spec = build_spec(_two_pods(tmp_path / "b"))
    ss = min(n for n in spec.nodes if spec.nodes[n].device.role == "super-spine")
    hop1, hop2 = (next(k for (n, k), peer in p.peers.items() if n == ss and peer == s and "." in k)
                  for s in ("p1-spine1", "p1-spine2"))
    nodes = list(spec.nodes)
    base = {n: Observed({}, [], {}) for n in nodes}
    base[ss] = Observed({}, [], _route(AGG[1], [(hop1, ""), (hop2, "")]))
    base["p1-spine2"] = Observed({}, [], {SUBNET["p1-s1-rail0"]: [{}], SUBNET["p1-s1-rail1"]: [{}]})
    base["p1-spine1"] = Observed({}, [], {SUBNET["p1-s1-rail1"]: [{}]})
    got = compare(spec, p, base, frozenset())["down-blackhole"]
    # (p1-s1-rail0, p1-spine1) blackholes as named; p1-spine2 holds everything; pod 2's spines: no aggregate via
    # them anywhere, not blackholing, as impact says; (p1-s1-rail1, p1-spine1): holds 172.16.1.0/24
    assert (got.total, got.bad) == (8, [])
    base["p1-spine1"] = Observed({}, [], {SUBNET["p1-s1-rail1"]: [{}], SUBNET["p1-s1-rail0"]: [{}]})
    base["p1-spine2"] = Observed({}, [], {SUBNET["p1-s1-rail1"]: [{}]})
    bad = compare(spec, p, base, frozenset())["down-blackhole"].bad
    assert bad == [f"p1-spine1: holds 172.16.0.0/24; 172.16.0.0/19 via p1-spine1 at {ss}: does not blackhole "
                   "p1-s1-rail0, impact: blackholes",
                   f"p1-spine2: no route to p1-s1-rail0's 172.16.0.0/24; 172.16.0.0/19 via p1-spine2 at {ss}: "
                   "blackholes p1-s1-rail0, impact: does not"]


@needs_lab
def test_lab_pod_aggregate_blackhole_agrees_with_impact(tmp_path: Path) -> None:
    """In FRR: the 8 aggregate widths, the 8 (rail switch, spine) blackhole items (one blackholing)."""
    dr = _scenario_aggregate(tmp_path)
    r = _lab(_two_pods(tmp_path / "lab"), dr.names)
    assert r.verdict == "PASS", r.verdict
    assert _counts(r) == {"down-widths": (8, 0), "down-unreachable": (0, 0), "down-withdrawn": (0, 0),
                          "down-isolated": (0, 0), "down-histogram": (0, 0), "down-blackhole": (8, 0),
                          "down-ipv6": (0, 0)}


# --------------------------------------------------------------------------- dual-stack


def _dual(tmp_path: Path) -> Result:
    data = dual(base_inventory())
    data["host_models"]["h4"] = {"gpus": 4, "nics": 4, "nic_speed": "400G"}
    data["pods"][0]["segments"][0].update(rails=4, host_groups=[{"model": "h4", "count": 4}])
    res = run_data(tmp_path, data)
    assert res.plan is not None and res.plan.v6 is not None, [f.code for f in res.findings]
    return res


def _scenario_dual(tmp_path: Path):
    dr = _prepare(_dual(tmp_path), "p1-s1-rail0")
    p = dr.prediction
    assert p.v6 == {"172.16.0.0/24": "2001:db8:100::/64", "172.16.1.0/24": "2001:db8:100:1::/64",
                    "172.16.2.0/24": "2001:db8:100:2::/64", "172.16.3.0/24": "2001:db8:100:3::/64"}
    assert p.widths == {f"p1-s1-rail{x}": {f"172.16.{y}.0/24": 0 if y == 0 else 2 for y in range(4) if y != x}
                        for x in range(1, 4)}
    assert p.withdrawn == ["172.16.0.0/24"] and list(p.isolated_subnets) == ["172.16.0.0/24"]
    assert p.isolated_gpus == 4
    return dr


def test_dual_stack_twins_prediction(tmp_path: Path) -> None:
    _scenario_dual(tmp_path)


def test_dual_stack_compare_fails_on_a_v6_twin_left_behind(tmp_path: Path) -> None:
    """compare() on hand-made tables, no route anywhere: IPv4 and IPv6 pass the absences and miss every width
    (6 each); 2001:db8:100::/64 at p1-spine1 on top: the IPv6 check names it (withdrawn and isolated)."""
    dr = _scenario_dual(tmp_path)
    spec = build_spec(_dual(tmp_path / "b"))
    obs = {n: Observed({}, [], {}) for n in spec.nodes if n != "p1-s1-rail0"}
    obs["p1-spine1"].routes_v6 = {"2001:db8:100::/64": [{"protocol": "bgp", "selected": True, "nexthops": []}]}
    got = compare(spec, dr.prediction, obs, frozenset({"p1-s1-rail0"}))
    assert {k: (c.total, len(c.bad)) for k, c in got.items()} == {
        "down-widths": (6, 6), "down-unreachable": (3, 0), "down-withdrawn": (5, 0), "down-isolated": (5, 0),
        "down-histogram": (0, 0), "down-blackhole": (0, 0), "down-ipv6": (19, 8)}
    assert got["down-ipv6"].bad[0] == "p1-s1-rail1: 2001:db8:100:2::/64 missing, impact 2 next-hop(s)"
    assert got["down-ipv6"].bad[6:] == [
        "p1-spine1: 2001:db8:100::/64 present (0 BGP next-hop(s)), impact: withdrawn",
        "p1-spine1: 2001:db8:100::/64 present, impact: isolated (pod 1 segment 1: 4 host(s) "
        "p1-s1-gpu001..p1-s1-gpu004)"]


@needs_lab
def test_lab_dual_stack_rail_switch_down_agrees_with_impact(tmp_path: Path) -> None:
    """In FRR, both families: the IPv4 items (6 widths, 3 unreachable, 5 withdrawn, 5 isolated), their 19 IPv6
    twins."""
    dr = _scenario_dual(tmp_path)
    r = _lab(_dual(tmp_path / "lab"), dr.names)
    assert r.verdict == "PASS", r.verdict
    assert _counts(r) == {"down-widths": (6, 0), "down-unreachable": (3, 0), "down-withdrawn": (5, 0),
                          "down-isolated": (5, 0), "down-histogram": (0, 0), "down-blackhole": (0, 0),
                          "down-ipv6": (19, 0)}


def _two_pods_dual(tmp_path: Path) -> Result:
    data = dual(base_inventory())
    data["pods"].append({**data["pods"][0], "id": 2})
    data["super_spines"] = {"count": 2, "model": "sw64"}
    data["routing"]["spine_pod_aggregate"] = True
    res = run_data(tmp_path, data)
    assert res.plan is not None and res.plan.v6 is not None, [f.code for f in res.findings]
    return res


def test_dual_stack_pod_aggregate_twins(tmp_path: Path) -> None:
    """The two-pod fabric dual-stack: pod p's IPv6 rail block is its 4 segment slots of /56 (slot (p-1)·4): pod 1
    2001:db8:100::/54, pod 2 2001:db8:100:400::/54 (slot 4 = 4 × 2^8 /64s = 0x400), the twins of 172.16.0.0/19 and
    172.16.32.0/19; the rail /64s: slot 0 rails 0-1 and slot 4 rails 0-1."""
    dr = _prepare(_two_pods_dual(tmp_path), LINK)
    assert dr.prediction.v6 == {AGG[1]: "2001:db8:100::/54", AGG[2]: "2001:db8:100:400::/54",
                                SUBNET["p1-s1-rail0"]: "2001:db8:100::/64",
                                SUBNET["p1-s1-rail1"]: "2001:db8:100:1::/64",
                                SUBNET["p2-s1-rail0"]: "2001:db8:100:400::/64",
                                SUBNET["p2-s1-rail1"]: "2001:db8:100:401::/64"}


@needs_lab
def test_lab_dual_stack_pod_aggregate_blackhole_agrees_with_impact(tmp_path: Path) -> None:
    """In FRR, both families: the IPv4 items of the two-pod scenario (8 widths, 8 blackhole items) and the same on
    their IPv6 twins, 16: p1-spine1 without 2001:db8:100::/64 while the super-spines hold 2001:db8:100::/54 through
    it."""
    dr = _prepare(_two_pods_dual(tmp_path), LINK)
    r = _lab(_two_pods_dual(tmp_path / "lab"), dr.names)
    assert r.verdict == "PASS", r.verdict
    assert _counts(r) == {"down-widths": (8, 0), "down-unreachable": (0, 0), "down-withdrawn": (0, 0),
                          "down-isolated": (0, 0), "down-histogram": (0, 0), "down-blackhole": (8, 0),
                          "down-ipv6": (16, 0)}


@needs_lab
def test_lab_fails_when_impact_misses_the_blackhole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """impact made wrong on purpose: its report names no blackholing spine. FRR still shows p1-spine1 without
    172.16.0.0/24 and both super-spines holding 172.16.0.0/19 through it: FAIL, naming p1-spine1."""
    from railfabric.lab import prediction

    real = prediction.impact

    def blind(*args, **kwargs):  # type: ignore[no-untyped-def]
        out = real(*args, **kwargs)
        out["routes"]["blackholing"] = []
        return out

    monkeypatch.setattr(prediction, "impact", blind)
    dr = _prepare(_two_pods(tmp_path), LINK)
    assert not any(named for *_rest, named in dr.prediction.blackholes)
    r = _lab(_two_pods(tmp_path / "lab"), dr.names)
    assert r.verdict == "FAIL"
    (bad,) = r.checks["down-blackhole"].bad
    assert bad.startswith("p1-spine1: no route to p1-s1-rail0's 172.16.0.0/24; 172.16.0.0/19 via p1-spine1 at ")
    assert bad.endswith(": blackholes p1-s1-rail0, impact: does not")


# --------------------------------------------------------------------------- --format json


@needs_lab
def test_lab_json_carries_the_down_comparison(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`fabric lab INV --down LINK --format json` on the two-pod aggregate fabric: stdout is one JSON object (the
    report lines go to stderr) with the verdict, the down-* counts of the scenario above (8 widths, 8 blackhole
    items) and impact's prediction as compared: p1-s1-rail0 at 1 toward both /19s, the one blackholing pair."""
    import json

    from railfabric.cli import main
    from railfabric.lab import teardown_saved

    _two_pods(tmp_path)

    try:
        code = main(["lab", str(tmp_path / "inv"), "--hosts", "0", "-q", "--down", LINK, "--format", "json"])
    finally:
        teardown_saved(inventory=str(tmp_path / "inv"))
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert code == 0 and doc["verdict"] == "PASS" and doc["exit_code"] == 0, err[-2000:]
    assert "railfabric lab run" in err
    assert {k: (c["checked"], c["ok"]) for k, c in doc["checks"].items() if k.startswith("down-")} == {
        "down-widths": (8, 8), "down-blackhole": (8, 8)}
    down = doc["down"]
    assert down["names"] == [LINK] and down["converged"] is True
    assert down["impact"]["widths"]["p1-s1-rail0"] == {AGG[1]: 1, AGG[2]: 1}
    assert [b for b in down["impact"]["blackholes"] if b["impact_blackholes"]] == [
        {"rail_switch": "p1-s1-rail0", "spine": "p1-spine1", "aggregates": [AGG[1]], "impact_blackholes": True}]
    assert sorted(n["key"] for n in doc["not_run"] if n["key"].startswith("down-")) == [
        "down-histogram", "down-ipv6", "down-isolated", "down-unreachable", "down-withdrawn"]
    assert all(n["legitimate"] for n in doc["not_run"])


def test_json_of_a_result_without_running_the_lab(tmp_path: Path) -> None:
    """result_dict on a result put together by hand (no root): the two-pod scenario's prediction, the blackhole
    check with 8 items of which one mismatched, the other categories empty. The JSON says FAIL / exit 1, carries the
    mismatch verbatim, lists impact's one blackholing pair and leaves the empty categories to not_run."""
    import json

    from railfabric.lab.report_json import result_dict, result_json
    from railfabric.lab.result import LabResult
    from railfabric.lab.verify import Check

    dr = _scenario_aggregate(tmp_path)
    spec = build_spec(_two_pods(tmp_path / "b"))
    r = LabResult(spec, expected(spec))
    dr.checks = {"down-blackhole": Check(8, ["p1-spine1: made up"])}
    r.down = dr
    r.checks.update(dr.checks)
    doc = result_dict(r)
    assert (doc["verdict"], doc["exit_code"], doc["mismatches"]) == ("FAIL", 1, 1)
    assert doc["checks"]["down-blackhole"] == {"title": "after --down: spines blackholing a pod aggregate",
                                               "checked": 8, "ok": 7, "mismatches": ["p1-spine1: made up"]}
    assert [b for b in doc["down"]["impact"]["blackholes"] if b["impact_blackholes"]] == [
        {"rail_switch": "p1-s1-rail0", "spine": "p1-spine1", "aggregates": [AGG[1]], "impact_blackholes": True}]
    assert doc["down"]["resolved"] == {LINK: dr.prediction.down.what[LINK]}
    assert "down-widths" in {n["key"] for n in doc["not_run"]}
    assert json.loads(result_json(r)) == json.loads(json.dumps(doc))
