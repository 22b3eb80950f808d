"""SONiC (community, config_db.json + FRR): the platform's facts and naming. Templates: templates/sonic/.

BGP unnumbered (routing.addressing: unnumbered, RFC 8950), split routing mode (frr.conf as written):
- frr.conf `neighbor <EthernetN|PortChannelN> interface peer-group <G>`, then `neighbor <if> remote-as <N>` when the
  group has none (FRR user guide, BGP: "neighbor <interface> interface ..." and IPv6 link-local peering; the order
  FRR's `show running-config` writes). No `capability extended-nexthop`: FRR turns it on for link-local peers (FRR
  user guide, "capability extended-nexthop": "automatically enabled when peering with IPv6 link-local addresses");
  bgpd starts the router advertisements the peers learn each other's link-local address from. Verified: FRR's
  parsers (vtysh -C, bgpd -C) and the FRR lab (sessions Established over fe80::, IPv4 routes over IPv6 next hops at
  their planned ECMP width; tests/test_unnumbered.py), FRR 8.4+.
- config_db.json INTERFACE|<port> / PORTCHANNEL_INTERFACE|<pc> rows with `ipv6_use_link_local_only: enable` and no
  address row (sonic-buildimage src/sonic-yang-models: sonic-interface.yang INTERFACE_LIST and sonic-portchannel.yang
  PORTCHANNEL_INTERFACE_LIST leaf ipv6_use_link_local_only, mode-status, default disable), checked by yanglint
  against those models (`fabric sonic-yang`, tests/test_unnumbered.py). NOT verified: that SONiC's bgpcfgd leaves
  the frr.conf interface neighbors alone in split mode (SONiC's own unnumbered support, sonic-buildimage PR #27370,
  writes BGP_NEIGHBOR keyed by interface for its unified mode, which railfabric does not use).
BFD timers and BGP session keys (issue 30; frr.conf, FRR 8.4 of SONiC's bgp container): a `bfd` section with one
`profile <tier>` per session tier (`detect-multiplier`, `receive-interval`, `transmit-interval`) and `neighbor <group>
bfd profile <tier>` (FRR user guide, bfd.rst "BFD Peer/Profile Configuration" and bgp "neighbor PEER bfd profile
BFDPROF"); ranges 10-60000 ms and 2-255, checked with FRR 8.4.4's own parser (`vtysh --dryrun`, which refuses
`receive-interval 9` and `detect-multiplier 1`); `neighbor <group> password <key>` (TCP MD5; FRR bgp.rst). No TCP-AO:
FRR 8.4's bgpd has no TCP-AO command (and this lab's kernel has CONFIG_TCP_AO off): PLAT046. That SONiC's bgp
container runs bfdd (the profiles need it) is taken from the FRR lab, which runs zebra, bfdd and bgpd: NOT verified on
a SONiC image.
"""

from __future__ import annotations

from railfabric.platforms.base import OutputFile, Platform, first_lane_offset


def interface_name(port: int, lane: int, lanes: int, serdes: int) -> str:
    """SONiC names ports by their first serdes lane: Ethernet0, Ethernet8, ...; breakouts Ethernet4, ..."""
    return f"Ethernet{(port - 1) * serdes + first_lane_offset(lane, lanes, serdes)}"


def speed_form(speed: int, lanes: int) -> str:
    """PORT `speed` in Mbit/s (sonic-port.yang)."""
    return str(speed * 1000)


PLATFORM = Platform(
    name="sonic",
    title="SONiC",
    # interface MTU up to 9216 (SONiC's default 9100 is raised explicitly)
    max_mtu=9216,
    # ECMP hashing per flow. Flowlet (ARS) and packet spraying are SKU-specific extensions not in community
    # config_db, so not offered.
    ecmp_modes=frozenset({"flow"}),
    multipath_relax=True,
    watchdog_actions=frozenset({"drop", "forward", "alert"}),
    files=(OutputFile("config_db.json"),
           OutputFile("frr.conf", template="frr.conf.j2")),
    port_channel_prefix="PortChannel",
    management_interface="eth0",
    loopback_interface="Loopback0",
    naming=interface_name,
    speed_form=speed_form,
    # Community SONiC is a Debian host: plain SSH, privilege through sudo. No ansible_network_os is defined for it
    # in ansible-core; `sonic` is informational (the playbook selects the tasks by the host's `platform`).
    ansible_vars={
        "ansible_connection": "ssh",
        "ansible_network_os": "sonic",
        "ansible_become": True,
        "ansible_become_method": "sudo",
        "ansible_python_interpreter": "/usr/bin/python3",
    },
    ansible_plugin="ansible_plugin.py",
    aaa_login=lambda method, group: "tacacs+" if method == "tacacs" else "radius",  # AAA_AUTHENTICATION login
    management_vrf="mgmt",  # SONiC's management VRF has a fixed name (MGMT_VRF_CONFIG)
    buffer_tables=True,
    dual_homing=frozenset({"mlag"}),  # MCLAG (iccpd)
    frr_lab=True,
    # BGP unnumbered: frr.conf `neighbor <if> interface peer-group <G>` (railfabric/configs/sonic/frr.py) and
    # INTERFACE / PORTCHANNEL_INTERFACE rows with ipv6_use_link_local_only (config_db_ports.py); run by the FRR lab
    bgp_unnumbered=True,
    # BFD profile ranges of FRR 8.4 (vtysh --dryrun), TCP MD5 only
    bfd_interval_ms=(10, 60000),
    bfd_multiplier=(2, 255),
    session_auth=frozenset({"md5"}),
)
