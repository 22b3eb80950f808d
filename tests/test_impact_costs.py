"""generated/docs/fabric.md's "What one failure costs" table (railfabric/impact/costs.py, formatted by
railfabric/outputs/docs/costs_table.py): every row derived by hand from the fabric.

The example (inventory/pods.yml): pod 1 = segment 1 (8 single-rail switches, 2 × 800G to each of 4 spines: 6.4T up)
and segment 2 (4 dual-rail switches, 12.8T up), 16 hosts of 8 GPUs (one NIC per GPU) per segment: rail tier 8 × 6.4T
+ 4 × 12.8T = 102.4T; pod 1's spine tier: 4 spines × 4 super-spines × 8 × 800G = 102.4T (25.6T per spine). Pod 2:
2 multi-rail switches of 4 rails, 16 hosts of 8 GPUs, each switch 16 port-channels of 2 × 800G (min-links 2): 25.6T,
rail tier 51.2T; pod 3 is rail-only (8 hosts, 1 rail switch per rail).
"""

from __future__ import annotations

from pathlib import Path

from railfabric.impact.costs import failure_costs
from tests.helpers import ROOT, mlag_inventory, run_data

EXAMPLE_ROWS = [
    # NIC 0 of segment 1/1's 16 hosts: 16 GPUs; 6.4T of 102.4T gone: 96/102.4
    "| rail switch, single-rail | p1-s1-rail0 | 16 | 16 | 0 | pod 1 rail: 93.75% |",
    # rails 0 and 4 of segment 1/2's 16 hosts: 32 GPUs; 12.8T of 102.4T gone
    "| rail switch, dual-rail | p1-s2-rail0-4 | 32 | 16 | 0 | pod 1 rail: 87.5% |",
    # rails 0-3 of pod 2's 16 hosts: 64 GPUs; one of pod 2's two switches: half its rail tier
    "| rail switch, multi-rail | p2-s1-rail0-1-2-3 | 64 | 16 | 0 | pod 2 rail: 50% |",
    # rail 0 of pod 3's 8 hosts; nothing above it
    "| rail switch, single-rail, rail-only pod | p3-s1-rail0 | 8 | 8 | 0 | – |",
    # every pod-1 rail switch keeps 3 of its 4 spines, the spine tier 3 of 4 spines: 75 % each; every GPU of pod 1
    # (2 segments × 16 hosts × 8) keeps its rail at 3/4 of its uplinks
    "| spine | p1-spine1 | 0 | 0 | 256 | pod 1 rail: 75%, pod 1 spine: 75% |",
    # every spine keeps 3 of 4 super-spines; pods 1 and 2 (256 + 128 GPUs) leave their pod at 3/4
    "| super-spine | core-ss1 | 0 | 0 | 384 | pod 1 spine: 75%, pod 2 spine: 75% |",
    # p1-s1-rail0 keeps 7 of 8 next hops: its 16 GPUs (rail 0 of segment 1/1) at 7/8; 101.6/102.4 = 99.219 %
    "| rail-switch uplink | p1-s1-rail0\\>p1-spine1#1 | 0 | 0 | 16 | pod 1 rail: 99.219% |",
    # p1-spine1 loses 800G of its 25.6T: pod 1's spine tier 101.6/102.4; all of pod 1's 256 GPUs hash over it
    "| spine uplink | p1-spine1\\>core-ss1#1 | 0 | 0 | 256 | pod 1 spine: 99.219% |",
    # the member takes its port-channel down (min-links 2 of 2): 15 of 16 next hops, 49.6/51.2 = 96.875 %; the 64
    # GPUs on rails 0-3 of pod 2's 16 hosts are behind it
    "| port-channel member | p2-s1-rail0-1-2-3\\>p2-spine1#1 | 0 | 0 | 64 | pod 2 rail: 96.875% |",
    # NIC 0 of p1-s1-gpu001 (one port): one GPU
    "| host NIC | p1-s1-gpu001:nic0 | 1 | 1 | 0 | – |",
]


def test_example_table_in_generated_docs() -> None:
    text = (ROOT / "generated" / "docs" / "fabric.md").read_text(encoding="utf-8")
    section = text.split("## What one failure costs\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| what")]
    assert rows == EXAMPLE_ROWS


def test_mlag_fabric(tmp_path: Path) -> None:
    # mlag_inventory: 4 hosts of 2 GPUs, 2 NICs × 2 × 400G, each NIC bonded over rail pair p1-s1-rail<r>a/b; every
    # rail switch 1 × 800G to each of 2 spines (1.6T), 4 switches: 6.4T
    res = run_data(tmp_path, mlag_inventory())
    assert res.inventory is not None and res.topology is not None
    rows = {r["class"]: (r["down"], r["gpus_isolated"], r["gpus_reduced"],
                         [(t["pod"], t["tier"], t["left_pct"]) for t in r["tiers_left"]])
            for r in failure_costs(res.inventory, res.topology)}
    # an MLAG member: NIC 0 of the 4 hosts keeps its rail on rail0b at half its ports: 4 GPUs reduced, none
    # isolated; 1.6T of 6.4T gone; listed once (it is the first rail switch of the dual-homed segment)
    assert rows["rail switch, single-rail, dual-homed (mlag)"] == ("p1-s1-rail0a", 0, 4, [(1, "rail", 75.0)])
    assert "MLAG pair member" not in rows
    # a spine: every rail switch keeps 1 of 2 spines; all 8 GPUs at half their uplinks
    assert rows["spine"] == ("p1-spine1", 0, 8, [(1, "rail", 50.0)])
    assert rows["host NIC"] == ("p1-s1-gpu001:nic0", 1, 0, [])


def test_reduced_gpus_of_a_super_spine_and_their_text() -> None:
    # core-ss1 down: every spine of pods 1 and 2 keeps 3 of its 4 super-spines (75 %); no rail switch loses an
    # uplink, so no GPU is behind a reduced rail switch, but all of pods 1 and 2 (256 + 128 GPUs) leave their pod
    # at 3/4; pod 3 (rail-only) has no spines
    from railfabric.impact import Resolver, impact
    from railfabric.impact.text import impact_text
    from railfabric.pipeline import run
    from tests.helpers import EXAMPLE

    res = run(EXAMPLE)
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    out = impact(res.inventory, res.topology, res.plan, Resolver(res.topology).resolve(["core-ss1"]), routes=False)
    red = out["reduced"]
    assert red["uplinks"]["gpus"] == 0
    assert red["pod_uplinks"] == {"gpus": 384, "pods": [1, 2], "worst_left_pct": 75.0}
    assert red["gpus"] == 384
    text = impact_text(out)
    assert "GPUs in a pod whose spines lost uplink capacity: 384 (pod(s) 1, 2; the worst keeps 75 % of its " \
           "bandwidth out of the pod)" in text
    assert "GPUs at reduced bandwidth in all (each counted once): 384" in text
    # p1-spine1 down: pod 1's rail switches keep 3 of 4 spines and pod 1's spine tier 3 of 4 spines: the same 256
    # GPUs in both groups, counted once
    out = impact(res.inventory, res.topology, res.plan, Resolver(res.topology).resolve(["p1-spine1"]), routes=False)
    assert (out["reduced"]["uplinks"]["gpus"], out["reduced"]["pod_uplinks"]["gpus"], out["reduced"]["gpus"]) == (
        256, 256, 256)
