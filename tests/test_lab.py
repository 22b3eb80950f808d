"""`fabric lab`: the expectations it derives from the plan (any user), and the FRR lab itself (root only).

The lab tests build namespaces and start FRR daemons, so they need root; CI runs as root (`make test` installs frr and
iputils-ping). Every lab run has its own id (namespaces and FRR pathspaces rf<id>-<host>) and tears itself down;
the `run_id` fixture hands a test a fresh id and then checks that nothing of that run is left behind (no namespace,
no FRR daemon with its pathspace, no record) even when the test fails. Other labs on the machine are never looked at.

Counts for the example with its EOS segment on SONiC (`example`, tests/helpers.py example_all_sonic; see
tests/test_cli.py for the cabling): 34 switches; sessions = pod 1 rail↔spine 128 links, pod 2 rail↔spine 64 links in
32 port-channels (one session each), spine↔super-spine 128 + 64 → 352, each with BFD. The shipped example
(`shipped`) has pod 1 segment 2 on EOS: its 4 rail switches have no frr.conf and stay outside the lab, taking their
4 spines × 4 links = 64 sessions with them → 30 switches and 288 sessions.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from railfabric.lab.coverage import nothing_to_verify
from railfabric.lab.expect import expected
from railfabric.lab.model import FAULTS
from railfabric.lab.spec import build_spec
from railfabric.pipeline import Result, run
from tests.helpers import EXAMPLE, ROOT, base_inventory, example_all_sonic, run_data, with_system

NOT_ROOT = "the FRR lab needs root (network namespaces, FRR daemons); CI runs it as root"
root_only = pytest.mark.skipif(os.geteuid() != 0, reason=NOT_ROOT)


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory):
    return run(example_all_sonic(tmp_path_factory.mktemp("example") / "inventory"))


@pytest.fixture(scope="module")
def shipped():
    return run(EXAMPLE)


def test_the_shipped_example_leaves_its_eos_switches_out(shipped) -> None:
    spec = build_spec(shipped)
    eos = tuple(f"p1-s2-rail{r}-{r + 4}" for r in range(4))
    assert spec.not_in_lab == eos and len(spec.nodes) == 30
    assert not any(ln.a.node in eos or ln.z.node in eos for ln in spec.links)
    exp = expected(spec)
    assert len(exp.sessions) == 352 - 64 and exp.outside == 64  # counted from the spines' side


# --------------------------------------------------------------------------- expectations (no root needed)


def test_lab_spec_of_the_example(example) -> None:
    spec = build_spec(example)
    assert len(spec.nodes) == 34
    assert spec.counts() == {"rail": 22, "spine": 8, "super-spine": 4}
    assert len(spec.links) == 128 + 64 + 192  # every fabric and core cable is a veth pair
    # port-channels: the /31 on one member only, the other member up without an address
    pc = [ln for ln in spec.links if ln.channel]
    assert len(pc) == 64 and sum(1 for ln in pc if ln.a.ipv4) == 32
    rail = spec.nodes["p1-s2-rail1-5"]
    assert [(s.name, s.gateway) for s in rail.svis] == [("Vlan101", "172.16.9.1/25"), ("Vlan105", "172.16.9.129/25")]
    assert all(ln.a.mtu == ln.z.mtu == 9216 for ln in spec.links)


def test_expected_state_of_the_example(example) -> None:
    exp = expected(build_spec(example))
    assert len(exp.sessions) == 352 and exp.outside == 0
    assert all(s.bfd for s in exp.sessions)
    rail0 = exp.routes["p1-s1-rail0"]
    # every remote rail prefix arrives over all 8 uplinks (4 spines × 2 links); summaries where planned
    assert rail0["172.16.1.0/24"] == 8 and rail0["172.16.8.0/24"] == 8 and rail0["172.16.64.0/22"] == 8
    assert "172.16.8.0/25" in exp.absent["p1-s1-rail0"] and "172.16.8.0/25" in exp.suppressed
    # a super-spine reaches pod 1's rails over 4 spines × 8 links, pod 2's summaries over 4 spines × 4 links
    assert exp.routes["core-ss1"]["172.16.0.0/24"] == 32 and exp.routes["core-ss1"]["172.16.64.0/22"] == 16
    # spines of one pod share an ASN: no path between them; the rail-only pod 3 is reachable from nowhere
    assert "10.0.0.17/32" in exp.absent["p1-spine1"]
    pod3 = {p for name, ps in exp.rail_prefixes.items() if name.startswith("p3-") for p in ps}
    assert len(pod3) == 8 and all(pod3 <= exp.absent[n] for n in exp.routes if not n.startswith("p3-"))
    assert exp.rail_prefixes["p2-s1-rail0-1-2-3"] == {"172.16.64.0/22"}
    # pings: one pair per two segments (p1s1, p1s2, p2s1), at 9000 and 9216 pass, 9217 fails
    assert [(p.size, p.expect_ok) for p in exp.rail_pings[:3]] == [(9000, True), (9216, True), (9217, False)]
    assert len(exp.rail_pings) == 9 and len(exp.link_pings) == 352


def test_faults_rewrite_only_what_they_say(example) -> None:
    clean = build_spec(example, pod=1)
    spec = build_spec(example, pod=1, faults=["asn", "summary", "mtu"])
    changed = {n for n in spec.nodes if spec.nodes[n].frr_conf != clean.nodes[n].frr_conf}
    faults = {f.kind: f for f in spec.faults}
    assert changed == {faults["asn"].where, faults["summary"].where}
    asn_node = spec.nodes[faults["asn"].where]
    assert f"router bgp {asn_node.device.bgp.asn + 1}" in asn_node.frr_conf
    assert "summary-only" not in spec.nodes[faults["summary"].where].frr_conf
    bad = [ln for ln in spec.links if ln.a.built_mtu != ln.a.mtu]
    assert len(bad) == 1 and bad[0].a.built_mtu == 9100 and f"{bad[0].a.node}:{bad[0].a.ifname}" == faults["mtu"].where
    # host-policy: tests/test_lab_hosts.py; auth: tests/test_sessions.py and test_fault_is_detected
    assert set(FAULTS) == {"asn", "summary", "mtu", "host-policy", "auth"}


def test_lab_refuses_unknown_pod(example) -> None:
    from railfabric.lab.model import LabError

    with pytest.raises(LabError, match="no pod 9"):
        build_spec(example, pod=9)


def test_lab_says_it_needs_root(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from railfabric.cli import main

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert main(["lab", str(EXAMPLE)]) == 2
    assert "needs root" in capsys.readouterr().err


# --------------------------------------------------------------------------- nothing to verify (no root needed)


def _mini(tmp_path: Path, **change: str) -> Result:
    """tests.helpers' mini fabric, written to tmp_path/inv: 2 spines, 2 single-rail switches p1-s1-rail0/1, each
    cabled once to each spine → 4 BGP sessions. `change`: fabric_platform / segment_platform (eos)."""
    data = base_inventory()
    if change:
        with_system(data)
    if "fabric_platform" in change:
        data["fabric"]["platform"] = change["fabric_platform"]
    if "segment_platform" in change:
        data["pods"][0]["segments"][0]["platform"] = change["segment_platform"]
    res = run_data(tmp_path, data)
    assert res.plan is not None, [f.code for f in res.findings]
    return res


def test_nothing_to_verify_when_every_session_goes_outside(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Rail switches on EOS under SONiC spines: the spines run, but their 4 sessions (2 rails × 2 spines) all end on
    EOS switches outside the lab. Before: 0 sessions, `result: PASS`. Now: exit 2 before anything is built, naming
    the switches left out and why (also as non-root: the selection is judged before the root check)."""
    from railfabric.cli import main

    res = _mini(tmp_path, segment_platform="eos")
    spec = build_spec(res)
    exp = expected(spec)
    assert list(spec.nodes) == ["p1-spine1", "p1-spine2"] and exp.sessions == [] and exp.outside == 4
    assert nothing_to_verify(spec, exp) == (
        "nothing to verify: no planned BGP session of the fabric has both ends in the lab: the 4 session(s) of its 2 "
        "switch(es) in the lab (p1-spine1, p1-spine2) all go to switches outside it: 2 switch(es) on eos, not SONiC "
        "(no frr.conf to run): p1-s1-rail0, p1-s1-rail1")
    assert main(["lab", str(tmp_path / "inv"), "--hosts", "0", "-q"]) == 2
    err = capsys.readouterr().err
    assert "fabric lab: nothing to verify: " in err and "p1-s1-rail0, p1-s1-rail1" in err and "needs root" not in err


def test_nothing_to_verify_without_an_frr_switch(tmp_path: Path) -> None:
    from railfabric.lab.model import LabError

    res = _mini(tmp_path, fabric_platform="eos")
    with pytest.raises(LabError, match=r"^nothing to verify: .* the fabric has none: 4 switch\(es\) on eos, not "
                                       r"SONiC \(no frr.conf to run\): p1-spine1, p1-spine2, p1-s1-rail0, "
                                       r"p1-s1-rail1$"):
        build_spec(res)


def test_nothing_to_verify_in_a_rail_only_pod(shipped, capsys: pytest.CaptureFixture[str]) -> None:
    """The example's pod 3 is rail-only: 8 rail switches, no spines, no BGP session planned. Without GPU hosts it used
    to pass with 0 sessions checked (only loopbacks, ASNs and trivially absent routes): now exit 2, nothing built.
    With hosts it runs: their rails are what it verifies (tests/test_lab_hosts.py, the rail-only mini fabric)."""
    from railfabric.cli import main

    spec = build_spec(shipped, pod=3)
    why = nothing_to_verify(spec, expected(spec))
    assert why is not None and why.startswith("nothing to verify: the plan gives the 8 switch(es) of pod 3 in the lab")
    assert why.endswith("no BGP session (rail-only: no spines, each rail switch peers with nothing) and no GPU host "
                        "is built to verify instead (--hosts N builds them)")
    assert main(["lab", str(EXAMPLE), "--pod", "3", "--hosts", "0", "-q"]) == 2
    assert capsys.readouterr().err == f"fabric lab: {why}\n"


def _checks(empty: tuple[str, ...] = ()) -> dict:
    """A check per category with one item each, except those in `empty` (which checked nothing)."""
    from railfabric.lab.verify import CATEGORIES, Check

    return {k: Check(0 if k in empty else 1) for k, _t in CATEGORIES}


HOST_KEYS = ("host-interfaces", "host-rules", "host-egress", "host-pings", "cross-rail")


def test_a_category_that_checked_nothing_is_not_run(tmp_path: Path) -> None:
    """Per category: 0 items is "not run". The plan giving it nothing (BFD off, --hosts 0) is said and may pass; a
    category the plan has items for (the sessions), or hosts asked for and none built, makes it NOT VERIFIED."""
    from railfabric.lab.runner import LabResult, format_result

    spec = build_spec(_mini(tmp_path))
    exp = expected(spec)
    r = LabResult(spec, exp, _checks(("bfd", "bfd-timers", *HOST_KEYS)))  # hosts: None (--hosts 0)
    assert [(n.key, n.legitimate) for n in r.not_run] == [("bfd", True), ("bfd-timers", True)] + [
        (k, True) for k in HOST_KEYS]
    assert r.verdict == "PASS" and r.exit_code == 0
    text = format_result(r)
    assert f"{'BFD sessions up at both ends':<52} {'not run':>8}" in text
    assert "  BFD sessions up at both ends: the plan enables BFD on none of the sessions in the lab" in text
    assert "  host policy rule from each NIC address: no GPU hosts in the lab (--hosts 0)" in text
    assert "result: PASS (0 mismatch(es); 10 of 17 checks run, 7 not run; run )" in text
    # the sessions checked nothing: whatever else passed, not verified
    r = LabResult(spec, exp, _checks(("sessions",)))
    assert r.verdict == "NOT VERIFIED" and r.exit_code == 2 and not r.ok
    assert "NOT RUN although the plan has something to check" in format_result(r)
    # a category that never ran at all (absent from the checks)
    checks = _checks(HOST_KEYS)
    del checks["rail-pings"]
    assert LabResult(spec, exp, checks).verdict == "NOT VERIFIED"
    # GPU hosts asked for (--hosts 2) and none built
    spec.host_request = 2
    r = LabResult(spec, exp, _checks(HOST_KEYS))
    assert r.verdict == "NOT VERIFIED" and {n.legitimate for n in r.not_run} == {False}
    # a mismatch wins: FAIL, exit 1
    checks = _checks(HOST_KEYS)
    checks["asn"].bad.append("x")
    assert LabResult(spec, exp, checks).verdict == "FAIL"


def test_run_names_fit_the_kernel_and_frr(tmp_path: Path) -> None:
    """Namespace and FRR pathspace rf<run>-<host>: 2 + 6 + 1 + at most 63 (an RFC 1123 label) = 72 characters, so
    FRR's longest socket path /var/run/frr/<72>/zserv.api is 13 + 72 + 1 + 9 = 95 bytes, within a Unix socket's 107.
    Interface names carry no run id (each lives in its run's own namespace); over 15 bytes is refused."""
    from railfabric.lab.model import FRR_RUN, FRR_SOCKETS, SUN_PATH_MAX, End, LabLink, name_problems, ns_name
    from railfabric.lab.runs import RUN_ID, new_run_id

    # the first two characters are the pid in base 36 (mod 36²): 0 → 00, 37 → 11, 1296 = 36² → 00
    assert new_run_id(pid=0)[:2] == "00" and new_run_id(pid=37)[:2] == "11" and new_run_id(pid=1296)[:2] == "00"
    ids = {new_run_id() for _ in range(200)}
    assert all(RUN_ID.match(i) for i in ids) and len(ids) > 150  # 36^4 random tails: collisions are rare
    longest = ns_name("h" * 63, "zzzzzz")
    assert longest == "rfzzzzzz-" + "h" * 63 and len(longest) == 72
    assert max(len(f"{FRR_RUN}{longest}/{sock}") for sock in FRR_SOCKETS) == 95 <= SUN_PATH_MAX
    spec = build_spec(_mini(tmp_path), run="a1b2c3")
    assert spec.nodes["p1-spine1"].ns == "rfa1b2c3-p1-spine1" and name_problems(spec) == []
    ln = spec.links[0]
    spec.links[0] = LabLink(End(ln.a.node, "Ethernet1234567890", ln.a.ipv4, ln.a.mtu, ln.a.built_mtu), ln.z, ln.role)
    spec.nodes["p1-spine2"].ns = ns_name("h" * 84, "a1b2c3")  # what no RFC 1123 name makes: refused all the same
    # 13 + (2 + 6 + 1 + 84) + 1 + 9 = 116
    assert name_problems(spec) == [
        f"namespace {spec.nodes['p1-spine2'].ns}: its FRR socket paths would be 116 bytes (at most 107)",
        f"{ln.a.node}: interface name 'Ethernet1234567890' is 18 bytes (Linux allows 15)"]


# --------------------------------------------------------------------------- the lab (root)


def _leftovers(run: str) -> list[str]:
    """What lab run `run` left on this machine: its namespaces, FRR daemons with its pathspace, FRR run and
    temporary directories, its record and lock. Other runs' are none of this test's business."""
    import tempfile

    from railfabric.lab.runs import RUNS_DIR
    from railfabric.lab.teardown import list_namespaces

    prefix = f"rf{run}-"
    left = [f"namespace {ns}" for ns in list_namespaces() if ns.startswith(prefix)]
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if argv[0].startswith(b"/usr/lib/frr/") and any(a.startswith(prefix.encode()) for a in argv):
                left.append(f"daemon {pid} {b' '.join(argv).decode(errors='replace')}")
    left += [f"FRR run directory {d}" for d in Path("/var/run/frr").glob(prefix + "*")]
    left += [f"directory {d}" for d in Path(tempfile.gettempdir()).glob(f"railfabric-lab-{run}-*")]
    left += [f"record {f}" for f in RUNS_DIR.glob(f"{run}.*")]
    return left


@pytest.fixture
def run_id():
    """A fresh run id for the test's lab; afterwards nothing of that run may be left (and nothing is)."""
    from railfabric.lab import teardown_saved
    from railfabric.lab.runs import new_run_id

    rid = new_run_id()
    yield rid
    left = _leftovers(rid)
    teardown_saved(run=rid)  # whatever happened, leave the machine clean of this run
    assert not left, f"lab run {rid} left things behind: {left[:5]}"


@pytest.fixture(scope="module")
def full_lab(shipped):
    from railfabric.lab import format_result, run_lab, teardown_saved
    from railfabric.lab.runs import new_run_id

    rid = new_run_id()
    try:
        result = run_lab(shipped, say=lambda _m: None, run_id=rid)
    finally:
        teardown_saved(run=rid)
    print(format_result(result))
    assert not _leftovers(rid)
    return result


@root_only
def test_whole_example_fabric_in_frr(full_lab) -> None:
    r = full_lab
    assert r.converged and r.ok, "\n".join(b for c in r.checks.values() for b in c.bad[:10])
    counts = r.counts()
    # the shipped example: 30 SONiC switches (its 4 EOS rail switches are outside), 288 sessions (module docstring)
    assert counts["sessions"] == 288 and counts["bfd"] == 288 and counts["config"] == 30
    assert counts["bfd-timers"] == 2 * 288  # both ends of each session run the planned 300 ms x 3
    assert counts["rail-routes"] > 0 and counts["absent"] > 0 and counts["link-pings"] == 288
    # one segment pair left with spines in the lab (p1-s1, p2-s1): 3 sizes (host MTU, largest MTU, path MTU + 1)
    assert counts["rail-pings"] == 3
    # no GPU hosts asked for (run_lab's default --hosts 0): the 5 host checks are not run, and said to be
    assert [n.key for n in r.not_run] == ["host-interfaces", "host-rules", "host-egress", "host-pings", "cross-rail"]
    assert all(n.legitimate for n in r.not_run) and r.verdict == "PASS"
    assert r.removed["daemons"] == 3 * 30 and r.removed["namespaces"] == 30
    assert r.timings["total"] < 120, r.timings


FAULT_CASES = [("asn", {"sessions", "asn"}), ("summary", {"absent"}), ("mtu", {"interfaces", "link-pings"}),
               ("auth", {"sessions"})]  # auth: no key planned, so one end has one, the other none


@pytest.fixture(scope="module")
def fault_lab(example):
    """One pod-1 lab with the four faults at once (build_spec puts each on a switch of its own: `taken` in
    railfabric/lab/spec.py), shared by the four cases of test_fault_is_detected: one lab start instead of four (about
    45 s of CPU less; docs/testing-time.md). Each case still checks its own fault, by mismatches that name it alone."""
    from railfabric.lab import format_result, run_lab, teardown_saved
    from railfabric.lab.runs import new_run_id

    rid = new_run_id()
    try:
        result = run_lab(example, pod=1, faults=[kind for kind, _ in FAULT_CASES], say=lambda _m: None, run_id=rid)
    finally:
        teardown_saved(run=rid)
    print(format_result(result))
    assert not _leftovers(rid)
    return result


@root_only
@pytest.mark.parametrize("fault, caught", FAULT_CASES)
def test_fault_is_detected(fault_lab, fault: str, caught: set[str]) -> None:
    r = fault_lab
    assert not r.ok and r.verdict == "FAIL" and r.exit_code == 1
    assert sorted(f.kind for f in r.spec.faults) == sorted(kind for kind, _ in FAULT_CASES)
    assert len({f.where.split(":")[0] for f in r.spec.faults}) == len(FAULT_CASES)  # four different switches
    (f,) = [f for f in r.spec.faults if f.kind == fault]
    others = [g for g in r.spec.faults if g is not f]

    def alone(check: str) -> list[str]:  # the check's mismatches that name this fault and no other one
        return [b for b in r.checks[check].bad if any(m in b for m in f.marks)
                and not any(m in b for g in others for m in g.marks)]

    # each check of `caught` reports this fault by itself: a mismatch naming another fault too does not count, so
    # the case fails when the lab stops detecting this fault even though the other three still break the fabric
    assert caught <= set(r.caught_by(f)), r.caught_by(f)
    assert all(alone(check) for check in caught), {check: len(alone(check)) for check in caught}
    # the mismatches are the faults', nothing else
    stray = [b for c in r.checks.values() for b in c.bad if not any(m in b for g in r.spec.faults for m in g.marks)]
    assert not stray, stray[:5]


def _cli(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "railfabric.cli", "lab", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)


def _run_of(stdout: str) -> str:
    m = re.search(r"^railfabric lab run ([0-9a-z]{6}): ", stdout, re.M)
    assert m, stdout[:500]
    return m.group(1)


@root_only
def test_cli_end_to_end_and_teardown(tmp_path: Path) -> None:
    """The CLI end to end on the mini fabric (4 switches: 12 daemons, 4 sessions), no hosts: table, exit 0, nothing
    of its run left behind; `--teardown INVENTORY` then has nothing of that inventory to remove."""
    _mini(tmp_path)
    inv = tmp_path / "inv"
    proc = _cli(str(inv), "--hosts", "0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rid = _run_of(proc.stdout)
    assert "result: PASS (0 mismatch(es); 12 of 17 checks run, 5 not run; run " + rid + ")" in proc.stdout
    assert "torn down: 12 daemon(s), 4 namespace(s)" in proc.stdout
    assert "  host NICs: up, planned MTU/address, on the rail SVI: no GPU hosts in the lab (--hosts 0)" in proc.stdout
    assert "timers connect 1" in proc.stdout  # the overlays are printed
    assert not _leftovers(rid)
    proc = _cli(str(inv), "--teardown", timeout=60)
    assert proc.returncode == 0 and f"no lab of {inv.resolve()} to tear down" in proc.stdout


@root_only
def test_keep_then_teardown_of_the_inventory(tmp_path: Path, run_id: str) -> None:
    from railfabric.lab import run_lab
    from railfabric.lab.teardown import list_namespaces

    r = run_lab(_mini(tmp_path), keep=True, say=lambda _m: None, run_id=run_id)
    assert r.kept and r.ok and r.run == run_id
    assert [ns for ns in list_namespaces() if ns.startswith(f"rf{run_id}-")] == [
        f"rf{run_id}-{h}" for h in ("p1-s1-rail0", "p1-s1-rail1", "p1-spine1", "p1-spine2")]
    inv = (tmp_path / "inv").resolve()  # recorded by run_lab: the directory of the inventory's files
    proc = _cli(str(inv), "--teardown", timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # (then ", 2 neighbour-table limit(s) put back" when this machine's limits were below the lab's need and no
    # other lab runs)
    # (killed runs of other inventories on this machine are reaped and listed too: railfabric.lab.teardown)
    assert any(line.startswith(f"torn down lab run {run_id} (kept) of {inv}: 12 daemon(s), 4 namespace(s)")
               for line in proc.stdout.splitlines()), proc.stdout
    assert not _leftovers(run_id)


@root_only
def test_sigterm_tears_down() -> None:
    """A lab killed with SIGTERM (CI timeout, Ctrl-C) still removes its namespaces and daemons."""
    import signal

    proc = subprocess.Popen([sys.executable, "-m", "railfabric.cli", "lab", str(EXAMPLE), "--pod", "2"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rid = ""
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if not rid and line.startswith("railfabric lab run "):
                rid = _run_of(line)
            if "waiting for a stable state" in line:
                break
        assert rid and _leftovers(rid), "the lab should be up"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not _leftovers(rid)


@root_only
def test_teardown_when_the_lab_fails_midway(tmp_path: Path, run_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from railfabric.lab import run_lab
    from railfabric.lab.daemons import Instances

    def boom(self) -> None:
        raise RuntimeError("injected failure after the daemons started")

    res = _mini(tmp_path)
    monkeypatch.setattr(Instances, "load", boom)
    with pytest.raises(RuntimeError, match="injected"):
        run_lab(res, say=lambda _m: None, run_id=run_id)
    assert not _leftovers(run_id)


@root_only
def test_teardown_refuses_a_running_lab(tmp_path: Path) -> None:
    """`fabric lab --teardown --run ID` refuses (exit 2) while that run holds its lock, instead of pulling
    namespaces and daemons out from under a lab that is still verifying; `--teardown INVENTORY` skips it."""
    from railfabric.lab.runs import RUNS_DIR, Registry, RunLock

    lock = RunLock.claim()  # what a running lab holds
    inv = str(tmp_path / "inv")
    Registry(lock.run, inv).save()
    try:
        proc = _cli("--teardown", "--run", lock.run, timeout=60)
        assert proc.returncode == 2 and f"lab run {lock.run} is running" in proc.stderr
        proc = _cli(inv, "--teardown", timeout=60)
        assert proc.returncode == 0 and f"no lab of {inv} to tear down" in proc.stdout
        assert f"other lab on this machine: run {lock.run} of {inv} (running)" in proc.stdout
    finally:
        lock.release()
    proc = _cli("--teardown", "--run", lock.run, timeout=60)
    assert proc.stdout == f"torn down lab run {lock.run} of {inv}: 0 daemon(s), 0 namespace(s)\n"
    assert not list(RUNS_DIR.glob(f"{lock.run}.*"))


@root_only
@pytest.mark.parametrize("how", ["teardown-of-another-inventory", "next-lab-run"])
def test_a_killed_lab_is_reaped_even_with_a_stale_lock(tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 28: a SIGKILLed lab stayed up until `--teardown` of its own inventory or `--run`. A fake killed run:
    its record lists a namespace that exists (made here), its owner is a process that has exited, and its lock is
    still held by a process that outlived it (a sleep given the lock's descriptor: a stale lock). Both
    `fabric lab --teardown` of another inventory and the next lab run's first step reap it and say so. Only this
    run is looked at (saved_runs narrowed to it): other labs on the machine are none of this test's business."""
    import railfabric.lab.teardown as td
    from railfabric.cli import main
    from railfabric.lab.runs import RUNS_DIR, Registry, RunLock, is_running, lock_held, new_run_id

    rid = new_run_id()
    lock = RunLock.claim(rid)
    assert lock.fd is not None
    ns = f"rf{rid}-p1-spine1"
    holder = subprocess.Popen(["sleep", "300"], pass_fds=(lock.fd,))  # shares the locked open file
    os.close(lock.fd)  # closed here, not unlocked: the sleep holds the lock on
    lock.fd = None
    try:
        subprocess.run(["ip", "netns", "add", ns], check=True)
        owner = subprocess.Popen(["true"])
        owner.wait()
        reg = Registry(rid, str(tmp_path / "killed"))
        reg.owner, reg.owner_start = owner.pid, 1  # gone (and no later process with its pid started at tick 1)
        reg.add_namespace(ns)
        assert lock_held(rid) and not is_running(rid)
        monkeypatch.setattr(td, "saved_runs", lambda: [rid])
        if how == "next-lab-run":
            done = td.teardown_saved(only_dead=True)  # what run_lab does first (railfabric/lab/runner.py)
            assert [(d.run, d.kept, d.stale, d.removed["namespaces"]) for d in done] == [(rid, False, True, 1)]
        else:
            assert main(["lab", "--teardown", str(tmp_path / "other")]) == 0
            assert capsys.readouterr().out == (f"torn down lab run {rid} (left by a killed run) of "
                                               f"{tmp_path / 'killed'}: 0 daemon(s), 1 namespace(s)\n")
        assert ns not in td.list_namespaces() and not list(RUNS_DIR.glob(f"{rid}.*"))
    finally:
        holder.kill()
        holder.wait()
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)
        for f in RUNS_DIR.glob(f"{rid}.*"):
            f.unlink()


def test_owner_alive_tells_a_reused_pid_from_the_owner() -> None:
    """A record's owner is its pid and that process's start time: the same pid started later is another process."""
    from railfabric.lab.runs import Registry, owner_alive, start_time

    reg = Registry.__new__(Registry)
    reg.owner, reg.owner_start = os.getpid(), start_time(os.getpid())
    assert reg.owner_start is not None and owner_alive(reg)
    reg.owner_start += 1  # this pid, but not the process that wrote the record
    assert not owner_alive(reg)
    reg.owner_start = None  # a record written before start times were: the pid alone
    assert owner_alive(reg)
    reg.owner = 0
    assert not owner_alive(reg)


@root_only
def test_the_longest_names_work_in_the_kernel_and_frr() -> None:
    """The longest namespace a run can name (rf + 6 + - + a 63-character host: 72) is a namespace, and an FRR
    pathspace zebra binds its sockets in and vtysh reaches; interface names of 15 bytes are taken, 16 refused."""
    import pwd
    import shutil
    import time

    from railfabric.lab.model import ns_name
    from railfabric.lab.runs import new_run_id

    ns = ns_name("h" * 63, new_run_id())
    run = Path("/var/run/frr") / ns
    frr = pwd.getpwnam("frr")
    subprocess.run(["ip", "netns", "add", ns], check=True)
    zebra = None
    try:
        run.mkdir(parents=True)
        os.chown(run, frr.pw_uid, frr.pw_gid)
        zebra = subprocess.Popen(["ip", "netns", "exec", ns, "/usr/lib/frr/zebra", "-N", ns, "-u", "frr", "-g", "frr",
                                  "-P", "0", "--log", f"file:{run / 'zebra.log'}"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while not (run / "zserv.api").exists() and time.monotonic() < deadline and zebra.poll() is None:
            time.sleep(0.1)
        assert (run / "zserv.api").exists(), (run / "zebra.log").read_text() if (run / "zebra.log").exists() else ""
        shown = subprocess.run(["vtysh", "-N", ns, "-c", "show daemons"], capture_output=True, text=True, timeout=30)
        assert "zebra" in shown.stdout, shown.stdout + shown.stderr
        ok = subprocess.run(["ip", "-n", ns, "link", "add", "e" * 15, "type", "veth", "peer", "name", "f" * 15],
                            capture_output=True, text=True)
        assert ok.returncode == 0, ok.stderr
        bad = subprocess.run(["ip", "-n", ns, "link", "add", "g" * 16, "type", "veth", "peer", "name", "k"],
                             capture_output=True, text=True)
        assert bad.returncode != 0
    finally:
        if zebra is not None:
            zebra.terminate()
            zebra.wait(timeout=10)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        shutil.rmtree(run, ignore_errors=True)
