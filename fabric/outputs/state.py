"""expected/state/<device>.json: what each switch must report once deployed, for any verification tool.

One JSON document per device (schema: schema/expected-state.schema.json, documented in docs/expected-state.md),
built from the device model (the same record the configs are rendered from) and the fabric-wide index
(fabric/outputs/state_index.py) for peer names and routes. Every platform gets one; the ANTA catalog of an EOS
switch (fabric/outputs/anta.py) is a translation of this record, so both always say the same thing.
Keys are sorted and lists ordered (interfaces by port and lane, neighbours by address, routes by prefix): the text
is byte-identical across runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from fabric.address import order_key
from fabric.device import DeviceConfig
from fabric.device.interfaces import Interface
from fabric.device.mlag import MLAG_PEER_GROUP

from .state_index import FabricIndex, build_index
from .state_routes import expected_routes

SCHEMA_ID = "https://railfabric.dev/schema/expected-state/v1.json"
SCHEMA_VERSION = 1
STATE_DIR = "expected/state"
ADDRESS_FAMILY = "ipv4-unicast"  # the underlay's only address family
VRF = "default"  # fabric sessions and routes live in the default VRF (management has its own)

State = dict[str, Any]


def _interface(i: Interface) -> dict[str, Any]:
    up = "up" if i.admin_up else "down"
    out: dict[str, Any] = {"name": i.name, "admin": up, "oper": up, "mtu": i.mtu, "speed_gbps": i.speed,
                           "mode": i.mode, "lanes": len(i.lanes)}
    if i.ipv4:
        out["ipv4"] = i.ipv4
    if i.vlan is not None:
        out["vlan"] = i.vlan
    if i.channel:
        out["channel"] = i.channel
    return out


def _port_channels(dev: DeviceConfig) -> list[dict[str, Any]]:
    out = []
    for pc in dev.port_channels:
        item: dict[str, Any] = {"name": pc.name, "admin": "up", "oper": "up", "mode": pc.mode, "mtu": pc.mtu,
                                "members": list(pc.members), "min_links": pc.min_links, "peer": pc.peer,
                                "role": pc.role}
        if pc.ipv4:
            item["ipv4"] = pc.ipv4
        if pc.vlan is not None:
            item["vlan"] = pc.vlan
        if pc.trunk_vlans:
            item["trunk_vlans"] = list(pc.trunk_vlans)
        out.append(item)
    return out


def _vlans(dev: DeviceConfig) -> list[dict[str, Any]]:
    return [{"id": v.id, "name": v.name, "rail": v.rail, "gateway": v.gateway, "prefix": v.prefix, "mtu": v.mtu,
             "members": list(v.members), "tagged": list(v.tagged), "virtual_gateway": v.virtual,
             **({"own_address": v.own} if v.own else {})} for v in dev.vlans]


def _bgp(dev: DeviceConfig, ix: FabricIndex) -> dict[str, Any]:
    neighbors: list[dict[str, Any]] = []
    for group in dev.bgp.peer_groups:
        for n in group.neighbors:
            peer, peer_if = ix.owners.get(n.ip, ("", ""))
            _, local_if = ix.owners.get(n.local_ip, ("", ""))
            neighbors.append({"address": n.ip, "remote_as": n.remote_as, "local_address": n.local_ip,
                              "interface": local_if, "peer_device": peer, "peer_interface": peer_if,
                              "peer_group": group.name, "bfd": group.bfd,
                              "type": "ibgp" if group.name == MLAG_PEER_GROUP or n.remote_as == dev.bgp.asn
                              else "ebgp"})
    neighbors.sort(key=lambda x: order_key(x["address"]))  # 4 bytes, big-endian: compared as the numbers
    # every neighbour: in the default VRF, Established, IPv4 unicast negotiated (said once, not per neighbour)
    return {"asn": dev.bgp.asn, "router_id": dev.bgp.router_id, "maximum_paths": dev.bgp.maximum_paths,
            "aggregates": list(dev.bgp.aggregates), "vrf": VRF, "neighbor_state": "Established",
            "address_families": [ADDRESS_FAMILY], "neighbors": neighbors}


def _mlag(dev: DeviceConfig) -> dict[str, Any] | None:
    m = dev.mlag
    if m is None:
        return None
    return {"domain": m.domain, "peer": m.peer, "peer_link": m.peer_link, "vlan": m.vlan, "interface": m.interface,
            "local_address": f"{m.local_ip}/{m.prefix_len}", "peer_address": m.peer_ip, "primary": m.primary}


def device_state(dev: DeviceConfig, ix: FabricIndex) -> State:
    """The expected state of one switch (a plain, JSON-ready dict; schema/expected-state.schema.json)."""
    interfaces = sorted(dev.interfaces, key=lambda i: (i.port, i.lane))
    return {
        "$schema": SCHEMA_ID,
        "schema_version": SCHEMA_VERSION,
        "device": dev.hostname,
        "platform": dev.platform,
        "role": dev.role,
        "pod": dev.pod,
        "segment": dev.segment,
        "management": dev.management,
        "loopback": {"interface": dev.loopback_interface, "address": dev.loopback},
        "mtu": dev.mtu,
        "interfaces": [_interface(i) for i in interfaces],
        "port_channels": _port_channels(dev),
        "vlans": _vlans(dev),
        "lldp_neighbors": [{"interface": i.name, "neighbor": i.peer, "neighbor_interface": i.peer_interface,
                            "role": i.role} for i in interfaces if i.peer],
        "bgp": _bgp(dev, ix),
        "mlag": _mlag(dev),
        "routes": [{"prefix": r.prefix, "next_hops": r.next_hops, "kind": r.kind, "origin": list(r.origin)}
                   for r in expected_routes(dev, ix)],  # all BGP, default VRF
    }


_SORT = orjson.OPT_SORT_KEYS


def _json(value: object) -> str:
    return orjson.dumps(value, option=_SORT).decode()


def state_text(state: State) -> str:
    """Sorted keys, one key per line down to the second level and one list item per line: about a third smaller
    than indented JSON at 5,000+ switches, and a diff still names the interface, neighbour or route that changed."""
    return _laid_out(state, 0, 0) + "\n"


def _laid_out(value: object, indent: int, depth: int) -> str:
    """A non-empty list: an item a line; a non-empty mapping above the third level: a key a line; else flat JSON."""
    pad = " " * indent
    if isinstance(value, list) and value:  # the items dumped and joined as bytes: one decode per list
        inner = f"\n{pad}  "
        return f"[{inner}" + f",{inner}".encode().join([orjson.dumps(v, option=_SORT) for v in value]).decode() \
            + f"\n{pad}]"
    if isinstance(value, dict) and value and depth < 2:
        return "{\n" + ",\n".join(f"{pad}  {_json(k)}: {_laid_out(value[k], indent + 2, depth + 1)}"
                                   for k in sorted(value)) + f"\n{pad}}}"
    return _json(value)


def state_path(device: str) -> str:
    return f"{STATE_DIR}/{device}.json"


def states(devices: Mapping[str, DeviceConfig], ix: FabricIndex | None = None) -> dict[str, State]:
    """device → expected state, for every device."""
    index = ix if ix is not None else build_index(devices)
    return {name: device_state(dev, index) for name, dev in devices.items()}


def state_files(devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    """expected/state/<device>.json for every device and the ANTA files of the EOS switches."""
    from .anta import anta_inventory_files

    index = build_index(devices)
    out: dict[str, str] = {}
    for dev in devices.values():
        out.update(device_state_files(dev, index))
    out.update(anta_inventory_files(anta_hosts(devices)))
    return out


def device_state_files(dev: DeviceConfig, ix: FabricIndex) -> dict[str, str]:
    """One switch's expected/state/<device>.json and, for an EOS switch, its ANTA catalog: from its own model and
    the fabric-wide index only."""
    from .anta import catalog_path, catalog_text

    st = device_state(dev, ix)
    out = {state_path(dev.hostname): state_text(st)}
    if dev.platform == "eos":
        out[catalog_path(dev.hostname)] = catalog_text(st)
    return out


def anta_hosts(devices: Mapping[str, DeviceConfig]) -> list[State]:
    """What the ANTA inventory reads of each EOS switch (the keys of its expected state it shows)."""
    return [{"device": d.hostname, "role": d.role, "pod": d.pod, "segment": d.segment, "management": d.management}
            for d in devices.values() if d.platform == "eos"]
