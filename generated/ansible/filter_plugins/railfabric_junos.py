"""Juniper Junos's filters for the rollout playbook (copied to generated/ansible/filter_plugins/railfabric_junos.py).

A standalone Ansible filter plugin: standard library only, no railfabric import, no import of a sibling plugin. The
shared plugin (railfabric/outputs/ansible_filters.py → railfabric.py) loads this file and calls its hooks:
- access_problems(directory, host, user, connection): rf_junos_access_problems on the resolved junos.conf;
- bgp_peers(show): `show bgp summary | display json` (bgp-information) → {neighbour: (state, remote ASN)}, an
  auto-discovered (unnumbered) peer keyed by its interface;
- lldp_seen(show): `show lldp neighbors | display json` → {local interface: (neighbour system name, neighbour port)}.
The drain is Junos's own (no drain/undrain hook): rf_junos_drain_lines(text, count, method) /
rf_junos_undrain_lines(text, method), `set`/`delete` lines, and rf_junos_drained(text, count, method), the file `load
override` commits while the switch is drained. method (host_vars rollout_drain): graceful-shutdown is `protocols bgp
graceful-shutdown sender` (Junos OS 19.1+, CLI reference "graceful-shutdown (Protocols BGP)": RFC 8326, the sender
tags what it advertises with 65535:0; the receiver side is on by default); as-path-prepend is policy RF-DRAIN first in
every group's export chain. Filter: rf_junos_access_problems(text, address, user).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

DRAIN_MAP = "RF-DRAIN"
_JUNOS_TOKEN = re.compile(r'\s+|/\*.*?\*/|"(?:[^"\\]|\\.)*"|[{};\[\]]|[^\s{};\[\]"]+', re.S)


class FilterError(ValueError):
    """Raised to fail the task (Ansible reports the message of any exception a filter raises). Its own class: a
    standalone plugin cannot import the shared one."""


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


def access_problems(directory: Path, host: str, user: str, connection: str) -> list[str]:
    """The pre-flight's check of the resolved files in `directory`."""
    return rf_junos_access_problems((directory / "junos.conf").read_text(encoding="utf-8"), host, user)


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


GSHUT = "graceful-shutdown"
PREPEND = "as-path-prepend"
GSHUT_SENDER = "protocols bgp graceful-shutdown sender"


def _graceful(text: str, method: str) -> bool:
    """True for graceful-shutdown (the configuration must run BGP groups), False for as-path-prepend; anything else
    refused (never drained blind)."""
    if method not in (GSHUT, PREPEND):
        raise FilterError(f"unknown drain method {method!r}: graceful-shutdown or as-path-prepend")
    if method == GSHUT:
        _junos_bgp(text)
    return method == GSHUT


def rf_junos_drain_lines(text: str, count: int | str = 3, method: str = PREPEND) -> list[str]:
    """`set`/`delete` lines that drain the switch. graceful-shutdown: the BGP graceful-shutdown sender. as-path-prepend:
    policy RF-DRAIN prepends its own AS `count` times and comes first in every group's export chain (it only changes
    the AS path, so the group's own policies still decide)."""
    if _graceful(text, method):
        return [f"set {GSHUT_SENDER}"]
    asn, groups = _junos_bgp(text)
    lines = [f'set policy-options policy-statement {DRAIN_MAP} then as-path-prepend "{" ".join([asn] * int(count))}"']
    for group, exports in groups:
        lines += [f"delete protocols bgp group {group} export",
                  f"set protocols bgp group {group} export [ {' '.join((DRAIN_MAP, *exports))} ]"]
    return lines


def rf_junos_undrain_lines(text: str, method: str = PREPEND) -> list[str]:
    if _graceful(text, method):  # the whole statement: railfabric renders none, so nothing of it is left behind
        return [f"delete {GSHUT_SENDER.rsplit(' ', 1)[0]}"]
    _asn, groups = _junos_bgp(text)
    lines = []
    for group, exports in groups:
        lines.append(f"delete protocols bgp group {group} export")
        if exports:
            lines.append(f"set protocols bgp group {group} export [ {' '.join(exports)} ]")
    return [*lines, f"delete policy-options policy-statement {DRAIN_MAP}"]


def _gshut_drained(text: str) -> str:
    """junos.conf with `graceful-shutdown { sender; }` first in `protocols bgp`."""
    out: list[str] = []
    path: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        out.append(line)
        if stripped.endswith("{"):
            path.append(stripped[:-1].strip())
            if path == ["protocols", "bgp"]:
                indent = line[:len(line) - len(line.lstrip())]
                out += [f"{indent}    graceful-shutdown {{", f"{indent}        sender;", f"{indent}    }}"]
        elif stripped == "}":
            path = path[:-1]
    return "\n".join(out) + "\n"


def rf_junos_drained(text: str, count: int | str = 3, method: str = PREPEND) -> str:
    """The junos.conf to load while the switch is drained: the same file with the graceful-shutdown sender in
    `protocols bgp` (method graceful-shutdown), or RF-DRAIN defined and first in every BGP group's export chain, so
    the `load override` itself does not undrain the switch before it is verified."""
    if _graceful(text, method):
        return _gshut_drained(text)
    asn, _groups = _junos_bgp(text)
    prepend = " ".join([asn] * int(count))
    out: list[str] = []
    path: list[str] = []
    exported = False  # the current BGP group has its export statement (a group without one gets `export RF-DRAIN`)
    for line in text.splitlines():
        stripped = line.strip()
        in_group = len(path) == 3 and path[:2] == ["protocols", "bgp"] and path[2].startswith("group ")
        if stripped.endswith("{"):
            path.append(stripped[:-1].strip())
            exported = exported and len(path) > 3
        elif stripped == "}":
            if in_group and not exported:
                out.append(f"{line[:len(line) - len(line.lstrip())]}    export {DRAIN_MAP};")
            path = path[:-1]
        m = re.fullmatch(r"(\s*)export (\S+|\[ [^\]]* \]);", line)
        if m and in_group:
            exports = m.group(2).strip("[] ").split()
            line = f"{m.group(1)}export [ {' '.join((DRAIN_MAP, *exports))} ];"
            exported = True
        out.append(line)
        if stripped == "policy-options {" and len(path) == 1:
            out += [f"    policy-statement {DRAIN_MAP} {{", "        then {",
                    f'            as-path-prepend "{prepend}";', "        }", "    }"]
    if not any(line.strip() == "policy-options {" for line in out):
        raise FilterError("no policy-options in the configuration: cannot add the drain policy")
    return "\n".join(out) + "\n"


def _junos_data(record: dict[str, Any], key: str) -> str:
    """A leaf of Junos' JSON rendering of its XML output: {"key": [{"data": "value"}]}."""
    items = record.get(key) or [{}]
    return str(items[0].get("data", "")) if isinstance(items, list) and isinstance(items[0], dict) else ""


def _peer_key(address: str) -> str:
    """A peer's key: its address without `+port`; an auto-discovered peer (unnumbered, `fe80::1%et-0/0/32.0`) by
    its interface without the unit, the name the plan gives the session (et-0/0/32, ae0)."""
    address = address.split("+")[0]
    _link_local, scoped, unit = address.partition("%")
    return unit.removesuffix(".0") if scoped else address


def bgp_peers(show: Any) -> dict[str, tuple[str, str]]:
    """neighbour address (an auto-discovered peer's: its interface, _peer_key) → (state, remote AS) from `show bgp
    summary | display json` (parsed). NOT verified: that the JSON peer-address of an auto-discovered peer is
    `<link-local>%<unit>` as the text summary prints it (public Junos lab outputs of `show bgp summary`)."""
    out: dict[str, tuple[str, str]] = {}
    for info in show.get("bgp-information") or []:
        for p in info.get("bgp-peer", []):
            out[_peer_key(_junos_data(p, "peer-address"))] = (_junos_data(p, "peer-state"),
                                                              _junos_data(p, "peer-as"))
    return out


def lldp_seen(show: Any) -> dict[str, tuple[str, str]]:
    """local interface → (neighbour system name, neighbour port) from `show lldp neighbors | display json`."""
    seen: dict[str, tuple[str, str]] = {}
    for info in show.get("lldp-neighbors-information") or []:
        for n in info.get("lldp-neighbor-information", []):
            seen[_junos_data(n, "lldp-local-port-id")] = (
                _junos_data(n, "lldp-remote-system-name"), _junos_data(n, "lldp-remote-port-id"))
    return seen


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {name: fn for name, fn in globals().items() if name.startswith("rf_") and callable(fn)}
