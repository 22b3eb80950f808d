"""The management plane and baseline of an NVUE startup.yaml: `system` (hostname, banner, accounts, AAA, SSH) and
`service` (NTP, DNS, syslog, SNMP), every service in the management VRF. Secrets are `%%vault.NAME%%`
placeholders from the device model (railfabric/device/system.py); NVUE encrypts them in its own database.

Where a form moved between releases (SNMP, syslog, TACACS+ servers, DNS and NTP, the authentication order) the
release's Forms decide (railfabric/platforms/nvue_release.py). Shapes checked against NVIDIA's NVUE schema (5.9-5.18,
the nvueschema models): `system ssh-server vrf <vrf>` is a set (`vrf: {mgmt: {}}`); `system aaa
authentication-order <prio> <method>` a set under each priority (`10: {tacacs: {}}`; from 5.15 a list,
`authentication: {order: [tacacs, local]}`); SNMPv3 users `username <u> auth-sha <auth-password> encrypt-aes
<priv-password>`, each password a key (the `nv set` path: NVUE reference "SNMP Server", `nv set system snmp-server
username <u> auth-sha <pw> encrypt-aes <pw>`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from railfabric.platforms.nvue_release import forms

if TYPE_CHECKING:  # the registry imports this package before the device model exists
    from railfabric.device import DeviceConfig

Tree = dict[str, Any]
ON = "on"  # `tacacs enable on` (5.9-5.11, before the 5.15 renaming)
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
        servers = s.tacacs.servers
        if forms(dev.release).tacacs_by_host:  # priority: higher first, so the first server gets len(servers)
            out["tacacs"] = {"vrf": s.vrf, "server": {
                srv.address: {"priority": len(servers) - n, "port": srv.port, "secret": srv.key}
                for n, srv in enumerate(servers)}}
        else:
            out["tacacs"] = {"enable": ON, "vrf": s.vrf, "server": {
                str(n): {"host": srv.address, "port": srv.port, "secret": srv.key}
                for n, srv in enumerate(servers, 1)}}
    if s.radius is not None:
        out["radius"] = {"vrf": s.vrf, "server": {
            srv.address: {"port": srv.port, "secret": srv.key, "priority": n}
            for n, srv in enumerate(s.radius.servers, 1)}}
    if s.login and forms(dev.release).auth_order_list:
        out["authentication"] = {"order": list(s.login)}
    elif s.login:
        out["authentication-order"] = {str(10 * n): {m: {}} for n, m in enumerate(s.login, 1)}
    return out


def system(dev: DeviceConfig) -> Tree:
    s = dev.system
    f = forms(dev.release)
    out: Tree = {"hostname": dev.hostname, "aaa": _aaa(dev)}
    if s.ssh:
        out["ssh-server"] = {"vrf": {s.vrf: {}}}
    if s.banner:
        out["message"] = {"pre-login": s.banner_text}
    if s.syslog and f.syslog_under == "system":
        out["syslog"] = {"server": {x.address: {"port": x.port, "protocol": x.protocol, "vrf": s.vrf}
                                    for x in s.syslog}}
    if s.snmp_users and f.snmp_under == "system":
        out["snmp-server"] = _snmp(dev)
    if s.ntp and f.ntp_under == "system":
        out["ntp"] = {"server": {a: {"iburst": f.value(True)} for a in s.ntp}, "vrf": s.vrf}
    if s.dns and f.dns_under == "system":
        out["dns"] = _dns(dev, {"vrf": s.vrf})
    return out


def _dns(dev: DeviceConfig, server: Tree) -> Tree:
    """The resolvers (each server holding `server`: {} per VRF up to 5.14, {vrf: <v>} from 5.15) and the search
    domain."""
    s = dev.system
    dns: Tree = {"server": {a: dict(server) for a in s.dns}}
    if s.domain:
        dns["search"] = {s.domain: {}}
    return dns


def _snmp(dev: DeviceConfig) -> Tree:
    s = dev.system
    key, on = forms(dev.release).snmp_toggle
    snmp: Tree = {key: on, "listening-address": {s.agent_address: {"vrf": s.vrf}},
                  "username": {u.name: {"auth-sha": {u.auth: {"encrypt-aes": {u.priv: {}}}}} for u in s.snmp_users}}
    if s.snmp_location:
        snmp["system-location"] = s.snmp_location
    if s.snmp_contact:
        snmp["system-contact"] = s.snmp_contact
    return snmp


def service(dev: DeviceConfig) -> Tree:
    s = dev.system
    f = forms(dev.release)
    out: Tree = {}
    if s.ntp and f.ntp_under == "service":
        out["ntp"] = {s.vrf: {"server": {a: {"iburst": f.value(True)} for a in s.ntp}}}
    if s.dns and f.dns_under == "service":
        out["dns"] = {s.vrf: _dns(dev, {})}
    if s.syslog and f.syslog_under == "service":
        out["syslog"] = {s.vrf: {"server": {x.address: {"port": x.port, "protocol": x.protocol} for x in s.syslog}}}
    if s.snmp_users and f.snmp_under == "service":
        out["snmp-server"] = _snmp(dev)
    return out
