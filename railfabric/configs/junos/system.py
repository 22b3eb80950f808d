"""The Junos `system` and `snmp` stanzas of one switch, decided from the neutral System (railfabric/device/system.py).

Every service is reached through the management instance mgmt_junos and sources from the management address, so
`load override` keeps them working. Secrets stay `%%vault.NAME%%` placeholders inside quoted strings; the push
resolves them (a value with a control character is refused there, railfabric/outputs/ansible_filters.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from railfabric.platforms.junos import ROOT_PASSWORD_VARIABLE

if TYPE_CHECKING:  # railfabric.device.system imports the platform registry, which imports this module
    from railfabric.device.system import System

LOGIN_CLASS = {"network-admin": "super-user", "network-operator": "read-only"}
# `ssh-<type> "<key>"` under authentication, by the key's own algorithm word
SSH_KEY_STATEMENT = {"ssh-ed25519": "ssh-ed25519", "ssh-rsa": "ssh-rsa", "ecdsa-sha2-nistp256": "ssh-ecdsa",
                     "ecdsa-sha2-nistp384": "ssh-ecdsa", "ecdsa-sha2-nistp521": "ssh-ecdsa"}
SNMP_VIEW = "RF-ALL"
# Junos refuses to commit a configuration without a root password ("Root Password Overview"), and `load override`
# replaces system as a whole: the root account's SHA-512-crypt hash comes from this Ansible Vault variable (the
# push's pre-flight refuses before sending anything when it is undefined).
ROOT_PASSWORD = f"%%vault.{ROOT_PASSWORD_VARIABLE}%%"


def quoted(text: str) -> str:
    """A Junos quoted string: backslash and double quote escaped (validated inventory text holds neither; this is
    the defence in depth), a line break as \\n (the login message's line separator)."""
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{body}"'


@dataclass(frozen=True, slots=True)
class JUser:
    name: str
    login_class: str
    secret: str | None  # quoted placeholder of the SHA-512-crypt hash
    keys: tuple[tuple[str, str], ...]  # (statement, quoted key)


@dataclass(frozen=True, slots=True)
class JServer:
    address: str
    port: int
    secret: str  # quoted placeholder


@dataclass(frozen=True, slots=True)
class JSyslog:
    address: str
    port: int
    tcp: bool


@dataclass(frozen=True, slots=True)
class JSnmpUser:
    name: str
    auth: str  # quoted placeholder
    priv: str


@dataclass(frozen=True, slots=True)
class JSystem:
    hostname: str
    root_secret: str  # quoted placeholder of root's password hash
    instance: str  # mgmt_junos
    source: str  # management address without length
    users: tuple[JUser, ...]
    auth_order: tuple[str, ...]  # authentication-order words; () = Junos default (password)
    tacplus: tuple[JServer, ...]
    radius: tuple[JServer, ...]
    ntp: tuple[tuple[str, bool], ...]  # (address, prefer)
    dns: tuple[str, ...]
    domain: str
    syslog: tuple[JSyslog, ...]
    ssh: bool
    banner: str  # quoted, "" when none
    snmp_location: str  # quoted or ""
    snmp_contact: str
    snmp_users: tuple[JSnmpUser, ...]
    snmp_group: str
    snmp_view: str

    @property
    def snmp(self) -> bool:
        return bool(self.snmp_users or self.snmp_location or self.snmp_contact)


def _keys(keys: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    out = []
    for key in keys:
        word = key.split(None, 1)[0]
        out.append((SSH_KEY_STATEMENT.get(word, "ssh-rsa"), quoted(key)))
    return tuple(out)


def build_jsystem(s: System, hostname: str) -> JSystem:
    login = tuple("password" if m == "local" else m for m in s.login)
    return JSystem(
        hostname=hostname,
        root_secret=quoted(ROOT_PASSWORD),
        instance=s.vrf,
        source=s.agent_address,
        users=tuple(JUser(u.name, LOGIN_CLASS.get(u.role, "read-only"), quoted(u.secret) if u.secret else None,
                          _keys(u.ssh_keys)) for u in s.users),
        auth_order=login,
        tacplus=tuple(JServer(x.address, x.port, quoted(x.key)) for x in (s.tacacs.servers if s.tacacs else ())),
        radius=tuple(JServer(x.address, x.port, quoted(x.key)) for x in (s.radius.servers if s.radius else ())),
        ntp=tuple((a, i == 0) for i, a in enumerate(s.ntp)),
        dns=s.dns,
        domain=s.domain or "",
        syslog=tuple(JSyslog(x.address, x.port, x.protocol == "tcp") for x in s.syslog),
        ssh=s.ssh,
        banner=quoted(s.banner_text) if s.banner else "",
        snmp_location=quoted(s.snmp_location) if s.snmp_location else "",
        snmp_contact=quoted(s.snmp_contact) if s.snmp_contact else "",
        snmp_users=tuple(JSnmpUser(u.name, quoted(u.auth), quoted(u.priv)) for u in s.snmp_users),
        snmp_group=s.snmp_group,
        snmp_view=SNMP_VIEW,
    )
