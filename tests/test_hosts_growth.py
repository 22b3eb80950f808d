"""Growing the shipped example rewrites no existing GPU server's files (railfabric/hosts/routes.py), and on the switch
side only the direct peers of what is new (DESIGN.md §4). Both inventories are rendered whole by `fabric render`; the
files are compared byte for byte.

Before: inventory/ as shipped, plus `solver.oversubscription.spine: 1.25` (the growth below needs it: the example's
spines are exactly 1:1, and pod 2's spines take the new segment at 16 + 4 = 20 downlinks against 16 uplinks; it is in
both renders, so it is no difference between them). After, three kinds of growth at once:
- a new segment in an existing pod with spines: pod 2 segment 2, multi-rail (4 rails per switch: 2 rail switches
  p2-s2-rail0-1-2-3 and p2-s2-rail4-5-6-7), `links_per_spine: 2` (one port-channel of 2 to each of the 4 spines, on
  their ports 17-20: ports_per_segment 16), 4 hosts;
- a new pod: pod 4, rail-only (no spines: the super-spines' ports_per_pod 32 leave no room for a third pod with
  spines on a 64-port super-spine), one single-rail segment of 8 rail switches, 2 hosts;
- new hosts in an existing host group: p3-s1's group grows from 8 to 10 hosts (p3-s1-gpu009, p3-s1-gpu010).

Before this module, each rail table listed one route per reachable segment block, so the new segment in pod 2
rewrote the netplan file of every host in pods 1 and 2 (48 of 56), and the group's roce.sh named its host count.

The same promise as properties over tests/test_stability.py's random fabrics (pods with and without spines, every
rail design, super-spines or none): a new pod, segment or host group leaves every existing host's files as they are.
"""

from __future__ import annotations

import copy
import csv
import io
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from railfabric.cli import main
from railfabric.hosts import build_hosts
from railfabric.outputs.hosts import hosts_files
from tests.helpers import EXAMPLE
from tests.test_stability import PROPERTY, _model, _pod, build, inventories, with_new_pod, with_new_segment

Rendered = tuple[dict[str, bytes], dict[str, bytes]]  # every file of the render before and after, by path
SOLVER = "\nsolver:\n  oversubscription: {spine: 1.25}\n"
POD2_LAST = "          - {model: hgx-h100, count: 16}\n\n  - id: 3"
POD2_SEGMENT2 = """          - {model: hgx-h100, count: 16}
      - id: 2
        rail_design: multi-rail
        rails: 8
        rails_per_switch: 4
        rail_prefix_len: 24
        rail_switch_model: sn5600
        links_per_spine: 2
        host_groups:
          - {model: hgx-h100, count: 4}

  - id: 3"""
POD3_GROUP = "          - {model: hgx-h100, count: 8}\n"
POD3_GROWN_AND_POD4 = """          - {model: hgx-h100, count: 10}

  - id: 4
    segments:
      - id: 1
        rail_design: single-rail
        rails: 8
        rail_prefix_len: 24
        rail_switch_model: sn5600
        host_groups:
          - {model: hgx-h100, count: 2}
"""


def _grow(pods: str) -> str:
    for old, new in ((POD2_LAST, POD2_SEGMENT2), (POD3_GROUP, POD3_GROWN_AND_POD4)):
        assert pods.count(old) == 1, f"inventory/pods.yml changed: update {__name__} ({old!r})"
        pods = pods.replace(old, new)
    return pods


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def grown(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    base = tmp_path_factory.mktemp("growth")
    before, after = base / "before", base / "after"
    shutil.copytree(EXAMPLE, before)
    with (before / "fabric.yml").open("a", encoding="utf-8") as f:
        f.write(SOLVER)
    shutil.copytree(before, after)
    pods = after / "pods.yml"
    pods.write_text(_grow(pods.read_text(encoding="utf-8")), encoding="utf-8")
    for inv in (before, after):
        assert main(["render", str(inv), "--out", str(base / f"gen-{inv.name}"), "-q"]) == 0
    return _files(base / "gen-before"), _files(base / "gen-after")


def _hosts(n: int, prefix: str, first: int = 1) -> list[str]:
    return [f"{prefix}-gpu{i:03d}" for i in range(first, first + n)]


def test_no_existing_host_file_changes(grown: Rendered) -> None:
    before, after = grown
    host = [p for p in before if p.startswith("hosts/") and p != "hosts/railmap.csv"]
    assert len(host) == 56 + 5 * 3  # a netplan file per host (16 + 16 + 16 + 8), 3 files per host group (5)
    changed = [p for p in host if after.get(p) != before[p]]
    assert changed == []
    new = sorted(p for p in after if p.startswith("hosts/") and p not in before)
    hosts = _hosts(4, "p2-s2") + _hosts(2, "p3-s1", 9) + _hosts(2, "p4-s1")
    groups = ["p2-s2-h1", "p4-s1-h1"]  # the p3-s1 hosts join p3-s1-h1 (one group, first host 1): no new group
    assert new == sorted([f"hosts/{h}/netplan.yaml" for h in hosts] + [
        f"hosts/_groups/{g}/{f}" for g in groups for f in ("nccl.conf", "railfabric-roce.service", "roce.sh")])


def _railmap(text: bytes) -> dict[str, list[list[str]]]:
    rows = list(csv.reader(io.StringIO(text.decode())))
    header = next(i for i, r in enumerate(rows) if r and r[0] == "host")
    out: dict[str, list[list[str]]] = {}
    for r in rows[header + 1:]:
        out.setdefault(r[0], []).append(r)
    return out


def test_rail_map_rows_of_existing_hosts_unchanged(grown: Rendered) -> None:
    before, after = (_railmap(g["hosts/railmap.csv"]) for g in grown)
    assert {h: after[h] for h in before} == before
    # 8 new hosts, one row per GPU (8 one-port NICs each)
    assert sorted(set(after) - set(before)) == sorted(_hosts(4, "p2-s2") + _hosts(2, "p3-s1", 9) + _hosts(2, "p4-s1"))
    assert all(len(after[h]) == 8 for h in set(after) - set(before))


def test_ansible_values_of_existing_hosts_unchanged(grown: Rendered) -> None:
    before, after = (yaml.safe_load(g["ansible/inventory.yml"])["all"]["children"]["gpu_hosts"] for g in grown)
    assert after["vars"] == before["vars"]
    for name, child in before["children"].items():
        assert after["children"][name]["vars"] == child["vars"], name
        assert {h: after["children"][name]["hosts"][h] for h in child["hosts"]} == child["hosts"], name
    assert sorted(set(after["children"]) - set(before["children"])) == ["gpu_p2_s2_h1", "gpu_p4_s1_h1"]
    assert sorted(set(after["children"]["gpu_p3_s1_h1"]["hosts"]) - set(before["children"]["gpu_p3_s1_h1"]["hosts"])) \
        == ["p3-s1-gpu009", "p3-s1-gpu010"]


def test_switch_files_change_only_on_direct_peers(grown: Rendered) -> None:
    """Derived by hand from the growth:
    - the 4 spines of pod 2 are cabled to the 2 new rail switches (a port-channel of 2 each): new ports,
      port-channels and /31s (config_db.json) and 2 new BGP neighbours (frr.conf);
    - the 8 rail switches of p3-s1 get the 2 new hosts' ports (2x400G lanes, access ports of the rail VLAN with their
      QoS: config_db.json); their rail subnets and BGP are unchanged (frr.conf);
    - nothing else: pod 2's uplinks to the super-spines are the same links (the new prefixes arrive by BGP, which
      no config lists), the rail-only pod 4 has no cable to any existing switch, pod 1 and p2-s1 are not touched.
    Switch host_vars (ansible/host_vars/<switch>.yml) change nowhere: they hold each switch's own access."""
    before, after = grown
    switch = [p for p in before if p.startswith(("configs/", "ansible/host_vars/"))]
    changed = sorted(p for p in switch if after.get(p) != before[p])
    assert changed == sorted([f"configs/p2-spine{i}/{f}" for i in (1, 2, 3, 4) for f in ("config_db.json", "frr.conf")]
                             + [f"configs/p3-s1-rail{r}/config_db.json" for r in range(8)])
    added = ["p2-s2-rail0-1-2-3", "p2-s2-rail4-5-6-7"] + [f"p4-s1-rail{r}" for r in range(8)]
    assert sorted({p.split("/")[1] for p in after if p.startswith("configs/") and p not in before}) == added
    assert sorted(p for p in after if p.startswith("ansible/host_vars/") and p not in before) == \
        [f"ansible/host_vars/{s}.yml" for s in added]


# --------------------------------------------------------------------------- properties over random fabrics


def _host_files(data: dict[str, Any]) -> dict[str, str]:
    b = build(data)
    return hosts_files(build_hosts(b.inv, b.topo, b.plan))


def _assert_only_added(data: dict[str, Any], grown: dict[str, Any]) -> None:
    small, big = _host_files(data), _host_files(grown)
    changed = sorted(p for p in small if big.get(p) != small[p])
    assert changed == [], changed[:5]


@PROPERTY
@given(data=inventories(), extra=st.data())
def test_new_pod_rewrites_no_host_file(data: dict[str, Any], extra: st.DataObject) -> None:
    grown, _ = with_new_pod(data, extra)
    _assert_only_added(data, grown)


@PROPERTY
@given(data=inventories(), extra=st.data())
def test_new_segment_rewrites_no_host_file(data: dict[str, Any], extra: st.DataObject) -> None:
    grown, _, _ = with_new_segment(data, extra)
    _assert_only_added(data, grown)


@PROPERTY
@given(data=inventories(), extra=st.data())
def test_new_hosts_rewrite_no_host_file(data: dict[str, Any], extra: st.DataObject) -> None:
    """More hosts in a segment: a group of its own after the last host, or the last group counting one more."""
    pod = extra.draw(st.sampled_from(data["pods"]), label="pod")
    seg = extra.draw(st.sampled_from(pod["segments"]), label="segment")
    grown = copy.deepcopy(data)
    gseg = next(s for s in _pod(grown, pod["id"])["segments"] if s["id"] == seg["id"])
    for g in gseg["host_groups"]:
        g.setdefault("first", 1)  # the default, made explicit: several groups need `first` (ID005)
    last = max(gseg["host_groups"], key=lambda g: g["first"] + g["count"])
    if extra.draw(st.booleans(), label="own group"):
        gseg["host_groups"].append({"model": _model(seg["rails"]), "count": extra.draw(st.integers(1, 3)),
                                    "first": last["first"] + last["count"]})
    else:
        last["count"] += 1
    _assert_only_added(data, grown)
