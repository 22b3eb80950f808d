"""`system:` validated: secrets only as vault references (SEC005, never echoed), the MGMT findings at their
file:line:col, the schema (checked with jsonschema), SSH key and banner shapes. The fabric and its hand derivations are
in tests/system_inventory.py; line numbers below are lines of its SYSTEM_YML / DEVICES_YML."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from railfabric.core.codes import CODES
from railfabric.inventory.intent import json_schema
from railfabric.inventory.intent_system import ssh_key_problem
from railfabric.pipeline import Result, run
from tests.system_inventory import KEY, SYSTEM_YML, devices_of, run_system

SECRET_PATHS = [  # (line to find in SYSTEM_YML, its replacement with a plain value, line, column of the value)
    ("      password: {vault: netops_hash}", "      password: hunter2-plain", 7, 17),
    ("      key: {vault: tacacs_key}", "      key: s3cr3t-plain", 16, 12),
    ("        - {address: 192.0.2.11, port: 4949, key: {vault: tacacs_key_b}}",
     "        - {address: 192.0.2.11, port: 4949, key: $6$salt$hash}", 19, 50),
    ("      key: {vault: radius_key}", "      key: [r4d1us-plain]", 21, 12),
    ("      monitor: {auth: {vault: snmp_auth}, priv: {vault: snmp_priv}}",
     "      monitor: {auth: auth-plain-1, priv: {vault: snmp_priv}}", 37, 23),
    ("      monitor: {auth: {vault: snmp_auth}, priv: {vault: snmp_priv}}",
     "      monitor: {auth: {vault: snmp_auth}, priv: {vault: x, value: priv-plain-2}}", 37, 49),
]


@pytest.mark.parametrize(("old", "new", "line", "col"), SECRET_PATHS)
def test_plain_secret_is_refused_and_never_echoed(tmp_path: Path, old: str, new: str, line: int, col: int) -> None:
    assert old in SYSTEM_YML
    r = run_system(tmp_path, "sonic", system=SYSTEM_YML.replace(old, new))
    found = [f for f in r.findings if f.code == "SEC005"]
    assert len(found) == 1, [str(f) for f in r.findings]
    f = found[0]
    assert f.location is not None and (Path(f.location.file).name, f.location.line, f.location.col) == \
        ("system.yml", line, col)
    plain = new.split(":", 1)[1]
    for word in ("hunter2", "s3cr3t", "$6$salt", "r4d1us", "auth-plain", "priv-plain"):
        if word in plain:
            assert word not in f.message and word not in f.hint
    assert "{vault: NAME}" in f.hint
    assert "SEC005" in CODES


def test_vault_name_shape(tmp_path: Path) -> None:
    r = run_system(tmp_path, "sonic", system=SYSTEM_YML.replace("{vault: viewer_hash}", "{vault: Viewer-Hash}"))
    assert [(f.code, f.location.line if f.location else 0) for f in r.findings if f.caused_by is None] == [
        ("SKIP001", 2), ("SCH003", 12)]  # the system section is left out; the rest of the fabric is checked
    assert r.findings[0].message.startswith("checks of system skipped: it does not validate")

# --------------------------------------------------------------------------- MGMT findings


def _findings(r: Result) -> list[tuple[str, str, int, int]]:
    """The findings a person sees: a schema error in system leaves the section out (SKIP001, the rest of the fabric
    still checked) and what its absence makes the system rules find is folded under that error (caused_by)."""
    return [(f.code, Path(f.location.file).name if f.location else "", f.location.line if f.location else 0,
             f.location.col if f.location else 0) for f in r.findings if f.code != "SKIP001" and f.caused_by is None]


def test_eos_without_system_is_refused_with_the_minimal_block(tmp_path: Path) -> None:
    # base inventory dumped: line 1 "fabric:", 2 "  name: mini", 3 "  platform: eos" (value at column 13)
    r = run_system(tmp_path, "eos", system="fabric: {}\n", devices="")
    assert _findings(r) == [("MGMT001", "fabric.yml", 3, 13)]
    f = r.findings[0]
    assert f.message.startswith("4 eos switch(es) (p1-s1-rail0, p1-s1-rail1, p1-spine1, ...)")
    assert "push_user: netops" in f.hint and "{vault: netops_password_hash}" in f.hint


def test_mixed_fabric_eos_device_without_users(tmp_path: Path) -> None:
    # one EOS spine in a SONiC fabric: the finding points at the override that made it EOS (devices.yml line 3)
    r = run_system(tmp_path, "sonic", system="fabric: {}\n", devices="devices:\n  p1-spine2:\n    platform: eos\n")
    assert _findings(r) == [("MGMT001", "devices.yml", 3, 15)]
    assert "1 eos switch(es) (p1-spine2)" in r.findings[0].message


MGMT_CASES = [
    # (change to SYSTEM_YML, platform, expected findings (code, file, line, col))
    ("  push_user: netops\n", "", "eos", [("MGMT002", "system.yml", 2, 3)]),
    ("  push_user: netops\n", "  push_user: nobody\n", "eos", [("MGMT003", "system.yml", 13, 14)]),
    ("  push_user: netops\n", "  push_user: viewer\n", "eos", [("MGMT004", "system.yml", 11, 13)]),
    ("      password: {vault: viewer_hash}\n", "      ssh_keys: []\n", "sonic", []),
    ("  push_user: netops\n", "  push_user: viewer\n", "sonic", [("MGMT004", "system.yml", 11, 13)]),
    ("    login: [tacacs, radius, local]\n", "    login: [tacacs, local]\n    x: 1\n", "eos",
     [("SCH001", "system.yml", 25, 5)]),
    ("    radius:\n      key: {vault: radius_key}\n      servers:\n        - {address: 192.0.2.12}\n", "", "eos",
     [("MGMT006", "system.yml", 20, 12)]),
    ("    login: [tacacs, radius, local]\n", "    login: [tacacs, radius]\n", "eos",
     [("MGMT007", "system.yml", 24, 12)]),
    ("    vrf: OOB\n", "    vrf: OOB\n    eapi: false\n    ssh: false\n", "eos", [("MGMT008", "system.yml", 3, 5)]),
    ("    servers: [192.0.2.20, 192.0.2.21]\n", "    servers: [192.0.2.20, 10.32.0.9]\n", "eos",
     [("MGMT009", "system.yml", 26, 27)]),
    ("      password: {vault: viewer_hash}\n", "", "eos", [("MGMT010", "system.yml", 11, 7)]),
]


@pytest.mark.parametrize(("old", "new", "platform", "expected"), MGMT_CASES)
def test_mgmt_findings_at_their_line(tmp_path: Path, old: str, new: str, platform: str, expected: list) -> None:
    assert old in SYSTEM_YML
    r = run_system(tmp_path, platform, system=SYSTEM_YML.replace(old, new))
    assert _findings(r) == expected, [str(f) for f in r.findings]
    for f in r.findings:
        assert f.hint and f.code in CODES


def test_push_user_without_credential(tmp_path: Path) -> None:
    # SONiC accounts may be key-only, but an account with neither a key nor a password cannot log in
    system = SYSTEM_YML.replace("      password: {vault: netops_hash}\n", "").replace(f"        - {KEY}\n", "") \
        .replace("      ssh_keys:\n", "")
    r = run_system(tmp_path, "sonic", system=system)
    assert _findings(r) == [("MGMT005", "system.yml", 6, 7)]


def test_override_finding_points_at_the_override(tmp_path: Path) -> None:
    # devices.yml: p1-s1-rail0's system: replaces users with an account that has no password (EOS: MGMT010) and
    # push_user netops no longer exists there (MGMT003); the fabric-wide block stays clean
    devices = ("devices:\n  p1-s1-rail0:\n    system:\n      users:\n        ops: {role: network-admin, "
               "ssh_keys: [" + KEY + "]}\n")
    r = run_system(tmp_path, "eos", devices=devices)
    assert _findings(r) == [("MGMT010", "devices.yml", 5, 14), ("MGMT003", "system.yml", 13, 14)]
    assert all("switch p1-s1-rail0" in f.message for f in r.findings)


def test_every_code_is_explained() -> None:
    for code in ("SEC005", *(f"MGMT{n:03d}" for n in range(1, 11))):
        assert CODES[code].explanation, code

# --------------------------------------------------------------------------- schema


def test_schema_is_valid_and_accepts_the_example() -> None:
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    r = run(Path(__file__).resolve().parents[1] / "inventory")
    assert r.findings == []
    jsonschema.validate(r.loaded.data, schema)
    for bad in ({"users": {"a": {"role": "network-admin", "password": "plain"}}},  # a plain string: not an object
                {"users": {"a": {"role": "root"}}}, {"banner": ["x"] * 41}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**r.loaded.data, "system": bad}, schema)


def test_example_has_the_override() -> None:
    r = run(Path(__file__).resolve().parents[1] / "inventory")
    devs = devices_of(r)
    assert devs["p1-s1-rail3"].system.ntp == ("192.0.2.22", "192.0.2.23")
    assert devs["p1-s1-rail2"].system.ntp == ("192.0.2.20", "192.0.2.21")
    assert devs["p1-s1-rail3"].system.push_user == "netops"


@pytest.mark.parametrize(("key", "problem"), [
    (KEY, None),
    ("ssh-rsa " + KEY.split()[1], "has a key body that is not a ssh-rsa key"),
    ("ssh-ed25519", "does not start with a key type"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----", "does not start with a key type"),
    ("ssh-ed25519 AAAA!!", "has no base64 key after the type"),
    ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOnAs8AOnQ5V", "has a key body that is not a ssh-ed25519 key"),
    (KEY.replace("netops@jump1", "{{ lookup('pipe', 'id') }}"), "has a comment that contains '{{'"),
])
def test_ssh_key_shape(key: str, problem: str | None) -> None:
    got = ssh_key_problem(key)
    assert (got is None) if problem is None else (got is not None and got.startswith(problem)), got


def test_short_rsa_key_is_refused() -> None:
    import base64
    import struct

    def field(b: bytes) -> bytes:
        return struct.pack(">I", len(b)) + b
    # an RSA blob: type, e = 65537, n of 1024 bits (128 bytes, top bit set, so a leading zero byte as an mpint)
    blob = field(b"ssh-rsa") + field(b"\x01\x00\x01") + field(b"\x00" + b"\xc3" * 128)
    assert ssh_key_problem("ssh-rsa " + base64.b64encode(blob).decode()) == "is an RSA key shorter than 2048 bits"
    blob = field(b"ssh-rsa") + field(b"\x01\x00\x01") + field(b"\x00" + b"\xc3" * 256)
    assert ssh_key_problem("ssh-rsa " + base64.b64encode(blob).decode()) is None


def test_banner_lines_are_free_text(tmp_path: Path) -> None:
    r = run_system(tmp_path, "eos", system=SYSTEM_YML.replace("    - Second line", "    - EOF"))
    assert _findings(r) == [("SCH003", "system.yml", 40, 7)]
    r = run_system(tmp_path / "b", "eos", system=SYSTEM_YML.replace("    - Second line", "    - '{{ x }}'"))
    assert _findings(r) == [("SEC004", "system.yml", 40, 7)]


def test_eos_sizing_skeleton_carries_the_push_account(tmp_path: Path) -> None:
    # `fabric size --inventory` promises a skeleton that validates; on EOS that needs the push account (MGMT001)
    from railfabric.plan.sizing import host_preset, inventory_skeleton, size_fabric, switch_preset
    from tests.helpers import write_files

    text = inventory_skeleton(size_fabric(256, host_preset("dgx-h100"), switch_preset("qm9700")), platform="eos")
    assert "system:" in text and "{vault: netops_password_hash}" in text
    res = run(write_files(tmp_path / "inv", {"fabric.yml": text}))
    # the only error left is the model's missing ASIC family (HW006: the preset names none EOS has a form for)
    assert [f.code for f in res.findings if f.severity.value == "error"] == ["HW006"]
    text = text.replace("qm9700: {ports: 64, speed: 400G}", "qm9700: {ports: 64, speed: 400G, asic: tomahawk-5}")
    res = run(write_files(tmp_path / "inv2", {"fabric.yml": text}))
    assert [f for f in res.findings if f.severity.value == "error"] == []
