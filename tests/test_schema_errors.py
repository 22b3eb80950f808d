"""Schema errors: pydantic's errors become findings at the exact key or value, with did-you-mean hints.

Each case writes the small valid inventory of tests.helpers minus one section to base.yml, and that section by
hand to its own file, so the positions below can be counted by hand. Tests run in tmp_path, so file names in
findings read "inv/<name>"; lines and columns are 1-based.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from railfabric.core.finding import Finding, exit_code
from railfabric.core.source_map import Location
from railfabric.pipeline import Result, run
from tests.helpers import SONIC_BUFFERS_FLOW, base_inventory, codes, dump, run_data, write_files


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def run_with(tmp_path: Path, files: dict[str, str], replace: tuple[str, ...] = ()) -> Result:
    """The base inventory without the sections in `replace`, plus hand-written `files`."""
    base = base_inventory()
    for section in replace:
        del base[section]
    write_files(tmp_path / "inv", {"base.yml": dump(base), **files})
    return run(Path("inv"))


def only(res: Result, code: str) -> Finding:
    found = [f for f in res.findings if f.code != "SKIP001"]  # SKIP001: the item was left out, the rest checked
    assert [f.code for f in found] == [code], res.findings
    return found[0]


SEGMENT = "{id: 1, rail_design: single-rail, rails: 2, rail_switch_model: sw64, host_groups: [{model: h2, count: 4}]}"


def test_base_inventory_is_clean(tmp_path: Path) -> None:
    res = run_data(tmp_path, base_inventory())
    assert res.findings == []
    assert res.stage_reached == "done"


def test_run_data_reports_schema_errors(tmp_path: Path) -> None:
    data = base_inventory()
    data["fabric"]["host_mu"] = 9000
    res = run_data(tmp_path, data)
    f = only(res, "SCH001")
    assert f.hint == "did you mean 'host_mtu'?"
    assert f.location is not None and f.location.file == "inv/fabric.yml"
    assert res.inventory is None
    assert res.stage_reached == "schema"
    assert exit_code(res.findings) == 1


# --------------------------------------------------------------------------- SCH001 unknown keys


def test_unknown_key_typo_gets_did_you_mean(tmp_path: Path) -> None:
    res = run_with(tmp_path, {"fabric.yml": "fabric:\n  name: mini\n  host_mu: 9000\n"}, ("fabric",))
    f = only(res, "SCH001")
    assert f.location == Location("inv/fabric.yml", 3, 3)  # the key itself, not its value
    assert f.message == "unknown key 'host_mu' in fabric"
    assert f.hint == "did you mean 'host_mtu'?"
    assert f.fatal is False


def test_unknown_top_level_key(tmp_path: Path) -> None:
    res = run_with(tmp_path, {"extra.yml": "# extra settings\nfabrik:\n  name: mini\n"})
    f = only(res, "SCH001")
    assert f.location == Location("inv/extra.yml", 2, 1)
    assert f.hint == "did you mean 'fabric'?"


def test_unknown_key_with_nothing_close_lists_allowed_keys(tmp_path: Path) -> None:
    res = run_with(tmp_path, {"fabric.yml": "fabric:\n  name: mini\n  zzzz: 1\n"}, ("fabric",))
    f = only(res, "SCH001")
    assert f.location == Location("inv/fabric.yml", 3, 3)
    # FabricSettings: name, kind, platform, mtu, host_mtu, rail_vlan_base, releases, sorted
    assert f.hint == "allowed keys here: host_mtu, kind, mtu, name, platform, rail_vlan_base, releases"


def test_unknown_key_inside_a_dict_of_models(tmp_path: Path) -> None:
    text = "switch_models:\n  sw64:\n    ports: 64\n    speed: 800G\n    breakout: [2x400G]\n"
    res = run_with(tmp_path, {"hw.yml": text}, ("switch_models",))
    f = only(res, "SCH001")
    assert f.location == Location("inv/hw.yml", 5, 5)
    assert f.message == "unknown key 'breakout' in switch_models.sw64"
    assert f.hint == "did you mean 'breakouts'?"


def test_unknown_key_in_a_list_item_and_the_missing_key_it_was_meant_to_be(tmp_path: Path) -> None:
    text = (
        "pods:\n"                                                 # 1
        "  - id: 1\n"                                             # 2
        "    spines: {count: 2, model: sw64, link_speed: 800G}\n"  # 3
        "    segments:\n"                                         # 4
        "      - id: 1\n"                                         # 5  segment mapping starts at column 9
        "        rail_desing: single-rail\n"                      # 6  the typo, column 9
        "        rails: 2\n"                                      # 7
        "        rail_switch_model: sw64\n"                       # 8
        "        host_groups:\n"                                  # 9
        "          - {model: h2, count: 4}\n"                     # 10
    )
    res = run_with(tmp_path, {"pods.yml": text}, ("pods",))
    got = {f.code: f for f in res.findings}
    assert sorted(got) == ["SCH001", "SCH002"]
    assert got["SCH001"].location == Location("inv/pods.yml", 6, 9)
    assert got["SCH001"].message == "unknown key 'rail_desing' in pods[0].segments[0]"
    assert got["SCH001"].hint == "did you mean 'rail_design'?"
    assert got["SCH002"].location == Location("inv/pods.yml", 5, 9)
    assert got["SCH002"].message.startswith("pods[0].segments[0] is missing required key 'rail_design'")
    # sorted by line: the mapping (line 5) before the typo (line 6)
    assert codes(res) == ["SCH002", "SCH001"]


# --------------------------------------------------------------------------- SCH002 missing keys


def test_missing_required_key_is_located_at_the_parent_mapping(tmp_path: Path) -> None:
    res = run_with(tmp_path, {"fabric.yml": "fabric:\n  platform: sonic\n  mtu: 9216\n"}, ("fabric",))
    f = only(res, "SCH002")
    assert f.location == Location("inv/fabric.yml", 2, 3)  # the fabric mapping starts at its first key
    assert f.message.startswith("fabric is missing required key 'name'")
    assert "RFC 1123" in f.message  # the field's description
    assert f.hint == "add `name:` here (see `fabric schema`)"


def test_missing_nested_required_key(tmp_path: Path) -> None:
    text = (
        "pools:\n"                          # 1
        "  loopbacks: 10.0.0.0/16\n"        # 2
        "  fabric_links: 10.32.0.0/11\n"    # 3
        "  rail_subnets: 172.16.0.0/12\n"   # 4
        "  management:\n"                   # 5
        "    gateway: 192.168.0.1\n"        # 6  the management mapping starts here, column 5
    )
    res = run_with(tmp_path, {"pools.yml": text}, ("pools",))
    f = only(res, "SCH002")
    assert f.location == Location("inv/pools.yml", 6, 5)
    assert f.message == "pools.management is missing required key 'prefix'"


def test_missing_top_level_section(tmp_path: Path) -> None:
    base = base_inventory()
    del base["pools"], base["fabric"]
    write_files(tmp_path / "inv", {"a.yml": "fabric:\n  name: mini\n", "b.yml": dump(base)})
    res = run(Path("inv"))
    f = only(res, "SCH002")
    # no parent mapping of its own: the root mapping, i.e. the start of the first file
    assert f.location == Location("inv/a.yml", 1, 1)
    assert f.message == "<top> is missing required key 'pools'"


# --------------------------------------------------------------------------- SCH003 bad values


@pytest.mark.parametrize(
    ("hw", "line", "col", "where", "text"),
    [
        # "    ports: " is 11 characters: the value starts at column 12
        ("    ports: many\n    speed: 800G\n", 3, 12, "switch_models.sw64.ports", "'many'"),
        ("    ports: 64\n    speed: 400X\n", 4, 12, "switch_models.sw64.speed",
         "speed '400X' must look like '400G' or '1.6T'"),
        ("    ports: 0\n    speed: 800G\n", 3, 12, "switch_models.sw64.ports", "greater than or equal to 1"),
        # "    breakouts: [2x400G, " is 24 characters: the second item starts at column 25
        ("    ports: 64\n    speed: 800G\n    breakouts: [2x400G, 2y400G]\n", 5, 25,
         "switch_models.sw64.breakouts[1]", "breakout '2y400G' must look like '2x400G'"),
        ("    ports: 64\n    speed: 800G\n    breakouts: [0x400G]\n", 5, 17,
         "switch_models.sw64.breakouts[0]", "1 to 16 lanes"),
        # "      uplinks: " is 15 characters: the value starts at column 16
        ("    ports: 64\n    speed: 800G\n    port_blocks:\n      uplinks: 40-33\n", 6, 16,
         "switch_models.sw64.port_blocks.uplinks", "port range '40-33' runs backwards"),
        ("    ports: 64\n    speed: 800G\n    port_blocks:\n      uplinks: 33-x\n", 6, 16,
         "switch_models.sw64.port_blocks.uplinks", "must be a number or a range 'a-b'"),
    ],
    ids=["wrong-type", "bad-speed", "out-of-range", "bad-breakout", "breakout-lanes", "backwards-range",
         "garbage-range"],
)
def test_bad_value_is_located_at_the_value(tmp_path: Path, hw: str, line: int, col: int, where: str,
                                           text: str) -> None:
    res = run_with(tmp_path, {"hw.yml": "switch_models:\n  sw64:\n" + hw}, ("switch_models",))
    f = only(res, "SCH003")
    assert f.location == Location("inv/hw.yml", line, col)
    assert f.message.startswith(f"{where}: ")
    assert text in f.message


def test_bad_port_list_in_a_device_override(tmp_path: Path) -> None:
    # the validator sees the whole list: "    disabled_ports: " is 20 characters, '[' is column 21
    res = run_with(tmp_path, {"devices.yml": "devices:\n  p1-s1-rail0:\n    disabled_ports: ['9-3']\n"})
    f = only(res, "SCH003")
    assert f.location == Location("inv/devices.yml", 3, 21)
    assert f.message == "devices.p1-s1-rail0.disabled_ports: port range '9-3' runs backwards"


POOLS_HOST_BITS = (
    "pools:\n"
    "  loopbacks: 10.0.0.1/16\n"         # "  loopbacks: " is 13 characters: the value is at 2:14
    "  fabric_links: 10.32.0.0/11\n"
    "  rail_subnets: 172.16.0.0/12\n"
    "  management: {prefix: 192.168.0.0/16}\n"
)


def test_prefix_with_host_bits_suggests_the_network(tmp_path: Path) -> None:
    res = run_with(tmp_path, {"pools.yml": POOLS_HOST_BITS}, ("pools",))
    f = only(res, "SCH003")
    assert f.location == Location("inv/pools.yml", 2, 14)
    assert f.message == "pools.loopbacks: '10.0.0.1/16' has host bits set; did you mean '10.0.0.0/16'?"


def test_prefix_with_host_bits_hint_holds_the_network(tmp_path: Path) -> None:
    res = run_with(tmp_path, {"pools.yml": POOLS_HOST_BITS}, ("pools",))
    f = only(res, "SCH003")
    assert "10.0.0.0/16" in f.hint


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("10.0.0.0", "must be an IPv4 prefix with a length"),
        ("10.0.0.0/33", "is not an IPv4 prefix"),
        ("2001:db8::/32", "must be an IPv4 prefix with a length"),
        ("loopbacks", "is not an IPv4 prefix"),
    ],
    ids=["no-length", "too-long", "ipv6", "word"],
)
def test_bad_prefixes(tmp_path: Path, value: str, text: str) -> None:
    pools = POOLS_HOST_BITS.replace("10.0.0.1/16", f"'{value}'")
    res = run_with(tmp_path, {"pools.yml": pools}, ("pools",))
    f = only(res, "SCH003")
    assert f.location == Location("inv/pools.yml", 2, 14)
    assert text in f.message


def test_null_section(tmp_path: Path) -> None:
    res = run_with(tmp_path, {"fabric.yml": "fabric:\n"}, ("fabric",))
    f = only(res, "SCH003")
    assert f.location == Location("inv/fabric.yml", 1, 8)  # the empty value sits right after "fabric:"
    assert f.message.startswith("fabric: Input should be a valid dictionary")


def test_invalid_model_name_is_located_at_the_key(tmp_path: Path) -> None:
    text = (
        "switch_models:\n"
        f"  sw64: {{ports: 64, speed: 800G, breakouts: [2x400G], buffers: {SONIC_BUFFERS_FLOW}}}\n"
        "  bad model!:\n"           # 3: the offending key, column 3
        "    ports: 64\n"
        "    speed: 800G\n"
    )
    res = run_with(tmp_path, {"hw.yml": text}, ("switch_models",))
    f = only(res, "SCH003")
    assert f.location == Location("inv/hw.yml", 3, 3)
    assert "[key]" not in f.message


def test_messages_never_hold_raw_newlines(tmp_path: Path) -> None:
    text = 'devices:\n  "x\\nforged.yml:1:1: error FAKE001: forged":\n    rack: 5\n'
    res = run_with(tmp_path, {"devices.yml": text})
    assert "SEC001" in codes(res)
    assert all("\n" not in f.message for f in res.findings)


# --------------------------------------------------------------------------- all at once, sorted


def test_three_independent_errors_are_all_reported_once(tmp_path: Path) -> None:
    res = run_with(tmp_path, {
        "a.yml": "fabric:\n  name: mini\n  host_mu: 9000\n",
        "b.yml": "switch_models:\n  sw64:\n    ports: many\n    speed: 800G\n",
        "c.yml": ("pools:\n  loopbacks: 10.0.0.0/16\n  fabric_links: 10.32.0.0/11\n"
                  "  rail_subnets: 172.16.0.0/12\n  management:\n    gateway: 192.168.0.1\n"),
    }, ("fabric", "switch_models", "pools"))
    assert [(f.code, f.location) for f in res.findings] == [
        ("SCH001", Location("inv/a.yml", 3, 3)),
        ("SCH003", Location("inv/b.yml", 3, 12)),
        ("SCH002", Location("inv/c.yml", 6, 5)),
    ]
    assert Counter(codes(res)) == {"SCH001": 1, "SCH003": 1, "SCH002": 1}
    assert exit_code(res.findings) == 1


def test_findings_are_sorted_by_file_then_line(tmp_path: Path) -> None:
    # Errors written in z.yml (lines 10 and 3) and m.yml (line 2); the output follows file, then line.
    z = (
        "switch_models:\n"                          # 1
        "  sw64:\n"                                 # 2
        "    ports: many\n"                         # 3  SCH003 at 3:12
        "    speed: 800G\n"                         # 4
        "host_models:\n"                            # 5
        "  h2:\n"                                   # 6
        "    gpus: 2\n"                             # 7
        "    nics: 2\n"                             # 8
        "    nic_speed: 400G\n"                     # 9
        "    nic_sped: 400G\n"                      # 10 SCH001 at 10:5
    )
    m = "fabric:\n  name: -mini\n"                   # 2: bad name pattern, value at 2:9
    res = run_with(tmp_path, {"z.yml": z, "m.yml": m}, ("fabric", "switch_models", "host_models"))
    assert [(f.code, f.location) for f in res.findings] == [
        ("SCH003", Location("inv/m.yml", 2, 9)),
        ("SCH003", Location("inv/z.yml", 3, 12)),
        ("SCH001", Location("inv/z.yml", 10, 5)),
    ]
    locs = [f.location for f in res.findings]
    assert locs == sorted(locs)  # type: ignore[type-var]


def test_line_numbers_sort_as_numbers(tmp_path: Path) -> None:
    # Line 9 must come before line 10 (a string sort would put "10" first).
    text = "fabric:\n" + "  # padding\n" * 7 + "  name: mini\n  mtu: 10\n  host_mtu: 1\n"
    res = run_with(tmp_path, {"f.yml": text}, ("fabric",))
    assert [(f.code, f.location) for f in res.findings] == [
        ("SCH003", Location("inv/f.yml", 10, 8)),   # "  mtu: " → column 8, line 1 + 7 + 1 + 1
        ("SCH003", Location("inv/f.yml", 11, 13)),  # "  host_mtu: " → column 13
    ]


def test_schema_errors_stop_before_semantic_rules(tmp_path: Path) -> None:
    # A duplicate pod id is a semantic error (ID001); with a schema error present it is not reached yet.
    base = base_inventory()
    del base["pods"]
    pods = f"pods:\n  - id: 1\n    segments: [{SEGMENT}]\n  - id: 1\n    segments: [{SEGMENT}]\n"
    write_files(tmp_path / "inv", {"base.yml": dump(base), "pods.yml": pods,
                                   "x.yml": "fabric_extra: 1\n"})
    res = run(Path("inv"))
    assert codes(res) == ["SCH001"]
    assert res.stage_reached == "schema"
