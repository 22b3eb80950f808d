"""The management plane and baseline of one switch, as the templates and the push need it.

Built from the inventory's `system:` merged with the switch's `devices.<name>.system:`
(railfabric/inventory/intent_system.py, `merged`). Every secret is already its `%%vault.NAME%%` placeholder here;
nothing downstream sees a vault reference object. Platform decisions (the VRF name, the management interface, how login
methods are spelled) are made once, here.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from operator import attrgetter

from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_system import (
    PLACEHOLDER_RE,
    RadiusGroup,
    Role,
    SystemSettings,
    TacacsGroup,
    VaultRef,
    merged,
)
from railfabric.platforms import PLATFORMS

TACACS_PORT = 49
RADIUS_PORT = 1812
SYSLOG_PORT = 514  # over UDP
SNMP_PORT = 161
ADMIN_PRIVILEGE = 15
OPERATOR_PRIVILEGE = 1
EOS_SNMP_GROUP = "RAILFABRIC-RO"  # SNMPv3 group (and read view) the users join: read-only, auth + priv


@dataclass(frozen=True, slots=True)
class User:
    name: str
    role: str  # network-admin | network-operator
    privilege: int
    secret: str | None  # placeholder of the SHA-512-crypt hash, or None (key login only)
    ssh_keys: tuple[str, ...]

    @property
    def admin(self) -> bool:
        return self.role == Role.ADMIN.value


@dataclass(frozen=True, slots=True)
class Server:
    address: str
    port: int
    key: str  # placeholder of the shared key
    priority: int  # SONiC: the first server gets the highest priority
    explicit_port: bool  # the port is not the protocol's default (TACACS+ 49, RADIUS 1812): the config names it


@dataclass(frozen=True, slots=True)
class AaaGroup:
    kind: str  # tacacs | radius
    protocol: str  # the protocol's name: tacacs+ | radius
    name: str  # EOS server-group name
    key: str  # placeholder of the group's shared key (SONiC global passkey)
    servers: tuple[Server, ...]


@dataclass(frozen=True, slots=True)
class SyslogServer:
    address: str
    port: int
    protocol: str  # udp | tcp
    explicit_port: bool  # the config names the port: it is not UDP 514 (EOS shows the port whenever it is TCP)


@dataclass(frozen=True, slots=True)
class SnmpUser:
    name: str
    auth: str  # placeholder
    priv: str  # placeholder


@dataclass(frozen=True, slots=True)
class System:
    vrf: str  # the platform's management VRF name
    interface: str  # the management interface (source of every management service)
    agent_address: str  # the management address without its length (where SNMP listens)
    eapi: bool
    ssh: bool
    users: tuple[User, ...]  # sorted by name
    push_user: str | None
    tacacs: AaaGroup | None
    radius: AaaGroup | None
    aaa_groups: tuple[AaaGroup, ...]  # the server groups in use: TACACS+ first, then RADIUS
    login: tuple[str, ...]  # login methods in the platform's words, in order (EOS: 'group TACACS', SONiC: 'tacacs+')
    authorization: tuple[str, ...]  # EOS exec authorization methods (same order), () when login is local only
    ntp: tuple[str, ...]  # the first one preferred
    ntp_servers: tuple[tuple[str, bool], ...]  # (address, preferred): the same servers, the first one preferred
    dns: tuple[str, ...]
    domain: str | None
    syslog: tuple[SyslogServer, ...]
    snmp_location: str | None
    snmp_contact: str | None
    snmp_users: tuple[SnmpUser, ...]
    snmp_group: str
    snmp_port: int
    banner: tuple[str, ...]

    def user(self, name: str) -> User | None:
        return next((u for u in self.users if u.name == name), None)

    @property
    def banner_text(self) -> str:
        return "\n".join(self.banner)

    @property
    def access(self) -> tuple[str, ...]:
        """The ways in the rendered config keeps open for the push, in the order it should try them."""
        return tuple(a for a, on in (("eapi", self.eapi), ("ssh", self.ssh)) if on)

    def push_vars(self) -> dict[str, object]:
        """What the push needs about this switch, as plain data for its Ansible host_vars: the account it logs in
        as, the ways in, the management VRF, every vault variable the config refers to (all must be defined before
        anything is sent) and the local accounts (on SONiC the playbook creates them: they are Linux accounts, not
        config_db). Passwords stay placeholders; SSH public keys are not secrets."""
        return {
            "push_user": self.push_user,
            "management_access": list(self.access),
            "management_vrf": self.vrf,
            "vault_variables": list(self.vault_names),
            "local_users": [{"name": u.name, "role": u.role, "privilege": u.privilege, "password_hash": u.secret,
                             "ssh_keys": list(u.ssh_keys)} for u in self.users],
        }

    @property
    def vault_names(self) -> tuple[str, ...]:
        """Every Ansible Vault variable this switch's config refers to (what the push must resolve), sorted."""
        texts = [u.secret or "" for u in self.users]
        for g in (self.tacacs, self.radius):
            if g is not None:
                texts += [g.key, *(s.key for s in g.servers)]
        texts += [x for u in self.snmp_users for x in (u.auth, u.priv)]
        return tuple(sorted({m for t in texts for m in PLACEHOLDER_RE.findall(t)}))


_FIELDS = attrgetter(*(f.name for f in fields(System)))  # a System's field values, in order
assert fields(System)[2].name == "agent_address"  # with_address puts the address third


def effective(inv: Inventory, key: str) -> SystemSettings:
    """The merged settings of the switch whose pattern name is `key`."""
    override = inv.devices.get(key)
    return merged(inv.system, override.system if override is not None else None)


def _ph(ref: VaultRef | None) -> str | None:
    return ref.placeholder if ref is not None else None


def _group(kind: str, protocol: str, g: TacacsGroup | RadiusGroup, default_port: int) -> AaaGroup:
    n = len(g.servers)
    servers = tuple(Server(str(s.address), s.port or default_port, (s.key or g.key).placeholder, n - i,
                           (s.port or default_port) != default_port)
                    for i, s in enumerate(g.servers))
    return AaaGroup(kind, protocol, g.group, g.key.placeholder, servers)


def _syslog(address: str, port: int, protocol: str) -> SyslogServer:
    return SyslogServer(address, port, protocol, port != SYSLOG_PORT or protocol != "udp")


def build_system(inv: Inventory, switch_key: str, platform: str, management_ip: str) -> System:
    """The System of the switch whose pattern name is `switch_key`, on `platform`, managed at `management_ip`."""
    return with_address(system_template(inv, switch_key, platform), management_ip)


def with_address(template: System, management_ip: str) -> System:
    """`template` (from system_template) for the switch managed at `management_ip`: every other field is the
    template's own value (the same objects, shared)."""
    values = _FIELDS(template)
    return System(values[0], values[1], management_ip, *values[3:])


def system_template(inv: Inventory, switch_key: str, platform: str) -> System:
    """The System of the switch whose pattern name is `switch_key`, on `platform`, without its management address
    (agent_address ""): the same for every switch of that platform whose `devices:` entry (if any) has no
    `system:` (railfabric/device/build.py builds it once per such group)."""
    s = effective(inv, switch_key)
    traits = PLATFORMS[platform]
    users = tuple(User(name, u.role.value,
                       u.privilege if u.privilege is not None else
                       ADMIN_PRIVILEGE if u.role is Role.ADMIN else OPERATOR_PRIVILEGE,
                       _ph(u.password), tuple(u.ssh_keys))
                  for name, u in sorted(s.users.items()))
    tacacs = _group("tacacs", "tacacs+", s.aaa.tacacs, TACACS_PORT) if s.aaa.tacacs else None
    radius = _group("radius", "radius", s.aaa.radius, RADIUS_PORT) if s.aaa.radius else None
    groups = {"tacacs": tacacs, "radius": radius}
    login: list[str] = []
    for method in s.aaa.login:
        group = groups.get(method)
        if method == "local":
            login.append("local")
        elif group is not None:  # a method without its servers is MGMT006, never rendered
            login.append(traits.aaa_login(method, group.name))
    remote = any(m != "local" for m in login)
    snmp = s.snmp
    ntp = tuple(str(a) for a in s.ntp.servers) if s.ntp else ()
    return System(
        vrf=traits.management_vrf or s.management.vrf,
        interface=traits.management_interface,
        agent_address="",
        eapi=s.management.eapi and traits.eapi,
        ssh=s.management.ssh,
        users=users,
        push_user=s.push_user,
        tacacs=tacacs,
        radius=radius,
        aaa_groups=tuple(g for g in (tacacs, radius) if g is not None),
        login=tuple(login),
        authorization=tuple(login) if remote else (),
        ntp=ntp,
        ntp_servers=tuple((a, i == 0) for i, a in enumerate(ntp)),
        dns=tuple(str(a) for a in s.dns.servers) if s.dns else (),
        domain=s.dns.domain if s.dns else None,
        syslog=tuple(_syslog(str(x.address), x.port, x.protocol) for x in s.syslog),
        snmp_location=snmp.location if snmp else None,
        snmp_contact=snmp.contact if snmp else None,
        snmp_users=tuple(SnmpUser(n, u.auth.placeholder, u.priv.placeholder)
                         for n, u in sorted(snmp.users.items())) if snmp else (),
        snmp_group=EOS_SNMP_GROUP,
        snmp_port=SNMP_PORT,
        banner=tuple(s.banner),
    )
