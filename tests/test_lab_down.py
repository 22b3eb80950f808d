"""`fabric lab --down NAME ...`: FRR's converged routes after a failure, checked against `fabric impact`'s prediction.

The fabrics are tests.helpers' mini fabric grown to 4 rails: one pod, spines p1-spine1/2, one single-rail segment of
rails 0-3 (rail switches p1-s1-rail0..3), 4 hosts p1-s1-gpu001..004 of 4 GPUs and 4 NICs (NIC r on rail r, one GPU
per NIC). Derived by hand from the inventory:
- rail subnets: pools.rail_subnets 172.16.0.0/12, segment_rail_block 21: segment 1 of pod 1 owns the first /21,
  172.16.0.0/21, and rail r its r-th /24: 172.16.r.0/24 (no summary: single-rail);
- links_per_rail_switch L: each rail switch has L links to each of the 2 spines, so 2·L ECMP next hops toward every
  other rail switch's /24 (routing.ecmp.width 64 caps nothing here);
- with port_channel_members 2 the L links to a spine form L/2 L3 port-channels, min-links 2 (the default: every
  member), each one next hop: 2 · L/2 next hops.
Each scenario's numbers are asserted three ways: equal to impact's prediction (what the lab compares FRR with), equal
to the hand numbers, and (root + FRR) the lab's verdict PASS with the check counts these numbers give.
The lab tests need root and FRR (skipped with the reason otherwise); CI runs them as root in make test's lab process.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from railfabric.lab.expect import expected
from railfabric.lab.model import LabError
from railfabric.lab.spec import build_spec
from railfabric.pipeline import Result
from tests.helpers import base_inventory, mlag_inventory, run_data

_WHY_NOT = ("the FRR lab needs root (network namespaces, FRR daemons); CI runs it as root" if os.geteuid() != 0
            else "FRR is not installed: apt-get install frr" if shutil.which("vtysh") is None else "")
needs_lab = pytest.mark.skipif(bool(_WHY_NOT), reason=_WHY_NOT)
RAILS = [f"p1-s1-rail{r}" for r in range(4)]
SUBNET = {f"p1-s1-rail{r}": f"172.16.{r}.0/24" for r in range(4)}


def _fabric(tmp_path: Path, links: int = 1, members: int | None = None, min_links: int | None = None) -> Result:
    data = base_inventory()
    data["host_models"]["h4"] = {"gpus": 4, "nics": 4, "nic_speed": "400G"}
    data["pods"][0]["segments"][0].update(rails=4, host_groups=[{"model": "h4", "count": 4}])
    spines = data["pods"][0]["spines"]
    spines["links_per_rail_switch"] = links
    if members:
        spines["port_channel_members"] = members
    if min_links:
        spines["port_channel_min_links"] = min_links
    res = run_data(tmp_path, data)
    assert res.plan is not None, [f.code for f in res.findings]
    assert {sw: str(s.prefix) for (sw, _r), s in res.plan.rail_subnets.items()} == SUBNET
    return res


def _prepare(res: Result, *names: str, hosts: int = 0):
    from railfabric.lab.downrun import prepare_down

    spec = build_spec(res, hosts=hosts)
    return prepare_down(res, spec, expected(spec), names)


def _widths(others: dict[str, int]) -> dict[str, dict[str, int]]:
    """Every live rail switch x → {the /24 of every other rail switch y: others[y]} (rail switches in `others`)."""
    return {x: {SUBNET[y]: w for y, w in others.items() if y != x} for x in others}


# --------------------------------------------------------------------------- scenarios: impact's prediction = hand


def _scenario_a(tmp_path: Path):
    """(a) p1-s1-rail0 down: rail 0's /24 is withdrawn (its only origin is down), unreachable from rail switches 1-3;
    its 4 GPUs (NIC 0 of each of the 4 hosts, one GPU each) isolated; the other /24s keep 2 spines × 1 link = 2."""
    dr = _prepare(_fabric(tmp_path), "p1-s1-rail0")
    p = dr.prediction
    hand = {x: {SUBNET[y]: (0 if y == "p1-s1-rail0" else 2) for y in RAILS if y != x} for x in RAILS[1:]}
    assert p.widths == hand
    assert p.withdrawn == ["172.16.0.0/24"]
    assert p.isolated_gpus == 4 and p.report["isolated"]["by_rail"] == {"0": 4}
    assert list(p.isolated_subnets) == ["172.16.0.0/24"]
    assert p.histograms == []  # the only changed destination is the one withdrawn
    return dr


def _scenario_b(tmp_path: Path):
    """(b) p1-spine1 down, 2 links per (rail switch, spine): every rail switch had 2 spines × 2 links = 4 next hops
    to every other /24 and keeps p1-spine2's 2; nothing isolated or withdrawn. impact's histogram per destination:
    the 3 other rail switches, all at width 2."""
    dr = _prepare(_fabric(tmp_path, links=2), "p1-spine1")
    p = dr.prediction
    assert p.widths == _widths(dict.fromkeys(RAILS, 2))
    assert p.withdrawn == [] and p.isolated_gpus == 0 and p.isolated_subnets == {}
    assert p.histograms == [([SUBNET[y]], [y], {"2": 3}) for y in RAILS]
    return dr


MEMBER = "p1-s1-rail0>p1-spine1#2"  # the second member of p1-s1-rail0's first port-channel to p1-spine1 (pc1)


def _scenario_c(tmp_path: Path):
    """(c) one member of an L3 port-channel with min-links: 4 links per (rail switch, spine) in port-channels of 2,
    min-links 2 (every member). MEMBER down leaves pc1 1 live member < 2: the port-channel goes down. p1-s1-rail0
    keeps 2 spines × 2 port-channels − 1 = 3 next hops toward every other /24; the others keep 4 toward every /24,
    rail 0's included (p1-spine1 still reaches p1-s1-rail0 over pc2). impact's histogram for the /24s of rails 1-3:
    among the 3 other rail switches, p1-s1-rail0 at 3 and 2 at 4; nothing isolated or withdrawn."""
    dr = _prepare(_fabric(tmp_path, links=4, members=2), MEMBER)
    p = dr.prediction
    hand = _widths(dict.fromkeys(RAILS, 4))
    hand["p1-s1-rail0"] = {SUBNET[y]: 3 for y in RAILS[1:]}
    assert p.widths == hand
    assert p.withdrawn == [] and p.isolated_gpus == 0
    assert p.histograms == [([SUBNET[y]], [y], {"3": 1, "4": 2}) for y in RAILS[1:]]
    return dr


MULTI = [f"p1-s1-rail{2 * k}-{2 * k + 1}" for k in range(4)]
AGGREGATE = {sw: f"172.16.{2 * k}.0/23" for k, sw in enumerate(MULTI)}


def _multi_rail(tmp_path: Path) -> Result:
    """The mini fabric with one multi-rail segment of 8 rails, 2 per switch: rail switches p1-s1-rail0-1 ..
    p1-s1-rail6-7, 4 hosts of 8 GPUs and 8 NICs; 2 links per (rail switch, spine): 2 × 2 × 800G = 3.2T up for
    2 rails × 4 hosts × 400G down. Switch k originates the /24s of rails 2k and 2k+1 (172.16.2k.0/24,
    172.16.2k+1.0/24, as above) and their summary-only aggregate 172.16.2k.0/23: the others hold
    the /23 only."""
    data = base_inventory()
    data["host_models"]["h8"] = {"gpus": 8, "nics": 8, "nic_speed": "400G"}
    data["pods"][0]["segments"][0].update(rails=8, rails_per_switch=2, rail_design="multi-rail",
                                          host_groups=[{"model": "h8", "count": 4}])
    data["pods"][0]["spines"]["links_per_rail_switch"] = 2
    res = run_data(tmp_path, data)
    assert res.plan is not None, [f.code for f in res.findings]
    assert {sw: str(a) for sw, a in res.plan.aggregates.items()} == AGGREGATE
    return res


def _scenario_e(tmp_path: Path):
    """(e) a multi-rail switch down, p1-s1-rail0-1: both its rails' GPUs isolated, 4 hosts × 2 NICs × 1 GPU = 8;
    withdrawn: its two /24s and its /23; the 3 other switches lose the /23 (the /24s never reached them: suppressed)
    and keep each other's /23 at 2 spines × 2 links = 4."""
    dr = _prepare(_multi_rail(tmp_path), "p1-s1-rail0-1")
    p = dr.prediction
    assert p.widths == {x: {AGGREGATE[y]: (0 if y == MULTI[0] else 4) for y in MULTI if y != x} for x in MULTI[1:]}
    assert sorted(p.withdrawn) == ["172.16.0.0/23", "172.16.0.0/24", "172.16.1.0/24"]
    assert p.isolated_gpus == 8 and p.report["isolated"]["by_rail"] == {"0": 4, "1": 4}
    assert sorted(p.isolated_subnets) == ["172.16.0.0/24", "172.16.1.0/24"]
    return dr


def test_a_multi_rail_switch_down_prediction(tmp_path: Path) -> None:
    _scenario_e(tmp_path)


NIC = "p1-s1-gpu001:nic1"


def _scenario_nic(tmp_path: Path):
    """A host NIC down, the lab building 2 hosts per segment (the first and the last: p1-s1-gpu001 and -gpu004):
    gpu001's NIC 1 carries rail 1 to p1-s1-rail1, one GPU per NIC: 1 GPU isolated, behind a live rail switch, so
    rail 1's /24 stays and every width stays 2 (no destination changes). The NIC's address: host k of the segment
    gets .k+1 of its rail's /24, gateway .1: a ping 172.16.1.1 -> 172.16.1.2 from p1-s1-rail1 must fail."""
    dr = _prepare(_fabric(tmp_path), NIC, hosts=2)
    p = dr.prediction
    assert p.isolated_gpus == 1 and p.report["isolated"]["hosts"] == ["p1-s1-gpu001"]
    assert p.widths == _widths(dict.fromkeys(RAILS, 2)) and p.withdrawn == [] and p.histograms == []
    assert p.isolated_subnets == {} and p.isolated_elsewhere == []
    assert [(x.node, x.src, x.dst, x.expect_ok) for x in p.isolated_pings] == [
        ("p1-s1-rail1", "172.16.1.1", "172.16.1.2", False)]
    assert dr.actions == ["NIC port p1-s1-gpu001:nic1p1: p1-s1-gpu001:nic1 down"]
    return dr


def test_a_host_nic_down_prediction(tmp_path: Path) -> None:
    _scenario_nic(tmp_path)


def test_a_rail_switch_down_prediction(tmp_path: Path) -> None:
    dr = _scenario_a(tmp_path)
    assert dr.actions == ["switch p1-s1-rail0: every interface of rf-p1-s1-rail0 down, then its FRR daemons stopped"]


def test_a_spine_down_prediction(tmp_path: Path) -> None:
    _scenario_b(tmp_path)


def test_a_port_channel_member_down_prediction_and_min_links(tmp_path: Path) -> None:
    """The lab has no bond: pc1's /31 rides on its first member's veth (Ethernet256 at the rail switch, port 33;
    MEMBER is port 34, Ethernet264). Taking MEMBER down must also take the carrying veth down at both ends (1 live
    member < min-links 2), which is what FRR then sees as the port-channel going down."""
    dr = _scenario_c(tmp_path)
    ends = dr.plan.ends
    assert sorted((ns.split("-", 1)[1], names) for ns, names in ends.items()) == [
        ("p1-s1-rail0", ["Ethernet264", "Ethernet256"]), ("p1-spine1", ["Ethernet8", "Ethernet0"])]
    assert dr.actions[-1].startswith("p1-s1-rail0 PortChannel33: 1 of 2 members live, min-links 2: the "
                                     "port-channel goes down")


def test_min_links_1_keeps_the_bundle_and_refuses_its_carrier(tmp_path: Path) -> None:
    """min-links 1: one member down leaves the bundle up (impact: width unchanged, 4 everywhere); the lab can take
    the second member down, but not the member that carries the bundle's /31 (it would lose the session)."""
    res = _fabric(tmp_path, links=4, members=2, min_links=1)
    dr = _prepare(res, MEMBER)
    assert dr.prediction.widths == _widths(dict.fromkeys(RAILS, 4))
    assert dr.actions[-1] == "p1-s1-rail0 PortChannel33: 1 of 2 members live, min-links 1: the port-channel stays up"
    with pytest.raises(LabError, match=r"PortChannel33: 1 of 2 members stay up \(min-links 1\), but the lab carries "
                                       r"the port-channel on member p1-s1-rail0>p1-spine1#1"):
        _prepare(res, "p1-s1-rail0>p1-spine1#1")


# --------------------------------------------------------------------------- refusals (no root needed)


def test_unknown_names_are_refused_as_impact_refuses_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from railfabric.cli import main

    _fabric(tmp_path)
    inv = str(tmp_path / "inv")
    assert main(["impact", inv, "--down", "p1-spine9", "p1-s1-rail0"]) == 2
    said = capsys.readouterr().err.removeprefix("fabric impact: ")
    assert said == "unknown switch, link, port or NIC: 'p1-spine9' (did you mean p1-spine2, p1-spine1?)\n"
    assert main(["lab", inv, "--hosts", "0", "-q", "--down", "p1-spine9", "p1-s1-rail0"]) == 2
    assert capsys.readouterr().err == f"fabric lab: {said}"


def test_down_with_a_fault_is_refused(tmp_path: Path) -> None:
    from railfabric.lab import run_lab

    with pytest.raises(LabError, match="--down cannot be combined with --fault: the lab compares"):
        run_lab(_fabric(tmp_path), faults=["asn"], down=["p1-spine1"], say=lambda _m: None)


def test_an_mlag_member_is_refused_with_the_reason(tmp_path: Path) -> None:
    """(d) an MLAG pair member: the lab does not run MLAG pairs (railfabric/lab/model.py out_reason), so it refuses
    before building anything; impact's prediction for it is tested in tests/test_impact.py."""
    res = run_data(tmp_path, mlag_inventory())
    spec = build_spec(res)
    from railfabric.lab.downrun import prepare_down

    with pytest.raises(LabError, match=r"switch p1-s1-rail0a: in an MLAG pair \(namespaces emulate neither MCLAG"):
        prepare_down(res, spec, expected(spec), ["p1-s1-rail0a"])


def test_switches_outside_the_lab_are_refused_with_the_reason() -> None:
    """The shipped example, a pod-1 lab: pod 1 segment 2 runs EOS (no frr.conf), p2-spine1 is in pod 2."""
    from railfabric.lab.downrun import prepare_down
    from railfabric.pipeline import run
    from tests.helpers import EXAMPLE

    res = run(EXAMPLE)
    spec = build_spec(res, pod=1)
    with pytest.raises(LabError, match=r"^--down names what the lab cannot take down: switch p1-s2-rail0-4: on eos, "
                                       r"not SONiC \(no frr.conf to run\); switch p2-spine1: outside pod 1$"):
        prepare_down(res, spec, expected(spec), ["p2-spine1", "p1-s2-rail0-4"])


def test_a_nic_of_a_host_not_built_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LabError, match=r"NIC port p1-s1-gpu001:nic0p1: host p1-s1-gpu001 is not built in this lab"):
        _prepare(_fabric(tmp_path), "p1-s1-gpu001:nic0")


# --------------------------------------------------------------------------- the lab (root + FRR)


def _lab(res: Result, names: tuple[str, ...], hosts: int = 0):
    from railfabric.lab import format_result, run_lab, teardown_saved
    from railfabric.lab.runs import new_run_id
    from tests.test_lab import _leftovers

    rid = new_run_id()
    try:
        r = run_lab(res, down=names, hosts=hosts, say=lambda _m: None, run_id=rid)
    finally:
        left = _leftovers(rid)  # the daemons --down stopped included
        teardown_saved(run=rid)
    print(format_result(r))
    assert not left, f"lab run {rid} left things behind: {left[:5]}"
    return r


def _counts(r) -> dict[str, tuple[int, int]]:
    return {k: (c.total, len(c.bad)) for k, c in r.checks.items() if k.startswith("down-")}


@needs_lab
def test_lab_rail_switch_down_agrees_with_impact(tmp_path: Path) -> None:
    """(a) in FRR: at rail switches 1-3, rail 0's /24 absent (3 items) and the other two /24s at width 2 (3 × 2 = 6);
    172.16.0.0/24 absent at the 5 live switches (2 spines + 3 rail switches), as withdrawn and as the isolated GPUs'
    subnet; no histogram (the changed destination is withdrawn)."""
    dr = _scenario_a(tmp_path)
    r = _lab(_fabric(tmp_path / "lab"), dr.names)
    assert r.verdict == "PASS", r.verdict
    assert _counts(r) == {"down-widths": (6, 0), "down-unreachable": (3, 0), "down-withdrawn": (5, 0),
                          "down-isolated": (5, 0), "down-histogram": (0, 0),
                          "down-blackhole": (0, 0), "down-ipv6": (0, 0)}
    assert r.down is not None and r.down.converged


@needs_lab
def test_lab_spine_down_agrees_with_impact(tmp_path: Path) -> None:
    """(b) in FRR: every rail switch at width 2 toward the 3 other /24s (4 × 3 = 12), the 4 histograms {2: 3}."""
    dr = _scenario_b(tmp_path)
    r = _lab(_fabric(tmp_path / "lab", links=2), dr.names)
    assert r.verdict == "PASS", r.verdict
    assert _counts(r) == {"down-widths": (12, 0), "down-unreachable": (0, 0), "down-withdrawn": (0, 0),
                          "down-isolated": (0, 0), "down-histogram": (4, 0),
                          "down-blackhole": (0, 0), "down-ipv6": (0, 0)}


@needs_lab
def test_lab_port_channel_member_down_agrees_with_impact(tmp_path: Path) -> None:
    """(c) in FRR: p1-s1-rail0 at 3 toward 3 /24s, the others at 4 toward 3 /24s each (12 widths), and 3 histograms
    (the /24s of rails 1-3) {3: 1, 4: 2}."""
    dr = _scenario_c(tmp_path)
    r = _lab(_fabric(tmp_path / "lab", links=4, members=2), dr.names)
    assert r.verdict == "PASS", r.verdict
    assert _counts(r) == {"down-widths": (12, 0), "down-unreachable": (0, 0), "down-withdrawn": (0, 0),
                          "down-isolated": (0, 0), "down-histogram": (3, 0),
                          "down-blackhole": (0, 0), "down-ipv6": (0, 0)}


@needs_lab
def test_lab_multi_rail_switch_down_agrees_with_impact(tmp_path: Path) -> None:
    """(e) in FRR: at the 3 live switches the other two /23s at width 4 (3 × 2 = 6) and the lost /23 absent (3);
    the 3 withdrawn prefixes absent at the 5 live switches (15), the 2 isolated /24s too (10)."""
    dr = _scenario_e(tmp_path)
    r = _lab(_multi_rail(tmp_path / "lab"), dr.names)
    assert r.verdict == "PASS", r.verdict
    assert _counts(r) == {"down-widths": (6, 0), "down-unreachable": (3, 0), "down-withdrawn": (15, 0),
                          "down-isolated": (10, 0), "down-histogram": (0, 0),
                          "down-blackhole": (0, 0), "down-ipv6": (0, 0)}


@needs_lab
def test_lab_host_nic_down_agrees_with_impact(tmp_path: Path) -> None:
    """The NIC in FRR and on the host: the 12 widths stay 2 (4 rail switches × 3 other /24s) and the isolated NIC
    answers no ping from its rail gateway (1 item); nothing withdrawn, unreachable or changed."""
    dr = _scenario_nic(tmp_path)
    r = _lab(_fabric(tmp_path / "lab"), dr.names, hosts=2)
    assert r.verdict == "PASS", r.verdict
    assert _counts(r) == {"down-widths": (12, 0), "down-unreachable": (0, 0), "down-withdrawn": (0, 0),
                          "down-isolated": (1, 0), "down-histogram": (0, 0),
                          "down-blackhole": (0, 0), "down-ipv6": (0, 0)}


@needs_lab
def test_lab_fails_on_a_wrong_prediction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """impact's route model made wrong on purpose (every width one more than it computes: 3 intact, 2 after):
    FRR installs 1 next hop (p1-spine2's one link) after p1-spine1 goes down, so the lab must FAIL and name each
    switch and prefix with impact's number and FRR's."""
    from railfabric.impact.routes import Routes

    real = Routes.width
    monkeypatch.setattr(Routes, "width", lambda self, src, dest: real(self, src, dest) + 1)
    r = _lab(_fabric(tmp_path), ("p1-spine1",))
    assert r.verdict == "FAIL"
    bad = r.checks["down-widths"].bad
    assert len(bad) == 12 and "p1-s1-rail0: 172.16.1.0/24 with 1 next-hop(s), impact 2" in bad
    assert r.checks["down-histogram"].bad[0] == ("p1-s1-rail0: 172.16.0.0/24 widths (width: rail switches) {1: 3}, "
                                                 "impact {2: 3}")
