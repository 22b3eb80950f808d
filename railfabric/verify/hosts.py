"""The verifier's reader of the rendered host side: what each GPU server is told to configure.

Read from the rendered files only (like every reader under railfabric/verify/):
- hosts/railmap.csv: the plan's promise per NIC port (host, nic, nic_port, rail, switch, switch_interface, vlan,
  address, gateway, mtu, bond);
- hosts/<host>/netplan.yaml: per interface (a NIC port or a bond) its addresses, MTU, the gateways its routes go
  through, the tables of its routes and the `from` rules;
- the host group's roce.sh (named by ansible/inventory.yml: gpu_hosts → the group's `roce_script`): per netdev the
  `dcb app ... dscp-prio D:P ...` map, the `dcb pfc ... prio-pfc` priorities that are on, and the CNP DSCP and
  802.1p priority written to the mlx5 `ecn/roce_np/cnp_*` files.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from railfabric.verify.inputs import _inventory_hosts, read_csv, read_text, read_yaml, rel
from railfabric.verify.model import VerifyInputError

RAILMAP_COLUMNS = ("host", "gpu", "nic", "nic_port", "rail", "switch", "switch_interface", "vlan", "address",
                   "gateway", "mtu", "bond", "bond_mode")


@dataclass(frozen=True, slots=True)
class NicPort:
    """One row of railmap.csv (one per GPU and NIC port: rows of GPUs sharing a NIC are folded into one)."""

    host: str
    nic: int
    port: int
    rail: int
    switch: str
    interface: str
    vlan: int
    address: str  # with length
    gateway: str
    mtu: int
    bond: str
    line: int


@dataclass(slots=True)
class HostInterface:
    name: str
    addresses: list[str] = field(default_factory=list)  # with length
    mtu: int | None = None
    gateways: set[str] = field(default_factory=set)  # every `via` of its routes
    tables: set[int] = field(default_factory=set)
    rules: list[tuple[str, int]] = field(default_factory=list)  # (from, table)
    members: list[str] = field(default_factory=list)  # bond members


@dataclass(slots=True)
class NicQos:
    dscp_prio: dict[int, int] = field(default_factory=dict)
    pfc_on: frozenset[int] | None = None  # None: no `dcb pfc` line for the netdev
    cnp_dscp: int | None = None
    cnp_prio: int | None = None


@dataclass(slots=True)
class HostFiles:
    name: str
    netplan: str  # path shown in failures
    roce: str
    interfaces: dict[str, HostInterface] = field(default_factory=dict)
    qos: dict[str, NicQos] = field(default_factory=dict)  # netdev → what roce.sh sets


def read_railmap(root: Path) -> list[NicPort]:
    path = root / "hosts" / "railmap.csv"
    if not path.is_file():
        return []
    seen: dict[tuple[str, int, int], NicPort] = {}
    for n, r in read_csv(path, root, RAILMAP_COLUMNS):
        try:
            key = (r["host"], int(r["nic"]), int(r["nic_port"]))
            seen.setdefault(key, NicPort(r["host"], key[1], key[2], int(r["rail"]), r["switch"],
                                         r["switch_interface"], int(r["vlan"]), r["address"], r["gateway"],
                                         int(r["mtu"]), r["bond"], n))
        except ValueError as exc:
            raise VerifyInputError(f"hosts/railmap.csv:{n}: {exc}") from None
    return list(seen.values())


def group_scripts(inventory: Any) -> dict[str, str]:
    """Host → its group's boot script (roce.sh) as a path under the render root, from the parsed
    ansible/inventory.yml: the `roce_script` of each child of gpu_hosts (relative to ansible/). Also the lab's way
    to find a host's script (railfabric/lab/hosts.py)."""
    try:
        groups = inventory["all"]["children"]["gpu_hosts"]["children"] or {}
    except (KeyError, TypeError):
        return {}
    out: dict[str, str] = {}
    for group in groups.values():
        script = ((group or {}).get("vars") or {}).get("roce_script")
        if isinstance(script, str):
            for host, _vars in _inventory_hosts(group):
                out[str(host)] = posixpath.normpath(posixpath.join("ansible", script))
    return out


def read_hosts(root: Path, names: set[str]) -> dict[str, HostFiles]:
    scripts = group_scripts(read_yaml(root / "ansible" / "inventory.yml", root))
    roce_cache: dict[str, dict[str, NicQos]] = {}
    out: dict[str, HostFiles] = {}
    for name in sorted(names):
        netplan = root / "hosts" / name / "netplan.yaml"
        script = scripts.get(name, "")
        host = HostFiles(name, rel(netplan, root), script)
        if netplan.is_file():
            host.interfaces = _netplan(read_yaml(netplan, root))
        if script and (root / script).is_file():
            if script not in roce_cache:
                roce_cache[script] = _roce(read_text(root / script, root))
            host.qos = roce_cache[script]
        out[name] = host
    return out


def _netplan(data: Any) -> dict[str, HostInterface]:
    net = data.get("network", {}) if isinstance(data, dict) else {}
    out: dict[str, HostInterface] = {}
    for kind in ("ethernets", "bonds"):
        for name, body in (net.get(kind) or {}).items():
            body = body or {}
            iface = HostInterface(str(name), [str(a) for a in body.get("addresses") or []], body.get("mtu"))
            for route in body.get("routes") or []:
                if route.get("via"):
                    iface.gateways.add(str(route["via"]))
                if "table" in route:
                    iface.tables.add(int(route["table"]))
            iface.rules = [(str(r.get("from")), int(r.get("table", 0))) for r in body.get("routing-policy") or []]
            iface.members = [str(m) for m in body.get("interfaces") or []]
            out[iface.name] = iface
    return out


_APP = re.compile(r"^dcb app \w+ dev (\S+) dscp-prio ((?:\d+:\d+\s*)+)$")
_PFC = re.compile(r"^dcb pfc set dev (\S+) prio-pfc (.+)$")
_CNP = re.compile(r"^\S+ /sys/class/net/([^/]+)/ecn/roce_np/(cnp_dscp|cnp_802p_prio) (\d+)$")


def _roce(text: str) -> dict[str, NicQos]:
    out: dict[str, NicQos] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if m := _APP.match(line):
            out.setdefault(m[1], NicQos()).dscp_prio.update(
                {int(d): int(p) for d, p in (pair.split(":") for pair in m[2].split())})
        elif m := _PFC.match(line):
            on = {int(p) for p, state in (x.split(":") for x in m[2].split()) if p != "all" and state == "on"}
            out.setdefault(m[1], NicQos()).pfc_on = frozenset(on)
        elif m := _CNP.match(line):
            q = out.setdefault(m[1], NicQos())
            if m[2] == "cnp_dscp":
                q.cnp_dscp = int(m[3])
            else:
                q.cnp_prio = int(m[3])
    return out
