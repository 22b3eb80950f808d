"""`impact` on the shipped example and the small fabrics: every expected value derived by hand from the inventory.

The example (inventory/pods.yml): pod 1 has 4 spines, segment 1 (8 single-rail switches p1-s1-rail0..7, 2 × 800G
links to each spine: 8 next hops, 6.4T up) and segment 2 (4 dual-rail switches, 4 links per spine: 16 next hops,
12.8T up), 16 hosts of 8 GPUs (one 400G NIC each) per segment; pod 2 has 4 spines and one multi-rail segment of 16
hosts on 2 switches of 4 rails each, whose 8 uplinks per spine are bundled into L3 port-channels of 2 (min-links:
all members, the default): 16 next hops of 1.6T; pod 3 is rail-only (8 hosts, no spines). 448 GPUs in all.
Pod 1's rail tier: 8 × 6.4T + 4 × 12.8T = 102.4T; its spine tier: 4 spines × 4 super-spines × 8 × 800G = 102.4T.
Rail subnets: segment 1/1 owns 172.16.0.0/21, rail r is 172.16.r.0/24.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.impact import Resolver, UnknownNames, impact, maintenance_waves
from railfabric.pipeline import Result, run
from tests.helpers import EXAMPLE, base_inventory, mlag_inventory, run_data

HOSTS_P1S1 = [f"p1-s1-gpu{n:03d}" for n in range(1, 17)]


@pytest.fixture(scope="module")
def example() -> Result:
    return run(EXAMPLE)


def _impact(res: Result, *names: str) -> dict:
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    return impact(res.inventory, res.topology, res.plan, Resolver(res.topology).resolve(list(names)))


def test_single_rail_switch_isolates_its_16_gpus(example: Result) -> None:
    out = _impact(example, "p1-s1-rail3")
    iso = out["isolated"]
    # p1-s1-rail3 is rail 3 of segment 1/1: NIC 3 of all 16 hosts (hosts 15 and 16 re-cabled to its port 9 in
    # devices.yml are still on it): 16 NICs, one GPU each
    assert (iso["gpus"], iso["nics"], iso["hosts"]) == (16, 16, HOSTS_P1S1)
    assert iso["by_rail"] == {"3": 16} and iso["by_pod"] == {"1": 16}
    assert iso["segments"] == [{"pod": 1, "segment": 1, "gpus": 16, "rails": {"3": {"gpus": 16,
                                                                                   "hosts": HOSTS_P1S1}}}]
    # pod 1's rail tier loses the switch's 6.4T: 96T of 102.4T; no other switch loses an uplink
    (tier,) = out["tiers"]
    assert (tier["pod"], tier["tier"], tier["left_gbps"], tier["planned_gbps"]) == (1, "rail", 96000, 102400)
    assert tier["left_pct"] == 93.75 and tier["switches_down"] == ["p1-s1-rail3"] and tier["switches_hit"] == 0
    # rail 3's share of uplinks: 6.4T (p1-s1-rail3) + 12.8T / 2 (p1-s2-rail3-7) + 25.6T / 4 (p2-s1-rail0-1-2-3)
    assert out["rails"] == [{"rail": 3, "planned_gbps": 19200.0, "left_gbps": 12800.0, "left_pct": 66.667}]
    # its subnet is withdrawn: the 13 other rail switches of pods 1 and 2 had it over 8 next hops (the 7 other
    # switches of segment 1: 2 links × 4 spines) or 16 (segment 2: 4 × 4; pod 2: 16 port-channels)
    routes = out["routes"]
    assert routes["withdrawn"] == ["172.16.3.0/24"]
    (row,) = routes["destinations"]
    assert row["down"] and row["unreachable_from"] == 13
    assert row["widths_before"] == {"8": 7, "16": 6} and row["widths_after"] == {"0": 13}


def test_multi_rail_switch_isolates_all_its_rails(example: Result) -> None:
    out = _impact(example, "p2-s1-rail0-1-2-3")
    iso = out["isolated"]
    # rails 0-3 of the 16 hosts of segment 2/1: 64 GPUs
    assert iso["gpus"] == 64 and iso["by_rail"] == {"0": 16, "1": 16, "2": 16, "3": 16} and iso["by_pod"] == {"2": 64}
    assert [s["rails"]["2"]["hosts"] for s in iso["segments"]] == [[f"p2-s1-gpu{n:03d}" for n in range(1, 17)]]
    # pod 2's rail tier: 2 × 25.6T, one gone
    assert [(t["pod"], t["tier"], t["left_pct"]) for t in out["tiers"]] == [(2, "rail", 50.0)]
    # its rail subnets 172.16.64-67.0/24 and their /22 aggregate are withdrawn (segment 2/1: block 8 of /21s)
    assert out["routes"]["withdrawn"] == ["172.16.64.0/24", "172.16.65.0/24", "172.16.66.0/24", "172.16.67.0/24",
                                          "172.16.64.0/22"]


def test_spine_isolates_none_and_leaves_three_quarters(example: Result) -> None:
    out = _impact(example, "p1-spine1")
    assert out["isolated"]["gpus"] == 0
    # every pod-1 rail switch loses a quarter of its next hops (1 spine of 4); the spine tier loses a spine
    rail, spine = out["tiers"]
    assert (rail["pod"], rail["tier"], rail["left_gbps"], rail["planned_gbps"], rail["left_pct"]) == \
        (1, "rail", 76800, 102400, 75.0)
    assert rail["switches_hit"] == 12
    assert (rail["worst"]["switch"], rail["worst"]["next_hops"], rail["worst"]["next_hops_left"]) == \
        ("p1-s1-rail0", 8, 6)
    assert rail["worst"]["oversubscription"] == 1.333  # 6.4T of hosts over 4.8T up (planned 1:1)
    assert (spine["tier"], spine["left_pct"], spine["switches_down"]) == ("spine", 75.0, ["p1-spine1"])
    # all 256 GPUs of pod 1 keep their rail; their traffic out of the segment shares 75 % of the uplinks
    assert out["reduced"]["uplinks"] == {"gpus": 256, "worst_left_pct": 75.0}
    # toward segment 1/1's prefixes: its 7 other switches 8 → 6 next hops, segment 2's 4 switches 16 → 12, pod 2's
    # 2 switches keep 16 (other pod: via super-spines to spines 2-4, which still have the routes)
    dest = next(d for d in out["routes"]["destinations"] if "p1-s1-rail0" in d["rail_switches"])
    assert dest["rail_switches"] == [f"p1-s1-rail{r}" for r in range(8)]
    assert dest["widths_before"] == {"8": 7, "16": 6} and dest["widths_after"] == {"6": 7, "12": 4, "16": 2}
    assert out["routes"]["withdrawn"] == [] and out["routes"]["unreachable_somewhere"] == []


def test_port_channel_member_takes_the_bundle_down_under_min_links(example: Result) -> None:
    # pod 2's port-channels have 2 members and min-links 2 (all): one member down takes the 1.6T bundle down,
    # 15 of 16 next hops stay: 24T of 25.6T
    out = _impact(example, "p2-s1-rail0-1-2-3>p2-spine1#1")
    assert out["isolated"]["gpus"] == 0
    (tier,) = out["tiers"]
    w = tier["worst"]
    assert (w["switch"], w["next_hops_left"], w["left_gbps"], w["planned_gbps"], w["left_pct"]) == \
        ("p2-s1-rail0-1-2-3", 15, 24000, 25600, 93.75)
    assert out["reduced"]["uplinks"]["gpus"] == 64  # 16 hosts × rails 0-3


def test_port_channel_member_with_min_links_one_degrades(tmp_path: Path) -> None:
    # base fabric: 2 spines, 2 rail switches; 2 links per (rail switch, spine) bundled in one port-channel with
    # min-links 1: one member down leaves that bundle at 800G, and with an equal ECMP share per next hop the switch
    # sends at 2 × 800G of its planned 2 × 1.6T: 50 %
    data = base_inventory()
    data["pods"][0]["spines"].update(links_per_rail_switch=2, port_channel_members=2, port_channel_min_links=1)
    res = run_data(tmp_path, data)
    assert not [f for f in res.findings if f.severity.value == "error"]
    out = _impact(res, "p1-s1-rail0>p1-spine1#1")
    (tier,) = out["tiers"]
    assert (tier["worst"]["left_gbps"], tier["worst"]["planned_gbps"], tier["worst"]["next_hops_left"]) == \
        (1600, 3200, 2)


def test_mlag_member_isolates_none(tmp_path: Path) -> None:
    # mlag_inventory: 4 hosts, NIC r bonded over rail r's pair p1-s1-rail<r>a / b (2 × 400G)
    res = run_data(tmp_path, mlag_inventory())
    out = _impact(res, "p1-s1-rail0a")
    assert out["isolated"]["gpus"] == 0
    red = out["reduced"]["nic_ports"]
    assert red["gpus"] == 4 and {(n["host"], n["nic"], n["left_gbps"], n["gbps"]) for n in red["nics"]} == \
        {(f"p1-s1-gpu00{h}", 0, 400, 800) for h in range(1, 5)}
    # the pair still originates rail 0's subnet from its b side, which keeps both spines: nothing withdrawn
    assert out["routes"]["withdrawn"] == [] and out["routes"]["destinations"] == []
    both = _impact(res, "p1-s1-rail0a", "p1-s1-rail0b")
    assert both["isolated"]["gpus"] == 4 and both["routes"]["withdrawn"] == ["172.16.0.0/24"]


def test_spine_of_the_small_fabric_halves(tmp_path: Path) -> None:
    # base fabric: 2 spines, one link from each rail switch to each: one spine down leaves 1 of 2 next hops
    res = run_data(tmp_path, base_inventory())
    out = _impact(res, "p1-spine1")
    assert out["isolated"]["gpus"] == 0
    assert [(t["tier"], t["left_pct"]) for t in out["tiers"]] == [("rail", 50.0)]
    out = _impact(res, "p1-spine1", "p1-spine2")
    # both spines: the two rail switches keep their hosts but no uplink: each rail's subnet unreachable from the
    # other rail switch
    assert out["isolated"]["gpus"] == 0
    assert out["routes"]["unreachable_somewhere"] == ["172.16.0.0/24", "172.16.1.0/24"]


def test_pod_aggregate_blackhole(tmp_path: Path) -> None:
    # with spine_pod_aggregate, p1-spine1 keeps advertising pod 1's aggregate after losing both its links to
    # p1-s1-rail0 (it still reaches the pod's other 11 rail switches): it blackholes rail0's subnet
    inv = tmp_path / "inv"
    import shutil

    shutil.copytree(EXAMPLE, inv)
    fab = inv / "fabric.yml"
    fab.write_text(fab.read_text().replace("  bfd: true\n", "  bfd: true\n  spine_pod_aggregate: true\n"))
    res = run(inv)
    out = _impact(res, "p1-s1-rail0>p1-spine1#1", "p1-s1-rail0>p1-spine1#2")
    assert out["routes"]["blackholing"] == [{"rail_switches": ["p1-s1-rail0"], "spines": ["p1-spine1"]}]
    without = _impact(run(EXAMPLE), "p1-s1-rail0>p1-spine1#1", "p1-s1-rail0>p1-spine1#2")
    assert without["routes"]["blackholing"] == []


def test_names_ports_bundles_and_nics(example: Result) -> None:
    assert example.topology is not None
    r = Resolver(example.topology)
    # a broken-out host port: p1-s1-rail0 port 1 carries hosts 1 and 2 (lanes 1, 2)
    d = r.resolve(["p1-s1-rail0:1"])
    assert d.links == {"p1-s1-gpu001:nic0p1", "p1-s1-gpu002:nic0p1"} and not d.switches
    assert r.resolve(["p1-s1-rail0:1/2"]).links == {"p1-s1-gpu002:nic0p1"}
    assert r.resolve(["p2-s1-rail0-1-2-3>p2-spine1#pc1"]).links == {"p2-s1-rail0-1-2-3>p2-spine1#1",
                                                                     "p2-s1-rail0-1-2-3>p2-spine1#2"}
    assert r.resolve(["p1-s1-gpu007:nic5"]).links == {"p1-s1-gpu007:nic5p1"}
    assert r.resolve(["core-ss1"]).switches == {"core-ss1"} == r.resolve(["ss1"]).switches  # hostname and key
    with pytest.raises(UnknownNames) as err:
        r.resolve(["p1-spine9", "p1-s1-rail0:99", "p1-spine2"])
    assert err.value.names == ["p1-spine9", "p1-s1-rail0:99"]
    assert "p1-spine4" in err.value.close["p1-spine9"]


def test_pod1_rail_switch_waves(example: Result) -> None:
    """Pod 1's 12 rail switches, all single-homed. Alone each isolates its own NICs (unavoidable). All 12 together
    would also cut every pod-1 host off (every NIC down), which no one switch does: refused, so at least 2 waves.
    Balanced first fit, in the given order, alternates: the even rails of segment 1 with segment 2's rail0-4 and
    rail2-6 (rails 0, 4, 2, 6 of segment 2), then the rest: every host keeps 4 of its 8 NICs in each wave."""
    assert example.inventory is not None and example.topology is not None
    names = [n for n, s in example.topology.switches.items() if s.role.value == "rail" and s.pod == 1]
    out = maintenance_waves(example.inventory, example.topology, names)
    assert out["count"] == 2 and out["lower_bound"] == 2 and out["proven_fewest"]
    assert [w["down"] for w in out["waves"]] == [
        ["p1-s1-rail0", "p1-s1-rail2", "p1-s1-rail4", "p1-s1-rail6", "p1-s2-rail0-4", "p1-s2-rail2-6"],
        ["p1-s1-rail1", "p1-s1-rail3", "p1-s1-rail5", "p1-s1-rail7", "p1-s2-rail1-5", "p1-s2-rail3-7"]]
    # each wave: 4 single-rail switches × 16 GPUs + 2 dual-rail switches × 32 = 128 GPUs isolated, no host cut off
    assert [(w["gpus_isolated"], w["hosts_cut_off"]) for w in out["waves"]] == [(128, 0), (128, 0)]
    assert len(out["unavoidable"]) == 12 and out["unavoidable"][0] == {
        "item": "p1-s1-rail0", "gpus_isolated": 16, "rail_switches_cut_off": [], "jobs_losing_gpus": []}


def test_waves_mlag_pairs_and_spines(tmp_path: Path, example: Result) -> None:
    res = run_data(tmp_path, mlag_inventory())
    assert res.inventory is not None and res.topology is not None
    rails = [n for n, s in res.topology.switches.items() if s.role.value == "rail"]
    out = maintenance_waves(res.inventory, res.topology, rails)
    # the a and b side of a pair never together (a bonded NIC would lose both ports); nothing isolated alone
    assert [w["down"] for w in out["waves"]] == [["p1-s1-rail0a", "p1-s1-rail1a"], ["p1-s1-rail0b", "p1-s1-rail1b"]]
    assert out["unavoidable"] == [] and out["proven_fewest"]
    assert example.inventory is not None and example.topology is not None
    spines = ["p1-spine1", "p1-spine2", "p1-spine3", "p1-spine4"]
    out = maintenance_waves(example.inventory, example.topology, spines)
    # all 4 at once leave pod 1's rail switches without an uplink: 2 waves, balanced
    assert [w["down"] for w in out["waves"]] == [["p1-spine1", "p1-spine3"], ["p1-spine2", "p1-spine4"]]


@pytest.mark.parametrize("name", ["", ":", "p1-s1-rail0:", ":33", "a:b:c", "p1-s1-gpu001:nic99", "p1-s1-rail0:0",
                                  "p1-s1-rail0:1/3", "p1-s1-gpu001", "\x00", "p1-spine1>"])
def test_odd_names_are_refused_not_crashed(example: Result, name: str) -> None:
    # a host alone is refused too: a host down is not a fabric failure (name its NICs: host:nicN)
    assert example.topology is not None
    with pytest.raises(UnknownNames) as err:
        Resolver(example.topology).resolve([name])
    assert err.value.names == [name]


def test_two_vlans_member_isolates_none(tmp_path: Path) -> None:
    # two-VLAN dual homing: each port of a NIC is its own subnet on its own switch; with p1-s1-rail0a down the 4 NICs
    # of rail 0 keep their rail on the b side at half their 800G, and the a side's own subnet (switch 1 of the
    # segment: the first /24 of its 172.16.0.0/21 block) is withdrawn with it
    data = mlag_inventory()
    data["pods"][0]["segments"][0]["dual_homing"] = "two-vlans"
    res = run_data(tmp_path, data)
    out = _impact(res, "p1-s1-rail0a")
    assert out["isolated"]["gpus"] == 0 and out["reduced"]["nic_ports"]["gpus"] == 4
    assert out["routes"]["withdrawn"] == ["172.16.0.0/24"]
