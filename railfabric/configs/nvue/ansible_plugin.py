"""NVIDIA Cumulus Linux (NVUE)'s filters for the rollout playbook (copied to
generated/ansible/filter_plugins/railfabric_nvue.py).

A standalone Ansible filter plugin: standard library only (PyYAML, an ansible-core dependency, imported lazily by the
access check), no railfabric import, no import of a sibling plugin. The shared plugin
(railfabric/outputs/ansible_filters.py → railfabric.py) loads this file and calls its hooks:
- access_problems(directory, host, user, connection): rf_nvue_access_problems on the resolved startup.yaml;
- bgp_peers(show): FRR `vtysh -c 'show bgp summary json'` → {neighbour: (state, remote ASN)};
- lldp_seen(show): `lldpctl -f json` → {local interface: (neighbour system name, neighbour port)}.
(The same FRR and lldpd JSON as SONiC's: a plugin cannot import its sibling, so the two short readers are here
twice; tests/test_rollout_filters.py checks they agree.) The drain is NVUE's own: rf_nvue_drain / rf_nvue_undrain,
`nv set` / `nv unset` commands, so this platform has no drain/undrain hook.
method (host_vars rollout_drain) graceful-shutdown: `nv set router bgp graceful-shutdown on` (5.15+: `enabled`; NVUE
schema of every release: router.bgp.graceful-shutdown, "GSHUT community announced to all EBGP peers"; the value form
is read from the rendered file: `state` under router bgp is 5.15+), undone by `nv unset`; as-path-prepend: route map
RF-DRAIN prepending the switch's own ASN, outbound on every peer group.
Filters: rf_nvue_access_problems(doc, address, user), rf_nvue_drain(doc, count, method), rf_nvue_undrain(doc, method),
rf_nvue_mask(lines, secrets) (`nv config diff` shows the vault values it sets: masked before Ansible prints it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DRAIN_MAP = "RF-DRAIN"


class FilterError(ValueError):
    """Raised to fail the task (Ansible reports the message of any exception a filter raises). Its own class: a
    standalone plugin cannot import the shared one."""


def _nvue_set(doc: Any) -> dict[str, Any]:
    if not isinstance(doc, list) or not doc or not isinstance(doc[0], dict) or "set" not in doc[0]:
        raise FilterError("not an NVUE startup.yaml (a list whose item is `- set:`)")
    tree = doc[0]["set"]
    return tree if isinstance(tree, dict) else {}


def rf_nvue_access_problems(doc: Any, address: str, user: str) -> list[str]:
    """Why `nv config replace` + apply of this NVUE document would cut the push off: eth0 must keep the address
    Ansible connects to in VRF mgmt, the SSH server must stay in that VRF, and the push account must stay a
    system-admin (the replace deletes every account the file does not list). Both sides of Cumulus Linux 5.15's
    renaming are read: eth0's address under `ip` or `ipv4`, its VRF as `ip vrf` or the interface's `vrf`."""
    tree = _nvue_set(doc)
    problems = []
    node = (tree.get("interface") or {}).get("eth0") or {}
    eth0 = node.get("ipv4") or node.get("ip") or {}  # `ipv4` from Cumulus Linux 5.15, `ip` before
    if not any(str(a).split("/")[0] == address for a in eth0.get("address") or {}):
        problems.append(f"interface eth0 has no address {address}, the address Ansible connects to")
    vrf = node.get("vrf", eth0.get("vrf"))  # the interface's `vrf` from 5.15, `ip vrf` before
    ssh = ((tree.get("system") or {}).get("ssh-server") or {}).get("vrf")
    ssh_vrfs = sorted(ssh) if isinstance(ssh, dict) else [ssh]  # a set in NVUE's schema: `vrf: {mgmt: {}}`
    if vrf not in ssh_vrfs:
        problems.append(f"system ssh-server vrf is {', '.join(map(str, ssh_vrfs))}, not {vrf!r} (the VRF of eth0)")
    if not user:
        problems.append("ansible_user is not set: the push account cannot be checked")
    else:
        account = (((tree.get("system") or {}).get("aaa") or {}).get("user") or {}).get(user) or {}
        if account.get("role") != "system-admin":
            problems.append(f"no `system aaa user {user} role system-admin`: the push account would lose its access")
    return problems


def access_problems(directory: Path, host: str, user: str, connection: str) -> list[str]:
    """The pre-flight's check of the resolved files in `directory`."""
    import yaml  # PyYAML: an ansible-core dependency, so present wherever this plugin runs

    doc = yaml.safe_load((directory / "startup.yaml").read_text(encoding="utf-8"))
    return rf_nvue_access_problems(doc, host, user)


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
        if ((((g or {}).get("address-family") or {}).get("ipv4-unicast") or {}).get("policy") or {}).get("outbound"):
            raise FilterError(f"peer group {name} already has an outbound ipv4-unicast policy: the drain would replace "
                              "it")
    return str(asn), groups


GSHUT = "graceful-shutdown"
PREPEND = "as-path-prepend"


def _gshut_on(doc: Any, method: str) -> str | None:
    """For method graceful-shutdown, the value that switches it on in the file's release (`on` up to 5.14,
    `enabled` from 5.15, where router bgp has `state` instead of `enable`); None for as-path-prepend."""
    if method not in (GSHUT, PREPEND):
        raise FilterError(f"unknown drain method {method!r}: graceful-shutdown or as-path-prepend")
    if method == PREPEND:
        return None
    bgp = (_nvue_set(doc).get("router") or {}).get("bgp") or {}
    if bgp.get("autonomous-system") is None:
        raise FilterError("no `router bgp autonomous-system` in the configuration: nothing to drain")
    return "enabled" if "state" in bgp else "on"


def rf_nvue_drain(doc: Any, count: int | str = 3, method: str = PREPEND) -> list[str]:
    """`nv set` commands that drain a Cumulus switch (the parsed startup.yaml as `doc`): a route map prepending
    its own ASN `count` times, applied outbound on every peer group. NVUE takes the ASNs to prepend as one
    comma-separated list (`as-path-prepend as <asn-range>`; the NVUE schema's pattern of 5.9-5.18:
    `^(\\d+|\\d+-\\d+)(,(\\d+|\\d+-\\d+))*$`), never space-separated. method graceful-shutdown: router bgp
    graceful-shutdown instead."""
    if (on := _gshut_on(doc, method)) is not None:
        return [f"nv set router bgp graceful-shutdown {on}"]
    asn, groups = _nvue_groups(doc)
    prepend = ",".join([asn] * int(count))
    return [f"nv set router policy route-map {DRAIN_MAP} rule 10 action permit",
            f"nv set router policy route-map {DRAIN_MAP} rule 10 set as-path-prepend as {prepend}",
            *[f"nv set vrf default router bgp peer-group {g} address-family ipv4-unicast policy outbound route-map "
              f"{DRAIN_MAP}" for g in groups]]


def rf_nvue_undrain(doc: Any, method: str = PREPEND) -> list[str]:
    if _gshut_on(doc, method) is not None:
        return ["nv unset router bgp graceful-shutdown"]
    _asn, groups = _nvue_groups(doc)
    return [*[f"nv unset vrf default router bgp peer-group {g} address-family ipv4-unicast policy outbound "
              "route-map" for g in groups],
            f"nv unset router policy route-map {DRAIN_MAP}"]


def rf_nvue_mask(lines: list[str], secrets: list[Any]) -> list[str]:
    """`lines` with every secret value (as written, or JSON-escaped as NVUE quotes a string) replaced by ********."""
    forms = sorted({f for v in secrets if v not in (None, "") for f in (str(v), json.dumps(str(v))[1:-1])},
                   key=len, reverse=True)
    out = []
    for line in lines:
        for form in forms:
            line = line.replace(form, "********")
        out.append(line)
    return out


def bgp_peers(show: Any) -> dict[str, tuple[str, str]]:
    """neighbour address → (state, remote ASN) from FRR `show bgp summary json` (parsed)."""
    return {ip: (str(p.get("state", "")), str(p.get("remoteAs", "")))
            for ip, p in ((show.get("ipv4Unicast") or {}).get("peers") or {}).items()}


def lldp_seen(show: Any) -> dict[str, tuple[str, str]]:
    """local interface → (neighbour system name, neighbour port) from `lldpctl -f json` (parsed): `interface` is a
    list of {name: entry} or, with one neighbour, a dict."""
    seen: dict[str, tuple[str, str]] = {}
    interfaces = (show.get("lldp") or {}).get("interface") or []
    if isinstance(interfaces, dict):
        interfaces = [{k: v} for k, v in interfaces.items()]
    for item in interfaces:
        for ifname, n in item.items():
            chassis = n.get("chassis") or {}
            name = next(iter(chassis), "") if isinstance(chassis, dict) else ""
            port = (n.get("port") or {}).get("id") or {}
            seen[ifname] = (name, port.get("value", "") if isinstance(port, dict) else str(port))
    return seen


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {name: fn for name, fn in globals().items() if name.startswith("rf_") and callable(fn)}
