"""`system:` rendered: exact EOS lines and SONiC tables of named switches, the per-device override, placeholders,
and the SONiC tables checked against the YANG models' leaves and patterns. The fabric and its hand derivations are in
tests/system_inventory.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from railfabric.configs.render import render_device
from tests.system_inventory import KEY, SYSTEM_YML, VAULT_NAMES, devices_of, run_system


@pytest.fixture(scope="module")
def eos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    r = run_system(tmp_path_factory.mktemp("eos"), "eos")
    assert r.findings == [], [str(f) for f in r.findings]
    return {name: render_device(d)["running-config.cfg"] for name, d in devices_of(r).items()}


@pytest.fixture(scope="module")
def sonic(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    r = run_system(tmp_path_factory.mktemp("sonic"), "sonic")
    assert r.findings == [], [str(f) for f in r.findings]
    return {name: json.loads(render_device(d)["config_db.json"]) for name, d in devices_of(r).items()}


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
                    "secret sha512 %%vault.viewer_hash%%") == [
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
        "snmp-server user monitor RAILFABRIC-RO v3 auth sha %%vault.snmp_auth%% priv aes %%vault.snmp_priv%%",
        "snmp-server vrf OOB",
        "!",
        "logging vrf OOB host 192.0.2.40 601 protocol tcp",
        "logging vrf OOB host 192.0.2.41",  # UDP on the default port 514: EOS leaves the port out
        "logging vrf OOB source-interface Management1",
        "!",
        "aaa group server tacacs+ TACACS",
        "   server 192.0.2.10 vrf OOB",
        "   server 192.0.2.11 vrf OOB",
        "!",
        "aaa group server radius RADIUS",
        "   server 192.0.2.12 vrf OOB",
        "!",
        "tacacs-server host 192.0.2.10 vrf OOB key 0 %%vault.tacacs_key%%",
        "tacacs-server host 192.0.2.11 vrf OOB port 4949 key 0 %%vault.tacacs_key_b%%",
        "!",
        "radius-server host 192.0.2.12 vrf OOB key 0 %%vault.radius_key%%",
        "!",
        "aaa authentication login default group TACACS group RADIUS local",
        "aaa authorization exec default group TACACS group RADIUS local",
        "!",
        "username netops privilege 15 role network-admin secret sha512 %%vault.netops_hash%%",
        f"username netops ssh-key {KEY}",
        "username viewer privilege 1 role network-operator secret sha512 %%vault.viewer_hash%%",
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
    r = run_system(tmp_path, "eos", system=system)
    assert r.findings == []
    dev = devices_of(r)["p1-spine1"]
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
    assert c["TACPLUS"] == {"global": {"passkey": "%%vault.tacacs_key%%", "src_intf": "eth0"}}
    assert c["TACPLUS_SERVER"] == {
        "192.0.2.10": {"tcp_port": "49", "passkey": "%%vault.tacacs_key%%", "priority": "2", "vrf": "mgmt"},
        "192.0.2.11": {"tcp_port": "4949", "passkey": "%%vault.tacacs_key_b%%", "priority": "1", "vrf": "mgmt"}}
    assert c["RADIUS"] == {"global": {"passkey": "%%vault.radius_key%%"}}
    assert c["RADIUS_SERVER"] == {"192.0.2.12": {"auth_port": "1812", "passkey": "%%vault.radius_key%%",
                                                 "priority": "1", "vrf": "mgmt", "src_intf": "eth0"}}
    assert c["AAA"] == {"authentication": {"login": "tacacs+,radius,local"}}
    assert c["SNMP"] == {"CONTACT": {"Contact": "noc@example.net"}, "LOCATION": {"Location": "Row 7"}}
    assert c["SNMP_AGENT_ADDRESS_CONFIG"] == {"192.168.0.57|161|mgmt": {}}
    assert c["SNMP_USER"] == {"monitor": {
        "SNMP_USER_TYPE": "Priv", "SNMP_USER_PERMISSION": "RO", "SNMP_USER_AUTH_TYPE": "SHA",
        "SNMP_USER_AUTH_PASSWORD": "%%vault.snmp_auth%%", "SNMP_USER_ENCRYPTION_TYPE": "AES",
        "SNMP_USER_ENCRYPTION_PASSWORD": "%%vault.snmp_priv%%"}}
    assert c["BANNER_MESSAGE"] == {"global": {"state": "enabled", "login": "Authorized access only\nSecond line"}}
    assert sonic["p1-s1-rail0"]["NTP_SERVER"] == {"192.0.2.22": {"association_type": "server", "iburst": "on"}}


def test_sonic_without_system_is_not_an_error(tmp_path: Path) -> None:
    # a SONiC push logs in with a Linux account that is not part of config_db: no system: is fine there, and the
    # management port, VRF and local-only login are still written (the push replaces the whole file)
    r = run_system(tmp_path, "sonic", system="fabric: {}\n", devices="")
    assert r.findings == []
    c = json.loads(render_device(devices_of(r)["p1-s1-rail1"])["config_db.json"])
    assert c["MGMT_PORT"] == {"eth0": {"admin_status": "up", "alias": "eth0"}}
    assert c["MGMT_VRF_CONFIG"] == {"vrf_global": {"mgmtVrfEnabled": "true"}}
    assert c["AAA"] == {"authentication": {"login": "local"}}
    assert not {"NTP", "TACPLUS", "SNMP_USER", "BANNER_MESSAGE"} & set(c)


def test_model_exposes_what_the_push_needs(tmp_path: Path) -> None:
    r = run_system(tmp_path, "sonic")
    s = devices_of(r)["p1-s1-rail1"].system
    assert s.push_user == "netops" and s.user("netops") is not None and s.user("netops").admin  # type: ignore[union-attr]
    assert [(u.name, u.role, u.privilege, u.secret, u.ssh_keys) for u in s.users] == [
        ("netops", "network-admin", 15, "%%vault.netops_hash%%", (KEY,)),
        ("viewer", "network-operator", 1, "%%vault.viewer_hash%%", ())]
    assert s.vault_names == VAULT_NAMES
    # SONiC: SSH only (eAPI is EOS's); the playbook's view of it, JSON-serialisable
    assert json.loads(json.dumps(s.push_vars())) == {
        "push_user": "netops", "management_access": ["ssh"], "management_vrf": "mgmt",
        "vault_variables": list(VAULT_NAMES),
        "local_users": [
            {"name": "netops", "role": "network-admin", "privilege": 15, "password_hash": "%%vault.netops_hash%%",
             "ssh_keys": [KEY]},
            {"name": "viewer", "role": "network-operator", "privilege": 1, "password_hash": "%%vault.viewer_hash%%",
             "ssh_keys": []}]}

# --------------------------------------------------------------------------- secrets


def test_every_secret_is_a_placeholder(eos: dict[str, str], sonic: dict[str, dict]) -> None:
    eos_text = eos["p1-s1-rail1"]
    sonic_text = json.dumps(sonic["p1-s1-rail1"])
    for name in VAULT_NAMES:
        assert f"%%vault.{name}%%" in eos_text, name
        # in JSON the placeholder stays byte for byte (no character of it needs escaping)
        assert json.dumps(f"%%vault.{name}%%") == f'"%%vault.{name}%%"'
    for name in set(VAULT_NAMES) - {"netops_hash", "viewer_hash"}:  # SONiC users are Linux accounts
        assert f"%%vault.{name}%%" in sonic_text, name
    for text in (eos_text, sonic_text):
        assert "{{" not in text and "{%" not in text and "'vault'" not in text


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
    return re.sub(r"%%vault.([a-z_][a-z0-9_]*)%%", lambda m: f"S3cret-{m.group(1)}", text)


def test_sonic_tables_fit_the_yang_models(tmp_path: Path) -> None:
    r = run_system(tmp_path, "sonic")
    for name, dev in devices_of(r).items():
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
