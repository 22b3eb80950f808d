"""Each table family of the SONiC config_db builder (railfabric/platforms/sonic_config_db_*.py) on small hand-built
inputs: the exact tables, derived by hand from the input written next to them."""

from __future__ import annotations

import dataclasses

from railfabric.configs.sonic.config_db_buffers import buffer_tables
from railfabric.configs.sonic.config_db_mclag import mclag_tables
from railfabric.configs.sonic.config_db_ports import interface_tables, port_channel_tables, vlan_tables
from railfabric.configs.sonic.config_db_qos import map_tables, qos_tables, scheduler_tables
from railfabric.configs.sonic.config_db_system import aaa_tables, snmp_tables, system_tables, time_and_name_tables
from railfabric.device import Ecn, Interface, PortChannel, Qos, Vlan, Watchdog
from railfabric.device.mlag import Mlag
from railfabric.device.system import AaaGroup, Server, SnmpUser, SyslogServer, System
from railfabric.plan.buffers import Assignment, Buffers, Pool, Profile

# --------------------------------------------------------------------------- ports and interfaces


def _port(name: str, **kw) -> Interface:
    base = dict(name=name, port=1, lane=0, speed=800, mode="unused", admin_up=False, description="unused", mtu=9216,
                lanes=(0, 1, 2, 3, 4, 5, 6, 7), speed_setting="800000", fec="rs")
    return Interface(**(base | kw))  # type: ignore[arg-type]


def test_ports_breakout_and_routed_interfaces() -> None:
    # port 1 broken out 2x400G: lanes 1 (serdes 0-3) and 2 (4-7); port 2 routed at 800G; port 3 unused
    ifs = (
        _port("Ethernet0", lane=1, speed=400, mode="access", admin_up=True, description="h1 nic0", breakout="2x400G",
              lanes=(0, 1, 2, 3), speed_setting="400000", qos=True),
        _port("Ethernet4", lane=2, speed=400, mode="access", admin_up=True, description="h2 \"nic0\"",
              breakout="2x400G", lanes=(4, 5, 6, 7), speed_setting="400000"),
        _port("Ethernet8", port=2, mode="routed", admin_up=True, description="spine1 Ethernet0",
              lanes=(8, 9, 10, 11, 12, 13, 14, 15), ipv4="10.4.0.1/31"),
        _port("Ethernet16", port=3, fec="none", mtu=9100, lanes=(16, 17, 18, 19, 20, 21, 22, 23)),
    )
    t = interface_tables(ifs)
    assert t["PORT"]["Ethernet0"] == {"admin_status": "up", "speed": "400000", "fec": "rs", "mtu": "9216",
                                      "lanes": "0,1,2,3", "description": "h1 nic0"}
    assert t["PORT"]["Ethernet4"]["description"] == 'h2 "nic0"'  # text is data: the serialiser escapes it
    assert t["PORT"]["Ethernet16"] == {"admin_status": "down", "speed": "800000", "fec": "none", "mtu": "9100",
                                       "lanes": "16,17,18,19,20,21,22,23", "description": "unused"}
    assert t["BREAKOUT_CFG"] == {"Ethernet0": {"brkout_mode": "2x400G"}}  # the first lane names the port
    assert t["INTERFACE"] == {"Ethernet8": {}, "Ethernet8|10.4.0.1/31": {}}
    # nothing broken out, nothing routed: neither table
    assert set(interface_tables(ifs[3:])) == {"PORT"}


def _pc(name: str, number: int, members: tuple[str, ...], ipv4: str | None, **kw) -> PortChannel:
    return PortChannel(name=name, number=number, members=members, ipv4=ipv4, description=f"to {name}", mtu=9216,
                       peer="x", min_links=1, **kw)


def test_port_channels() -> None:
    pcs = (_pc("PortChannel33", 33, ("Ethernet256", "Ethernet264"), "10.4.64.1/31"),
           _pc("PortChannel1", 1, ("Ethernet0",), None, mode="access", lacp_key="auto"))
    t = port_channel_tables(pcs)
    assert t["PORTCHANNEL"] == {
        "PortChannel33": {"admin_status": "up", "mtu": "9216", "min_links": "1", "description": "to PortChannel33"},
        "PortChannel1": {"admin_status": "up", "mtu": "9216", "min_links": "1", "description": "to PortChannel1",
                         "lacp_key": "auto"},
    }
    assert t["PORTCHANNEL_MEMBER"] == {"PortChannel33|Ethernet256": {}, "PortChannel33|Ethernet264": {},
                                       "PortChannel1|Ethernet0": {}}
    assert t["PORTCHANNEL_INTERFACE"] == {"PortChannel33": {}, "PortChannel33|10.4.64.1/31": {}}  # routed only
    assert port_channel_tables(()) == {}
    # a port-channel without members still writes an (empty) member table; without an address no INTERFACE
    assert port_channel_tables((_pc("PortChannel2", 2, (), None),))["PORTCHANNEL_MEMBER"] == {}


def test_vlans_with_and_without_mlag() -> None:
    v = Vlan(id=100, name="RAIL0", rail=0, gateway="172.16.0.1/24", prefix="172.16.0.0/24", mtu=9216,
             members=("PortChannel1", "PortChannel2"), tagged=("PortChannel1000",))
    t = vlan_tables((v,), None, 9216)
    assert t["VLAN"] == {"Vlan100": {"vlanid": "100", "mtu": "9216", "description": "RAIL0"}}
    assert t["VLAN_INTERFACE"] == {"Vlan100": {}, "Vlan100|172.16.0.1/24": {}}
    assert t["VLAN_MEMBER"] == {"Vlan100|PortChannel1": {"tagging_mode": "untagged"},
                                "Vlan100|PortChannel2": {"tagging_mode": "untagged"},
                                "Vlan100|PortChannel1000": {"tagging_mode": "tagged"}}
    # the MLAG pair's peer VLAN 4094: its own /31 address, the device MTU (9100 here), the peer link tagged
    m = Mlag(domain="p1-s1-g1", domain_number=1, peer="b", primary=True, vlan=4094, local_ip="10.255.0.0",
             peer_ip="10.255.0.1", prefix_len=31, peer_link="PortChannel1000", virtual_mac="00:1c:73:00:00:01")
    t = vlan_tables((dataclasses.replace(v, members=(), tagged=()),), m, 9100)
    assert t["VLAN"]["Vlan4094"] == {"vlanid": "4094", "mtu": "9100", "description": "MLAG-PEER"}
    assert t["VLAN_INTERFACE"] == {"Vlan100": {}, "Vlan100|172.16.0.1/24": {}, "Vlan4094": {},
                                   "Vlan4094|10.255.0.0/31": {}}
    assert t["VLAN_MEMBER"] == {"Vlan4094|PortChannel1000": {"tagging_mode": "tagged"}}
    # no VLAN at all: no VLAN tables, even on an MLAG switch (the peer VLAN rides with the rail VLANs)
    assert vlan_tables((), m, 9216) == {}
    # VLANs without untagged members and no MLAG: VLAN and VLAN_INTERFACE only
    assert set(vlan_tables((dataclasses.replace(v, members=(), tagged=()),), None, 9216)) == {"VLAN",
                                                                                              "VLAN_INTERFACE"}


# --------------------------------------------------------------------------- MCLAG


def test_mclag_tables() -> None:
    m = Mlag(domain="p1-s1-g2", domain_number=2, peer="p1-s1-rail1b", primary=True, vlan=4094,
             local_ip="10.255.0.2", peer_ip="10.255.0.3", prefix_len=31, peer_link="PortChannel1000",
             virtual_mac="00:1c:73:00:00:01", bonds=("PortChannel1", "PortChannel2"))
    assert mclag_tables(m) == {
        "MCLAG_DOMAIN": {"2": {"source_ip": "10.255.0.2", "peer_ip": "10.255.0.3", "peer_link": "PortChannel1000"}},
        "MCLAG_INTERFACE": {"2|PortChannel1": {"if_type": "PortChannel"}, "2|PortChannel2": {"if_type": "PortChannel"}},
        "MCLAG_UNIQUE_IP": {"Vlan4094": {"unique_ip": "enable"}},
        "FEATURE": {"iccpd": {"state": "enabled"}},  # off on the images that carry it (init_cfg.json.j2)
    }
    assert "MCLAG_INTERFACE" not in mclag_tables(dataclasses.replace(m, bonds=()))


# --------------------------------------------------------------------------- QoS

# RoCE on DSCP 26 → TC 3 (lossless, PFC priority 3), CNP on DSCP 48 → TC 6 (strict); the rest TC 0.
QOS = Qos(dscp_to_tc=tuple(3 if d == 26 else 6 if d == 48 else 0 for d in range(64)), tc_groups=(),
          tc_to_queue=tuple(range(8)), tc_to_pg=(0, 0, 0, 3, 0, 0, 0, 0), lossless=(3,), pfc_to_queue=((3, 3),),
          roce_tc=3, cnp_tc=6, roce_dscp=26, cnp_dscp=48, ecn=Ecn(150000, 1500000, 100), strict_queues=(6,),
          dwrr=((0, 40), (3, 60)), watchdog=Watchdog(200, 400, 100, "drop"))


def test_qos_maps() -> None:
    t = map_tables(QOS)
    dscp = t["DSCP_TO_TC_MAP"]["AI_ROCE"]
    assert len(dscp) == 64 and dscp["26"] == "3" and dscp["48"] == "6" and dscp["0"] == dscp["63"] == "0"
    assert t["TC_TO_QUEUE_MAP"] == {"AI_ROCE": {str(i): str(i) for i in range(8)}}
    assert t["TC_TO_PRIORITY_GROUP_MAP"]["AI_ROCE"] == {"0": "0", "1": "0", "2": "0", "3": "3", "4": "0", "5": "0",
                                                        "6": "0", "7": "0"}
    assert t["MAP_PFC_PRIORITY_TO_QUEUE"] == {"AI_ROCE": {"3": "3"}}


def test_schedulers_and_ecn() -> None:
    assert scheduler_tables(QOS) == {
        "SCHEDULER": {"AI_STRICT": {"type": "STRICT"}, "AI_DWRR_Q0": {"type": "DWRR", "weight": "40"},
                      "AI_DWRR_Q3": {"type": "DWRR", "weight": "60"}},
        "WRED_PROFILE": {"AI_LOSSLESS": {"ecn": "ecn_all", "wred_green_enable": "true",
                                         "green_min_threshold": "150000", "green_max_threshold": "1500000",
                                         "green_drop_probability": "100"}},
    }
    # no strict queue, no weights, ECN off: an empty SCHEDULER table is still written, no WRED_PROFILE
    assert scheduler_tables(dataclasses.replace(QOS, strict_queues=(), dwrr=(), ecn=None)) == {"SCHEDULER": {}}


def test_per_port_qos_queues_and_watchdog() -> None:
    ifs = (_port("Ethernet0", qos=True), _port("Ethernet8", port=2), _port("Ethernet16", port=3, qos=True))
    t = qos_tables(QOS, ifs)
    assert set(t["PORT_QOS_MAP"]) == {"Ethernet0", "Ethernet16"}  # only the ports the RoCE QoS applies to
    assert t["PORT_QOS_MAP"]["Ethernet0"] == {"dscp_to_tc_map": "AI_ROCE", "tc_to_queue_map": "AI_ROCE",
                                              "tc_to_pg_map": "AI_ROCE", "pfc_to_queue_map": "AI_ROCE",
                                              "pfc_enable": "3", "pfcwd_sw_enable": "3"}
    # queue 6 strict, 0 weighted, 3 weighted and lossless → ECN-marked
    assert {k: v for k, v in t["QUEUE"].items() if k.startswith("Ethernet0|")} == {
        "Ethernet0|6": {"scheduler": "AI_STRICT"}, "Ethernet0|0": {"scheduler": "AI_DWRR_Q0"},
        "Ethernet0|3": {"scheduler": "AI_DWRR_Q3", "wred_profile": "AI_LOSSLESS"}}
    assert len(t["QUEUE"]) == 6
    assert t["PFC_WD"] == {"GLOBAL": {"POLL_INTERVAL": "100"},
                           "Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "400"},
                           "Ethernet16": {"action": "drop", "detection_time": "200", "restoration_time": "400"}}
    off = qos_tables(dataclasses.replace(QOS, watchdog=None, ecn=None), ifs)
    assert "PFC_WD" not in off and "pfcwd_sw_enable" not in off["PORT_QOS_MAP"]["Ethernet0"]
    assert off["QUEUE"]["Ethernet0|3"] == {"scheduler": "AI_DWRR_Q3"}
    # no RoCE port: the maps and schedulers only
    assert set(qos_tables(QOS, ifs[1:2])) == {"DSCP_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP",
                                              "MAP_PFC_PRIORITY_TO_QUEUE", "SCHEDULER", "WRED_PROFILE"}


# --------------------------------------------------------------------------- buffers


def test_buffer_tables() -> None:
    b = Buffers(
        pools=(Pool("ingress_lossless_pool", "ingress", "dynamic", 52161690, 1024),
               Pool("egress_lossy_pool", "egress", "dynamic", 52161690, 0)),
        profiles=(Profile("ingress_lossy_profile", "ingress_lossy_pool", 0, 3),
                  Profile("pg_lossless_400000_3m_profile", "ingress_lossless_pool", 19456, 0, xon=19456, xoff=30000)),
        pgs=(Assignment("Ethernet0", "0", "ingress_lossy_profile"),
             Assignment("Ethernet0", "3", "pg_lossless_400000_3m_profile")),
        queues=(Assignment("Ethernet0", "0-2", "q_lossy_profile"),),
        ingress_lists=(("Ethernet0", ("ingress_lossless_profile", "ingress_lossy_profile")),),
        egress_lists=(("Ethernet0", ("egress_lossless_profile",)),),
        cable_lengths=(("Ethernet0", "3m"), ("Ethernet8", "30m")),
        create_only=True, headroom_bytes=0, headroom_budget=0)
    t = buffer_tables(b)
    assert t["BUFFER_POOL"] == {
        # a shared headroom pool (xoff 1024) is written; 0 means none and is left out
        "ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "52161690", "xoff": "1024"},
        "egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": "52161690"},
    }
    assert t["BUFFER_PROFILE"] == {
        "ingress_lossy_profile": {"pool": "ingress_lossy_pool", "dynamic_th": "3", "size": "0"},
        # a lossless PG profile carries xon/xoff, even an xoff of 0
        "pg_lossless_400000_3m_profile": {"pool": "ingress_lossless_pool", "dynamic_th": "0", "size": "19456",
                                          "xon": "19456", "xoff": "30000"},
    }
    assert t["CABLE_LENGTH"] == {"AZURE": {"Ethernet0": "3m", "Ethernet8": "30m"}}
    assert t["BUFFER_PG"] == {"Ethernet0|0": {"profile": "ingress_lossy_profile"},
                              "Ethernet0|3": {"profile": "pg_lossless_400000_3m_profile"}}
    assert t["BUFFER_QUEUE"] == {"Ethernet0|0-2": {"profile": "q_lossy_profile"}}
    assert t["BUFFER_PORT_INGRESS_PROFILE_LIST"] == {
        "Ethernet0": {"profile_list": "ingress_lossless_profile,ingress_lossy_profile"}}
    assert t["BUFFER_PORT_EGRESS_PROFILE_LIST"] == {"Ethernet0": {"profile_list": "egress_lossless_profile"}}
    zero = buffer_tables(dataclasses.replace(b, profiles=(Profile("p", "q", 0, 0, xon=0, xoff=0),)))
    assert zero["BUFFER_PROFILE"]["p"] == {"pool": "q", "dynamic_th": "0", "size": "0", "xon": "0", "xoff": "0"}
    # no PFC port: pools, profiles and cable lengths only
    assert set(buffer_tables(dataclasses.replace(b, pgs=()))) == {"BUFFER_POOL", "BUFFER_PROFILE", "CABLE_LENGTH"}


# --------------------------------------------------------------------------- management plane


def _system(**kw) -> System:
    base = dict(vrf="mgmt", interface="eth0", agent_address="192.168.0.160", eapi=False, ssh=True, users=(),
                push_user=None, tacacs=None, radius=None, login=("local",), authorization=(), ntp=(), dns=(),
                domain=None, syslog=(), snmp_location=None, snmp_contact=None, snmp_users=(), snmp_group="G",
                snmp_port=161, banner=(), aaa_groups=(), ntp_servers=())
    return System(**(base | kw))  # type: ignore[arg-type]


def test_smallest_management_plane() -> None:
    # no service configured: the management port, its address and gateway, the VRF and AAA login local
    assert system_tables(_system(), "192.168.0.160/20", "192.168.0.1") == {
        "MGMT_PORT": {"eth0": {"admin_status": "up", "alias": "eth0"}},
        "MGMT_INTERFACE": {"eth0|192.168.0.160/20": {"gwaddr": "192.168.0.1"}},
        "MGMT_VRF_CONFIG": {"vrf_global": {"mgmtVrfEnabled": "true"}},
        "AAA": {"authentication": {"login": "local"}},
    }


def test_ntp_dns_syslog() -> None:
    s = _system(ntp=("192.0.2.20", "192.0.2.21"), dns=("192.0.2.30",), domain="atlas.example.net",
                syslog=(SyslogServer("192.0.2.40", 601, "tcp", True), SyslogServer("192.0.2.41", 514, "udp", False)))
    assert time_and_name_tables(s) == {
        "NTP": {"global": {"vrf": "mgmt", "src_intf": "eth0"}},
        "NTP_SERVER": {"192.0.2.20": {"association_type": "server", "iburst": "on"},
                       "192.0.2.21": {"association_type": "server", "iburst": "on"}},
        "DNS_NAMESERVER": {"192.0.2.30": {}},
        "DNS_OPTIONS": {"GLOBAL": {"search": ["atlas.example.net"]}},
        "SYSLOG_SERVER": {"192.0.2.40": {"port": "601", "protocol": "tcp", "vrf": "mgmt"},
                          "192.0.2.41": {"port": "514", "protocol": "udp", "vrf": "mgmt"}},
    }
    # a domain without servers writes nothing
    assert time_and_name_tables(_system(domain="x.example")) == {}


def test_tacacs_radius_and_login_order() -> None:
    # two TACACS+ servers: the first gets the higher priority (railfabric/device/system.py: n - i)
    tac = AaaGroup("tacacs", "tacacs+", "TACACS", "%%vault.tacacs_key%%",
                   (Server("192.0.2.10", 49, "%%vault.tacacs_key%%", 2, False),
                    Server("192.0.2.11", 4949, "%%vault.b%%", 1, True)))
    rad = AaaGroup("radius", "radius", "RADIUS", "%%vault.radius_key%%",
                   (Server("192.0.2.12", 1812, "%%vault.radius_key%%", 1, False),))
    t = aaa_tables(_system(tacacs=tac, radius=rad, login=("tacacs+", "radius", "local")))
    assert t == {
        "TACPLUS": {"global": {"passkey": "%%vault.tacacs_key%%", "src_intf": "eth0"}},
        "TACPLUS_SERVER": {
            "192.0.2.10": {"tcp_port": "49", "passkey": "%%vault.tacacs_key%%", "priority": "2", "vrf": "mgmt"},
            "192.0.2.11": {"tcp_port": "4949", "passkey": "%%vault.b%%", "priority": "1", "vrf": "mgmt"}},
        "RADIUS": {"global": {"passkey": "%%vault.radius_key%%"}},
        "RADIUS_SERVER": {"192.0.2.12": {"auth_port": "1812", "passkey": "%%vault.radius_key%%", "priority": "1",
                                         "vrf": "mgmt", "src_intf": "eth0"}},
        "AAA": {"authentication": {"login": "tacacs+,radius,local"}},
    }


def test_snmp_and_banner() -> None:
    s = _system(snmp_location="DH1", snmp_contact="noc@example.net",
                snmp_users=(SnmpUser("monitor", "%%vault.a%%", "%%vault.p%%"),), banner=("line 1", "line 2"))
    t = system_tables(s, "192.168.0.160/20", "192.168.0.1")
    assert t["SNMP"] == {"CONTACT": {"Contact": "noc@example.net"}, "LOCATION": {"Location": "DH1"}}
    assert t["SNMP_AGENT_ADDRESS_CONFIG"] == {"192.168.0.160|161|mgmt": {}}  # address|port|vrf
    assert t["SNMP_USER"] == {"monitor": {
        "SNMP_USER_TYPE": "Priv", "SNMP_USER_PERMISSION": "RO", "SNMP_USER_AUTH_TYPE": "SHA",
        "SNMP_USER_AUTH_PASSWORD": "%%vault.a%%", "SNMP_USER_ENCRYPTION_TYPE": "AES",
        "SNMP_USER_ENCRYPTION_PASSWORD": "%%vault.p%%"}}
    assert t["BANNER_MESSAGE"] == {"global": {"state": "enabled", "login": "line 1\nline 2"}}
    # only a contact: SNMP has CONTACT only, the agent still listens, no users
    t = snmp_tables(_system(snmp_contact="noc"))
    assert t == {"SNMP": {"CONTACT": {"Contact": "noc"}}, "SNMP_AGENT_ADDRESS_CONFIG": {"192.168.0.160|161|mgmt": {}}}
    # only users: no SNMP table, the agent and the users
    assert set(snmp_tables(_system(snmp_users=s.snmp_users))) == {"SNMP_AGENT_ADDRESS_CONFIG", "SNMP_USER"}
    assert snmp_tables(_system()) == {}
