"""Allocation is stable (DESIGN.md §4): every value is a pure function of declared identity.

Property tests build random valid inventories (in memory: schema → intent rules → expand → allocate), then
reorder, grow or shrink them and compare the allocation views. Growing may only add values that belong to the
new devices or to the new links on their direct peers; it never changes or drops an existing value. Shrinking is
the reverse. A plain test derives the numbers by hand from the layout in railfabric/plan/allocate.py to show why.
"""

from __future__ import annotations

import copy
import os
import random
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from railfabric.checks.rules.intent_rules import check_intent
from railfabric.checks.rules.plan_rules import check_plan, check_topology
from railfabric.core.address import ntoa
from railfabric.core.finding import Severity
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.inventory.schema_check import check_schema
from railfabric.plan.allocate import Plan, allocate
from railfabric.topology import Host, LinkRole, Role, Switch, Topology, expand
from tests.helpers import EXAMPLE, ROOT, base_inventory

# base_inventory() limits: pods 4, segments_per_pod 4, rail_switches_per_segment 8, spines_per_pod 8,
# super_spines 8, uplinks 16/16, segment_rail_block /21.
POD_IDS = range(1, 5)
SEG_IDS = range(1, 5)
MAX_HOST = 12  # highest host number a generated segment uses; leaves room to add a host group (≤ 16 × 4 rails)

OTHER_HOST_NAME = "p{pod}-s{segment}-n{host:03d}"

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- building a fabric in memory


@dataclass
class Built:
    inv: Inventory
    topo: Topology
    plan: Plan
    codes: frozenset[str] = frozenset()  # codes of the warnings and infos (errors fail the build)

    @property
    def dense(self) -> bool:
        """TOPO005: spine or super-spine downlinks are dense, so a lower id inserted moves their upper ends."""
        return "TOPO005" in self.codes


def build(data: dict[str, Any]) -> Built:
    """Schema → intent rules → expand → allocate → topology/plan rules; the fabric must have no errors."""
    src = SourceMap()
    inv, findings = check_schema(copy.deepcopy(data), src)
    assert inv is not None, [f"{f.code}: {f.message}" for f in findings]
    findings = check_intent(inv, src)
    errors = [f for f in findings if f.severity is Severity.ERROR]
    assert not errors, [f"{f.code}: {f.message}" for f in errors]
    topo = expand(inv)
    plan = allocate(inv, topo)
    findings = check_topology(inv, topo, src) + check_plan(inv, topo, plan, src)
    errors = [f for f in findings if f.severity is Severity.ERROR]
    assert not errors, [f"{f.code}: {f.message}" for f in errors]
    return Built(inv, topo, plan, frozenset(f.code for f in findings))


@dataclass
class View:
    """What the plan gives every device, keyed by identity: values (addresses, ASNs, VLANs, subnets, /31s, host
    addresses) and ports (per link id: a port, a lane, z port, z lane)."""

    values: dict[tuple, Any]
    ports: dict[str, tuple[int, int, int, int]]
    owners: dict[tuple, frozenset[str]]  # value key or ("port", link id) → devices it belongs to


def view(b: Built) -> View:
    plan, topo = b.plan, b.topo
    values: dict[tuple, Any] = {}
    owners: dict[tuple, frozenset[str]] = {}
    for name in topo.switches:
        for kind, val in (("loopback", ntoa(plan.loopback[name])), ("management", ntoa(plan.management[name])),
                          ("asn", plan.asn[name]),
                          ("aggregate", str(plan.aggregates[name]) if name in plan.aggregates else None)):
            values[(kind, name)] = val
            owners[(kind, name)] = frozenset({name})
    for (name, rail), sub in plan.rail_subnets.items():
        values[("rail", name, rail)] = (sub.vlan, str(sub.prefix), ntoa(sub.gateway))
        owners[("rail", name, rail)] = frozenset({name})
    for key, net in plan.p2p.items():
        values[("p2p", key)] = f"{ntoa(net)}/31"
    for link_id, addr in plan.host_addr.items():
        values[("host", link_id)] = ntoa(addr)
    ports: dict[str, tuple[int, int, int, int]] = {}
    for link in topo.links:
        ends = frozenset({link.a.device, link.z.device})
        ports[link.id] = (link.a.port, link.a.lane, link.z.port, link.z.lane)
        owners[("port", link.id)] = ends
        if link.net_slot is not None:
            k = ("p2p", link.bundle or link.id)
            owners[k] = owners.get(k, frozenset()) | ends
        if link.role is LinkRole.HOST:
            owners[("host", link.id)] = ends
    assert set(values) <= set(owners)
    return View(values, ports, owners)


def identity_ports(b: Built) -> dict[str, tuple[int, ...]]:
    """The ports that the port rules derive from identity alone: both ends of host links, and the lower (uplink)
    end of rail switch → spine and spine → super-spine links."""
    out: dict[str, tuple[int, ...]] = {}
    for link in b.topo.links:
        if link.role is LinkRole.HOST:
            out[link.id] = (link.a.port, link.a.lane, link.z.port, link.z.lane)
        else:
            out[link.id] = (link.a.port, link.a.lane)
    return out


def _show(diff: list) -> str:
    return "\n".join(f"  {k}: {old!r} -> {new!r}" for k, old, new in diff[:12]) + (
        f"\n  ... {len(diff) - 12} more" if len(diff) > 12 else "")


Scope = Callable[[Switch | Host], bool]


def assert_grows(small: Built, big: Built, scope: Scope, what: str) -> None:
    """`big` is `small` plus something: every value of `small` is in `big` unchanged, and every new value belongs to a
    new device (all inside `scope`) or to a new link touching one. Also holds read backwards (removal)."""
    vs, vb = view(small), view(big)
    changed = [(k, v, vb.values.get(k, "<gone>")) for k, v in vs.values.items() if vb.values.get(k, "<gone>") != v]
    assert not changed, f"{what}: existing values changed or disappeared:\n{_show(changed)}"
    old_devices = set(small.topo.switches) | set(small.topo.hosts)
    new_devices = (set(big.topo.switches) | set(big.topo.hosts)) - old_devices
    assert old_devices <= set(big.topo.switches) | set(big.topo.hosts), f"{what}: devices disappeared"
    devices = {**big.topo.switches, **big.topo.hosts}
    outside = sorted(d for d in new_devices if not scope(devices[d]))
    assert not outside, f"{what}: new devices outside the added scope: {outside}"
    stray = sorted(k for k in set(vb.values) - set(vs.values) if not vb.owners[k] & new_devices)
    assert not stray, f"{what}: new values that belong to no new device: {stray[:12]}"
    stray_links = sorted(k for k in set(vb.ports) - set(vs.ports) if not vb.owners[("port", k)] & new_devices)
    assert not stray_links, f"{what}: new links that touch no new device: {stray_links[:12]}"
    # ports derived from identity stay put too (host ports, rail switch and spine uplinks); and unless the smaller
    # fabric was warned that its downlinks are dense (TOPO005), so do the upper ends: every cable stays
    ps, pb = (identity_ports(small), identity_ports(big)) if small.dense else (vs.ports, vb.ports)
    moved = [(k, v, pb.get(k, "<gone>")) for k, v in ps.items() if pb.get(k, "<gone>") != v]
    assert not moved, f"{what}: existing ports moved{' (no TOPO005 warning)' if not small.dense else ''}:\n" \
                      f"{_show(moved)}"


# --------------------------------------------------------------------------- strategies


def _base() -> dict[str, Any]:
    data = base_inventory()
    data["host_models"]["h4"] = {"gpus": 4, "nics": 4, "nic_speed": "400G"}
    data["pods"] = []
    return data


def _model(rails: int) -> str:
    return {2: "h2", 4: "h4"}[rails]


@st.composite
def host_groups(draw: st.DrawFn, model: str) -> list[dict[str, Any]]:
    if draw(st.booleans()):
        first = draw(st.sampled_from([None, 1, 2, 3]))
        group: dict[str, Any] = {"model": model, "count": draw(st.integers(1, 6))}
        if first is not None:
            group["first"] = first
        return [group]
    f1 = draw(st.integers(1, 2))
    c1 = draw(st.integers(1, 6))
    f2 = f1 + c1 + draw(st.integers(0, 2))
    c2 = draw(st.integers(1, min(6, MAX_HOST - f2 + 1)))
    groups = [{"model": model, "count": c1, "first": f1}, {"model": model, "count": c2, "first": f2}]
    if draw(st.booleans()):  # a group with its own name pattern makes group order visible in the plan
        groups[1]["name"] = OTHER_HOST_NAME
    return groups


@st.composite
def segments(draw: st.DrawFn, seg_id: int) -> dict[str, Any]:
    rails = draw(st.sampled_from([2, 4]))
    design = draw(st.sampled_from(["single-rail", "dual-rail", "multi-rail"]))
    seg: dict[str, Any] = {"id": seg_id, "rail_design": design, "rails": rails, "rail_switch_model": "sw64",
                           "rail_prefix_len": draw(st.integers(24, 26))}
    if design == "multi-rail":
        seg["rails_per_switch"] = draw(st.sampled_from([r for r in (2, 4) if r <= rails]))
    seg["host_groups"] = draw(host_groups(_model(rails)))
    return seg


@st.composite
def spines(draw: st.DrawFn) -> dict[str, Any]:
    sp: dict[str, Any] = {"count": draw(st.integers(1, 4)), "model": "sw64", "link_speed": "800G"}
    links = draw(st.sampled_from([None, 1, 2]))
    if links is not None:
        sp["links_per_rail_switch"] = links
    if links == 2 and draw(st.booleans()):
        sp["port_channel_members"] = 2
    return sp


@st.composite
def pods(draw: st.DrawFn, pod_id: int) -> dict[str, Any]:
    pod: dict[str, Any] = {"id": pod_id}
    if draw(st.integers(0, 3)):  # 3 in 4 pods have a spine tier
        pod["spines"] = draw(spines())
    ids = draw(st.lists(st.sampled_from(SEG_IDS), min_size=1, max_size=3, unique=True))
    pod["segments"] = [draw(segments(s)) for s in ids]
    return pod


@st.composite
def inventories(draw: st.DrawFn) -> dict[str, Any]:
    data = _base()
    if draw(st.booleans()):
        count = draw(st.integers(1, 4))
        ss: dict[str, Any] = {"count": count, "model": "sw64"}
        planes = draw(st.sampled_from([None] + [p for p in range(1, count + 1) if count % p == 0]))
        if planes is not None:
            ss["planes"] = planes
        data["super_spines"] = ss
    ids = draw(st.lists(st.sampled_from(POD_IDS), min_size=1, max_size=3, unique=True))
    data["pods"] = [draw(pods(p)) for p in ids]
    return data


def shuffled(node: Any, rnd: random.Random, key: str = "") -> Any:
    """The same inventory with every mapping's key order and the pods/segments/host_groups lists shuffled."""
    if isinstance(node, dict):
        keys = list(node)
        rnd.shuffle(keys)
        return {k: shuffled(node[k], rnd, k) for k in keys}
    if isinstance(node, list):
        items = [shuffled(x, rnd) for x in node]
        if key in ("pods", "segments", "host_groups"):
            rnd.shuffle(items)
        return items
    return node


def _pod(data: dict[str, Any], pod_id: int) -> dict[str, Any]:
    return next(p for p in data["pods"] if p["id"] == pod_id)


# --------------------------------------------------------------------------- properties


def test_strategy_builds_valid_fabrics() -> None:
    """The generator covers the space it claims (and build() asserts every fabric it makes is error-free)."""
    seen: set[tuple] = set()

    @settings(max_examples=80, deadline=None)
    @given(inventories())
    def run(data: dict[str, Any]) -> None:
        b = build(data)
        for pod in data["pods"]:
            seen.add(("spines", "spines" in pod))
            for seg in pod["segments"]:
                seen.add((seg["rail_design"], seg["rails"], len(seg["host_groups"])))
        seen.add(("super_spines", "super_spines" in data))
        assert b.plan.loopback

    run()
    assert {("spines", True), ("spines", False), ("super_spines", True), ("super_spines", False)} <= seen
    assert {d for d, *_ in seen} >= {"single-rail", "dual-rail", "multi-rail"}


def with_new_pod(data: dict[str, Any], extra: st.DataObject) -> tuple[dict[str, Any], int]:
    """A copy of `data` with a new pod (an unused id, anywhere in the list), and its id."""
    free = [p for p in POD_IDS if p not in {pod["id"] for pod in data["pods"]}]
    new_id = extra.draw(st.sampled_from(free), label="new pod id")
    grown = copy.deepcopy(data)
    grown["pods"].insert(extra.draw(st.integers(0, len(grown["pods"])), label="at"),
                         extra.draw(pods(new_id), label="new pod"))
    return grown, new_id


def with_new_segment(data: dict[str, Any], extra: st.DataObject) -> tuple[dict[str, Any], int, int]:
    """A copy of `data` with a new segment in one of its pods (unused id, anywhere in the list): (copy, pod, id)."""
    pod = extra.draw(st.sampled_from(data["pods"]), label="pod")
    free = [s for s in SEG_IDS if s not in {seg["id"] for seg in pod["segments"]}]
    new_id = extra.draw(st.sampled_from(free), label="new segment id")
    grown = copy.deepcopy(data)
    segs = _pod(grown, pod["id"])["segments"]
    segs.insert(extra.draw(st.integers(0, len(segs)), label="at"), extra.draw(segments(new_id), label="new segment"))
    return grown, pod["id"], new_id


@PROPERTY
@given(data=inventories(), rnd=st.randoms(use_true_random=False))
def test_reorder_changes_nothing(data: dict[str, Any], rnd: random.Random) -> None:
    """(1) Shuffling pods, segments, host groups and every mapping's key order: identical addresses and ports."""
    before = view(build(data))
    after = view(build(shuffled(data, rnd)))
    assert after.values == before.values
    assert after.ports == before.ports


@PROPERTY
@given(data=inventories(), extra=st.data())
def test_add_pod_changes_nothing_existing(data: dict[str, Any], extra: st.DataObject) -> None:
    """(2) A new pod (unused id, anywhere in the list) adds values and changes none."""
    grown, new_id = with_new_pod(data, extra)
    assert_grows(build(data), build(grown), lambda d: d.pod == new_id, f"add pod {new_id}")


@PROPERTY
@given(data=inventories(), extra=st.data())
def test_add_segment_changes_nothing_existing(data: dict[str, Any], extra: st.DataObject) -> None:
    """(3) A new segment in an existing pod adds values and changes none."""
    grown, pod_id, new_id = with_new_segment(data, extra)
    assert_grows(build(data), build(grown), lambda d: (d.pod, d.segment) == (pod_id, new_id),
                 f"add segment {pod_id}/{new_id}")


@PROPERTY
@given(data=inventories(), extra=st.data())
def test_add_host_group_changes_nothing_existing(data: dict[str, Any], extra: st.DataObject) -> None:
    """(4) A new host group after the existing hosts: no value changes, existing host links keep their ports."""
    pod = extra.draw(st.sampled_from(data["pods"]), label="pod")
    seg = extra.draw(st.sampled_from(pod["segments"]), label="segment")
    last = max(g.get("first", 1) + g["count"] - 1 for g in seg["host_groups"])
    first = last + 1 + extra.draw(st.integers(0, 1), label="gap")
    grown = copy.deepcopy(data)
    gseg = next(s for s in _pod(grown, pod["id"])["segments"] if s["id"] == seg["id"])
    for g in gseg["host_groups"]:
        g.setdefault("first", 1)  # the default, made explicit: several groups need `first` (ID005)
    group = {"model": _model(seg["rails"]), "count": extra.draw(st.integers(1, 3), label="count"), "first": first}
    if extra.draw(st.booleans(), label="own name"):
        group["name"] = OTHER_HOST_NAME
    gseg["host_groups"].insert(extra.draw(st.integers(0, len(gseg["host_groups"])), label="at"), group)
    small, big = build(data), build(grown)
    assert_grows(small, big, lambda d: (isinstance(d, Host) and (d.pod, d.segment) == (pod["id"], seg["id"])
                                        and d.number >= first), f"add host group at {first}")
    vs, vb = view(small), view(big)
    assert {k: vb.ports[k] for k in vs.ports} == vs.ports  # no port of any existing link moved


@PROPERTY
@given(data=inventories(), extra=st.data())
def test_add_spine_changes_nothing_existing(data: dict[str, Any], extra: st.DataObject) -> None:
    """(5) One more spine in a pod: existing addresses unchanged; existing rail switch uplinks keep their /31 and
    their rail-switch-side port."""
    with_spines = [p for p in data["pods"] if "spines" in p]
    assume(with_spines)
    pod = extra.draw(st.sampled_from(with_spines), label="pod")
    grown = copy.deepcopy(data)
    _pod(grown, pod["id"])["spines"]["count"] += 1
    index = pod["spines"]["count"] + 1
    small, big = build(data), build(grown)
    assert_grows(small, big, lambda d: isinstance(d, Switch) and d.pod == pod["id"] and d.index == index
                 and d.role is Role.SPINE, f"add spine {index} to pod {pod['id']}")
    new_links = {link.id: link for link in big.topo.links}
    for link in small.topo.links:
        if link.role is LinkRole.FABRIC:
            key = link.bundle or link.id
            assert big.plan.p2p[key] == small.plan.p2p[key], key
            now = new_links[link.id].a
            assert (now.device, now.port, now.lane) == (link.a.device, link.a.port, link.a.lane), link.id


@PROPERTY
@given(data=inventories(), extra=st.data())
def test_remove_pod_or_segment_changes_nothing_remaining(data: dict[str, Any], extra: st.DataObject) -> None:
    """(6) Removing a pod or a segment keeps every remaining value (the reverse of adding)."""
    choices = [("pod", p["id"], None) for p in data["pods"]] if len(data["pods"]) > 1 else []
    choices += [("segment", p["id"], s["id"]) for p in data["pods"] if len(p["segments"]) > 1 for s in p["segments"]]
    assume(choices)
    kind, pod_id, seg_id = extra.draw(st.sampled_from(choices), label="remove")
    shrunk = copy.deepcopy(data)
    if kind == "pod":
        shrunk["pods"] = [p for p in shrunk["pods"] if p["id"] != pod_id]
        scope: Scope = lambda d: d.pod == pod_id  # noqa: E731
    else:
        pod = _pod(shrunk, pod_id)
        pod["segments"] = [s for s in pod["segments"] if s["id"] != seg_id]
        scope = lambda d: (d.pod, d.segment) == (pod_id, seg_id)  # noqa: E731
    assert_grows(build(shrunk), build(data), scope, f"remove {kind} {pod_id}/{seg_id}")


@PROPERTY
@given(data=inventories(), extra=st.data())
def test_add_super_spines_changes_nothing_existing(data: dict[str, Any], extra: st.DataObject) -> None:
    """(6b) One more super-spine per plane: existing values and cables stay; new links touch the new super-spines.
    Read backwards, removing them moves nothing either (as for every test of this file)."""
    assume("super_spines" in data)
    ss = data["super_spines"]
    add = ss.get("planes") or 1
    assume(ss["count"] + add <= 8)  # limits.super_spines
    grown = copy.deepcopy(data)
    grown["super_spines"]["count"] += add
    old = ss["count"]
    assert_grows(build(data), build(grown), lambda d: isinstance(d, Switch) and d.role is Role.SUPER_SPINE
                 and d.index > old, f"add {add} super-spine(s)")


def _switch_ends(b: Built) -> dict[str, set[tuple[str, int]]]:
    return {link.id: {(link.z.device, link.z.port)} | ({(link.a.device, link.a.port)}
                                                      if link.role is not LinkRole.HOST else set())
            for link in b.topo.links}


@PROPERTY
@given(data=inventories(), extra=st.data())
def test_disabling_a_port_takes_off_only_its_links(data: dict[str, Any], extra: st.DataObject) -> None:
    """(6c) Disabling one switch port takes off exactly the links on it (a PORT005 warning each) and moves no other
    cable, address or value."""
    small = build(data)
    ends = _switch_ends(small)
    link_id = extra.draw(st.sampled_from(sorted(ends)), label="link")
    device, port = extra.draw(st.sampled_from(sorted(ends[link_id])), label="end")
    grown = copy.deepcopy(data)
    grown["devices"] = {small.topo.switches[device].key: {"disabled_ports": [port]}}
    big = build(grown)
    off = {k for k, e in ends.items() if (device, port) in e}
    vs, vb = view(small), view(big)
    assert set(vs.ports) - set(vb.ports) == off and set(vb.ports) <= set(vs.ports)
    assert {k: vs.ports[k] for k in vb.ports} == vb.ports, "a cable moved"
    assert {entry[0].id for entry in big.topo.off} == off
    assert "PORT005" in big.codes
    gone = {("host", k) for k in off} | {("p2p", k) for k in off}
    assert {k: v for k, v in vs.values.items() if k not in gone} == {k: v for k, v in vb.values.items()
                                                                     if k not in gone}


@PROPERTY
@given(data=inventories(), extra=st.data())
def test_changing_a_port_map_moves_only_that_switchs_uplinks(data: dict[str, Any], extra: st.DataObject) -> None:
    """(6d) Giving one switch a model whose uplink block differs (41-64 instead of the upper half 33-64) moves the
    uplinks of that switch only: no address, no other cable, not its host or downlink ports."""
    small = build(data)
    name = extra.draw(st.sampled_from(sorted(small.topo.switches)), label="switch")
    grown = copy.deepcopy(data)
    grown["switch_models"]["sw64u"] = {**copy.deepcopy(grown["switch_models"]["sw64"]),
                                       "port_blocks": {"uplinks": "41-64"}}
    grown["devices"] = {small.topo.switches[name].key: {"model": "sw64u"}}
    big = build(grown)
    vs, vb = view(small), view(big)
    assert vs.values == vb.values and set(vs.ports) == set(vb.ports)
    lower = {link.id: link.a.device for link in small.topo.links}
    moved = {k: (v, vb.ports[k]) for k, v in vs.ports.items() if vb.ports[k] != v}
    assert all(lower[k] == name and old[2:] == new[2:] and new[0] == old[0] + 8 for k, (old, new) in moved.items()), \
        f"moved beyond {name}'s uplinks: {moved}"


# --------------------------------------------------------------------------- determinism across processes


def _cli(seed: str, *args: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    proc = subprocess.run([sys.executable, "-c", "import sys; from railfabric.cli import main; sys.exit(main())",
    *args],
                          cwd=ROOT, env=env, capture_output=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout
    return proc.stdout


def test_output_is_identical_across_hash_seeds() -> None:
    """(7) Set/dict iteration order never leaks into the plan: two interpreters with different hash seeds print the
    same bytes for the shipped example."""
    assert _cli("1", "validate", "--format", "json", str(EXAMPLE)) == _cli("2", "validate", "--format", "json",
                                                                            str(EXAMPLE))
    assert _cli("1", "show", "p1-s1-rail3", str(EXAMPLE)) == _cli("2", "show", "p1-s1-rail3", str(EXAMPLE))


# --------------------------------------------------------------------------- why: the numbers by hand


def test_hand_derived_values_survive_a_pod_in_front() -> None:
    """Slots come from identity and the strides of `limits:`, so a pod added in front changes nothing.

    base_inventory(): limits super_spines 8, pods 4, spines_per_pod 8, segments_per_pod 4,
    rail_switches_per_segment 8, uplinks_per_rail_switch 16, segment_rail_block 21; pools loopbacks 10.0.0.0/16,
    management 192.168.0.0/16 (first_offset 16), fabric_links 10.32.0.0/11, rail_subnets 172.16.0.0/12.
    Pod 1 segment 1 is single-rail with 2 rails: rail switches p1-s1-rail0 (index 1) and p1-s1-rail1 (index 2).
    """
    # rail tier slot = ((pod-1)·segments_per_pod + (seg-1))·rail_switches_per_segment + (index-1)
    # device slot    = super_spines + pods·spines_per_pod + rail tier slot = 8 + 4·8 + tier = 40 + tier
    rail0_tier = ((1 - 1) * 4 + (1 - 1)) * 8 + (1 - 1)  # 0
    rail1_tier = ((1 - 1) * 4 + (1 - 1)) * 8 + (2 - 1)  # 1
    expected = {
        ("loopback", "p1-s1-rail0"): ntoa(0x0A000000 + 40 + rail0_tier),  # 10.0.0.40
        ("loopback", "p1-s1-rail1"): ntoa(0x0A000000 + 40 + rail1_tier),  # 10.0.0.41
        ("management", "p1-s1-rail0"): "192.168.0.56",  # first_offset 16 + slot 40
        ("asn", "p1-s1-rail0"): 4200100000 + rail0_tier,  # rail_switch_base + rail tier slot
        ("asn", "p1-s1-rail1"): 4200100001,
        # spine j of pod p: slot super_spines + (p-1)·spines_per_pod + (j-1) = 8; ASN spine_base + p
        ("loopback", "p1-spine1"): "10.0.0.8",
        ("asn", "p1-spine1"): 4200001001,
        # /31 slot = rail tier slot · uplinks_per_rail_switch + u, u = (spine-1)·links + link; offset = 2·slot
        ("p2p", "p1-s1-rail0>p1-spine1#1"): "10.32.0.0/31",  # slot 0
        ("p2p", "p1-s1-rail0>p1-spine2#1"): "10.32.0.2/31",  # slot 1
        ("p2p", "p1-s1-rail1>p1-spine1#1"): "10.32.0.32/31",  # slot 16
        # segment (1,1) owns /21 block 0; rail switch k (1 rail each) owns /24 number k-1; VLAN 100 + rail
        ("rail", "p1-s1-rail0", 0): (100, "172.16.0.0/24", "172.16.0.1"),
        ("rail", "p1-s1-rail1", 1): (101, "172.16.1.0/24", "172.16.1.1"),
        # host n = gateway + n
        ("host", "p1-s1-gpu001:nic0p1"): "172.16.0.2",
        ("host", "p1-s1-gpu004:nic1p1"): "172.16.1.5",
    }
    data = base_inventory()
    before = view(build(data)).values
    assert {k: before[k] for k in expected} == expected

    grown = copy.deepcopy(data)
    grown["pods"].insert(0, {"id": 2, "spines": {"count": 2, "model": "sw64", "link_speed": "800G"},
                             "segments": [{"id": 1, "rail_design": "single-rail", "rails": 2,
                                           "rail_switch_model": "sw64",
                                           "host_groups": [{"model": "h2", "count": 4}]}]})
    after = view(build(grown)).values
    assert {k: after[k] for k in expected} == expected
    assert {k: after[k] for k in before} == before
    # and pod 2 lands where its ids say: rail tier ((2-1)·4 + 0)·8 = 32 → slot 72; spine slot 8 + 8 = 16;
    # segment (2,1) owns /21 block 4 → 172.16.32.0/21
    assert after[("loopback", "p2-s1-rail0")] == "10.0.0.72"
    assert after[("asn", "p2-s1-rail0")] == 4200100032
    assert after[("loopback", "p2-spine1")] == "10.0.0.16"
    assert after[("asn", "p2-spine1")] == 4200001002
    assert after[("p2p", "p2-s1-rail0>p2-spine1#1")] == ntoa(0x0A200000 + 2 * 32 * 16) + "/31"  # 10.32.2.0/31
    assert after[("rail", "p2-s1-rail0", 0)] == (100, "172.16.32.0/24", "172.16.32.1")


# --------------------------------------------------------------------------- downlink ports on the upper tiers
#
# Spine and super-spine downlinks (the upper end of fabric and core links) are dense by default: handed out in
# identity order, so appending higher ids never moves a cable, but inserting a lower id does. Declaring
# spines.ports_per_segment / super_spines.ports_per_pod reserves a port range per id and makes them identity-pure.


def _upper_ports(b: Built) -> dict[str, tuple[str, int, int]]:
    return {link.id: (link.z.device, link.z.port, link.z.lane) for link in b.topo.links
            if link.role is not LinkRole.HOST}


def _moved(small: Built, big: Built) -> list:
    before, after = _upper_ports(small), _upper_ports(big)
    return [(k, v, after[k]) for k, v in before.items() if after[k] != v]


def _segments_1_3_then_2(stride: int | None) -> tuple[Built, Built]:
    data = base_inventory()
    if stride:
        data["pods"][0]["spines"]["ports_per_segment"] = stride
    seg = data["pods"][0]["segments"][0]
    data["pods"][0]["segments"].append({**copy.deepcopy(seg), "id": 3})
    grown = copy.deepcopy(data)
    grown["pods"][0]["segments"].append({**copy.deepcopy(seg), "id": 2})
    return build(data), build(grown)


def test_spine_downlink_ports_survive_a_segment_in_between_with_a_stride() -> None:
    moved = _moved(*_segments_1_3_then_2(stride=4))
    assert not moved, f"existing spine-side ports moved:\n{_show(moved)}"


def test_dense_spine_downlinks_move_when_a_lower_segment_is_inserted() -> None:
    # documented default: without a stride, segment 3's cables shift by segment 2's 2 switches × 1 link; the
    # fabric with segments 1 and 3 is warned (TOPO005) that this would happen
    small, big = _segments_1_3_then_2(stride=None)
    assert small.dense and not _segments_1_3_then_2(stride=4)[0].dense
    moved = dict((k, (a[1], b[1])) for k, a, b in _moved(small, big))
    assert moved["p1-s3-rail0>p1-spine1#1"] == (3, 5)


def test_super_spine_downlink_ports_survive_a_spine_in_a_lower_pod_with_a_stride() -> None:
    data = base_inventory()
    data["super_spines"] = {"count": 2, "model": "sw64", "ports_per_pod": 4}
    data["pods"].append({**copy.deepcopy(data["pods"][0]), "id": 2})
    grown = copy.deepcopy(data)
    grown["pods"][0]["spines"]["count"] = 3
    moved = _moved(build(data), build(grown))
    assert not moved, f"existing super-spine-side ports moved:\n{_show(moved)}"
