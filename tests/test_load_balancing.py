"""Load balancing beyond flow hashing (issue 30, lb30): routing.ecmp mode options and hash fields on every platform.

The fabric (tests/helpers.py base_inventory): pod 1 with spines p1-spine1/2 and one single-rail segment of 2 rail
switches p1-s1-rail0/1, each with one uplink per spine; 4 switches in all, every one on `fabric.platform`.
Expected values are derived by hand from the vendor forms each platform module cites (railfabric/platforms/<p>.py):

- SONiC: SWITCH_HASH|GLOBAL ecmp_hash is the chosen fields in the inventory's order, in the generic hash HLD's names.
- NVUE: `system forwarding ecmp-hash` holds all seven outer-header leaves railfabric knows, on for the chosen fields,
  off for the rest (on/off up to 5.14, enabled/disabled from 5.15).
- Junos: the QFX5000 hash is the five-tuple by default and takes exclusions: a hash of src_ip, dst_ip, l4_src_port
  excludes ip_protocol and l4_dst_port, i.e. `no-protocol; no-l4-destination-port;` (inet) and `no-next-header;
  no-l4-destination-port;` (inet6), in railfabric's five-tuple order (src, dst, protocol, sport, dport).
- NX-OS: source-destination addresses, plus `port source-destination` when both ports are hashed.
- EOS: flowlet = `ip hardware fib load-balance distribution dynamic`; no hash form.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from railfabric.core import safe_yaml
from railfabric.core.finding import Severity
from railfabric.emit.build import build_files
from railfabric.pipeline import Result
from tests.helpers import base_inventory, run_data, with_system
from tests.vendor_schemas import vendor_schema_problems

SWITCHES = ("p1-s1-rail0", "p1-s1-rail1", "p1-spine1", "p1-spine2")


def _data(platform: str, ecmp: dict[str, Any], **extra: Any) -> dict[str, Any]:
    data = with_system(base_inventory())
    data["system"]["syslog"] = []  # nothing platform-specific to refuse (NX-OS has no TCP syslog)
    data["fabric"]["platform"] = platform
    data["routing"] = {"ecmp": ecmp}
    data["host_models"]["h2"]["accepts_out_of_order"] = True  # HOST007 is its own test below
    data.update(extra)
    return data


def _errors(res: Result) -> list[str]:
    return [f.code for f in res.findings if f.severity is Severity.ERROR]


def _files(tmp_path: Path, data: dict[str, Any]) -> dict[str, str]:
    res = run_data(tmp_path, data)
    assert _errors(res) == []
    raw = build_files(res)
    assert vendor_schema_problems(raw) == []  # NVUE: NVIDIA's OpenAPI model of the release
    return {p: b.decode("utf-8") for p, b in raw.items() if p != "manifest.json"}


def _config(files: dict[str, str], host: str, name: str) -> str:
    return files[f"configs/{host}/{name}"]


# --------------------------------------------------------------------------- SONiC


def test_sonic_switch_hash_in_the_inventory_order(tmp_path: Path) -> None:
    files = _files(tmp_path, _data("sonic", {"hash": ["dst_ip", "src_ip", "ip_protocol", "l4_src_port"]}))
    for host in SWITCHES:
        db = json.loads(_config(files, host, "config_db.json"))
        assert db["SWITCH_HASH"] == {"GLOBAL": {"ecmp_hash": ["DST_IP", "SRC_IP", "IP_PROTOCOL", "L4_SRC_PORT"]}}


def test_sonic_without_hash_writes_no_switch_hash(tmp_path: Path) -> None:
    files = _files(tmp_path, _data("sonic", {}))
    assert "SWITCH_HASH" not in json.loads(_config(files, "p1-s1-rail0", "config_db.json"))


def test_sonic_switch_hash_passes_sonic_yang(tmp_path: Path, yang_models: Path) -> None:
    """Every field railfabric can write, against sonic-hash.yang (the hash-field enum) with yanglint."""
    from railfabric.verify.sonic_yang.check import check_configs

    every = ["src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port", "ipv6_flow_label", "ingress_port"]
    files = _files(tmp_path, _data("sonic", {"hash": every}))
    db = json.loads(_config(files, "p1-s1-rail0", "config_db.json"))
    assert db["SWITCH_HASH"]["GLOBAL"]["ecmp_hash"] == [
        "SRC_IP", "DST_IP", "IP_PROTOCOL", "L4_SRC_PORT", "L4_DST_PORT", "IPV6_FLOW_LABEL", "IN_PORT"]
    assert [str(p) for p in check_configs({"p1-s1-rail0": db}, yang_models)] == []
    db["SWITCH_HASH"]["GLOBAL"]["ecmp_hash"].append("BTH_DEST_QP")  # no such hash-field: the model refuses it
    assert check_configs({"p1-s1-rail0": db}, yang_models) != []


# --------------------------------------------------------------------------- NVUE

HASH3 = ["src_ip", "dst_ip", "l4_src_port"]


@pytest.mark.parametrize(("release", "on", "off"), [("5.9", "on", "off"), ("5.14", "on", "off"),
                                                    ("5.15", "enabled", "disabled"), ("5.18", "enabled", "disabled")])
def test_nvue_ecmp_hash_leaves(tmp_path: Path, release: str, on: str, off: str) -> None:
    data = _data("nvue", {"hash": HASH3})
    data["fabric"]["releases"] = {"nvue": release}
    files = _files(tmp_path, data)  # and NVIDIA's schema of that release accepts it
    tree = safe_yaml.load(_config(files, "p1-spine1", "startup.yaml"))[0]["set"]
    assert tree["system"]["forwarding"] == {"ecmp-hash": {
        "source-ip": on, "destination-ip": on, "source-port": on,
        "ip-protocol": off, "destination-port": off, "ipv6-label": off, "ingress-interface": off}}


def test_nvue_adaptive_routing_threshold(tmp_path: Path) -> None:
    """mode packet with a 50 % threshold: each routed fabric port of adaptive routing carries it, and the global
    switch turns per-port thresholds on. A rail switch's 2 uplinks are its only routed ports."""
    files = _files(tmp_path, _data("nvue", {"mode": "packet", "link_utilization_threshold": 50}))
    tree = safe_yaml.load(_config(files, "p1-s1-rail0", "startup.yaml"))[0]["set"]
    ar = {name: i["router"]["adaptive-routing"] for name, i in tree["interface"].items()
          if "adaptive-routing" in i.get("router", {})}
    assert len(ar) == 2 and all(v == {"enable": "on", "link-utilization-threshold": 50} for v in ar.values())
    assert tree["router"]["adaptive-routing"] == {"enable": "on", "link-utilization-threshold": "on"}


def test_nvue_adaptive_routing_without_threshold_is_unchanged(tmp_path: Path) -> None:
    files = _files(tmp_path, _data("nvue", {"mode": "packet"}))
    tree = safe_yaml.load(_config(files, "p1-s1-rail0", "startup.yaml"))[0]["set"]
    assert tree["router"]["adaptive-routing"] == {"enable": "on"}
    assert "forwarding" not in tree["system"]


# --------------------------------------------------------------------------- EOS

DYNAMIC = "ip hardware fib load-balance distribution dynamic"


def test_eos_flowlet_is_dynamic_load_balancing(tmp_path: Path) -> None:
    files = _files(tmp_path, _data("eos", {"mode": "flowlet"}))
    for host in SWITCHES:
        assert _config(files, host, "running-config.cfg").splitlines().count(DYNAMIC) == 1
    flow = _files(tmp_path / "flow", _data("eos", {}))
    assert DYNAMIC not in _config(flow, "p1-s1-rail0", "running-config.cfg")


@pytest.mark.parametrize(("ecmp", "code"), [
    ({"hash": HASH3}, "PLAT053"),  # EOS hash forms differ per ASIC family: not rendered
    ({"mode": "flowlet", "flowlet_inactivity_us": 256}, "PLAT055"),  # no inactivity form
    ({"mode": "packet"}, "PLAT001"),  # randomized load balancing: lines not confirmed
])
def test_eos_refusals(tmp_path: Path, ecmp: dict[str, Any], code: str) -> None:
    assert code in _errors(run_data(tmp_path, _data("eos", ecmp)))


# --------------------------------------------------------------------------- Junos

JUNOS_FLOWLET = """forwarding-options {
    enhanced-hash-key {
        ecmp-dlb {
            flowlet {
                inactivity-interval 256;
            }
        }
        family inet {
            no-protocol;
            no-l4-destination-port;
        }
        family inet6 {
            no-next-header;
            no-l4-destination-port;
        }
    }
}
routing-options {"""


def test_junos_flowlet_interval_and_hash_exclusions(tmp_path: Path) -> None:
    files = _files(tmp_path, _data("junos", {"mode": "flowlet", "flowlet_inactivity_us": 256, "hash": HASH3}))
    for host in SWITCHES:
        assert JUNOS_FLOWLET in _config(files, host, "junos.conf")


@pytest.mark.parametrize(("ecmp", "block"), [
    ({"mode": "packet"}, "        ecmp-dlb {\n            per-packet;\n        }\n    }\n}\n"),
    ({"mode": "flowlet"}, "        ecmp-dlb {\n            flowlet;\n        }\n    }\n}\n"),
    # addresses only: the protocol and both ports excluded, no DLB
    ({"hash": ["src_ip", "dst_ip"]}, "    enhanced-hash-key {\n        family inet {\n            no-protocol;\n"
                                     "            no-l4-source-port;\n            no-l4-destination-port;\n"
                                     "        }\n"),
])
def test_junos_dlb_modes(tmp_path: Path, ecmp: dict[str, Any], block: str) -> None:
    assert block in _config(_files(tmp_path, _data("junos", ecmp)), "p1-s1-rail0", "junos.conf")


def test_junos_five_tuple_and_flow_write_nothing(tmp_path: Path) -> None:
    """The five-tuple is the QFX5000 default: nothing to exclude, no forwarding-options at all."""
    five = ["src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port"]
    for name, ecmp in (("five", {"hash": five}), ("none", {})):
        assert "forwarding-options" not in _config(_files(tmp_path / name, _data("junos", ecmp)), "p1-s1-rail0",
                                                   "junos.conf")


@pytest.mark.parametrize(("ecmp", "code"), [
    ({"hash": ["src_ip", "dst_ip", "l4_src_port", "ipv6_flow_label"]}, "PLAT053"),  # QFX10000 only
    ({"hash": ["src_ip", "l4_src_port", "ingress_port"]}, "PLAT053"),
    ({"mode": "packet", "link_utilization_threshold": 50}, "PLAT056"),  # NVUE's adaptive-routing knob
])
def test_junos_refusals(tmp_path: Path, ecmp: dict[str, Any], code: str) -> None:
    assert code in _errors(run_data(tmp_path, _data("junos", ecmp)))


# --------------------------------------------------------------------------- NX-OS


@pytest.mark.parametrize(("fields", "line"), [
    (["src_ip", "dst_ip"], "ip load-sharing address source-destination"),
    (["l4_dst_port", "src_ip", "l4_src_port", "dst_ip"], "ip load-sharing address source-destination port "
                                                          "source-destination"),
])
def test_nxos_load_sharing(tmp_path: Path, fields: list[str], line: str) -> None:
    files = _files(tmp_path, _data("nxos", {"hash": fields}))
    for host in SWITCHES:
        lines = _config(files, host, "running-config.cfg").splitlines()
        assert [x for x in lines if x.startswith("ip load-sharing")] == [line]
        assert lines.index(line) + 1 == next(i for i, x in enumerate(lines) if x.startswith("router bgp"))


@pytest.mark.parametrize(("ecmp", "code"), [
    ({"hash": ["src_ip", "l4_src_port"]}, "PLAT054"),  # one-sided forms not confirmed
    ({"hash": ["src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port"]}, "PLAT053"),
    ({"mode": "flowlet"}, "PLAT001"),  # Nexus DLB lines not confirmed
])
def test_nxos_refusals(tmp_path: Path, ecmp: dict[str, Any], code: str) -> None:
    assert code in _errors(run_data(tmp_path, _data("nxos", ecmp)))


# --------------------------------------------------------------------------- fabric-wide rules


def _line_of(tmp_path: Path, needle: str) -> int:
    text = (tmp_path / "inv" / "fabric.yml").read_text(encoding="utf-8")
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize(("ecmp", "key"), [
    ({"flowlet_inactivity_us": 256}, "flowlet_inactivity_us"),  # mode flow (the default)
    ({"mode": "flowlet", "link_utilization_threshold": 50}, "link_utilization_threshold"),
])
def test_lb001_option_without_its_mode(tmp_path: Path, ecmp: dict[str, Any], key: str) -> None:
    res = run_data(tmp_path, _data("junos", ecmp))
    [f] = [f for f in res.findings if f.code == "LB001"]
    assert f.severity is Severity.ERROR and f.hint
    assert f.location is not None and f.location.line == _line_of(tmp_path, key)


def test_lb002_empty_and_repeated_hash(tmp_path: Path) -> None:
    assert "LB002" in _errors(run_data(tmp_path / "a", _data("sonic", {"hash": []})))
    res = run_data(tmp_path / "b", _data("sonic", {"hash": ["src_ip", "l4_src_port", "src_ip"]}))
    [f] = [f for f in res.findings if f.code == "LB002"]
    assert "src_ip twice" in f.message


def test_lb003_hash_without_the_roce_source_port_warns_and_renders(tmp_path: Path) -> None:
    res = run_data(tmp_path, _data("sonic", {"hash": ["src_ip", "dst_ip", "l4_dst_port"]}))
    [f] = [f for f in res.findings if f.code == "LB003"]
    assert f.severity is Severity.WARNING and _errors(res) == []


def test_mixed_platforms_must_agree_on_the_flowlet_interval(tmp_path: Path) -> None:
    """Junos spines with an EOS segment: both run flowlet DLB, but only Junos sets the interval, so setting it is
    refused at the EOS segment's platform (PLAT055, an error: the tiers would split flowlets at different pauses);
    without the interval both render their flowlet form."""
    data = _data("junos", {"mode": "flowlet", "flowlet_inactivity_us": 512})
    data["pods"][0]["segments"][0]["platform"] = "eos"
    res = run_data(tmp_path / "a", data)
    [f] = [f for f in res.findings if f.code == "PLAT055"]
    assert "eos (used at pods.0.segments.0.platform)" in f.message
    del data["routing"]["ecmp"]["flowlet_inactivity_us"]
    files = _files(tmp_path / "b", data)
    assert DYNAMIC in _config(files, "p1-s1-rail0", "running-config.cfg").splitlines()
    assert "ecmp-dlb {\n            flowlet;\n" in _config(files, "p1-spine1", "junos.conf")


def test_per_packet_dlb_needs_hosts_that_take_reordering(tmp_path: Path) -> None:
    """Junos per-packet DLB sprays like NVUE adaptive routing (HOST007); flowlet does not reorder (no finding)."""
    data = _data("junos", {"mode": "packet"})
    data["host_models"]["h2"]["accepts_out_of_order"] = False
    assert "HOST007" in _errors(run_data(tmp_path / "a", data))
    data["routing"]["ecmp"]["mode"] = "flowlet"
    assert "HOST007" not in [f.code for f in run_data(tmp_path / "b", data).findings]


# --------------------------------------------------------------------------- fabric verify (load-balancing)


def _rendered(tmp_path: Path, data: dict[str, Any]) -> Path:
    from railfabric.cli import main

    assert _errors(run_data(tmp_path, data)) == []
    assert main(["render", str(tmp_path / "inv"), "--out", str(tmp_path / "out"), "-q"]) == 0
    return tmp_path / "out"


def _lb_failures(out: Path) -> list[tuple[str, str, str, str, str]]:
    from railfabric.verify.run import verify

    return [(f.device, f.subject, f.expected, f.found, f.file) for f in verify(out, frr_parser=False).failures
            if f.check == "load-balancing"]


def test_verify_reads_one_mode_across_a_mixed_fabric_and_names_the_odd_switch(tmp_path: Path) -> None:
    """Junos spines and an EOS segment, both flowlet: verify reads flowlet from `ecmp-dlb { flowlet; }` and from
    EOS's dynamic distribution, and agrees; with p1-s1-rail1's EOS line removed, that switch alone runs flow."""
    data = _data("junos", {"mode": "flowlet"})
    data["pods"][0]["segments"][0]["platform"] = "eos"
    out = _rendered(tmp_path, data)
    assert _lb_failures(out) == []
    cfg = out / "configs" / "p1-s1-rail1" / "running-config.cfg"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace(DYNAMIC + "\n", ""), encoding="utf-8")
    assert _lb_failures(out) == [("p1-s1-rail1", "ecmp mode", "flowlet as most of the fabric", "flow",
                                  "configs/p1-s1-rail1/running-config.cfg")]


def test_verify_reads_the_hash_fields_back(tmp_path: Path) -> None:
    """SONiC spines and an NVUE segment hashing src_ip, dst_ip, l4_src_port: both read back as those three; turning
    destination-port on in one NVUE file makes that switch the odd one (4 fields against the fabric's 3)."""
    data = _data("sonic", {"hash": HASH3})
    data["pods"][0]["segments"][0]["platform"] = "nvue"
    out = _rendered(tmp_path, data)
    assert _lb_failures(out) == []
    cfg = out / "configs" / "p1-s1-rail0" / "startup.yaml"
    text = cfg.read_text(encoding="utf-8")
    assert text.count("destination-port: 'off'") == 1
    cfg.write_text(text.replace("destination-port: 'off'", "destination-port: 'on'"), encoding="utf-8")
    assert _lb_failures(out) == [("p1-s1-rail0", "ecmp hash", "dst_ip, l4_src_port, src_ip as most of the fabric",
                                  "dst_ip, l4_dst_port, l4_src_port, src_ip", "configs/p1-s1-rail0/startup.yaml")]


def test_verify_reads_junos_exclusions_and_nxos_load_sharing(tmp_path: Path) -> None:
    """Junos rail switches excluding the protocol (four fields left) under NX-OS spines with `ip load-sharing
    address source-destination port source-destination` (the same four): one hash across the fabric."""
    data = _data("nxos", {"hash": ["src_ip", "dst_ip", "l4_src_port", "l4_dst_port"]})
    data["pods"][0]["segments"][0]["platform"] = "junos"
    out = _rendered(tmp_path, data)
    assert "no-protocol;" in (out / "configs" / "p1-s1-rail0" / "junos.conf").read_text(encoding="utf-8")
    assert _lb_failures(out) == []
    cfg = out / "configs" / "p1-spine2" / "running-config.cfg"
    text = cfg.read_text(encoding="utf-8")
    cfg.write_text(text.replace(" port source-destination\n", "\n", 1), encoding="utf-8")
    assert _lb_failures(out) == [("p1-spine2", "ecmp hash", "dst_ip, l4_dst_port, l4_src_port, src_ip as most of the "
                                  "fabric", "dst_ip, src_ip", "configs/p1-spine2/running-config.cfg")]


@pytest.mark.parametrize(("mode", "refused"), [("flowlet", True), ("packet", True), ("flow", False)])
def test_junos_dlb_refuses_port_channel_members(tmp_path: Path, mode: str, refused: bool) -> None:
    """Bundled rail-spine links (2 links per rail switch and spine, as port-channels of 2): Junos DLB does not run
    with a LAG among the ECMP members (PLAT057, once per platform and pod)."""
    data = _data("junos", {"mode": mode})
    data["pods"][0]["spines"] |= {"links_per_rail_switch": 2, "port_channel_members": 2}
    found = [f for f in run_data(tmp_path, data).findings if f.code == "PLAT057"]
    assert len(found) == (1 if refused else 0)
