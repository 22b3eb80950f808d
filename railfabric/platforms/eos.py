"""Arista EOS (running-config text, pushed in a configuration session): the platform's facts and naming.
Templates: templates/eos/.

NOT verified: a pinned router-id (devices.<name>.router_id) that is no address of the switch: the `router-id` form is
the one already rendered, but no Arista page was found that says the identifier may be an address the switch does not
own (the FRR lab runs one: railfabric/checks/rules/pin_rules.py).

Raw configuration (`raw:` text, issue 30; railfabric/inventory/intent_raw.py): printed at the end of
running-config.cfg, before the final `end`, each block between `! railfabric raw NAME (LEVEL): begin` and `... end`
comment lines. The placement follows Arista AVD's `eos_cli` (pyavd _eos_cli_config_gen/j2templates/
eos-intended-config.j2, aristanetworks/avd@3cac535c16: eos-cli.j2 is the last include before end.j2). `!` starts a
comment line in EOS configuration text (AVD's templates write it between sections). `end` leaves configuration mode
from any mode and a top-level `exit` leaves global configuration (Cisco-style CLI, cisco.com `end` reference; EOS
follows it): refused in raw text (RAW005). NOT verified on a switch: that a configuration session's `configure
replace` takes a section re-opened by a raw block (`interface Ethernet1/1` twice) as one section.

Graceful shutdown (drain30, routing.drain): the drain is maintenance mode, `maintenance` / `unit System` / `quiesce`
(Arista EOS User Manual, "Maintenance Mode", EOS 4.15.2F+), sent as lines of a configuration session; the receiver is
railfabric's inbound route-map: `ip community-list CL-GSHUT permit 65535:0`, `route-map ... match community` /
`set local-preference 0`, `neighbor <group> route-map ... in`. NOT verified: quiescing the System unit inside a
configuration session that is then committed with a timer, and the community-list's `65535:0` spelling (EOS also names
it GSHUT).

BFD timers and BGP session keys (issue 30; router bgp): `neighbor <group> bfd` plus `neighbor <group> bfd interval
<ms> min-rx <ms> multiplier <n>` (the per-neighbor form Arista AVD renders from `peer_groups[].bfd_timers`);
`neighbor <group> password 0 <key>` (TCP MD5, the key in clear from the vault, like the TACACS+ `key 0`); TCP-AO as
`management security` / `session shared-secret profile <tier>` / `secret 0 0 <key> receive-lifetime infinite
transmit-lifetime infinite` and `neighbor <group> password shared-secret profile <tier> algorithm hmac-sha1-96`
(AVD's eos_cli_config_gen `management_security.shared_secret_profiles` and `router_bgp.peer_groups[].shared_secret`;
a public EOS 4.28.2F / Junos TCP-AO interop note with `secret 0 7 ...`; EOS needs the multi-agent routing model). The
key-id/type order `secret <id> 0 <key> ...` and both TCP-AO lines are what AVD renders from the same data
(tests/test_eos_avd.py, pyavd 5.7). NOT verified on a switch: those lines, the BFD ranges (interval 50-60000 ms,
multiplier 3-50, taken from Arista's BFD configuration section as recalled, not found in the library).

Load balancing (issue 30, lb30): routing.ecmp.mode flowlet renders `ip hardware fib load-balance distribution dynamic`
(EOS dynamic load balancing on ECMP groups: Arista TOI 14562 "Support for Dynamic Load Balancing on ECMP groups",
EOS 4.24.2F, as quoted with the CLI help in aristanetworks/avd issue 4920; AVD PR 5450 renders it). NOT verified on a
switch: which ASIC families accept it (Trident 4/Tomahawk class per the TOI), that it
needs no TCAM profile change. Refused: routing.ecmp.hash (PLAT053: the per-ASIC hash field forms), the flowlet
inactivity interval (PLAT055), per-packet mode.
TCP-AO key rollover (issue 30, keys30: routing.authentication.<tier>.key_id / next): the secret's id is the tier's
KeyID (`secret <key_id> 0 <key> ...`); during a rollover the profile holds two secrets, both `receive-lifetime
infinite`, the current one `transmit-lifetime 2020-01-01 00:00:00 <send_from>` and the next one `transmit-lifetime
<send_from> 2099-12-31 23:59:59` (UTC; railfabric/configs/eos/keys.py). Forms as AVD's eos_cli_config_gen writes
`management_security.shared_secret_profiles[].secrets[]` with receive/transmit lifetimes (`<start date time> <end
date time>`, `YYYY-MM-DD hh:mm:ss`, `local-time` when not UTC). NOT verified: these forms in Arista's EOS User
Manual (not in the library), the latest end date EOS accepts, that EOS switches its send key at the window's edge on
an established session without a reset.

BGP unnumbered (issue 30, eosun: routing.addressing: unnumbered, RFC 8950: IPv4 routes over IPv6 link-local next
hops, no /31 on fabric links). Forms as Arista's AVD writes them (aristanetworks/avd, python-avd/pyavd/
_eos_cli_config_gen/j2templates/eos, 2023-2024 sources as stored in the library, commit 000975f47e): router-bgp.j2
`neighbor interface <if> peer-group <G> remote-as <N>` (router_bgp.neighbor_interfaces: AVD writes the line only
with remote-as or peer-filter, so railfabric gives each interface neighbour its remote-as even when the group has
one), and under `address-family ipv4` `neighbor <G> next-hop address-family ipv6 originate` (peer_groups[].next_hop
.address_family_ipv6_originate), before `neighbor <G> activate` as AVD orders them; ip-routing.j2 `ip routing ipv6
interfaces` in place of `ip routing` (IPv4 routing over interfaces with IPv6 addresses only, then `no ip routing
vrf <mgmt>` as in AVD's documented examples); ipv6-unicast-routing.j2 `ipv6 unicast-routing`; ethernet-interfaces.j2
and port-channel-interfaces.j2 `ipv6 enable` (ipv6_enable; also in the compiled templates of the pyavd 4.10.2
and 5.5.0 wheels) after `no switchport` on a routed port without `ip address`. The same
set (ipv6 enable per interface, ipv6 unicast-routing, `neighbor interface ... peer-group ... remote-as ...`, the
ipv4 family's `next-hop address-family ipv6 originate`) is the working cEOS 4.31.2F configuration of ipSpace.net's
"Interface EBGP Sessions on Arista EOS" (2024-03), which also notes that EOS will not look for link-local EBGP
neighbours without `ipv6 unicast-routing`. An interface neighbour has no description of its own (the form has none):
the group's description names the tier. NOT verified: any of these forms in Arista's EOS User Manual (not found in
the library); `ip routing ipv6 interfaces` together with `no ip routing vrf <mgmt>` on hardware EOS; BFD (`neighbor
<G> bfd`) and the TCP-MD5 / TCP-AO key of the group applied to interface neighbours (inherited from the peer group
as for address neighbours, not confirmed); the MLAG peer's iBGP keeps its numbered /31 over the peer VLAN and is
left without `next-hop address-family ipv6 originate` (its next-hop-self is the peer VLAN's IPv4 address).
"""

from __future__ import annotations

from railfabric.platforms.base import OutputFile, Platform, first_lane_offset
from railfabric.platforms.eos_asic import EOS_QUEUE_FORMS


def interface_name(port: int, lane: int, lanes: int, serdes: int) -> str:
    """Ethernet<port>/<first lane>; 2x400G on an 8-lane OSFP is Ethernet1/1 and Ethernet1/5; Ethernet<port> on a
    one-lane port."""
    if serdes == 1:
        return f"Ethernet{port}"
    return f"Ethernet{port}/{first_lane_offset(lane or 1, lanes, serdes) + 1}"


def speed_form(speed: int, lanes: int) -> str:
    """`speed <rate>g-<lanes>`, the lane-count form Arista uses on multi-lane (octal) ports ("400G-8, 200G-4, 100G-2"
    in Arista's "Octal Port Renumber" page); a breakout is this form on each primary lane (Ethernet1/1 and 1/5 at
    400g-4 for 2x400G of an 800G OSFP), so the port never stays at its native 1x800G with the second lane down."""
    return f"{speed}g-{lanes}"


PLATFORM = Platform(
    name="eos",
    title="EOS",
    max_mtu=9214,
    # Flow hashing, and flowlet = dynamic load balancing (lb30, below); per-packet (randomized load balancing, EOS
    # 4.35.2F TOI) is refused: its lines were not confirmed.
    ecmp_modes=frozenset({"flow", "flowlet"}),
    multipath_relax=True,
    # EOS's verified PFC watchdog action word is `drop` (pyavd schema); forward/alert have no verified equivalent.
    watchdog_actions=frozenset({"drop"}),
    files=(OutputFile("running-config.cfg", template="running-config.j2"),),
    port_channel_prefix="Port-Channel",
    management_interface="Management1",
    loopback_interface="Loopback0",
    naming=interface_name,
    speed_form=speed_form,
    # EOS over the CLI (ansible.netcommon.network_cli): one persistent SSH session keeps the configuration
    # session's mode between commands, and ansible.netcommon.net_put copies the resolved file to flash over it.
    ansible_vars={
        "ansible_connection": "ansible.netcommon.network_cli",
        "ansible_network_os": "arista.eos.eos",
        "ansible_become": True,
        "ansible_become_method": "enable",
    },
    ansible_plugin="ansible_plugin.py",
    aaa_login=lambda method, group: f"group {group}",  # aaa authentication login default group <name> ...
    eapi=True,
    anta=True,  # expected/anta/: ANTA catalogs test EOS switches
    replaces_users=True,
    dual_homing=frozenset({"mlag"}),
    configured_virtual_mac=True,
    # the queue keyword and MMU profile differ by switch family (uc-tx-queue + platform trident mmu on
    # Trident/Tomahawk, tx-queue on Sand): railfabric/platforms/eos_asic.py, with the sources
    queue_forms=EOS_QUEUE_FORMS,
    # BGP unnumbered (routing.addressing: unnumbered, RFC 8950): rendered with the forms Arista's AVD writes (module
    # docstring, "BGP unnumbered"); NOT verified against Arista's EOS User Manual
    bgp_unnumbered=True,
    # dual-stack (v6_30, then the issue-30 closing session): rendered over unnumbered sessions only. The forms are
    # the ones Arista's AVD writes (pyavd 5.4.0 `get_device_config`, run on a structured config holding each key):
    # `ipv6 address <a>/128` on Loopback0 and `ipv6 address <a>/64` on VlanN; `ipv6 prefix-list <PL>` with
    # `   seq <n> permit <p>` lines; `route-map <RM> permit 10` / `match ipv6 address prefix-list <PL>`; under
    # `router bgp` `aggregate-address <v6 prefix> summary-only` (AVD's schema: "IPv4 prefix ... or IPv6 prefix") and
    # `address-family ipv6` with `neighbor <G> activate`, `neighbor <G> route-map <M> in` (the graceful-shutdown
    # receipt, AVD's address_family_ipv6.peer_groups[].route_map_in) and `redistribute connected route-map <RM>`;
    # `ipv6 unicast-routing` (already there for unnumbered). Over an unnumbered session the IPv6 routes' next hop
    # is the sender's link-local address, as for the IPv4 routes (RFC 8950): no choice left to EOS. NOT verified
    # against the EOS manual; NOT verified that the router-level `maximum-paths N ecmp N` also widens the IPv6
    # family (AVD has no per-family form). Numbered fabrics stay refused (PLAT047, the reason below), and so do MLAG
    # pairs (their iBGP is an IPv4 /31 session: the same next-hop question; AVD's shared-gateway form would be
    # `ipv6 address virtual`)
    ipv6_over_unnumbered=True,
    ipv6_refusal=("the next hop EOS gives IPv6 routes over IPv4 /31 sessions (IPv4-mapped unless the link has "
                  "an IPv6 address) is not confirmed from Arista's EOS manual here"),
    # raw configuration (issue 30, raw30): docs/underlay.md
    raw_text_file="running-config.cfg", raw_syntax="cli",
    # graceful shutdown (drain30): EOS maintenance mode (`maintenance` / `unit System` / `quiesce`, EOS 4.15.2F+:
    # Arista EOS User Manual "Maintenance Mode"): BGP peers under maintenance get 65535:0 on what the switch sends and
    # LOCAL_PREF 0 on what it receives. Receipt: railfabric's inbound route-map (EOS's own maintenance receiver
    # route-map is documented in a TOI, not as a default: NOT relied on)
    graceful_shutdown=True,
    # BFD: interval 50-60000 ms, multiplier 3-50 (NOT verified); TCP MD5 and TCP-AO (shared-secret profiles)
    bfd_interval_ms=(50, 60000),
    bfd_multiplier=(3, 50),
    session_auth=frozenset({"md5", "tcp-ao"}),
    # load balancing (lb30): flowlet = dynamic load balancing, `ip hardware fib load-balance distribution dynamic`
    # (aristanetworks/avd issue 4920 and PR 5450: AVD's model of the EOS command). EOS's hash
    # field forms differ per ASIC family (`load-balance policies` profiles on Jericho, `port-channel load-balance
    # trident fields ip` on Trident/Tomahawk) and were not confirmed from Arista's manual: routing.ecmp.hash is
    # refused (PLAT053); the DLB inactivity/flow-set settings are not rendered (PLAT055)
)
