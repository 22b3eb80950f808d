"""The solver at its edges: the ECMP width (ECMP001), port-channel min-links, CAP001 with super-spine planes,
unreachable rail-only segments (REACH001) and BIS001 at exactly the declared oversubscription. Figures by hand.

The worked example (tests.test_solver_capacity.worked_example): one rail switch, 32 hosts × 100G = 3,200 Gbps down.
"""

from __future__ import annotations

import copy
import shutil
from fractions import Fraction
from pathlib import Path

from railfabric.checks.solver.bisection import allowance
from railfabric.checks.solver.capacity import exact
from railfabric.checks.solver.text import report_text
from railfabric.configs.render import render_device
from railfabric.core.finding import Severity
from railfabric.device import build_devices
from railfabric.outputs.docs import fabric_markdown
from railfabric.pipeline import run
from tests.helpers import EXAMPLE, base_inventory, run_data
from tests.test_solver_capacity import worked_example
from tests.test_solver_graph import two_segments

RAIL = "p1-s1-rail0"


def of(result, code: str) -> list:
    return [f for f in result.findings if f.code == code]


# --------------------------------------------------------------------------- ECMP width


def width(inv: dict, n: int) -> dict:
    inv["routing"] = {"ecmp": {"width": n}}
    return inv


def test_width_below_the_uplinks_leaves_them_idle(tmp_path: Path) -> None:
    # 4 spines × 8 × 100G = 32 routed uplinks, 3,200 Gbps cabled = 3,200 down: 1:1 as cabled. Width 16: BGP
    # installs 16 of the 32 next hops, 16 × 100G = 1,600 Gbps carries traffic: 2:1, and 16 uplinks stay idle.
    r = run_data(tmp_path, width(worked_example(link_speed="100G", links=8), 16))
    row = r.report["capacity"]["switches"][RAIL]  # type: ignore[index]
    assert (row["up_gbps"], row["cabled_up_gbps"], row["next_hops"], row["used_next_hops"]) == (1600, 3200, 32, 16)
    assert row["ratio"] == 2.0
    (cap,) = of(r, "CAP001")
    assert cap.message.startswith(f"rail switch {RAIL}: 3,200 Gbps down vs 1,600 Gbps up = 2.00:1")
    assert cap.hint.startswith("raise routing.ecmp.width to 32: today only 16 of its 32 next hops carry traffic "
                               "(1,600 of 3,200 Gbps cabled up); or declare")  # the cabling is enough: no more links
    (ecmp,) = of(r, "ECMP001")
    assert ecmp.severity is Severity.WARNING
    assert ecmp.message == (f"routing.ecmp.width 16 is below the 32 uplinks (one next hop each) of rail switch {RAIL}: "
                            "BGP installs 16 next hops, so 16 uplinks stay idle and only 1,600 of 3,200 Gbps cabled "
                            "up carries traffic")
    assert ecmp.hint.startswith("set routing.ecmp.width: 32")
    assert ecmp.location is not None and ecmp.location == r.loaded.source.loc(("routing", "ecmp", "width"))
    assert "ecmp width 16: 1 switch(es) have more next hops; 1,600 Gbps of cabled uplinks stay idle" in \
        report_text(r.report)  # type: ignore[arg-type]


def test_width_4_of_16_uplinks_is_not_1_to_1(tmp_path: Path) -> None:
    # the field report: 4 spines × 4 × 400G = 16 uplinks (6,400 Gbps cabled, 0.5:1); width 4 → 4 × 400 = 1,600
    r = run_data(tmp_path, width(worked_example(link_speed="400G", links=4), 4))
    assert r.report["capacity"]["tiers"]["rail"]["up_gbps"] == 1600  # type: ignore[index]
    assert r.report["capacity"]["tiers"]["rail"]["cabled_up_gbps"] == 6400  # type: ignore[index]
    assert [f.code for f in r.findings] == ["CAP001", "ECMP001"]
    assert "12 uplinks stay idle" in of(r, "ECMP001")[0].message


def test_width_equal_to_the_next_hops_is_clean(tmp_path: Path) -> None:
    r = run_data(tmp_path, width(worked_example(link_speed="100G", links=8), 32))
    assert r.findings == []
    assert r.report["capacity"]["switches"][RAIL]["up_gbps"] == 3200  # type: ignore[index]


def test_a_port_channel_is_one_next_hop(tmp_path: Path) -> None:
    # 32 × 100G links bundled in pairs: 16 next hops of 200G; width 16 installs all of them: 3,200 Gbps, clean
    inv = width(worked_example(link_speed="100G", links=8), 16)
    inv["pods"][0]["spines"]["port_channel_members"] = 2
    r = run_data(tmp_path, inv)
    assert r.findings == []
    row = r.report["capacity"]["switches"][RAIL]  # type: ignore[index]
    assert (row["up_gbps"], row["next_hops"], row["used_next_hops"]) == (3200, 16, 16)
    # width 8: 8 of 16 bundles = 1,600 Gbps, and 8 next hops (16 uplinks) stay idle
    r8 = run_data(tmp_path / "w8", width(inv, 8))
    (ecmp,) = of(r8, "ECMP001")
    assert "the 16 next hops (32 uplinks in port-channels)" in ecmp.message
    assert "8 next hops (16 uplinks) stay idle" in ecmp.message


def test_failures_count_the_installed_next_hops(tmp_path: Path) -> None:
    # width 32: a spine down leaves 24 of 32 × 100G = 2,400 of 3,200 (75%).
    full = run_data(tmp_path / "a", width(worked_example(link_speed="100G", links=8), 32))
    sf = full.report["failures"]["tiers"]["rail"]["switch_failure"]  # type: ignore[index]
    assert (sf["left_gbps"], sf["planned_gbps"], sf["left_pct"]) == (2400, 3200, 75.0)
    # width 16: only 16 were ever used (1,600); after a spine failure 24 remain, 16 still installed: 100%
    capped = run_data(tmp_path / "b", width(worked_example(link_speed="100G", links=8), 16))
    rail = capped.report["failures"]["tiers"]["rail"]  # type: ignore[index]
    assert (rail["planned_gbps"], rail["switch_failure"]["left_gbps"], rail["switch_failure"]["left_pct"]) == \
        (1600, 1600, 100.0)
    assert rail["link_failure"]["left_pct"] == 100.0


# --------------------------------------------------------------------------- port-channel min-links


def example_copy(tmp_path: Path, edit: tuple[str, str] | None = None) -> Path:
    d = tmp_path / "inv"
    shutil.copytree(EXAMPLE, d)
    if edit:
        p = d / "pods.yml"
        text = p.read_text()
        assert text.count(edit[0]) == 1
        p.write_text(text.replace(edit[0], edit[1]))
    return d


MEMBERS = "      port_channel_members: 2        # rail switch ↔ spine links bundled into L3 port-channels of 2\n"


def _min_links_lines(res, device: str) -> tuple[set[int], list[str]]:
    devs = build_devices(res.inventory, res.topology, res.plan)
    pcs = devs[device].port_channels
    text = render_device(devs[device])
    return {pc.min_links for pc in pcs}, [line for f in text.values() for line in f.splitlines() if "min_links" in line]


def test_example_pod_2_bundles_go_down_with_one_member() -> None:
    # pod 2: each rail switch has 4 spines × 8 × 800G = 25,600 Gbps in 16 port-channels of 2 × 800G = 1,600.
    # Default min-links = members (2): one member down takes its bundle down, 15 × 1,600 = 24,000 = 93.75% left.
    res = run(EXAMPLE)
    assert res.report["failures"]["port_channels"] == [  # type: ignore[index]
        {"pod": 2, "members": 2, "min_links": 2, "member_failure": "bundle down", "worst_hit": "p2-s1-rail0-1-2-3",
         "left_gbps": 24000, "planned_gbps": 25600, "left_pct": 93.75}]
    assert ("port-channels of pod 2: 2 members, min-links 2: one member down = bundle down; p2-s1-rail0-1-2-3 keeps "
            "93.75% (24,000 of 25,600 Gbps)") in report_text(res.report)  # type: ignore[arg-type]
    mins, lines = _min_links_lines(res, "p2-s1-rail0-1-2-3")
    assert mins == {2} and lines and all('"min_links": "2"' in line for line in lines)


def test_min_links_1_keeps_a_degraded_bundle_that_halves_the_switch(tmp_path: Path) -> None:
    # min-links 1: the bundle stays up on 800G but still gets 1/16 of the traffic (equal-cost next hops), so the
    # switch sends at most 16 × 800 = 12,800 of 25,600 Gbps without congesting it: 50%.
    d = example_copy(tmp_path, (MEMBERS, MEMBERS + "      port_channel_min_links: 1\n"))
    res = run(d)
    assert res.findings == []
    (pc,) = res.report["failures"]["port_channels"]  # type: ignore[index]
    assert (pc["min_links"], pc["member_failure"], pc["left_gbps"], pc["left_pct"]) == (1, "bundle degraded",
                                                                                         12800, 50.0)
    assert res.report["failures"]["tiers"]["rail"]["link_failure"]["worst_hit"] == "p2-s1-rail0-1-2-3"  # type: ignore
    mins, lines = _min_links_lines(res, "p2-spine1")
    assert mins == {1} and all('"min_links": "1"' in line for line in lines)


def test_min_links_above_the_members_is_refused(tmp_path: Path) -> None:
    res = run(example_copy(tmp_path, (MEMBERS, MEMBERS + "      port_channel_min_links: 3\n")))
    (f,) = [f for f in res.findings if f.severity is Severity.ERROR]
    assert f.code == "SCH003" and "port_channel_min_links 3 is above port_channel_members 2" in f.message
    inv = base_inventory()
    inv["pods"][0]["spines"]["port_channel_min_links"] = 1  # no port-channels at all: refused, not ignored
    (g,) = [f for f in run_data(tmp_path / "b", inv).findings if f.severity is Severity.ERROR]
    assert "needs port_channel_members" in g.message


# --------------------------------------------------------------------------- CAP001 with planes


def test_cap001_hint_counts_the_super_spines_of_the_plane(tmp_path: Path) -> None:
    # 4 rail switches × 800G into each spine = 3,200 down; 4 super-spines in 2 planes: a spine meets the 2 of its
    # plane, 1 × 800G each = 1,600 up (2:1); 1,600 more = 2 more 800G links = 1 more to each of its 2 super-spines
    inv = worked_example(rails=4, super_spines=4)
    inv["super_spines"]["planes"] = 2
    (f,) = of(run_data(tmp_path, inv), "CAP001")
    assert f.message.startswith("4 spine switches (p1-spine1 … p1-spine4): 3,200 Gbps down vs 1,600 Gbps up")
    assert f.hint.startswith("it needs 1,600 Gbps more up: 2 more 800G uplink(s) (links_per_super_spine 1 → 2 on "
                             "each of 2 super-spines)")


# --------------------------------------------------------------------------- reachability


def rail_only_two_segments() -> dict:
    inv = base_inventory()
    del inv["pods"][0]["spines"]
    seg2 = copy.deepcopy(inv["pods"][0]["segments"][0])
    seg2["id"] = 2
    inv["pods"][0]["segments"].append(seg2)
    return inv


def test_rail_only_segments_of_one_pod_cannot_reach_each_other(tmp_path: Path) -> None:
    r = run_data(tmp_path, rail_only_two_segments())
    (f,) = r.findings
    assert (f.code, f.severity) == ("REACH001", Severity.WARNING)
    assert f.message == ("pod 1: its segments form 2 islands that cannot reach each other at all (1/1 | 1/2): the "
                         "pod has no spines (rail-only), so a host reaches only the hosts of its own segment; a job "
                         "cannot span them")
    assert f.location == r.loaded.source.loc(("pods", 0))
    assert r.report["reachability"]["islands"] == [  # type: ignore[index]
        {"segments": ["1/1"], "text": "pod 1 segment 1"}, {"segments": ["1/2"], "text": "pod 1 segment 2"}]
    text = report_text(r.report)  # type: ignore[arg-type]
    block = "reachability: 2 islands that cannot reach each other:\n  pod 1 segment 1\n  pod 1 segment 2\n"
    assert block in text
    assert block in fabric_markdown(r.summary(), r.report)  # type: ignore[arg-type]


def test_one_rail_only_segment_is_one_island(tmp_path: Path) -> None:
    inv = base_inventory()
    del inv["pods"][0]["spines"]
    r = run_data(tmp_path, inv)
    assert of(r, "REACH001") == []
    assert "reachability: every host can reach every other (one island)" in report_text(r.report)  # type: ignore


def test_example_rail_only_pod_is_its_own_island_by_design() -> None:
    res = run(EXAMPLE)
    assert of(res, "REACH001") == []
    assert [i["segments"] for i in res.report["reachability"]["islands"]] == [  # type: ignore[index]
        ["1/1", "1/2", "2/1"], ["3/1"]]


# --------------------------------------------------------------------------- BIS001 at the declared ratio


def test_bisection_at_exactly_the_declared_ratio_is_fine(tmp_path: Path) -> None:
    # two segments of 4 hosts × 2 × 400G = 3,200 Gbps each; one spine: each rail switch 1 × 800G up, 2:1.
    # Max-flow between the segments = segment 1's two uplinks = 1,600 = 3,200 / 2: exactly what 2:1 accepts.
    inv = two_segments()
    inv["pods"][0]["spines"].update(count=1, ports_per_segment=16)
    inv["solver"] = {"oversubscription": {"rail": 2.0}}
    r = run_data(tmp_path, inv)
    assert r.findings == []
    bis = r.report["bisection"]  # type: ignore[index]
    assert (bis["max_flow_gbps"], bis["full_gbps"], bis["allowed_ratio"], bis["floor_gbps"]) == (1600, 3200, 2.0,
                                                                                                  1600.0)


def test_bisection_just_below_the_declared_ratio_is_bis001(tmp_path: Path) -> None:
    inv = two_segments()
    inv["pods"][0]["spines"].update(count=1, ports_per_segment=16)
    inv["solver"] = {"oversubscription": {"rail": 1.99}}  # accepts down to 3,200 / 1.99 = 1,608.04 Gbps
    r = run_data(tmp_path, inv)
    (f,) = of(r, "BIS001")
    assert "max-flow 1,600 Gbps is below 3,200 Gbps" in f.message
    assert "and below 1,608 Gbps, what the declared oversubscription (1.99:1) accepts" in f.message
    assert sorted({c.code for c in r.findings}) == ["BIS001", "CAP001"]  # CAP001: one per segment


def test_declared_ratios_are_exact_rationals(tmp_path: Path) -> None:
    assert exact(1.1) == Fraction(11, 10)  # not 1.100000000000000088817841970012523...
    inv = base_inventory()
    inv["solver"] = {"oversubscription": {"rail": 1.1, "spine": 1.5}}
    res = run_data(tmp_path, inv)
    assert allowance(res.inventory, "segment") == Fraction(11, 10)  # type: ignore[arg-type]
    assert allowance(res.inventory, "pod") == Fraction(33, 20)  # type: ignore[arg-type]
