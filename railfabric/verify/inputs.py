"""The plan side of the verifier: the CSV files, manifest and Ansible variables under GENERATED.

Everything here is read from the rendered tree only; a file that is missing or cannot be parsed raises
VerifyInputError (exit 2) with the file's path and what is wrong, never a traceback.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from railfabric.core import safe_yaml
from railfabric.platforms import PLATFORMS
from railfabric.verify.model import VerifyInputError

CABLING_COLUMNS = ("link_id", "role", "rail", "a_device", "a_interface", "z_device", "z_interface", "speed", "bundle")
SESSION_COLUMNS = ("device", "interface", "local_ip", "local_asn", "neighbor_ip", "remote_asn", "peer_device",
                   "peer_group", "bfd")
IPPLAN_COLUMNS = ("address", "owner", "interface", "purpose")


@dataclass(frozen=True, slots=True)
class Cable:
    link_id: str
    role: str
    rail: str
    a_device: str
    a_interface: str
    z_device: str
    z_interface: str
    speed: int  # Mb/s
    bundle: str
    line: int


@dataclass(frozen=True, slots=True)
class Session:
    device: str
    interface: str
    local_ip: str
    local_asn: int
    neighbor_ip: str
    remote_asn: int
    peer_device: str
    peer_group: str
    bfd: bool
    line: int
    peer_interface: str = ""

    @property
    def unnumbered(self) -> bool:
        """A session without addresses (routing.addressing: unnumbered): its interface names it."""
        return not self.neighbor_ip


@dataclass(frozen=True, slots=True)
class Address:
    address: str  # with length
    owner: str
    interface: str
    purpose: str
    detail: str
    line: int


@dataclass(slots=True)
class DeviceVars:
    name: str
    platform: str
    ansible_host: str | None = None
    management: str | None = None
    push_user: str | None = None
    files: dict[str, str] = field(default_factory=dict)  # output name → path relative to GENERATED
    access: tuple[str, ...] | None = None  # host_vars management_access: how the push reaches it (eapi, ssh)
    release: str | None = None  # host_vars release: the OS release the files were rendered for
    raw_text: tuple[str, ...] = ()  # host_vars raw_text: the raw text blocks railfabric placed in its files
    raw_data: dict[str, Any] = field(default_factory=dict)  # host_vars raw_data: what its raw data blocks merge
    router_id: str | None = None  # host_vars router_id: a pinned BGP router-id that is not the loopback address


@dataclass(slots=True)
class Plan:
    root: Path
    devices: dict[str, DeviceVars]
    cables: list[Cable]
    sessions: list[Session]
    addresses: list[Address]
    notes: list[str] = field(default_factory=list)


def read_text(path: Path, root: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise VerifyInputError(f"{rel(path, root)}: missing") from None
    except OSError as e:
        raise VerifyInputError(f"{rel(path, root)}: cannot read: {e.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise VerifyInputError(f"{rel(path, root)}: not UTF-8 text (byte {e.start})") from None


def rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def read_csv(path: Path, root: Path, columns: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """Rows of a railfabric CSV (a leading `# ...` comment line, then a header) with their line numbers."""
    text = read_text(path, root)
    lines = text.splitlines()
    start = 1 if lines and lines[0].startswith("#") else 0
    reader = csv.DictReader(io.StringIO("\n".join(lines[start:])))
    missing = [c for c in columns if c not in (reader.fieldnames or [])]
    if missing:
        raise VerifyInputError(f"{rel(path, root)}: header lacks column(s) {', '.join(missing)}")
    rows = []
    for n, row in enumerate(reader, start + 2):
        if None in row or any(row.get(c) is None for c in columns):
            raise VerifyInputError(f"{rel(path, root)}:{n}: wrong number of fields")
        rows.append((n, row))
    return rows


def speed_mbps(text: str, where: str) -> int:
    t = text.strip().upper()
    try:
        if t.endswith("G"):
            return int(float(t[:-1]) * 1000)
        if t.endswith("M"):
            return int(t[:-1])
    except ValueError:
        pass
    raise VerifyInputError(f"{where}: speed {text!r} is not like 400G")


def _int(text: str, where: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise VerifyInputError(f"{where}: {text!r} is not a number") from None


def read_cables(root: Path) -> list[Cable]:
    path = root / "cabling.csv"
    out = []
    for n, r in read_csv(path, root, CABLING_COLUMNS):
        where = f"cabling.csv:{n}"
        out.append(Cable(r["link_id"], r["role"], r["rail"], r["a_device"], r["a_interface"], r["z_device"],
                         r["z_interface"], speed_mbps(r["speed"], where), r["bundle"], n))
    return out


def read_sessions(root: Path) -> list[Session]:
    path = root / "expected" / "bgp_sessions.csv"
    out = []
    for n, r in read_csv(path, root, SESSION_COLUMNS):
        where = f"expected/bgp_sessions.csv:{n}"
        out.append(Session(r["device"], r["interface"], r["local_ip"], _int(r["local_asn"], where), r["neighbor_ip"],
                           _int(r["remote_asn"], where), r["peer_device"], r["peer_group"], r["bfd"] == "yes", n,
                           r.get("peer_interface") or ""))
    return out


def read_addresses(root: Path) -> list[Address]:
    rows = read_csv(root / "ipplan.csv", root, IPPLAN_COLUMNS)
    return [Address(r["address"], r["owner"], r["interface"], r["purpose"], r.get("detail") or "", n) for n, r in rows]


def read_yaml(path: Path, root: Path) -> Any:
    try:
        return safe_yaml.load(read_text(path, root))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise VerifyInputError(f"{rel(path, root)}{at}: not valid YAML") from None


def _push_user(data: dict[str, Any]) -> str | None:
    for key in ("push_user", "ansible_user"):
        if isinstance(data.get(key), str) and data[key]:
            return str(data[key])
    return None


def read_devices(root: Path) -> dict[str, DeviceVars]:
    """Each device's platform and variables from ansible/host_vars, its ansible_host from ansible/inventory.yml,
    the push user from host_vars (`push_user`, else `ansible_user`), else from ansible/group_vars/*.yml."""
    hv_dir = root / "ansible" / "host_vars"
    if not hv_dir.is_dir():
        raise VerifyInputError("ansible/host_vars: missing")
    group_user = None
    gv_dir = root / "ansible" / "group_vars"
    for path in sorted(gv_dir.glob("*.y*ml")) if gv_dir.is_dir() else []:
        data = read_yaml(path, root)
        if isinstance(data, dict):
            group_user = group_user or _push_user(data)
    devices: dict[str, DeviceVars] = {}
    for path in sorted(hv_dir.glob("*.yml")):
        data = read_yaml(path, root)
        where = rel(path, root)
        if not isinstance(data, dict):
            raise VerifyInputError(f"{where}: not a mapping")
        platform = data.get("platform")
        if platform not in PLATFORMS:
            raise VerifyInputError(f"{where}: platform {platform!r} is not one of {', '.join(PLATFORMS)}")
        files = data.get("config_files") or {}
        devices[path.stem] = DeviceVars(
            path.stem, platform, management=str(data["management"]) if data.get("management") else None,
            push_user=_push_user(data) or group_user,
            access=tuple(str(a) for a in data["management_access"])
            if isinstance(data.get("management_access"), list) else None,
            files={str(k): f"configs/{path.stem}/{k}" for k in files} if isinstance(files, dict) else {},
            release=str(data["release"]) if isinstance(data.get("release"), str) else None,
            raw_text=tuple(str(b) for b in data["raw_text"]) if isinstance(data.get("raw_text"), list) else (),
            raw_data=data["raw_data"] if isinstance(data.get("raw_data"), dict) else {},
            router_id=str(data["router_id"]) if isinstance(data.get("router_id"), str) else None)
    inventory = read_yaml(root / "ansible" / "inventory.yml", root)
    for name, host in _inventory_hosts(inventory):
        if name in devices and isinstance(host, dict) and host.get("ansible_host"):
            devices[name].ansible_host = str(host["ansible_host"])
    return devices


def _inventory_hosts(node: Any) -> list[tuple[str, Any]]:
    """(host, vars) pairs anywhere in an Ansible YAML inventory."""
    out: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "hosts" and isinstance(value, dict):
                out += list(value.items())
            else:
                out += _inventory_hosts(value)
    return out


def check_manifest(root: Path) -> list[str]:
    """Notes about files edited after rendering (their digest differs from manifest.json); a file the manifest
    lists that is missing is unusable input."""
    data = _manifest(root)
    notes = []
    for name, digest in sorted(data.items()):
        path = root / name
        if not path.is_file():
            raise VerifyInputError(f"{name}: listed in manifest.json but missing")
        try:
            actual = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as e:
            raise VerifyInputError(f"{name}: cannot read: {e.strerror}") from None
        if actual != digest:
            notes.append(f"{name} differs from manifest.json (edited after rendering)")
    return notes


def _manifest(root: Path) -> dict[str, str]:
    try:
        data = json.loads(read_text(root / "manifest.json", root))
    except json.JSONDecodeError as e:
        raise VerifyInputError(f"manifest.json:{e.lineno}:{e.colno}: not valid JSON: {e.msg}") from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise VerifyInputError("manifest.json: no \"files\" mapping of path → sha256")
    return files


def read_plan(root: Path) -> Plan:
    if not root.is_dir():
        raise VerifyInputError(f"{root}: not a directory (render first: fabric render)")
    notes = check_manifest(root)
    return Plan(root, read_devices(root), read_cables(root), read_sessions(root), read_addresses(root), notes)
