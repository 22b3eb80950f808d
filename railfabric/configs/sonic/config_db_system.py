"""CONFIG_DB management plane and baseline services (DeviceConfig.system, railfabric/device/system.py).

Shapes follow sonic-buildimage src/sonic-yang-models: MGMT_INTERFACE's name is a leafref to MGMT_PORT; NTP,
SYSLOG_SERVER, TACPLUS_SERVER and RADIUS_SERVER name the management VRF `mgmt`, which needs MGMT_VRF_CONFIG
mgmtVrfEnabled; AAA login with tacacs+ needs TACPLUS|global passkey. Secrets are %%vault.NAME%% placeholders that
the push resolves. Local users are Linux accounts, not config_db: the playbook creates them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: the platform registry imports this module before railfabric.device exists
    from railfabric.device.system import AaaGroup, System


Tables = dict[str, dict[str, Any]]

SYSTEM_TABLES = frozenset({"MGMT_PORT", "MGMT_INTERFACE", "MGMT_VRF_CONFIG", "NTP", "NTP_SERVER", "DNS_NAMESERVER",
                           "DNS_OPTIONS", "SYSLOG_SERVER", "TACPLUS", "TACPLUS_SERVER", "RADIUS", "RADIUS_SERVER",
                           "AAA", "SNMP", "SNMP_AGENT_ADDRESS_CONFIG", "SNMP_USER", "BANNER_MESSAGE"})


def management_tables(s: System, address: str, gateway: str) -> Tables:
    """The management port, its address (a.b.c.d/len) and gateway, and the management VRF."""
    return {
        "MGMT_PORT": {s.interface: {"admin_status": "up", "alias": s.interface}},
        "MGMT_INTERFACE": {f"{s.interface}|{address}": {"gwaddr": gateway}},
        "MGMT_VRF_CONFIG": {"vrf_global": {"mgmtVrfEnabled": "true"}},
    }


def time_and_name_tables(s: System) -> Tables:
    """NTP (in the management VRF, sourced from the management port), DNS servers and search domain, syslog."""
    out: Tables = {}
    if s.ntp:
        out["NTP"] = {"global": {"vrf": s.vrf, "src_intf": s.interface}}
        out["NTP_SERVER"] = {a: {"association_type": "server", "iburst": "on"} for a in s.ntp}
    if s.dns:
        out["DNS_NAMESERVER"] = {a: {} for a in s.dns}
        if s.domain:
            out["DNS_OPTIONS"] = {"GLOBAL": {"search": [s.domain]}}
    if s.syslog:
        out["SYSLOG_SERVER"] = {x.address: {"port": str(x.port), "protocol": x.protocol, "vrf": s.vrf}
                                for x in s.syslog}
    return out


def _tacacs(g: AaaGroup, s: System) -> Tables:
    return {
        "TACPLUS": {"global": {"passkey": g.key, "src_intf": s.interface}},
        "TACPLUS_SERVER": {x.address: {"tcp_port": str(x.port), "passkey": x.key, "priority": str(x.priority),
                                       "vrf": s.vrf} for x in g.servers},
    }


def _radius(g: AaaGroup, s: System) -> Tables:
    return {
        "RADIUS": {"global": {"passkey": g.key}},
        "RADIUS_SERVER": {x.address: {"auth_port": str(x.port), "passkey": x.key, "priority": str(x.priority),
                                      "vrf": s.vrf, "src_intf": s.interface} for x in g.servers},
    }


def aaa_tables(s: System) -> Tables:
    """TACACS+ and RADIUS servers (each group's key is the global passkey) and the AAA login order."""
    out: Tables = {}
    if s.tacacs:
        out.update(_tacacs(s.tacacs, s))
    if s.radius:
        out.update(_radius(s.radius, s))
    out["AAA"] = {"authentication": {"login": ",".join(s.login)}}
    return out


def snmp_tables(s: System) -> Tables:
    """SNMP contact/location, the agent address (management address, SNMP port, management VRF) and SNMPv3 users
    (authPriv, SHA/AES, read-only): nothing when SNMP is not configured."""
    if not (s.snmp_users or s.snmp_location or s.snmp_contact):
        return {}
    out: Tables = {}
    if s.snmp_location or s.snmp_contact:
        info: dict[str, dict[str, str]] = {}
        if s.snmp_contact:
            info["CONTACT"] = {"Contact": s.snmp_contact}
        if s.snmp_location:
            info["LOCATION"] = {"Location": s.snmp_location}
        out["SNMP"] = info
    out["SNMP_AGENT_ADDRESS_CONFIG"] = {f"{s.agent_address}|{s.snmp_port}|{s.vrf}": {}}
    if s.snmp_users:
        out["SNMP_USER"] = {u.name: {
            "SNMP_USER_TYPE": "Priv",
            "SNMP_USER_PERMISSION": "RO",
            "SNMP_USER_AUTH_TYPE": "SHA",
            "SNMP_USER_AUTH_PASSWORD": u.auth,
            "SNMP_USER_ENCRYPTION_TYPE": "AES",
            "SNMP_USER_ENCRYPTION_PASSWORD": u.priv,
        } for u in s.snmp_users}
    return out


def banner_tables(s: System) -> Tables:
    if not s.banner:
        return {}
    return {"BANNER_MESSAGE": {"global": {"state": "enabled", "login": s.banner_text}}}


def system_tables(s: System, address: str, gateway: str) -> Tables:
    return {**management_tables(s, address, gateway), **time_and_name_tables(s), **aaa_tables(s), **snmp_tables(s),
            **banner_tables(s)}
