"""IPv6 routes in the expected state of a dual-stack fabric (routing.address_families: [ipv4, ipv6]; issue 30).

The fabric: tests.helpers' mini fabric (one pod, 2 spines, single-rail segments of 2 rails, 4 hosts × 2 NICs of
400G) with a second segment like the first, and the IPv6 pools of tests/test_ipv6.py (loopbacks_v6 2001:db8::/64,
rail_subnets_v6 2001:db8:100::/48). Hand derivations (rules in railfabric/plan/allocate.py, allocate_v6.py; the
slots as in tests/test_ipv6.py's docstring):
- limits: spines_per_pod 8, super_spines 8, segments_per_pod 4, rail_switches_per_segment 8. Slots: super-spines
  0-7; p1-spine1 8, p1-spine2 9; rail switches 8 + 4·8 = 40 + ((pod-1)·4 + (seg-1))·8 + (k-1): p1-s1-rail0 40,
  p1-s1-rail1 41, p1-s2-rail0 48, p1-s2-rail1 49. IPv6 loopback = 2001:db8:: + slot: 2001:db8::8, ::9, ::28
  (40 = 0x28), ::29, ::30 (48 = 0x30), ::31; IPv4 10.0.0.<slot>.
- rail subnets: segment slot (pod-1)·4 + (seg-1): segment 1 → 0, segment 2 → 1. IPv4: 172.16.0.0/21 per slot
  (segment_rail_block 21), rail r its r-th /24: s1 172.16.0.0/24, 172.16.1.0/24; s2 172.16.8.0/24, 172.16.9.0/24.
  IPv6: the segment's /56 is the pool's slot-th: 2001:db8:100::/56 and 2001:db8:100:100::/56 (slot 1 · 2^72 sets
  bit 72 from the right, the low bit of the fourth group's high byte: 0x0100); rail r its /64 number r:
  s1 2001:db8:100::/64, 2001:db8:100:1::/64; s2 2001:db8:100:100::/64, 2001:db8:100:101::/64. Single-rail: no
  summary in either family.
- sessions: a rail switch has 4 hosts × 400G = 1.6T down, so 1.6T up = one 800G link to each of the 2 spines: one
  eBGP session per (rail switch, spine); the IPv6 family rides on it (no IPv6 session exists).
- p1-spine1: each rail switch's loopback over its 1 session (ECMP 1), each rail /64 from the one switch that sends it
  (ECMP 1): 4 + 4 routes, by address: the /128s ::28, ::29, ::30, ::31, then 2001:db8:100::/64, :1::, :100::,
  :101::.
- p1-s1-rail0 (rail 0): the 2 spines' loopbacks (ECMP 1 each); segment 2's rail-0 switch p1-s2-rail0 sends
  2001:db8:100:100::/64, reached through both spines (path spine → p1-s2-rail0, each spine peers it): ECMP 2.
  p1-s2-rail1's /64 serves rail 1: not expected at a rail-0 switch (rail-optimized: it does not cross the spines).
- routing.spine_pod_aggregate: pod 1's 4 segment /56s (slots 0-3) = 2001:db8:100::/54 (IPv4: 4 × /21 = 172.16.0.0/19)
  on both spines; at p1-s1-rail0 the remote /64 is suppressed and the aggregate arrives from both spines: ECMP 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from railfabric.device import DeviceConfig, build_devices
from railfabric.outputs.expected import expected_files
from railfabric.outputs.state import state_files
from railfabric.pipeline import Result
from tests.helpers import ROOT, base_inventory, mlag_inventory, run_data, with_system

LO6, RAILS6 = "2001:db8::/64", "2001:db8:100::/48"
SCHEMA = ROOT / "schema" / "expected-state.schema.json"


def _fabric(dual: bool, pod_aggregate: bool = False) -> dict[str, Any]:
    data = base_inventory()
    pod = data["pods"][0]
    pod["spines"]["ports_per_segment"] = 16  # pinned spine ports (else TOPO005 warns): routes do not depend on it
    pod["segments"].append(dict(pod["segments"][0], id=2))
    routing = data.setdefault("routing", {})
    if dual:
        routing["address_families"] = ["ipv4", "ipv6"]
        data["pools"].update(loopbacks_v6=LO6, rail_subnets_v6=RAILS6)
    if pod_aggregate:
        routing["spine_pod_aggregate"] = True
    return data


def _devices(res: Result) -> dict[str, DeviceConfig]:
    # no finding but SUM001's warning on the pod aggregate (a link failure can blackhole through it)
    assert [f.code for f in res.findings if f.code != "SUM001"] == [], [str(f) for f in res.findings]
    assert res.inventory and res.topology and res.plan
    return build_devices(res.inventory, res.topology, res.plan)


def _states(tmp_path: Path, dual: bool, pod_aggregate: bool = False) -> dict[str, dict[str, Any]]:
    files = state_files(_devices(run_data(tmp_path, _fabric(dual, pod_aggregate))))
    return {p.removeprefix("expected/state/").removesuffix(".json"): json.loads(t) for p, t in files.items()
            if p.startswith("expected/state/")}


@pytest.fixture(scope="module")
def dual(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return _states(tmp_path_factory.mktemp("dual"), dual=True)


def _routes(st: dict[str, Any], key: str = "routes_v6") -> list[tuple[str, int, str, list[str]]]:
    return [(r["prefix"], r["next_hops"], r["kind"], r["origin"]) for r in st[key]]


def test_spine_ipv6_routes(dual: dict[str, dict[str, Any]]) -> None:
    assert _routes(dual["p1-spine1"]) == [
        ("2001:db8::28/128", 1, "peer-loopback", ["p1-s1-rail0"]),
        ("2001:db8::29/128", 1, "peer-loopback", ["p1-s1-rail1"]),
        ("2001:db8::30/128", 1, "peer-loopback", ["p1-s2-rail0"]),
        ("2001:db8::31/128", 1, "peer-loopback", ["p1-s2-rail1"]),
        ("2001:db8:100::/64", 1, "peer-rail-prefix", ["p1-s1-rail0"]),
        ("2001:db8:100:1::/64", 1, "peer-rail-prefix", ["p1-s1-rail1"]),
        ("2001:db8:100:100::/64", 1, "peer-rail-prefix", ["p1-s2-rail0"]),
        ("2001:db8:100:101::/64", 1, "peer-rail-prefix", ["p1-s2-rail1"]),
    ]
    # the IPv4 list is unchanged beside it: its twins in the same order of kinds
    assert [p for p, *_ in _routes(dual["p1-spine1"], "routes")] == [
        "10.0.0.40/32", "10.0.0.41/32", "10.0.0.48/32", "10.0.0.49/32",
        "172.16.0.0/24", "172.16.1.0/24", "172.16.8.0/24", "172.16.9.0/24"]


def test_rail_switch_ipv6_routes(dual: dict[str, dict[str, Any]]) -> None:
    assert _routes(dual["p1-s1-rail0"]) == [
        ("2001:db8::8/128", 1, "peer-loopback", ["p1-spine1"]),
        ("2001:db8::9/128", 1, "peer-loopback", ["p1-spine2"]),
        ("2001:db8:100:100::/64", 2, "remote-segment", ["p1-s2-rail0"]),
    ]
    assert _routes(dual["p1-s2-rail1"]) == [
        ("2001:db8::8/128", 1, "peer-loopback", ["p1-spine1"]),
        ("2001:db8::9/128", 1, "peer-loopback", ["p1-spine2"]),
        ("2001:db8:100:1::/64", 2, "remote-segment", ["p1-s1-rail1"]),
    ]


def test_dual_stack_addresses_and_family(dual: dict[str, dict[str, Any]]) -> None:
    st = dual["p1-s2-rail1"]
    assert st["loopback"]["address"] == "10.0.0.49/32" and st["loopback"]["address_v6"] == "2001:db8::31/128"
    assert st["bgp"]["address_families"] == ["ipv4-unicast", "ipv6-unicast"]
    assert st["bgp"]["aggregates_v6"] == []  # single-rail: no summary
    (vlan,) = st["vlans"]
    assert (vlan["prefix"], vlan["prefix_v6"], vlan["gateway_v6"]) == (
        "172.16.9.0/24", "2001:db8:100:101::/64", "2001:db8:100:101::1/64")
    assert "own_address_v6" not in vlan  # no MLAG: no own address beside a shared gateway


def test_states_meet_the_schema(dual: dict[str, dict[str, Any]]) -> None:
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    for st in dual.values():
        assert list(validator.iter_errors(st)) == [], st["device"]
    bad = dict(dual["p1-spine1"], routes_v6=[{"kind": "peer-loopback", "next_hops": 1, "origin": ["x"],
                                               "prefix": "10.0.0.40/32"}])
    assert list(validator.iter_errors(bad)) != []  # an IPv4 prefix in routes_v6 is refused


def test_pod_aggregate_twin(tmp_path: Path) -> None:
    states = _states(tmp_path, dual=True, pod_aggregate=True)
    assert states["p1-spine1"]["bgp"]["aggregates"] == ["172.16.0.0/19"]
    assert states["p1-spine1"]["bgp"]["aggregates_v6"] == ["2001:db8:100::/54"]
    assert _routes(states["p1-s1-rail0"]) == [
        ("2001:db8::8/128", 1, "peer-loopback", ["p1-spine1"]),
        ("2001:db8::9/128", 1, "peer-loopback", ["p1-spine2"]),
        ("2001:db8:100::/54", 2, "pod-aggregate", ["p1-spine1", "p1-spine2"]),
    ]


def test_ipv4_only_unchanged_and_sessions_shared(tmp_path: Path, dual: dict[str, dict[str, Any]]) -> None:
    """An IPv4-only fabric's state has no IPv6 key (the shipped example's files are unchanged: render --check), and
    the dual-stack fabric has exactly its IPv4 routes and BGP sessions: the IPv6 family adds no session (the same
    bgp_sessions.csv)."""
    v4 = _states(tmp_path / "v4", dual=False)
    for name, st in v4.items():
        text = json.dumps(st)
        assert "_v6" not in text and "ipv6" not in text, name
        assert st["bgp"]["address_families"] == ["ipv4-unicast"]
        assert _routes(st, "routes") == _routes(dual[name], "routes")
        assert st["bgp"]["neighbors"] == dual[name]["bgp"]["neighbors"]
    csv4 = expected_files(_devices(run_data(tmp_path / "a", _fabric(False))))["expected/bgp_sessions.csv"]
    csv6 = expected_files(_devices(run_data(tmp_path / "b", _fabric(True))))["expected/bgp_sessions.csv"]
    assert csv6 == csv4 and csv4.count("\n") == 1 + 1 + 4 * 2 * 2  # title, header, 8 sessions seen from both ends


@pytest.mark.parametrize("platform", ["sonic", "nvue"])
def test_mlag_pair_shares_the_twin(tmp_path: Path, platform: str) -> None:
    """tests.helpers.mlag_inventory: rail r served by the pair p1-s1-rail<r>a / b (slots 40 + 2r, 41 + 2r: IPv6
    loopbacks ::28 .. ::2b), both with rail r's subnet, so both send its /64 (2001:db8:100:<r>::/64). Each switch has
    4 hosts × 1 port × 400G = 1.6T down: one 800G link (one session) to each spine. At p1-spine1 the /64 comes from
    both switches of the pair: 1 + 1 = 2 next hops, origin both. NVUE shows each switch's own IPv6 address beside the
    shared gateway (allocate_v6: the /64's last address - 1 - side: side a ...:ffff:ffff:ffff:fffe); SONiC has
    none."""
    data = mlag_inventory() if platform == "sonic" else with_system(mlag_inventory())  # NVUE: MGMT001 wants a user
    data["fabric"]["platform"] = platform
    data.setdefault("routing", {})["address_families"] = ["ipv4", "ipv6"]
    data["pools"].update(loopbacks_v6=LO6, rail_subnets_v6=RAILS6)
    files = state_files(_devices(run_data(tmp_path, data)))
    spine = json.loads(files["expected/state/p1-spine1.json"])
    assert _routes(spine) == [
        ("2001:db8::28/128", 1, "peer-loopback", ["p1-s1-rail0a"]),
        ("2001:db8::29/128", 1, "peer-loopback", ["p1-s1-rail0b"]),
        ("2001:db8::2a/128", 1, "peer-loopback", ["p1-s1-rail1a"]),
        ("2001:db8::2b/128", 1, "peer-loopback", ["p1-s1-rail1b"]),
        ("2001:db8:100::/64", 2, "peer-rail-prefix", ["p1-s1-rail0a", "p1-s1-rail0b"]),
        ("2001:db8:100:1::/64", 2, "peer-rail-prefix", ["p1-s1-rail1a", "p1-s1-rail1b"]),
    ]
    (vlan,) = json.loads(files["expected/state/p1-s1-rail0a.json"])["vlans"]
    assert vlan["gateway_v6"] == "2001:db8:100::1/64" and vlan["virtual_gateway"] is True
    assert vlan.get("own_address_v6") == ("2001:db8:100:0:ffff:ffff:ffff:fffe/64" if platform == "nvue" else None)


def test_verify_reads_a_dual_stack_mlag_pairs_own_addresses(tmp_path: Path) -> None:
    """NVUE up to 5.14 lists both families under `ip address` (railfabric/platforms/nvue_release.py), so an MLAG
    switch's SVI has two own addresses beside the shared VRR ones, one per family; side a's IPv6 one on rail 0 is
    2001:db8:100:0:ffff:ffff:ffff:fffe/64 (the /64's last address - 1 - side, as above). `fabric verify` must find
    each inside the rail subnet of its own family (it once compared the IPv6 one with the IPv4 subnet)."""
    from railfabric.emit.build import build_files
    from railfabric.verify import verify
    from tests.helpers import write_files

    data = with_system(mlag_inventory())
    data["fabric"]["platform"] = "nvue"
    data["fabric"]["releases"] = {"nvue": "5.14"}
    data.setdefault("routing", {})["address_families"] = ["ipv4", "ipv6"]
    data["pools"].update(loopbacks_v6=LO6, rail_subnets_v6=RAILS6)
    res = run_data(tmp_path / "inv", data)
    files = build_files(res)
    text = files["configs/p1-s1-rail0a/startup.yaml"].decode()
    assert "2001:db8:100:0:ffff:ffff:ffff:fffe/64" in text
    result = verify(write_files(tmp_path / "gen", files), frr_parser=False)  # type: ignore[arg-type]
    assert not result.failures, [str(f) for f in result.failures[:5]]
