"""The escape hatch (`raw:`, railfabric/inventory/intent_raw.py): placement on every platform, merge order, the
override warnings, the hostile inputs, parse-back by `fabric verify` and the vendor validators.

The fabric is tests/test_all_platforms.py's: spine 1 SONiC, spine 2 EOS, and one segment per platform in the
registry's order (segment 1 EOS, 2 Junos, 3 NVUE, 4 NX-OS, 5 SONiC), each with rail switches p1-sN-rail0 and
p1-sN-rail1. Every expected line below is written from the blocks of RAW and the placement rules of
docs/underlay.md, not copied from a rendering.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from railfabric.cli import main
from railfabric.core.config_tree import (
    cli_statements,
    data_overrides,
    ending_lines,
    junos_statements,
    merge,
    overrides,
)
from railfabric.core.finding import Severity
from railfabric.emit.build import build_files
from railfabric.verify import verify
from railfabric.verify.frr import have_vtysh
from railfabric.verify.raw import merged_sections, text_blocks
from tests.helpers import base_inventory, dump, run_data, with_system, write_files
from tests.test_all_platforms import every_platform_inventory
from tests.vendor_schemas import vendor_schema_problems

FRR_LINE = "ip prefix-list RAW-EXTRA seq 5 permit 10.99.0.0/16"
JUNOS_LLDP = "protocols {\n    lldp {\n        interface all;\n    }\n}\n"
# listed most specific first: the merge order (fabric, role, pod, segment, device, then list order) must re-sort them
RAW: list[dict[str, Any]] = [
    {"name": "eos-device", "platform": "eos", "devices": ["p1-s1-rail0"], "text": "lldp timer 7\n"},
    {"name": "eos-role", "platform": "eos", "roles": ["rail"], "text": "lldp timer reinitialization 3\n"},
    {"name": "eos-fabric", "platform": "eos", "text": "lldp hold-time 120\nsnmp-server contact {{ 7*7 }}\n\n"},
    {"name": "nxos-seg", "platform": "nxos", "segments": ["1/4"], "text": "lldp holdtime 150\n"},
    {"name": "junos-pod", "platform": "junos", "pods": [1], "text": JUNOS_LLDP},
    {"name": "frr-fabric", "platform": "sonic", "text": FRR_LINE + "\n"},
    {"name": "sonic-data", "platform": "sonic", "data": {"SYSLOG_SERVER": {"10.9.9.9": {"port": 514}}}},
    {"name": "nvue-data", "platform": "nvue", "devices": ["p1-s3-*"],
     "data": {"service": {"lldp": {"tx-interval": 10}}}},
]


def raw_inventory(raw: list[dict[str, Any]]) -> dict[str, Any]:
    inv = every_platform_inventory()
    inv["raw"] = copy.deepcopy(raw)
    return inv


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("raw")
    write_files(base / "inv", {"fabric.yml": dump(raw_inventory(RAW))})
    assert main(["render", str(base / "inv"), "--out", str(base / "out"), "-q"]) == 0
    return base / "out"


def tail(out: Path, device: str, file: str, n: int) -> list[str]:
    return (out / "configs" / device / file).read_text(encoding="utf-8").split("\n")[-n - 1:-1]


# --------------------------------------------------------------------------- placement, per platform


def test_eos_blocks_end_the_file_in_merge_order_before_end(rendered: Path) -> None:
    # p1-s1-rail0 (EOS rail switch, segment 1): eos-fabric (fabric), eos-role (role: rail), eos-device (device);
    # each between its markers; the text's trailing blank line is dropped; the file's own `end` closes it
    assert tail(rendered, "p1-s1-rail0", "running-config.cfg", 11) == [
        "! railfabric raw eos-fabric (fabric): begin",
        "lldp hold-time 120",
        "snmp-server contact {{ 7*7 }}",  # data, never a template: printed as written
        "! railfabric raw eos-fabric: end",
        "! railfabric raw eos-role (role): begin",
        "lldp timer reinitialization 3",
        "! railfabric raw eos-role: end",
        "! railfabric raw eos-device (device): begin",
        "lldp timer 7",
        "! railfabric raw eos-device: end",
        "end",
    ]
    # the EOS spine p1-spine2 is no rail switch and not p1-s1-rail0: the fabric-wide block only
    assert tail(rendered, "p1-spine2", "running-config.cfg", 5) == [
        "! railfabric raw eos-fabric (fabric): begin", "lldp hold-time 120", "snmp-server contact {{ 7*7 }}",
        "! railfabric raw eos-fabric: end", "end"]


def test_nxos_block_ends_the_file(rendered: Path) -> None:
    for name in ("p1-s4-rail0", "p1-s4-rail1"):  # segment 4 is NX-OS
        assert tail(rendered, name, "running-config.cfg", 3) == [
            "!railfabric raw nxos-seg (segment): begin", "lldp holdtime 150", "!railfabric raw nxos-seg: end"]


def test_junos_block_is_a_top_level_hierarchy_at_the_end(rendered: Path) -> None:
    assert tail(rendered, "p1-s2-rail0", "junos.conf", 7) == [
        "/* railfabric raw junos-pod (pod): begin */", "protocols {", "    lldp {", "        interface all;", "    }",
        "}", "/* railfabric raw junos-pod: end */"]
    text = (rendered / "configs/p1-s2-rail0/junos.conf").read_text(encoding="utf-8")
    junos_statements(text)  # the whole file still closes every brace


def test_sonic_text_goes_to_frr_conf_after_router_bgp(rendered: Path) -> None:
    for name in ("p1-spine1", "p1-s5-rail0", "p1-s5-rail1"):  # every SONiC switch
        assert tail(rendered, name, "frr.conf", 6) == [
            "exit", "!", "! railfabric raw frr-fabric (fabric): begin", FRR_LINE,
            "! railfabric raw frr-fabric: end", "!"]
    assert "railfabric raw" not in (rendered / "configs/p1-s5-rail0/config_db.json").read_text(encoding="utf-8")


def test_sonic_data_merges_into_config_db_as_text(rendered: Path) -> None:
    db = json.loads((rendered / "configs/p1-s5-rail0/config_db.json").read_text(encoding="utf-8"))
    assert db["SYSLOG_SERVER"] == {"10.9.9.9": {"port": "514"}}  # CONFIG_DB values are strings: 514 → "514"
    assert db["DEVICE_METADATA"]["localhost"]["hostname"] == "p1-s5-rail0"  # the rest untouched


def test_nvue_data_merges_into_the_set_tree(rendered: Path) -> None:
    doc = yaml.safe_load((rendered / "configs/p1-s3-rail1/startup.yaml").read_text(encoding="utf-8"))
    assert doc[0]["set"]["service"]["lldp"] == {"tx-interval": 10}
    assert doc[0]["set"]["system"]["hostname"] == "p1-s3-rail1"


def test_switches_without_blocks_are_unchanged(tmp_path: Path) -> None:
    """A block renders only where it applies: the NVUE, Junos and NX-OS files without raw blocks are byte for byte
    those of the fabric without `raw:`."""
    plain = build_files(run_data(tmp_path / "a", every_platform_inventory()))
    only_eos = build_files(run_data(tmp_path / "b", raw_inventory(RAW[:3])))
    differ = sorted(p for p in plain if p.startswith("configs/") and plain[p] != only_eos[p])
    # the EOS blocks land on the three EOS switches' running-config.cfg and nowhere else
    assert differ == ["configs/p1-s1-rail0/running-config.cfg", "configs/p1-s1-rail1/running-config.cfg",
                      "configs/p1-spine2/running-config.cfg"]


def test_host_vars_name_the_text_blocks_and_the_merged_data(rendered: Path) -> None:
    hv = yaml.safe_load((rendered / "ansible/host_vars/p1-s1-rail0.yml").read_text(encoding="utf-8"))
    assert hv["raw_text"] == ["eos-fabric", "eos-role", "eos-device"]
    assert "raw_data" not in hv
    hv = yaml.safe_load((rendered / "ansible/host_vars/p1-s5-rail0.yml").read_text(encoding="utf-8"))
    assert hv["raw_text"] == ["frr-fabric"]
    assert hv["raw_data"] == {"SYSLOG_SERVER": {"10.9.9.9": {"port": "514"}}}


# --------------------------------------------------------------------------- verify reads them back


def test_verify_reads_every_platform_with_raw_blocks(rendered: Path) -> None:
    result = verify(rendered)
    assert result.failures == []
    # text blocks: p1-spine2 1 (2 lines), p1-s1-rail0 3 (2+1+1), p1-s1-rail1 2 (2+1), Junos 2 × 5 lines, NX-OS
    # 2 × 1, SONiC 3 × 1: 13 blocks, 24 lines; data: SONiC 3 × 1 value, NVUE 2 × 1: 5; 3+2+2+3+2 = 12 devices
    assert "raw configuration: 24 line(s) of 13 text block(s) and 5 data value(s) found in 12 device(s)" \
        in result.notes
    assert (result.counts["raw_lines"], result.counts["raw_values"]) == (24, 5)
    if have_vtysh():  # FRR's own parser read the three frr.conf files with their raw line
        assert "FRR's parser (vtysh -C) read 3 frr.conf file(s)" in result.notes


def test_frr_parser_reads_the_raw_lines(tmp_path: Path) -> None:
    if not have_vtysh():
        pytest.skip("vtysh (FRR) is not installed")
    write_files(tmp_path / "inv", {"fabric.yml": dump(raw_inventory(
        [{"name": "frr-bad", "platform": "sonic", "devices": ["p1-s5-rail0"], "text": "no such frr command\n"}]))})
    assert main(["render", str(tmp_path / "inv"), "--out", str(tmp_path / "out"), "-q"]) == 0
    failures = [f for f in verify(tmp_path / "out").failures if f.check == "frr-parse"]
    assert {(f.device, f.subject) for f in failures} == {("p1-s5-rail0", "frr.conf")}
    assert any("no such frr command" in f.found for f in failures), [f.found for f in failures]


def test_verify_fails_a_lost_marker_and_a_changed_value(rendered: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    shutil.copytree(rendered, out)
    eos = out / "configs/p1-s1-rail1/running-config.cfg"
    eos.write_text(eos.read_text(encoding="utf-8").replace("! railfabric raw eos-role: end\n", ""),
                   encoding="utf-8")
    db = out / "configs/p1-s5-rail1/config_db.json"
    db.write_text(db.read_text(encoding="utf-8").replace('"port": "514"', '"port": "515"'), encoding="utf-8")
    lines = sorted(f.line() for f in verify(out).failures if f.check == "raw")
    assert lines == [
        "p1-s1-rail1 running-config.cfg: expected raw block markers that pair, found raw block eos-role has no "
        "end marker (configs/p1-s1-rail1/running-config.cfg)",
        "p1-s5-rail1 raw data SYSLOG_SERVER.10.9.9.9.port: expected '514', found '515' "
        "(configs/p1-s5-rail1/config_db.json)"]


def test_vendor_validators_read_the_raw_data(tmp_path: Path) -> None:
    """NVIDIA's schema checks the merged tree: a valid raw path passes (the fixture's verify), a path the schema
    does not have is refused where it lands."""
    bad = [{"name": "nvue-bad", "platform": "nvue", "data": {"service": {"lldp": {"no-such-knob": 1}}}}]
    files = build_files(run_data(tmp_path, raw_inventory(bad)))
    problems = vendor_schema_problems(files)
    assert problems and all("startup.yaml" in p for p in problems)
    assert any("no-such-knob" in p for p in problems)


def test_sonic_yang_accepts_raw_data(rendered: Path, yang_models: Path) -> None:
    from railfabric.verify.sonic_yang.check import check_configs

    configs = {n: json.loads((rendered / f"configs/{n}/config_db.json").read_text(encoding="utf-8"))
               for n in ("p1-spine1", "p1-s5-rail0")}
    assert [str(p) for p in check_configs(configs, yang_models)] == []
    # the models read the raw rows: a port that is no number is refused where the raw block put it
    configs["p1-s5-rail0"]["SYSLOG_SERVER"]["10.9.9.9"]["port"] = "syslog"
    found = [str(p) for p in check_configs(configs, yang_models)]
    assert len(found) == 1 and "SYSLOG_SERVER" in found[0] and "p1-s5-rail0" in found[0]


# --------------------------------------------------------------------------- merge order of data


def test_a_later_level_wins_whatever_the_list_order(tmp_path: Path) -> None:
    inv = base_inventory()  # SONiC: p1-spine1, p1-spine2, p1-s1-rail0, p1-s1-rail1
    inv["raw"] = [
        {"name": "dev", "platform": "sonic", "devices": ["p1-s1-rail0"],
         "data": {"SYSLOG_SERVER": {"10.9.9.9": {"port": 1514}}}},
        {"name": "all", "platform": "sonic", "data": {"SYSLOG_SERVER": {"10.9.9.9": {"port": 514, "vrf": "mgmt"}}}},
    ]
    files = build_files(run_data(tmp_path, inv))
    own = json.loads(files["configs/p1-s1-rail0/config_db.json"])["SYSLOG_SERVER"]
    other = json.loads(files["configs/p1-s1-rail1/config_db.json"])["SYSLOG_SERVER"]
    # fabric first (port 514, vrf mgmt), then the device block replaces the port field only
    assert own == {"10.9.9.9": {"port": "1514", "vrf": "mgmt"}}
    assert other == {"10.9.9.9": {"port": "514", "vrf": "mgmt"}}


# --------------------------------------------------------------------------- findings


def _findings(tmp_path: Path, raw: list[dict[str, Any]], platform: str = "sonic", text: str | None = None
              ) -> list[tuple[str, str, Severity]]:
    inv = with_system(base_inventory())
    inv["fabric"]["platform"] = platform
    if platform == "nxos":
        inv["system"]["syslog"] = []
    inv["raw"] = raw
    if text is not None:  # YAML written by hand (escapes the dumper would not write)
        res_dir = write_files(tmp_path / "inv", {"fabric.yml": dump(inv).replace("RAWTEXT", text)})
        from railfabric.pipeline import run

        res = run(res_dir)
    else:
        res = run_data(tmp_path, inv)
    return [(f.code, f.message, f.severity) for f in res.findings if f.code.startswith(("RAW", "SCH"))]


def _codes(found: list[tuple[str, str, Severity]]) -> list[str]:
    return [c for c, _m, _s in found]


@pytest.mark.parametrize(("escape", "shown"), [("\\e", "U+001B"), ("\\r", "U+000D"), ("\\0", "U+0000"),
                                               ("\\x7f", "U+007F"), ("\\u2028", "U+2028")])
def test_control_characters_are_refused(tmp_path: Path, escape: str, shown: str) -> None:
    raw = [{"name": "x", "platform": "sonic", "text": "RAWTEXT"}]
    found = _findings(tmp_path, raw, text=f'"ip prefix-list A seq 5 permit 10.0.0.0/8\\nhostname b{escape}"')
    assert found == [("RAW001", f"raw text line 2 contains control character {shown}", Severity.ERROR)]


def test_tabs_and_newlines_are_allowed(tmp_path: Path) -> None:
    raw = [{"name": "x", "platform": "eos", "text": "interface Ethernet1/1\n\tdescription raw\n"}]
    assert _codes(_findings(tmp_path, raw, platform="eos")) == []


def test_size_limits(tmp_path: Path) -> None:
    big = [{"name": "big", "platform": "eos", "text": "x\n" * 40_000}]  # 80,000 bytes > 65,536
    assert [(c, m) for c, m, _s in _findings(tmp_path / "a", big, platform="eos")] == [
        ("RAW002", "raw block 'big' holds 80,000 bytes, above the limit of 65,536")]
    # five blocks of 60,000 bytes each fit one by one, not together on one switch: 300,000 > 262,144
    many = [{"name": f"b{i}", "platform": "eos", "devices": ["p1-s1-rail0"], "text": "x\n" * 30_000}
            for i in range(5)]
    found = _findings(tmp_path / "b", many, platform="eos")
    assert [(c, m) for c, m, _s in found] == [
        ("RAW003", "raw blocks b0, b1, b2, b3, b4 add 300,000 bytes to 1 switch(es) (p1-s1-rail0), above the "
                   "limit of 262,144")]


@pytest.mark.parametrize(("platform", "text", "line"), [
    ("eos", "lldp timer 5\nend\n", 2),  # EOS `end` leaves configuration mode
    ("eos", "router bgp 1\n   end\n", 2),  # in any mode
    ("eos", "lldp timer 5\nexit\n", 2),  # top-level exit
    ("nxos", "feature lldp\nend\n", 2),
    ("sonic", "router bgp 1\n end\n", 2),  # FRR `end` anywhere
    ("eos", "lldp timer 5\n! railfabric raw x: end\n", 2),  # would unpair the markers verify reads
])
def test_lines_that_end_the_configuration_are_refused(tmp_path: Path, platform: str, text: str, line: int) -> None:
    found = _findings(tmp_path, [{"name": "x", "platform": platform, "text": text}], platform=platform)
    assert _codes(found) == ["RAW005"]
    assert found[0][1].startswith(f"raw block 'x' line {line}: ")


def test_sub_mode_exits_are_allowed(tmp_path: Path) -> None:
    eos = [{"name": "x", "platform": "eos", "text": "router bgp 1\n   address-family ipv4\n   exit\n"}]
    assert _codes(_findings(tmp_path / "a", eos, platform="eos")) == []
    frr = [{"name": "x", "platform": "sonic", "text": "route-map RAW permit 10\nexit\n"}]  # FRR closes nodes so
    assert _codes(_findings(tmp_path / "b", frr)) == []


def test_unbalanced_junos_is_refused(tmp_path: Path) -> None:
    found = _findings(tmp_path, [{"name": "j", "platform": "junos", "text": "protocols {\n    lldp;\n"}],
                      platform="junos")
    assert [(c, m) for c, m, _s in found] == [
        ("RAW005", "raw block 'j' line 3: the text ends inside 'protocols {'")]


def test_form_must_fit_the_platform(tmp_path: Path) -> None:
    found = _findings(tmp_path / "a", [{"name": "t", "platform": "nvue", "text": "x\n"}], platform="nvue")
    assert [(c, m) for c, m, _s in found] == [
        ("RAW004", "raw block 't': Cumulus Linux (NVUE) takes no raw text (its raw data goes into startup.yaml)")]
    found = _findings(tmp_path / "b", [{"name": "d", "platform": "eos", "data": {"a": 1}}], platform="eos")
    assert _codes(found) == ["RAW004"]
    both = [{"name": "b", "platform": "sonic", "text": "x\n", "data": {"A": {"b": {"c": 1}}}}]
    assert _codes(_findings(tmp_path / "c", both)) == ["SCH003"]


@pytest.mark.parametrize(("platform", "data", "problem"), [
    ("nvue", {"service": {"lldp": None}}, "service.lldp is null"),
    ("nvue", {"service": {"lldp": {"tx-interval": 1.5}}}, "service.lldp.tx-interval is the number 1.5"),
    ("sonic", {"syslog_server": {"a": {"b": "c"}}},
     "'syslog_server' is not a CONFIG_DB table name (upper case letters, digits, '_')"),
    ("sonic", {"SYSLOG_SERVER": {"10.0.0.1": "x"}}, "row SYSLOG_SERVER|10.0.0.1 is not a mapping of fields"),
    ("sonic", {"SYSLOG_SERVER": {"10.0.0.1": {"port": {"x": 1}}}},
     "field SYSLOG_SERVER|10.0.0.1.port is not a value or a list of values"),
])
def test_data_types_and_shapes(tmp_path: Path, platform: str, data: dict, problem: str) -> None:
    found = _findings(tmp_path, [{"name": "d", "platform": platform, "data": data}], platform=platform)
    assert ("RAW006", f"raw block 'd': {problem}") in [(c, m) for c, m, _s in found]


def test_selectors_that_name_nothing(tmp_path: Path) -> None:
    raw = [{"name": "a", "platform": "sonic", "pods": [9], "text": "x\n"},
           {"name": "b", "platform": "sonic", "segments": ["1/9"], "text": "x\n"},
           {"name": "c", "platform": "sonic", "devices": ["nope", "p1-*-rail0"], "text": "x\n"},
           {"name": "d", "platform": "junos", "text": "x;\n"},  # a SONiC fabric has no Junos switch
           {"name": "d", "platform": "sonic", "text": "x\n"}]
    found = [(c, m) for c, m, _s in _findings(tmp_path, raw)]
    assert found == [
        ("RAW007", "raw block 'a' names pod 9, which the fabric does not have"),
        ("RAW007", "raw block 'b' names segment 1/9, which the fabric does not have"),
        ("RAW007", "raw block 'c' names device 'nope', which matches no switch"),
        ("RAW008", "raw block 'd' applies to no switch: none of the switches it selects runs junos"),
        ("SCH003", "raw[4].name: raw block name 'd' is already raw[3]'s"),
    ]


def test_bad_input_leaves_the_output_untouched(tmp_path: Path) -> None:
    inv = base_inventory()
    inv["raw"] = [{"name": "x", "platform": "sonic", "text": "end\n"}]
    write_files(tmp_path / "inv", {"fabric.yml": dump(inv)})
    assert main(["render", str(tmp_path / "inv"), "--out", str(tmp_path / "out"), "-q"]) == 1
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- override warnings (RAW009)


@pytest.mark.parametrize(("platform", "block", "message"), [
    # EOS host port Ethernet1/1: fabric mtu 9216 normalised to EOS's 9214
    ("eos", {"devices": ["p1-s1-rail0"], "text": "interface Ethernet1/1\n   mtu 1500\n"},
     "raw block 'x' line 2 `interface Ethernet1/1 > mtu 1500` replaces the managed `interface Ethernet1/1 > mtu "
     "9214` on p1-s1-rail0"),
    ("nxos", {"devices": ["p1-s1-rail0"], "text": "hostname other\n"},
     "raw block 'x' line 1 `hostname other` replaces the managed `hostname p1-s1-rail0` on p1-s1-rail0"),
    ("junos", {"devices": ["p1-s1-rail0"], "text": "system {\n    host-name other;\n}\n"},
     "raw block 'x' line 2 `system > host-name other` replaces the managed `system > host-name p1-s1-rail0` on "
     "p1-s1-rail0"),
    ("sonic", {"devices": ["p1-s1-rail0"], "text": "hostname other\n"},
     "raw block 'x' line 1 `hostname other` replaces the managed `hostname p1-s1-rail0` on p1-s1-rail0"),
    ("sonic", {"devices": ["p1-s1-rail0"], "data": {"DEVICE_METADATA": {"localhost": {"hostname": "other"}}}},
     "raw block 'x' sets DEVICE_METADATA.localhost.hostname to 'other' where config_db.json has 'p1-s1-rail0' on "
     "p1-s1-rail0"),
    ("nvue", {"devices": ["p1-s1-rail0"], "data": {"system": {"hostname": "other"}}},
     "raw block 'x' sets system.hostname to 'other' where startup.yaml has 'p1-s1-rail0' on p1-s1-rail0"),
])
def test_a_raw_value_replacing_a_managed_one_is_a_warning(tmp_path: Path, platform: str, block: dict,
                                                           message: str) -> None:
    found = _findings(tmp_path, [{"name": "x", "platform": platform, **block}], platform=platform)
    assert found == [("RAW009", message, Severity.WARNING)]


def test_one_warning_for_a_fabric_wide_override(tmp_path: Path) -> None:
    raw = [{"name": "x", "platform": "sonic", "text": "hostname other\n"}]
    found = _findings(tmp_path, raw)  # 4 SONiC switches: 2 spines, 2 rail switches
    assert _codes(found) == ["RAW009"]
    assert found[0][1].endswith("(and on 3 more switch(es))")


def test_additions_are_no_override(tmp_path: Path) -> None:
    raw = [{"name": "x", "platform": "eos", "text": "lldp timer 5\ninterface Ethernet1/1\n   lldp transmit\n"}]
    assert _codes(_findings(tmp_path, raw, platform="eos")) == []


# --------------------------------------------------------------------------- the hierarchy readers


def test_cli_statements_follow_indentation() -> None:
    text = "! c\ninterface Ethernet1\n   mtu 9214\n   exit\nrouter bgp 1\n   neighbor A peer group\n"
    assert cli_statements(text) == [
        ((), ("interface", "Ethernet1"), 2), (("interface Ethernet1",), ("mtu", "9214"), 3),
        ((), ("router", "bgp", "1"), 5), (("router bgp 1",), ("neighbor", "A", "peer", "group"), 6)]


def test_junos_statements_and_their_errors() -> None:
    text = 'system {\n    host-name "a b";\n    /* c */\n    services { ssh; }\n}\nx [ a b ];\n'
    assert junos_statements(text) == [
        ((), ("system",), 1), (("system",), ("host-name", "a b"), 2), (("system",), ("services",), 4),
        (("system", "services"), ("ssh",), 4), ((), ("x", "a", "b"), 6)]
    assert ending_lines("a {\n}\n}\n", "junos") == [(3, "'}' without '{'")]
    assert ending_lines('a "b;\n', "junos") == [(1, "a quoted string or /* comment that does not close")]


def test_overrides_rules() -> None:
    managed = cli_statements("interface E1\n   mtu 9214\n   shutdown\nntp server 1.1.1.1\nntp server 2.2.2.2\n"
                             "hostname a\n")
    raw = cli_statements("interface E1\n   mtu 1500\n   no shutdown\nntp server 3.3.3.3\nhostname a\n"
                         "interface E2\n   mtu 1500\n")
    # mtu: one managed value, replaced; `no shutdown` negates a managed statement; NTP servers are a list (two
    # managed): not flagged; the same hostname: no change; E2 is not managed
    assert overrides(managed, raw) == [(2, "interface E1 > mtu 1500", "interface E1 > mtu 9214"),
                                       (3, "interface E1 > no shutdown", "interface E1 > shutdown")]


def test_data_overrides_and_merge() -> None:
    managed = {"A": {"k": {"f": "1", "g": "2"}}, "B": {"x": "y"}}
    raw = {"A": {"k": {"f": "1", "g": "3", "h": "4"}}, "B": {"x": {"deeper": "z"}}, "C": {}}
    assert data_overrides(managed, raw) == [(("A", "k", "g"), "3", "2"), (("B", "x", "deeper"), "z", "B.x = y")]
    assert merge(copy.deepcopy(managed), raw) == {"A": {"k": {"f": "1", "g": "3", "h": "4"}},
                                                  "B": {"x": {"deeper": "z"}}, "C": {}}


def test_verify_merges_reopened_sections_and_keeps_banners() -> None:
    text = ("banner login\nline one\n!\nEOF\ninterface E1\n   mtu 9214\n! railfabric raw x (fabric): begin\n"
            "interface E1\n   description raw\n! railfabric raw x: end\n")
    assert merged_sections(text) == ("banner login\nline one\n!\nEOF\ninterface E1\n   mtu 9214\n"
                                     "   description raw\n")
    assert text_blocks(text) == ({"x": 2}, [])


# --------------------------------------------------------------------------- plan and show


def test_plan_lists_the_blocks_in_merge_order(rendered: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                              ) -> None:
    raw = copy.deepcopy(RAW)
    raw[0]["text"] = "lldp timer 8\n"  # a change, so the plan validates the inventory
    write_files(tmp_path / "inv", {"fabric.yml": dump(raw_inventory(raw))})
    capsys.readouterr()
    assert main(["plan", str(tmp_path / "inv"), "--out", str(rendered), "-q"]) == 0
    out = capsys.readouterr().out.split("\n")
    at = out.index("Raw configuration: 8 block(s), in merge order:")
    # fabric (list order 2, 5, 6), role, pod, segment, device (0, 7); switches in topology order (spines first)
    assert out[at + 1:at + 9] == [
        "  raw eos-fabric (fabric, eos): running-config.cfg 2 line(s) on 3 switch(es): p1-spine2, p1-s1-rail0, "
        "p1-s1-rail1",
        "  raw frr-fabric (fabric, sonic): frr.conf 1 line(s) on 3 switch(es): p1-spine1, p1-s5-rail0, p1-s5-rail1",
        "  raw sonic-data (fabric, sonic): config_db.json 1 value(s) on 3 switch(es): p1-spine1, p1-s5-rail0, "
        "p1-s5-rail1",
        "  raw eos-role (role, eos): running-config.cfg 1 line(s) on 2 switch(es): p1-s1-rail0, p1-s1-rail1",
        "  raw junos-pod (pod, junos): junos.conf 5 line(s) on 2 switch(es): p1-s2-rail0, p1-s2-rail1",
        "  raw nxos-seg (segment, nxos): running-config.cfg 1 line(s) on 2 switch(es): p1-s4-rail0, p1-s4-rail1",
        "  raw eos-device (device, eos): running-config.cfg 1 line(s) on 1 switch(es): p1-s1-rail0",
        "  raw nvue-data (device, nvue): startup.yaml 1 value(s) on 2 switch(es): p1-s3-rail0, p1-s3-rail1"]
    assert "  ~ p1-s1-rail0: running-config.cfg (+1 -1)" in out  # the changed line, and only on its switch


def test_show_lists_a_switchs_blocks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_files(tmp_path / "inv", {"fabric.yml": dump(raw_inventory(RAW))})
    assert main(["show", "p1-s1-rail0", str(tmp_path / "inv")]) == 0
    shown = [line for line in capsys.readouterr().out.split("\n") if line.startswith("  raw ")]
    assert shown == ["  raw        eos-fabric (fabric): running-config.cfg 2 line(s)",
                     "  raw        eos-role (role): running-config.cfg 1 line(s)",
                     "  raw        eos-device (device): running-config.cfg 1 line(s)"]
