"""The solver's worst-case failure tables and `fabric impact` never disagree (issue 32): both ask
railfabric/checks/solver/after_failure.py. Property: over EVERY single upper switch and EVERY single uplink (each
port-channel member on its own) of a fabric, `impact`'s per-switch uplinks left give the same worst case the solver
reports per tier: the smallest share any surviving switch keeps and the smallest tier total left; and `impact` on
the very failure the solver names gives the Gbps the solver gives its worst-hit switch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.impact import Resolver, impact
from railfabric.impact.uplinks import downlinks, tier_members, uplink_states
from railfabric.pipeline import Result, run
from tests.helpers import EXAMPLE, base_inventory, mlag_inventory, run_data


def _two_pods_bundled(min_links: int) -> dict:
    """Two pods of the base fabric under 2 super-spines, 4 × 400G per (rail switch, spine) bundled by 2 (min-links
    `min_links`: 1 leaves a member failure degraded, 2 takes the bundle down)."""
    inv = base_inventory()
    inv["pods"][0]["spines"].update(links_per_rail_switch=4, link_speed="400G", port_channel_members=2,
                                    port_channel_min_links=min_links)
    pod2 = {**inv["pods"][0], "id": 2}
    inv["pods"].append(pod2)
    inv["super_spines"] = {"count": 2, "model": "sw64"}
    return inv


FABRICS = {
    "base": base_inventory,
    "mlag": mlag_inventory,
    "bundles-min1": lambda: _two_pods_bundled(1),
    "bundles-min2": lambda: _two_pods_bundled(2),
}


def _fabric(name: str, tmp_path: Path) -> Result:
    res = run(EXAMPLE) if name == "example" else run_data(tmp_path, FABRICS[name]())
    assert res.inventory is not None and res.topology is not None and res.plan is not None, res.findings
    return res


def _single_failures(res: Result, tier: str) -> tuple[list[str], list[str]]:
    """The upper switches and the member links above the switches of `tier`."""
    assert res.inventory is not None and res.topology is not None
    members = {n for n, t in tier_members(res.inventory, res.topology).items() if t == tier}
    links = [lk for lk in res.topology.links if lk.a.device in members and lk.role.value != "host"]
    return sorted({lk.z.device for lk in links}), [lk.id for lk in links]


def _after(res: Result, tier: str, switches: list[str], links: list[str]) -> tuple[float, int, dict]:
    """(the smallest share of its uplinks a surviving switch of `tier` keeps, the tier's total left, per switch)
    after these switches and links are down, from `impact`'s computation."""
    assert res.inventory is not None and res.topology is not None
    down = Resolver(res.topology).resolve([*switches, *links])
    planned, live, _ = downlinks(res.topology, down)
    ups = {n: u for n, u in uplink_states(res.inventory, res.topology, down, planned, live).items() if u.tier == tier}
    alive = [u for u in ups.values() if u.planned and u.switch not in down.switches]
    return min(u.left / u.planned for u in alive), sum(u.left for u in ups.values() if u.planned), ups


@pytest.mark.parametrize("name", ["example", *FABRICS])
def test_solver_worst_case_is_impact_worst_case(name: str, tmp_path: Path) -> None:
    res = _fabric(name, tmp_path)
    tiers = res.report["failures"]["tiers"]
    assert tiers, name
    for tier, row in tiers.items():
        uppers, links = _single_failures(res, tier)
        assert uppers and links
        sw, lk = row["switch_failure"], row["link_failure"]
        by_switch = [_after(res, tier, [u], []) for u in uppers]
        by_link = [_after(res, tier, [], [lid]) for lid in links]
        assert min(s for s, _t, _u in by_switch) == pytest.approx(sw["left_gbps"] / sw["planned_gbps"]), tier
        assert min(t for _s, t, _u in by_switch) == sw["tier_left_gbps"], tier
        assert min(s for s, _t, _u in by_link) == pytest.approx(lk["left_gbps"] / lk["planned_gbps"]), tier
        assert min(t for _s, t, _u in by_link) == lk["tier_left_gbps"], tier
        # impact on the very failure the solver names: the worst-hit switch keeps what the solver says
        assert _after(res, tier, [sw["failed"]], [])[2][sw["worst_hit"]].left == sw["left_gbps"]
        assert _after(res, tier, [sw["tier_worst_failed"]], [])[1] == sw["tier_left_gbps"]
        assert _after(res, tier, [], [lk["failed"]])[2][lk["worst_hit"]].left == lk["left_gbps"]


def test_example_values_by_hand() -> None:
    # the example's rail tier is every rail switch of pods 1 and 2: pod 1 8 × 6.4T + 4 × 12.8T = 102.4T, pod 2
    # 2 × 16 next hops of 1.6T = 51.2T: 153.6T. p1-spine1 down: every pod-1 rail switch keeps 3 of its 4 spines,
    # p1-s1-rail0 6 × 800G = 4.8T of 6.4T (75 %), and pod 1 loses a quarter: 153.6T − 25.6T = 128T (83.333 %).
    # One link p1-s1-rail0>p1-spine1#1: p1-s1-rail0 keeps 7 × 800G = 5.6T (87.5 %, the lowest share); the tier's
    # biggest single-link loss is elsewhere: a pod-2 member takes its 1.6T bundle down (min-links 2), so a pod-2
    # switch keeps 15 × 1.6T = 24T of 25.6T: 153.6T − 1.6T = 152T.
    res = run(EXAMPLE)
    rail = res.report["failures"]["tiers"]["rail"]
    sw, lk = rail["switch_failure"], rail["link_failure"]
    assert (sw["failed"], sw["worst_hit"], sw["left_gbps"], sw["tier_left_gbps"]) == (
        "p1-spine1", "p1-s1-rail0", 4800, 128000)
    assert (lk["failed"], lk["worst_hit"], lk["left_gbps"], lk["tier_left_gbps"]) == (
        "p1-s1-rail0>p1-spine1#1", "p1-s1-rail0", 5600, 152000)
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    out = impact(res.inventory, res.topology, res.plan, Resolver(res.topology).resolve(["p1-spine1"]), routes=False)
    (pod1,) = [t for t in out["tiers"] if (t["pod"], t["tier"]) == (1, "rail")]
    assert (pod1["worst"]["switch"], pod1["worst"]["left_gbps"], pod1["left_gbps"]) == ("p1-s1-rail0", 4800, 76800)


def test_pod_aggregate_blackhole_keeps_every_width(tmp_path: Path) -> None:
    """With routing.spine_pod_aggregate (summary-only) the spines advertise only pod 1's aggregate, to the pod's rail
    switches and to the super-spines alike. SUM001's count for pod 1 is 2 (p1-s1-rail0 has 2 links to p1-spine1); with
    both down, p1-spine1 keeps the aggregate (it still reaches the other 11 pod-1 rail switches): it blackholes
    172.16.0.0/24 while every other rail switch keeps hashing over it, so no width toward it changes: the 7 other
    segment-1 switches keep 8 next hops (2 per spine), segment 2's 4 and pod 2's 2 keep 16 (4 links, or 4 bundles,
    per spine). Only p1-s1-rail0 itself, as a source, drops to 6 next hops."""
    import shutil

    inv = tmp_path / "inv"
    shutil.copytree(EXAMPLE, inv)
    fabric = inv / "fabric.yml"
    fabric.write_text(fabric.read_text().replace("  bfd: true\n", "  bfd: true\n  spine_pod_aggregate: true\n"))
    res = run(inv)
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    pod1 = res.report["failures"]["summarization"]["pods"]["1"]
    assert pod1["links"] == ["p1-s1-rail0>p1-spine1#1", "p1-s1-rail0>p1-spine1#2"]
    out = impact(res.inventory, res.topology, res.plan, Resolver(res.topology).resolve(pod1["links"]))
    routes = out["routes"]
    assert routes["blackholing"] == [{"rail_switches": ["p1-s1-rail0"], "spines": ["p1-spine1"]}]
    (dest,) = [d for d in routes["destinations"] if d["rail_switches"] == ["p1-s1-rail0"]]
    assert dest["widths_before"] == dest["widths_after"] == {"8": 7, "16": 6}
    assert (routes["withdrawn"], routes["unreachable_somewhere"]) == ([], [])
    # SUM001 says one fewer is not enough: one link down leaves p1-spine1 its route
    one = impact(res.inventory, res.topology, res.plan, Resolver(res.topology).resolve(pod1["links"][:1]))
    assert one["routes"]["blackholing"] == []
