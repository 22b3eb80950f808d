"""Every option changes the output or is refused.

The test walks the inventory's JSON Schema for every enum, every boolean and every optional feature (a field that is
not required and defaults to nothing), renders a small fabric with the option set (or, when the base already sets it,
removed), and compares with the rendering without it. Each variant must either change a rendered file or be refused
by an error finding, as the EXPECT table says; a silently ignored option (the way `dual_homing: esi` once rendered
nothing) fails it. A new optional field fails `test_every_optional_feature_has_a_value` until it gets a value here.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from railfabric.core.finding import Severity
from railfabric.emit.build import build_files
from railfabric.inventory.intent import json_schema
from tests.helpers import EXAMPLE, SONIC_BUFFERS, base_inventory, run_data
from tests.vendor_schemas import vendor_schema_problems

# A small fabric that exercises every tier: 2 super-spines, pod 1 with 2 segments, pod 2 with one; 2x400G hosts.
BASE: dict[str, Any] = base_inventory()
# the example's management plane and baseline (users, TACACS+, NTP, DNS, syslog, SNMP, banner) plus RADIUS
BASE["system"] = yaml.safe_load((EXAMPLE / "system.yml").read_text(encoding="utf-8"))["system"]
BASE["system"]["aaa"]["radius"] = {"key": {"vault": "radius_key"}, "servers": [{"address": "192.0.2.12"}]}
BASE["system"]["aaa"]["login"] = ["tacacs", "radius", "local"]
BASE["system"]["management"]["vrf"] = "OOB"  # not the default: removing `management` must show
BASE["super_spines"] = {"count": 2, "model": "sw64"}
BASE["pods"][0]["spines"]["links_per_super_spine"] = 4  # up 2 × 4 × 800G = 6.4T ≥ down 4 rail switches × 800G
BASE["pods"][0]["segments"].append({"id": 2, "rail_design": "single-rail", "rails": 2, "rail_switch_model": "sw64",
                                    "host_groups": [{"model": "h2", "count": 4}]})
BASE["pods"].append(copy.deepcopy(base_inventory()["pods"][0]) | {"id": 2})
BASE["pods"][1]["spines"]["links_per_super_spine"] = 4
BASE["devices"] = {"p2-s1-rail0": {"rack": "R1"}}  # in pod 2, which no variant renames or removes
# a TCP MD5 key on the rail-spine sessions (issue 30): `unset` must drop it, tcp-ao is refused where no form exists
BASE.setdefault("routing", {})["authentication"] = {"rail_spine": {"password": {"vault": "bgp_rail_key"}}}

DUAL_PORT = {("host_models", "h2d"): {"gpus": 2, "nics": 2, "nic_speed": "400G", "ports_per_nic": 2},
             ("pods", 0, "segments", 0, "host_groups"): [{"model": "h2d", "count": 4}]}
SEG0_UP = {("pods", 0, "segments", 0, "links_per_spine"): 2}  # two rails per switch need twice the uplinks
TWO_LINKS = {("pods", 0, "spines", "links_per_rail_switch"): 2}

# value to set for each optional feature the base leaves out (path with * for list items, {} for mapping keys)
OPTIONAL: dict[str, Any] = {
    "pools.management.gateway": "192.168.0.254",
    "super_spines.planes": 2,
    "super_spines.ports_per_pod": 16,  # pod 2 moves from port 9 (dense: pod 1 has 2 spines × 4 links) to 17
    "super_spines.platform": "eos",
    "pods.*.spines.port_channel_members": 2,
    "pods.*.spines.port_channel_min_links": 1,
    "pods.*.spines.super_spine_link_speed": "400G",
    "pods.*.spines.ports_per_segment": 16,
    "pods.*.spines.platform": "eos",
    "pods.*.segments.*.rails_per_switch": 2,
    "pods.*.segments.*.rail_groups": [[0, 2], [1, 3]],
    "pods.*.segments.*.dual_homing": "two-vlans",
    "pods.*.segments.*.links_per_spine": 2,
    "pods.*.segments.*.vlan_base": 200,
    "pods.*.segments.*.host_groups.*.first": 5,
    "pods.*.segments.*.platform": "eos",
    "devices.{}.hostname": "leaf-a",
    "devices.{}.platform": "eos",
    "devices.{}.model": "sw64b",
    "devices.{}.management": "192.168.7.7",
    # pins of p2-s1-rail0: rail tier slot ((2-1)·4 + 0)·8 = 32, so its computed loopback is 10.0.0.72 (rail tier
    # base 8 + 4·8 = 40, + 32) and ASN 4200100032; these values are free and keep the RFC 7938 plan (no PIN error)
    "devices.{}.asn": 4200199999,
    "devices.{}.loopback": "10.0.9.9",
    "devices.{}.router_id": "10.255.0.1",
    "devices.{}.disabled_ports": [40],  # an unused port of p2-s1-rail0: shut, described as disabled
    "switch_models.{}.breakouts": [],  # the base sets ['2x400G']: removed → 400G hosts cannot land (refused)
    "switch_models.{}.port_blocks": {"rails": [[3, 4, 5, 6, 7, 8]], "uplinks": "33-64"},
    "switch_models.{}.port_blocks.rails": [[3, 4, 5, 6]],
    "switch_models.{}.port_blocks.uplinks": "41-64",
    "switch_models.{}.serdes_lanes": 16,
    "switch_models.{}.hwsku": "ACS-SN5600",
    # SNMP under service, TACACS+ by priority (railfabric/platforms/nvue_release.py)
    "fabric.releases": {"nvue": "5.10"},
    "switch_models.{}.releases": {"nvue": "5.15"},  # 5.15's renaming: state enabled, ipv4, BFD profile, ...
    "devices.{}.release": "5.18",
    "switch_models.{}.asic": "jericho-2",  # the base sets tomahawk-5 (tests/helpers.py): removed → HW006 on EOS
    "host_models.{}.gpu_to_nic": [1, 0],
    "host_models.{}.netdevs": ["ens1np0", "ens2np0"],  # the host files name these ports
    "host_models.{}.rdma_devices": ["mlx5_4", "mlx5_5"],  # NCCL_IB_HCA and the RoCE script name these
    "cabling": [{"host": "p1-s1-gpu001", "nic": 0, "switch": "p1-s1-rail0", "port": 5, "lane": 1}],
    "devices.{}.system": {"ntp": {"servers": ["192.0.2.99"]}},  # its keys replace the fabric-wide ones
    "system.aaa.tacacs.servers.*.key": {"vault": "tacacs_key_2"},
    "system.aaa.tacacs.servers.*.port": 4949,
    "system.aaa.radius.servers.*.key": {"vault": "radius_key_2"},
    "system.aaa.radius.servers.*.port": 1645,
    "system.users.{}.privilege": 1,
    "pods.*.segments.*.peer_link_ports": 3,  # MLAG (CONTEXT): a third peer-link port, port 30
    "switch_models.{}.port_blocks.peer_link": "27-28",  # MLAG (CONTEXT): the peer link moves from 31-32
    # raw configuration (railfabric/inventory/intent_raw.py): a fabric-wide frr.conf line on every SONiC switch;
    # the selectors (tried on RAW_BLOCK, CONTEXT) each narrow it to fewer switches
    "raw": [{"name": "frr-extra", "platform": "sonic", "text": "ip prefix-list RAW seq 5 permit 10.99.0.0/16\n"}],
    "raw.*.roles": ["spine"],
    "raw.*.pods": [2],
    "raw.*.segments": ["1/2"],
    "raw.*.devices": ["p1-s1-rail0"],
    "raw.*.text": "ip prefix-list RAW seq 10 permit 10.98.0.0/16\n",  # another line in place of RAW_BLOCK's
    "raw.*.data": {"SYSLOG_SERVER": {"192.0.2.50": {}}},  # beside the block's text: refused (one of the two)
    # BFD timers of one session tier (issue 30): the spine-super-spine sessions at 100 ms x 5 instead of 300 x 3
    "routing.bfd_timers.tiers": {"spine_super_spine": {"interval_ms": 100, "multiplier": 5}},
    # ECMP hash fields (lb30): addresses and both ports, the one set every hashing platform renders (SONiC
    # SWITCH_HASH, NVUE ecmp-hash with ip-protocol off, Junos no-protocol, NX-OS ip load-sharing ... port ...)
    "routing.ecmp.hash": ["src_ip", "dst_ip", "l4_src_port", "l4_dst_port"],
    # the mode options (lb30) with the base's flow mode: read by no switch, refused (LB001); that they render with
    # their mode (Junos flowlet interval, NVUE adaptive-routing threshold) is tests/test_load_balancing.py
    "routing.ecmp.flowlet_inactivity_us": 256,
    "routing.ecmp.link_utilization_threshold": 50,
    # a TCP-AO rollover's next key: the base's rail_spine key is md5, which holds one key (AUTH002); the EOS and
    # Junos renderings are in tests/test_key_rollover.py
    "routing.authentication.{}.next": {"password": {"vault": "bgp_rail_next"}, "key_id": 1,
                                       "send_from": "2026-12-01T00:00:00Z"},
    # dual-stack (issue 30, v6_30): each tried next to what it needs (V6_POOLS, DUAL_STACK in CONTEXT)
    "routing.address_families": ["ipv4", "ipv6"],
    "pools.loopbacks_v6": "2001:db8::/64",
    "pools.rail_subnets_v6": "2001:db8:100::/48",
}

# a segment of 2 hosts with 4 NICs on dual-rail switches (capacity: 2 rails × 2 × 400G = 2 spines × 800G)
DUAL_RAIL4 = {("host_models", "h4"): {"gpus": 4, "nics": 4, "nic_speed": "400G"},
              ("pods", 0, "segments", 0, "rails"): 4, ("pods", 0, "segments", 0, "rail_design"): "dual-rail",
              ("pods", 0, "segments", 0, "host_groups"): [{"model": "h4", "count": 2}]}

EOS = {("fabric", "platform"): "eos"}
RAW_BLOCK = {("raw",): OPTIONAL["raw"]}
# the raw block's platform, tried on a fabric with one EOS and one NX-OS rail switch in pod 2
RAW_PLATFORMS = {**RAW_BLOCK, ("devices",): {"p2-s1-rail0": {"rack": "R1", "platform": "eos"},
                                            "p2-s1-rail1": {"platform": "nxos"}}}
UDP_SYSLOG = {("system", "syslog", 0, "protocol"): "udp"}  # NX-OS has no TCP syslog (PLAT001)
NXOS = {("fabric", "platform"): "nxos", **UDP_SYSLOG}
MLAG = {**DUAL_PORT, ("pods", 0, "segments", 0, "dual_homing"): "mlag"}
SPRAYING = {("fabric", "platform"): "nvue", ("routing", "ecmp", "mode"): "packet"}  # NVUE: adaptive routing

V6_POOLS = {("pools", "loopbacks_v6"): OPTIONAL["pools.loopbacks_v6"],
            ("pools", "rail_subnets_v6"): OPTIONAL["pools.rail_subnets_v6"]}
DUAL_STACK = {("routing", "address_families"): ["ipv4", "ipv6"]}

# context on BOTH sides of the comparison, where an option only means something next to another one
CONTEXT: dict[str, dict[tuple, Any]] = {
    # a release selects forms on the one platform that has releases: tried on NVUE (fabric.platform: nvue)
    "fabric.releases": {("fabric", "platform"): "nvue"}, "switch_models.{}.releases": {("fabric", "platform"): "nvue"},
    "devices.{}.release": {("fabric", "platform"): "nvue"},
    # what only EOS renders (SONiC's accounts are Linux users, its API is SSH, outside config_db): tried on EOS
    "system": EOS, "system.management": EOS, "system.management.eapi": EOS, "system.management.ssh": EOS,
    "system.management.vrf": EOS, "system.users": EOS, "system.users.{}.role": EOS, "system.users.{}.password": EOS,
    "system.users.{}.privilege": EOS, "system.users.{}.ssh_keys": EOS, "system.push_user": EOS,
    # the family picks EOS's queue keyword and MMU profile (railfabric/platforms/eos_asic.py); SONiC has one form
    "switch_models.{}.asic": EOS,
    "pods.*.spines.port_channel_members": TWO_LINKS,
    "pods.*.spines.port_channel_min_links": {**TWO_LINKS, ("pods", 0, "spines", "port_channel_members"): 2},
    "pods.*.segments.*.peer_link_ports": MLAG,
    "switch_models.{}.port_blocks.peer_link": MLAG,
    "pods.*.segments.*.rail_groups": DUAL_RAIL4,  # default grouping [[0, 1], [2, 3]] against [[0, 2], [1, 3]]
    # a platform choice is tried with UDP syslog, so `nxos` renders instead of being refused for the base's TCP
    "fabric.platform": UDP_SYSLOG, "super_spines.platform": UDP_SYSLOG, "pods.*.spines.platform": UDP_SYSLOG,
    "pods.*.segments.*.platform": UDP_SYSLOG, "devices.{}.platform": UDP_SYSLOG,
    "devices.{}.model": {("switch_models", "sw64b"): {"ports": 64, "speed": "800G", "breakouts": ["2x400G"],
                                                      "latency_ns": 900, "buffers": SONIC_BUFFERS}},
    # packet spraying needs NICs that place out-of-order packets (HOST007): the base's h2 says so
    "routing.ecmp.mode": {("host_models", "h2", "accepts_out_of_order"): True},
    "host_models.{}.accepts_out_of_order": SPRAYING,
    "raw.*.roles": RAW_BLOCK, "raw.*.roles.*": RAW_BLOCK, "raw.*.pods": RAW_BLOCK, "raw.*.segments": RAW_BLOCK,
    "raw.*.devices": RAW_BLOCK, "raw.*.text": RAW_BLOCK, "raw.*.data": RAW_BLOCK,
    "raw.*.platform": {**RAW_PLATFORMS, **{("system", "syslog", 0, "protocol"): "udp"}},
    # the families need the v6 pools (V6001), and a v6 pool is used only on a dual-stack fabric (else V6006, a warning)
    "routing.address_families": V6_POOLS, "routing.address_families.*": V6_POOLS,
    "pools.loopbacks_v6": {**DUAL_STACK, ("pools", "rail_subnets_v6"): OPTIONAL["pools.rail_subnets_v6"]},
    "pools.rail_subnets_v6": {**DUAL_STACK, ("pools", "loopbacks_v6"): OPTIONAL["pools.loopbacks_v6"]},
}
# options whose baseline (their CONTEXT) is refused with this code and which make it render: the option changes the
# outcome (the NVUE walk has its own, NVUE_UNBLOCKS)
UNBLOCKS = {"host_models.{}.accepts_out_of_order": "HOST007",  # packet spraying toward NICs that declare OOO
            # a dual-stack fabric with one v6 pool is refused (V6001): the other pool makes it render
            "pools.loopbacks_v6": "V6001", "pools.rail_subnets_v6": "V6001"}
# context on the variant side only: the option is invalid without it, and the base is the comparison
EXTRA: dict[str, dict[tuple, Any]] = {
    "pods.*.segments.*.rails_per_switch": {**SEG0_UP, ("pods", 0, "segments", 0, "rail_design"): "multi-rail"},
    "pods.*.segments.*.rail_design": {**SEG0_UP, ("pods", 0, "segments", 0, "rails_per_switch"): 2},
    "pods.*.segments.*.dual_homing": DUAL_PORT,
}

# variants that must be refused by an error finding (code), not rendered; everything else must change the output
EXPECT_REFUSED: dict[tuple[str, str], str] = {
    ("routing.ecmp.mode", "flowlet"): "PLAT001",  # SONiC (the base) offers flow hashing only
    ("routing.ecmp.mode", "packet"): "PLAT001",
    ("pods.*.segments.*.dual_homing", "esi"): "PLAT002",  # needs an EVPN-VXLAN overlay railfabric does not build
    ("switch_models.{}.breakouts", "unset"): "HW001",  # 400G hosts on an 800G port need the 2x400G breakout
    ("host_models.{}.ports_per_nic", "2"): "TOPO004",  # dual-port NICs need a dual_homing mode
    ("switch_models.{}.buffers", "unset"): "BUF001",  # a SONiC switch without buffer facts cannot be lossless
    ("switch_models.{}.asic", "unset"): "HW006",  # an EOS switch's queue form depends on its family
    ("switch_models.{}.asic", "spectrum-4"): "HW007",  # EOS has no form for a Spectrum family
    ("system", "unset"): "MGMT001",  # an EOS push would remove the account it logs in with
    ("raw.*.data", json.dumps(OPTIONAL["raw.*.data"])): "SCH003",  # a raw block holds exactly one of text and data
    ("raw.*.platform", "nvue"): "RAW004",  # NVUE takes data, not text
    ("raw.*.platform", "junos"): "RAW005",  # a CLI line is no Junos statement (no `;`): it would break the hierarchy
    ("system.users", "unset"): "MGMT001",
    ("system.push_user", "unset"): "MGMT002",
    ("system.users.{}.role", "network-operator"): "MGMT004",  # the push user must stay an admin
    ("system.users.{}.password", "unset"): "MGMT010",  # an EOS account without a password would be open
    ("system.aaa.radius", "unset"): "MGMT006",  # the login order still names radius
    ("system.aaa.tacacs", "unset"): "MGMT006",
    # TCP-AO: FRR 8.4 (SONiC), NVUE and NX-OS have no form railfabric could verify (EOS and Junos render it)
    ("routing.authentication.{}.algorithm", "tcp-ao"): "PLAT046",
    ("routing.authentication.{}.next", json.dumps(OPTIONAL["routing.authentication.{}.next"])): "AUTH002",  # md5
    ("pools", "unset"): "SCH002",  # optional in the schema for InfiniBand only: an Ethernet fabric needs its pools
    ("pools.fabric_links", "unset"): "UND001",  # the base is numbered: every fabric link needs a /31 from it
    ("routing.ecmp.flowlet_inactivity_us", "256"): "LB001",  # the base's mode is flow
    ("routing.ecmp.link_utilization_threshold", "50"): "LB001",
    ("routing.address_families.*", "ipv6"): "V6005",  # [ipv6]: IPv6-only is not rendered (AS_LIST)
}
# The same walk again on an all-NX-OS fabric for the options whose rendering is platform-specific (management plane,
# QoS, routing, dual homing): each must change the NX-OS output or be refused. Ids start with "nxos: ".
NXOS_WALK = ("system", "qos.", "routing.", "pods.*.segments.*.dual_homing", "pods.*.spines.port_channel",
             "devices.{}.disabled_ports", "switch_models.{}.breakouts")
NXOS_REFUSED: dict[tuple[str, str], str] = {
    **{k: v for k, v in EXPECT_REFUSED.items() if not k[0].startswith(("system", "switch_models.{}.buffers"))},
    ("system", "unset"): "MGMT001",  # a full replace would remove the push account
    ("system.users", "unset"): "MGMT001",
    ("system.push_user", "unset"): "MGMT002",
    ("system.users.{}.role", "network-operator"): "MGMT004",
    ("system.users.{}.password", "unset"): "MGMT010",
    ("system.aaa.radius", "unset"): "MGMT006",
    ("system.aaa.tacacs", "unset"): "MGMT006",
    ("system.syslog.*.protocol", "tcp"): "PLAT001",  # NX-OS logging server: UDP or TLS only
    ("qos.pfc_watchdog.action", "forward"): "PLAT001",  # the NX-OS watchdog drops
    ("qos.pfc_watchdog.action", "alert"): "PLAT001",
    ("system.users.{}.privilege", "1"): "PLAT001",  # NX-OS authorises by role only
    ("routing.addressing", "unnumbered"): "PLAT041",  # NX-OS interface peering not confirmed (platforms/nxos.py)
    # NX-OS `ip load-sharing` takes source-destination addresses, with or without both ports: one field alone is
    # another set (PLAT054), a field it has no word for is PLAT053
    **{("routing.ecmp.hash.*", f): "PLAT054" for f in ("src_ip", "dst_ip", "l4_src_port", "l4_dst_port")},
    **{("routing.ecmp.hash.*", f): "PLAT053" for f in ("ip_protocol", "ipv6_flow_label", "ingress_port")},
    # dual-stack is not rendered on NX-OS (platforms/nxos.py: PLAT047)
    ("routing.address_families", json.dumps(OPTIONAL["routing.address_families"])): "PLAT047",
    ("routing.address_families.*", "ipv4"): "PLAT047",
}
# list items whose enum values are tried as a whole list (setting item 0 alone would only make a duplicate)
AS_LIST: dict[str, Any] = {"system.aaa.login.*": lambda v: [v] if v == "local" else [v, "local"],
                           "raw.*.roles.*": lambda v: [v], "routing.ecmp.hash.*": lambda v: [v],
                           # ipv6 → [ipv6] (IPv6-only, refused), ipv4 → [ipv6, ipv4] (dual-stack, the other order)
                           "routing.address_families.*": lambda v: [v] if v == "ipv6" else ["ipv6", v]}
# values that restate what the base inherits (the fabric platform is sonic): nothing to change, not tried
INHERITED = {"sonic"}


# --------------------------------------------------------------------------- the schema walk

_MISSING = object()


def _options() -> list[tuple[str, str, list[Any], Any]]:
    """(dotted path, kind, values, schema default) for every enum, boolean and optional feature of the schema."""
    schema = json_schema()
    defs = schema["$defs"]
    out: list[tuple[str, str, list[Any], Any]] = []

    def resolve(node: dict) -> dict:
        while "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[1]]
        return node

    def walk(node: dict, path: tuple[str, ...], default: Any = _MISSING) -> None:
        node = resolve(node)
        if "anyOf" in node:
            for alt in node["anyOf"]:
                if alt.get("type") != "null":
                    walk(alt, path, default)
            return
        if "enum" in node:
            out.append((".".join(path), "enum", list(node["enum"]), default))
        elif node.get("type") == "boolean":
            out.append((".".join(path), "bool", [True, False], default))
        elif "properties" in node:
            required = set(node.get("required", ()))
            for key, sub in node["properties"].items():
                value = sub.get("default", _MISSING)
                if key not in required and (value is _MISSING or value in (None, [], {})):
                    out.append((".".join((*path, key)), "optional", [], value))
                if path == ("devices", "{}") and key == "system":
                    continue  # the same model as the fabric-wide `system`, walked there; tried as a whole here
                walk(sub, (*path, key), value)
        elif "patternProperties" in node or isinstance(node.get("additionalProperties"), dict):
            sub = next(iter(node.get("patternProperties", {}).values()), node.get("additionalProperties"))
            walk(sub, (*path, "{}"))
        elif node.get("type") == "array" and "items" in node:
            walk(node["items"], (*path, "*"))

    walk(schema, ())
    return out


def _concrete(data: dict, dotted: str) -> tuple:
    """The first instance of a schema path in `data`: list items → index 0, mapping keys → the first key."""
    out: list[Any] = []
    node: Any = data
    for part in dotted.split("."):
        if part == "*":
            out.append(0)
            node = node[0] if isinstance(node, list) and node else {}
        elif part == "{}":
            key = next(iter(node)) if isinstance(node, dict) and node else "p1-s1-rail0"
            out.append(key)
            node = node.get(key, {}) if isinstance(node, dict) else {}
        else:
            out.append(part)
            node = node.get(part) if isinstance(node, dict) else None
    return tuple(out)


def _get(data: Any, path: tuple) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return data


def _set(data: Any, path: tuple, value: Any) -> None:
    for part in path[:-1]:
        data = data.setdefault(part, {}) if isinstance(data, dict) else data[part]
    if value is _MISSING:
        del data[path[-1]]
    else:
        data[path[-1]] = copy.deepcopy(value)


def ib_only(dotted: str) -> bool:
    """Options that describe an InfiniBand subnet: walked on the InfiniBand example (tests/test_option_walk_ib.py),
    not on this Ethernet base (where `infiniband:` is IB015 and fabric.kind: infiniband refuses every Ethernet key)."""
    return dotted == "fabric.kind" or dotted == "infiniband" or dotted.startswith("infiniband.")


def _variants() -> Iterator[tuple[str, str, dict[tuple, Any], dict[tuple, Any]]]:
    """(id, dotted path, context, change) for every option value to try; `change` includes EXTRA."""
    for dotted, kind, values, schema_default in _options():
        if ib_only(dotted):
            continue
        path = _concrete(BASE, dotted)
        current = _get(BASE, path)
        if kind == "optional":
            if current is _MISSING and dotted not in OPTIONAL:
                continue  # test_every_optional_feature_has_a_value reports it
            value = _MISSING if current is not _MISSING else OPTIONAL[dotted]
            shown = "unset" if value is _MISSING else json.dumps(OPTIONAL[dotted])
            yield f"{dotted}={shown}", dotted, CONTEXT.get(dotted, {}), {**EXTRA.get(dotted, {}), path: value}
            continue
        default = current if current is not _MISSING else schema_default
        for value in values:
            if value == default or (dotted.endswith(".platform") and value in INHERITED):
                continue
            shown = value if isinstance(value, str) else json.dumps(value)
            change = {path[:-1]: AS_LIST[dotted](value)} if dotted in AS_LIST else {path: value}
            yield f"{dotted}={shown}", dotted, CONTEXT.get(dotted, {}), {**EXTRA.get(dotted, {}), **change}


def _nxos_variants() -> Iterator[tuple[str, str, dict[tuple, Any], dict[tuple, Any]]]:
    for name, dotted, context, change in list(_variants()):
        if dotted == "system.syslog.*.protocol":  # the base is UDP on NX-OS: TCP is the variant
            yield f"nxos: {dotted}=tcp", dotted, NXOS, {next(iter(change)): "tcp"}
        elif dotted in ("system.management", "system.management.vrf"):
            continue  # the VRF name: NX-OS's management VRF is always `management` (like SONiC's mgmt)
        elif dotted.startswith(NXOS_WALK) and not dotted.endswith(".platform"):
            yield f"nxos: {name}", dotted, {**context, **NXOS}, change


VARIANTS = list(_variants()) + list(_nxos_variants())


# --------------------------------------------------------------------------- rendering


def _render(tmp: Path, data: dict) -> tuple[dict[str, bytes] | None, list[str]]:
    res = run_data(tmp, data)
    errors = [f.code for f in res.findings if f.severity is Severity.ERROR]
    if errors:
        return None, errors
    files = build_files(res)
    files.pop("manifest.json")  # holds the input digest, which any edit changes
    assert vendor_schema_problems(files) == []  # every rendered file its vendor's schema can check passes it
    return files, []


def _with(changes: dict[tuple, Any]) -> dict:
    data = copy.deepcopy(BASE)
    for path, value in changes.items():
        _set(data, path, value)
    return data


_BASELINES: dict[str, dict[str, bytes]] = {}


def test_every_optional_feature_has_a_value() -> None:
    optional = {d for d, kind, _values, _default in _options() if kind == "optional" and not ib_only(d)}
    missing = sorted(d for d in optional if d not in OPTIONAL and _get(BASE, _concrete(BASE, d)) is _MISSING)
    assert missing == [], f"give these optional features a value in OPTIONAL: {missing}"
    assert not set(OPTIONAL) - optional, "OPTIONAL names paths the schema no longer has"


def test_the_walk_finds_the_known_options() -> None:
    ids = {v[0] for v in VARIANTS}
    for expected in ("routing.ecmp.mode=flowlet", "pods.*.segments.*.dual_homing=esi", "routing.bfd=false",
                     "qos.pfc_watchdog.action=forward", "fabric.platform=eos", "super_spines=unset"):
        assert expected in ids
    assert len(VARIANTS) >= 40


@pytest.mark.parametrize(("name", "dotted", "context", "change"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_option_changes_output_or_is_refused(tmp_path: Path, name: str, dotted: str, context: dict,
                                             change: dict) -> None:
    key = json.dumps(sorted((list(k), v) for k, v in context.items()), default=str)
    if dotted in UNBLOCKS and not name.startswith("nxos: "):
        assert UNBLOCKS[dotted] in _render(tmp_path / "base", _with(context))[1]
        files, errors = _render(tmp_path / "variant", _with({**context, **change}))
        assert files is not None, f"{name} should render, got {errors}"
        return
    if key not in _BASELINES:
        base, errors = _render(tmp_path / "base", _with(context))
        assert base is not None, f"the baseline with context {context} does not validate: {errors}"
        _BASELINES[key] = base
    files, errors = _render(tmp_path / "variant", _with({**context, **change}))
    shown = name.split("=", 1)[1]
    refused = (NXOS_REFUSED if name.startswith("nxos: ") else EXPECT_REFUSED).get((dotted, shown))
    if refused:
        assert refused in errors, f"{name} should be refused with {refused}, got {errors or 'a rendering'}"
        return
    assert files is not None, f"{name} was refused ({errors}) but should render"
    changed = sorted(p for p in set(files) | set(_BASELINES[key]) if files.get(p) != _BASELINES[key].get(p))
    assert changed, f"{name} changed no rendered file: the option is silently ignored"


# --------------------------------------------------------------------------- the same walk on Cumulus (NVUE)

NVUE = {("fabric", "platform"): "nvue"}
# refused on NVUE (its capability table) where the SONiC/EOS walk renders, or the reverse
NVUE_REFUSED: dict[tuple[str, str], str | None] = {
    ("routing.ecmp.mode", "packet"): None,  # renders: Spectrum adaptive routing on the routed fabric ports
    ("routing.ecmp.mode", "flowlet"): "PLAT001",
    ("qos.pfc_watchdog.action", "forward"): "PLAT001",  # Cumulus's watchdog has no action knob: drop only
    ("qos.pfc_watchdog.action", "alert"): "PLAT001",
    ("pods.*.spines.port_channel_members", "2"): "PLAT001",  # NVUE bonds cannot say min-links 2 (the default)
}
# options whose NVUE baseline (their CONTEXT) is refused and which make it render: the option changes the outcome
NVUE_UNBLOCKS = {"pods.*.spines.port_channel_min_links": "PLAT001",  # bundles of 2 render with min-links 1
                 "host_models.{}.accepts_out_of_order": "HOST007",  # spraying toward NICs that place OOO packets
                 "pools.loopbacks_v6": "V6001", "pools.rail_subnets_v6": "V6001"}  # the other v6 pool is missing
# options that mean nothing on NVUE and change nothing there (the SONiC/EOS walk covers them): say why
NVUE_NOT_APPLICABLE = {
    "system.management.eapi": "the NVUE push runs `nv` over SSH; eAPI is Arista's",
    "switch_models.{}.hwsku": "a SONiC SKU name",
    "switch_models.{}.serdes_lanes": "Cumulus names ports swpN / swpNsM whatever the lanes per port",
    "system.users.{}.privilege": "NVUE accounts have roles (system-admin, nvue-monitor), not privilege levels",
    "system.management": "its keys are the VRF name (Cumulus's is always mgmt) and eAPI; ssh is walked on its own",
    "switch_models.{}.buffers": "SONiC buffer facts: NVUE keeps NVIDIA's RoCE pools (qos roce mode lossless)",
    "switch_models.{}.asic": "NVUE writes one queue form on every Spectrum (the EOS walk covers the family)",
    **dict.fromkeys(("raw", "raw.*.roles", "raw.*.roles.*", "raw.*.pods", "raw.*.segments", "raw.*.devices",
                     "raw.*.text", "raw.*.data"), "the walk's raw block is SONiC frr.conf text; NVUE raw data is "
                    "rendered and checked against NVIDIA's schema in tests/test_raw.py"),
}


def _nvue_context(dotted: str) -> dict[tuple, Any]:
    return {**{k: v for k, v in CONTEXT.get(dotted, {}).items() if k != ("fabric", "platform")}, **NVUE}


NVUE_VARIANTS = [v for v in VARIANTS if not v[1].endswith(".platform") and v[1] not in NVUE_NOT_APPLICABLE
                 and not v[1].startswith("switch_models.{}.buffers.") and not v[0].startswith("nxos: ")]


@pytest.mark.parametrize(("name", "dotted", "context", "change"), NVUE_VARIANTS, ids=[v[0] for v in NVUE_VARIANTS])
def test_option_changes_nvue_output_or_is_refused(tmp_path: Path, name: str, dotted: str, context: dict,
                                                  change: dict) -> None:
    context = _nvue_context(dotted)
    key = "nvue:" + json.dumps(sorted((list(k), v) for k, v in context.items()), default=str)
    if dotted in NVUE_UNBLOCKS:
        assert NVUE_UNBLOCKS[dotted] in _render(tmp_path / "base", _with(context))[1]
        files, errors = _render(tmp_path / "variant", _with({**context, **change}))
        assert files is not None, f"{name} on NVUE should render, got {errors}"
        return
    if key not in _BASELINES:
        base, errors = _render(tmp_path / "base", _with(context))
        assert base is not None, f"the NVUE baseline with context {context} does not validate: {errors}"
        _BASELINES[key] = base
    files, errors = _render(tmp_path / "variant", _with({**context, **change}))
    shown = name.split("=", 1)[1]
    refused = NVUE_REFUSED.get((dotted, shown), EXPECT_REFUSED.get((dotted, shown)))
    if refused:
        assert refused in errors, f"{name} on NVUE should be refused with {refused}, got {errors or 'a rendering'}"
        return
    assert files is not None, f"{name} on NVUE was refused ({errors}) but should render"
    changed = sorted(p for p in set(files) | set(_BASELINES[key]) if files.get(p) != _BASELINES[key].get(p))
    assert changed, f"{name} changed no rendered file on NVUE: the option is silently ignored"
