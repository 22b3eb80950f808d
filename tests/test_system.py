"""The management plane and baseline (`system:`): schema, per-device override, secrets, MGMT findings, rendering.

The fabric is tests/helpers.py's small inventory (one pod, 2 spines, one single-rail segment with 2 rail switches)
plus a hand-written `system.yml`, so every finding's line and column are known from the text below. Hand
derivations of the addresses (fabric/allocate.py, fabric/topology.py):
- limits: super_spines 8, pods 4, spines_per_pod 8, rail_switches_per_segment 8, segments_per_pod 4. Rail switch
  slots start after every spine slot: 8 + 4·8 = 40; p1-s1-rail0 (pod 1, segment 1, k=1) has slot 40, p1-s1-rail1
  (k=2) slot 41.
- management pool 192.168.0.0/16, first_offset 16, no gateway → gateway 192.168.0.1 (first address);
  p1-s1-rail1 = 192.168.0.0 + 16 + 41 = 192.168.0.57/16, p1-s1-rail0 = 192.168.0.56/16.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from fabric.device import DeviceConfig, build_devices
from fabric.intent import json_schema
from fabric.intent_system import ssh_key_problem
from fabric.pipeline import Result, run
from fabric.render import render_device
from fabric.rules.codes import CODES
from tests.helpers import base_inventory, dump, write_files

# A throwaway ed25519 public key (its private half was never kept).
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOnAs8AOnQ5VK1ANul2Dl4EbuEo0kKobDwft0p30/8nK netops@jump1"

# Line numbers matter: findings are asserted at them.
SYSTEM_YML = f"""\
system:
  management:
    vrf: OOB
  users:
    netops:
      role: network-admin
      password: {{vault: netops_hash}}
      ssh_keys:
        - {KEY}
    viewer:
      role: network-operator
      password: {{vault: viewer_hash}}
  push_user: netops
  aaa:
    tacacs:
      key: {{vault: tacacs_key}}
      servers:
        - {{address: 192.0.2.10}}
        - {{address: 192.0.2.11, port: 4949, key: {{vault: tacacs_key_b}}}}
    radius:
      key: {{vault: radius_key}}
      servers:
        - {{address: 192.0.2.12}}
    login: [tacacs, radius, local]
  ntp:
    servers: [192.0.2.20, 192.0.2.21]
  dns:
    servers: [192.0.2.30]
    domain: mini.example.net
  syslog:
    - {{address: 192.0.2.40, port: 601, protocol: tcp}}
    - {{address: 192.0.2.41}}
  snmp:
    location: Row 7
    contact: noc@example.net
    users:
      monitor: {{auth: {{vault: snmp_auth}}, priv: {{vault: snmp_priv}}}}
  banner:
    - Authorized access only
    - Second line
"""

DEVICES_YML = """\
devices:
  p1-s1-rail0:
    system:
      ntp: {servers: [192.0.2.22]}
"""

VAULT_NAMES = ("netops_hash", "radius_key", "snmp_auth", "snmp_priv", "tacacs_key", "tacacs_key_b", "viewer_hash")


def _inventory(tmp: Path, platform: str, system: str = SYSTEM_YML, devices: str = DEVICES_YML,
               base: dict | None = None) -> Path:
    data = base or base_inventory()
    data["fabric"]["platform"] = platform
    files = {"fabric.yml": dump(data), "system.yml": system}
    if devices:
        files["devices.yml"] = devices
    return write_files(tmp / "inv", files)


def _run(tmp: Path, platform: str, **kw) -> Result:
    return run(_inventory(tmp, platform, **kw))


def _devices(r: Result) -> dict[str, DeviceConfig]:
    assert r.inventory is not None and r.topology is not None and r.plan is not None
    return build_devices(r.inventory, r.topology, r.plan)


@pytest.fixture(scope="module")
def eos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    r = _run(tmp_path_factory.mktemp("eos"), "eos")
    assert r.findings == [], [str(f) for f in r.findings]
    return {name: render_device(d)["running-config.cfg"] for name, d in _devices(r).items()}


@pytest.fixture(scope="module")
def sonic(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    r = _run(tmp_path_factory.mktemp("sonic"), "sonic")
    assert r.findings == [], [str(f) for f in r.findings]
    return {name: json.loads(render_device(d)["config_db.json"]) for name, d in _devices(r).items()}


def _between(text: str, first: str, last: str) -> list[str]:
    lines = text.splitlines()
    i = lines.index(first)
    return lines[i:lines.index(last, i) + 1]


# --------------------------------------------------------------------------- EOS


def test_eos_services_and_accounts(eos: dict[str, str]) -> None:
    # every service names VRF OOB (management.vrf) and sources from Management1; NTP's first server is preferred;
    # TACACS+ server 2 has its own port and key; login tries TACACS+, then RADIUS, then the local accounts, and
    # exec authorization follows the same order; users sorted by name, the admin at privilege 15, the operator at 1.
    assert _between(eos["p1-s1-rail1"], "hostname p1-s1-rail1", "username viewer privilege 1 role network-operator "
                    "secret sha512 %%vault:viewer_hash%%") == [
        "hostname p1-s1-rail1",
        "!",
        "ip domain lookup vrf OOB source-interface Management1",
        "ip name-server vrf OOB 192.0.2.30",
        "dns domain mini.example.net",
        "!",
        "ntp local-interface vrf OOB Management1",
        "ntp server vrf OOB 192.0.2.20 prefer",
        "ntp server vrf OOB 192.0.2.21",
        "!",
        "snmp-server contact noc@example.net",
        "snmp-server location Row 7",
        "snmp-server vrf OOB local-interface Management1",
        "snmp-server view RAILFABRIC-RO iso included",
        "snmp-server group RAILFABRIC-RO v3 priv read RAILFABRIC-RO",
        "snmp-server user monitor RAILFABRIC-RO v3 auth sha %%vault:snmp_auth%% priv aes %%vault:snmp_priv%%",
        "snmp-server vrf OOB",
        "!",
        "logging vrf OOB host 192.0.2.40 601 protocol tcp",
        "logging vrf OOB host 192.0.2.41 514",
        "logging vrf OOB source-interface Management1",
        "!",
        "aaa group server tacacs+ TACACS",
        "   server 192.0.2.10 vrf OOB",
        "   server 192.0.2.11 vrf OOB",
        "!",
        "aaa group server radius RADIUS",
        "   server 192.0.2.12 vrf OOB",
        "!",
        "tacacs-server host 192.0.2.10 vrf OOB key 0 %%vault:tacacs_key%%",
        "tacacs-server host 192.0.2.11 vrf OOB port 4949 key 0 %%vault:tacacs_key_b%%",
        "!",
        "radius-server host 192.0.2.12 vrf OOB key 0 %%vault:radius_key%%",
        "!",
        "aaa authentication login default group TACACS group RADIUS local",
        "aaa authorization exec default group TACACS group RADIUS local",
        "!",
        "username netops privilege 15 role network-admin secret sha512 %%vault:netops_hash%%",
        f"username netops ssh-key {KEY}",
        "username viewer privilege 1 role network-operator secret sha512 %%vault:viewer_hash%%",
    ]


def test_eos_management_interface_vrf_and_access(eos: dict[str, str]) -> None:
    text = eos["p1-s1-rail1"]
    lines = text.splitlines()
    assert "vrf instance OOB" in lines and "vrf instance MGMT" not in lines
    assert _between(text, "interface Management1", "   ip address 192.168.0.57/16") == [
        "interface Management1", "   vrf OOB", "   ip address 192.168.0.57/16"]
    # the AAA clients' source interface, after the interfaces (the rail SVI Vlan101 is the last one: rail 1)
    assert _between(text, "   ip address 172.16.1.1/24", "ip routing") == [
        "   ip address 172.16.1.1/24", "!", "ip tacacs vrf OOB source-interface Management1",
        "ip radius vrf OOB source-interface Management1", "!", "ip routing"]
    assert "no ip routing vrf OOB" in lines
    assert "ip route vrf OOB 0.0.0.0/0 192.168.0.1" in lines
    # banner, then eAPI over HTTPS and SSH, each enabled in the management VRF, then the end of the file
    assert lines[lines.index("banner login"):] == [
        "banner login", "Authorized access only", "Second line", "EOF", "!",
        "management api http-commands", "   protocol https", "   no shutdown", "   !", "   vrf OOB",
        "      no shutdown", "!",
        "management ssh", "   no shutdown", "   !", "   vrf OOB", "      no shutdown", "!",
        "end"]
    assert "MGMT" not in text


def test_eos_per_device_override_replaces_only_its_key(eos: dict[str, str]) -> None:
    # p1-s1-rail0's system: writes ntp only: its NTP servers are its own, every other key is fabric-wide
    rail0 = eos["p1-s1-rail0"].splitlines()
    i = rail0.index("ntp local-interface vrf OOB Management1")
    assert rail0[i:i + 3] == ["ntp local-interface vrf OOB Management1", "ntp server vrf OOB 192.0.2.22 prefer", "!"]
    assert "ntp server vrf OOB 192.0.2.20 prefer" in eos["p1-s1-rail1"].splitlines()
    assert [ln for ln in rail0 if ln.startswith(("username", "tacacs-server", "logging"))] == \
           [ln for ln in eos["p1-s1-rail1"].splitlines() if ln.startswith(("username", "tacacs-server", "logging"))]


def test_eos_services_off_are_shut(tmp_path: Path) -> None:
    system = SYSTEM_YML.replace("    vrf: OOB\n", "    vrf: OOB\n    eapi: false\n")
    r = _run(tmp_path, "eos", system=system)
    assert r.findings == []
    dev = _devices(r)["p1-spine1"]
    assert dev.system.access == ("ssh",)
    text = render_device(dev)["running-config.cfg"]
    assert _between(text, "management api http-commands", "management ssh") == [
        "management api http-commands", "   shutdown", "!", "management ssh"]


# --------------------------------------------------------------------------- SONiC


def test_sonic_management_tables(sonic: dict[str, dict]) -> None:
    c = sonic["p1-s1-rail1"]
    # MGMT_INTERFACE's name is a leafref to MGMT_PORT; every VRF-aware table names SONiC's fixed VRF "mgmt", which
    # needs mgmtVrfEnabled (sonic-ntp/sonic-syslog must conditions)
    assert c["MGMT_PORT"] == {"eth0": {"admin_status": "up", "alias": "eth0"}}
    assert c["MGMT_INTERFACE"] == {"eth0|192.168.0.57/16": {"gwaddr": "192.168.0.1"}}
    assert c["MGMT_VRF_CONFIG"] == {"vrf_global": {"mgmtVrfEnabled": "true"}}
    assert c["NTP"] == {"global": {"vrf": "mgmt", "src_intf": "eth0"}}
    assert c["NTP_SERVER"] == {"192.0.2.20": {"association_type": "server", "iburst": "on"},
                               "192.0.2.21": {"association_type": "server", "iburst": "on"}}
    assert c["DNS_NAMESERVER"] == {"192.0.2.30": {}}
    assert c["DNS_OPTIONS"] == {"GLOBAL": {"search": ["mini.example.net"]}}
    assert c["SYSLOG_SERVER"] == {"192.0.2.40": {"port": "601", "protocol": "tcp", "vrf": "mgmt"},
                                  "192.0.2.41": {"port": "514", "protocol": "udp", "vrf": "mgmt"}}
    # AAA login with tacacs+ needs TACPLUS|global passkey (sonic-system-aaa must); the first server is tried first
    # (higher priority); server 2 keeps its own port and key
    assert c["TACPLUS"] == {"global": {"passkey": "%%vault:tacacs_key%%", "src_intf": "eth0"}}
    assert c["TACPLUS_SERVER"] == {
        "192.0.2.10": {"tcp_port": "49", "passkey": "%%vault:tacacs_key%%", "priority": "2", "vrf": "mgmt"},
        "192.0.2.11": {"tcp_port": "4949", "passkey": "%%vault:tacacs_key_b%%", "priority": "1", "vrf": "mgmt"}}
    assert c["RADIUS"] == {"global": {"passkey": "%%vault:radius_key%%"}}
    assert c["RADIUS_SERVER"] == {"192.0.2.12": {"auth_port": "1812", "passkey": "%%vault:radius_key%%",
                                                 "priority": "1", "vrf": "mgmt", "src_intf": "eth0"}}
    assert c["AAA"] == {"authentication": {"login": "tacacs+,radius,local"}}
    assert c["SNMP"] == {"CONTACT": {"Contact": "noc@example.net"}, "LOCATION": {"Location": "Row 7"}}
    assert c["SNMP_AGENT_ADDRESS_CONFIG"] == {"192.168.0.57|161|mgmt": {}}
    assert c["SNMP_USER"] == {"monitor": {
        "SNMP_USER_TYPE": "Priv", "SNMP_USER_PERMISSION": "RO", "SNMP_USER_AUTH_TYPE": "SHA",
        "SNMP_USER_AUTH_PASSWORD": "%%vault:snmp_auth%%", "SNMP_USER_ENCRYPTION_TYPE": "AES",
        "SNMP_USER_ENCRYPTION_PASSWORD": "%%vault:snmp_priv%%"}}
    assert c["BANNER_MESSAGE"] == {"global": {"state": "enabled", "login": "Authorized access only\nSecond line"}}
    assert sonic["p1-s1-rail0"]["NTP_SERVER"] == {"192.0.2.22": {"association_type": "server", "iburst": "on"}}


def test_sonic_without_system_is_not_an_error(tmp_path: Path) -> None:
    # a SONiC push logs in with a Linux account that is not part of config_db: no system: is fine there, and the
    # management port, VRF and local-only login are still written (the push replaces the whole file)
    r = _run(tmp_path, "sonic", system="fabric: {}\n", devices="")
    assert r.findings == []
    c = json.loads(render_device(_devices(r)["p1-s1-rail1"])["config_db.json"])
    assert c["MGMT_PORT"] == {"eth0": {"admin_status": "up", "alias": "eth0"}}
    assert c["MGMT_VRF_CONFIG"] == {"vrf_global": {"mgmtVrfEnabled": "true"}}
    assert c["AAA"] == {"authentication": {"login": "local"}}
    assert not {"NTP", "TACPLUS", "SNMP_USER", "BANNER_MESSAGE"} & set(c)


def test_model_exposes_what_the_push_needs(tmp_path: Path) -> None:
    r = _run(tmp_path, "sonic")
    s = _devices(r)["p1-s1-rail1"].system
    assert s.push_user == "netops" and s.user("netops") is not None and s.user("netops").admin  # type: ignore[union-attr]
    assert [(u.name, u.role, u.privilege, u.secret, u.ssh_keys) for u in s.users] == [
        ("netops", "network-admin", 15, "%%vault:netops_hash%%", (KEY,)),
        ("viewer", "network-operator", 1, "%%vault:viewer_hash%%", ())]
    assert s.vault_names == VAULT_NAMES
    # SONiC: SSH only (eAPI is EOS's); the playbook's view of it, JSON-serialisable
    assert json.loads(json.dumps(s.push_vars())) == {
        "push_user": "netops", "management_access": ["ssh"], "management_vrf": "mgmt",
        "vault_variables": list(VAULT_NAMES),
        "local_users": [
            {"name": "netops", "role": "network-admin", "privilege": 15, "password_hash": "%%vault:netops_hash%%",
             "ssh_keys": [KEY]},
            {"name": "viewer", "role": "network-operator", "privilege": 1, "password_hash": "%%vault:viewer_hash%%",
             "ssh_keys": []}]}


# --------------------------------------------------------------------------- secrets


def test_every_secret_is_a_placeholder(eos: dict[str, str], sonic: dict[str, dict]) -> None:
    eos_text = eos["p1-s1-rail1"]
    sonic_text = json.dumps(sonic["p1-s1-rail1"])
    for name in VAULT_NAMES:
        assert f"%%vault:{name}%%" in eos_text, name
        # in JSON the placeholder stays byte for byte (no character of it needs escaping)
        assert json.dumps(f"%%vault:{name}%%") == f'"%%vault:{name}%%"'
    for name in set(VAULT_NAMES) - {"netops_hash", "viewer_hash"}:  # SONiC users are Linux accounts
        assert f"%%vault:{name}%%" in sonic_text, name
    for text in (eos_text, sonic_text):
        assert "{{" not in text and "{%" not in text and "'vault'" not in text


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
    r = _run(tmp_path, "sonic", system=SYSTEM_YML.replace(old, new))
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
    r = _run(tmp_path, "sonic", system=SYSTEM_YML.replace("{vault: viewer_hash}", "{vault: Viewer-Hash}"))
    assert [(f.code, f.location.line if f.location else 0) for f in r.findings] == [("SCH003", 12)]


# --------------------------------------------------------------------------- MGMT findings


def _findings(r: Result) -> list[tuple[str, str, int, int]]:
    return [(f.code, Path(f.location.file).name if f.location else "", f.location.line if f.location else 0,
             f.location.col if f.location else 0) for f in r.findings]


def test_eos_without_system_is_refused_with_the_minimal_block(tmp_path: Path) -> None:
    # base inventory dumped: line 1 "fabric:", 2 "  name: mini", 3 "  platform: eos" (value at column 13)
    r = _run(tmp_path, "eos", system="fabric: {}\n", devices="")
    assert _findings(r) == [("MGMT001", "fabric.yml", 3, 13)]
    f = r.findings[0]
    assert f.message.startswith("4 eos switch(es) (p1-s1-rail0, p1-s1-rail1, p1-spine1, ...)")
    assert "push_user: netops" in f.hint and "{vault: netops_password_hash}" in f.hint


def test_mixed_fabric_eos_device_without_users(tmp_path: Path) -> None:
    # one EOS spine in a SONiC fabric: the finding points at the override that made it EOS (devices.yml line 3)
    r = _run(tmp_path, "sonic", system="fabric: {}\n", devices="devices:\n  p1-spine2:\n    platform: eos\n")
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
    r = _run(tmp_path, platform, system=SYSTEM_YML.replace(old, new))
    assert _findings(r) == expected, [str(f) for f in r.findings]
    for f in r.findings:
        assert f.hint and f.code in CODES


def test_push_user_without_credential(tmp_path: Path) -> None:
    # SONiC accounts may be key-only, but an account with neither a key nor a password cannot log in
    system = SYSTEM_YML.replace("      password: {vault: netops_hash}\n", "").replace(f"        - {KEY}\n", "") \
        .replace("      ssh_keys:\n", "")
    r = _run(tmp_path, "sonic", system=system)
    assert _findings(r) == [("MGMT005", "system.yml", 6, 7)]


def test_override_finding_points_at_the_override(tmp_path: Path) -> None:
    # devices.yml: p1-s1-rail0's system: replaces users with an account that has no password (EOS: MGMT010) and
    # push_user netops no longer exists there (MGMT003); the fabric-wide block stays clean
    devices = ("devices:\n  p1-s1-rail0:\n    system:\n      users:\n        ops: {role: network-admin, "
               "ssh_keys: [" + KEY + "]}\n")
    r = _run(tmp_path, "eos", devices=devices)
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
    devs = _devices(r)
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
    r = _run(tmp_path, "eos", system=SYSTEM_YML.replace("    - Second line", "    - EOF"))
    assert _findings(r) == [("SCH003", "system.yml", 40, 7)]
    r = _run(tmp_path / "b", "eos", system=SYSTEM_YML.replace("    - Second line", "    - '{{ x }}'"))
    assert _findings(r) == [("SEC004", "system.yml", 40, 7)]


# --------------------------------------------------------------------------- SONiC YANG shapes
# What sonic-buildimage src/sonic-yang-models/yang-models (commit 086b03bd) allows in each table this partial writes,
# read from sonic-mgmt_port, sonic-mgmt_interface, sonic-mgmt_vrf, sonic-ntp, sonic-dns, sonic-syslog,
# sonic-system-tacacs, sonic-system-radius, sonic-system-aaa, sonic-snmp and sonic-banner.yang: the leaves of each
# list entry or container, and the list sizes (max-elements). A real SONiC validates the file against these models
# (Generic Config Updater) once the push has resolved the placeholders, so the check runs on the resolved file.
YANG_LEAVES = {
    "MGMT_PORT": {"alias", "admin_status", "speed", "autoneg", "description", "mtu"},
    "MGMT_INTERFACE": {"gwaddr", "forced_mgmt_routes"},
    "MGMT_VRF_CONFIG": {"mgmtVrfEnabled"},
    "NTP": {"src_intf", "vrf", "authentication", "dhcp", "server_role", "admin_state"},
    "NTP_SERVER": {"association_type", "iburst", "key", "resolve_as", "admin_state", "trusted", "version"},
    "DNS_NAMESERVER": set(),
    "DNS_OPTIONS": {"search", "ndots", "timeout", "attempts"},
    "SYSLOG_SERVER": {"source", "port", "vrf", "filter", "filter_regex", "protocol", "severity"},
    "TACPLUS": {"auth_type", "timeout", "key_encrypt", "passkey", "src_intf"},
    "TACPLUS_SERVER": {"priority", "tcp_port", "timeout", "auth_type", "key_encrypt", "passkey", "vrf"},
    "RADIUS": {"passkey", "auth_type", "src_ip", "nas_ip", "statistics", "timeout", "retransmit"},
    "RADIUS_SERVER": {"auth_port", "passkey", "auth_type", "priority", "timeout", "retransmit", "vrf", "src_intf"},
    "AAA": {"login", "failthrough", "fallback", "debug", "trace"},
    "SNMP": {"Contact", "Location"},
    "SNMP_AGENT_ADDRESS_CONFIG": set(),
    "SNMP_USER": {"SNMP_USER_TYPE", "SNMP_USER_PERMISSION", "SNMP_USER_AUTH_TYPE", "SNMP_USER_AUTH_PASSWORD",
                  "SNMP_USER_ENCRYPTION_TYPE", "SNMP_USER_ENCRYPTION_PASSWORD"},
    "BANNER_MESSAGE": {"state", "login", "motd", "logout"},
}
YANG_MAX = {"NTP_SERVER": 10, "DNS_NAMESERVER": 3, "TACPLUS_SERVER": 8, "RADIUS_SERVER": 8}


def _resolve(text: str) -> str:
    """What the push does: every placeholder replaced by the vault variable's value (here a sample one that obeys
    the strictest YANG pattern: no space, '#', ',', '@' or ':', 8 characters or more)."""
    return re.sub(r"%%vault:([a-z_][a-z0-9_]*)%%", lambda m: f"S3cret-{m.group(1)}", text)


def test_sonic_tables_fit_the_yang_models(tmp_path: Path) -> None:
    r = _run(tmp_path, "sonic")
    for name, dev in _devices(r).items():
        c = json.loads(_resolve(render_device(dev)["config_db.json"]))
        for table, leaves in YANG_LEAVES.items():
            for key, row in c.get(table, {}).items():  # list entries and containers (global, CONTACT, ...)
                assert set(row) <= leaves, (name, table, key, set(row) - leaves)
            assert len(c.get(table, {})) <= YANG_MAX.get(table, 1 << 16), (name, table)
        # leafrefs: MGMT_INTERFACE name and every src_intf are MGMT_PORT names
        ports = set(c["MGMT_PORT"])
        assert {k.split("|")[0] for k in c["MGMT_INTERFACE"]} <= ports
        srcs = [c["NTP"]["global"]["src_intf"], c["TACPLUS"]["global"]["src_intf"],
                *(row["src_intf"] for row in c["RADIUS_SERVER"].values())]
        assert set(srcs) <= ports, name
        # vrf 'mgmt' needs mgmtVrfEnabled (sonic-ntp, sonic-syslog must statements); TACACS+/RADIUS vrf mgmt|default
        assert c["MGMT_VRF_CONFIG"]["vrf_global"]["mgmtVrfEnabled"] == "true"
        vrfs = [c["NTP"]["global"]["vrf"], *(row["vrf"] for t in ("SYSLOG_SERVER", "TACPLUS_SERVER", "RADIUS_SERVER")
                                             for row in c[t].values())]
        assert set(vrfs) == {"mgmt"}
        # patterns: AAA login list, shared secrets [^ #,]* (TACACS 1..256, RADIUS 1..65), SNMP passwords [^ @:]*
        # of 8..64 with AUTH_TYPE SHA|MD5|HMAC-SHA-2 and ENCRYPTION_TYPE DES|AES for a Priv user
        assert re.fullmatch(r"((ldap|tacacs\+|local|radius|default),)*(ldap|tacacs\+|local|radius|default)",
                            c["AAA"]["authentication"]["login"])
        for table, top in (("TACPLUS", 256), ("RADIUS", 65)):
            for row in (c[table]["global"], *c[f"{table}_SERVER"].values()):
                assert re.fullmatch(r"[^ #,]*", row["passkey"]) and 1 <= len(row["passkey"]) <= top
        for user, row in c["SNMP_USER"].items():
            assert 4 <= len(user) <= 32 and re.fullmatch(r"[^ :@,\\'\"]*", user)
            assert row["SNMP_USER_TYPE"] == "Priv" and row["SNMP_USER_AUTH_TYPE"] in {"SHA", "MD5", "HMAC-SHA-2"}
            assert row["SNMP_USER_ENCRYPTION_TYPE"] in {"DES", "AES"}
            for pw in (row["SNMP_USER_AUTH_PASSWORD"], row["SNMP_USER_ENCRYPTION_PASSWORD"]):
                assert re.fullmatch(r"[^ @:]{8,64}", pw), pw
        assert c["BANNER_MESSAGE"]["global"]["state"] in {"enabled", "disabled"}
