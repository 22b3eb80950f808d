"""Semantic rules: each bad inventory gives its finding code, at the right place, with the numbers involved.

The base inventory (tests/helpers.py) is one pod, 2 spines, one single-rail segment of 4 hosts with 2 × 400G
NICs on 64 × 800G switches; limits: super_spines 8, pods 4, spines_per_pod 8, segments_per_pod 4,
rail_switches_per_segment 8, uplinks 16.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from railfabric.core.address import ntoa
from railfabric.core.finding import Severity, exit_code
from railfabric.pipeline import run
from railfabric.topology import LinkRole
from tests.helpers import base_inventory, codes, run_data, write_files


def one(result, code: str):
    found = [f for f in result.findings if f.code == code]
    assert len(found) == 1, [f"{f.code} {f.message}" for f in result.findings]
    return found[0]


def test_base_is_clean(tmp_path: Path) -> None:
    r = run_data(tmp_path, base_inventory())
    assert r.findings == []
    assert exit_code(r.findings) == 0


def test_duplicate_pod_id_names_both(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["pods"].append(dict(inv["pods"][0]))
    r = run_data(tmp_path, inv)
    f = one(r, "ID001")
    assert "pod id 1 is used twice" in f.message
    assert f.related and f.related[0].line < f.location.line  # type: ignore[union-attr]
    assert exit_code(r.findings) == 1


def test_duplicate_segment_id(tmp_path: Path) -> None:
    inv = base_inventory()
    seg = dict(inv["pods"][0]["segments"][0])
    inv["pods"][0]["segments"].append(seg)
    assert "ID002" in codes(run_data(tmp_path, inv))


def test_unknown_models_with_suggestion(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["pods"][0]["spines"]["model"] = "sw46"
    inv["pods"][0]["segments"][0]["host_groups"][0]["model"] = "h3"
    r = run_data(tmp_path, inv)
    f = one(r, "REF001")
    assert "'sw46'" in f.message and f.hint == "did you mean 'sw64'?"
    assert one(r, "REF002").hint == "did you mean 'h2'?"
    # the location is the offending value itself
    text = (tmp_path / "inv" / "fabric.yml").read_text().splitlines()
    assert "sw46" in text[f.location.line - 1]  # type: ignore[union-attr]


def test_pools_overlap(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["pools"]["fabric_links"] = "10.0.128.0/17"  # inside loopbacks 10.0.0.0/16
    f = one(run_data(tmp_path, inv), "POOL001")
    assert "loopbacks (10.0.0.0/16)" in f.message and "fabric_links (10.0.128.0/17)" in f.message


def test_pool_exhausted_says_how_many_more(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["pools"]["loopbacks"] = "10.0.0.0/28"
    # rail switches start at slot 8 + 4·8 = 40; the second rail switch is slot 41 → 42 addresses needed, 16 held
    f = one(run_data(tmp_path, inv), "POOL002")
    assert "pool loopbacks 10.0.0.0/28 has 16 addresses" in f.message
    assert "offset 41" in f.message and "needs 26 more" in f.message
    assert "/26" in f.hint


def test_mtu_rules(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["fabric"]["mtu"] = 9100
    inv["fabric"]["host_mtu"] = 9200
    assert "MTU001" in codes(run_data(tmp_path / "a", inv))
    inv = base_inventory()
    inv["fabric"]["host_mtu"] = 4150  # 4096 + 20 IPv4 + 8 UDP + 12 BTH + 16 RETH + 4 ICRC = 4156
    f = one(run_data(tmp_path / "b", inv), "MTU002")
    assert "4156" in f.message
    inv["fabric"]["host_mtu"] = 4156
    assert "MTU002" not in codes(run_data(tmp_path / "c", inv))


def test_qos_rules(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["qos"] = {"ecn": {"min_bytes": 2_000_000, "max_bytes": 1_500_000},
                  "cnp": {"dscp": 26, "priority": 3},
                  "pfc_watchdog": {"detection_ms": 100, "poll_ms": 200}}
    r = run_data(tmp_path, inv)
    assert "2,000,000" in one(r, "QOS001").message
    assert "DSCP 26" in one(r, "QOS002").message
    assert "priority 3" in one(r, "QOS003").message
    assert one(r, "QOS004").location is not None


def test_ecn_off_skips_threshold_check(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["qos"] = {"ecn": {"enabled": False, "min_bytes": 2_000_000, "max_bytes": 1}}
    assert run_data(tmp_path, inv).findings == []


def test_rails_must_match_nics(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["pods"][0]["segments"][0]["rails"] = 4
    f = one(run_data(tmp_path, inv), "RAIL001")
    assert "4 rails" in f.message and "2 NICs" in f.message
    assert f.hint == "set rails: 2 (NIC r of every host lands on rail r)"


def test_rail_groups_must_partition(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["host_models"]["h4"] = {"gpus": 4, "nics": 4, "nic_speed": "400G"}
    seg = inv["pods"][0]["segments"][0]
    seg.update(rail_design="dual-rail", rails=4, rail_groups=[[0, 2], [0, 3]])
    seg["host_groups"][0]["model"] = "h4"
    f = one(run_data(tmp_path, inv), "RAIL002")
    assert "rails [0] appear twice" in f.message and "rails [1] are missing" in f.message


def test_dual_rail_needs_even_rails(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["host_models"]["h3"] = {"gpus": 3, "nics": 3, "nic_speed": "400G"}
    seg = inv["pods"][0]["segments"][0]
    seg.update(rail_design="dual-rail", rails=3)
    seg["host_groups"][0]["model"] = "h3"
    assert "RAIL002" in codes(run_data(tmp_path, inv))


def test_shared_nic_needs_map(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["host_models"]["h2"] = {"gpus": 8, "nics": 2, "nic_speed": "400G"}
    f = one(run_data(tmp_path / "a", inv), "RAIL003")
    assert "[0, 0, 0, 0, 1, 1, 1, 1]" in f.hint
    inv["host_models"]["h2"]["gpu_to_nic"] = [0, 0, 0, 0, 1, 1, 1, 1]
    r = run_data(tmp_path / "b", inv)
    assert r.findings == []
    assert r.summary()["gpus"] == 4 * 8  # type: ignore[index]


def test_ids_beyond_limits(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["pods"][0]["id"] = 5
    f = one(run_data(tmp_path, inv), "ID004")
    assert "pod id 5 exceeds limits.pods = 4" in f.message


def test_host_groups_need_first_and_must_not_overlap(tmp_path: Path) -> None:
    inv = base_inventory()
    groups = inv["pods"][0]["segments"][0]["host_groups"]
    groups.append({"model": "h2", "count": 2})
    assert "ID005" in codes(run_data(tmp_path / "a", inv))
    groups[0]["first"] = 1
    groups[1]["first"] = 4  # group 1 holds hosts 1-4
    f = one(run_data(tmp_path / "b", inv), "ID005")
    assert "hosts 1-4 and 4-5" in f.message and "at 5 or later" in f.hint
    groups[1]["first"] = 5
    inv["pods"][0]["spines"]["links_per_rail_switch"] = 2  # 6 hosts × 400G: keep the switch non-blocking
    assert run_data(tmp_path / "c", inv).findings == []


def test_override_of_unknown_device(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["devices"] = {"p1-s1-rail9": {"rack": "R1"}}
    f = one(run_data(tmp_path, inv), "REF003")
    assert f.hint.startswith("did you mean 'p1-s1-rail")


def test_bad_hostname_override(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["devices"] = {"p1-s1-rail0": {"hostname": "leaf_1"}}
    f = one(run_data(tmp_path, inv), "SEC002")
    assert "'leaf_1'" in f.message and "RFC 1123" in f.message


def test_hostname_cannot_escape_generated(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["devices"] = {"p1-s1-rail0": {"hostname": "../../etc"}}
    assert "SEC002" in codes(run_data(tmp_path, inv))


def test_newline_in_rack_is_refused(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["devices"] = {"p1-s1-rail0": {"rack": "R1\nhostname evil"}}
    f = one(run_data(tmp_path, inv), "SEC001")
    assert "U+000A" in f.message


def test_name_pattern_placeholders(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["pods"][0]["segments"][0]["rail_switch_name"] = "leaf{pod.__class__}"
    f = one(run_data(tmp_path / "a", inv), "SEC003")
    assert "unknown placeholder" in f.message
    inv["pods"][0]["segments"][0]["rail_switch_name"] = "p{pod}-s{segment}-leaf{index:02d}"
    r = run_data(tmp_path / "b", inv)
    assert r.findings == []
    rail = sorted(n for n, s in r.topology.switches.items() if s.segment == 1)  # type: ignore[union-attr]
    assert rail == ["p1-s1-leaf01", "p1-s1-leaf02"]


def test_duplicate_generated_names(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["pods"][0]["segments"][0]["rail_switch_name"] = "leaf"
    assert "ID003" in codes(run_data(tmp_path, inv))


def test_ports_exhausted(tmp_path: Path) -> None:
    inv = base_inventory()
    # host ports are the lower half (32 ports × 2 lanes = 64 hosts); 70 hosts overflow by 6 links = 3 ports
    inv["pods"][0]["segments"][0]["host_groups"][0]["count"] = 70
    r = run_data(tmp_path, inv)
    found = [f for f in r.findings if f.code == "PORT001"]
    assert len(found) == 2  # both rail switches
    assert "6 link(s) do not fit" in found[0].message and "3 more port(s) needed" in found[0].message


def test_speed_mode_missing(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["host_models"]["h2"]["nic_speed"] = "200G"
    f = one(run_data(tmp_path, inv), "HW001")
    assert "200G" in f.message and "800G, 2x400G" in f.message


def test_breakout_must_match_native(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["switch_models"]["sw64"]["breakouts"] = ["2x400G", "4x400G"]
    f = one(run_data(tmp_path, inv), "HW002")
    assert "4x400G is 1.6T" in f.message


def test_asn_overlap(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["routing"] = {"asn": {"spine_base": 4200100000, "rail_switch_base": 4200100002}}
    assert "ASN002" in codes(run_data(tmp_path, inv))


def test_public_asn_is_a_warning(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["routing"] = {"asn": {"super_spine": 65000, "spine_base": 100, "rail_switch_base": 4200100000}}
    r = run_data(tmp_path, inv)
    f = one(r, "ASN001")
    assert f.severity is Severity.WARNING and "spine ASNs 101-104" in f.message
    assert exit_code(r.findings) == 0


def test_dual_port_nics_need_dual_homing(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["host_models"]["h2"]["ports_per_nic"] = 2
    assert "TOPO004" in codes(run_data(tmp_path, inv))


def test_dual_homing_two_switches_per_rail(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["host_models"]["h2"]["ports_per_nic"] = 2
    inv["pods"][0]["segments"][0]["dual_homing"] = "two-vlans"
    r = run_data(tmp_path / "a", inv)
    assert r.findings == []
    topo, plan = r.topology, r.plan
    names = sorted(n for n, s in topo.switches.items() if s.segment == 1)  # type: ignore[union-attr]
    assert names == ["p1-s1-rail0a", "p1-s1-rail0b", "p1-s1-rail1a", "p1-s1-rail1b"]
    by_id = {lk.id: lk for lk in topo.links if lk.role is LinkRole.HOST}  # type: ignore[union-attr]
    assert by_id["p1-s1-gpu002:nic1p1"].z.device == "p1-s1-rail1a"
    assert by_id["p1-s1-gpu002:nic1p2"].z.device == "p1-s1-rail1b"
    # two-vlans: each switch has its own /24: switch k (1..4) owns block unit k-1 of 172.16.0.0/21
    assert str(plan.rail_subnets[("p1-s1-rail1b", 1)].prefix) == "172.16.3.0/24"  # type: ignore[union-attr]
    assert ntoa(plan.host_addr["p1-s1-gpu002:nic1p2"]) == "172.16.3.3"  # type: ignore[union-attr]
    # esi: EVPN multihoming needs an EVPN-VXLAN overlay that railfabric does not build: refused at the key
    inv["pods"][0]["segments"][0]["dual_homing"] = "esi"
    r = run_data(tmp_path / "esi", inv)
    assert [f.code for f in r.findings] == ["PLAT002"], r.findings
    loc = r.findings[0].location
    assert loc is not None
    line = (tmp_path / "esi" / "inv" / "fabric.yml").read_text().splitlines()[loc.line - 1]
    assert line.strip().startswith("dual_homing: esi")
    assert "EVPN-VXLAN overlay" in r.findings[0].message
    assert r.findings[0].hint.startswith("use dual_homing: mlag")


def test_super_spine_planes(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["super_spines"] = {"count": 4, "model": "sw64", "planes": 2}
    r = run_data(tmp_path, inv)
    assert r.findings == []
    peers: dict[str, set[str]] = {}
    for lk in r.topology.links:  # type: ignore[union-attr]
        if lk.role is LinkRole.CORE:
            peers.setdefault(lk.a.device, set()).add(lk.z.device)
    # spine i meets plane ((i-1) mod 2)+1; super-spine s is in plane ((s-1) mod 2)+1
    assert peers == {"p1-spine1": {"ss1", "ss3"}, "p1-spine2": {"ss2", "ss4"}}


def test_full_mesh_super_spines(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["super_spines"] = {"count": 3, "model": "sw64"}
    r = run_data(tmp_path, inv)
    core = [lk for lk in r.topology.links if lk.role is LinkRole.CORE]  # type: ignore[union-attr]
    assert len(core) == 2 * 3


def test_two_pods_without_super_spines_warn(tmp_path: Path) -> None:
    inv = base_inventory()
    pod2 = yaml.safe_load(yaml.safe_dump(inv["pods"][0]))
    pod2["id"] = 2
    inv["pods"].append(pod2)
    r = run_data(tmp_path, inv)
    f = one(r, "TOPO001")
    assert f.severity is Severity.WARNING and exit_code(r.findings) == 0


def test_segment_block_too_small(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["limits"]["segment_rail_block"] = 24  # 2 switches × /24 = 512 addresses > 256
    f = one(run_data(tmp_path, inv), "POOL005")
    assert "needs 512 rail addresses" in f.message and "/24 (256)" in f.message


def test_rail_subnet_too_small_for_hosts(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["pods"][0]["segments"][0]["rail_prefix_len"] = 30  # gateway + 1 host
    f = one(run_data(tmp_path, inv), "POOL006")
    assert "host number 4" in f.message and "rail_prefix_len 29" in f.hint


def test_management_pin_outside_and_colliding(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["devices"] = {"p1-s1-rail0": {"management": "10.99.0.1"}}
    assert "POOL003" in codes(run_data(tmp_path / "a", inv))
    # p1-spine1 is device slot 8 → 192.168.0.0 + 16 + 8 = 192.168.0.24
    inv["devices"] = {"p1-s1-rail0": {"management": "192.168.0.24"}}
    f = one(run_data(tmp_path / "b", inv), "POOL004")
    assert "p1-spine1" in f.message


def test_all_findings_at_once_each_once(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["fabric"]["host_mtu"] = 4000
    inv["qos"] = {"cnp": {"dscp": 26, "priority": 6}}
    inv["pools"]["fabric_links"] = "10.0.0.0/17"
    r = run_data(tmp_path, inv)
    assert sorted(codes(r)) == ["MTU002", "POOL001", "QOS002"]


def test_findings_point_into_the_right_file(tmp_path: Path) -> None:
    inv = base_inventory()
    pods = {"pods": inv.pop("pods")}
    pods["pods"][0]["segments"][0]["rails"] = 3
    write_files(tmp_path, {"fabric.yml": yaml.safe_dump(inv), "pods.yml": yaml.safe_dump(pods)})
    r = run(tmp_path)
    f = one(r, "RAIL001")
    assert f.location.file.endswith("pods.yml")  # type: ignore[union-attr]
    line = (tmp_path / "pods.yml").read_text().splitlines()[f.location.line - 1]  # type: ignore[union-attr]
    assert line.strip() == "rails: 3"


def _spine_ports(result) -> dict[str, tuple[int, int]]:
    return {lk.id: (lk.z.port, lk.z.lane) for lk in result.topology.links if lk.role is LinkRole.FABRIC}


def test_ports_per_segment_keeps_cables_when_a_segment_is_inserted(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["pods"][0]["spines"]["ports_per_segment"] = 4
    seg = inv["pods"][0]["segments"][0]
    inv["pods"][0]["segments"].append({**yaml.safe_load(yaml.safe_dump(seg)), "id": 3})
    before = _spine_ports(run_data(tmp_path / "a", inv))
    # segment 3 starts at spine port (3-1)·4 + 1 = 9: rail switch 1 → 9, rail switch 2 → 10
    assert before["p1-s3-rail0>p1-spine1#1"] == (9, 0) and before["p1-s3-rail1>p1-spine2#1"] == (10, 0)
    inv["pods"][0]["segments"].append({**yaml.safe_load(yaml.safe_dump(seg)), "id": 2})
    after = run_data(tmp_path / "b", inv)
    assert after.findings == []
    ports = _spine_ports(after)
    assert all(ports[k] == v for k, v in before.items())
    assert ports["p1-s2-rail0>p1-spine1#1"] == (5, 0)


def test_ports_per_segment_too_small(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["pods"][0]["spines"]["ports_per_segment"] = 1  # 2 rail switches × 1 link need 2
    f = one(run_data(tmp_path, inv), "PORT003")
    assert "needs 2 downlink ports on each spine but spines.ports_per_segment is 1" in f.message


def test_ports_per_pod_on_super_spines(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["super_spines"] = {"count": 2, "model": "sw64", "ports_per_pod": 8}
    pod2 = yaml.safe_load(yaml.safe_dump(inv["pods"][0]))
    pod2["id"] = 3
    inv["pods"].append(pod2)
    r = run_data(tmp_path, inv)
    core = {lk.id: lk.z.port for lk in r.topology.links if lk.role is LinkRole.CORE}  # type: ignore[union-attr]
    # pod 3 starts at super-spine port (3-1)·8 + 1 = 17; spine 2 is the second position
    assert core["p3-spine1>ss1#1"] == 17 and core["p3-spine2>ss2#1"] == 18 and core["p1-spine2>ss1#1"] == 2
