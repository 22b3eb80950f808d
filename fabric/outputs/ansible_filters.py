"""Ansible filter plugin for generated/ansible/deploy.yml: the rollout's decisions that run on the controller.

This file is copied verbatim to generated/ansible/filter_plugins/railfabric.py (Ansible loads filter plugins from a
`filter_plugins/` directory beside the playbook), so it must stand alone: standard library only, no railfabric
import. The tests import it as a module and run it through the real ansible-playbook.

Filters (all pure: text or data in, data out):
- rf_batches(sizes, cap): the play's `serial` list: every precomputed wave split into batches of at most `cap`.
- rf_vault_names(text) / rf_vault_resolve(text, values, kind): the `%%vault.NAME%%` placeholders of a rendered file
  and the file with each replaced by its value (JSON-escaped in JSON files; a value holding a line break or another
  control character is refused, so a secret can never add a configuration line).
- rf_eos_access_problems(text, user, connection) / rf_sonic_access_problems(config_db, address) /
  rf_nxos_access_problems(text, address, user, connection): why the resolved file would cut off the API or the
  account the push itself uses ([] when it would not).
- rf_merge_platform_facts(config_db, running_config_db): the file sent to a SONiC switch: the rendered tables
  (OWNED_TABLES), the switch's own DEVICE_METADATA facts (mac, platform; hwsku when the rendered file has none), and
  every table railfabric does not own (FEATURE, CRM, FLEX_COUNTER_TABLE, VERSIONS, ...) as the switch has it, so
  the replace never deletes what railfabric does not manage.
- rf_drain(text, platform, count) / rf_undrain(...): the configuration lines that drain a switch (AS-path prepend of
  its own ASN on every eBGP peer group, outbound) and undo it.
- rf_nvue_drain(doc, count) / rf_nvue_undrain(doc): the same as `nv set` / `nv unset` commands from a parsed NVUE
  startup.yaml; rf_nvue_access_problems(doc, address, user): the NVUE access check.
- rf_nxos_drained(text, count): an NX-OS running-config with the drain written in, the target of `configure
  replace` (a replace to the plain file would undrain the switch before it is verified);
  rf_nxos_replace_target(rendered, running): that file plus every top-level block of the switch's running-config
  railfabric does not own (version, boot, copp, line, ...).
- rf_junos_access_problems(text, address, user) and rf_junos_drained(text, count) / rf_junos_drain_lines(text,
  count) / rf_junos_undrain_lines(text): the Junos equivalents (junos.conf in the curly-brace hierarchy; drain and
  undrain as `set`/`delete` lines, the drained file as what `load override` commits while the switch is drained).
- rf_expected_rows(csv_text, device), rf_bgp_problems(show_json, rows), rf_lldp_problems(show_json, rows): the
  verification against generated/expected/; rf_established(show_json): the sessions up before the change, which a
  rollback must bring back.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

VAULT = re.compile(r"%%vault\.([a-z_][a-z0-9_]{0,47})%%")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
DRAIN_MAP = "RF-DRAIN"


class FilterError(ValueError):
    """Raised to fail the task (Ansible reports the message of any exception a filter raises)."""


# --------------------------------------------------------------------------- order


def rf_batches(sizes: list[int], cap: int | str = 1) -> list[int]:
    """[3, 1] with cap 2 → [2, 1, 1]: a batch never spans two waves, so it never holds two switches that conflict."""
    limit = int(cap)
    if limit < 1:
        raise FilterError(f"rollout_batch must be 1 or more, not {cap!r}")
    out: list[int] = []
    for size in sizes:
        left = int(size)
        while left > 0:
            out.append(min(limit, left))
            left -= limit
    return out or [1]


# --------------------------------------------------------------------------- secrets


def rf_vault_names(text: str) -> list[str]:
    return sorted(set(VAULT.findall(text)))


def rf_vault_resolve(text: str, values: dict[str, Any], kind: str = "text") -> str:
    """Replace every placeholder. `kind` json: the value is escaped as a JSON string body (the placeholders of
    config_db.json sit inside JSON strings)."""
    missing = [n for n in rf_vault_names(text) if values.get(n) is None]
    if missing:
        raise FilterError(f"undefined vault variable(s): {', '.join(missing)}")

    def value(m: re.Match[str]) -> str:
        secret = str(values[m.group(1)])
        if _CONTROL.search(secret):
            raise FilterError(f"vault variable {m.group(1)} holds a line break or control character: refused")
        return json.dumps(secret)[1:-1] if kind == "json" else secret

    return VAULT.sub(value, text)


# --------------------------------------------------------------------------- access guards


def _eos_blocks(text: str) -> dict[str, list[str]]:
    """Top-level EOS configuration line → its indented lines (stripped, nested levels kept with their indent)."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("!"):
            continue
        if raw[0] not in " \t":
            current = blocks.setdefault(raw.strip(), [])
        elif current is not None:
            current.append(raw.rstrip())
    return blocks


def _sub_block(lines: list[str], header: str) -> list[str] | None:
    """The lines under `header` (the first indent level) of a block's lines, or None when it is absent."""
    out: list[str] | None = None
    level = None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if level is None:
            level = indent
        if indent == level:
            if out is not None:
                break
            if line.strip() == header:
                out = []
        elif out is not None:
            out.append(line.strip())
    return out


def _top(lines: list[str]) -> list[str]:
    level = min((len(x) - len(x.lstrip()) for x in lines), default=0)
    return [x.strip() for x in lines if len(x) - len(x.lstrip()) == level]


def _eos_service_problems(blocks: dict[str, list[str]], header: str, vrf: str, shut_by_default: bool) -> list[str]:
    body = blocks.get(header)
    if body is None:
        return [f"no `{header}`"] if shut_by_default or vrf != "default" else []
    top = _top(body)
    problems = []
    if "shutdown" in top or (shut_by_default and "no shutdown" not in top):
        problems.append(f"`{header}` is shut down")
    if vrf != "default":
        sub = _sub_block(body, f"vrf {vrf}")
        if sub is None or "no shutdown" not in sub:
            problems.append(f"`{header}` is not enabled in VRF {vrf} (`vrf {vrf}` / `no shutdown`), the VRF of "
                            "Management1")
    return problems


def rf_eos_access_problems(text: str, user: str | None, connection: str = "") -> list[str]:
    """Why pushing this EOS running-config would cut the push off: the management API (eAPI, and SSH when the push
    uses the CLI) must stay enabled in the VRF of Management1, and the push account must keep network-admin."""
    blocks = _eos_blocks(text)
    vrf = "default"
    for line in blocks.get("interface Management1", []):
        m = re.fullmatch(r"vrf (?:forwarding )?(\S+)", line.strip())
        if m:
            vrf = m.group(1)
    problems = _eos_service_problems(blocks, "management api http-commands", vrf, shut_by_default=True)
    if "network_cli" in (connection or ""):
        problems += _eos_service_problems(blocks, "management ssh", vrf, shut_by_default=False)
    if not user:
        problems.append("ansible_user is not set: the push account cannot be checked")
    else:
        pattern = re.compile(rf"username {re.escape(user)} (?:.* )?(?:role network-admin|privilege 15)(?: .*)?")
        if not any(pattern.fullmatch(line) for line in blocks):
            problems.append(f"no `username {user} ... role network-admin` (or privilege 15): the push account "
                            "would lose its access")
    return problems


def rf_sonic_access_problems(config_db: dict[str, Any], address: str) -> list[str]:
    """Why pushing this config_db.json would cut the push off: eth0 must keep the address Ansible connects to and
    stay up."""
    problems = []
    mgmt = config_db.get("MGMT_INTERFACE") or {}
    kept = [k for k in mgmt if k.split("|")[0] == "eth0" and k.split("|")[-1].split("/")[0] == address]
    if not kept:
        have = ", ".join(sorted(mgmt)) or "none"
        problems.append(f"MGMT_INTERFACE has no eth0 entry with {address}, the address Ansible connects to "
                        f"(has: {have})")
    port = (config_db.get("MGMT_PORT") or {}).get("eth0")
    if port is None:
        problems.append("no MGMT_PORT|eth0 (MGMT_INTERFACE refers to it)")
    elif str(port.get("admin_status", "up")) != "up":
        problems.append(f"MGMT_PORT|eth0 admin_status is {port.get('admin_status')!r}, not up")
    return problems


def _nvue_set(doc: Any) -> dict[str, Any]:
    if not isinstance(doc, list) or not doc or not isinstance(doc[0], dict) or "set" not in doc[0]:
        raise FilterError("not an NVUE startup.yaml (a list whose item is `- set:`)")
    tree = doc[0]["set"]
    return tree if isinstance(tree, dict) else {}


def rf_nvue_access_problems(doc: Any, address: str, user: str) -> list[str]:
    """Why `nv config replace` + apply of this NVUE document would cut the push off: eth0 must keep the address
    Ansible connects to in VRF mgmt, the SSH server must stay in that VRF, and the push account must stay a
    system-admin (the replace deletes every account the file does not list)."""
    tree = _nvue_set(doc)
    problems = []
    eth0 = ((tree.get("interface") or {}).get("eth0") or {}).get("ip") or {}
    if not any(str(a).split("/")[0] == address for a in eth0.get("address") or {}):
        problems.append(f"interface eth0 has no address {address}, the address Ansible connects to")
    vrf = eth0.get("vrf")
    ssh = ((tree.get("system") or {}).get("ssh-server") or {}).get("vrf")
    if ssh != vrf:
        problems.append(f"system ssh-server vrf is {ssh!r}, not {vrf!r} (the VRF of eth0)")
    if not user:
        problems.append("ansible_user is not set: the push account cannot be checked")
    else:
        account = (((tree.get("system") or {}).get("aaa") or {}).get("user") or {}).get(user) or {}
        if account.get("role") != "system-admin":
            problems.append(f"no `system aaa user {user} role system-admin`: the push account would lose its access")
    return problems


# --------------------------------------------------------------------------- SONiC platform facts


# The CONFIG_DB tables railfabric renders for SONiC: `config replace` makes them exactly what the rendered file says
# (a table railfabric owns but did not render this time, such as MCLAG_DOMAIN after MLAG is removed, is deleted).
# Every other table belongs to the switch and is carried over from its running CONFIG_DB. Kept in step with
# templates/sonic/ by tests/test_rollout_filters.py.
OWNED_TABLES = frozenset({
    "AAA", "BANNER_MESSAGE", "BREAKOUT_CFG", "BUFFER_PG", "BUFFER_POOL", "BUFFER_PORT_EGRESS_PROFILE_LIST",
    "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PROFILE", "BUFFER_QUEUE", "CABLE_LENGTH", "DEVICE_METADATA",
    "DNS_NAMESERVER", "DNS_OPTIONS", "DSCP_TO_TC_MAP", "INTERFACE", "LOOPBACK_INTERFACE", "MAP_PFC_PRIORITY_TO_QUEUE",
    "MCLAG_DOMAIN", "MCLAG_INTERFACE", "MCLAG_UNIQUE_IP", "MGMT_INTERFACE", "MGMT_PORT", "MGMT_VRF_CONFIG", "NTP",
    "NTP_SERVER", "PFC_WD", "PORT", "PORTCHANNEL", "PORTCHANNEL_INTERFACE", "PORTCHANNEL_MEMBER", "PORT_QOS_MAP",
    "QUEUE", "RADIUS", "RADIUS_SERVER", "SCHEDULER", "SNMP", "SNMP_AGENT_ADDRESS_CONFIG", "SNMP_USER",
    "SYSLOG_SERVER", "TACPLUS", "TACPLUS_SERVER", "TC_TO_PRIORITY_GROUP_MAP", "TC_TO_QUEUE_MAP", "VLAN",
    "VLAN_INTERFACE", "VLAN_MEMBER", "WRED_PROFILE",
})


def rf_merge_platform_facts(config_db: dict[str, Any], running: dict[str, Any]) -> dict[str, Any]:
    """The target of `config replace`: the rendered file for the tables railfabric owns, the switch's own mac and
    platform (and its hwsku when the rendered file has none) in DEVICE_METADATA, and every table it does not own as
    the switch has it. `running` is the switch's whole CONFIG_DB (`sonic-cfggen -d --print-data`)."""
    if not isinstance(running, dict):
        raise FilterError("the running CONFIG_DB is not a JSON object of tables")
    out = json.loads(json.dumps(config_db))
    for table, rows in running.items():
        if table not in OWNED_TABLES and table not in out:
            out[table] = json.loads(json.dumps(rows))
    mine = (running.get("DEVICE_METADATA") or {}).get("localhost") or {}
    target = out.setdefault("DEVICE_METADATA", {}).setdefault("localhost", {})
    for key in ("mac", "platform"):
        if key in mine:
            target[key] = mine[key]
    if not target.get("hwsku") and mine.get("hwsku"):
        target["hwsku"] = mine["hwsku"]
    return out


def rf_nxos_access_problems(text: str, address: str, user: str | None, connection: str = "") -> list[str]:
    """Why pushing this NX-OS running-config would cut the push off: mgmt0 must keep the address Ansible connects to
    in the management VRF, SSH must stay on when the push uses the CLI (NX-API in the management VRF when it uses
    the API), and the push account must keep network-admin."""
    blocks = _eos_blocks(text)  # the same indented block layout
    mgmt = [line.strip() for line in blocks.get("interface mgmt0", [])]
    problems = []
    if "vrf member management" not in mgmt:
        problems.append("interface mgmt0 is not in `vrf member management`")
    if not any(re.fullmatch(rf"ip address {re.escape(address)}/\d+", line) for line in mgmt):
        problems.append(f"interface mgmt0 does not keep {address}, the address Ansible connects to")
    if "shutdown" in mgmt:
        problems.append("interface mgmt0 is shut down")
    if "network_cli" in (connection or "") and "no feature ssh" in blocks:
        problems.append("`no feature ssh`: the push connects over SSH")
    if "httpapi" in (connection or "") and ("feature nxapi" not in blocks or "nxapi use-vrf management" not in blocks):
        problems.append("NX-API is not enabled in the management VRF (`feature nxapi`, `nxapi use-vrf management`)")
    if not user:
        problems.append("ansible_user is not set: the push account cannot be checked")
    elif not any(re.fullmatch(rf"username {re.escape(user)} (?:.* )?role network-admin(?: .*)?", line)
                 for line in blocks):
        problems.append(f"no `username {user} ... role network-admin`: the push account would lose its access")
    return problems


def _nxos_access(directory: Path, host: str, user: str, connection: str) -> list[str]:
    return rf_nxos_access_problems((directory / "running-config.cfg").read_text(encoding="utf-8"), host, user,
                                   connection)


def _sonic_access(directory: Path, host: str, user: str, connection: str) -> list[str]:
    return rf_sonic_access_problems(json.loads((directory / "config_db.json").read_text(encoding="utf-8")), host)


def _eos_access(directory: Path, host: str, user: str, connection: str) -> list[str]:
    return rf_eos_access_problems((directory / "running-config.cfg").read_text(encoding="utf-8"), user, connection)


def _nvue_access(directory: Path, host: str, user: str, connection: str) -> list[str]:
    import yaml  # PyYAML: an ansible-core dependency, so present wherever this plugin runs

    doc = yaml.safe_load((directory / "startup.yaml").read_text(encoding="utf-8"))
    return rf_nvue_access_problems(doc, host, user)




_JUNOS_TOKEN = re.compile(r'\s+|/\*.*?\*/|"(?:[^"\\]|\\.)*"|[{};\[\]]|[^\s{};\[\]"]+', re.S)


def _junos_statements(text: str) -> list[tuple[str, ...]]:
    """Every statement of a Junos curly-brace configuration as its full path of words (block headers, then the
    statement's own words; a quoted string unquoted, a [ list ] flattened): `system services netconf ssh`."""
    out: list[tuple[str, ...]] = []
    stack: list[tuple[str, ...]] = [()]
    words: list[str] = []
    for m in _JUNOS_TOKEN.finditer(text):
        tok = m.group(0)
        if tok.isspace() or tok.startswith("/*") or tok in "[]":
            continue
        if tok == ";":
            out.append(stack[-1] + tuple(words))
            words = []
        elif tok == "{":
            stack.append(stack[-1] + tuple(words))
            out.append(stack[-1])
            words = []
        elif tok == "}":
            if len(stack) == 1:
                raise FilterError("junos.conf: unbalanced '}'")
            stack.pop()
        else:
            words.append(tok[1:-1] if tok.startswith('"') else tok)
    return out


def rf_junos_access_problems(text: str, address: str, user: str | None) -> list[str]:
    """Why `load override` of this junos.conf would cut the push off: the management port must keep the address
    Ansible connects to, NETCONF over SSH must stay on, and the push account must keep class super-user."""
    statements = set(_junos_statements(text))
    problems = []
    mgmt = [s for s in statements if s[:2] == ("interfaces", "re0:mgmt-0") and s[-2:-1] == ("address",)]
    if not any(s[-1].split("/")[0] == address for s in mgmt):
        have = ", ".join(sorted(s[-1] for s in mgmt)) or "none"
        problems.append(f"re0:mgmt-0 has no address {address}, the address Ansible connects to (has: {have})")
    if ("system", "services", "netconf", "ssh") not in statements:
        problems.append("no `system services netconf ssh`: the push's NETCONF session would be refused")
    if not user:
        problems.append("ansible_user is not set: the push account cannot be checked")
    elif ("system", "login", "user", user, "class", "super-user") not in statements:
        problems.append(f"no `system login user {user} class super-user`: the push account would lose its access")
    return problems


def _junos_access(directory: Path, host: str, user: str, connection: str) -> list[str]:
    return rf_junos_access_problems((directory / "junos.conf").read_text(encoding="utf-8"), host, user)


# platform → its check of the resolved files
ACCESS_CHECKS = {"sonic": _sonic_access, "eos": _eos_access, "nvue": _nvue_access, "nxos": _nxos_access,
                 "junos": _junos_access}


def rf_access_problems(directory: str, platform: str, host: str, user: str = "", connection: str = "") -> list[str]:
    """Why pushing the resolved files in `directory` (the pre-flight's private directory) to this switch would cut
    the push off: the platform's own check of the management access it keeps ([] = safe). A platform without a
    check is refused, never pushed blind."""
    check = ACCESS_CHECKS.get(platform)
    if check is None:
        raise FilterError(f"no management-access check for platform {platform!r}: refusing to push")
    return check(Path(directory), host, user or "", connection or "")


# --------------------------------------------------------------------------- drain


def _bgp_parts(text: str, platform: str) -> tuple[str, list[str]]:
    asn = re.search(r"^router bgp (\d+)\s*$", text, re.M)
    if asn is None:
        raise FilterError("no `router bgp` in the configuration: nothing to drain")
    if re.search(r"^\s+neighbor \S+ route-map \S+ out\s*$", text, re.M):
        raise FilterError("the configuration already applies an outbound route-map: the drain would replace it")
    if platform == "nxos":
        groups = re.findall(r"^  template peer (\S+)\s*$", text, re.M)
    else:
        group = r"peer group" if platform == "eos" else r"peer-group"
        groups = re.findall(rf"^\s+neighbor (\S+) {group}\s*$", text, re.M)
    if not groups:
        raise FilterError("no BGP peer group in the configuration: nothing to drain")
    return asn.group(1), groups


def rf_drain(text: str, platform: str, count: int | str = 3) -> str:
    """Lines that drain the switch: every route it advertises leaves with its own ASN prepended `count` more times,
    so every eBGP neighbour (in another AS, RFC 7938) prefers the same prefix through any other switch."""
    asn, groups = _bgp_parts(text, platform)
    prepend = " ".join([asn] * int(count))
    if platform == "nxos":  # template peer G / address-family ipv4 unicast / route-map RF-DRAIN out
        return "\n".join([f"route-map {DRAIN_MAP} permit 10", f"  set as-path prepend {prepend}",
                          f"router bgp {asn}", *[line for g in groups for line in (
                              f"  template peer {g}", "    address-family ipv4 unicast",
                              f"      route-map {DRAIN_MAP} out")]]) + "\n"
    if platform == "eos":
        return "\n".join([f"route-map {DRAIN_MAP} permit 10", f"   set as-path prepend {prepend}", "exit",
                          f"router bgp {asn}", *[f"   neighbor {g} route-map {DRAIN_MAP} out" for g in groups],
                          "exit"]) + "\n"
    return "\n".join([f"route-map {DRAIN_MAP} permit 10", f" set as-path prepend {prepend}", "exit",
                      f"router bgp {asn}", " address-family ipv4 unicast",
                      *[f"  neighbor {g} route-map {DRAIN_MAP} out" for g in groups],
                      " exit-address-family", "exit"]) + "\n"


def rf_undrain(text: str, platform: str) -> str:
    asn, groups = _bgp_parts(text, platform)
    if platform == "nxos":
        return "\n".join([f"router bgp {asn}", *[line for g in groups for line in (
            f"  template peer {g}", "    address-family ipv4 unicast", f"      no route-map {DRAIN_MAP} out")],
            f"no route-map {DRAIN_MAP}"]) + "\n"
    if platform == "eos":
        return "\n".join([f"router bgp {asn}", *[f"   no neighbor {g} route-map {DRAIN_MAP} out" for g in groups],
                          "exit", f"no route-map {DRAIN_MAP}"]) + "\n"
    return "\n".join([f"router bgp {asn}", " address-family ipv4 unicast",
                      *[f"  no neighbor {g} route-map {DRAIN_MAP} out" for g in groups],
                      " exit-address-family", "exit", f"no route-map {DRAIN_MAP}"]) + "\n"


def _nvue_groups(doc: Any) -> tuple[str, list[str]]:
    tree = _nvue_set(doc)
    asn = ((tree.get("router") or {}).get("bgp") or {}).get("autonomous-system")
    if asn is None:
        raise FilterError("no `router bgp autonomous-system` in the configuration: nothing to drain")
    bgp = (((tree.get("vrf") or {}).get("default") or {}).get("router") or {}).get("bgp") or {}
    groups = sorted(bgp.get("peer-group") or {})
    if not groups:
        raise FilterError("no BGP peer group in the configuration: nothing to drain")
    for name, g in (bgp.get("peer-group") or {}).items():
        if (((g or {}).get("address-family") or {}).get("ipv4-unicast") or {}).get("policy"):
            raise FilterError(f"peer group {name} already has an ipv4-unicast policy: the drain would replace it")
    return str(asn), groups


def rf_nvue_drain(doc: Any, count: int | str = 3) -> list[str]:
    """`nv set` commands that drain a Cumulus switch (the parsed startup.yaml as `doc`): a route map prepending
    its own ASN `count` times, applied outbound on every peer group."""
    asn, groups = _nvue_groups(doc)
    prepend = " ".join([asn] * int(count))
    return [f"nv set router policy route-map {DRAIN_MAP} rule 10 action permit",
            f"nv set router policy route-map {DRAIN_MAP} rule 10 set as-path-prepend as '{prepend}'",
            *[f"nv set vrf default router bgp peer-group {g} address-family ipv4-unicast policy outbound route-map "
              f"{DRAIN_MAP}" for g in groups]]


def rf_nvue_undrain(doc: Any) -> list[str]:
    _asn, groups = _nvue_groups(doc)
    return [*[f"nv unset vrf default router bgp peer-group {g} address-family ipv4-unicast policy outbound "
              "route-map" for g in groups],
            f"nv unset router policy route-map {DRAIN_MAP}"]
def rf_nxos_drained(text: str, count: int | str = 3) -> str:
    """The NX-OS running-config with the drain written in: the route-map before `router bgp`, `route-map RF-DRAIN
    out` in every template's IPv4 address family. `configure replace` to it keeps the switch drained until the
    change is verified (a replace to the plain file would remove the drain at once)."""
    asn, groups = _bgp_parts(text, "nxos")
    prepend = " ".join([asn] * int(count))
    out: list[str] = []
    template = None
    for line in text.splitlines():
        if line == f"router bgp {asn}":
            out += [f"route-map {DRAIN_MAP} permit 10", f"  set as-path prepend {prepend}"]
        m = re.fullmatch(r"  template peer (\S+)", line)
        if m or re.fullmatch(r"  \S.*", line):
            template = m.group(1) if m else None
        out.append(line)
        if template in groups and line == "    address-family ipv4 unicast":
            out.append(f"      route-map {DRAIN_MAP} out")
    return "\n".join(out) + "\n"


# The top-level NX-OS configuration lines railfabric renders (by their first words): `configure replace` makes them
# exactly what the rendered file says. Every other top-level block of the running-config (version, boot nxos,
# copp profile, line console/vty, rmon, hardware, license, ...) belongs to the switch and is carried over, so the
# replace never deletes what railfabric does not manage. Kept in step with templates/nxos/ by
# tests/test_rollout_filters.py.
NXOS_OWNED = (
    "aaa ", "banner ", "class-map ", "feature ", "hostname ", "interface ", "ip domain-lookup", "ip domain-name ",
    "ip name-server ", "ip prefix-list ", "logging server ", "logging source-interface ", "no feature ", "ntp server ",
    "ntp source-interface ", "nxapi ", "policy-map ", "priority-flow-control ", "radius-server host ", "route-map ",
    "router bgp ", "snmp-server contact ", "snmp-server location ", "snmp-server user ", "spanning-tree ",
    "system qos", "tacacs-server host ", "username ", "vlan ", "vrf context ",
)


def _nxos_top_blocks(text: str) -> list[list[str]]:
    """Top-level blocks (a line at column 0 and its indented lines); comment lines (!) and blank lines dropped; a
    banner runs to its closing delimiter."""
    blocks: list[list[str]] = []
    delimiter = None
    for line in text.splitlines():
        if delimiter is not None:
            blocks[-1].append(line)
            if line.strip() == delimiter:
                delimiter = None
            continue
        if not line.strip() or line.startswith("!"):
            continue
        if line[0] in " \t" and blocks:
            blocks[-1].append(line)
            continue
        blocks.append([line])
        m = re.fullmatch(r"banner \S+ (\S)", line)
        if m:
            delimiter = m.group(1)
    return blocks


def rf_nxos_replace_target(rendered: str, running: str) -> str:
    """The file `configure replace` gets: the rendered configuration, then every top-level block of the switch's
    running-config that railfabric does not own (NXOS_OWNED), as the switch has it. NX-OS's configure replace wants a
    whole running-config, not a partial one (System Management guide); this keeps the switch's own lines."""
    rendered_users = {line.split()[1] for line in rendered.splitlines() if line.startswith("username ")}
    kept = [b for b in _nxos_top_blocks(running)
            if not b[0].startswith(NXOS_OWNED)
            # NX-OS's built-in admin account cannot be deleted: kept as the switch has it unless rendered
            or (b[0].startswith("username admin ") and "admin" not in rendered_users)]
    tail = "".join(line + "\n" for block in kept for line in block)
    return rendered.rstrip("\n") + "\n" + tail


def _junos_bgp(text: str) -> tuple[str, list[tuple[str, tuple[str, ...]]]]:
    """The switch's AS and each BGP group with its export policies, from a junos.conf."""
    statements = _junos_statements(text)
    asn = next((s[-1] for s in statements if s[:2] == ("routing-options", "autonomous-system") and len(s) == 3),
               None)
    if asn is None:
        raise FilterError("no `routing-options autonomous-system` in the configuration: nothing to drain")
    groups: dict[str, tuple[str, ...]] = {}
    for s in statements:
        if s[:3] == ("protocols", "bgp", "group") and len(s) >= 4:
            groups.setdefault(s[3], ())
            if len(s) > 5 and s[4] == "export":
                groups[s[3]] = tuple(s[5:])
    if not groups:
        raise FilterError("no BGP group in the configuration: nothing to drain")
    if any(DRAIN_MAP in exports for exports in groups.values()):
        raise FilterError(f"the configuration already exports {DRAIN_MAP}: it is drained")
    return asn, sorted(groups.items())


def rf_junos_drain_lines(text: str, count: int | str = 3) -> list[str]:
    """`set`/`delete` lines that drain the switch: policy RF-DRAIN prepends its own AS `count` times and comes first
    in every group's export chain (it only changes the AS path, so the group's own policies still decide)."""
    asn, groups = _junos_bgp(text)
    lines = [f'set policy-options policy-statement {DRAIN_MAP} then as-path-prepend "{" ".join([asn] * int(count))}"']
    for group, exports in groups:
        lines += [f"delete protocols bgp group {group} export",
                  f"set protocols bgp group {group} export [ {' '.join((DRAIN_MAP, *exports))} ]"]
    return lines


def rf_junos_undrain_lines(text: str) -> list[str]:
    _asn, groups = _junos_bgp(text)
    lines = []
    for group, exports in groups:
        lines.append(f"delete protocols bgp group {group} export")
        if exports:
            lines.append(f"set protocols bgp group {group} export [ {' '.join(exports)} ]")
    return [*lines, f"delete policy-options policy-statement {DRAIN_MAP}"]


def rf_junos_drained(text: str, count: int | str = 3) -> str:
    """The junos.conf to load while the switch is drained: the same file with RF-DRAIN defined and first in every
    BGP group's export chain, so the `load override` itself does not undrain the switch before it is verified."""
    asn, _groups = _junos_bgp(text)
    prepend = " ".join([asn] * int(count))
    out: list[str] = []
    path: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.endswith("{"):
            path.append(stripped[:-1].strip())
        elif stripped == "}":
            path = path[:-1]
        m = re.fullmatch(r"(\s*)export (\S+|\[ [^\]]* \]);", line)
        if m and len(path) == 3 and path[:2] == ["protocols", "bgp"] and path[2].startswith("group "):
            exports = m.group(2).strip("[] ").split()
            line = f"{m.group(1)}export [ {' '.join((DRAIN_MAP, *exports))} ];"
        out.append(line)
        if stripped == "policy-options {" and len(path) == 1:
            out += [f"    policy-statement {DRAIN_MAP} {{", "        then {",
                    f'            as-path-prepend "{prepend}";', "        }", "    }"]
    if not any(line.strip() == "policy-options {" for line in out):
        raise FilterError("no policy-options in the configuration: cannot add the drain policy")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- verification


def rf_expected_rows(text: str, device: str) -> list[dict[str, str]]:
    """The rows of a generated/expected/*.csv file (first line `# <title>`) whose `device` is this one."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    return [row for row in csv.DictReader(io.StringIO(body)) if row.get("device") == device]


def _junos_data(record: dict[str, Any], key: str) -> str:
    """A leaf of Junos' JSON rendering of its XML output: {"key": [{"data": "value"}]}."""
    items = record.get(key) or [{}]
    return str(items[0].get("data", "")) if isinstance(items, list) and isinstance(items[0], dict) else ""


def _peers(show: Any) -> dict[str, tuple[str, str]]:
    """neighbour address → (state, remote ASN) from FRR `show bgp summary json` or EOS `show ip bgp summary`."""
    data = json.loads(show) if isinstance(show, str) else show
    out: dict[str, tuple[str, str]] = {}
    if "TABLE_vrf" in data:  # NX-OS `show bgp ipv4 unicast summary | json`: TABLE_x/ROW_x, a row or a list of rows
        for vrf in _rows(data, "vrf"):
            for af in _rows(vrf, "af"):
                for saf in _rows(af, "saf"):
                    for p in _rows(saf, "neighbor"):
                        out[str(p.get("neighborid", ""))] = (str(p.get("state", "")), str(p.get("neighboras", "")))
    if "bgp-information" in data:  # Junos `show bgp summary | display json`
        for info in data["bgp-information"]:
            for p in info.get("bgp-peer", []):
                ip = _junos_data(p, "peer-address").split("+")[0]
                out[ip] = (_junos_data(p, "peer-state"), _junos_data(p, "peer-as"))
        return out
    if "vrfs" in data:  # EOS
        for ip, p in ((data["vrfs"].get("default") or {}).get("peers") or {}).items():
            out[ip] = (str(p.get("peerState", "")), str(p.get("asn", "")))
        return out
    for ip, p in ((data.get("ipv4Unicast") or {}).get("peers") or {}).items():  # FRR
        out[ip] = (str(p.get("state", "")), str(p.get("remoteAs", "")))
    return out


def _rows(data: Any, name: str) -> list[dict[str, Any]]:
    """NX-OS JSON tables: TABLE_<name> holds ROW_<name>, one row (a dict) or several (a list)."""
    rows = ((data or {}).get(f"TABLE_{name}") or {}).get(f"ROW_{name}") or []
    return [rows] if isinstance(rows, dict) else list(rows)


def _nxos_ifname(name: str) -> str:
    """NX-OS LLDP shows Eth1/1: the configuration's Ethernet1/1."""
    return "Ethernet" + name[3:] if re.fullmatch(r"Eth\d.*", name) else name


def rf_bgp_problems(show: Any, rows: list[dict[str, str]]) -> list[str]:
    """Every planned session of the device Established with the planned remote ASN; [] when all are."""
    peers = _peers(show)
    problems = []
    for row in rows:
        ip = row["neighbor_ip"]
        state, asn = peers.get(ip, ("absent", ""))
        if state != "Established":
            problems.append(f"{row['interface']} {ip} ({row['peer_device']}): {state}")
        elif asn != row["remote_asn"]:
            problems.append(f"{row['interface']} {ip} ({row['peer_device']}): remote AS {asn}, planned "
                            f"{row['remote_asn']}")
    return problems


def rf_established(show: Any) -> list[str]:
    """The neighbours whose session is Established (a snapshot before the change, to check a rollback by)."""
    return sorted(ip for ip, (state, _asn) in _peers(show).items() if state == "Established")


def _lldp_seen(show: Any) -> dict[str, tuple[str, str]]:
    """local interface → (neighbour system name, neighbour port) from `lldpctl -f json` or EOS
    `show lldp neighbors | json`."""
    data = json.loads(show) if isinstance(show, str) else show
    seen: dict[str, tuple[str, str]] = {}
    if "TABLE_nbor_detail" in data:  # NX-OS `show lldp neighbors detail | json`
        for n in _rows(data, "nbor_detail"):
            seen[_nxos_ifname(str(n.get("l_port_id", "")))] = (str(n.get("sys_name", "")),
                                                               _nxos_ifname(str(n.get("port_id", ""))))
    if "lldp-neighbors-information" in data:  # Junos `show lldp neighbors | display json`
        for info in data["lldp-neighbors-information"]:
            for n in info.get("lldp-neighbor-information", []):
                seen[_junos_data(n, "lldp-local-port-id")] = (
                    _junos_data(n, "lldp-remote-system-name"), _junos_data(n, "lldp-remote-port-id"))
        return seen
    if "lldpNeighbors" in data:  # EOS
        for n in data["lldpNeighbors"]:
            seen[n.get("port", "")] = (n.get("neighborDevice", ""), n.get("neighborPort", ""))
        return seen
    interfaces = (data.get("lldp") or {}).get("interface") or []
    if isinstance(interfaces, dict):
        interfaces = [{k: v} for k, v in interfaces.items()]
    for item in interfaces:
        for ifname, n in item.items():
            chassis = n.get("chassis") or {}
            name = next(iter(chassis), "") if isinstance(chassis, dict) else ""
            port = (n.get("port") or {}).get("id") or {}
            seen[ifname] = (name, port.get("value", "") if isinstance(port, dict) else str(port))
    return seen


def rf_lldp_problems(show: Any, rows: list[dict[str, str]]) -> list[str]:
    seen = _lldp_seen(show)
    problems = []
    for row in rows:
        got = seen.get(row["interface"])
        want = (row["neighbor"], row["neighbor_interface"])
        if got != want:
            problems.append(f"{row['interface']}: planned {want[0]} {want[1]}, seen "
                            + (f"{got[0]} {got[1]}" if got else "nothing"))
    return problems


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {name: fn for name, fn in globals().items() if name.startswith("rf_") and callable(fn)}
