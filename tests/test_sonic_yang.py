"""fabric sonic-yang: config_db.json -> YANG instance document (sonic-yang-mgmt's mapping), validated by yanglint.

The translation tests run everywhere on a hand-written model tree. The validation tests need libyang's yanglint and
SONiC's YANG models (env SONIC_YANG_MODELS, or exported at test time from a sonic-buildimage git dir at
railfabric.verify.sonic_yang.models.MIRROR); without them they are skipped with the reason.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from railfabric.verify.sonic_yang import models as model_source
from railfabric.verify.sonic_yang.check import check_configs, cmd_sonic_yang
from railfabric.verify.sonic_yang.schema import Schema, Table, parse_tree
from railfabric.verify.sonic_yang.translate import Problem, to_xml, translate
from railfabric.verify.sonic_yang.yanglint import LintError, parse_errors

ROOT = Path(__file__).resolve().parent.parent

# A model tree in `yanglint -f tree` form, cut down from SONiC's sonic-port, sonic-interface, sonic-device_metadata
# and sonic-dscp-tc-map (same node kinds, names and keys).
TREE = """\
module: sonic-port
  +--rw sonic-port
     +--rw PORT
        +--rw PORT_LIST* [name]
           +--rw name          string
           +--rw lanes         string
           +--rw speed         uint32
           +--rw adv_speeds*   union
           +--rw mtu?          uint16
           +--rw fec?          string

module: sonic-interface
  +--rw sonic-interface
     +--rw INTERFACE
        +--rw INTERFACE_LIST* [name]
        |  +--rw name        -> /port:sonic-port/port:PORT/port:PORT_LIST/port:name
        |  +--rw vrf_name?   string
        +--rw INTERFACE_IPPREFIX_LIST* [name ip-prefix]
           +--rw name         -> /port:sonic-port/port:PORT/port:PORT_LIST/port:name
           +--rw ip-prefix    union
           +--rw (family-choice)?
              +--:(v4)
                 +--rw family?      stypes:ip-family

module: sonic-device_metadata
  +--rw sonic-device_metadata
     +--rw DEVICE_METADATA
        +--rw localhost
           +--rw hostname?   stypes:hostname
           +--rw t2_group_asns*   inet:as-number

module: sonic-dscp-tc-map
  +--rw sonic-dscp-tc-map
     +--rw DSCP_TO_TC_MAP
        +--rw DSCP_TO_TC_MAP_LIST* [name]
           +--rw name    string
           +--rw DSCP_TO_TC_MAP* [dscp]
              +--rw dscp    string
              +--rw tc?     stypes:tc_type

  rpcs:
    +---x get-something
       +--ro output
          +--ro THING* [x]
"""
NS = {m: f"http://github.com/sonic-net/{m}" for m in
      ("sonic-port", "sonic-interface", "sonic-device_metadata", "sonic-dscp-tc-map")}


def small_schema() -> Schema:
    tops = parse_tree(TREE)
    tables = {t.name: Table(t.name, m, NS[m], t) for m, top in tops.items() for t in top.of_kind("container")}
    return Schema(tables, [])


def test_tree_parser_reads_tables_lists_keys_and_flattens_choices():
    tops = parse_tree(TREE)
    assert sorted(tops) == ["sonic-device_metadata", "sonic-dscp-tc-map", "sonic-interface", "sonic-port"]  # no rpc
    interface = tops["sonic-interface"].child("INTERFACE")
    assert [(n.name, n.kind, n.keys) for n in interface.children] == [
        ("INTERFACE_LIST", "list", ("name",)), ("INTERFACE_IPPREFIX_LIST", "list", ("name", "ip-prefix"))]
    # the choice and its case are transparent: `family` is a leaf of the list itself
    assert [(n.name, n.kind) for n in interface.children[1].children] == [
        ("name", "leaf"), ("ip-prefix", "leaf"), ("family", "leaf")]
    port_list = tops["sonic-port"].child("PORT").child("PORT_LIST")
    assert port_list.child("adv_speeds").kind == "leaf-list"
    assert tops["sonic-device_metadata"].child("DEVICE_METADATA").child("localhost").kind == "container"


def test_translation_rows_keys_containers_and_maps_exact_xml():
    config = {
        "PORT": {"Ethernet0": {"speed": "400000", "lanes": "0,1,2,3", "fec": "rs", "adv_speeds": "100000,400000"}},
        # 1 key part -> INTERFACE_LIST; 2 parts -> INTERFACE_IPPREFIX_LIST (the first list whose key count fits)
        "INTERFACE": {"Ethernet0": {}, "Ethernet0|10.6.0.0/31": {}},
        "DEVICE_METADATA": {"localhost": {"hostname": "core-ss1", "t2_group_asns": ["65001", "65002"]}},
        "DSCP_TO_TC_MAP": {"AI_ROCE": {"26": "3", "0": "0"}},
    }
    tr = translate(config, small_schema())
    assert tr.problems == []
    xml, origins = to_xml(tr)
    # Modules sorted by name; keys first in key order, then fields in the model's order; PORT adv_speeds is one of
    # the fields SONiC stores as a comma-separated string (split into leaf-list entries); each field of a map row
    # becomes an entry of its inner list (field -> dscp, value -> tc).
    assert xml == """\
<sonic-device_metadata xmlns="http://github.com/sonic-net/sonic-device_metadata">
  <DEVICE_METADATA>
    <localhost>
      <hostname>core-ss1</hostname>
      <t2_group_asns>65001</t2_group_asns>
      <t2_group_asns>65002</t2_group_asns>
    </localhost>
  </DEVICE_METADATA>
</sonic-device_metadata>
<sonic-dscp-tc-map xmlns="http://github.com/sonic-net/sonic-dscp-tc-map">
  <DSCP_TO_TC_MAP>
    <DSCP_TO_TC_MAP_LIST>
      <name>AI_ROCE</name>
      <DSCP_TO_TC_MAP>
        <dscp>26</dscp>
        <tc>3</tc>
      </DSCP_TO_TC_MAP>
      <DSCP_TO_TC_MAP>
        <dscp>0</dscp>
        <tc>0</tc>
      </DSCP_TO_TC_MAP>
    </DSCP_TO_TC_MAP_LIST>
  </DSCP_TO_TC_MAP>
</sonic-dscp-tc-map>
<sonic-interface xmlns="http://github.com/sonic-net/sonic-interface">
  <INTERFACE>
    <INTERFACE_LIST>
      <name>Ethernet0</name>
    </INTERFACE_LIST>
    <INTERFACE_IPPREFIX_LIST>
      <name>Ethernet0</name>
      <ip-prefix>10.6.0.0/31</ip-prefix>
    </INTERFACE_IPPREFIX_LIST>
  </INTERFACE>
</sonic-interface>
<sonic-port xmlns="http://github.com/sonic-net/sonic-port">
  <PORT>
    <PORT_LIST>
      <name>Ethernet0</name>
      <lanes>0,1,2,3</lanes>
      <speed>400000</speed>
      <adv_speeds>100000</adv_speeds>
      <adv_speeds>400000</adv_speeds>
      <fec>rs</fec>
    </PORT_LIST>
  </PORT>
</sonic-port>
"""
    lines = xml.splitlines()
    assert origins[lines.index("      <fec>rs</fec>")] == ("PORT", "Ethernet0", "fec")
    assert origins[lines.index("        <tc>3</tc>")] == ("DSCP_TO_TC_MAP", "AI_ROCE", "26")


def test_translation_problems():
    config = {
        "RAILFABRIC_NOTES": {"x": {"a": "b"}},  # no model defines it
        "PORT": {"Ethernet0": {"lanes": "0", "speed": "1000", "fec_mode": "rs"},  # misspelt field
                 "Ethernet4|extra": {"lanes": "4"}},  # 2 key parts, PORT_LIST has 1 key
        "INTERFACE": {},  # empty
        "DEVICE_METADATA": {"localhost": {"t2_group_asns": "65001", "hostname": 7}},  # leaf-list as a string
    }
    tr = translate(config, small_schema())
    assert tr.problems == [
        Problem("YANG001", ("RAILFABRIC_NOTES",), "table has no YANG model; GCU (config replace/apply-patch) "
                                                  "refuses tables without one"),
        Problem("YANG003", ("PORT", "Ethernet0"), "field(s) 'fec_mode' not in the model (PORT_LIST)"),
        Problem("YANG002", ("PORT", "Ethernet4|extra"), "row key has 2 part(s) and matches no list or container "
                                                        "of PORT: PORT_LIST has 1 key(s) (name)"),
        Problem("YANG006", ("INTERFACE",), "empty table: GCU refuses a target that leaves a table empty; leave the "
                                           "table out"),
        Problem("YANG005", ("DEVICE_METADATA", "localhost", "t2_group_asns"),
                "'t2_group_asns' is a leaf-list: config_db.json needs a JSON list"),
    ]
    # the integer is stringified as SONiC does (str(7)), the known fields of the misspelt row are kept
    xml = to_xml(tr)[0]
    assert "<hostname>7</hostname>" in xml and "<lanes>0</lanes>" in xml and "fec_mode" not in xml


def test_translation_of_bad_shapes_never_crashes():
    schema = small_schema()
    assert translate([1, 2], schema).problems[0].code == "YANG004"
    tr = translate({"PORT": "x", "DSCP_TO_TC_MAP": {"M": {"1": None}}, "INTERFACE": {"Ethernet0": "up"},
                    "DEVICE_METADATA": {"localhost": {"hostname": "a\x01b"}}}, schema)
    assert [(p.code, p.where) for p in tr.problems] == [
        ("YANG004", "PORT"), ("YANG004", "DSCP_TO_TC_MAP/M/1"), ("YANG004", "INTERFACE/Ethernet0"),
        ("YANG004", "DEVICE_METADATA/localhost/hostname")]
    to_xml(tr)  # still a document


def test_yanglint_error_parsing():
    stderr = (
        'libyang err : Invalid snmp user authentication password (Valid chars are ASCII\n'
        '                                 printable except ":" and"@") (Data location "/sonic-snmp:sonic-snmp/'
        "SNMP_USER/SNMP_USER_LIST[name='monitor']/SNMP_USER_AUTH_PASSWORD\", line number 4861.)\n"
        'YANGLINT[E]: Failed to parse input data file "/tmp/x.xml".\n')
    errors, failed = parse_errors(stderr)
    assert failed == "/tmp/x.xml"
    assert errors == [LintError(
        'Invalid snmp user authentication password (Valid chars are ASCII printable except ":" and"@")',
        "/sonic-snmp:sonic-snmp/SNMP_USER/SNMP_USER_LIST[name='monitor']/SNMP_USER_AUTH_PASSWORD", "", 4861)]
    assert errors[0].code == "YANG011"
    mandatory, _ = parse_errors('libyang err : Mandatory node "lanes" instance does not exist. '
                                '(Schema location "/sonic-port:sonic-port/PORT/PORT_LIST/lanes".)\n')
    assert (mandatory[0].code, mandatory[0].schema_path) == ("YANG009", "/sonic-port:sonic-port/PORT/PORT_LIST/lanes")


def test_template_rendering_is_sonic_builds():
    # setup.py renders with trim_blocks=True and yang_model_type="py": the "cvl" branch is dropped and the
    # newline after a block tag is eaten
    text = 'a\n{% if yang_model_type == "cvl" %}\ncvl only\n{% else %}\npy only\n{% endif %}\nb\n'
    assert model_source.render_template(text) == "a\npy only\nb"


# --- with yanglint and SONiC's models -------------------------------------------------------------------------



def _example_configs() -> dict[str, dict]:
    files = sorted((ROOT / "generated").glob("configs/*/config_db.json"))
    return {p.parent.name: json.loads(p.read_text()) for p in files}


def test_example_config_db_against_sonic_yang(yang_models):
    """Every rendered config_db.json of the example passes SONiC's YANG models as is, vault placeholders included:
    `%%vault.NAME%%` holds no ':' or '@', which sonic-snmp.yang refuses in SNMP_USER passwords."""
    configs = _example_configs()
    # 34 switches, of which the 4 EOS rail switches of pod 1 segment 2 (7060x6-dual) have no config_db.json
    assert len(configs) == 30
    assert configs["p1-s1-rail0"]["SNMP_USER"]["monitor"]["SNMP_USER_AUTH_PASSWORD"] == "%%vault.snmp_monitor_auth%%"
    assert [str(p) for p in check_configs(configs, yang_models)] == []


def test_broken_copy_reports_exactly_what_was_broken(yang_models):
    clean = _example_configs()["p1-s1-rail0"]
    broken = copy.deepcopy(clean)
    broken["PORT_QOS_MAP"]["Ethernet0"]["dscp_to_tc_map"] = "AI_ROCE_TYPO"  # a map that does not exist
    broken["PORT"]["Ethernet0"]["fec"] = "bogus"  # sonic-port.yang: fec pattern rs|fc|none|auto
    broken["RAILFABRIC_NOTES"] = {"note": {"text": "x"}}  # no model
    broken["PORT"]["Ethernet4"].pop("lanes")  # sonic-port.yang: lanes is mandatory
    found = [str(p) for p in check_configs({"p1-s1-rail0": broken}, yang_models)]
    assert sorted(found) == sorted([
        "p1-s1-rail0: YANG001 RAILFABRIC_NOTES: table has no YANG model; GCU (config replace/apply-patch) refuses "
        "tables without one",
        'p1-s1-rail0: YANG007 PORT/Ethernet0/fec: Unsatisfied pattern - "bogus" does not conform to '
        '"rs|fc|none|auto".',
        'p1-s1-rail0: YANG008 PORT_QOS_MAP/Ethernet0/dscp_to_tc_map: Invalid leafref value "AI_ROCE_TYPO" - no '
        'target instance "/dtm:sonic-dscp-tc-map/dtm:DSCP_TO_TC_MAP/dtm:DSCP_TO_TC_MAP_LIST/dtm:name" with the '
        "same value.",
        # the row without lanes is dropped to look further; what refers to Ethernet4 is not reported again
        'p1-s1-rail0: YANG009 PORT/Ethernet4: Mandatory node "lanes" instance does not exist. (leaf \'lanes\')',
    ])


def test_command_exit_codes(yang_models, tmp_path, capsys):
    class Args:
        generated = str(tmp_path)
        models = str(yang_models)

    (tmp_path / "configs" / "sw1").mkdir(parents=True)
    (tmp_path / "configs" / "sw1" / "config_db.json").write_text(json.dumps(
        {"DEVICE_METADATA": {"localhost": {"hostname": "sw1"}}}))
    assert cmd_sonic_yang(Args) == 0
    (tmp_path / "configs" / "sw1" / "config_db.json").write_text('{"NOPE": {"a": {}}}')
    assert cmd_sonic_yang(Args) == 1
    assert "sw1: YANG001 NOPE: table has no YANG model" in capsys.readouterr().out
    Args.models = str(tmp_path / "missing")
    assert cmd_sonic_yang(Args) == 2
    assert "not a directory of SONiC YANG models" in capsys.readouterr().err
