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

Dual-stack loopbacks and rail subnets (routing.address_families: [ipv4, ipv6], issue 30, v6_30):
- frr.conf `ipv6 prefix-list PL6-LOOPBACK-RAILS seq N permit <prefix>` (FRR user guide filter.rst, IPv6 prefix
  lists), `route-map RM6-CONN-TO-BGP permit 10` / `match ipv6 address prefix-list` (routemap.rst), and under `router
  bgp` an `address-family ipv6 unicast` with `redistribute connected route-map`, `aggregate-address <X:X::X:X/M>
  summary-only`, `neighbor <G> activate` for every peer group (with `next-hop-self` and the inbound route-map of its
  IPv4 family) and `maximum-paths` (bgp.rst, "Address Families", "Route Aggregation-IPv6"). The IPv6 family rides
  on the IPv4 /31 sessions (or the unnumbered link-local ones): bgpd gives an IPv6 route learned over an IPv4
  session the link's IPv6 link-local address as its next hop when the interface has no global IPv6 address, and the
  receiver resolves it on the session's interface (measured: the FRR lab installs every IPv6 rail /64 and summary
  over fe80:: next hops at the planned ECMP width, tests/test_lab_ipv6.py). Verified: FRR 8.4's parsers (vtysh -C,
  bgpd -C; tests/test_ipv6.py) and the FRR lab (numbered and unnumbered).
- config_db.json `LOOPBACK_INTERFACE|Loopback0|<addr>/128` and `VLAN_INTERFACE|VlanN|<addr>/64` rows beside the IPv4
  ones (sonic-loopback-interface.yang and sonic-vlan.yang ip-prefix keys take either family), and `INTERFACE|<port>`
  / `PORTCHANNEL_INTERFACE|<pc>` with `ipv6_use_link_local_only: enable` beside their /31 (the link-local next hop
  above); checked by yanglint against sonic-buildimage's models (tests/test_ipv6.py). NOT verified on a SONiC image:
  that its kernel keeps the link-local address of a port that also has an IPv4 address with that leaf set (the lab's
  veths have one by default).

Raw configuration (`raw:`, issue 30): `text` goes to frr.conf after the managed configuration (after `router bgp`'s
`exit`), each block between `! railfabric raw NAME (LEVEL): begin` / `... end` comment lines (`!` and `#` start
comments in Quagga/FRR configuration files: Quagga manual, "Sample Config File"); `end` is refused (RAW005), `exit`
closes nodes as FRR's own files do. `data` is merged into config_db.json table by table, row by row and field by
field; values are written as CONFIG_DB text. A raw table is pushed as the file holds it (the push keeps only the
switch's tables the file does not name: railfabric/configs/sonic/ansible_plugin.py). Verified: the FRR lines by
vtysh -C in `fabric verify`, the tables by SONiC's YANG models where yanglint and the models are installed
(tests/test_raw.py); NOT verified: raw tables no YANG model defines (YANG001 in `fabric sonic-yang`).

Graceful shutdown (drain30, routing.drain): the drain is FRR's `bgp graceful-shutdown` under `router bgp`; the
receiver `bgp community-list standard CL-GSHUT seq 5 permit graceful-shutdown`, route-map `match community` / `set
local-preference 0`, `neighbor <group> route-map ... in` (FRR user guide bgp.rst; parsed by FRR 8.4's vtysh and bgpd
in tests/test_frr_syntax.py and run in the FRR lab, tests/test_lab_drain.py).

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
    # raw configuration (issue 30, raw30): docs/underlay.md
    raw_text_file="frr.conf", raw_data_file="config_db.json", raw_syntax="frr",
    # graceful shutdown (drain30): FRR `bgp graceful-shutdown` under `router bgp` (FRR user guide bgp.rst; the FRR
    # lab runs it): 65535:0 on what it sends to eBGP peers. Receipt: railfabric's inbound route-map. FRR 8.4 also
    # lowers LOCAL_PREF of a received 65535:0 route by itself (measured in the FRR lab, tests/test_lab_drain.py; not
    # found in FRR's documentation), so it is not relied on: the policy keeps it explicit for any FRR a SONiC ships
    graceful_shutdown=True,
    # BFD profile ranges of FRR 8.4 (vtysh --dryrun), TCP MD5 only
    bfd_interval_ms=(10, 60000),
    bfd_multiplier=(2, 255),
    session_auth=frozenset({"md5"}),
    # load balancing (lb30): SWITCH_HASH|GLOBAL ecmp_hash (sonic-net/SONiC doc/hash/hash-design.md, the generic hash
    # HLD; sonic-buildimage sonic-hash.yang: a leaf-list of hash-field, checked with yanglint in the tests); flow
    # hashing only (config_db has no DLB or adaptive-routing table)
    ecmp_hash_fields=frozenset({"src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port", "ipv6_flow_label",
                                "ingress_port"}),
    # dual-stack (v6_30): frr.conf `address-family ipv6 unicast`, config_db IPv6 rows (see the docstring)
    ipv6_rails=True,
)
