"""Arista's own generator as an oracle for railfabric's EOS forms (tests/test_eos_avd.py).

AVD (Arista Validated Designs, PyPI `pyavd`) turns a "structured config" (its eos_cli_config_gen data model) into EOS
CLI. `structured_config` writes what railfabric's vendor-neutral device model says a switch must hold in AVD's keys,
built from the model (railfabric/device/), never from railfabric's rendered text; AVD validates that data against its
own schema and renders it. The test then compares AVD's lines with railfabric's running-config.cfg section by
section (`sections`). The mapping covers the sections whose forms railfabric took from AVD or the EOS manual:
interfaces (routed, access, member, L3 and MLAG port-channels, loopback, management, SVIs), VLANs, prefix-lists,
route-maps, community-lists, the MLAG domain, `router bgp`, and the RoCE QoS (the DSCP map, the per-port trust, PFC
and per-queue scheduling and ECN as an AVD qos profile, the PFC watchdog defaults, the Trident MMU profile).
TCP-AO keys (the shared-secret profiles and the peer groups' `password shared-secret profile`) too, with
the lifetimes railfabric/configs/eos/keys.py decides, and ECMP dynamic load balancing (routing.ecmp.mode flowlet).
Management services and AAA are not mapped.
"""

from __future__ import annotations

from typing import Any

from railfabric.configs.eos.keys import next_transmit_lifetime, transmit_lifetime
from railfabric.device.model import DeviceConfig
from railfabric.device.routing import PeerGroup


def _routed(unnumbered: bool, ipv4: str | None) -> dict[str, Any]:
    """A routed port or port-channel: no switchport, and its /31 or (unnumbered) IPv6 link-local only."""
    return {"switchport": {"enabled": False}, **({"ipv6_enable": True} if unnumbered else {"ip_address": ipv4})}


def _ethernet(d: DeviceConfig) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in d.interfaces:
        e: dict[str, Any] = {"name": i.name, "description": i.description, "speed": i.speed_setting}
        if not i.admin_up:
            e["shutdown"] = True
        if i.mode != "member":
            e["mtu"] = i.mtu
        if i.fec == "rs":
            e["error_correction_encoding"] = {"enabled": True, "reed_solomon": True}
        if i.mode == "access":
            e["switchport"] = {"mode": "access", "access_vlan": i.vlan}
        elif i.mode == "routed":
            e.update(_routed(i.unnumbered, i.ipv4))
        elif i.mode == "member":
            e["channel_group"] = {"id": i.channel_number, "mode": "active"}
        out.append(e)
    return out


def _port_channels(d: DeviceConfig) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for pc in d.port_channels:
        e: dict[str, Any] = {"name": pc.name, "description": pc.description, "mtu": pc.mtu, "min_links": pc.min_links}
        if pc.mode == "routed":
            e.update(_routed(pc.unnumbered, pc.ipv4))
        elif pc.mode == "access":
            e["switchport"] = {"mode": "access", "access_vlan": pc.vlan}
        elif pc.mode == "trunk" and d.mlag is not None:
            e["switchport"] = {"mode": "trunk",
                               "trunk": {"allowed_vlan": ",".join(map(str, pc.trunk_vlans)),
                                         "groups": [d.mlag.trunk_group]}}
        if pc.mlag is not None:
            e["mlag"] = pc.mlag
        out.append(e)
    return out


def _svis(d: DeviceConfig) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for v in d.vlans:
        e: dict[str, Any] = {"name": f"Vlan{v.id}", "description": f"{v.name} {v.prefix}", "mtu": v.mtu}
        e["ip_address_virtual" if v.virtual else "ip_address"] = v.gateway
        if v.gateway_v6:
            e["ipv6_address"] = v.gateway_v6
        out.append(e)
    if d.mlag is not None:
        m = d.mlag
        out.append({"name": f"Vlan{m.vlan}", "description": f"MLAG peer {m.peer}", "mtu": d.mtu, "no_autostate": True,
                    "ip_address": f"{m.local_ip}/{m.prefix_len}"})
    return out


def _prefix_lists(d: DeviceConfig) -> dict[str, Any]:
    b = d.bgp
    out: dict[str, Any] = {"prefix_lists": [{"name": b.prefix_list, "sequence_numbers": [
        {"sequence": seq, "action": f"permit {p}"} for seq, p in b.prefix_list_rules]}]}
    if b.ipv6:
        out["ipv6_prefix_lists"] = [{"name": b.ipv6.prefix_list, "sequence_numbers": [
            {"sequence": seq, "action": f"permit {p}"} for seq, p in b.ipv6.prefix_list_rules]}]
    maps: list[dict[str, Any]] = [{"name": b.route_map, "sequence_numbers": [
        {"sequence": 10, "type": "permit", "match": [f"ip address prefix-list {b.prefix_list}"]}]}]
    if b.ipv6:
        maps.append({"name": b.ipv6.route_map, "sequence_numbers": [
            {"sequence": 10, "type": "permit", "match": [f"ipv6 address prefix-list {b.ipv6.prefix_list}"]}]})
    if b.gshut:
        g = b.gshut
        out["ip_community_lists"] = [{"name": g.community_list, "entries": [
            {"action": "permit", "communities": [g.community]}]}]
        maps.append({"name": g.route_map, "sequence_numbers": [
            {"sequence": g.match_seq, "type": "permit", "match": [f"community {g.community_list}"],
             "set": [f"local-preference {g.local_preference}"]},
            {"sequence": g.pass_seq, "type": "permit"}]})
    out["route_maps"] = maps
    return out


def _peer_group(g: PeerGroup) -> dict[str, Any]:
    e: dict[str, Any] = {"name": g.name, "description": g.description}
    if g.remote_as is not None:
        e["remote_as"] = str(g.remote_as)
    if g.next_hop_self:
        e["next_hop_self"] = True
    if g.bfd:
        e["bfd"] = True
    if g.bfd_timers:
        t = g.bfd_timers
        e["bfd_timers"] = {"interval": t.interval_ms, "min_rx": t.interval_ms, "multiplier": t.multiplier}
    if g.key and g.key.algorithm == "md5":
        e["password"] = g.key.placeholder
    elif g.key:  # TCP-AO through the tier's shared-secret profile, HMAC-SHA-1-96 (RFC 5926's mandatory MAC)
        e["shared_secret"] = {"profile": g.key.name, "hash_algorithm": "hmac-sha1-96"}
    if g.inbound_route_map:
        e["route_map_in"] = g.inbound_route_map
    return e


def _bgp(d: DeviceConfig) -> dict[str, Any]:
    b = d.bgp
    neighbors: list[dict[str, Any]] = []
    interfaces: list[dict[str, Any]] = []
    for g in b.peer_groups:
        for n in g.neighbors:
            if n.interface:
                interfaces.append({"name": n.interface, "peer_group": g.name, "remote_as": str(n.remote_as)})
            else:
                e: dict[str, Any] = {"ip_address": n.ip, "peer_group": g.name, "description": n.description}
                if g.remote_as is None:
                    e["remote_as"] = str(n.remote_as)
                neighbors.append(e)
    af4: list[dict[str, Any]] = []
    for g in b.peer_groups:
        e = {"name": g.name, "activate": True}
        if g.unnumbered:
            e["next_hop"] = {"address_family_ipv6": {"enabled": True, "originate": True}}
        af4.append(e)
    out: dict[str, Any] = {
        "as": str(b.asn), "router_id": b.router_id,
        "maximum_paths": {"paths": b.maximum_paths, "ecmp": b.maximum_paths},
        "peer_groups": [_peer_group(g) for g in b.peer_groups],
        "neighbors": neighbors, "neighbor_interfaces": interfaces,
        "aggregate_addresses": [{"prefix": p, "summary_only": True}
                                for p in (*b.aggregates, *(b.ipv6.aggregates if b.ipv6 else ()))],
        "redistribute": {"connected": {"enabled": True, "route_map": b.route_map}},
        "address_family_ipv4": {"peer_groups": af4},
    }
    if b.ipv6:
        af6 = [{"name": g.name, "activate": True, **({"route_map_in": g.inbound_route_map}
                                                       if g.inbound_route_map else {})} for g in b.peer_groups]
        out["address_family_ipv6"] = {"peer_groups": af6,
                                      "redistribute": {"connected": {"enabled": True,
                                                                     "route_map": b.ipv6.route_map}}}
    return out


QOS_PROFILE = "RF-ROCE-PORT"  # the per-port RoCE QoS as an AVD qos profile (compared with each RoCE port's lines)


def _qos(d: DeviceConfig) -> dict[str, Any]:
    """The RoCE QoS: per port as a qos profile (AVD models the per-queue scheduler there, with the same sub-commands
    EOS takes under an interface), the DSCP map, the PFC watchdog defaults and the Trident MMU profile. The per-port
    `priority-flow-control pause watchdog` line is left out of the profile: pyavd 5.7's qos-profiles template fails
    on a watchdog without a port timer (an undefined variable)."""
    q = d.qos
    queues: list[dict[str, Any]] = []
    for t in q.tx_queues:
        e: dict[str, Any] = {"id": t.queue, "priority": "priority strict" if t.strict else "no priority"}
        if not t.strict:
            e["bandwidth_percent"] = t.weight
        if t.ecn:
            e["random_detect"] = {"ecn": {"threshold": {"units": "bytes", "min": t.ecn.min_bytes,
                                                        "max": t.ecn.max_bytes, "max_probability": t.ecn.probability}}}
        queues.append(e)
    keyword = d.queue_form.queue if d.queue_form else "tx-queue"
    profile: dict[str, Any] = {"name": QOS_PROFILE, "trust": "dscp",
                               ("uc_tx_queues" if keyword == "uc-tx-queue" else "tx_queues"): queues,
                               "priority_flow_control": {"enabled": True, "priorities": [
                                   {"priority": p, "no_drop": True} for p in q.lossless]}}
    out: dict[str, Any] = {"qos_profiles": [profile], "qos": {"map": {"dscp": [
        f"{' '.join(map(str, dscps))} to traffic-class {tc}" for tc, dscps in q.tc_groups]}}}
    if q.watchdog:
        w = q.watchdog
        out["priority_flow_control"] = {"watchdog": {"action": w.action, "timeout": f"{w.detection_s:g}",
                                                     "polling_interval": f"{w.poll_s:g}",
                                                     "recovery_time": f"{w.restoration_s:g}"}}
    mmu = d.queue_form.mmu if d.queue_form else None
    if mmu is not None:
        ingress: dict[str, Any] = {"threshold": mmu.threshold}
        if mmu.headroom_bytes is not None:
            ingress["headroom"] = mmu.headroom_bytes
        out["platform"] = {"trident": {"mmu": {"active_profile": mmu.name,
                                               "queue_profiles": [{"name": mmu.name, "ingress": ingress}]}}}
    return out


def _lifetime(text: str) -> dict[str, Any]:
    """An EOS lifetime ('infinite' or '<start> <end>', railfabric/configs/eos/keys.py's decision) as AVD's keys."""
    if text == "infinite":
        return {"infinite": True}
    words = text.split()
    return {"start_date_time": " ".join(words[:2]), "end_date_time": " ".join(words[2:])}


def _shared_secrets(d: DeviceConfig) -> dict[str, Any]:
    """TCP-AO keys: one shared-secret profile per tier, the current secret and, during a rollover, the next one."""
    profiles: list[dict[str, Any]] = []
    for k in d.bgp.ao_keys:
        secrets = [{"name": str(k.key_id), "secret": k.placeholder, "secret_type": "0",
                    "receive_lifetime": {"infinite": True}, "transmit_lifetime": _lifetime(transmit_lifetime(k))}]
        if k.next:
            secrets.append({"name": str(k.next.key_id), "secret": k.next.placeholder, "secret_type": "0",
                            "receive_lifetime": {"infinite": True},
                            "transmit_lifetime": _lifetime(next_transmit_lifetime(k.next))})
        profiles.append({"profile": k.name, "secrets": secrets})
    return {"management_security": {"shared_secret_profiles": profiles}} if profiles else {}


def structured_config(d: DeviceConfig) -> dict[str, Any]:
    """AVD's eos_cli_config_gen data for what `d` says the switch holds (the mapped sections only)."""
    sc: dict[str, Any] = {
        "hostname": d.hostname,
        "ethernet_interfaces": _ethernet(d),
        "port_channel_interfaces": _port_channels(d),
        "loopback_interfaces": [{"name": d.loopback_interface, "ip_address": d.loopback,
                                 **({"ipv6_address": d.loopback_v6} if d.loopback_v6 else {})}],
        "management_interfaces": [{"name": d.system.interface, "vrf": d.system.vrf, "ip_address": d.management}],
        "vlan_interfaces": _svis(d),
        "vlans": [{"id": v.id, "name": v.name} for v in d.vlans],
        "router_bgp": _bgp(d),
        **_prefix_lists(d),
        **_qos(d),
        **_shared_secrets(d),
    }
    if d.load_balancing.flowlet:  # routing.ecmp.mode flowlet: EOS dynamic load balancing
        sc["ip_hardware"] = {"fib": {"load_balance_distribution": {"dynamic": {"enabled": True}}}}
    if d.bgp.unnumbered:
        sc["ip_routing_ipv6_interfaces"] = True
        sc["ipv6_unicast_routing"] = True
    if d.mlag is not None:
        m = d.mlag
        sc["vlans"].append({"id": m.vlan, "name": m.trunk_group, "trunk_groups": [m.trunk_group]})
        sc["mlag_configuration"] = {"domain_id": m.domain, "local_interface": f"Vlan{m.vlan}",
                                    "peer_address": m.peer_ip, "peer_link": m.peer_link}
        sc["ip_virtual_router_mac_address"] = m.virtual_mac
    return sc


def sections(text: str) -> dict[str, list[str]]:
    """EOS configuration text → top-level line: its child lines (sub-sections flattened as 'parent / child'), in
    order. `!` lines and blank lines separate, they are not lines."""
    out: dict[str, list[str]] = {}
    top: str | None = None
    sub: str | None = None
    for raw in text.splitlines():
        if not raw.strip() or raw.strip() == "!":
            continue
        depth = len(raw) - len(raw.lstrip(" "))
        line = raw.strip()
        if depth == 0:
            top, sub = line, None
            out.setdefault(top, [])
        elif top is None:
            continue
        elif depth <= 3:
            sub = line
            out[top].append(line)
        else:
            out[top].append(f"{sub} / {line}")
    return out
