"""SONiC's filters for the rollout playbook (copied to generated/ansible/filter_plugins/railfabric_sonic.py).

A standalone Ansible filter plugin: standard library only, no railfabric import, no import of a sibling plugin. The
shared plugin (railfabric/outputs/ansible_filters.py → railfabric.py) loads this file and calls its hooks:
- access_problems(directory, host, user, connection): rf_sonic_access_problems on the resolved config_db.json;
- drain(text, count, method) / undrain(text, method): the FRR lines that drain the switch and undo it. method
  graceful-shutdown (host_vars rollout_drain, railfabric/plan/drain.py): FRR's `bgp graceful-shutdown` in `router
  bgp` (RFC 8326: 65535:0 on every route sent to eBGP peers; FRR user guide bgp.rst); as-path-prepend: route-map
  RF-DRAIN prepending its own ASN on every peer-group, outbound;
- bgp_peers(show): FRR `show bgp summary json` → {neighbour: (state, remote ASN)};
- lldp_seen(show): `lldpctl -f json` → {local interface: (neighbour system name, neighbour port)}.
Filters: rf_sonic_access_problems(config_db, address), rf_merge_platform_facts(config_db, running_config_db).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

DRAIN_MAP = "RF-DRAIN"


class FilterError(ValueError):
    """Raised to fail the task (Ansible reports the message of any exception a filter raises). Its own class: a
    standalone plugin cannot import the shared one."""


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


def access_problems(directory: Path, host: str, user: str, connection: str) -> list[str]:
    """The pre-flight's check of the resolved files in `directory` (the push account is not in config_db.json)."""
    return rf_sonic_access_problems(json.loads((directory / "config_db.json").read_text(encoding="utf-8")), host)


# The CONFIG_DB tables railfabric renders for SONiC: `config replace` makes them exactly what the rendered file says
# (a table railfabric owns but did not render this time, such as MCLAG_DOMAIN after MLAG is removed, is deleted).
# Every other table belongs to the switch and is carried over from its running CONFIG_DB. Kept in step with
# railfabric/configs/sonic/config_db.py by tests/test_rollout_filters.py.
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


# Tables railfabric owns only when it renders them: SWITCH_HASH (routing.ecmp.hash). Without that key railfabric has
# no opinion on the ECMP hash, so the switch's own table (an image default, a hand-set hash) is carried over like any
# table railfabric does not own; with it the rendered table replaces the switch's. Removing routing.ecmp.hash later
# leaves the last pushed hash on the switch (docs/underlay.md, "Load balancing").
WHEN_RENDERED_TABLES = frozenset({"SWITCH_HASH"})


# Tables the switch owns in which railfabric sets rows (FEATURE|iccpd for MCLAG): the running table is kept and each
# rendered row's fields are laid over the switch's row of that key. A rendered row the switch's table lacks means the
# image has no such feature: refused before anything changes. Kept in step with sonic_config_db.ROWS by the tests.
ROW_TABLES = frozenset({"FEATURE"})


def _merge_rows(table: str, rendered: dict[str, Any], running: Any) -> dict[str, Any]:
    have = running if isinstance(running, dict) else {}
    missing = sorted(set(rendered) - set(have))
    if missing:
        raise FilterError(f"this switch's image has no {table}|{missing[0]} (its CONFIG_DB lists "
                          f"{', '.join(sorted(have)) or 'none'}): the rendered configuration needs it. For "
                          f"{table}|iccpd: MCLAG runs in iccpd, which community SONiC images leave out unless built "
                          "with INCLUDE_ICCPD=y; without it the pair would come up as two switches with one gateway "
                          "address. Install an image with iccpd, or dual-home the hosts another way")
    out = json.loads(json.dumps(have))
    for key, fields in rendered.items():
        out[key] = {**out[key], **fields}
    return out


def rf_merge_platform_facts(config_db: dict[str, Any], running: dict[str, Any]) -> dict[str, Any]:
    """The target of `config replace`: the rendered file for the tables railfabric owns, the switch's own mac and
    platform (and its hwsku when the rendered file has none) in DEVICE_METADATA, the switch's row tables with the
    rendered rows laid over them (ROW_TABLES), and every table it does not own as the switch has it. `running` is
    the switch's whole CONFIG_DB (`sonic-cfggen -d --print-data`)."""
    if not isinstance(running, dict):
        raise FilterError("the running CONFIG_DB is not a JSON object of tables")
    out = json.loads(json.dumps(config_db))
    for table in sorted(ROW_TABLES & set(out)):
        out[table] = _merge_rows(table, out[table], running.get(table))
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


def _bgp_parts(text: str) -> tuple[str, list[str]]:
    """The ASN and the peer-groups of an frr.conf; refused when it already applies an outbound route-map."""
    asn = re.search(r"^router bgp (\d+)\s*$", text, re.M)
    if asn is None:
        raise FilterError("no `router bgp` in the configuration: nothing to drain")
    if re.search(r"^\s+neighbor \S+ route-map \S+ out\s*$", text, re.M):
        raise FilterError("the configuration already applies an outbound route-map: the drain would replace it")
    groups = re.findall(r"^\s+neighbor (\S+) peer-group\s*$", text, re.M)
    if not groups:
        raise FilterError("no BGP peer group in the configuration: nothing to drain")
    return asn.group(1), groups


GSHUT = "graceful-shutdown"
PREPEND = "as-path-prepend"


def _graceful(method: str) -> bool:
    """True for graceful-shutdown, False for as-path-prepend; anything else refused (never drained blind)."""
    if method not in (GSHUT, PREPEND):
        raise FilterError(f"unknown drain method {method!r}: graceful-shutdown or as-path-prepend")
    return method == GSHUT


def _asn(text: str) -> str:
    asn = re.search(r"^router bgp (\d+)\s*$", text, re.M)
    if asn is None:
        raise FilterError("no `router bgp` in the configuration: nothing to drain")
    return asn.group(1)


def drain(text: str, count: int | str = 3, method: str = PREPEND) -> str:
    """FRR lines that drain the switch. graceful-shutdown: `bgp graceful-shutdown`, every route sent to an eBGP
    neighbour carries 65535:0, which every neighbour's inbound policy turns into LOCAL_PREF 0. as-path-prepend: every
    route it advertises leaves with its own ASN prepended `count` more times, so every eBGP neighbour (in another AS,
    RFC 7938) prefers the same prefix through any other switch."""
    if _graceful(method):
        return "\n".join([f"router bgp {_asn(text)}", " bgp graceful-shutdown", "exit"]) + "\n"
    asn, groups = _bgp_parts(text)
    prepend = " ".join([asn] * int(count))
    return "\n".join([f"route-map {DRAIN_MAP} permit 10", f" set as-path prepend {prepend}", "exit",
                      f"router bgp {asn}", " address-family ipv4 unicast",
                      *[f"  neighbor {g} route-map {DRAIN_MAP} out" for g in groups],
                      " exit-address-family", "exit"]) + "\n"


def undrain(text: str, method: str = PREPEND) -> str:
    if _graceful(method):
        return "\n".join([f"router bgp {_asn(text)}", " no bgp graceful-shutdown", "exit"]) + "\n"
    asn, groups = _bgp_parts(text)
    return "\n".join([f"router bgp {asn}", " address-family ipv4 unicast",
                      *[f"  no neighbor {g} route-map {DRAIN_MAP} out" for g in groups],
                      " exit-address-family", "exit", f"no route-map {DRAIN_MAP}"]) + "\n"


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
