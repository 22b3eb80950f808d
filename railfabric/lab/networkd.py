"""A host's rendered netplan file, read back the way Ubuntu reads it: Debian's `netplan generate --root-dir TMP` writes
systemd-networkd files under TMP/run/systemd/network/, and this module parses those (`.network`, `.netdev`, `.link`)
into a small typed structure the lab applies with iproute2. Only what the lab uses is kept: [Match] Name (or the MAC
a `.link` file renames), [Link] MTUBytes, [Network] Address / Bond, [Address] Address, [Route] Destination / Gateway /
Table / Metric / GatewayOnLink, [RoutingPolicyRule] From / To / Table / Priority, [NetDev] Name / Kind / MTUBytes.

systemd unit files are INI-like but repeat sections ([Route] once per route) and keys, so they are parsed here by
hand (configparser merges repeated sections). Keys are case-sensitive in systemd; values are taken verbatim.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

Sections = list[tuple[str, list[tuple[str, str]]]]


class NetworkdError(Exception):
    """netplan refused the file, or what it wrote cannot be read."""


@dataclass(frozen=True, slots=True)
class Route:
    destination: str  # a.b.c.d/len; "default" when networkd's Destination= is absent
    gateway: str | None
    table: int | None  # None: the main table
    metric: int | None = None
    onlink: bool = False


@dataclass(frozen=True, slots=True)
class Rule:
    from_: str | None
    to: str | None
    table: int | None
    priority: int | None


@dataclass(frozen=True, slots=True)
class Network:
    """One `.network` file: the interface it matches and what networkd gives it."""

    file: str
    name: str | None  # [Match] Name=
    mac: str | None  # [Match] MACAddress= / PermanentMACAddress=
    mtu: int | None
    addresses: tuple[str, ...]
    routes: tuple[Route, ...]
    rules: tuple[Rule, ...]
    bond: str | None = None  # [Network] Bond=: this interface is a member of that bond


@dataclass(frozen=True, slots=True)
class NetDev:
    file: str
    name: str
    kind: str
    mtu: int | None


@dataclass(frozen=True, slots=True)
class LinkFile:
    """A `.link` file: udev renames the interface with this MAC to `name` (netplan's match + set-name)."""

    file: str
    mac: str | None
    name: str | None
    mtu: int | None


@dataclass(frozen=True, slots=True)
class HostNetwork:
    networks: tuple[Network, ...]
    netdevs: tuple[NetDev, ...] = ()
    links: tuple[LinkFile, ...] = ()

    def interface_name(self, net: Network) -> str | None:
        """The name the interface ends up with: Match Name, else the name a .link file gives its MAC."""
        if net.name:
            return net.name
        return next((ln.name for ln in self.links if net.mac and ln.mac == net.mac and ln.name), None)

    def with_address(self, address: str) -> Network | None:
        """The network that carries `address` (a.b.c.d/len)."""
        return next((n for n in self.networks if address in n.addresses), None)


def sections(text: str) -> Sections:
    """[(section, [(key, value), ...]), ...] in file order; comments (# ;) and blank lines dropped."""
    out: Sections = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            out.append((line[1:-1].strip(), []))
            continue
        key, eq, value = line.partition("=")
        if not eq or not out:
            raise NetworkdError(f"line {lineno}: not `Key=value` inside a section: {raw[:80]!r}")
        out[-1][1].append((key.strip(), value.strip()))
    return out


def _get(items: list[tuple[str, str]], key: str) -> str | None:
    """The last value of `key` (systemd: a later assignment wins for single-valued keys)."""
    found = [v for k, v in items if k == key]
    return found[-1] if found else None


def _int(value: str | None, what: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise NetworkdError(f"{what}: not an integer: {value!r}") from None


def _table(value: str | None) -> int | None:
    if value is None or value == "main":
        return None
    return _int(value, "Table")


def parse_network(text: str, file: str = "") -> Network:
    name = mac = bond = None
    mtu = None
    addresses: list[str] = []
    routes: list[Route] = []
    rules: list[Rule] = []
    for section, items in sections(text):
        if section == "Match":
            names = (_get(items, "Name") or "").split()
            name = names[0] if names else None
            mac = _get(items, "PermanentMACAddress") or _get(items, "MACAddress")
        elif section == "Link":
            mtu = _int(_get(items, "MTUBytes"), f"{file} MTUBytes")
        elif section == "Network":
            addresses += [v for k, v in items if k == "Address"]
            bond = _get(items, "Bond") or bond
        elif section == "Address":
            addresses += [v for k, v in items if k == "Address"]
        elif section == "Route":
            routes.append(Route(_get(items, "Destination") or "default", _get(items, "Gateway"),
                                _table(_get(items, "Table")), _int(_get(items, "Metric"), f"{file} Metric"),
                                _get(items, "GatewayOnLink") in ("yes", "true", "1", "on")))
        elif section == "RoutingPolicyRule":
            rules.append(Rule(_get(items, "From"), _get(items, "To"), _table(_get(items, "Table")),
                              _int(_get(items, "Priority"), f"{file} Priority")))
    return Network(file, name, mac, mtu, tuple(addresses), tuple(routes), tuple(rules), bond)


def parse_netdev(text: str, file: str = "") -> NetDev:
    secs = dict((s, items) for s, items in sections(text))  # one [NetDev] per file
    items = secs.get("NetDev", [])
    name, kind = _get(items, "Name"), _get(items, "Kind")
    if not name or not kind:
        raise NetworkdError(f"{file}: [NetDev] without Name= or Kind=")
    return NetDev(file, name, kind, _int(_get(items, "MTUBytes"), f"{file} MTUBytes"))


def parse_link(text: str, file: str = "") -> LinkFile:
    secs = dict((s, items) for s, items in sections(text))
    match, link = secs.get("Match", []), secs.get("Link", [])
    return LinkFile(file, _get(match, "PermanentMACAddress") or _get(match, "MACAddress"), _get(link, "Name"),
                    _int(_get(link, "MTUBytes"), f"{file} MTUBytes"))


def read_dir(directory: Path) -> HostNetwork:
    """Every networkd file netplan wrote into `directory` (TMP/run/systemd/network), in file-name order."""
    files = sorted(directory.iterdir()) if directory.is_dir() else []
    nets = tuple(parse_network(p.read_text(), p.name) for p in files if p.suffix == ".network")
    devs = tuple(parse_netdev(p.read_text(), p.name) for p in files if p.suffix == ".netdev")
    links = tuple(parse_link(p.read_text(), p.name) for p in files if p.suffix == ".link")
    return HostNetwork(nets, devs, links)


def netplan_generate(files: Mapping[str, str], netplan: str = "netplan") -> HostNetwork:
    """Run `netplan generate --root-dir TMP` on one host's netplan files (name → YAML text, placed in
    TMP/etc/netplan/) and parse what it writes. Raises NetworkdError with netplan's message when it refuses."""
    if shutil.which(netplan) is None:
        raise NetworkdError("`netplan` is missing (apt-get install netplan.io)")
    with tempfile.TemporaryDirectory(prefix="railfabric-netplan-") as tmp:
        root = Path(tmp)
        etc = root / "etc" / "netplan"
        etc.mkdir(parents=True)
        for name, text in files.items():
            path = etc / Path(name).name
            path.write_text(text)
            path.chmod(0o600)  # netplan warns about files others can read
        proc = subprocess.run([netplan, "generate", "--root-dir", str(root)], capture_output=True, text=True,
                              timeout=60)
        if proc.returncode != 0:
            msg = (proc.stderr or proc.stdout).strip().replace(str(etc) + "/", "")
            raise NetworkdError(f"netplan generate refused {', '.join(sorted(files))}: {msg[:400]}")
        return read_dir(root / "run" / "systemd" / "network")
