"""CONFIG_DB MCLAG (community SONiC iccpd) of a switch of a `dual_homing: mlag` pair (sonic-mclag.yang).

- MCLAG_DOMAIN|<domain id>: the ICCP session runs between the two peer-VLAN SVI addresses over the peer link.
- MCLAG_INTERFACE|<domain id>|<port-channel>: every host bond, with the same names on both switches (ICCP pairs
  them by name); left out when the pair has no bond.
- MCLAG_UNIQUE_IP|Vlan<peer vlan>: the peer VLAN's SVI keeps its own address and MAC on each switch, so the
  iBGP/BFD session between the pair can address each switch (SONiC MCLAG_Enhancements_HLD 1.1.5, 2.1.9).
- FEATURE|iccpd state enabled: images built with iccpd (INCLUDE_ICCPD=y; sonic-buildimage rules/config: "build
  docker-iccpd for mclag support", default n) list it in FEATURE with state "disabled" (files/build_templates/
  init_cfg.json.j2), so the MCLAG tables alone leave the pair inert: two switches with one gateway address. Only this
  row of FEATURE is railfabric's: the push merges it into the switch's own FEATURE table, and refuses, before any
  change, a switch whose image has no iccpd row (sonic_ansible.rf_merge_platform_facts).
The rail SVIs carry the same address on both switches without a unique-ip entry: iccpd on the standby sets their
MAC to the active's system MAC, so both answer for the gateway with one MAC (iccpd update_vlan_if_mac_on_standby;
MC-LAG HLD 5.4). No SAG table: see railfabric/device/mlag.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: the platform registry imports this module before railfabric.device exists
    from railfabric.device.mlag import Mlag


Tables = dict[str, dict[str, Any]]

MCLAG_TABLES = frozenset({"MCLAG_DOMAIN", "MCLAG_INTERFACE", "MCLAG_UNIQUE_IP"})
# tables the switch owns in which railfabric writes single rows (merged into the running table by the push)
MCLAG_ROWS = frozenset({"FEATURE"})


def mclag_tables(m: Mlag) -> Tables:
    domain = str(m.domain_number)
    out: Tables = {
        "MCLAG_DOMAIN": {domain: {"source_ip": m.local_ip, "peer_ip": m.peer_ip, "peer_link": m.peer_link}},
        "MCLAG_UNIQUE_IP": {f"Vlan{m.vlan}": {"unique_ip": "enable"}},
        "FEATURE": {"iccpd": {"state": "enabled"}},
    }
    if m.bonds:
        out["MCLAG_INTERFACE"] = {f"{domain}|{bond}": {"if_type": "PortChannel"} for bond in m.bonds}
    return out
