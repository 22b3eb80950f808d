"""Cisco NX-OS's filters for the rollout playbook (copied to generated/ansible/filter_plugins/railfabric_nxos.py).

A standalone Ansible filter plugin: standard library only, no railfabric import, no import of a sibling plugin. The
shared plugin (railfabric/outputs/ansible_filters.py → railfabric.py) loads this file and calls its hooks:
- access_problems(directory, host, user, connection): rf_nxos_access_problems on the resolved running-config.cfg;
- drain(text, count, method) / undrain(text, method): the lines that drain the switch and undo it. method
  graceful-shutdown (host_vars rollout_drain): `graceful-shutdown activate` under `router bgp` (RFC 8326: the switch
  sends the GRACEFUL_SHUTDOWN community to its peers; form from the cisco.nxos collection's bgp_global parser, NOT
  checked in Cisco's configuration guide); as-path-prepend: route-map RF-DRAIN prepending its own ASN in every
  `template peer`'s IPv4 address family, outbound;
- bgp_peers(show): `show bgp ipv4 unicast summary | json` (TABLE_x/ROW_x) → {neighbour: (state, remote ASN)};
- lldp_seen(show): `show lldp neighbors detail | json` → {local interface: (neighbour system name, neighbour port)}.
Filters: rf_nxos_access_problems(text, address, user, connection), rf_nxos_drained(text, count, method) (the
running-config with the drain written in, the target of `configure replace`), rf_nxos_replace_target(rendered,
running) (that file plus every top-level block of the switch's running-config railfabric does not own).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

DRAIN_MAP = "RF-DRAIN"


class FilterError(ValueError):
    """Raised to fail the task (Ansible reports the message of any exception a filter raises). Its own class: a
    standalone plugin cannot import the shared one."""


def _blocks(text: str) -> dict[str, list[str]]:
    """Top-level configuration line → its indented lines (stripped, nested levels kept with their indent)."""
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


def rf_nxos_access_problems(text: str, address: str, user: str | None, connection: str = "") -> list[str]:
    """Why pushing this NX-OS running-config would cut the push off: mgmt0 must keep the address Ansible connects to
    in the management VRF, SSH must stay on when the push uses the CLI (NX-API in the management VRF when it uses
    the API), and the push account must keep network-admin."""
    blocks = _blocks(text)
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


def access_problems(directory: Path, host: str, user: str, connection: str) -> list[str]:
    """The pre-flight's check of the resolved files in `directory`."""
    return rf_nxos_access_problems((directory / "running-config.cfg").read_text(encoding="utf-8"), host, user,
                                   connection)


def _bgp_parts(text: str) -> tuple[str, list[str]]:
    """The ASN and the peer templates of an NX-OS running-config; refused when it already applies an outbound
    route-map."""
    asn = re.search(r"^router bgp (\d+)\s*$", text, re.M)
    if asn is None:
        raise FilterError("no `router bgp` in the configuration: nothing to drain")
    if re.search(r"^\s+neighbor \S+ route-map \S+ out\s*$", text, re.M):
        raise FilterError("the configuration already applies an outbound route-map: the drain would replace it")
    groups = re.findall(r"^  template peer (\S+)\s*$", text, re.M)
    if not groups:
        raise FilterError("no BGP peer group in the configuration: nothing to drain")
    return asn.group(1), groups


GSHUT = "graceful-shutdown"
PREPEND = "as-path-prepend"
GSHUT_LINE = "  graceful-shutdown activate"


def _graceful_asn(text: str, method: str) -> str | None:
    """The switch's ASN for method graceful-shutdown, None for as-path-prepend; anything else refused."""
    if method not in (GSHUT, PREPEND):
        raise FilterError(f"unknown drain method {method!r}: graceful-shutdown or as-path-prepend")
    if method == PREPEND:
        return None
    asn = re.search(r"^router bgp (\d+)\s*$", text, re.M)
    if asn is None:
        raise FilterError("no `router bgp` in the configuration: nothing to drain")
    return asn.group(1)


def drain(text: str, count: int | str = 3, method: str = PREPEND) -> str:
    """Lines that drain the switch: graceful-shutdown: router bgp / graceful-shutdown activate; as-path-prepend:
    template peer G / address-family ipv4 unicast / route-map RF-DRAIN out, the route-map prepending its own ASN
    `count` more times."""
    if (gasn := _graceful_asn(text, method)) is not None:
        return f"router bgp {gasn}\n{GSHUT_LINE}\n"
    asn, groups = _bgp_parts(text)
    prepend = " ".join([asn] * int(count))
    return "\n".join([f"route-map {DRAIN_MAP} permit 10", f"  set as-path prepend {prepend}",
                      f"router bgp {asn}", *[line for g in groups for line in (
                          f"  template peer {g}", "    address-family ipv4 unicast",
                          f"      route-map {DRAIN_MAP} out")]]) + "\n"


def undrain(text: str, method: str = PREPEND) -> str:
    if (gasn := _graceful_asn(text, method)) is not None:
        return f"router bgp {gasn}\n  no {GSHUT_LINE.strip()}\n"
    asn, groups = _bgp_parts(text)
    return "\n".join([f"router bgp {asn}", *[line for g in groups for line in (
        f"  template peer {g}", "    address-family ipv4 unicast", f"      no route-map {DRAIN_MAP} out")],
        f"no route-map {DRAIN_MAP}"]) + "\n"


def rf_nxos_drained(text: str, count: int | str = 3, method: str = PREPEND) -> str:
    """The NX-OS running-config with the drain written in (graceful-shutdown: `graceful-shutdown activate` first in
    `router bgp`; as-path-prepend: the route-map before `router bgp`, `route-map RF-DRAIN out` in every template's IPv4
    address family). `configure replace` to it keeps the switch drained until the change is verified (a replace to
    the plain file would remove the drain at once)."""
    if (gasn := _graceful_asn(text, method)) is not None:
        lines = text.splitlines()
        at = lines.index(f"router bgp {gasn}") + 1
        return "\n".join([*lines[:at], GSHUT_LINE, *lines[at:]]) + "\n"
    asn, groups = _bgp_parts(text)
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


# Lines railfabric's prefixes cover but does not render, kept as the switch has them unless the rendered file has
# them: `feature scp-server` is how the push itself reaches bootflash (cisco.nxos.nxos_file_copy sends the replace
# target by SCP, which NX-OS serves only with that feature), so a replace must not turn it off.
SWITCH_KEPT = ("feature scp-server",)


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
    running-config that railfabric does not own (NXOS_OWNED) or does not render (SWITCH_KEPT), as the switch has
    it. NX-OS's configure replace wants a whole running-config, not a partial one (System Management guide); this
    keeps the switch's own lines."""
    rendered_users = {line.split()[1] for line in rendered.splitlines() if line.startswith("username ")}
    rendered_lines = set(rendered.splitlines())
    kept = [b for b in _nxos_top_blocks(running)
            if not b[0].startswith(NXOS_OWNED)
            # NX-OS's built-in admin account cannot be deleted: kept as the switch has it unless rendered
            or (b[0].startswith("username admin ") and "admin" not in rendered_users)
            or (b[0] in SWITCH_KEPT and b[0] not in rendered_lines)]
    tail = "".join(line + "\n" for block in kept for line in block)
    return rendered.rstrip("\n") + "\n" + tail


def _rows(data: Any, name: str) -> list[dict[str, Any]]:
    """NX-OS JSON tables: TABLE_<name> holds ROW_<name>, one row (a dict) or several (a list)."""
    rows = ((data or {}).get(f"TABLE_{name}") or {}).get(f"ROW_{name}") or []
    return [rows] if isinstance(rows, dict) else list(rows)


def _nxos_ifname(name: str) -> str:
    """NX-OS LLDP shows Eth1/1: the configuration's Ethernet1/1."""
    return "Ethernet" + name[3:] if re.fullmatch(r"Eth\d.*", name) else name


def bgp_peers(show: Any) -> dict[str, tuple[str, str]]:
    """neighbour address → (state, remote ASN) from `show bgp ipv4 unicast summary | json` (parsed): TABLE_x/ROW_x,
    a row or a list of rows."""
    out: dict[str, tuple[str, str]] = {}
    for vrf in _rows(show, "vrf"):
        for af in _rows(vrf, "af"):
            for saf in _rows(af, "saf"):
                for p in _rows(saf, "neighbor"):
                    out[str(p.get("neighborid", ""))] = (str(p.get("state", "")), str(p.get("neighboras", "")))
    return out


def lldp_seen(show: Any) -> dict[str, tuple[str, str]]:
    """local interface → (neighbour system name, neighbour port) from `show lldp neighbors detail | json` (parsed),
    interface names as the configuration writes them."""
    return {_nxos_ifname(str(n.get("l_port_id", ""))): (str(n.get("sys_name", "")),
                                                       _nxos_ifname(str(n.get("port_id", ""))))
            for n in _rows(show, "nbor_detail")}


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {name: fn for name, fn in globals().items() if name.startswith("rf_") and callable(fn)}
