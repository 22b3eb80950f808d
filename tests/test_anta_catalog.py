"""ANTA catalogs (expected/anta/) and expected state (expected/state/) of the example, read back by the real tools:
anta's own catalog and inventory loaders, and jsonschema against schema/expected-state.schema.json.

Hand derivations used below (inventory/fabric.yml, pods.yml; rules in railfabric/plan/allocate.py,
railfabric/topology/):
- p1-s2-rail0-4 (pod 1, segment 2, dual-rail, EOS, rails 0 and 4): tier slot ((1-1)·8 + (2-1))·16 + 0 = 16, so ASN
  4200100000 + 16 = 4200100016; its uplinks u = 0..15 (4 spines × links_per_spine 4, spine-major) take /31 slot
  16·64 + u of fabric_links 10.4.0.0/14, i.e. 10.4.0.0 + 2·(1024 + u) = 10.4.8.0 + 2u; the spine holds the even
  (upper) end: neighbours 10.4.8.0, .2, ..., .30, remote AS 4200001000 + 1 (pod 1's spines), p1-spineJ holding
  u = 4(J-1) .. 4J-1. Its first uplink is port 33 (Ethernet33/1), landing on p1-spine1 port (2-1)·16 + 1 = 17,
  SONiC name Ethernet(17-1)·8 = Ethernet128. Fabric MTU 9216 normalised to EOS's ceiling 9214.
  Routes: each spine's loopback over its 4 sessions (ECMP 4); segment 1's rail 0 and rail 4 switches advertise
  172.16.0.0/24 and 172.16.4.0/24 (segment 1 owns 172.16.0.0/21, rail r its r-th /24, single-rail: no summary),
  reached through every spine (each peers them), 4 spines × 4 sessions = ECMP 16.
- p1-spine1 (all switches on EOS, the addresses do not depend on the platform): segment 1's 8 rail switches × 2
  links + segment 2's 4 × 4 links + 4 super-spines × 8 links = 64 sessions; p1-s1-rail0 (slot 0) /31s 0..7, its
  links to spine 1 are u = 0, 1: 10.4.0.0/31 and 10.4.0.2/31, the rail switch on the odd end 10.4.0.1, 10.4.0.3
  (AS 4200100000); p1-s2-rail0-4's summary 172.16.8.0/24 (segment 2 owns 172.16.8.0/21, rail group 0 its first
  /24) over its 4 sessions: ECMP 4; 172.16.0.0/24 from p1-s1-rail0 over 2 sessions: ECMP 2.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from anta.catalog import AntaCatalog
from anta.inventory import AntaInventory

from railfabric.device import DeviceConfig, build_devices
from railfabric.inventory.intent import Platform
from railfabric.lab.expect import expected
from railfabric.lab.spec import build_spec
from railfabric.outputs import artifacts
from railfabric.outputs.state import state_files
from railfabric.pipeline import Result, run
from railfabric.plan.allocate import allocate
from railfabric.topology import expand
from tests.helpers import EXAMPLE, ROOT, example_all_sonic

SCHEMA = ROOT / "schema" / "expected-state.schema.json"
RAIL = "p1-s2-rail0-4"
EOS_SWITCHES = {"p1-s2-rail0-4", "p1-s2-rail1-5", "p1-s2-rail2-6", "p1-s2-rail3-7"}


@pytest.fixture(scope="module")
def result() -> Result:
    r = run(EXAMPLE)
    assert r.findings == [], [str(f) for f in r.findings]
    return r


@pytest.fixture(scope="module")
def files(result: Result) -> dict[str, str]:
    assert result.inventory and result.topology and result.plan
    devices = build_devices(result.inventory, result.topology, result.plan)
    return artifacts(result.inventory, result.topology, result.plan, devices)


@pytest.fixture(scope="module")
def all_eos(result: Result) -> dict[str, str]:
    """The example with every switch on EOS (as tests/test_render_eos.py does)."""
    assert result.inventory
    inv = result.inventory.model_copy(
        update={"fabric": result.inventory.fabric.model_copy(update={"platform": Platform.EOS})})
    topo = expand(inv)
    devices: dict[str, DeviceConfig] = build_devices(inv, topo, allocate(inv, topo))
    return state_files(devices)


def _write(tmp: Path, files: dict[str, str], prefix: str) -> list[Path]:
    out = []
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = tmp / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
            out.append(p)
    return sorted(out)


def _tests(text: str) -> dict[str, dict]:
    """test name → inputs of a catalog (every test appears once per device catalog)."""
    data = yaml.safe_load(text)
    return {name: inputs for tests in data.values() for t in tests for name, inputs in t.items()}


def test_anta_loads_every_catalog_and_the_inventory(files: dict[str, str], tmp_path: Path) -> None:
    catalogs = _write(tmp_path, files, "expected/anta/catalogs/")
    assert {p.stem for p in catalogs} == EOS_SWITCHES  # the SONiC switches get none
    merged = []
    for p in catalogs:
        cat = AntaCatalog.parse(p)
        # 6 interface tests, LLDP, 2 BFD (peers, their timers), 3 BGP, VLAN (no MLAG, no port-channel on these rail
        # switches)
        assert {t.test.name for t in cat.tests} == {
            "VerifyInterfacesStatus", "VerifyL3MTU", "VerifyL2MTU", "VerifyInterfaceIPv4", "VerifyInterfacesSpeed",
            "VerifyLLDPNeighbors", "VerifyBFDSpecificPeers", "VerifyBFDPeersIntervals", "VerifyBGPSpecificPeers",
            "VerifyBGPPeerGroup", "VerifyBGPRouteECMP", "VerifyVlanStatus"}
        # the example writes no bfd_timers: every session runs the fabric-wide 300 ms x 3, detected in 900 ms
        (intervals,) = [t for t in cat.tests if t.test.name == "VerifyBFDPeersIntervals"]
        assert {(b.tx_interval, b.rx_interval, b.multiplier, b.detection_time)
                for b in intervals.inputs.bfd_peers} == {(300, 300, 3, 900)}
        assert all(t.inputs.filters and t.inputs.filters.tags == {p.stem} for t in cat.tests)
        merged.append(cat)
    # merged, the name tags keep each test on its own switch
    big = AntaCatalog.merge_catalogs(merged)
    big.build_indexes()
    assert len(big.get_tests_by_tags({RAIL})) == 12
    (inv_path,) = _write(tmp_path, files, "expected/anta/inventory.yml")
    inv = AntaInventory.parse(inv_path, username="u", password="p")
    assert set(inv) == EOS_SWITCHES
    # management 192.168.0.0/20, first_offset 16, + the switch's slot: 16 super-spine slots + 8 pods × 16 spine
    # slots + the rail tier slot 16 = 160, so 192.168.0.(16 + 160)
    hosts = yaml.safe_load(files["expected/anta/inventory.yml"])["anta_inventory"]["hosts"]
    assert {h["name"]: h["host"] for h in hosts}[RAIL] == "192.168.0.176"
    assert inv[RAIL].tags == {RAIL, "rail", "pod1", "pod1-segment2"}


def test_all_eos_catalogs_load(all_eos: dict[str, str], tmp_path: Path) -> None:
    catalogs = _write(tmp_path, all_eos, "expected/anta/catalogs/")
    assert len(catalogs) == 34  # every switch of the example
    for p in catalogs:
        AntaCatalog.parse(p)


def test_rail_switch_catalog_by_hand(files: dict[str, str]) -> None:
    t = _tests(files[f"expected/anta/catalogs/{RAIL}.yml"])
    peers = [str(a) for a in t["VerifyBGPSpecificPeers"]["address_families"][0]["peers"]]
    assert peers == [f"10.4.8.{2 * u}" for u in range(16)]
    assert t["VerifyBGPSpecificPeers"]["address_families"][0] | {"peers": []} == {
        "afi": "ipv4", "safi": "unicast", "vrf": "default", "peers": []}
    assert {p["peer_group"] for p in t["VerifyBGPPeerGroup"]["bgp_peers"]} == {"SPINES"}
    lldp = {n["port"]: (n["neighbor_device"], n["neighbor_port"]) for n in t["VerifyLLDPNeighbors"]["neighbors"]}
    assert lldp["Ethernet33/1"] == ("p1-spine1", "Ethernet128")
    assert len(lldp) == 16  # uplinks only: host NICs are not LLDP-checked from the switch
    assert t["VerifyL3MTU"]["mtu"] == 9214 and t["VerifyL2MTU"]["mtu"] == 9214
    ecmp = {r["prefix"]: r["ecmp_count"] for r in t["VerifyBGPRouteECMP"]["route_entries"]}
    assert ecmp["172.16.0.0/24"] == 16 and ecmp["172.16.4.0/24"] == 16
    assert sorted(ecmp.values()) == [4, 4, 4, 4, 16, 16]  # 4 spine loopbacks at 4, two remote rails at 16
    assert [v["vlan_id"] for v in t["VerifyVlanStatus"]["vlans"]] == [100, 104]
    status = {i["name"]: i["status"] for i in t["VerifyInterfacesStatus"]["interfaces"]}
    assert status["Ethernet3/1"] == "adminDown"  # port 3 is unused (hosts on ports 1, 2, 4, 5, ...)
    assert status["Ethernet33/1"] == status["Vlan100"] == status["Loopback0"] == "up"


def test_spine_catalog_by_hand(all_eos: dict[str, str]) -> None:
    t = _tests(all_eos["expected/anta/catalogs/p1-spine1.yml"])
    peers = [str(a) for a in t["VerifyBGPSpecificPeers"]["address_families"][0]["peers"]]
    assert len(peers) == 64
    assert {"10.4.0.1", "10.4.0.3", "10.4.8.1", "10.4.8.3", "10.4.8.5", "10.4.8.7"} <= set(peers)
    groups = {p["peer_address"]: p["peer_group"] for p in t["VerifyBGPPeerGroup"]["bgp_peers"]}
    assert groups["10.4.0.1"] == "RAIL-SWITCHES"
    assert sum(g == "SUPER-SPINES" for g in groups.values()) == 32
    ecmp = {r["prefix"]: r["ecmp_count"] for r in t["VerifyBGPRouteECMP"]["route_entries"]}
    assert ecmp["172.16.8.0/24"] == 4 and ecmp["172.16.0.0/24"] == 2
    state = json.loads(all_eos["expected/state/p1-spine1.json"])
    by_ip = {n["address"]: n for n in state["bgp"]["neighbors"]}
    assert by_ip["10.4.0.1"]["remote_as"] == 4200100000 and by_ip["10.4.8.1"]["remote_as"] == 4200100016
    assert by_ip["10.4.8.1"]["peer_device"] == RAIL


def test_state_files_validate_against_the_schema(files: dict[str, str], all_eos: dict[str, str]) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    states = {k: v for k, v in (files | {"x/" + k: v for k, v in all_eos.items()}).items()
              if "expected/state/" in k}
    assert len(states) == 68  # 34 switches, shipped platforms and all-EOS
    for path, text in states.items():
        errors = [e.message for e in validator.iter_errors(json.loads(text))]
        assert errors == [], (path, errors[:3])
    broken = json.loads(files[f"expected/state/{RAIL}.json"])
    broken["bgp"]["neighbor_state"] = "Idle"
    assert not validator.is_valid(broken)


def test_rail_switch_state_by_hand(files: dict[str, str]) -> None:
    st = json.loads(files[f"expected/state/{RAIL}.json"])
    assert (st["platform"], st["role"], st["pod"], st["segment"], st["mtu"]) == ("eos", "rail", 1, 2, 9214)
    assert st["bgp"]["asn"] == 4200100016
    first = st["bgp"]["neighbors"][0]
    assert (first["address"], first["local_address"], first["remote_as"], first["peer_device"],
            first["interface"], first["peer_interface"], first["bfd"]) == (
        "10.4.8.0", "10.4.8.1", 4200001001, "p1-spine1", "Ethernet33/1", "Ethernet128", True)
    up = {i["name"]: i for i in st["interfaces"]}
    assert (up["Ethernet33/1"]["ipv4"], up["Ethernet33/1"]["oper"]) == ("10.4.8.1/31", "up")
    assert (up["Ethernet3/1"]["admin"], up["Ethernet3/1"]["oper"]) == ("down", "down")
    assert [(v["id"], v["gateway"]) for v in st["vlans"]] == [(100, "172.16.8.1/25"), (104, "172.16.8.129/25")]


def test_state_and_catalog_agree_with_the_session_plan(files: dict[str, str]) -> None:
    """The catalog's BGP peers, the state's neighbours and expected/bgp_sessions.csv name the same sessions."""
    lines = [line for line in files["expected/bgp_sessions.csv"].splitlines() if not line.startswith("#")]
    rows = list(csv.DictReader(lines))
    for name in EOS_SWITCHES:
        planned = {(r["neighbor_ip"], int(r["remote_asn"])) for r in rows if r["device"] == name}
        st = json.loads(files[f"expected/state/{name}.json"])
        assert {(n["address"], n["remote_as"]) for n in st["bgp"]["neighbors"]} == planned
        t = _tests(files[f"expected/anta/catalogs/{name}.yml"])
        assert {str(a) for a in t["VerifyBGPSpecificPeers"]["address_families"][0]["peers"]} == {
            ip for ip, _ in planned}
    for path, text in files.items():
        if path.startswith("expected/state/"):
            st = json.loads(text)
            assert len(st["bgp"]["neighbors"]) == sum(r["device"] == st["device"] for r in rows)


@pytest.mark.parametrize("pod_aggregate", [False, True])
def test_routes_match_the_path_vector_model(tmp_path: Path, pod_aggregate: bool) -> None:
    """Every route and next-hop count of every state file equals the lab's path-vector simulation of the planned
    eBGP (railfabric/lab/expect.py), on the example with all switches on SONiC (the lab runs only those)."""
    inv = example_all_sonic(tmp_path / "inv")
    if pod_aggregate:
        f = inv / "fabric.yml"
        text = f.read_text(encoding="utf-8")
        f.write_text(text.replace("  bfd: true\n", "  bfd: true\n  spine_pod_aggregate: true\n", 1), encoding="utf-8")
    res = run(inv)
    assert res.findings == [] and res.inventory and res.topology and res.plan
    lab = expected(build_spec(res))
    devices = build_devices(res.inventory, res.topology, res.plan)
    checked = 0
    for path, text in state_files(devices).items():
        if path.startswith("expected/state/"):
            st = json.loads(text)
            for r in st["routes"]:
                assert lab.routes[st["device"]].get(r["prefix"]) == r["next_hops"], (st["device"], r)
                checked += 1
    # 34 switches; e.g. every rail switch under spines checks 4 spine loopbacks and its remote segments
    assert checked > 200
    kinds = {json.loads(t)["routes"][0]["kind"] for p, t in state_files(devices).items()
             if p.startswith("expected/state/") and json.loads(t)["routes"]}
    assert "peer-loopback" in kinds


@pytest.mark.parametrize("pod_aggregate", [False, True])
def test_ipv6_routes_match_the_path_vector_model(tmp_path: Path, pod_aggregate: bool) -> None:
    """Dual-stack (routing.address_families: [ipv4, ipv6]): every IPv6 route and next-hop count of every state file
    (routes_v6, the IPv6 twins of `routes`) equals the lab's path-vector simulation run on the IPv6 prefix-lists and
    summaries (railfabric/lab/expect.py, Expected.routes_v6), which derives them on its own; and each switch has as
    many IPv6 routes as IPv4 ones, of the same kinds and origins. The example, all SONiC, with two IPv6 pools."""
    inv = example_all_sonic(tmp_path / "inv")
    f = inv / "fabric.yml"
    text = f.read_text(encoding="utf-8")
    extra = "  address_families: [ipv4, ipv6]\n" + ("  spine_pod_aggregate: true\n" if pod_aggregate else "")
    text = text.replace("  bfd: true\n", "  bfd: true\n" + extra, 1)
    text = text.replace("  rail_subnets: 172.16.0.0/12", "  loopbacks_v6: 2001:db8::/64\n"
                        "  rail_subnets_v6: 2001:db8:100::/40\n  rail_subnets: 172.16.0.0/12", 1)
    f.write_text(text, encoding="utf-8")
    res = run(inv)
    assert [x.code for x in res.findings] == [] and res.inventory and res.topology and res.plan
    lab = expected(build_spec(res))
    devices = build_devices(res.inventory, res.topology, res.plan)
    checked = 0
    kinds: set[str] = set()
    for path, text in state_files(devices).items():
        if path.startswith("expected/state/"):
            st = json.loads(text)
            assert st["bgp"]["address_families"] == ["ipv4-unicast", "ipv6-unicast"]
            assert sorted((r["kind"], r["next_hops"], r["origin"]) for r in st["routes_v6"]) == sorted(
                (r["kind"], r["next_hops"], r["origin"]) for r in st["routes"]), st["device"]
            for r in st["routes_v6"]:
                assert ":" in r["prefix"]
                assert lab.routes_v6[st["device"]].get(r["prefix"]) == r["next_hops"], (st["device"], r)
                kinds.add(r["kind"])
                checked += 1
    assert checked > 200
    assert kinds == ({"peer-loopback", "peer-rail-prefix", "pod-aggregate"} if pod_aggregate
                     else {"peer-loopback", "peer-rail-prefix", "remote-segment"})


def test_output_is_deterministic(result: Result) -> None:
    assert result.inventory and result.topology and result.plan
    devices = build_devices(result.inventory, result.topology, result.plan)
    again = dict(reversed(list(devices.items())))
    assert state_files(devices) == state_files(again)


def test_text_forms_read_back_exactly(result: Result) -> None:
    """The hand-laid JSON and YAML texts parse (json, PyYAML) back to exactly the records they were made from."""
    from railfabric.outputs.anta import catalog_text, device_catalog
    from railfabric.outputs.state import state_text, states

    assert result.inventory and result.topology and result.plan
    devices = build_devices(result.inventory, result.topology, result.plan)
    for st in states(devices).values():
        assert json.loads(state_text(st)) == st
        assert yaml.safe_load(catalog_text(st)) == device_catalog(st)
