"""Rules on the management plane (`system:` and `devices.<name>.system:`): the push must keep its own way in.

Both EOS files and SONiC config_db.json are pushed as a full replace, so whatever the rendered config lacks is gone
after the push: an EOS switch without a local admin account, or without eAPI and SSH, locks the operator out.
Findings are per effective setting: a problem of the fabric-wide `system:` is reported once, at its line, naming
how many switches it affects; a problem of a device's override at that override.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator

import netaddr

from railfabric.core.address import Prefix
from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_system import MINIMAL_BLOCK, Role, SystemSettings, merged
from railfabric.platforms import PLATFORMS
from railfabric.topology import Switch, Topology


def check_system(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    groups: dict[str | None, list[Switch]] = defaultdict(list)  # device key with its own system: / None
    for sw in topo.switches.values():
        ov = inv.devices.get(sw.key)
        groups[sw.key if ov is not None and ov.system is not None else None].append(sw)
    out: list[Finding] = []
    fabric_wide: set[tuple[str, tuple]] = set()  # (code, path) already reported for the fabric-wide settings
    for key, switches in sorted(groups.items(), key=lambda kv: (kv[0] is not None, kv[0] or "")):
        device = inv.devices[key].system if key is not None else None
        settings = merged(inv.system, device)
        for code, at, finding in _check(inv, src, key, device, settings, switches):
            if key is None:
                fabric_wide.add((code, at))
            elif (code, at) in fabric_wide:
                continue  # the same fault of the fabric-wide block, already reported once for all its switches
            out.append(finding)
    return out


def _check(inv: Inventory, src: SourceMap, key: str | None, device: SystemSettings | None,
           s: SystemSettings, switches: list[Switch]) -> list[tuple[str, tuple, Finding]]:
    out: list[tuple[str, tuple, Finding]] = []

    def path(field: str, *rest: object) -> tuple:
        """Where `field` of the effective settings was written: the device's override or the fabric-wide block."""
        if device is not None and field in device.model_fields_set:
            return ("devices", key, "system", field, *rest)
        if inv.system is not None and field in inv.system.model_fields_set:
            return ("system", field, *rest)
        if inv.system is not None:
            return ("system",)
        return ("devices", key, "system") if device is not None else _platform_path(inv, switches)

    # derived from the system settings: a schema error there (the section left out) is their root cause
    uses: tuple = (("system",),) + ((("devices", key),) if key is not None else ())

    def add(code: str, msg: str, at: tuple, hint: str, sev: Severity = Severity.ERROR) -> None:
        out.append((code, at, Finding(code, msg, src.loc(at), hint, sev, uses=uses)))

    eos = [sw for sw in switches if PLATFORMS[sw.platform].replaces_users]
    scope = _scope(key, eos or switches)
    if eos and not s.users:
        add("MGMT001", f"{_scope(key, eos)}: no local user is configured, so after the full-replace push the "
            "switch has no account to log in with (the push account included)", path("users"),
            f"add at least the push account, e.g. {MINIMAL_BLOCK}")
    elif eos and s.push_user is None:
        add("MGMT002", f"{_scope(key, eos)}: no push_user: the push must log in with an account the rendered "
            "config keeps", path("push_user"), f"name one of the users: push_user: {sorted(s.users)[0]}")
    if s.push_user is not None:
        user = s.users.get(s.push_user)
        if user is None:
            add("MGMT003", f"{scope}: push_user {s.push_user!r} is not one of the users "
                f"({', '.join(sorted(s.users)) or 'none'})", path("push_user"),
                "add the account under users: or name an existing one")
        elif user.role is not Role.ADMIN:
            add("MGMT004", f"{scope}: push_user {s.push_user!r} has role {user.role.value}; replacing the "
                "configuration needs network-admin", path("users", s.push_user, "role"), "role: network-admin")
        elif user.password is None and not user.ssh_keys:
            add("MGMT005", f"{scope}: push_user {s.push_user!r} has neither a password nor an SSH key: nobody "
                "could log in as it", path("users", s.push_user),
                "add ssh_keys: [...] or password: {vault: NAME}")
    for method in s.aaa.login:
        if method != "local" and getattr(s.aaa, method) is None:
            add("MGMT006", f"{scope}: login method {method!r} has no {method} servers", path("aaa", "login"),
                f"add aaa.{method}: {{key: {{vault: NAME}}, servers: [...]}} or drop {method!r} from aaa.login")
    if "local" not in s.aaa.login:
        add("MGMT007", f"{scope}: aaa.login has no local fallback: when the AAA servers cannot be reached over "
            "the management network nobody can log in", path("aaa", "login"), "end the list with local")
    if eos:
        for name, u in sorted(s.users.items()):
            if u.password is None:
                add("MGMT010", f"{_scope(key, eos)}: user {name!r} has no password reference; EOS would need "
                    "'nopassword', which lets anyone log in as that user without one", path("users", name),
                    "add password: {vault: NAME} (the SHA-512-crypt hash in the vault)")
    if eos and not s.management.eapi and not s.management.ssh:
        add("MGMT008", f"{_scope(key, eos)}: eAPI and SSH are both off: the push and the operator have no way in",
            path("management"), "keep eapi: true (the push uses it) or ssh: true")
    by_role = [sw for sw in switches if not PLATFORMS[sw.platform].user_privilege]
    for name, u in sorted(s.users.items()) if by_role else ():
        if u.privilege is not None:
            add("PLAT001", f"{_scope(key, by_role)}: user {name!r} sets privilege {u.privilege}, which "
                f"{PLATFORMS[by_role[0].platform].title} cannot express: it authorises by role only",
                path("users", name, "privilege"), "drop privilege: and let the role decide")
    udp_only = [sw for sw in switches if not PLATFORMS[sw.platform].syslog_tcp]
    for i, x in enumerate(s.syslog):
        if x.protocol == "tcp" and udp_only:
            add("PLAT001", f"{_scope(key, udp_only)}: syslog server {x.address} over TCP cannot be expressed: "
                f"{PLATFORMS[udp_only[0].platform].title} sends syslog over UDP (or TLS) only",
                path("syslog", i, "protocol"), "use protocol: udp for these switches")
    _servers_in_fabric_pools(inv, s, scope, path, add)
    return out


def _servers_in_fabric_pools(inv: Inventory, s: SystemSettings, scope: str, path: Callable[..., tuple],
                             add: Callable[..., None]) -> None:
    pools = {name: getattr(inv.pools, name) for name in ("loopbacks", "fabric_links", "rail_subnets")}
    for addr, at in _server_addresses(s, path):
        for name, prefix in pools.items():
            if prefix is not None and int(addr) in Prefix.of(prefix):
                add("MGMT009", f"{scope}: {addr} is in the fabric pool {name} ({prefix}), but management services "
                    "are reached through the management VRF", at,
                    "use the server's out-of-band management address", Severity.WARNING)


def _server_addresses(s: SystemSettings, path: Callable[..., tuple]) -> Iterator[tuple[netaddr.IPAddress, tuple]]:
    for i, a in enumerate(s.ntp.servers if s.ntp else []):
        yield a, path("ntp", "servers", i)
    for i, a in enumerate(s.dns.servers if s.dns else []):
        yield a, path("dns", "servers", i)
    for i, x in enumerate(s.syslog):
        yield x.address, path("syslog", i, "address")
    for kind in ("tacacs", "radius"):
        group = getattr(s.aaa, kind)
        for i, x in enumerate(group.servers if group else []):
            yield x.address, path("aaa", kind, "servers", i, "address")


def _scope(key: str | None, switches: list[Switch]) -> str:
    if key is not None:
        return f"switch {switches[0].name}"
    names = sorted(sw.name for sw in switches)
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    platforms = "/".join(sorted({sw.platform for sw in switches}))
    return f"{len(names)} {platforms} switch(es) ({shown})"


def _platform_path(inv: Inventory, switches: list[Switch]) -> tuple:
    """Where the switches' platform was chosen (no `system:` exists to point at)."""
    for sw in switches:
        ov = inv.devices.get(sw.key)
        if ov is not None and ov.platform is not None:
            return ("devices", sw.key, "platform")
    if inv.fabric.platform.value == switches[0].platform:
        return ("fabric", "platform")
    return (*switches[0].src, "platform")
