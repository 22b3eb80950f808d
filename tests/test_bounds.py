"""Numbers at their limits (issue 28, item 4): every number of the inventory has a finite range
(railfabric/core/bounds.py), checked at validation with a finding at its line; no infinity or NaN anywhere;
validate and render agree.

Each case writes the small valid inventory of tests.helpers minus one section to base.yml and that section by hand
to its own file, so lines and columns below are counted by hand (1-based; a value's column is the length of the text
before it plus one).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from railfabric.cli import main
from railfabric.core.bounds import (
    BUFFER_BYTES_MAX,
    DOUBLE_EXACT_MAX,
    SPEED_GBPS_MAX,
    SPEED_HINT,
    UINT32_MAX,
    number_range,
)
from railfabric.core.finding import Finding, Severity
from railfabric.core.units import parse_ports, parse_speed
from railfabric.emit.build import build_files
from railfabric.inventory.intent import Inventory, json_schema
from railfabric.pipeline import Result, run
from tests.helpers import base_inventory, dump, run_data, write_files


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def run_with(tmp_path: Path, name: str, text: str, replace: tuple[str, ...] = ()) -> Result:
    """The base inventory without the sections in `replace`, plus the hand-written file `name`."""
    base = base_inventory()
    for section in replace:
        del base[section]
    write_files(tmp_path / "inv", {"base.yml": dump(base), name: text})
    return run(Path("inv"))


def errors(res: Result) -> list[Finding]:
    return [f for f in res.findings if f.severity is Severity.ERROR]


# The classes of issue 28: past 2^63 and 2^64, far past, the float specials, negative, and 0 where 0 is invalid.
# As YAML text (`.inf` and friends are YAML 1.1 floats; 1.0e+30 is a float, 10^30 as digits an integer).
BIG = [str(2**63 - 1), str(2**63), str(2**64), str(10**30), "1.0e+30"]
SPECIAL = [".inf", "-.inf", ".nan", ".NaN", "-.Inf"]
LOW = ["-1", "0"]


# (file, section replaced, text with {v} for the value, line, column, hint): one representative field per kind.
# Columns: "    max_bytes: " is 15 characters → 16; "    detection_ms: " 18 → 19; "    width: " 11 → 12;
# "    spine_base: " 16 → 17; "  rail_vlan_base: " 18 → 19; "  fiber_ns_per_m: " 18 → 19;
# "    nic_speed: " 15 → 16. Lines count from 1 at the section's key.
KINDS: dict[str, tuple[str, tuple[str, ...], str, int, int, str]] = {
    "bytes": ("qos.yml", (), "qos:\n  ecn:\n    max_bytes: {v}\n", 3, 16,
              "allowed: 1 to 4,294,967,295 (SAI's WRED thresholds are 32-bit byte counts)"),
    "ms": ("qos.yml", (), "qos:\n  pfc_watchdog:\n    detection_ms: {v}\n", 3, 19, "allowed: 100 to 5000"),
    "count": ("routing.yml", (), "routing:\n  ecmp:\n    width: {v}\n", 3, 12, "allowed: 1 to 512"),
    "asn": ("routing.yml", (), "routing:\n  asn:\n    spine_base: {v}\n", 3, 17,
            "allowed: 1 to 4,294,967,294 (4-byte ASNs (RFC 6793); 0 and 4294967295 are reserved)"),
    "vlan": ("fabric.yml", ("fabric",), "fabric:\n  name: mini\n  rail_vlan_base: {v}\n", 3, 19,
             "allowed: 2 to 4094 (IEEE 802.1Q VLAN IDs; 0, 1 and 4095 are taken)"),
    "float": ("solver.yml", (), "solver:\n  fiber_ns_per_m: {v}\n", 2, 19, "allowed: 3 to 10"),
    "speed": ("hosts.yml", ("host_models",), "host_models:\n  h2:\n    gpus: 2\n    nics: 2\n    nic_speed: {v}\n",
              5, 16, SPEED_HINT),
}
CASES = [(kind, v) for kind in KINDS for v in BIG + SPECIAL + LOW]


@pytest.mark.parametrize(("kind", "value"), CASES, ids=[f"{k}-{v}" for k, v in CASES])
def test_a_number_out_of_range_is_one_finding_at_its_value(tmp_path: Path, kind: str, value: str) -> None:
    # every class is outside every one of these ranges: the largest upper bound here is 4,294,967,295 < 2^63 - 1,
    # every lower bound is at least 1 (0 and -1 below it), and .inf/.nan are refused as not finite
    name, replace, text, line, col, hint = KINDS[kind]
    res = run_with(tmp_path, name, text.format(v=value), replace)
    found = [f for f in errors(res) if f.code != "SKIP001"]
    assert [(f.code, f.location.file, f.location.line, f.location.col) for f in found] == [  # type: ignore[union-attr]
        ("SCH003", f"inv/{name}", line, col)], res.findings
    assert found[0].hint == hint
    assert "\n" not in found[0].message and len(found[0].message) < 300


@pytest.mark.parametrize(("kind", "at_max", "past"), [
    ("bytes", str(UINT32_MAX), str(UINT32_MAX + 1)),
    ("ms", "5000", "5001"),
    ("count", "512", "513"),
    ("asn", "4294967294", "4294967295"),
    ("vlan", "4094", "4095"),
    ("speed", "10T", "10001G"),
])
def test_the_bound_itself_is_allowed_and_one_past_it_is_not(tmp_path: Path, kind: str, at_max: str,
                                                            past: str) -> None:
    name, replace, text, line, col, hint = KINDS[kind]
    base = base_inventory()
    for section in replace:
        del base[section]
    write_files(tmp_path / "ok" / "inv", {"base.yml": dump(base), name: text.format(v=at_max)})
    write_files(tmp_path / "past" / "inv", {"base.yml": dump(base), name: text.format(v=past)})
    # at the maximum the schema has nothing to say (a rule may: 10T is a speed no model runs, HOST005)
    assert not [f for f in run(tmp_path / "ok" / "inv").findings if f.code.startswith("SCH")]
    bad = [f for f in run(tmp_path / "past" / "inv").findings if f.code == "SCH003"]
    assert [(f.location.line, f.location.col, f.hint) for f in bad] == [(line, col, hint)]  # type: ignore[union-attr]


def test_buffer_facts_past_their_bound_and_infinite_are_findings(tmp_path: Path) -> None:
    # the issue's second crash: `.inf` for a buffer fact; and 2^64 for the shared buffer. In hw.yml, line 5 holds
    # total_bytes ("      total_bytes: " 19 characters → column 20) and line 6 mac_phy_delay_bytes
    # ("      mac_phy_delay_bytes: " 27 → 28)
    facts = dict(base_inventory()["switch_models"]["sw64"]["buffers"])
    del facts["total_bytes"], facts["mac_phy_delay_bytes"]
    rest = "".join(f"      {k}: {json.dumps(v)}\n" for k, v in facts.items())
    text = (f"switch_models:\n  sw64:\n    ports: 64\n    buffers:\n      total_bytes: {2**64}\n"
            f"      mac_phy_delay_bytes: .inf\n{rest}    speed: 800G\n    breakouts: [2x400G]\n")
    res = run_with(tmp_path, "hw.yml", text, ("switch_models",))
    found = [(f.code, f.location.line, f.location.col, f.hint) for f in errors(res)  # type: ignore[union-attr]
             if f.code != "SKIP001"]
    why = "allowed: {} to 137,438,953,472 (128 GiB: twice the largest HBM stack of a deep-buffer switch ASIC)"
    assert found == [("SCH003", 5, 20, why.format(1)), ("SCH003", 6, 28, why.format(0))]


def test_at_the_limits_validate_and_render_agree(tmp_path: Path) -> None:
    # ECN thresholds at the top of 32 bits (min below max: QOS001) and a 128 GiB shared buffer whose egress lossless
    # pool is all of it: the inventory validates clean and renders, the numbers written as they are (SONiC's
    # config_db holds them as strings: WRED_PROFILE green thresholds, BUFFER_POOL sizes)
    data = base_inventory()
    data["qos"] = {"ecn": {"min_bytes": UINT32_MAX - 1, "max_bytes": UINT32_MAX}}
    buffers = data["switch_models"]["sw64"]["buffers"]
    buffers["total_bytes"] = buffers["egress_lossless_pool"] = BUFFER_BYTES_MAX
    res = run_data(tmp_path, data)
    assert res.findings == []
    files = build_files(res)
    config = json.loads(files["configs/p1-s1-rail0/config_db.json"])
    assert config["WRED_PROFILE"]["AI_LOSSLESS"]["green_min_threshold"] == "4294967294"
    assert config["WRED_PROFILE"]["AI_LOSSLESS"]["green_max_threshold"] == "4294967295"
    assert config["BUFFER_POOL"]["egress_lossless_pool"]["size"] == "137438953472"


def test_validate_and_render_exit_1_and_never_crash_on_the_issue_inputs(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # the issue's reproductions: 2^64 for qos.ecn.max_bytes (was: validate clean, render "internal error:
    # TypeError") and an integer of 5,000 digits (Python refuses to convert it: was "internal error: ValueError")
    for value in (str(2**64), "9" * 5000):
        inv = write_files(tmp_path / f"inv{len(value)}", {"base.yml": dump(base_inventory()),
                                                          "qos.yml": f"qos:\n  ecn:\n    max_bytes: {value}\n"})
        out = tmp_path / f"out{len(value)}"
        assert main(["validate", str(inv)]) == 1
        assert main(["render", str(inv), "--out", str(out)]) == 1
        err = capsys.readouterr().err
        assert "internal error" not in err and not out.exists()


# --------------------------------------------------------------------------- speeds and port lists (units.py)


@pytest.mark.parametrize("text", ["1" + "0" * 400 + "G", "9" * 13 + "G", "10001G", "10.001T", "0G", "0.5G",
                                  "1" * 5000 + "T"])
def test_speed_strings_past_the_bound_are_value_errors_not_overflows(text: str) -> None:
    # float("1" + 400 zeros) is inf and int(inf) raised OverflowError (an internal error); Fraction is exact
    with pytest.raises(ValueError):
        parse_speed(text)


def test_speed_bound_is_exact() -> None:
    assert parse_speed("10T") == parse_speed("10000G") == parse_speed(SPEED_GBPS_MAX) == 10_000
    assert parse_speed("1.6T") == 1600 and parse_speed("1G") == 1


@pytest.mark.parametrize("ports", [[1025], "1-1025", [2**64], "99999999999999", ["1024-1025"], [0], "0-3"])
def test_port_numbers_stop_at_the_largest_switch(ports: Any) -> None:
    with pytest.raises(ValueError):
        parse_ports(ports)


def test_port_1024_is_allowed() -> None:
    assert parse_ports("1023-1024") == (1023, 1024)


# --------------------------------------------------------------------------- every numeric field is bounded


def numeric_nodes(schema: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every schema node that admits an integer or a number, with its JSON pointer."""
    out: list[tuple[str, dict[str, Any]]] = []
    if isinstance(schema, dict):
        kinds = schema.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if {"integer", "number"} & set(kinds):
            out.append((path, schema))
        for key, value in schema.items():
            out += numeric_nodes(value, f"{path}/{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            out += numeric_nodes(value, f"{path}/{i}")
    return out


def unbounded(schema: dict[str, Any]) -> list[str]:
    """The numeric nodes without a finite minimum and maximum at most 2^53 (an enum of numbers is bounded)."""
    bad = []
    for path, node in numeric_nodes(schema):
        if "enum" in node or "const" in node:
            continue
        lo, hi = node.get("minimum", node.get("exclusiveMinimum")), node.get("maximum", node.get("exclusiveMaximum"))
        if not all(isinstance(b, int | float) and math.isfinite(b) and abs(b) <= DOUBLE_EXACT_MAX for b in (lo, hi)):
            bad.append(path)
    return bad


def test_every_numeric_field_of_the_schema_has_a_finite_range() -> None:
    # a new field without a bound fails here: the walk covers Inventory's whole JSON Schema (what `fabric schema`
    # publishes), list items and dict values included
    nodes = numeric_nodes(json_schema())
    assert len(nodes) >= 80  # the walk reaches the schema's numbers (there are 89 today)
    assert unbounded(json_schema()) == []


def test_the_walk_finds_an_unbounded_field() -> None:
    # the test above can fail: a model with an int without a maximum, a float without a minimum, a list of bare
    # ints, and one bounded past 2^53 is reported, node by node
    class Loose(BaseModel):
        a: int = Field(ge=0)
        b: float = Field(le=1.0)
        c: list[int] = []
        d: int = Field(ge=0, le=2**64)
        e: int = Field(ge=0, le=10)

    assert unbounded(Loose.model_json_schema()) == ["/properties/a", "/properties/b", "/properties/c/items",
                                                    "/properties/d"]


def test_every_numeric_field_of_the_model_has_its_range_for_the_hint() -> None:
    # the finding's hint reads the range back from the pydantic field (bounds.number_range): spot checks of a
    # field, an optional field, a list item and a dict value's field
    assert number_range(Inventory, ("qos", "ecn", "max_bytes")).hi == UINT32_MAX  # type: ignore[union-attr]
    assert number_range(Inventory, ("pods", 0, "segments", 0, "vlan_base")).lo == 2  # type: ignore[union-attr]
    assert number_range(Inventory, ("host_models", "h", "gpu_to_nic", 3)).hi == 63  # type: ignore[union-attr]
    r = number_range(Inventory, ("switch_models", "m", "buffers", "total_bytes"))
    assert r is not None and (r.lo, r.hi) == (1, BUFFER_BYTES_MAX)
    assert number_range(Inventory, ("fabric", "name")) is None


def test_bounds_stay_exact_in_every_json_reader() -> None:
    # every maximum in the schema is at most 2^53, so a JSON reader that parses numbers as doubles reads each
    # accepted value exactly
    top = max(node.get("maximum", 0) for _p, node in numeric_nodes(json_schema()))
    assert top == BUFFER_BYTES_MAX < DOUBLE_EXACT_MAX


def test_fabric_size_refuses_a_gpu_count_no_fabric_holds(capsys: pytest.CaptureFixture[str]) -> None:
    # 10^23 GPUs of a dgx-h100 (8 GPUs, 8 NICs at 400G) on sn5600 (64 × 800G, 2x400G: radix 128 at 400G): a rail
    # switch holds 64 hosts down and 64 links up (non-blocking), a 3-tier pod 64 / 8 rails = 8 segments, 128 pods:
    # at most 128 × 8 × 64 × 8 = 524,288 GPUs; 10^23 / 8 hosts in segments of 64 = 195,312,500,000,000,000,000
    # segments, 24,414,062,500,000,000,000 pods of 8. Was an OverflowError (a tuple of that many segments).
    rc = main(["size", "--gpus", str(10**23), "--host-model", "dgx-h100", "--switch-model", "sn5600"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err == ("fabric size: 100,000,000,000,000,000,000,000 GPUs need 24,414,062,500,000,000,000 pods of 8 "
                   "segments; a 3-tier fabric of radix-128 switches joins at most 128 pods (524,288 GPUs of this "
                   "host model at non-blocking)\n")
