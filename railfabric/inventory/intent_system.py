"""The inventory's `system:` section: management plane and baseline services (schema v1).

`system:` at the top level holds the fabric-wide settings; `devices.<name>.system:` overrides them for one switch.
Merge rule: each top-level key written in a device's `system:` (management, users, push_user, aaa, ntp, dns,
syslog, snmp, banner) replaces the fabric-wide value of that key as a whole; keys it does not write are inherited.
So `devices.x.system: {ntp: {servers: [...]}}` gives x its own NTP servers and everything else fabric-wide.

Secrets are references, never values. A secret field (a password, a TACACS+/RADIUS key, an SNMPv3 passphrase) takes
only `{vault: NAME}`: NAME is an Ansible variable the operator keeps in an ansible-vault encrypted file. Rendering
writes the placeholder `%%vault.NAME%%`; the push replaces each placeholder with that variable's value on the
controller just before sending, and refuses to push while any placeholder is unresolved. Why references and not
password hashes in the inventory:
- a hash is not a secret's protection, only a delay: SHA-512-crypt hashes in a public or widely cloned repository are
  cracked offline, at leisure, and a config history keeps every old one;
- secrets rotate; with references a rotation is one vault edit and a push, not an inventory change reviewed by
  everyone who reads the repository;
- all secrets in one encrypted vault file keep inventory/ and generated/ publishable (reviews, pull-request
  comments, CI logs, `fabric plan` output never carry one);
- TACACS+/RADIUS keys and SNMPv3 passphrases have no hash form a switch accepts at all.
What a variable holds is the value the device takes at that place: the SHA-512-crypt hash (`$6$...`) of a local
user's password (EOS `secret sha512`; the switch never receives the password), the TACACS+/RADIUS shared key and the
SNMPv3 passphrases in clear (the switch stores them encrypted). The placeholder never looks like Jinja (no `{{`,
`{%`), so Ansible leaves it alone until the push substitutes it.
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from railfabric.core.textsafe import free_text_problem
from railfabric.inventory.intent_types import FreeText, IPv4Addr, StrictModel

# At most 48 characters: the placeholder (10 more) must fit SONiC's shortest secret field, RADIUS passkey (65).
VAULT_NAME = r"^[a-z_][a-z0-9_]{0,47}$"
# `%%vault.NAME%%`: no ':' or '@', which sonic-snmp.yang refuses in SNMP_USER passwords, so the rendered
# config_db.json passes SONiC's YANG validation with the placeholders still in it (fabric sonic-yang).
PLACEHOLDER = "%%vault.{}%%"
PLACEHOLDER_RE = re.compile(r"%%vault\.([a-z_][a-z0-9_]{0,47})%%")
SECRET_HINT = "write the secret as {vault: NAME} and keep NAME's value in an ansible-vault encrypted file"


# --------------------------------------------------------------------------- secrets


class VaultRef(StrictModel):
    """A reference to a secret kept in Ansible Vault."""

    vault: Annotated[str, Field(pattern=VAULT_NAME, description="name of the Ansible variable (in an ansible-vault "
                                                                 "encrypted file) that holds the secret")]

    @property
    def placeholder(self) -> str:
        return PLACEHOLDER.format(self.vault)


def _secret(v: Any) -> Any:
    if isinstance(v, VaultRef) or (isinstance(v, dict) and set(v) == {"vault"}):
        return v
    # Never quote the value: it may be the very secret that must not be printed.
    raise PydanticCustomError("SEC005", "a secret must be a vault reference {example}, not {kind}; plain text, "
                              "hashes and other forms are refused", {
                                  "example": "{vault: NAME}",
                                  "kind": "a mapping with other keys" if isinstance(v, dict) else "a value",
                                  "hint": SECRET_HINT})


def _optional_secret(v: Any) -> Any:
    return None if v is None else _secret(v)


Secret = Annotated[VaultRef, BeforeValidator(_secret)]
# The validator sits outside the union, so a plain-text value gives one SEC005 error, not one per union branch.
OptionalSecret = Annotated[VaultRef | None, BeforeValidator(_optional_secret)]


# --------------------------------------------------------------------------- small types

UserName = Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_-]{0,31}$",
                                description="a local account name (lower-case letters, digits, '_' and '-')")]
SnmpUserName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{4,32}$",
                                    description="an SNMPv3 user name (4-32 letters, digits, '_', '.', '-')")]
GroupName = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")]
DomainName = Annotated[str, Field(max_length=253, pattern=r"^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*"
                                                           r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$",
                                  description="a DNS domain (lower-case RFC 1123 labels)")]
Port = Annotated[int, Field(ge=1, le=65535)]

_SSH_TYPES = ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
              "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com")
MIN_RSA_BITS = 2048


def ssh_key_problem(text: str) -> str | None:
    """Why `text` is not one OpenSSH public key line `TYPE BASE64 [comment]`, or None. The base64 blob must decode
    and name the same key type (so a private key, a truncated paste or two keys on one line are refused); RSA keys
    need at least 2048 bits."""
    parts = text.split(" ", 2)
    if len(parts) < 2 or parts[0] not in _SSH_TYPES:
        return f"does not start with a key type ({', '.join(_SSH_TYPES[:3])}, ...) and one space"
    kind, blob = parts[0], parts[1]
    if not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", blob):
        return "has no base64 key after the type"
    try:
        raw = base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        return "has a base64 key that does not decode"
    fields = _ssh_fields(raw)
    if not fields or fields[0] != kind.encode():
        return f"has a key body that is not a {kind} key"
    if kind == "ssh-rsa" and (len(fields) < 3 or (len(fields[2].lstrip(b"\0")) * 8) < MIN_RSA_BITS):
        return f"is an RSA key shorter than {MIN_RSA_BITS} bits"
    if len(parts) == 3:
        problem = free_text_problem(parts[2])
        if problem:
            return f"has a comment that {problem}"
    return None


def _ssh_fields(raw: bytes) -> list[bytes]:
    """The length-prefixed fields of an SSH public key blob (RFC 4253 section 6.6); [] when malformed."""
    out: list[bytes] = []
    i = 0
    while i < len(raw):
        if i + 4 > len(raw):
            return []
        (n,) = struct.unpack(">I", raw[i:i + 4])
        if i + 4 + n > len(raw):
            return []
        out.append(raw[i + 4:i + 4 + n])
        i += 4 + n
    return out


def _ssh_key(v: Any) -> Any:
    if not isinstance(v, str):
        return v
    problem = ssh_key_problem(v)
    if problem:
        raise ValueError(f"not an OpenSSH public key line: it {problem}")
    return v


SshKey = Annotated[str, Field(max_length=16384), BeforeValidator(_ssh_key),
                   Field(description="one OpenSSH public key line: 'ssh-ed25519 AAAA... comment'")]


# --------------------------------------------------------------------------- sections


class Management(StrictModel):
    """The management plane: out-of-band port in its own VRF and the access the push uses."""

    vrf: GroupName = Field("MGMT", description="EOS management VRF name (SONiC's management VRF is always 'mgmt')")
    eapi: bool = Field(True, description="EOS eAPI (management api http-commands, HTTPS) in the management VRF")
    ssh: bool = Field(True, description="SSH in the management VRF")

    @field_validator("vrf")
    @classmethod
    def _not_default(cls, v: str) -> str:
        if v.lower() == "default":
            raise ValueError("the management VRF must not be the default VRF: the fabric's routing lives there")
        return v


class Role(StrEnum):
    ADMIN = "network-admin"
    OPERATOR = "network-operator"


class User(StrictModel):
    """A local account."""

    role: Role = Field(description="network-admin (full access) or network-operator (read-only)")
    privilege: int | None = Field(None, ge=0, le=15, description="default: 15 for network-admin, 1 otherwise")
    password: OptionalSecret = Field(None, description="vault reference to the SHA-512-crypt hash ($6$...) of the "
                                                      "password; absent: SSH key login only")
    ssh_keys: list[SshKey] = Field(default_factory=list, max_length=2,
                                   description="OpenSSH public keys (EOS keeps a primary and a secondary key)")


class AaaServer(StrictModel):
    address: IPv4Addr = Field(description="server address, reached through the management VRF")
    port: Port | None = Field(None, description="default: 49 for TACACS+, 1812 for RADIUS")
    key: OptionalSecret = Field(None, description="this server's shared key; default: the group's key")


class _AaaGroup(StrictModel):
    key: Secret = Field(description="vault reference to the shared key of the group's servers (SONiC: no space, "
                                    "'#' or ','; RADIUS at most 65 characters)")
    servers: list[AaaServer] = Field(min_length=1, max_length=8, description="tried in this order")

    @model_validator(mode="after")
    def _unique(self) -> _AaaGroup:
        seen = [str(s.address) for s in self.servers]
        dup = sorted({a for a in seen if seen.count(a) > 1})
        if dup:
            raise ValueError(f"server {dup[0]} is listed twice")
        return self


class TacacsGroup(_AaaGroup):
    """TACACS+ servers (EOS server group, SONiC TACPLUS)."""

    group: GroupName = Field("TACACS", description="EOS server-group name")


class RadiusGroup(_AaaGroup):
    """RADIUS servers (EOS server group, SONiC RADIUS)."""

    group: GroupName = Field("RADIUS", description="EOS server-group name")


LoginMethod = Literal["tacacs", "radius", "local"]


class Aaa(StrictModel):
    tacacs: TacacsGroup | None = None
    radius: RadiusGroup | None = None
    login: list[LoginMethod] = Field(["local"], min_length=1, max_length=3,
                                     description="login methods in order; end with local so that the local "
                                                 "accounts still work when the servers cannot be reached")

    @field_validator("login")
    @classmethod
    def _once(cls, v: list[str]) -> list[str]:
        dup = sorted({m for m in v if v.count(m) > 1})
        if dup:
            raise ValueError(f"login method {dup[0]!r} is listed twice")
        return v


class Ntp(StrictModel):
    servers: list[IPv4Addr] = Field(min_length=1, max_length=10, description="NTP servers (SONiC takes at most "
                                                                             "10), the first one preferred")


class Dns(StrictModel):
    servers: list[IPv4Addr] = Field(min_length=1, max_length=3, description="name servers (at most 3: SONiC's "
                                                                            "DNS_NAMESERVER limit)")
    domain: DomainName | None = Field(None, description="domain name / search suffix")


class SyslogServer(StrictModel):
    address: IPv4Addr
    port: Port = 514
    protocol: Literal["udp", "tcp"] = "udp"


class SnmpUser(StrictModel):
    """An SNMPv3 read-only user with authentication (SHA) and privacy (AES-128)."""

    auth: Secret = Field(description="vault reference to the authentication passphrase (8-64 characters without "
                                     "space, '@' or ':', SONiC's SNMP_USER pattern)")
    priv: Secret = Field(description="vault reference to the privacy passphrase (8-64 characters without space, "
                                     "'@' or ':')")


class Snmp(StrictModel):
    """SNMPv3 only: community strings (v1/v2c) travel in clear and are not offered."""

    location: FreeText | None = None
    contact: FreeText | None = None
    users: dict[SnmpUserName, SnmpUser] = Field(default_factory=dict)


def _banner_line(v: Any) -> Any:
    if isinstance(v, str) and v.strip() == "EOF":
        raise ValueError("a banner line may not be EOF: it ends the EOS banner")
    return v


BannerLine = Annotated[FreeText, BeforeValidator(_banner_line)]


class SystemSettings(StrictModel):
    """Management plane and baseline services of the switches (fabric-wide, or one device's override)."""

    management: Management = Field(default_factory=Management)
    users: dict[UserName, User] = Field(default_factory=dict, description="local accounts by name")
    push_user: UserName | None = Field(None, description="the account the push logs in as: one of `users`, "
                                                         "network-admin")
    aaa: Aaa = Field(default_factory=Aaa)
    ntp: Ntp | None = None
    dns: Dns | None = None
    syslog: list[SyslogServer] = Field(default_factory=list, max_length=8)
    snmp: Snmp | None = None
    banner: list[BannerLine] = Field(default_factory=list, max_length=40, description="login banner lines")

    @field_validator("syslog")
    @classmethod
    def _syslog_once(cls, v: list[SyslogServer]) -> list[SyslogServer]:
        seen = [str(s.address) for s in v]
        dup = sorted({a for a in seen if seen.count(a) > 1})
        if dup:
            raise ValueError(f"syslog server {dup[0]} is listed twice (SONiC keys servers by address)")
        return v


def merged(fabric: SystemSettings | None, device: SystemSettings | None) -> SystemSettings:
    """The effective settings of one switch: each top-level key the device's `system:` writes replaces the
    fabric-wide one."""
    base = fabric if fabric is not None else SystemSettings()
    if device is None:
        return base
    return base.model_copy(update={k: getattr(device, k) for k in device.model_fields_set})


MINIMAL_BLOCK = ("system: {users: {netops: {role: network-admin, password: {vault: netops_password_hash}, "
                 "ssh_keys: ['ssh-ed25519 AAAA... netops@jump']}}, push_user: netops}")
