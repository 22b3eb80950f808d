"""The rendered NX-OS running-config read back by the real cisco.nxos collection's own parsers.

cisco.nxos has no offline syntax check (nxos_config validates on the switch); its resource modules' `state: parsed`
read running-config text with the collection's parsers, with no device (nxos_vlans is left out: its parsed
state also needs `show vlan` output). Fed the sections `show running-config`
would give each module, they must read back the BGP templates (with the session key of issue 30) and
neighbours, the address family, the interfaces,
the VLANs, the prefix-list and route-map, NTP, logging and SNMP exactly as railfabric meant them. An NX-OS form the
parser does not know is dropped by it, so each assertion also checks that railfabric's spelling is NX-OS's.

The fabric: the mini inventory (tests.helpers) on NX-OS with the example's management plane (syslog over UDP).
p1-s1-rail0: ASN 4200100000 (rail base + slot 0), loopback 10.0.0.40 (the loopback pool's slots: 8 super-spines +
4 pods × 8 spines = 40 before the first rail switch), uplinks Ethernet1/33 → p1-spine1 (10.32.0.1/31, spine .0)
and Ethernet1/34 → p1-spine2 (10.32.0.3/31); spines share 4200001001; hosts on 2x400G lanes of ports 1-2.
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest
import yaml

from tests.helpers import EXAMPLE, base_inventory
from tests.rollout_support import ansible_bin, ansible_env, render

MODULES = {  # module → the top-level blocks `show running-config | section` would give it
    "bgp_global": r"^router bgp", "bgp_templates": r"^router bgp", "bgp_address_family": r"^router bgp",
    "interfaces": r"^interface", "l3_interfaces": r"^interface", "l2_interfaces": r"^interface",
    "lag_interfaces": r"^interface", "prefix_lists": r"^ip prefix-list",
    "route_maps": r"^route-map", "ntp_global": r"^ntp", "logging_global": r"^logging", "snmp_server": r"^snmp-server",
}
PLAY = """
- hosts: sw
  gather_facts: false
  tasks:
{tasks}
    - ansible.builtin.copy:
        content: "{{{{ {{{names}}} | to_json }}}}"
        dest: "{out}"
      delegate_to: localhost
"""
TASK = """    - cisco.nxos.nxos_{module}:
        running_config: "{{{{ lookup('ansible.builtin.file', '{path}') }}}}"
        state: parsed
      register: {module}
"""


def section(text: str, pattern: str) -> str:
    out, keep = [], False
    for line in text.splitlines():
        if line and not line.startswith(" "):
            keep = bool(re.search(pattern, line)) and not line.startswith("interface breakout")
        if keep and line.strip():
            out.append(line)
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def parsed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("nxos-parsed")
    data = base_inventory()
    data["fabric"]["platform"] = "nxos"
    data["system"] = yaml.safe_load((EXAMPLE / "system.yml").read_text(encoding="utf-8"))["system"]
    for x in data["system"]["syslog"]:
        x["protocol"] = "udp"
    # issue 30's session key on the rail tier (a vault reference: the placeholder is what the file holds)
    data["routing"] = {"authentication": {"rail_spine": {"password": {"vault": "bgp_rail"}}}}
    gen = render(tmp, data)
    text = (gen / "configs" / "p1-s1-rail0" / "running-config.cfg").read_text()
    env = ansible_env(tmp / "ansible")
    tasks = []
    for module, pattern in MODULES.items():
        path = tmp / f"{module}.txt"
        path.write_text(section(text, pattern))
        tasks.append(TASK.format(module=module, path=path))
    out = tmp / "parsed.json"
    names = ", ".join(f"'{m}': {m}.parsed" for m in MODULES)
    (tmp / "play.yml").write_text(PLAY.format(tasks="".join(tasks), names=names, out=out))
    (tmp / "inv.yml").write_text(
        "sw:\n  hosts:\n    p1-s1-rail0:\n      ansible_connection: ansible.netcommon.network_cli\n"
        "      ansible_network_os: cisco.nxos.nxos\n      ansible_host: 127.0.0.1\n      ansible_port: 1\n")
    command = [ansible_bin("ansible-playbook"), "-i", str(tmp / "inv.yml"), str(tmp / "play.yml")]
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    return json.loads(out.read_text())


def test_bgp(parsed: dict) -> None:
    g = parsed["bgp_global"]
    assert g["as_number"] == "4200100000" and g["router_id"] == "10.0.0.40"
    assert g["bestpath"] == {"as_path": {"multipath_relax": True}}
    # (the collection's `description` parsers take one word only, so railfabric's multi-word descriptions are not
    # read back here; NX-OS takes a line of text)
    assert g["neighbors"] == [{"neighbor_address": "10.32.0.0", "inherit": {"peer": "SPINES"}},
                              {"neighbor_address": "10.32.0.2", "inherit": {"peer": "SPINES"}}]
    t = parsed["bgp_templates"]["neighbor"]
    # the session key: `password 0 <key>` in the template peer, read as type 0 (clear text); Ansible masks the key
    # itself in parsed output (the argspec marks it no_log)
    assert t == [{"name": "SPINES", "remote_as": "4200001001", "bfd": {"set": True},
                  "password": {"encryption": 0, "key": "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"},
                  "address_family": [{"afi": "ipv4", "safi": "unicast"}]}]
    af = parsed["bgp_address_family"]["address_family"]
    assert af == [{"afi": "ipv4", "safi": "unicast", "maximum_paths": {"parallel_paths": 64},
                   "redistribute": [{"protocol": "direct", "route_map": "RM-CONN-TO-BGP"}]}]


def test_interfaces(parsed: dict) -> None:
    i = {x["name"]: x for x in parsed["interfaces"]}
    assert i["Ethernet1/1/1"] == {"name": "Ethernet1/1/1", "description": "p1-s1-gpu001 nic0 port1 rail0",
                                  "speed": "400000", "mtu": "9216", "mode": "layer2", "enabled": True,
                                  "service_policy": {"type_options": {"qos": {"input": "RF-QOS-IN"}}}}
    assert i["Ethernet1/33"]["mode"] == "layer3" and i["Ethernet1/33"]["speed"] == "800000"
    assert i["Ethernet1/3"]["enabled"] is False
    l3 = {x["name"]: x for x in parsed["l3_interfaces"]}
    assert l3["Ethernet1/33"]["ipv4"] == [{"address": "10.32.0.1/31"}]
    assert l3["Vlan100"]["ipv4"] == [{"address": "172.16.0.1/24"}]
    assert l3["loopback0"]["ipv4"] == [{"address": "10.0.0.40/32"}]
    assert l3["mgmt0"]["ipv4"][0]["address"].startswith("192.168.")
    l2 = {x["name"]: x for x in parsed["l2_interfaces"]}
    assert l2["Ethernet1/1/1"]["mode"] == "access" and l2["Ethernet1/1/1"]["access"] == {"vlan": 100}


def test_policy_and_services(parsed: dict) -> None:
    pl = parsed["prefix_lists"]
    assert pl[0]["afi"] == "ipv4"
    entries = pl[0]["prefix_lists"][0]
    assert entries["name"] == "PL-LOOPBACK-RAILS"
    assert [(e["sequence"], e["action"], e["prefix"]) for e in entries["entries"]] == [
        (10, "permit", "10.0.0.40/32"), (20, "permit", "172.16.0.0/24")]
    rm = parsed["route_maps"][0]
    assert rm["route_map"] == "RM-CONN-TO-BGP"
    assert rm["entries"][0]["match"] == {"ip": {"address": {"prefix_lists": ["PL-LOOPBACK-RAILS"]}}}
    ntp = parsed["ntp_global"]
    assert ntp["servers"] == [{"server": "192.0.2.20", "prefer": True, "vrf": "management"},
                              {"server": "192.0.2.21", "vrf": "management"}]
    assert ntp["source_interface"] == "mgmt0"
    log = parsed["logging_global"]
    assert log["hosts"] == [{"host": "192.0.2.40", "port": 601, "use_vrf": "management"}]
    assert log["source_interface"] == "mgmt0"
    snmp = parsed["snmp_server"]
    assert snmp["contact"] == "noc@example.net"
    user = snmp["users"]["auth"][0]
    assert user["user"] == "monitor" and user["group"] == "network-operator"
    assert user["authentication"]["algorithm"] == "sha"
    assert user["authentication"]["priv"]["aes_128"] is True
