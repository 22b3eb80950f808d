"""The management plane and baseline of an NVUE startup.yaml: `system` (hostname, banner, accounts, AAA, SSH) and
`service` (NTP, DNS, syslog, SNMP), every service in the management VRF. Secrets are `%%vault.NAME%%`
placeholders from the device model (fabric/device/system.py); NVUE encrypts them in its own database."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the registry imports this package before the device model exists
    from fabric.device import DeviceConfig

Tree = dict[str, Any]
ON = "on"
# NVUE roles: system-admin (sudo, nv set/apply) and nvue-monitor (nv show only)
ROLE = {"network-admin": "system-admin", "network-operator": "nvue-monitor"}


def ssh_key_entries(keys: tuple[str, ...]) -> Tree:
    """`aaa user <u> ssh authorized-key <name> {key, type}` from OpenSSH public key lines "<type> <base64>
    [comment]": the name is the comment, else key<n>."""
    out: Tree = {}
    for n, line in enumerate(keys, 1):
        parts = line.split()
        if len(parts) < 2:
            continue
        name = parts[2] if len(parts) > 2 else f"key{n}"
        out[name] = {"type": parts[0], "key": parts[1]}
    return out


def _users(dev: DeviceConfig) -> Tree:
    out: Tree = {}
    for u in dev.system.users:
        node: Tree = {"role": ROLE.get(u.role, "nvue-monitor")}
        if u.secret:
            node["hashed-password"] = u.secret
        if u.ssh_keys:
            node["ssh"] = {"authorized-key": ssh_key_entries(u.ssh_keys)}
        out[u.name] = node
    return out


def _aaa(dev: DeviceConfig) -> Tree:
    s = dev.system
    out: Tree = {"user": _users(dev)}
    if s.tacacs is not None:
        out["tacacs"] = {"enable": ON, "vrf": s.vrf, "server": {
            str(n): {"host": srv.address, "port": srv.port, "secret": srv.key}
            for n, srv in enumerate(s.tacacs.servers, 1)}}
    if s.radius is not None:
        out["radius"] = {"vrf": s.vrf, "server": {
            srv.address: {"port": srv.port, "secret": srv.key, "priority": n}
            for n, srv in enumerate(s.radius.servers, 1)}}
    if s.login:
        out["authentication-order"] = {str(10 * n): m for n, m in enumerate(s.login, 1)}
    return out


def system(dev: DeviceConfig) -> Tree:
    s = dev.system
    out: Tree = {"hostname": dev.hostname, "aaa": _aaa(dev)}
    if s.ssh:
        out["ssh-server"] = {"vrf": s.vrf}
    if s.banner:
        out["message"] = {"pre-login": s.banner_text}
    return out


def service(dev: DeviceConfig) -> Tree:
    s = dev.system
    out: Tree = {}
    if s.ntp:
        out["ntp"] = {s.vrf: {"server": {a: {"iburst": ON} for a in s.ntp}}}
    if s.dns:
        dns: Tree = {"server": {a: {} for a in s.dns}}
        if s.domain:
            dns["search"] = {s.domain: {}}
        out["dns"] = {s.vrf: dns}
    if s.syslog:
        out["syslog"] = {s.vrf: {"server": {x.address: {"port": x.port, "protocol": x.protocol} for x in s.syslog}}}
    if s.snmp_users:
        snmp: Tree = {"enable": ON, "listening-address": {s.agent_address: {"vrf": s.vrf}},
                      "username": {u.name: {"auth-sha": u.auth, "encrypt-aes": u.priv} for u in s.snmp_users}}
        if s.snmp_location:
            snmp["system-location"] = s.snmp_location
        if s.snmp_contact:
            snmp["system-contact"] = s.snmp_contact
        out["snmp-server"] = snmp
    return out
