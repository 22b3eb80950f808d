"""What changes in an NVUE startup.yaml from one Cumulus Linux release to the next, as data the builders read.

railfabric renders Cumulus Linux 5.9 to 5.14 (`fabric.releases.nvue`, a switch model's `releases.nvue` or a
device's `release`; default 5.14). Each fact below names its source; the whole file of every supported release is
checked against NVIDIA's NVUE OpenAPI schema of that release (the `nvueschema` package's models, generated from
it; fabric/verify/nvue_schema.py), unknown keys refused.

- SNMP server: `nv set service snmp-server ...` with `enable on` up to 5.10; from 5.11 `nv set system snmp-server
  ...` with `state enabled` (NVUE command reference, Set and Unset Commands, "SNMP Server": "In Cumulus Linux 5.10
  and earlier, nv set system snmp-server commands are nv set service snmp-server commands" and "this command is nv
  set service snmp-server enable on"). Schema: `service.snmp-server` in 5.9/5.10, `system.snmp-server` in 5.11-5.14.
- Remote syslog: `service syslog <vrf> server <ip> {port, protocol}` up to 5.12; from 5.13 `system syslog server
  <ip> {port, protocol, vrf}` (schema of 5.13: /system/syslog/server/{server-id} with a `vrf` leaf; 5.12:
  /service/syslog/{vrf-id}/server/{server-id}). The move is NOT confirmed from a 5.13 user-guide page: from the
  schema only.
- TACACS+ servers: up to 5.11 keyed by priority (`server <prio> {host, port, secret}`, lower first) with `tacacs
  enable on` (user guide "TACACS", 5.9-5.14 pages; NVUE reference `nv set system aaa tacacs server <priority-id>
  host`). From 5.12 NVIDIA's schema keys them by host (`/system/aaa/tacacs/server/{hostname-id}` with `priority`
  1-8, "higher comes first", `port`, `secret`) and has no tacacs `enable`; the 5.12-5.14 user guides still show
  the priority form. The schema is followed (`nv config replace` validates against it); NOT confirmed on a switch.
- Cumulus Linux 5.15 renamed most booleans (`enable: on` → `state: enabled`) and moved interface addresses (`ip` →
  `ipv4`), DNS, NTP and LLDP under `system` (CumulusNetworks/docs content/cumulus-linux-515/Whats-New/
  New-and-Changed-NVUE-Commands.md). railfabric does not render those forms yet: a 5.15+ release is refused
  (PLAT040) rather than rendered in the 5.14 forms a 5.15 switch would reject.
"""

from __future__ import annotations

from dataclasses import dataclass

RELEASES = ("5.9", "5.10", "5.11", "5.12", "5.13", "5.14")
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


def forms(release: str) -> Forms:
    """The forms of `release` (one of RELEASES; "" = DEFAULT)."""
    v = _key(release or DEFAULT)
    new_snmp = v >= (5, 11)
    return Forms(snmp_under="system" if new_snmp else "service",
                 snmp_toggle=("state", "enabled") if new_snmp else ("enable", "on"),
                 syslog_under="system" if v >= (5, 13) else "service", tacacs_by_host=v >= (5, 12))
