"""The NVUE startup.yaml of one Cumulus Linux switch, built as data from its DeviceConfig and serialised once.

The document is `- set: {...}`: NVUE's object model with keys mirroring the `nv set` paths (railfabric/platforms/nvue.py
lists the forms and which are verified). Every decision is made in the device model or in the small functions
here (each tested in tests/test_render_nvue.py); the dump is deterministic: keys sorted, no anchors, no line
folding, strings holding a `%%vault.NAME%%` placeholder double-quoted so the push resolves them JSON-escaped (a
JSON string body is a valid YAML double-quoted body), on/off as the strings NVUE's schema names.

What differs by Cumulus Linux release (the switch of a feature, on/off spellings, the interface address branch, the
BFD profile, ...) is read from the release's Forms (railfabric/platforms/nvue_release.py), never decided here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import yaml

from railfabric.configs.nvue import mlag as nvue_mlag
from railfabric.configs.nvue.system import service, system
from railfabric.configs.nvue.yaml_dump import make_dump
from railfabric.core.config_tree import merge
from railfabric.platforms.nvue_release import Forms, forms

OFF = "off"  # `link fec off`: a FEC mode, not a boolean (unchanged in 5.15)
BRIDGE = "br_default"  # the one VLAN-aware bridge Cumulus creates (NVUE `bridge domain br_default`)
if TYPE_CHECKING:  # the registry imports this package before the device model exists
    from railfabric.device import DeviceConfig, Interface, PeerGroup, Vlan
    from railfabric.device.sessions import SessionTimers

Tree = dict[str, Any]
# BFD timers per session tier (railfabric/device/sessions.py): up to 5.14 on the peer group (`bfd {enable on,
# detect-multiplier, min-rx-interval, min-tx-interval}`: 2-255 and 50-60000 ms in the schema of 5.9-5.14); from 5.15
# a `router bfd profile <tier's profile>` with the same three leaves (1-255, 10-4294967 ms in the 5.15-5.18 schema)
# attached with `peer-group <g> bfd profile <p>` (BFD guide 5.15). The BGP key: `peer-group <g> password <key>` (a
# string of 1-254 in every release's schema; TCP MD5, NVUE has no TCP-AO: PLAT046).


def bfd_leaves(t: SessionTimers) -> Tree:
    return {"detect-multiplier": t.multiplier, "min-rx-interval": t.interval_ms, "min-tx-interval": t.interval_ms}


def breakout_word(mode: str) -> str:
    """NVUE `link breakout` value of a railfabric breakout mode: 2x400G → 2x, 4x200G → 4x."""
    return mode.split("x", 1)[0] + "x"


# --------------------------------------------------------------------------- interfaces


def _port(dev: DeviceConfig, i: Interface) -> Tree:
    link: Tree = {"mtu": i.mtu, "speed": i.speed_setting, "fec": "rs" if i.fec == "rs" else OFF,
                  "state": {("up" if i.admin_up else "down"): {}}}
    node: Tree = {"type": "swp", "link": link}
    if i.description:
        node["description"] = i.description
    if i.mode == "routed":  # unnumbered (no ipv4): no address; its BGP neighbor is the port (`type unnumbered`)
        f = forms(dev.release)
        if i.ipv4:
            node[f.address_family] = {"address": {i.ipv4: {}}}
        if dev.ecmp_mode == "packet":  # adaptive routing: routed fabric ports only (not bonds, SVIs, members)
            node["router"] = {"adaptive-routing": adaptive_port(dev, f)}
    elif i.mode == "access" and i.vlan is not None:
        node["bridge"] = {"domain": {BRIDGE: {"access": i.vlan}}}
    if i.qos and dev.qos.watchdog is not None:
        node["qos"] = {"pfc-watchdog": {}}
    return node


def adaptive_port(dev: DeviceConfig, f: Forms) -> Tree:
    """A routed fabric port's adaptive routing: on, with routing.ecmp.link_utilization_threshold (percent, 1-100 in
    every release's schema) where set; the global `router adaptive-routing link-utilization-threshold` switch turns
    the per-port thresholds on (NVUE reference, Adaptive Routing)."""
    node: Tree = f.flag(True)
    if (threshold := dev.load_balancing.link_utilization_threshold) is not None:
        node["link-utilization-threshold"] = threshold
    return node


# routing.ecmp.hash field → its `system forwarding ecmp-hash` leaf (NVUE reference, System Forwarding, CL 5.2+)
ECMP_HASH_LEAF = {"src_ip": "source-ip", "dst_ip": "destination-ip", "ip_protocol": "ip-protocol",
                  "l4_src_port": "source-port", "l4_dst_port": "destination-port", "ipv6_flow_label": "ipv6-label",
                  "ingress_port": "ingress-interface"}


def ecmp_hash(dev: DeviceConfig) -> Tree:
    """`system forwarding ecmp-hash`: every outer-header leaf railfabric knows, on for the chosen fields and off for
    the others (the defaults switch several on: `nv show system forwarding`), so the switch hashes exactly the
    inventory's fields; {} without routing.ecmp.hash (the switch's default stays)."""
    lb = dev.load_balancing
    if not lb.hash_fields:
        return {}
    f = forms(dev.release)
    return {leaf: f.value(lb.hashes(field)) for field, leaf in ECMP_HASH_LEAF.items()}


def management(dev: DeviceConfig, f: Forms) -> Tree:
    """eth0: its address and gateway, in the management VRF (`ip vrf`, or the interface's `vrf` from 5.15)."""
    node: Tree = {"type": "eth", f.address_family: {"address": {dev.management: {}},
                                                      "gateway": {dev.management_gateway: {}}}}
    if f.vrf_on_interface:
        node["vrf"] = dev.system.vrf
    else:
        node[f.address_family]["vrf"] = dev.system.vrf
    return node


def interfaces(dev: DeviceConfig) -> Tree:
    f = forms(dev.release)
    af = f.address_family
    out: Tree = {
        "lo": {"type": "loopback", af: {"address": {dev.loopback: {}}}},
        dev.system.interface: management(dev, f),
    }
    if dev.loopback_v6:  # dual-stack: the /128 in the release's IPv6 branch (`ip` up to 5.14, `ipv6` from 5.15)
        _add_v6(out["lo"], f, {"address": {dev.loopback_v6: {}}})
    for i in dev.interfaces:
        if i.lane and i.breakout:  # the parent port carries the breakout; its lanes are the interfaces
            out.setdefault(f"swp{i.port}", {"type": "swp", "link": {"breakout": {breakout_word(i.breakout): {}}}})
        out[i.name] = _port(dev, i)
    for pc in dev.port_channels:
        if pc.mode != "routed":  # MLAG host bonds and the peer link
            out[nvue_mlag.bond_name(dev, pc.name)] = nvue_mlag.bond(dev, pc)
            continue
        node: Tree = {"type": "bond", "bond": {"member": {m: {} for m in pc.members}, "mode": "lacp"},
                      "link": {"mtu": pc.mtu}, "description": pc.description}
        if pc.ipv4:
            node[af] = {"address": {pc.ipv4: {}}}
        out[pc.name] = node
    for v in dev.vlans:
        ip = nvue_mlag.vrr(dev, v) if v.virtual and dev.mlag is not None else {"address": {v.gateway: {}}}
        out[f"vlan{v.id}"] = {"type": "svi", "vlan": v.id, "description": v.name, "link": {"mtu": v.mtu}, af: ip}
        if v.gateway_v6:
            _add_v6(out[f"vlan{v.id}"], f, svi_v6(dev, v, f))
    if dev.mlag is not None:
        out[nvue_mlag.peer_subinterface(dev.mlag)] = nvue_mlag.peer_vlan(dev)
    return out


def svi_v6(dev: DeviceConfig, v: Vlan, f: Forms) -> Tree:
    """A rail SVI's IPv6 addresses: its gateway, or under MLAG the switch's own address beside the shared VRR
    address (the IPv4 form, railfabric/configs/nvue/mlag.py: VRR address and MAC, up)."""
    if not (v.virtual and dev.mlag is not None):
        return {"address": {v.gateway_v6: {}}}
    out: Tree = {"address": {v.own_v6: {}}} if v.own_v6 else {}
    out["vrr"] = {**f.flag(True), "address": {v.gateway_v6: {}}, "mac-address": dev.mlag.virtual_mac,
                  f.vrr_up_key: {"up": {}}}
    return out


def _add_v6(node: Tree, f: Forms, v6: Tree) -> None:
    """Merge IPv6 leaves into an interface: into its `ip` branch up to 5.14 (addresses and VRR addresses of both
    families share it), into `ipv6` from 5.15."""
    branch = node.setdefault(f.ipv6_branch, {})
    for key, value in v6.items():
        if key == "address":
            branch.setdefault("address", {}).update(value)
        elif key == "vrr" and "vrr" in branch:
            branch["vrr"]["address"].update(value["address"])
        else:
            branch[key] = value


def bridge(dev: DeviceConfig) -> Tree:
    if not dev.vlans:
        return {}
    return {"domain": {BRIDGE: {"vlan": {str(v.id): {} for v in dev.vlans}}}}


# --------------------------------------------------------------------------- routing


def policy(dev: DeviceConfig) -> Tree:
    b = dev.bgp
    rules = {str(seq): {"action": "permit", "match": {p: {}}} for seq, p in b.prefix_list_rules}
    out: Tree = {
        "prefix-list": {b.prefix_list: {"type": "ipv4", "rule": rules}},
        "route-map": {b.route_map: {"rule": {"10": {"action": {"permit": {}},
                                                    "match": {"ip-prefix-list": b.prefix_list, "type": "ipv4"}}}}},
    }
    if (v6 := b.ipv6) is not None:  # dual-stack: the loopback /128 and rail /64s (railfabric/device/routing_v6.py)
        out["prefix-list"][v6.prefix_list] = {"type": "ipv6", "rule": {
            str(seq): {"action": "permit", "match": {p: {}}} for seq, p in v6.prefix_list_rules}}
        out["route-map"][v6.route_map] = {"rule": {"10": {"action": {"permit": {}},
                                                          "match": {"ip-prefix-list": v6.prefix_list, "type": "ipv6"}}}}
    if (gs := b.gshut) is not None:  # RFC 8326 receipt (railfabric/device/drain.py)
        out["community-list"] = {gs.community_list: {"rule": {"10": {"action": "permit",
                                                                      "community": {gs.community_name: {}}}}}}
        out["route-map"][gs.route_map] = {"rule": {
            str(gs.match_seq): {"action": {"permit": {}}, "match": {"community-list": gs.community_list},
                                "set": {"local-preference": gs.local_preference}},
            str(gs.pass_seq): {"action": {"permit": {}}}}}
    return out


def _bfd(f: Forms, g: PeerGroup) -> Tree | None:
    """A peer group's `bfd`: {enable: on|off} with its tier's timers up to 5.14; from 5.15 its tier's profile when
    on, nothing when off."""
    t = g.bfd_timers
    if f.bfd_profile:
        return {"profile": t.profile} if g.bfd and t is not None else None
    return {**f.flag(g.bfd), **(bfd_leaves(t) if g.bfd and t is not None else {})}


def bgp(dev: DeviceConfig) -> Tree:
    b = dev.bgp
    f = forms(dev.release)
    groups: Tree = {}
    neighbors: Tree = {}
    for g in b.peer_groups:
        groups[g.name] = {"description": g.description, "address-family": {"ipv4-unicast": f.flag(True)}}
        if (bfd := _bfd(f, g)) is not None:
            groups[g.name]["bfd"] = bfd
        if g.key is not None:
            groups[g.name]["password"] = g.key.placeholder
        if g.next_hop_self:
            groups[g.name]["address-family"]["ipv4-unicast"]["nexthop-setting"] = "self"
        if g.inbound_route_map:
            groups[g.name]["address-family"]["ipv4-unicast"]["policy"] = {"inbound": {"route-map": g.inbound_route_map}}
        if b.ipv6 is not None:  # dual-stack: the same group in the IPv6 family, with its next hop and policy
            groups[g.name]["address-family"]["ipv6-unicast"] = dict(groups[g.name]["address-family"]["ipv4-unicast"])
        for n in g.neighbors:  # an unnumbered neighbor is its interface (`type unnumbered`, RFC 8950)
            neighbors[n.interface or n.ip] = {"type": "unnumbered" if n.interface else "numbered",
                                              "peer-group": g.name, "remote-as": n.remote_as,
                                              "description": n.description}
    af: Tree = {**f.flag(True), "multipaths": {"ebgp": b.maximum_paths},
                "redistribute": {"connected": {**f.flag(True), "route-map": b.route_map}}}
    if b.aggregates:
        af["aggregate-route"] = {p: {"summary-only": f.value(True)} for p in b.aggregates}
    out: Tree = {**f.flag(True), "peer-group": groups, "neighbor": neighbors, "address-family": {"ipv4-unicast": af}}
    if (v6 := b.ipv6) is not None:
        af6: Tree = {**f.flag(True), "multipaths": {"ebgp": b.maximum_paths},
                     "redistribute": {"connected": {**f.flag(True), "route-map": v6.route_map}}}
        if v6.aggregates:
            af6["aggregate-route"] = {p: {"summary-only": f.value(True)} for p in v6.aggregates}
        out["address-family"]["ipv6-unicast"] = af6
    if b.multipath_relax:
        out["path-selection"] = {"multipath": {"aspath-ignore": f.value(True)}}
    return out


def router(dev: DeviceConfig) -> Tree:
    f = forms(dev.release)
    out: Tree = {"bgp": {**f.flag(True), "autonomous-system": dev.bgp.asn, "router-id": dev.bgp.router_id},
                 "policy": policy(dev)}
    if dev.ecmp_mode == "packet":
        out["adaptive-routing"] = f.flag(True)
        if dev.load_balancing.link_utilization_threshold is not None:  # the per-port thresholds apply
            out["adaptive-routing"]["link-utilization-threshold"] = f.value(True)
    if dev.mlag is not None:  # VRR (the shared rail gateways)
        out["vrr"] = f.flag(True)
    if f.bfd_profile and dev.bgp.bfd_profiles:  # BFD on, a profile per session tier (5.15+)
        out["bfd"] = {**f.flag(True), "profile": {t.profile: bfd_leaves(t) for t in dev.bgp.bfd_profiles}}
    return out


# --------------------------------------------------------------------------- QoS


def qos(dev: DeviceConfig) -> Tree:
    """NVIDIA's RoCE lossless profile (buffer pools, PFC, ECN, trust) plus railfabric's explicit policy on top:
    every DSCP's switch priority (the profile's DSCP/8 default would make DSCP 24-31 lossless, railfabric maps only
    the RoCE DSCP there), the lossless and CNP priorities' traffic classes, PFC on the lossless priority, ECN
    thresholds of the RoCE class, strict CNP and DWRR for the rest, the watchdog timers."""
    q = dev.qos
    out: Tree = {
        "roce": {**forms(dev.release).flag(True), "mode": "lossless"},
        "mapping": {"default-global": {"trust": "both",
                                       "dscp": {str(d): {"switch-priority": tc} for d, tc in enumerate(q.dscp_to_tc)}}},
        "pfc": {"default-global": {"switch-priority": {str(p): {} for p in q.lossless}}},
        "egress-queue-mapping": {"default-global": {"switch-priority": {
            str(tc): {"traffic-class": q.tc_to_queue[tc]} for tc in sorted({q.roce_tc, q.cnp_tc})}}},
        "egress-scheduler": {"default-global": {"traffic-class": {
            **{str(t): {"mode": "strict"} for t in q.strict_queues},
            **{str(t): {"mode": "dwrr", "bw-percent": w} for t, w in q.dwrr}}}},
    }
    cc: Tree = {"ecn": "enable", "min-threshold": q.ecn.min_bytes, "max-threshold": q.ecn.max_bytes,
                "probability": q.ecn.probability} if q.ecn is not None else {"ecn": "disable"}
    out["congestion-control"] = {"default-global": {"traffic-class": {str(q.tc_to_queue[q.roce_tc]): cc}}}
    if q.watchdog is not None:
        out["pfc-watchdog"] = {"polling-interval": q.watchdog.poll_ms,
                               "robustness": q.watchdog.detection_polls}
    return out


# --------------------------------------------------------------------------- the document


def document(dev: DeviceConfig) -> list[Tree]:
    """The startup.yaml document: the managed `set` tree with the switch's raw data blocks merged in, in merge order
    (mapping by mapping: a raw block can add a path or replace one managed value)."""
    tree = managed_tree(dev)
    for block in dev.raw:
        if block.data:
            merge(tree, block.tree())
    return [{"set": tree}]


def managed_tree(dev: DeviceConfig) -> Tree:
    """The `set` tree railfabric decides for one switch (without its raw blocks)."""
    tree: Tree = {
        "system": system(dev),
        "service": service(dev),
        "interface": interfaces(dev),
        "router": router(dev),
        "vrf": {"default": {"router": {"bgp": bgp(dev)}}},
        "qos": qos(dev),
    }
    if h := ecmp_hash(dev):
        tree["system"]["forwarding"] = {"ecmp-hash": h}
    if b := bridge(dev):
        tree["bridge"] = b
    if dev.mlag is not None:
        tree["mlag"] = nvue_mlag.mlag(dev)
    return tree


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: object) -> bool:  # every value written out, never &id001 anchors
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = '"' if "%%vault." in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


# yaml.dump(doc, Dumper=_Dumper, sort_keys=True, default_flow_style=False, allow_unicode=False, width=1 << 30,
# indent=2), byte for byte, with each distinct scalar written by PyYAML once (railfabric/configs/nvue/yaml_dump.py)
dump = make_dump(_Dumper)


def startup_yaml(dev: DeviceConfig) -> str:
    """The startup.yaml text of `dev` (the platform's OutputFile builder)."""
    return dump(document(dev))
