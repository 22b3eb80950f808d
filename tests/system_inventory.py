"""The small fabric with a `system:` block that tests/test_system*.py share.

The fabric is tests/helpers.py's small inventory (one pod, 2 spines, one single-rail segment with 2 rail switches)
plus a hand-written `system.yml`, so every finding's line and column are known from the text below. Hand
derivations of the addresses (railfabric/plan/allocate.py, railfabric/topology/expand.py):
- limits: super_spines 8, pods 4, spines_per_pod 8, rail_switches_per_segment 8, segments_per_pod 4. Rail switch
  slots start after every spine slot: 8 + 4·8 = 40; p1-s1-rail0 (pod 1, segment 1, k=1) has slot 40, p1-s1-rail1
  (k=2) slot 41.
- management pool 192.168.0.0/16, first_offset 16, no gateway → gateway 192.168.0.1 (first address);
  p1-s1-rail1 = 192.168.0.0 + 16 + 41 = 192.168.0.57/16, p1-s1-rail0 = 192.168.0.56/16.
- rail subnets: segment 1 of pod 1 owns 172.16.0.0/21, rail r its r-th /24: p1-s1-rail1 is 172.16.1.0/24, SVI .1.
"""

from __future__ import annotations

from pathlib import Path

from railfabric.device import DeviceConfig, build_devices
from railfabric.pipeline import Result, run
from tests.helpers import base_inventory, dump, write_files

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOnAs8AOnQ5VK1ANul2Dl4EbuEo0kKobDwft0p30/8nK netops@jump1"

# Line numbers matter: findings are asserted at them.
SYSTEM_YML = f"""\
system:
  management:
    vrf: OOB
  users:
    netops:
      role: network-admin
      password: {{vault: netops_hash}}
      ssh_keys:
        - {KEY}
    viewer:
      role: network-operator
      password: {{vault: viewer_hash}}
  push_user: netops
  aaa:
    tacacs:
      key: {{vault: tacacs_key}}
      servers:
        - {{address: 192.0.2.10}}
        - {{address: 192.0.2.11, port: 4949, key: {{vault: tacacs_key_b}}}}
    radius:
      key: {{vault: radius_key}}
      servers:
        - {{address: 192.0.2.12}}
    login: [tacacs, radius, local]
  ntp:
    servers: [192.0.2.20, 192.0.2.21]
  dns:
    servers: [192.0.2.30]
    domain: mini.example.net
  syslog:
    - {{address: 192.0.2.40, port: 601, protocol: tcp}}
    - {{address: 192.0.2.41}}
  snmp:
    location: Row 7
    contact: noc@example.net
    users:
      monitor: {{auth: {{vault: snmp_auth}}, priv: {{vault: snmp_priv}}}}
  banner:
    - Authorized access only
    - Second line
"""

DEVICES_YML = """\
devices:
  p1-s1-rail0:
    system:
      ntp: {servers: [192.0.2.22]}
"""

VAULT_NAMES = ("netops_hash", "radius_key", "snmp_auth", "snmp_priv", "tacacs_key", "tacacs_key_b", "viewer_hash")


def system_inventory(tmp: Path, platform: str, system: str = SYSTEM_YML, devices: str = DEVICES_YML) -> Path:
    """The small fabric on `platform` with `system` as system.yml and `devices` as devices.yml (none when "")."""
    data = base_inventory()
    data["fabric"]["platform"] = platform
    files = {"fabric.yml": dump(data), "system.yml": system}
    if devices:
        files["devices.yml"] = devices
    return write_files(tmp / "inv", files)


def run_system(tmp: Path, platform: str, **kw: str) -> Result:
    return run(system_inventory(tmp, platform, **kw))


def devices_of(r: Result) -> dict[str, DeviceConfig]:
    assert r.inventory is not None and r.topology is not None and r.plan is not None
    return build_devices(r.inventory, r.topology, r.plan)
