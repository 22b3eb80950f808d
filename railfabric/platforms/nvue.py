"""NVIDIA Cumulus Linux 5.x with NVUE (Spectrum-4 SN5600 class): the platform's facts and naming.

Output: configs/<switch>/startup.yaml, NVUE's object model as `nv config show -o yaml` prints it (a YAML list whose
one item is `- set: {...}`, keys mirroring the `nv set` path), built as data by railfabric/configs/nvue/startup.py and
pushed with `nv config replace` + `nv config apply --confirm` (templates/nvue/ansible/tasks/nvue.yml).
Syntax target: Cumulus Linux 5.9-5.18, default 5.14. The forms below are 5.14's; what a release changes (5.15
renamed `enable: on` to `state: enabled`, `ip` to `ipv4`, moved DNS and NTP under `system`, BGP BFD to profiles, the
authentication order to a list: CumulusNetworks/docs content/cumulus-linux-515/Whats-New/
New-and-Changed-NVUE-Commands.md) is railfabric/platforms/nvue_release.py's, with its sources and which 5.15+ forms are
NOT confirmed on a switch (followed from NVIDIA's schema where the user guide disagrees).

Verified against NVIDIA's documentation (CumulusNetworks/docs, the Cumulus Linux 5.12/5.14 user guide and the NVUE
command reference):
- startup.yaml shape `- set:` + path tree, the BGP example (router bgp autonomous-system/router-id/enable, vrf
  default router bgp neighbor <ip> remote-as/type numbered, address-family ipv4-unicast enable) (Basic BGP
  Configuration, 5.12);
- `nv config replace <file>` replaces the pending configuration; `nv config diff`; `nv config apply --confirm <t>`
  rolls back by itself unless confirmed (NVUE-CLI.md 5.14, Config-Commands.md); `nv config apply <rev>`;
- `link mtu`, `link speed`, `link breakout 2x`, children swpNs0.. (Switch-Port-Attributes.md);
- `qos roce mode lossless` and its defaults (trust pcp,dscp, SP3 lossless, SP6 strict, ECN 150000/1500000 on TC3,
  DWRR 50/50); `qos mapping default-global trust both` / `dscp <d> switch-priority <p>`; `qos pfc default-global
  switch-priority <p>`; `qos egress-queue-mapping default-global switch-priority <p> traffic-class <t>`
  (RDMA-over-Converged-Ethernet-RoCE.md 5.14, "Change RoCE Configuration");
- `interface <swp> router adaptive-routing enable on` (NVUE reference, Adaptive Routing; not on bonds, SVIs or
  subinterfaces);
- `router policy prefix-list <n> rule <r> match <prefix> max-prefix-len <n>` + `action permit`
  (Route-Filtering-and-Redistribution.md 5.8);
- `interface <swp> qos pfc-watchdog`, `qos pfc-watchdog polling-interval` / `robustness` (QoS _index.md 5.12,
  REFERENCE.md §1.3);
- MLAG (Multi-Chassis-Link-Aggregation-MLAG.md and Virtual-Router-Redundancy-VRR.md 5.14, NVUE reference MLAG/VRR):
  the peer-link bond named `peerlink` (`interface peerlink bond member`, startup.yaml `type: peerlink`, NVUE
  bridges it itself) and `peerlink.4094` (`type: sub`, `base-interface: peerlink`, `vlan: 4094`; 4094 is never a
  bridge VLAN); `interface peerlink.4094 ip address <a/l>` (the guide's OSPF-over-peerlink example); `mlag
  {mac-address, peer-ip <ip>|linklocal, backup <ip> vrf mgmt, priority, init-delay}` (`enable: on` and `backup:
  {<ip>: {}}` in the guide's startup.yaml); system MAC from NVIDIA's reserved 44:38:39:ff:00:00-ff:ff, one per
  pair; `interface <bond> bond mlag {enable: on, id: N}` (startup.yaml) + `bridge domain br_default`; `interface
  vlanN ip vrr {address <a/l>, mac-address <m>, state up}` with `enable: on` and `state: {up: {}}` (startup.yaml),
  next to the switch's own `ip address` on the same SVI (startup.yaml `vlan10: {ip: {address: {10.1.10.2/24: {}},
  vrr: {...}}}` on leaf01, 10.1.10.3/24 on leaf02: "the physical IP address on a VLAN interface is unique for each
  device within an MLAG pair", Virtual-Router-Redundancy-VRR.md 5.14 Configuration Example), `router vrr enable
  on` (startup.yaml); `peer-group <g> address-family <af> nexthop-setting self` (NVUE reference, shown for
  l2vpn-evpn).

Dual-stack loopbacks and rail subnets (routing.address_families: [ipv4, ipv6], issue 30, v6_30): the loopback /128
and the rail SVIs' IPv6 gateways in `interface <i> ip address` up to 5.14 (the schema: "ipv4 and ipv6 address"; the
VRR's `ip vrr address` likewise holds both families) and in `interface <i> ipv6 address` / `ipv6 vrr` from 5.15
(railfabric/platforms/nvue_release.py `ipv6_branch`); `router policy prefix-list PL6-LOOPBACK-RAILS type ipv6` with
its rules and `route-map RM6-CONN-TO-BGP rule 10 match {ip-prefix-list, type: ipv6}`; `vrf default router bgp
address-family ipv6-unicast` {enable/state, redistribute connected route-map, aggregate-route <p> summary-only,
multipaths ebgp} (NVUE command reference, "BGP IPv6": `nv set vrf <vrf-id> router bgp address-family ipv6-unicast
...`, Cumulus Linux 5.0+) and each peer group's `address-family ipv6-unicast` {enable/state, nexthop-setting, policy
inbound route-map}. Checked against NVIDIA's schema of every release 5.9-5.18 (tests/test_ipv6.py); NOT verified on
a switch: that NVUE's FRR gives IPv6 routes over the numbered IPv4 sessions the link-local next hop as SONiC's FRR
does in the lab (the same FRR behaviour; IPv6 link-local is on by default on every swp).

BGP unnumbered (routing.addressing: unnumbered, RFC 8950): `vrf default router bgp neighbor <swpN|bondN>` with
`type: unnumbered` (and its peer-group, remote-as, description) instead of an address, and the port or bond without
an address (NVIDIA Cumulus Linux 5.9-5.14 user guide, Layer 3 > BGP > "Configuration Example" and "Basic BGP
Configuration", BGP unnumbered: `nv set vrf default router bgp neighbor swp51 remote-as external`; NVUE object
model: neighbor `type` enum numbered|unnumbered and `capabilities extended-nexthop` auto = on for unnumbered peers,
in the OpenAPI schema of every release 5.9-5.18, checked by tests/test_unnumbered.py). IPv6 link-local is on by
default on every swp: nothing is set for it.

NOT verified (rendered from the path mirroring of verified `nv set` forms, or from memory; check on a CL 5.14 VX or
Air instance before the first push):
- `router bgp router-id` with a pinned router-id (devices.<name>.router_id) that is no address of the switch: no NVIDIA
  page says the identifier may be an address the switch does not own (the FRR lab runs one);
- drain30 (graceful shutdown): the community-list rule's `community: {graceful-shutdown: {}}` key (the schema
  types `community` as a free mapping; `nv set ... community graceful-shutdown` is the documented form), and that
  an inbound route-map on a peer group does not stop the prepend drain's outbound one;
- MLAG: `mlag backup {<ip>: {vrf: mgmt}}` as YAML; `mlag priority` and `mac-address` keys in startup.yaml
  (documented as `nv set`, not shown in YAML);
  `peerlink.4094` `description` and `link mtu` (the MTU guide sets `peerlink.4094 link mtu`); MLAG bonds without
  `bond mode` (the guide's startup.yaml shows none; its interfaces file shows 802.3ad); `nexthop-setting self`
  under ipv4-unicast (documented under l2vpn-evpn);
- the YAML spelling of on/off as quoted strings ('on'), which `nv config show` prints unquoted;
- `nv config apply --confirm-yes` as the confirmation of a `--confirm` apply (secondary sources only);
- `router adaptive-routing enable on` (global, REFERENCE-DEPLOY.md §3.5 [S]);
- `qos congestion-control default-global traffic-class <t> {ecn: enable, min-threshold, max-threshold,
  probability}` and `qos egress-scheduler default-global traffic-class <t> {mode: strict|dwrr, bw-percent}` key
  names in YAML, and layering them on `qos roce` (NVIDIA shows such changes after `qos roce` for the mapping only);
- `link fec rs|off` values, `link state up|down` as `{up: {}}`;
- `interface <bond> bond {member <swp>, mode lacp}` (NVUE's bond reference lists down-delay, lacp-bypass, mode, no
  min-links: bundles needing min-links above 1 are refused, railfabric/checks/rules/bundle_rules.py);
- route-map rule YAML: `action: {permit: {}}`, `match: {ip-prefix-list: <n>, type: ipv4}`;
- BGP: `peer-group <g> remote-as`, `bfd enable on`, `description`, `address-family ipv4-unicast multipaths ebgp`,
  `aggregate-route <p> summary-only on`, `redistribute connected {enable, route-map}`, `path-selection multipath
  aspath-ignore on` (multipath-relax);
- system: `hostname`, `message pre-login`, `aaa user <u> {hashed-password, role system-admin|nvue-monitor}`, `aaa
  tacacs {enable, vrf, server <prio> {host, port, secret}}`, `aaa radius {enable, vrf, server <ip> {port, secret,
  priority}}`, `aaa authentication-order <n> <method>`; service `ntp mgmt server`, `dns mgmt server` + `search`,
  `syslog mgmt server <ip> {port, protocol}`, `snmp-server {enable, listening-address <ip> vrf mgmt, username <u>
  auth-sha/encrypt-aes, system-location, system-contact}`; `system ssh-server vrf mgmt`;
- `interface eth0 {ip address, ip gateway, ip vrf mgmt}`; `interface <if> description`; `link fec rs|off`;
  `interface vlanN {type svi, vlan N}` (the user guide's example shows `type svi` + `vlan`; YAML key unverified);
- the push's drain: `router policy route-map RF-DRAIN rule 10 set as-path-prepend as '<asn> <asn> <asn>'` and
  `vrf default router bgp peer-group <g> address-family ipv4-unicast policy outbound route-map RF-DRAIN`;
- `nv config apply --assume-yes --confirm 15m` (the 5.14 table shows `--confirm 60m` and `--assume-yes` apart),
  `--confirm-yes` / `--confirm-no`; `nv config diff -o commands` (documented) and `nv config detach` to drop the
  pending revision in check mode (documented for detach; that it leaves nothing pending is not).

Raw configuration (`raw:` data, issue 30): merged into the `set` tree of startup.yaml mapping by mapping (a later
block's value replaces an earlier one's and railfabric's); checked with NVIDIA's OpenAPI schema of the file's
release like the rest of the file (`fabric verify`, tests/test_raw.py). NVUE takes no raw text (RAW004): its file is
data.

BFD timers and BGP session keys (issue 30): up to 5.14 the peer group's `bfd {enable on, detect-multiplier,
min-rx-interval, min-tx-interval}` (the 5.9-5.14 schemas: 2-255, 50-60000 ms); from 5.15 `router bfd profile
<tier>` with the same three leaves (the 5.15-5.18 schemas: 1-255, 10-4294967 ms) attached with `peer-group <g> bfd
profile <tier>`; railfabric's check uses the narrower common range (50-60000 ms, 2-255). `peer-group <g> password
<key>` (TCP MD5; a string of 1-254 in every release's schema). NVUE has no TCP-AO (no such key in any schema):
PLAT046. Checked against NVIDIA's schema of every release; NOT run on a switch.
"""

from __future__ import annotations

from railfabric.platforms.base import OutputFile, Platform
from railfabric.platforms.nvue_release import DEFAULT, RELEASES

PEERLINK = "peerlink"  # the NVUE name (and type) of the MLAG peer-link bond
PEER_INTERFACE = f"{PEERLINK}.{{vlan}}"  # Platform.mlag_peer_interface: the model names the subinterface with it


def interface_name(port: int, lane: int, lanes: int, serdes: int) -> str:
    """swp<port>; a broken-out port's lanes are swp<port>s0, swp<port>s1, ... (lane 1 → s0). On an 800G OSFP
    broken out 2x400G the two 400G interfaces are swp1s0 and swp1s1 (CL Switch-Port-Attributes: `link breakout 2x`
    splits the port in two, children s0..; each takes serdes/2 lanes)."""
    return f"swp{port}s{lane - 1}" if lane else f"swp{port}"


def speed_form(speed: int, lanes: int) -> str:
    """NVUE `link speed` value: 400G, 800G, 200G, 100G (`nv set interface swp1 link speed 400G`)."""
    return f"{speed}G"


def aaa_login(method: str, group: str) -> str:
    """NVUE authentication-order methods: tacacs, radius (and local)."""
    return method


PLATFORM = Platform(
    name="nvue",
    title="Cumulus Linux (NVUE)",
    max_mtu=9216,  # `link mtu` 552-9216 (Switch-Port-Attributes.md)
    # flow hashing by default; packet = Spectrum adaptive routing (per-packet, on routed fabric ports). Flowlet is
    # not a Cumulus mode.
    watchdog_restoration=False,  # NVUE's pfc-watchdog has polling-interval and robustness only
    ecmp_modes=frozenset({"flow", "packet"}),
    multipath_relax=True,
    # the Cumulus PFC watchdog has one behaviour (stop honouring PFC on the stuck queue, i.e. drop) and only
    # polling-interval and robustness knobs
    watchdog_in_polls=frozenset({"detection"}),  # PFC watchdog times as poll counts (QOS005)
    watchdog_actions=frozenset({"drop"}),
    files=(OutputFile("startup.yaml"),),
    port_channel_prefix="bond",
    management_interface="eth0",
    loopback_interface="lo",
    svi_prefix="vlan",  # interface vlan<id> (type svi)
    naming=interface_name,
    speed_form=speed_form,
    # Cumulus Linux is a Debian host: plain SSH, privilege through sudo; the push runs `nv` commands. The
    # nvidia.nvue collection (httpapi, REST on 8765) is not used: a whole-file replace with a confirm timer is `nv
    # config replace` + `nv config apply --confirm`, which the CLI has and the collection's object modules do not.
    ansible_vars={
        "ansible_connection": "ssh",
        "ansible_network_os": "nvue",
        "ansible_become": True,
        "ansible_become_method": "sudo",
        "ansible_python_interpreter": "/usr/bin/python3",
    },
    ansible_plugin="ansible_plugin.py",
    aaa_login=aaa_login,
    management_vrf="mgmt",  # Cumulus's management VRF has a fixed name
    # `nv config replace` deletes every account the file does not list (the factory `cumulus` one too):
    # the push account must be rendered (MGMT001/002)
    replaces_users=True,
    bond_min_links=False,  # NVUE bonds have down-delay, lacp-bypass, mode, ... but no min-links
    packet_ecmp_on_bonds=False,  # "Cumulus Linux does not support adaptive routing on ... bonds or bond members"
    # MLAG + VRR (railfabric/configs/nvue/mlag.py): NVIDIA's MLAG + VRR configuration gives each switch of the pair its
    # own SVI address beside the shared VRR address ("the physical IP address on a VLAN interface is unique for
    # each device within an MLAG pair", VRR guide 5.14); without it a switch resolves hosts from the shared VRR
    # MAC/IP, so a host's reply can land on the peer and be consumed there. The plan gives each switch its own
    # address (allocate.own_address: the last two usable addresses of each rail subnet)
    dual_homing=frozenset({"mlag"}),
    mlag_own_svi_address=True,
    mlag_peer_interface=PEER_INTERFACE,  # peerlink.4094, the peer-link subinterface (never a bridge VLAN)
    configured_virtual_mac=True,  # `ip vrr mac-address` (the model's VIRTUAL_ROUTER_MAC)
    releases=RELEASES,  # Cumulus Linux 5.9-5.18: what differs is in railfabric/platforms/nvue_release.py
    default_release=DEFAULT,
    notes=(
        "MLAG + VRR: each switch of a pair has its own address on each rail SVI beside the shared VRR gateway (the "
        "last two usable addresses of the rail subnet, kept from hosts); the MLAG control and iBGP sessions run "
        "on peerlink.4094",
        "L3 bonds have no NVUE min-links: port-channels with min-links above 1 are refused (PLAT001)",
        "adaptive routing (ecmp packet) runs on routed ports only: with port-channels it is refused (PLAT001)",
        "PFC watchdog: only polling-interval and robustness (detection = poll x robustness); restoration time "
        "and action are the switch's own",
        "ECMP flowlet is not a Cumulus mode; packet = adaptive routing on routed fabric ports",
        "releases 5.9-5.18 (default 5.14), each file checked against NVIDIA's NVUE schema of its release; 5.15 "
        "renamed most paths (state enabled, ipv4, DNS/NTP under system, BFD profiles), rendered from the schema and "
        "NOT confirmed on a switch; 5.19+ has no schema here and is refused (PLAT040)",
    ),
    # BGP unnumbered: `neighbor <swp|bond> type unnumbered` (module docstring)
    bgp_unnumbered=True,
    # raw configuration (issue 30, raw30): docs/underlay.md
    raw_data_file="startup.yaml",
    # graceful shutdown (drain30): `nv set router bgp graceful-shutdown on` (NVUE schema of every release 5.0-5.18:
    # router.bgp.graceful-shutdown on|off, "GSHUT community announced to all EBGP peers"); receipt: railfabric's
    # inbound route-map (router policy community-list / route-map, peer-group policy inbound route-map: same schema)
    graceful_shutdown=True,
    # BFD: the 5.9-5.14 schema's range (5.15+ accepts more), TCP MD5 only
    bfd_interval_ms=(50, 60000),
    bfd_multiplier=(2, 255),
    session_auth=frozenset({"md5"}),
    # load balancing (lb30): `system forwarding ecmp-hash <field> on|off` (enabled|disabled from 5.15; NVUE
    # reference "System Forwarding", introduced 5.2; checked against NVIDIA's OpenAPI model of every release) and
    # adaptive routing's `link-utilization-threshold` (interface percentage 1-100, global on|off / enabled|disabled;
    # NVUE reference "Adaptive Routing", checked likewise)
    ecmp_hash_fields=frozenset({"src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port", "ipv6_flow_label",
                                "ingress_port"}),
    adaptive_routing_threshold=True,
    # dual-stack (v6_30): see the docstring
    ipv6_rails=True,
)
