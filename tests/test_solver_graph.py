"""Failure tolerance, summarization safety (SUM001), bisection (BIS001) and latency (LAT001), figures by hand.

The small fabric is tests.helpers.base_inventory(): 1 pod, 2 spines, one single-rail segment with 2 rail switches
(rails 0 and 1), 4 hosts × 2 NICs × 400G; each rail switch 4 × 400G down (1.6T) and 1 × 800G to each spine (1.6T up).
Defaults of the solver: cables host 3 m, fabric 30 m, core 100 m, 5 ns/m; switch latency 600 ns; budget 10,000 ns.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

from railfabric.checks.solver.bisection import contract, flow_network, max_flow
from railfabric.checks.solver.failures import single_homed_findings
from railfabric.core.finding import Severity
from railfabric.impact import Resolver, impact
from railfabric.pipeline import run
from tests.helpers import EXAMPLE, base_inventory, run_data

HOSTS = ["p1-s1-gpu001", "p1-s1-gpu002", "p1-s1-gpu003", "p1-s1-gpu004"]


def of(result, code: str) -> list:
    return [f for f in result.findings if f.code == code]


def two_pods(super_spines: int = 2) -> dict:
    """Two copies of the base pod (ids 1 and 2) joined by `super_spines` super-spines, 1 × 800G per spine each."""
    inv = base_inventory()
    pod2 = copy.deepcopy(inv["pods"][0])
    pod2["id"] = 2
    inv["pods"].append(pod2)
    inv["super_spines"] = {"count": super_spines, "model": "sw64"}
    return inv


def two_segments() -> dict:
    """The base pod with a second, identical segment (id 2)."""
    inv = base_inventory()
    seg2 = copy.deepcopy(inv["pods"][0]["segments"][0])
    seg2["id"] = 2
    inv["pods"][0]["segments"].append(seg2)
    return inv


def at(result, *path):
    return result.loaded.source.loc(path)


def line_of(location) -> str:
    return Path(location.file).read_text().splitlines()[location.line - 1]


# --------------------------------------------------------------------------- failure tolerance


def test_base_one_spine_or_one_link_down_leaves_half_of_a_rail_switch_uplink(tmp_path: Path) -> None:
    r = run_data(tmp_path, base_inventory())
    assert r.findings == []
    tiers = r.report["failures"]["tiers"]  # type: ignore[index]
    assert set(tiers) == {"rail"}  # no super-spines: spines have no uplinks to lose
    rail = tiers["rail"]
    # planned: 2 rail switches × 2 spines × 800G = 3,200 Gbps
    assert (rail["switches"], rail["planned_gbps"]) == (2, 3200)
    # p1-spine1 down: each rail switch keeps 1 × 800G of 1,600 = 50%; the tier keeps 3,200 - 2 × 800 = 1,600 = 50%
    assert rail["switch_failure"] == {"failed": "p1-spine1", "worst_hit": "p1-s1-rail0", "left_gbps": 800,
                                      "planned_gbps": 1600, "left_pct": 50.0, "tier_worst_failed": "p1-spine1",
                                      "tier_left_gbps": 1600, "tier_left_pct": 50.0}
    # one 800G link down: its rail switch keeps 800 of 1,600 = 50%; the tier keeps 2,400 of 3,200 = 75%
    assert rail["link_failure"] == {"failed": "p1-s1-rail0>p1-spine1#1", "worst_hit": "p1-s1-rail0",
                                    "left_gbps": 800, "planned_gbps": 1600, "left_pct": 50.0,
                                    "tier_left_gbps": 2400, "tier_left_pct": 75.0}


def test_a_single_spine_is_a_single_point_of_failure(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["pods"][0]["spines"].update(count=1, links_per_rail_switch=2)  # 2 × 800G to the only spine
    rail = run_data(tmp_path, inv).report["failures"]["tiers"]["rail"]  # type: ignore[index]
    assert (rail["switch_failure"]["left_gbps"], rail["switch_failure"]["left_pct"]) == (0, 0.0)
    assert rail["link_failure"]["left_pct"] == 50.0  # 800 of 1,600


def test_losing_a_rail_switch_disconnects_its_rail_on_every_host(tmp_path: Path) -> None:
    r = run_data(tmp_path, base_inventory())
    single = r.report["failures"]["single_homed"]  # type: ignore[index]
    # 4 hosts × 2 single-homed NICs; each rail switch is the only attachment of one NIC of every host
    assert (single["nics"], single["hosts"], single["rail_switches"]) == (8, 4, 2)
    assert (single["worst_switch"], single["worst_switch_nics"]) == ("p1-s1-rail0", 4)
    (seg,) = single["segments"]
    assert seg == {"pod": 1, "segment": 1, "nics": 8, "rails_by_switch": {"p1-s1-rail0": [0], "p1-s1-rail1": [1]},
                   "hosts": HOSTS}
    # worded as information, one per segment, listing the hosts
    (f,) = single_homed_findings(r.topology, r.loaded.source)  # type: ignore[arg-type]
    assert (f.code, f.severity) == ("FAIL001", Severity.INFO)
    assert f.message == ("segment 1/1: NICs are single-homed, so losing any one of its 2 rail switches disconnects "
                         "that switch's rails on all 4 hosts; e.g. with p1-s1-rail0 down, " + ", ".join(HOSTS)
                         + " lose rail 0 (NIC 0)")
    assert f.location is not None and f.location == at(r, "pods", 0, "segments", 0)  # the segment


def test_dual_homed_nics_survive_a_rail_switch_failure(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["host_models"]["h2"]["ports_per_nic"] = 2
    inv["pods"][0]["segments"][0]["dual_homing"] = "mlag"
    r = run_data(tmp_path, inv)
    single = r.report["failures"]["single_homed"]  # type: ignore[index]
    assert (single["nics"], single["segments"]) == (0, [])
    assert single_homed_findings(r.topology, r.loaded.source) == []  # type: ignore[arg-type]


def test_spine_tier_with_super_spines(tmp_path: Path) -> None:
    r = run_data(tmp_path, two_pods())
    spine = r.report["failures"]["tiers"]["spine"]  # type: ignore[index]
    # 4 spines × 2 super-spines × 800G = 6,400 planned; ss1 down: a spine keeps 800 of 1,600 = 50% and the tier
    # 6,400 - 4 × 800 = 3,200 = 50%; one core link down: 800 of 1,600 = 50%, tier 5,600 of 6,400 = 87.5%
    assert (spine["switches"], spine["planned_gbps"]) == (4, 6400)
    assert (spine["switch_failure"]["failed"], spine["switch_failure"]["worst_hit"]) == ("ss1", "p1-spine1")
    assert (spine["switch_failure"]["left_pct"], spine["switch_failure"]["tier_left_pct"]) == (50.0, 50.0)
    assert spine["link_failure"]["failed"] == "p1-spine1>ss1#1"
    assert (spine["link_failure"]["left_pct"], spine["link_failure"]["tier_left_pct"]) == (50.0, 87.5)


def test_example_failures(tmp_path: Path) -> None:
    rep = run(EXAMPLE).report["failures"]  # type: ignore[index]
    rail, spine = rep["tiers"]["rail"], rep["tiers"]["spine"]
    # rail tier, 153,600 Gbps planned. A spine down: p1-s1 switches (4 spines × 2 × 800G = 6,400) keep 4,800 = 75%;
    # p1-spine1 carries 8 × 2 × 800 + 4 × 4 × 800 = 25,600 of the tier: 128,000 / 153,600 = 83.333% left
    assert (rail["switches"], rail["planned_gbps"]) == (14, 153600)
    sf = rail["switch_failure"]
    assert (sf["failed"], sf["worst_hit"], sf["left_gbps"], sf["left_pct"]) == ("p1-spine1", "p1-s1-rail0", 4800, 75.0)
    assert (sf["tier_left_gbps"], sf["tier_left_pct"]) == (128000, 83.333)
    # one 800G link of a p1-s1 switch: 5,600 / 6,400 = 87.5% (p1-s2: 93.75%; p2-s1: a member of a port-channel of
    # 2 with min-links 2 takes the whole 1,600 bundle down: 24,000 / 25,600 = 93.75%). The tier loses most from
    # such a bundle: 153,600 - 1,600 = 152,000 = 98.958%
    assert (rail["link_failure"]["worst_hit"], rail["link_failure"]["left_pct"]) == ("p1-s1-rail0", 87.5)
    assert (rail["link_failure"]["tier_left_gbps"], rail["link_failure"]["tier_left_pct"]) == (152000, 98.958)
    # spine tier: a super-spine down takes 1/4 of every spine's uplinks (75%); the tier loses 4 × 8 × 800 (pod 1)
    # + 4 × 4 × 800 (pod 2) = 38,400 of 153,600 = 75% left; one link hurts a pod 2 spine most: 12,000 / 12,800
    assert (spine["switch_failure"]["failed"], spine["switch_failure"]["left_pct"]) == ("core-ss1", 75.0)
    assert (spine["switch_failure"]["tier_left_gbps"], spine["switch_failure"]["tier_left_pct"]) == (115200, 75.0)
    assert (spine["link_failure"]["worst_hit"], spine["link_failure"]["left_pct"]) == ("p2-spine1", 93.75)
    # every NIC is single-homed: 56 hosts × 8 NICs on 8 + 4 + 2 + 8 rail switches; a 4-rail switch of pod 2
    # carries 4 rails × 16 hosts = 64 of them
    single = rep["single_homed"]
    assert (single["nics"], single["hosts"], single["rail_switches"]) == (448, 56, 22)
    assert (single["worst_switch"], single["worst_switch_nics"]) == ("p2-s1-rail0-1-2-3", 64)
    assert [(s["pod"], s["segment"], len(s["rails_by_switch"]), len(s["hosts"])) for s in single["segments"]] == [
        (1, 1, 8, 16), (1, 2, 4, 16), (2, 1, 2, 16), (3, 1, 8, 8)]
    assert single["segments"][1]["rails_by_switch"]["p1-s2-rail0-4"] == [0, 4]
    # dual-rail (4) and multi-rail (2) switches summarize their own rails: safe; no spine pod aggregate
    assert rep["summarization"] == {"rail_switch_aggregates": 6, "rail_switch_aggregates_safe": True,
                                    "spine_pod_aggregate": False, "pods": {}}


# --------------------------------------------------------------------------- summarization


def test_spine_pod_aggregate_with_single_links_can_blackhole(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["routing"] = {"spine_pod_aggregate": True}
    r = run_data(tmp_path, inv)
    (f,) = of(r, "SUM001")
    assert f.severity is Severity.WARNING
    assert f.message == (
        "pod 1: spines advertise the pod aggregate (summary-only), and one link failure can blackhole traffic: if "
        "p1-s1-rail0>p1-spine1#1 (800G) fails, p1-spine1 keeps advertising the aggregate but has no route to "
        "p1-s1-rail0's rail subnets, so the traffic that the pod's other rail switches hash to p1-spine1 for them is "
        "dropped (RFC 7938 §8.2); 3 other rail switch ↔ spine pair(s) have a single link too")
    assert f.location is not None and f.location == at(r, "pods", 0, "spines")
    assert r.report["failures"]["summarization"]["pods"]["1"]["link_failures_to_blackhole"] == 1  # type: ignore


def test_two_links_per_spine_need_two_failures(tmp_path: Path) -> None:
    inv = two_pods()
    inv["routing"] = {"spine_pod_aggregate": True}
    for pod in inv["pods"]:
        pod["spines"].update(links_per_rail_switch=2, link_speed="400G")  # 2 × 400G per spine: still 1.6T up
    r = run_data(tmp_path, inv)
    assert of(r, "SUM001") == []
    pods = r.report["failures"]["summarization"]["pods"]  # type: ignore[index]
    assert pods["1"] == {"link_failures_to_blackhole": 2, "rail_switch": "p1-s1-rail0", "spine": "p1-spine1",
                         "links": ["p1-s1-rail0>p1-spine1#1", "p1-s1-rail0>p1-spine1#2"]}


def test_example_with_pod_aggregate(tmp_path: Path) -> None:
    inv = tmp_path / "inv"
    shutil.copytree(EXAMPLE, inv)
    fabric = inv / "fabric.yml"
    text = fabric.read_text()
    assert text.count("  bfd: true\n") == 1
    fabric.write_text(text.replace("  bfd: true\n", "  bfd: true\n  spine_pod_aggregate: true\n"))
    r = run(inv)
    assert of(r, "SUM001") == []
    pods = r.report["failures"]["summarization"]["pods"]  # type: ignore[index]
    # pod 1: 2 links per (rail switch, spine) in segment 1 (4 in segment 2); pod 2: 8 links per spine bundled into
    # 4 port-channels of 2 with min-links 2 (the default: all members), so one member failure takes a bundle down:
    # 4 failures, one member of each bundle (not 8: the solver counted every link before it shared impact's model)
    assert {p: v["link_failures_to_blackhole"] for p, v in pods.items()} == {"1": 2, "2": 4}
    p2 = pods["2"]
    assert (p2["rail_switch"], p2["spine"]) == ("p2-s1-rail0-1-2-3", "p2-spine1")
    assert p2["links"] == [f"p2-s1-rail0-1-2-3>p2-spine1#{n}" for n in (1, 3, 5, 7)]
    # and `fabric impact` with exactly those 4 links down lists p2-spine1 as blackholing that switch's subnets
    assert r.inventory is not None and r.topology is not None and r.plan is not None
    out = impact(r.inventory, r.topology, r.plan, Resolver(r.topology).resolve(p2["links"]))
    assert out["routes"]["blackholing"] == [{"rail_switches": ["p2-s1-rail0-1-2-3"], "spines": ["p2-spine1"]}]
    # and 3 of them are not enough: the fourth bundle keeps p2-spine1's route
    out = impact(r.inventory, r.topology, r.plan, Resolver(r.topology).resolve(p2["links"][:3]))
    assert out["routes"]["blackholing"] == []


# --------------------------------------------------------------------------- bisection


def test_base_bisection_splits_the_hosts(tmp_path: Path) -> None:
    b = run_data(tmp_path, base_inventory()).report["bisection"]  # type: ignore[index]
    # one segment: hosts 1-2 | 3-4, 2 × 2 × 400G = 1,600 each; rail r of either half meets on rail switch r
    assert (b["split"], b["a"], b["b"]) == ("host", "hosts p1-s1-gpu001 … p1-s1-gpu002 (segment 1/1)",
                                            "hosts p1-s1-gpu003 … p1-s1-gpu004")
    assert (b["a_host_gbps"], b["b_host_gbps"], b["half_host_gbps"], b["max_flow_gbps"]) == (1600, 1600, 1600, 1600)


def test_segments_of_one_pod(tmp_path: Path) -> None:
    ok = run_data(tmp_path / "a", two_segments())
    b = ok.report["bisection"]  # type: ignore[index]
    # segment 1 | segment 2: 4 hosts × 2 × 400G = 3,200 each side; segment 1 reaches the spines with
    # 2 rail switches × 2 spines × 800G = 3,200: full bisection
    assert (b["split"], b["a"], b["b"]) == ("segment", "segment 1/1", "segment 1/2")
    assert (b["half_host_gbps"], b["full_gbps"], b["max_flow_gbps"], b["ratio"]) == (3200, 3200, 3200, 1.0)
    assert of(ok, "BIS001") == []

    inv = two_segments()
    inv["pods"][0]["spines"]["link_speed"] = "400G"  # 2 rail switches × 2 spines × 400G = 1,600 up per segment
    bad = run_data(tmp_path / "b", inv)
    b = bad.report["bisection"]  # type: ignore[index]
    assert (b["max_flow_gbps"], b["ratio"], b["min_cut_gbps"]) == (1600, 0.5, {"fabric": 1600})
    (f,) = of(bad, "BIS001")
    assert f.severity is Severity.WARNING
    assert f.message == ("bisection between segment 1/1 and segment 1/2: max-flow 1,600 Gbps is below 3,200 Gbps, "
                         "the host bandwidth of the smaller half (50%; half the fabric's host bandwidth is 3,200 "
                         "Gbps); the min cut runs through fabric links 1,600 Gbps")
    assert f.location is not None and f.location == at(bad, "pods", 0, "spines")


def test_two_pods_over_super_spines(tmp_path: Path) -> None:
    ok = run_data(tmp_path / "a", two_pods())
    b = ok.report["bisection"]  # type: ignore[index]
    # pod 1 | pod 2: 3,200 Gbps of hosts each; pod 1 → spines 2 × 2 × 800G = 3,200, spines → super-spines
    # 2 spines × 2 super-spines × 800G = 3,200: nothing below 3,200
    assert (b["split"], b["a"], b["b"], b["left_out_pods"]) == ("pod", "pod 1", "pod 2", [])
    assert (b["full_gbps"], b["max_flow_gbps"]) == (3200, 3200)
    assert of(ok, "BIS001") == []

    inv = two_pods()
    inv["pods"][1]["spines"]["super_spine_link_speed"] = "400G"  # pod 2: 2 × 2 × 400G = 1,600 to the super-spines
    bad = run_data(tmp_path / "b", inv)
    b = bad.report["bisection"]  # type: ignore[index]
    assert (b["max_flow_gbps"], b["min_cut_gbps"]) == (1600, {"core": 1600})
    (f,) = of(bad, "BIS001")
    assert "max-flow 1,600 Gbps is below 3,200 Gbps" in f.message and "core links 1,600 Gbps" in f.message
    assert f.location is not None and f.location == at(bad, "pods", 1, "spines")  # pod 2's spines
    assert of(bad, "CAP001")  # the same spines are oversubscribed 2:1


def test_example_bisection(tmp_path: Path) -> None:
    b = run(EXAMPLE).report["bisection"]  # type: ignore[index]
    # pods with spines: 1 (32 hosts × 8 × 400G = 102,400) and 2 (16 × 3,200 = 51,200); pod 3 is rail-only.
    # Pod 1 | pod 2 is the only cut; pod 2 sends 4 spines × 4 super-spines × 4 × 800G = 51,200 up: full.
    assert (b["split"], b["a"], b["b"], b["left_out_pods"]) == ("pod", "pod 1", "pod 2", [3])
    assert (b["a_host_gbps"], b["b_host_gbps"], b["half_host_gbps"]) == (102400, 51200, 76800)
    assert (b["full_gbps"], b["max_flow_gbps"], b["ratio"]) == (51200, 51200, 1.0)
    # contraction: the 12 pod-1 rail switches (twins: 12,800 to every spine, 51,200 of hosts per segment) → 1,
    # pod 1 spines → 1, super-spines → 1, pod 2 spines → 1, pod 2 rail switches → 1, plus source and sink
    assert b["graph"]["nodes"] == 7


def test_contraction_keeps_the_max_flow(tmp_path: Path) -> None:
    inv = two_pods(super_spines=3)
    inv["pods"][1]["spines"].update(count=3, super_spine_link_speed="400G")
    inv["pods"][0]["segments"][0]["host_groups"][0]["count"] = 6
    cases = [run(EXAMPLE), run_data(tmp_path, inv)]
    for r in cases:
        topo = r.topology
        side = {h.name: (0 if h.pod == 1 else 1) for h in topo.hosts.values()}  # type: ignore[union-attr]
        plain = max_flow(*flow_network(topo, side))[0]  # type: ignore[arg-type]
        nbr, s_cap, t_cap = flow_network(topo, side)  # type: ignore[arg-type]
        contract(nbr, s_cap, t_cap, {n: topo.switches[n].role for n in nbr})  # type: ignore[union-attr]
        assert max_flow(nbr, s_cap, t_cap)[0] == plain
        assert len(nbr) < len(topo.switches)  # type: ignore[union-attr]


# --------------------------------------------------------------------------- latency


def test_base_hops_and_latency(tmp_path: Path) -> None:
    lat = run_data(tmp_path, base_inventory()).report["latency"]  # type: ignore[index]
    same, in_pod = lat["paths"]["same-rail"], lat["paths"]["in-pod"]
    # same rail, same segment: 1 switch × 600 ns + (3 + 3) m × 5 ns/m = 600 + 30 = 630 ns
    assert (same["switches"], same["switch_ns"], same["cable_m"], same["latency_ns"]) == (1, 600, 6, 630)
    # cross-rail: rail-spine-rail, 3 × 600 ns + (3 + 30 + 30 + 3) m × 5 ns/m = 1,800 + 330 = 2,130 ns
    assert (in_pod["switches"], in_pod["switch_ns"], in_pod["cable_m"], in_pod["cable_ns"], in_pod["latency_ns"]) \
        == (3, 1800, 66, 330, 2130)
    assert in_pod["path"] == ["p1-s1-rail0", "p1-spine1", "p1-s1-rail1"]
    assert "cross-pod" not in lat["paths"]
    assert (lat["worst_case_switch_hops"], lat["worst_latency_ns"]) == (3, 2130)


def test_cross_pod_is_five_switches(tmp_path: Path) -> None:
    lat = run_data(tmp_path, two_pods()).report["latency"]  # type: ignore[index]
    x = lat["paths"]["cross-pod"]
    # 5 × 600 ns + (3 + 30 + 100 + 100 + 30 + 3) m × 5 ns/m = 3,000 + 1,330 = 4,330 ns
    assert (x["switches"], x["switch_ns"], x["cable_m"], x["latency_ns"]) == (5, 3000, 266, 4330)
    assert x["path"] == ["p1-s1-rail0", "p1-spine1", "ss1", "p2-spine1", "p2-s1-rail0"]
    assert lat["worst_case_switch_hops"] == 5


def test_settings_and_model_latency(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["switch_models"]["sw64"]["latency_ns"] = 450
    inv["solver"] = {"cable": {"host_m": 2, "fabric_m": 50}, "fiber_ns_per_m": 4}
    in_pod = run_data(tmp_path, inv).report["latency"]["paths"]["in-pod"]  # type: ignore[index]
    # 3 × 450 ns + (2 + 50 + 50 + 2) m × 4 ns/m = 1,350 + 416 = 1,766 ns
    assert (in_pod["switch_ns"], in_pod["cable_ns"], in_pod["latency_ns"]) == (1350, 416, 1766)


def test_budget_below_the_cross_rail_path_is_lat001(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["solver"] = {"latency_budget_ns": 2000}  # same-rail 630 fits, rail-spine-rail 2,130 does not
    r = run_data(tmp_path, inv)
    (f,) = of(r, "LAT001")
    assert f.severity is Severity.ERROR
    assert f.message == ("worst-case cross-rail / cross-segment inside a pod (rail-spine-rail) path p1-s1-rail0 → "
                         "p1-spine1 → p1-s1-rail1 takes 2,130 ns one way, above the 2,000 ns budget: switches 3 × 600 "
                         "ns = 1,800 ns + 66 m of cable × 5 ns/m = 330 ns")
    assert f.location is not None and "latency_budget_ns" in line_of(f.location)
    assert r.report["latency"]["paths"]["same-rail"]["within_budget"] is True  # type: ignore[index]


def test_rail_only_pod_has_same_rail_paths_only(tmp_path: Path) -> None:
    inv = base_inventory()
    del inv["pods"][0]["spines"]
    r = run_data(tmp_path, inv)
    lat = r.report["latency"]  # type: ignore[index]
    assert list(lat["paths"]) == ["same-rail"] and lat["worst_case_switch_hops"] == 1
    assert lat["rail_only_pods"] == [1]
    assert r.report["failures"]["tiers"] == {}  # type: ignore[index]


def test_example_hops_and_latency() -> None:
    lat = run(EXAMPLE).report["latency"]  # type: ignore[index]
    # defaults: 600 ns switches, 3 / 30 / 100 m of cable at 5 ns/m
    # same-rail 600 + 6 × 5 = 630; in-pod 1,800 + 66 × 5 = 2,130; cross-pod 3,000 + 266 × 5 = 4,330 ns
    assert {k: (v["switches"], v["latency_ns"]) for k, v in lat["paths"].items()} == {
        "same-rail": (1, 630), "in-pod": (3, 2130), "cross-pod": (5, 4330)}
    assert (lat["worst_case_switch_hops"], lat["worst_latency_ns"], lat["budget_ns"]) == (5, 4330, 10000)
    assert lat["rail_only_pods"] == [3]  # pod 3: same-rail paths only, no path to the other pods
    assert lat["paths"]["cross-pod"]["path"] == ["p1-s1-rail0", "p1-spine1", "core-ss1", "p2-spine1",
                                                 "p2-s1-rail0-1-2-3"]
