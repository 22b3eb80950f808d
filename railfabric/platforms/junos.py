"""Juniper Junos OS Evolved on the QFX5240-64OD (junos.conf in the curly-brace hierarchy, loaded with `load override`
over NETCONF and committed with `commit confirmed`): the platform's facts and naming. Templates: templates/junos/;
the per-stanza view the templates format is built in railfabric/configs/junos/conf.py.

Vendor forms and where they were checked (search tool, Juniper documentation unless said otherwise):
- interface names et-0/0/<port> with 0-based ports (QFX5241-64OD ports panel "numbered 0 to 63"; Junos naming
  type-fpc/pic/port:channel, channel 0 first: "Channel Identifier Part of an Interface Name");
- channelization on the parent `number-of-sub-ports N; speed 400g;` with children et-0/0/P:0..N-1 (Configure Port
  Speed; a public QFX5240 Apstra-style template and PTX10001-36MR bring-up configs);
- OSFP800 breakouts 2x400G, 4x200G, 8x100G (QFX5140 ports page, the same OSFP800 cage);
- Junos OS Evolved management interface re0:mgmt-0 (Management Ethernet Interfaces, platform table);
- media MTU excludes the FCS and includes the 14-byte Ethernet header, the IP MTU is media MTU - 14 (Physical
  Interface Properties: media MTU 1514 for IP MTU 1500); QFX/Junos maximum 9216 (REFERENCE.md, JVD leaf config);
- class-of-service: forwarding-classes `class X queue-num Q no-loss pfc-priority P`, `classifiers dscp`,
  `congestion-notification-profile` with `input dscp code-point 011010 pfc`, `output ieee-802.1 code-point 011
  flow-control-queue Q`, `pfc-watchdog` (poll-interval / detection in polls / recovery; default action drop),
  drop-profiles `interpolate fill-level [a b] drop-probability [0 p]`, schedulers with
  `explicit-congestion-notification` and `priority strict-high`, scheduler-maps (Juniper AI JVD leaf config;
  PFC Watchdog page; drop-profiles reference: fill levels are percentages only);
- BGP `type external`, `multipath multiple-as`, `bfd-liveness-detection minimum-interval 1000 multiplier 3`,
  `neighbor A peer-as N`; forwarding-table export of `then load-balance per-packet` (JVD leaf config);
- junipernetworks.junos.junos_config `src`, `update: override`, `confirm: <minutes>`, `confirm_commit: true`
  (ansible docs; REFERENCE-DEPLOY.md §5.2).

Forms NOT verified against a vendor page (kept as the closest documented form; check on a lab switch first):
- load balancing (lb30): the range of `ecmp-dlb flowlet inactivity-interval` on the QFX5240 (the schema accepts
  1-65535 µs; Apstra's documented default is 256 µs), that `ecmp-dlb` and `family inet6` exclusions are accepted
  together with the inet ones on Junos OS Evolved, and the flowset table size form (not rendered).
- a pinned router-id (devices.<name>.router_id) that is no address of the switch: the `router-id` form is the one
  already rendered, but no vendor page was found that says the identifier may be an address the switch does not own (the
  FRR lab runs one: railfabric/checks/rules/pin_rules.py);
- drain30 (graceful shutdown): the `set protocols bgp graceful-shutdown sender` line form (the CLI reference shows
  the hierarchy `graceful-shutdown { sender { local-preference <v>; } }`, not an empty `sender;`);
- `routing-instance mgmt_junos` under system ntp server / name-server / tacplus-server / radius-server /
  syslog host, and `snmp routing-instance-access` (the mgmt_junos management-instance documentation was not found);
- `routing-options aggregate route P` exported with a policy `from protocol aggregate` and the longer routes
  rejected (REFERENCE-DEPLOY.md marks it UNVERIFIED);
- `routing-options maximum-ecmp N` on QFX5240 (values 16, 32, 64, 96 .. 512 are documented for Junos 21.1R1+;
  whether QFX5240 also needs a chassis-level limit raised is not documented in what was found);
- SNMPv3 usm `authentication-sha` / `privacy-aes128` with `authentication-password` / `privacy-password` and vacm;
- login class names `super-user` / `read-only`, `authentication encrypted-password`, `ssh-ed25519 "<key>"`;
- `ether-options 802.3ad aeN` on a member and `aggregated-ether-options minimum-links N; lacp active;`;
- `family ethernet-switching interface-mode access; vlan members NAME` and `vlans NAME vlan-id N l3-interface irb.N`;
- whether a PFC watchdog detection/recovery other than the defaults is accepted on QFX5240;
- the JSON key names of `show bgp summary | display json` (bgp-information/bgp-peer/peer-address, peer-state,
  peer-as) and `show lldp neighbors | display json` (lldp-local-port-id, lldp-remote-system-name,
  lldp-remote-port-id) the push's verification reads (railfabric/configs/junos/ansible_plugin.py);
- `syslog host X transport tcp` and `ntp source-address A routing-instance I`.
Verified besides the list above: `system root-authentication` is mandatory for any commit ("Root Password
Overview"), `commit confirmed` rolls back by itself after its timeout (NETCONF commit-confirmed page).

Dual homing (`dual_homing: mlag`) is refused (PLAT001 through Platform.dual_homing, with NO_MLAG_REASON). Juniper
documents MC-LAG (ICCP, mc-ae) for Junos OS on QFX5100/QFX10000, EX and MX ("Multichassis Link Aggregation User
Guide", 2025-12-11, its examples validated on Junos OS 17.3R1/19.4R1); no Juniper document found names MC-LAG for
Junos OS Evolved or the QFX5240, and the Junos OS Evolved 23.4R1 release notes add an "MC-LAG emulation" over EVPN
(ESI, no ICCP or ICL) for ACX routers, which is what Evolved offers in its place. EVPN-ESI multihoming needs the
EVPN-VXLAN overlay railfabric does not build (PLAT002 for `dual_homing: esi`). The MC-LAG junos.conf that earlier
releases of railfabric rendered was removed with this refusal (git history: railfabric/platforms/junos_mclag.py).

What it cannot express (PLAT001 through the capability fields): PFC watchdog actions other than drop. ECMP modes: flow,
flowlet and packet are rendered as `enhanced-hash-key ecmp-dlb` (lb30). ECN thresholds are queue fill percentages on
Junos, not bytes: the byte thresholds of qos.ecn cannot be carried over, so the drop profile uses Juniper's AI JVD
fill levels (55 % / 90 %) with the inventory's probability (see `notes`), and validation warns with PLAT030.

Raw configuration (`raw:` text, issue 30): each block is a top-level curly-brace hierarchy printed at the end of
junos.conf between `/* railfabric raw NAME (LEVEL): begin */` and `... end */` comments (`/* */` is Junos's comment
delimiter in configuration text: Junos `annotate` reference, 12.3); its braces, `[ ]` lists, quotes and comments
must close (RAW005). NOT verified on a switch: that `load override` merges a top-level statement written twice (the
managed `protocols { ... }` and a raw `protocols { ... }`) into one hierarchy.

BFD timers and BGP session keys (issue 30): each BGP group's `bfd-liveness-detection { minimum-interval <ms>;
multiplier <n>; }` with its tier's timers (it was 1000 ms × 3, the AI JVD's, for every group; minimum-interval 1-
255000 ms per Juniper's "minimum-interval (BGP BFD Liveness Detection)"; multiplier 1-255); `authentication-key
"<key>"` for TCP MD5; TCP-AO as `authentication-algorithm ao; authentication-key-chain <tier>` with `security
authentication-key-chains key-chain <tier> { key 0 { secret; start-time; algorithm ao; ao-attribute { send-id 0;
recv-id 0; } } }` (a public Junos 20.4 / EOS interop note). NOT verified: the start-time format
("2020-1-1.00:00:00 +0000"), TCP-AO on Junos OS Evolved for the QFX5240, Juniper's advice on the shortest interval
for sessions the Routing Engine runs (not distributed to the PFE).

TCP-AO key rollover (issue 30, keys30: routing.authentication.<tier>.key_id / next): key 0 of the tier's chain with
`send-id`/`recv-id` = the tier's KeyID; during a rollover key 1 with the next key, its KeyID and `start-time
"<send_from in UTC>"`. Juniper "authentication-key-chains (Security)" (Junos OS 7.6+: key 0-63, start-time
yyyy-mm-dd.hh:mm:ss in UTC and unique within the chain) and "start-time": "If a new key is present with a new start
time, the keychain rolls over to the new one"; "Configure a Keychain (TCP-AO)" (Junos OS 20.3R1+, MX/PTX: a chain
of key 0 and key 1, send-id/recv-id 0-255 used by no other key of the chain); "TCP Authentication Option (TCP-AO)":
up to 64 keys per session, a key change "without causing any TCP connection closure". NOT verified: the same on
QFX (Junos OS Evolved), and whether a key is accepted before its start-time (the switch-over relies on NTP). TCP MD5
keys are written as `authentication-key` (one key; AUTH002 refuses a rollover): Juniper also documents MD5 key
chains for BGP ("Configuring the Authentication Key Update Mechanism for BGP and LDP Routing Protocols"), which
railfabric does not render (both ends must switch at the same second, so only a Junos-only tier could use it).

BGP unnumbered (issue 30, junun: routing.addressing: unnumbered, RFC 8950: IPv4 routes over IPv6 link-local next
hops, no /31 on fabric links). Juniper calls it BGP auto-discovered neighbors (Juniper "BGP Auto-Discovered
Neighbors", Junos OS 21.1R1+: the peer's link-local address found by IPv6 neighbour discovery, EBGP single hop only,
one remote neighbour per interface; NCE-225 "Configure BGP Unnumbered EVPN Fabric": IPv4 routes over IPv6 next
hops). Rendered (railfabric/configs/junos/conf.py), each form as these public texts write it:
- each unnumbered routed port or ae: `unit 0 { family inet { mtu N; } family inet6; }` (no address; "you must enable
  the inet family as well": a Junos lab write-up of auto-discovered peering; the same `family inet; family inet6;`
  in a second public write-up of `dynamic-neighbor`), and `protocols router-advertisement { interface <if>.0; }`
  per such unit (both write-ups);
- per BGP group of unnumbered sessions: `family inet { unicast { extended-nexthop; } }` and `family inet6 {
  unicast; }` (both write-ups; an interop test config and a config generator found with the library's code search
  write the same `family inet unicast extended-nexthop`), and `dynamic-neighbor <G>-LINKS { peer-auto-discovery {
  family inet6 { ipv6-nd; } interface <if>.0; ... } }`, the units in natural order (Juniper JVD
  JVD-DCFABRIC-3STAGE-IPV6-01-01, Appendix A "BGP unnumbered with IPv6", as set lines; both write-ups);
- the peer AS: `peer-as N` when every peer of the group has ASN N (a rail switch's spines), else `peer-as-list
  <G>-ASNS` with `policy-options as-list <G>-ASNS members <entries>` (JVD Appendix A: `peer-as-list
  discovered-as-list`, `as-list discovered-as-list members 101-104`; the first write-up: `members 64521-64530`;
  "Junos OS does not allow you to specify a peers BGP AS number against an interface"). The entries are decided in
  conf.as_list_members: the peers' ASNs sorted, each run of consecutive ASNs as `first-last`, so the list admits
  exactly the planned ASNs; one entry is written bare, several as a `[ a b-c ]` list;
- BFD at the group (`bfd-liveness-detection`, JVD Appendix A sets it on the dynamic-neighbor group), `multipath
  multiple-as` (JVD Appendix A), the export policy at the group (JVD Appendix A);
- a session key moves from the group to the dynamic neighbour: `dynamic-neighbor D { authentication-key "K"; }`
  (TCP MD5) or `{ authentication-algorithm ao; authentication-key-chain C; }` (TCP-AO) (Juniper "Interface-Scoped
  TCP Authentication": authentication for BGP unnumbered peers under [edit protocols bgp group G dynamic-neighbor
  D], algorithms aes-128-cmac-96, ao, hmac-sha-1-96, md5; an algorithm goes with a key chain, never with a key). At
  the group level Junos refuses it: "'peer-auto-discovery' Can't be configured along with authentication-algorithm",
  the same for authentication-key (a public lab write-up's commit error), as Juniper's `allow` reference says of
  dynamic peers ("You cannot define a BGP group with dynamic peers with BGP authentication enabled").
An auto-discovered peer has no neighbour statement, so it has no description of its own (the group's description
names the tier; railfabric uses Junos comments only for file headers and raw blocks). The MLAG iBGP /31 special case
does not arise: MC-LAG is refused on Junos (below). The drain (graceful-shutdown sender / RF-DRAIN in the export
chain) is per group and unchanged.
Safety: a dynamic neighbour accepts a peer with any ASN of its group's peer-as or as-list on any listed interface. A
spine's downlink cabled to the wrong rail switch (or a rail switch's uplinks to two spines swapped) still brings the
session up, where a numbered /31 would not. What catches it is the rollout's LLDP check (ansible_plugin.lldp_seen via
rf_lldp_problems: the planned neighbour of each port, whatever the addressing; tests/test_unnumbered_junos.py) and the
post-push BGP check keyed by interface; `fabric verify` checks the files, not the cabling.
NOT verified (no Junos switch or VM here: the FRR lab proves the fabric design, not these statements): any of these
forms on Junos OS Evolved / QFX5240; `family inet` without an address on Junos OS Evolved; the as-list `[ a b ]`
list form and 4-byte ASN ranges in an as-list (every example found is one range of 2-byte ASNs); the release that
brought interface-scoped authentication (the page gives none in what was found); BFD on auto-discovered peers
beyond the JVD's appendix; the JSON peer-address of an auto-discovered peer in `show bgp summary | display json`
(the text summary prints `fe80::...%xe-0/0/0.0`; ansible_plugin.bgp_peers keys it by interface).
"""

from __future__ import annotations

from railfabric.platforms.base import OutputFile, Platform

NO_MLAG_REASON = ("Juniper documents MC-LAG (ICCP, mc-ae) for Junos OS on QFX5100/QFX10000, EX and MX, not for "
                  "Junos OS Evolved on the QFX5240, whose dual homing is EVPN-ESI (an overlay railfabric does not "
                  "build)")
ROOT_PASSWORD_VARIABLE = "junos_root_password_hash"  # the vault variable of `system root-authentication`
MEDIA_OVERHEAD = 14  # Ethernet header in the Junos media MTU (the FCS is not counted)
MAX_MEDIA_MTU = 9216


def interface_name(port: int, lane: int, lanes: int, serdes: int) -> str:
    """et-0/0/<port - 1>; breakout lane n (1-based) of a channelized port is et-0/0/<port - 1>:<n - 1>."""
    if lane:
        return f"et-0/0/{port - 1}:{lane - 1}"
    return f"et-0/0/{port - 1}"


def speed_form(speed: int, lanes: int) -> str:
    """`speed 800g` / `speed 400g`: Junos names the rate only (the lane count follows from number-of-sub-ports)."""
    return f"{speed}g"


PLATFORM = Platform(
    name="junos",
    title="Junos",
    max_mtu=MAX_MEDIA_MTU - MEDIA_OVERHEAD,  # the IP MTU under a 9216-byte media MTU
    ecmp_modes=frozenset({"flow", "flowlet", "packet"}),
    multipath_relax=True,  # rendered as `multipath multiple-as` on every eBGP group
    watchdog_in_polls=frozenset({"detection"}),  # PFC watchdog times as poll counts (QOS005)
    watchdog_actions=frozenset({"drop"}),  # the documented default; no action statement is written
    files=(OutputFile("junos.conf"),),
    port_channel_prefix="ae",
    management_interface="re0:mgmt-0",
    loopback_interface="lo0.0",
    naming=interface_name,
    speed_form=speed_form,
    # NETCONF over SSH (ansible.netcommon.netconf): junos_config loads the file with `load override` and commits
    # it confirmed; the switch rolls back by itself unless the play confirms.
    ansible_vars={
        "ansible_connection": "ansible.netcommon.netconf",
        "ansible_network_os": "junipernetworks.junos.junos",
    },
    ansible_plugin="ansible_plugin.py",
    aaa_login=lambda method, group: "tacplus" if method == "tacacs" else "radius",  # system authentication-order
    management_vrf="mgmt_junos",  # `system management-instance` puts the management port in this fixed instance
    replaces_users=True,  # load override replaces system login as a whole
    vault_variables=(ROOT_PASSWORD_VARIABLE,),  # system root-authentication, in every junos.conf
    svi_prefix="irb.",  # vlans NAME l3-interface irb.<id>
    dual_homing=frozenset(),  # MC-LAG is not documented for Junos OS Evolved (module docstring)
    dual_homing_refusal=NO_MLAG_REASON,
    ecn_bytes=False,  # drop-profile fill levels are percentages of the queue (PLAT030 warns)
    notes=(
        "dual_homing mlag is refused: MC-LAG is not documented for Junos OS Evolved on QFX5240",
        "ECN thresholds are queue fill percentages: JVD 55 %/90 % with the inventory's probability, not bytes",
        "FEC is left to the optics' default (RS-544 at 100G per lane); no fec statement is written",
        "ecmp flowlet/packet are ecmp-dlb (flowlet interval settable); hash: the five-tuple only (no flow label or "
        "ingress port on QFX5000); no adaptive-routing threshold",
    ),
    # BGP unnumbered (routing.addressing: unnumbered, RFC 8950): auto-discovered peering, `dynamic-neighbor ...
    # peer-auto-discovery` (module docstring, "BGP unnumbered")
    bgp_unnumbered=True,
    # dual-stack (v6_30, then the issue-30 closing session): rendered over unnumbered sessions only, where each group
    # already carries `family inet6 { unicast; }` beside the extended-nexthop IPv4 family (the auto-discovered
    # peering sources above) and the sessions run between IPv6 link-local addresses, so the IPv6 routes' next hop is
    # the peer's link-local address as for the IPv4 ones. Forms: `lo0 unit 0 family inet6 address <a>/128` (Juniper
    # "BGP Auto-Discovered Neighbors" example: `set interfaces lo0 unit 0 family inet6 address 2001:db8:70::1/128`),
    # `irb unit N family inet6 address <a>/64` (the same family statement on the irb unit), an IPv6 `prefix-list`
    # and a `connected-v6` term of the export policy (`from protocol direct; prefix-list`), the IPv6 summaries as
    # `routing-options rib inet6.0 aggregate route <p>` (Juniper CLI reference "aggregate (Routing)": hierarchy
    # [edit routing-options rib routing-table-name]) with the export policy's summary terms. NOT verified on a
    # switch. Numbered fabrics stay refused (PLAT047): IPv6 routes over IPv4 /31 sessions get an IPv4-mapped next
    # hop unless each fabric interface has `family inet6` and a policy sets it, not confirmed from Juniper's documents
    ipv6_over_unnumbered=True,
    ipv6_refusal=("IPv6 routes over the IPv4 /31 sessions (`family inet6 unicast` in the group, the IPv4-mapped next "
                  "hop Junos gives them) are not confirmed from Juniper's documents here"),
    # raw configuration (issue 30, raw30): docs/underlay.md
    raw_text_file="junos.conf", raw_syntax="junos",
    # graceful shutdown (drain30): `protocols bgp graceful-shutdown sender` (Junos OS 19.1+, CLI reference
    # "graceful-shutdown (Protocols BGP)"): the sender tags what it advertises with 65535:0 and sets LOCAL_PREF 0 on
    # what it receives; "The graceful shutdown receiver feature is enabled by default" (same page): no policy rendered
    graceful_shutdown=True,
    gshut_receiver_builtin=True,
    # BFD: minimum-interval 1-255000 ms, multiplier 1-255; TCP MD5 and TCP-AO (key chains)
    bfd_interval_ms=(1, 255000),
    bfd_multiplier=(1, 255),
    session_auth=frozenset({"md5", "tcp-ao"}),
    # load balancing (lb30): `forwarding-options enhanced-hash-key ecmp-dlb (flowlet inactivity-interval <us> |
    # per-packet)` and the IPv4/IPv6 field exclusions `family inet { no-ipv4-source-address; no-ipv4-destination-
    # address; no-l4-source-port; no-l4-destination-port; no-protocol; }` / `family inet6 { ... no-next-header; }`
    # (Juniper CLI reference "enhanced-hash-key (EX)", QFX5000 syntax; "Dynamic Load Balancing (DLB)", Interfaces
    # User Guide for Switches; default hash = those five fields). The QFX5000 inet form has no ingress-port or
    # flow-label option (QFX10000 only): refused (PLAT053)
    ecmp_hash_fields=frozenset({"src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port"}),
    flowlet_inactivity=True,
    # "DLB is not supported when a LAG is one of the egress ECMP members" (Juniper, Dynamic Load Balancing, notes)
    dlb_over_bundles=False,
)
