"""Per-device pins of the address plan (`devices.<name>.asn / loopback / router_id`): the allocator puts each in place
of the computed value and moves nothing else; PIN001-PIN009 check them (railfabric/checks/rules/pin_rules.py).

The small inventory of tests/helpers.py, by hand (railfabric/plan/allocate.py's layout): limits super_spines 8,
pods 4, spines_per_pod 8, rail_switches_per_segment 8, no super-spines built.
- p1-spine1 / p1-spine2: device slots 8 + (1-1)·8 + (j-1) = 8, 9 → loopbacks 10.0.0.8, 10.0.0.9; ASN spine_base + pod
  = 4200001000 + 1 = 4200001001 for both.
- p1-s1-rail0 / p1-s1-rail1: rail tier base 8 + 4·8 = 40, tier slots 0, 1 → loopbacks 10.0.0.40, 10.0.0.41; ASNs
  rail_switch_base + tier slot = 4200100000, 4200100001.
- pools: loopbacks 10.0.0.0/16, fabric_links 10.32.0.0/11, rail_subnets 172.16.0.0/12, management 192.168.0.0/16.

The pins sit in a hand-written devices.yml, so each finding's place is known: line 1 `devices:`, line 2 the switch,
line 3 `    <key>: <value>`: the value starts in column 5 + len(key) + 2 + 1.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from railfabric.core.finding import Finding, Severity
from railfabric.pipeline import Result, run
from tests.helpers import base_inventory, dump, mlag_inventory, write_files


def _run(tmp_path: Path, pins: str, data: dict[str, Any] | None = None) -> Result:
    d = tmp_path / "inv"
    write_files(d, {"fabric.yml": dump(data if data is not None else base_inventory()), "devices.yml": pins})
    return run(d)


def _pin_findings(res: Result) -> list[Finding]:
    return [f for f in res.findings if f.code.startswith("PIN") or f.code == "REF003"]


def _where(f: Finding) -> tuple[str, str, int, int]:
    assert f.location is not None
    return f.code, Path(f.location.file).name, f.location.line, f.location.col


def _one(tmp_path: Path, switch: str, key: str, value: str, data: dict[str, Any] | None = None) -> list[Finding]:
    return _pin_findings(_run(tmp_path, f"devices:\n  {switch}:\n    {key}: {value}\n", data))


# --------------------------------------------------------------------------- the allocation


def test_pins_replace_only_the_pinned_values(tmp_path: Path) -> None:
    plain = _run(tmp_path / "a", "devices: {}\n").plan
    pinned = _run(tmp_path / "b", "devices:\n  p1-s1-rail0:\n    asn: 4200199999\n    loopback: 10.0.7.7\n"
                  "  p1-s1-rail1:\n    router_id: 10.255.0.1\n").plan
    assert plain is not None and pinned is not None
    # by hand (module docstring): rail0 10.0.0.40 / 4200100000, rail1 10.0.0.41 / 4200100001
    assert plain.loopback["p1-s1-rail0"] == (10 << 24) + 40 and plain.asn["p1-s1-rail0"] == 4200100000
    assert pinned.loopback["p1-s1-rail0"] == (10 << 24) + (7 << 8) + 7
    assert pinned.router_id["p1-s1-rail0"] == (10 << 24) + (7 << 8) + 7  # follows the pinned loopback
    assert pinned.asn["p1-s1-rail0"] == 4200199999
    assert pinned.router_id["p1-s1-rail1"] == (10 << 24) + (255 << 16) + 1
    assert pinned.loopback["p1-s1-rail1"] == (10 << 24) + 41  # its loopback stays where it was
    # nothing else moved: every other value is the unpinned plan's
    for table in ("loopback", "asn", "management", "p2p", "host_addr"):
        a, b = getattr(plain, table), getattr(pinned, table)
        changed = {k for k in a if a[k] != b[k]}
        assert changed == ({"p1-s1-rail0"} if table in ("loopback", "asn") else set()), table
    assert {k for k in plain.router_id if plain.router_id[k] != pinned.router_id[k]} == {"p1-s1-rail0", "p1-s1-rail1"}
    assert pinned.rail_subnets == plain.rail_subnets
    # the pinned 10.0.7.7 is inside pools.loopbacks: one address used there, as the free slot 40 was
    assert pinned.pools["loopbacks"].used == plain.pools["loopbacks"].used == 4


def test_a_loopback_pinned_outside_the_pool_uses_nothing_of_it(tmp_path: Path) -> None:
    res = _run(tmp_path, "devices:\n  p1-s1-rail0:\n    loopback: 10.1.0.1\n")
    assert res.plan is not None and res.plan.pools["loopbacks"].used == 3  # 2 spines + p1-s1-rail1


def test_no_pins_no_pin_findings_and_router_id_is_the_loopback(tmp_path: Path) -> None:
    res = _run(tmp_path, "devices: {}\n")
    assert _pin_findings(res) == []
    assert res.plan is not None and res.plan.router_id == res.plan.loopback


# --------------------------------------------------------------------------- the checks, one per code


def test_loopback_pin_on_another_switchs_loopback_is_pin001(tmp_path: Path) -> None:
    # 10.0.0.41 is p1-s1-rail1's computed loopback (and router-id: folded into PIN001, no PIN002)
    found = _one(tmp_path, "p1-s1-rail0", "loopback", "10.0.0.41")
    assert [_where(f) for f in found] == [("PIN001", "devices.yml", 3, 15)]  # 4 spaces + "loopback: " = col 15
    assert "p1-s1-rail1" in found[0].message and found[0].severity is Severity.ERROR


def test_two_pins_on_one_loopback_are_pin001_at_both(tmp_path: Path) -> None:
    res = _run(tmp_path, "devices:\n  p1-s1-rail0:\n    loopback: 10.0.3.3\n  p1-s1-rail1:\n    loopback: 10.0.3.3\n")
    found = _pin_findings(res)
    assert [_where(f) for f in found] == [("PIN001", "devices.yml", 3, 15), ("PIN001", "devices.yml", 5, 15)]
    # each names the other's pin as the related place
    assert [(r.line, r.col) for r in found[0].related] == [(5, 15)]


def test_router_id_pin_on_a_spines_router_id_is_pin002(tmp_path: Path) -> None:
    # 10.0.0.8 is p1-spine1's loopback, hence its router-id
    found = _one(tmp_path, "p1-s1-rail0", "router_id", "10.0.0.8")
    assert [_where(f) for f in found] == [("PIN002", "devices.yml", 3, 16)]  # "    router_id: " = 15 characters
    assert "p1-spine1" in found[0].message


def test_loopback_pin_outside_the_pool_is_a_pin003_warning_and_renders(tmp_path: Path) -> None:
    res = _run(tmp_path, "devices:\n  p1-s1-rail0:\n    loopback: 10.1.0.1\n")  # outside 10.0.0.0/16 and every pool
    found = _pin_findings(res)
    assert [_where(f) for f in found] == [("PIN003", "devices.yml", 3, 15)]
    assert found[0].severity is Severity.WARNING
    assert not any(f.severity is Severity.ERROR for f in res.findings)


def test_pins_on_an_unnumbered_fabric_without_a_link_pool(tmp_path: Path) -> None:
    """routing.addressing: unnumbered needs no pools.fabric_links (no MLAG pair here): the pin checks compare a pinned
    loopback with the pools that exist. 10.32.0.5 lies in no remaining pool and outside pools.loopbacks (10.0.0.0/16):
    PIN003 only (before: an internal error on the missing pool)."""
    data = base_inventory()
    data["routing"] = {**data.get("routing", {}), "addressing": "unnumbered"}
    del data["pools"]["fabric_links"]
    res = _run(tmp_path, "devices:\n  p1-s1-rail0:\n    loopback: 10.32.0.5\n", data)
    assert [_where(f) for f in _pin_findings(res)] == [("PIN003", "devices.yml", 3, 15)]
    assert not any(f.severity is Severity.ERROR for f in res.findings)


@pytest.mark.parametrize(("address", "pool"), [("10.32.0.5", "fabric_links"), ("172.16.200.1", "rail_subnets"),
                                               ("192.168.3.3", "management")])
def test_loopback_pin_in_another_pool_is_pin004(tmp_path: Path, address: str, pool: str) -> None:
    found = _one(tmp_path, "p1-s1-rail0", "loopback", address)
    assert [_where(f) for f in found] == [("PIN004", "devices.yml", 3, 15)]
    assert f"pools.{pool}" in found[0].message


def test_rail_switch_with_its_spines_asn_is_pin005(tmp_path: Path) -> None:
    # 4200001001 is the ASN of both spines, which are p1-s1-rail0's BGP neighbours: the sessions would be iBGP
    found = _one(tmp_path, "p1-s1-rail0", "asn", "4200001001")
    assert [_where(f) for f in found] == [("PIN005", "devices.yml", 3, 10)]  # "    asn: " = 9 characters
    assert "p1-spine1, p1-spine2" in found[0].message


def test_rail_switch_with_another_rail_switchs_asn_is_pin006(tmp_path: Path) -> None:
    # 4200100001 is p1-s1-rail1's: its routes reach p1-s1-rail0 through the spines (AS path 4200001001 4200100001)
    found = _one(tmp_path, "p1-s1-rail0", "asn", "4200100001")
    assert [_where(f) for f in found] == [("PIN006", "devices.yml", 3, 10)]
    assert "p1-s1-rail1" in found[0].message


def test_rail_only_pods_may_share_an_asn(tmp_path: Path) -> None:
    # pod 2 has no spines: its rail switches exchange no routes with pod 1, so sharing p1-s1-rail1's ASN is harmless
    data = base_inventory()
    seg = {"id": 1, "rail_design": "single-rail", "rails": 2, "rail_switch_model": "sw64",
           "host_groups": [{"model": "h2", "count": 4}]}
    data["pods"].append({"id": 2, "segments": [seg]})
    assert _one(tmp_path, "p2-s1-rail0", "asn", "4200100001", data) == []


def test_one_spine_with_its_own_asn_is_a_pin007_warning(tmp_path: Path) -> None:
    found = _one(tmp_path, "p1-spine1", "asn", "4200001005")
    assert [_where(f) for f in found] == [("PIN007", "devices.yml", 3, 10)]
    assert found[0].severity is Severity.WARNING and "p1-spine2" in found[0].message


def test_every_spine_of_a_pod_pinned_alike_is_fine(tmp_path: Path) -> None:
    res = _run(tmp_path, "devices:\n  p1-spine1:\n    asn: 4200001005\n  p1-spine2:\n    asn: 4200001005\n")
    assert _pin_findings(res) == []
    assert res.plan is not None and res.plan.asn["p1-spine2"] == 4200001005


def test_mlag_pair_split_by_a_pin_is_a_pin007_error(tmp_path: Path) -> None:
    # p1-s1-rail0a and p1-s1-rail0b are one pair: one ASN, side a's (tier slot 0: 4200100000)
    found = _one(tmp_path, "p1-s1-rail0a", "asn", "4200100050", mlag_inventory())
    assert [_where(f) for f in found] == [("PIN007", "devices.yml", 3, 10)]
    assert found[0].severity is Severity.ERROR and "p1-s1-rail0b" in found[0].message
    both = _pin_findings(_run(tmp_path / "both", "devices:\n  p1-s1-rail0a:\n    asn: 4200100050\n"
                              "  p1-s1-rail0b:\n    asn: 4200100050\n", mlag_inventory()))
    assert both == []


def _three_tier() -> dict[str, Any]:
    """Two pods of the small fabric under 2 super-spines (ss1, ss2: slots 0, 1, one ASN 4200000000); pod 2's spines
    share 4200001000 + 2 = 4200001002, its rail switches have tier slots 4·8 + 0, 1 = 32, 33."""
    data = base_inventory()
    data["super_spines"] = {"count": 2, "model": "sw64"}
    data["pods"][0]["spines"]["links_per_super_spine"] = 4  # up 2 × 4 × 800G ≥ down 2 rail switches × 800G
    pod2 = base_inventory()["pods"][0] | {"id": 2}
    pod2["spines"]["links_per_super_spine"] = 4
    data["pods"].append(pod2)
    return data


def test_three_tier_without_pins_is_clean(tmp_path: Path) -> None:
    res = _run(tmp_path, "devices: {}\n", _three_tier())
    assert not [(f.code, f.message) for f in res.findings if f.severity is Severity.ERROR]
    assert res.plan is not None and res.plan.asn["ss1"] == res.plan.asn["ss2"] == 4200000000


def test_rail_switch_with_the_super_spines_asn_is_pin006(tmp_path: Path) -> None:
    # not a neighbour of the super-spines, but every route from pod 2 reaches it with 4200000000 in its AS path
    found = _one(tmp_path, "p1-s1-rail0", "asn", "4200000000", _three_tier())
    assert [_where(f) for f in found] == [("PIN006", "devices.yml", 3, 10)]
    assert "ss1, ss2" in found[0].message


def test_spine_with_the_other_pods_spine_asn_is_pin006_and_pin007(tmp_path: Path) -> None:
    # p1-spine1 takes pod 2's 4200001002: each pod's routes cross the other's spines (loop prevention drops them),
    # and pod 1's spines no longer share one ASN
    found = _one(tmp_path, "p1-spine1", "asn", "4200001002", _three_tier())
    assert sorted((_where(f), f.severity) for f in found) == [
        (("PIN006", "devices.yml", 3, 10), Severity.ERROR), (("PIN007", "devices.yml", 3, 10), Severity.WARNING)]


def test_spine_with_the_super_spines_asn_is_pin005(tmp_path: Path) -> None:
    # without planes every spine meets both super-spines: both sessions would be iBGP; pod 2's spines split too
    found = _one(tmp_path, "p2-spine2", "asn", "4200000000", _three_tier())
    assert sorted((_where(f), f.severity) for f in found) == [
        (("PIN005", "devices.yml", 3, 10), Severity.ERROR), (("PIN007", "devices.yml", 3, 10), Severity.WARNING)]
    assert "ss1, ss2" in found[0].message


def test_one_super_spine_with_its_own_asn_is_a_pin007_warning(tmp_path: Path) -> None:
    found = _one(tmp_path, "ss2", "asn", "4200000007", _three_tier())
    assert [(_where(f), f.severity) for f in found] == [(("PIN007", "devices.yml", 3, 10), Severity.WARNING)]
    assert "the super-spines" in found[0].message and "ss1" in found[0].message


@pytest.mark.parametrize(("asn", "severity"), [(23456, Severity.ERROR), (64500, Severity.ERROR),
                                               (65535, Severity.ERROR), (65540, Severity.ERROR),
                                               (100000, Severity.ERROR), (3356, Severity.WARNING)])
def test_reserved_or_public_asn_pin_is_pin008(tmp_path: Path, asn: int, severity: Severity) -> None:
    # 23456 AS_TRANS, 64500 and 65540 documentation, 65535 RFC 7300, 100000 IANA-reserved 65552-131071; 3356 public
    found = _one(tmp_path, "p1-s1-rail0", "asn", str(asn))
    assert [(_where(f), f.severity) for f in found] == [(("PIN008", "devices.yml", 3, 10), severity)]


def test_private_two_byte_asn_pin_is_fine(tmp_path: Path) -> None:
    assert _one(tmp_path, "p1-s1-rail0", "asn", "65001") == []


@pytest.mark.parametrize(("key", "value", "col"), [("router_id", "0.0.0.0", 16), ("loopback", "127.0.0.1", 15),
                                                   ("loopback", "239.1.1.1", 15)])
def test_unusable_pins_are_pin009(tmp_path: Path, key: str, value: str, col: int) -> None:
    found = _one(tmp_path, "p1-s1-rail0", key, value)
    assert [_where(f) for f in found] == [("PIN009", "devices.yml", 3, col)]


def test_pin_on_an_unknown_switch_is_ref003(tmp_path: Path) -> None:
    found = _one(tmp_path, "p1-s1-rail9", "asn", "4200199999")
    assert [_where(f) for f in found] == [("REF003", "devices.yml", 2, 3)]  # the key of the unknown name


def test_pins_are_validated_by_the_schema(tmp_path: Path) -> None:
    res = _run(tmp_path, "devices:\n  p1-s1-rail0:\n    loopback: 10.0.0.0/32\n    asn: 0\n")
    assert sorted(f.code for f in res.findings if f.code.startswith("SCH")) == ["SCH003", "SCH003"]


# --------------------------------------------------------------------------- fabric show


def test_show_marks_pinned_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from railfabric.cli import main

    d = tmp_path / "inv"
    write_files(d, {"fabric.yml": dump(base_inventory()),
                    "devices.yml": "devices:\n  p1-s1-rail0:\n    asn: 4200199999\n    router_id: 10.255.0.1\n"})
    assert main(["show", "p1-s1-rail0", str(d)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  loopback   10.0.0.40/32" in lines  # computed (slot 40)
    assert "  router-id  10.255.0.1  (pinned: devices.p1-s1-rail0)" in lines
    assert "  asn        4200199999  (pinned: devices.p1-s1-rail0)" in lines
    assert any(re.fullmatch(r"  management \S+/16", line) for line in lines)  # computed: no mark
