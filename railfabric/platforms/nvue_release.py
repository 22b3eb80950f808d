"""What changes in an NVUE startup.yaml from one Cumulus Linux release to the next, as data the builders read.

railfabric renders Cumulus Linux 5.9 to 5.18 (`fabric.releases.nvue`, a switch model's `releases.nvue` or a
device's `release`; default 5.14), the releases the `nvueschema` package carries NVIDIA's NVUE schema for (5.0-5.18;
5.19 and 6.x have none, so they are refused, PLAT040). Each fact below names its source; the whole file of every
supported release is checked against NVIDIA's NVUE OpenAPI schema of that release (the package's models, generated
from it; railfabric/verify/nvue_schema.py), unknown keys refused. Where NVIDIA's user guide and the schema disagree the
schema is followed (`nv config replace` validates against it) and the form is NOT confirmed on a switch.

The default stays 5.14: a release is a fact of the switches, and moving the default would re-render every
inventory that names none in 5.15's forms, which its 5.9-5.14 switches refuse on `nv config replace` (5.15 changed
most paths of the file, below); and none of the 5.15-5.18 forms has run on a switch or a Cumulus VX here (checked
against NVIDIA's schema only). A 5.15+ fabric says so (`fabric.releases: {nvue: '5.15'}`).

Up to 5.14:
- SNMP server: `nv set service snmp-server ...` with `enable on` up to 5.10; from 5.11 `nv set system snmp-server
  ...` with `state enabled` (NVUE command reference, Set and Unset Commands, "SNMP Server": "In Cumulus Linux 5.10
  and earlier, nv set system snmp-server commands are nv set service snmp-server commands" and "this command is nv
  set service snmp-server enable on"). Schema: `service.snmp-server` in 5.9/5.10, `system.snmp-server` from 5.11.
- Remote syslog: `service syslog <vrf> server <ip> {port, protocol}` up to 5.12; from 5.13 `system syslog server
  <ip> {port, protocol, vrf}` (schema of 5.13: /system/syslog/server/{server-id} with a `vrf` leaf; 5.12:
  /service/syslog/{vrf-id}/server/{server-id}). The move is NOT confirmed from a 5.13 user-guide page: from the
  schema only.
- TACACS+ servers: up to 5.11 keyed by priority (`server <prio> {host, port, secret}`, lower first) with `tacacs
  enable on` (user guide "TACACS", 5.9-5.14 pages; NVUE reference `nv set system aaa tacacs server <priority-id>
  host`). From 5.12 NVIDIA's schema keys them by host (`/system/aaa/tacacs/server/{hostname-id}` with `priority`
  1-8, "higher comes first", `port`, `secret`) and has no tacacs `enable`; the 5.12-5.15 user guides still show
  the priority form and "the lower number has the higher priority". The schema is followed; NOT confirmed on a
  switch.

From 5.15 (CumulusNetworks/docs content/cumulus-linux-515/Whats-New/New-and-Changed-NVUE-Commands.md, "Changes to
Command Syntax", one tab per item; the 5.16, 5.17 and 5.18 schemas keep every 5.15 form railfabric writes):
- `toggle`, the "On/Off" tab: a feature's `enable on|off` became `state enabled|disabled`: `router bgp`, `vrf <v>
  router bgp`, its `address-family ipv4-unicast` and `redistribute connected`, `peer-group <g> address-family
  ipv4-unicast`, `router adaptive-routing` and `interface <i> router adaptive-routing`, `router vrr`, `interface
  <i> ip vrr`, `qos roce`, `mlag`, `interface <bond> bond mlag`;
- `on_off`, the same tab: a boolean leaf's `on|off` became `enabled|disabled` (`aggregate-route <p> summary-only`,
  `path-selection multipath aspath-ignore`; `ntp server <s> iburst`, NTP tab);
- `address_family`, the "IP Interface" tab: `interface <i> ip address|gateway|vrr` became `interface <i> ipv4
  address|gateway|vrr`;
- `vrf_on_interface`, the same tab: `interface <i> ip vrf <v>` became `interface <i> vrf <v>`;
- `vrr_up_key`, the "On/Off" tab's last row: `interface <i> ip vrr state (down|up)` became `... vrr vrr-state
  (down|up)` (`state` now holds enabled|disabled);
- `dns_under`, the "DNS Server" tab: `service dns <vrf> server <ip>` / `search <d>` became `system dns server <ip>`
  / `search <d>`, the VRF a leaf of each server (`nv set system dns server <ip> vrf <vrf>`, "All New NVUE
  Commands");
- `ntp_under`, the "NTP" tab: `service ntp <vrf> server <s> iburst on` became `system ntp server <s> iburst
  enabled` with one `system ntp vrf <vrf>` ("All New NVUE Commands"; NTP guide 5.15: `nv set system ntp server
  4.cumulusnetworks.pool.ntp.org iburst enabled`);
- `bfd_profile`, "Deprecated NVUE Commands": `peer-group <g> bfd enable|detect-multiplier|min-rx-interval|
  min-tx-interval` are gone (the 5.15 schema's peer-group `bfd` holds only `profile`); BFD is `router bfd state
  enabled` plus a profile `router bfd profile <p> {detect-multiplier, min-rx-interval, min-tx-interval}` attached
  with `peer-group <g> bfd profile <p>` (BFD guide 5.15, "Enable BFD", "Configure a BFD Profile", "BFD with BGP";
  defaults 3 x 300 ms, the timers 5.14's `bfd enable on` ran with, written out so both releases run the same).
  The On/Off tab also lists `peer-group <g> bfd enable` → `bfd state`, which the 5.15 schema does not have: the
  schema is followed. NOT confirmed on a switch;
- `auth_order_list`: the 5.15 schema replaces `system aaa authentication-order <priority> <method>` with
  `system aaa authentication order [<method>, ...]` (a list, /system/aaa/authentication `order`), which NVIDIA's
  own switch tests use from 5.15.0 (sonic-mgmt, ngts/nvos_tools/system/Authentication.py: "nv set system aaa
  authentication order radius local ... only called for ETH devices with version >= 5.15.0"). The 5.15 TACACS
  guide still shows `nv set system aaa authentication-order 5 tacacs` and the changed-commands page does not list
  the change: the schema is followed; NOT confirmed on a switch.
LLDP moved under `system` too (LLDP tab); railfabric writes no LLDP settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

RELEASES = ("5.9", "5.10", "5.11", "5.12", "5.13", "5.14", "5.15", "5.16", "5.17", "5.18")
DEFAULT = "5.14"


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(p) for p in release.split("."))


@dataclass(frozen=True, slots=True)
class Forms:
    """The forms of one release that differ from another's."""

    snmp_under: str  # the top-level branch holding snmp-server: "service" or "system"
    snmp_toggle: tuple[str, str]  # how snmp-server is turned on: ("enable", "on") or ("state", "enabled")
    syslog_under: str  # "service" (per-VRF: service syslog <vrf> server) or "system" (server <ip> vrf <vrf>)
    tacacs_by_host: bool  # servers keyed by host with a priority leaf (higher first), no `enable`
    toggle: str  # the key turning a feature on or off: "enable" (on|off) or "state" (enabled|disabled)
    on_off: tuple[str, str]  # a boolean's values: ("on", "off") or ("enabled", "disabled")
    address_family: str  # the interface branch holding IPv4 addresses, gateway and VRR: "ip" or "ipv4"
    vrf_on_interface: bool  # an interface's VRF: `vrf <v>` on the interface (else `ip vrf <v>`)
    vrr_up_key: str  # the VRR interface state {up: {}}: "state" or "vrr-state"
    dns_under: str  # "service" (service dns <vrf> server <ip>) or "system" (system dns server <ip> vrf <vrf>)
    ntp_under: str  # "service" (service ntp <vrf> server <s>) or "system" (system ntp server <s>, ntp vrf <vrf>)
    bfd_profile: bool  # BGP BFD by a `router bfd profile` attached to the peer group (else `bfd enable on`)
    auth_order_list: bool  # `aaa authentication order [m, ...]` (else `aaa authentication-order <prio> <m>`)
    # dual-stack (v6_30): the interface branch holding IPv6 addresses and the IPv6 VRR: "ip" up to 5.14 (its
    # `address` holds "ipv4 and ipv6 address", its `vrr address` both families: NVUE schema 5.9-5.14) or "ipv6" from
    # 5.15 (`interface <i> ipv6 address|vrr`, beside `ipv4`: NVUE schema 5.15-5.18)
    ipv6_branch: str = "ip"

    def value(self, on: bool) -> str:
        """A boolean leaf's value: on/off or enabled/disabled."""
        return self.on_off[0] if on else self.on_off[1]

    def flag(self, on: bool) -> dict[str, Any]:
        """A feature's switch: {enable: on} or {state: enabled} (off likewise)."""
        return {self.toggle: self.value(on)}


def forms(release: str) -> Forms:
    """The forms of `release` (one of RELEASES; "" = DEFAULT)."""
    v = _key(release or DEFAULT)
    new_snmp = v >= (5, 11)
    new = v >= (5, 15)
    return Forms(snmp_under="system" if new_snmp else "service",
                 snmp_toggle=("state", "enabled") if new_snmp else ("enable", "on"),
                 syslog_under="system" if v >= (5, 13) else "service", tacacs_by_host=v >= (5, 12),
                 toggle="state" if new else "enable", on_off=("enabled", "disabled") if new else ("on", "off"),
                 address_family="ipv4" if new else "ip", vrf_on_interface=new,
                 vrr_up_key="vrr-state" if new else "state", dns_under="system" if new else "service",
                 ntp_under="system" if new else "service", bfd_profile=new, auth_order_list=new,
                 ipv6_branch="ipv6" if new else "ip")
