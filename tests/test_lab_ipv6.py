"""The FRR lab on a dual-stack fabric (tests/test_ipv6.py derives the mini fabric: spines p1-spine1/2 sharing ASN
4200001001, rail switches p1-s1-rail0/1, one /31 session per rail switch and spine). Root and FRR only; these run in
make test's second process (Makefile LAB_TESTS)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from railfabric.lab.frrcheck import have_vtysh
from tests.helpers import base_inventory, run_data
from tests.test_ipv6 import dual

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the FRR lab needs root (network namespaces, FRR daemons)")
NEEDS_FRR = pytest.mark.skipif(not have_vtysh(), reason="FRR is not installed")


def _lab(data: dict[str, Any], tmp_path: Path) -> Any:
    from railfabric.lab import format_result, run_lab, teardown_saved
    from railfabric.lab.runs import new_run_id

    res = run_data(tmp_path, data)
    rid = new_run_id()
    try:
        r = run_lab(res, say=lambda _m: None, run_id=rid, hosts=0)
    finally:
        teardown_saved(run=rid)
    print(format_result(r))
    assert r.ok and r.verdict == "PASS", "\n".join(b for c in r.checks.values() for b in c.bad[:10])
    return r


@ROOT_ONLY
@NEEDS_FRR
@pytest.mark.parametrize("addressing", ["numbered", "unnumbered"])
def test_dual_stack_fabric_in_the_frr_lab(tmp_path: Path, addressing: str) -> None:
    """Every switch has the IPv6 routes the plan gives, at their ECMP width, over the IPv4 /31 sessions (numbered)
    or the link-local ones (unnumbered). The IPv6 prefixes: 4 loopback /128s (spines ::8, ::9, rails ::28, ::29) and
    2 rail /64s. A rail switch learns 4 (the 2 spine loopbacks, the other rail switch's /128 and /64: the last two
    over both spines, ECMP 2) + 1 unplanned-route check = 5 checks; a spine learns the 2 rail /128s and 2 /64s (4),
    the other spine's /128 is absent (its only path runs through a rail switch, and the spines share an ASN: AS-path
    loop prevention), + 1 = 6 checks. 5 + 5 + 6 + 6 = 22."""
    data = dual(base_inventory())
    if addressing == "unnumbered":
        data["routing"]["addressing"] = "unnumbered"
        del data["pools"]["fabric_links"]
    r = _lab(data, tmp_path)
    assert r.counts()["ipv6-routes"] == 22 and not r.checks["ipv6-routes"].bad
