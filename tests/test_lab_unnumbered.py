"""The FRR lab on unnumbered fabrics (routing.addressing: unnumbered; tests/test_unnumbered.py derives the mini
fabric: spines p1-spine1/2, rail switches p1-s1-rail0/1 on Ethernet256/264, 4 sessions). Root and FRR only; these
run in make test's second process (Makefile LAB_TESTS)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from railfabric.lab.frrcheck import have_vtysh
from railfabric.pipeline import Result
from tests.helpers import base_inventory, devices_of, run_data
from tests.test_unnumbered import _unnumbered


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Result:
    return run_data(tmp_path_factory.mktemp("unnumbered-lab"), _unnumbered(base_inventory()))


ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the FRR lab needs root (network namespaces, FRR daemons)")
NEEDS_FRR = pytest.mark.skipif(not have_vtysh(), reason="FRR is not installed")


def _lab(res: Result) -> Any:
    from railfabric.lab import format_result, run_lab, teardown_saved
    from railfabric.lab.runs import new_run_id

    rid = new_run_id()
    try:
        r = run_lab(res, say=lambda _m: None, run_id=rid)
    finally:
        teardown_saved(run=rid)
    print(format_result(r))
    assert r.ok and r.verdict == "PASS", "\n".join(b for c in r.checks.values() for b in c.bad[:10])
    return r


@ROOT_ONLY
@NEEDS_FRR
def test_unnumbered_fabric_in_the_frr_lab(mini: Result) -> None:
    r = _lab(mini)
    counts = r.counts()
    # 4 sessions Established, each with BFD; each end's peer is the fe80:: address of the planned peer port: 8
    assert counts["sessions"] == 4 and counts["bfd"] == 4 and counts["link-local"] == 8
    # each rail switch's rail subnet at the other one over both spines: ECMP 2 (IPv4 routes, IPv6 next hops)
    assert counts["rail-routes"] == 2 and not r.checks["rail-routes"].bad
    assert "link-pings" in [n.key for n in r.not_run]  # no link has an IPv4 address


@ROOT_ONLY
@NEEDS_FRR
def test_unnumbered_port_channels_in_the_frr_lab(tmp_path: Path) -> None:
    data = _unnumbered(base_inventory())
    # 2 links from each rail switch to each spine, bundled: one port-channel (one session) per rail switch-spine pair
    data["pods"][0]["spines"].update(links_per_rail_switch=2, port_channel_members=2)
    res = run_data(tmp_path, data)
    devs = devices_of(res)
    # rail0's uplinks: ports 33-34 to spine 1 (PortChannel33), 35-36 to spine 2 (PortChannel35); on each spine
    # rail0's links arrive on ports 1-2: PortChannel1 (numbered by the lowest member port, device/port_channels.py)
    (g,) = devs["p1-s1-rail0"].bgp.peer_groups
    assert [(n.interface, n.peer, n.peer_interface) for n in g.neighbors] == [
        ("PortChannel33", "p1-spine1", "PortChannel1"), ("PortChannel35", "p1-spine2", "PortChannel1")]
    r = _lab(res)
    counts = r.counts()
    assert counts["sessions"] == 4 and counts["link-local"] == 8 and counts["rail-routes"] == 2
