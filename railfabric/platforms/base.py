"""What a platform is: the facts and small functions railfabric needs about one switch OS, in one record.

A platform is its template folder `templates/<name>/` plus one module `railfabric/platforms/<name>.py` that defines
`PLATFORM = Platform(...)`. Nothing else in railfabric names a platform: every platform difference is a field here.
Asking a platform for something it cannot express is a validation finding (PLAT001), never a missing line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from railfabric.platforms.asic import QueueForm


@dataclass(frozen=True, slots=True)
class OutputFile:
    """One file the platform writes per switch, under configs/<hostname>/: from the Jinja entry template `template`
    (relative to templates/<platform>/), or, without one, built by the platform's builder for this file name
    (railfabric/configs/<platform>/__init__.py BUILDERS, above the device model)."""

    name: str
    template: str = ""


@dataclass(frozen=True, slots=True)
class Platform:
    name: str  # the inventory's `platform:` value and the folder name under templates/
    title: str  # for people: "SONiC", "Arista EOS"
    max_mtu: int  # the largest interface MTU the platform accepts
    ecmp_modes: frozenset[str]  # flow / flowlet / packet
    multipath_relax: bool  # needs `bestpath as-path multipath-relax` for ECMP across different neighbour ASNs
    watchdog_actions: frozenset[str]  # PFC watchdog actions the platform can express
    files: tuple[OutputFile, ...]
    port_channel_prefix: str
    management_interface: str
    loopback_interface: str
    naming: Callable[[int, int, int, int], str]  # (port, lane, lanes, serdes) → interface name
    speed_form: Callable[[int, int], str]  # (Gbit/s, lanes) → the platform's forced-speed value
    ansible_vars: Mapping[str, object]  # connection settings: group vars of platform_<name>
    aaa_login: Callable[[str, str], str]  # (method tacacs|radius, server group name) → its AAA login method word
    management_vrf: str = ""  # a fixed management VRF name (SONiC: mgmt); "" = the inventory's system.management.vrf
    eapi: bool = False  # has an HTTPS management API (EOS eAPI) railfabric can enable
    anta: bool = False  # ANTA (Arista's network test automation) tests it: expected/anta/ gets its catalog
    buffer_tables: bool = False  # the rendered config carries the ASIC's buffer pools/profiles (needs buffers:)
    replaces_users: bool = False  # the push replaces the whole config, local users included (MGMT001/002)
    configured_virtual_mac: bool = False  # the MLAG shared gateway MAC is written in the config
    dual_homing: frozenset[str] = frozenset()  # dual_homing modes it renders (mlag); two-vlans needs nothing
    dual_homing_refusal: str = ""  # why it renders no MLAG, for the PLAT001 of an MLAG pair on it (with the source)
    # the switches of an MLAG pair each need their own address on a rail SVI beside the shared gateway (Cumulus
    # VRR, NX-OS HSRP/VRRP); False: both answer one shared address with a virtual MAC (EOS, SONiC MCLAG)
    mlag_own_svi_address: bool = False
    # the routed interface of the MLAG peer VLAN ("{vlan}" = its id): the SVI, or NVUE's peer-link subinterface
    mlag_peer_interface: str = "Vlan{vlan}"
    mlag_peer_vlan: int | None = None  # the peer VLAN as the switch configures it; None: the model's 4094
    reserved_vlans: tuple[int, int] | None = None  # VLANs the switch keeps for itself (VLAN002 refuses rail VLANs)
    frr_lab: bool = False  # its routing config is an frr.conf the FRR lab can run
    syslog_tcp: bool = True  # can send syslog over plain TCP (NX-OS `logging server` has UDP or TLS only)
    user_privilege: bool = True  # local users carry a privilege level (NX-OS authorises by role only)
    svi_prefix: str = "Vlan"  # a rail VLAN's routed interface is <prefix><vlan id> (Junos: irb.<id>)
    watchdog_restoration: bool = True  # a PFC watchdog restoration time can be set (NVUE: the switch's own)
    # which PFC watchdog times the switch counts in whole polls ("detection", "restoration"): rounded up, QOS005
    watchdog_in_polls: frozenset[str] = frozenset()
    ecn_bytes: bool = True  # ECN/WRED thresholds in bytes; False: queue fill percentages only (Junos), PLAT030
    notes: tuple[str, ...] = field(default=())  # what it cannot express, for people (docs/platforms.md, `fabric show`)
    bond_min_links: bool = True  # an L3 port-channel can say its min-links (NVUE bonds cannot: PLAT001 above 1)
    packet_ecmp_on_bonds: bool = True  # per-packet ECMP works over L3 port-channels (Spectrum AR does not)
    vault_variables: tuple[str, ...] = ()  # vault variables its configs always refer to (Junos: the root password)
    # its standalone Ansible filter plugin, a file name under railfabric/configs/<name>/ ("ansible_plugin.py"),
    # copied to generated/ansible/filter_plugins/railfabric_<name>.py: its access check, drain and `show` readers
    ansible_plugin: str = ""
    # the releases whose forms railfabric renders, oldest first (`releases:` in the inventory picks one per switch;
    # railfabric/platforms/<name>_release.py says what differs); () = one form set, no release to choose (PLAT040)
    releases: tuple[str, ...] = ()
    default_release: str = ""  # the release rendered when the inventory names none (one of `releases`)
    # per-queue QoS forms by ASIC family (switch_models.<m>.asic, railfabric/platforms/asic.py) where the platform
    # writes queues differently per family: a switch of this platform needs a family listed here (HW006/HW007); empty:
    # one form for every family, the family is not asked for
    queue_forms: Mapping[str, QueueForm] = field(default_factory=dict)
    # --- BGP unnumbered (routing.addressing: unnumbered, issue 30): eBGP over each fabric link's IPv6 link-local
    # address with IPv4 routes over IPv6 next hops (RFC 8950); False: PLAT041 with unnumbered_refusal (the reason)
    bgp_unnumbered: bool = False
    unnumbered_refusal: str = ""
    # --- raw configuration (issue 30, the escape hatch: railfabric/inventory/intent_raw.py, docs/underlay.md)
    raw_text_file: str = ""  # the file raw `text` blocks go into; "" = the platform takes no raw text (RAW004)
    raw_data_file: str = ""  # the file raw `data` blocks are merged into; "" = no raw data (RAW004)
    # how raw text is checked (RAW005) and compared with the managed lines (RAW009): "cli" (EOS, NX-OS: indented
    # CLI lines), "frr" (frr.conf), "junos" (curly-brace hierarchy); "" without raw text
    raw_syntax: str = ""
    # --- graceful shutdown (issue 30, drain30): the RFC 8326 drain of the rollout and its receipt
    # the switch can send the GRACEFUL_SHUTDOWN community (65535:0) on every eBGP session as the rollout's drain (its
    # form is in its Ansible plugin, railfabric/configs/<name>/ansible_plugin.py); False: `routing.drain: auto` drains
    # the whole fabric by AS-path prepending, `graceful-shutdown` is DRAIN001
    graceful_shutdown: bool = False
    # the switch lowers LOCAL_PREF of received routes carrying 65535:0 by itself, documented as its default (Junos:
    # `graceful-shutdown receiver` on by default): no inbound policy is rendered; False: railfabric renders one
    gshut_receiver_builtin: bool = False
    # BFD timers and BGP session keys (issue 30, railfabric/device/sessions.py, checked by
    # railfabric/checks/rules/session_rules.py): the BFD interval range (ms) and detect multiplier range the
    # platform documents for the form railfabric writes (BFD001/BFD002 outside them), and the session key algorithms
    # it can express (md5, tcp-ao; PLAT046 for another)
    bfd_interval_ms: tuple[int, int] = (50, 60000)
    bfd_multiplier: tuple[int, int] = (3, 50)
    session_auth: frozenset[str] = frozenset({"md5"})
    # --- load balancing beyond flow hashing (issue 30, lb30: railfabric/device/load_balancing.py, checked by
    # railfabric/checks/rules/lb_rules.py): the ECMP hash fields it can select (routing.ecmp.hash; PLAT053 for
    # another), and where the platform takes only whole field sets (NX-OS `ip load-sharing`), those sets (PLAT054
    # for another set); whether it renders a flowlet inactivity interval (PLAT055) and an adaptive-routing link
    # utilisation threshold (PLAT056)
    ecmp_hash_fields: frozenset[str] = frozenset()
    ecmp_hash_sets: tuple[frozenset[str], ...] = ()
    flowlet_inactivity: bool = False
    adaptive_routing_threshold: bool = False
    # its dynamic load balancing (flowlet, packet) works when an L3 port-channel is an ECMP member; False: PLAT057
    dlb_over_bundles: bool = True
    # --- dual-stack loopbacks and rail subnets (issue 30, v6_30: routing.address_families [ipv4, ipv6]): an IPv6
    # address on the loopback and the rail SVIs, the BGP IPv6 unicast family on the fabric sessions; False: PLAT047
    # with ipv6_refusal (the reason)
    ipv6_rails: bool = False
    ipv6_refusal: str = ""
    # dual-stack rendered only where every session of the platform's switches runs over IPv6 link-local
    # (routing.addressing: unnumbered) and none of them forms an MLAG pair (its iBGP stays an IPv4 /31 session): the
    # IPv6 family then rides sessions whose next hops are IPv6 already. Elsewhere PLAT047 with ipv6_refusal
    ipv6_over_unnumbered: bool = False

    def interface(self, port: int, lane: int, lanes: int, serdes: int) -> str:
        """Interface name of physical `port`, breakout `lane` (0 = not broken out) of `lanes`."""
        return self.naming(port, lane, lanes, serdes)

    def end_interface(self, port: int, lane: int, speed: int, model_speed: int, serdes: int) -> str:
        """Interface name of a link end at `speed` on `port` (/`lane`) of a switch model of `model_speed` per port and
        `serdes` lanes: a lane of a broken-out port is named after its position among model_speed // speed lanes
        (the device model, railfabric/device/interfaces.py, and `fabric impact`'s port names both ask this)."""
        return self.naming(port, lane, model_speed // speed if lane else 1, serdes)

    def port_channel(self, number: int) -> str:
        return f"{self.port_channel_prefix}{number}"

    def speed_setting(self, speed: int, lanes: int) -> str:
        """How the platform writes a forced port speed of `speed` Gbit/s over `lanes` serdes lanes."""
        return self.speed_form(speed, lanes)

    def release(self, declared: str | None) -> str:
        """The release a switch's files are rendered for: the declared one (validated against `releases` by
        railfabric/checks/rules/release_rules.py), else the platform's default; "" on a platform without releases."""
        return declared if declared and self.releases else self.default_release

    def config_files(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.files)


def first_lane_offset(lane: int, lanes: int, serdes: int) -> int:
    """Serdes offset of breakout `lane` (1-based; 0 = not broken out) of `lanes` on a port of `serdes` lanes."""
    return (lane - 1) * (serdes // max(lanes, 1)) if lane else 0


def fec_for(speed: int, lanes: int) -> str:
    """Forward error correction a port needs at this lane rate: "rs" (Reed-Solomon) from 25G per lane, which IEEE
    802.3 makes mandatory for 50G-per-lane PAM4 (RS-544, 802.3cd/ck/df) and for 100G over 4x25G (RS-528, 802.3bj);
    "none" below. Both ends of a link get the same value because both get it from the same lane rate, and railfabric
    writes it explicitly rather than trusting each platform's default to agree."""
    return "rs" if lanes and speed / lanes >= 25 else "none"
