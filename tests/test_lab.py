"""`fabric lab`: the expectations it derives from the plan (any user), and the FRR lab itself (root only).

The lab tests build namespaces and start FRR daemons, so they need root; CI runs as root (`make test` installs frr and
iputils-ping). Every lab run tears itself down; the `clean` fixture also checks that nothing is left behind (no
rf-* namespace, no FRR daemon with an rf-* pathspace, no state file) even when a test fails.

Counts for the example with its EOS segment on SONiC (`example`, tests/helpers.py example_all_sonic; see
tests/test_cli.py for the cabling): 34 switches; sessions = pod 1 rail↔spine 128 links, pod 2 rail↔spine 64 links in
32 port-channels (one session each), spine↔super-spine 128 + 64 → 352, each with BFD. The shipped example
(`shipped`) has pod 1 segment 2 on EOS: its 4 rail switches have no frr.conf and stay outside the lab, taking their
4 spines × 4 links = 64 sessions with them → 30 switches and 288 sessions.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fabric.lab.expect import expected
from fabric.lab.model import FAULTS, build_spec
from fabric.pipeline import run
from tests.helpers import EXAMPLE, ROOT, example_all_sonic

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
    assert set(FAULTS) == {"asn", "summary", "mtu", "host-policy"}  # host-policy: tests/test_lab_hosts.py


def test_lab_refuses_unknown_pod(example) -> None:
    from fabric.lab.model import LabError

    with pytest.raises(LabError, match="no pod 9"):
        build_spec(example, pod=9)


def test_lab_says_it_needs_root(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from fabric.cli import main

    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert main(["lab", str(EXAMPLE)]) == 2
    assert "needs root" in capsys.readouterr().err


# --------------------------------------------------------------------------- the lab (root)


def _leftovers() -> list[str]:
    from fabric.lab.teardown import STATE, list_namespaces

    left = [f"namespace {ns}" for ns in list_namespaces() if ns.startswith("rf-")]
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if argv[0].startswith(b"/usr/lib/frr/") and any(a.startswith(b"rf-") for a in argv):
                left.append(f"daemon {pid} {b' '.join(argv).decode(errors='replace')}")
    if STATE.exists():
        left.append(f"state file {STATE}")
    return left


@pytest.fixture
def clean():
    from fabric.lab import teardown_saved

    yield
    left = _leftovers()
    teardown_saved()  # whatever happened, leave the machine clean
    assert not left, f"the lab left things behind: {left[:5]}"


@pytest.fixture(scope="module")
def full_lab(shipped):
    from fabric.lab import format_result, run_lab, teardown_saved

    try:
        result = run_lab(shipped, say=lambda _m: None)
    finally:
        teardown_saved()
    print(format_result(result))
    assert not _leftovers()
    return result


@root_only
def test_whole_example_fabric_in_frr(full_lab) -> None:
    r = full_lab
    assert r.converged and r.ok, "\n".join(b for c in r.checks.values() for b in c.bad[:10])
    counts = r.counts()
    # the shipped example: 30 SONiC switches (its 4 EOS rail switches are outside), 288 sessions (module docstring)
    assert counts["sessions"] == 288 and counts["bfd"] == 288 and counts["config"] == 30
    assert counts["rail-routes"] > 0 and counts["absent"] > 0 and counts["link-pings"] == 288
    # one segment pair left with spines in the lab (p1-s1, p2-s1): 3 sizes (host MTU, largest MTU, path MTU + 1)
    assert counts["rail-pings"] == 3
    assert r.removed["daemons"] == 3 * 30 and r.removed["namespaces"] == 30
    assert r.timings["total"] < 120, r.timings


@root_only
@pytest.mark.parametrize("fault, caught", [("asn", {"sessions", "asn"}), ("summary", {"absent"}),
                                           ("mtu", {"interfaces", "link-pings"})])
def test_fault_is_detected(example, clean, fault: str, caught: set[str]) -> None:
    from fabric.lab import format_result, run_lab

    r = run_lab(example, pod=1, faults=[fault], say=lambda _m: None)
    print(format_result(r))
    assert not r.ok
    (f,) = r.spec.faults
    assert caught <= set(r.caught_by(f)), r.caught_by(f)
    # the mismatches are the fault's, nothing else
    stray = [b for c in r.checks.values() for b in c.bad if not any(m in b for m in f.marks)]
    assert not stray, stray[:5]


@root_only
def test_cli_rail_only_pod_and_teardown(clean) -> None:
    """The CLI end to end on pod 3 (rail-only: 8 switches, no sessions): table, exit 0, nothing left behind."""
    proc = subprocess.run([sys.executable, "-m", "fabric.cli", "lab", str(EXAMPLE), "--pod", "3"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "result: PASS" in proc.stdout and "torn down: 24 daemon(s), 8 namespace(s)" in proc.stdout
    assert "timers connect 1" in proc.stdout  # the overlays are printed
    assert not _leftovers()
    proc = subprocess.run([sys.executable, "-m", "fabric.cli", "lab", "--teardown"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 0 and "no lab to tear down" in proc.stdout


@root_only
def test_keep_then_teardown(example, clean) -> None:
    from fabric.lab import run_lab, teardown_saved

    r = run_lab(example, pod=3, keep=True, say=lambda _m: None)
    assert r.kept and r.ok
    assert len([x for x in _leftovers() if x.startswith("namespace")]) == 8
    removed = teardown_saved()
    assert removed is not None and removed["daemons"] == 24 and removed["namespaces"] == 8


@root_only
def test_sigterm_tears_down(clean) -> None:
    """A lab killed with SIGTERM (CI timeout, Ctrl-C) still removes its namespaces and daemons."""
    import signal

    proc = subprocess.Popen([sys.executable, "-m", "fabric.cli", "lab", str(EXAMPLE), "--pod", "2"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if "waiting for a stable state" in line:
                break
        assert _leftovers(), "the lab should be up"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not _leftovers()


@root_only
def test_teardown_when_the_lab_fails_midway(example, clean, monkeypatch: pytest.MonkeyPatch) -> None:
    from fabric.lab import run_lab
    from fabric.lab.daemons import Instances

    def boom(self) -> None:
        raise RuntimeError("injected failure after the daemons started")

    monkeypatch.setattr(Instances, "load", boom)
    with pytest.raises(RuntimeError, match="injected"):
        run_lab(example, pod=3, say=lambda _m: None)
    assert not _leftovers()


@root_only
def test_teardown_waits_for_no_one_and_refuses_while_a_lab_runs() -> None:
    """`fabric lab --teardown` takes the lab's lock: it refuses (exit 2) while a lab holds it, instead of pulling
    namespaces and daemons out from under a lab that is still verifying."""
    from fabric.lab.teardown import Lock

    lock = Lock()
    assert lock.acquire()  # what a running lab holds
    try:
        proc = subprocess.run([sys.executable, "-m", "fabric.cli", "lab", "--teardown"], capture_output=True,
                              text=True, cwd=ROOT)
    finally:
        lock.release()
    assert proc.returncode == 2
    assert "a `fabric lab` is running on this machine" in proc.stderr
