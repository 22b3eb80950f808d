"""expected/state/<device>.json: what each switch must report once deployed, for any verification tool.

One JSON document per device (schema: schema/expected-state.schema.json, documented in docs/expected-state.md),
built from the device model (the same record the configs are rendered from) and the fabric-wide index
(railfabric/outputs/state_index.py) for peer names and routes. Every platform gets one; the ANTA catalog of an EOS
switch (railfabric/outputs/anta.py) is a translation of this record, so both always say the same thing.
Keys are sorted and lists ordered (interfaces by port and lane, neighbours by address, routes by prefix): the text
is byte-identical across runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from railfabric.device import DeviceConfig
from railfabric.device.vlans import Vlan
from railfabric.platforms import PLATFORMS

from .anta import anta_inventory_files, catalog_path, catalog_text
from .state_index import FabricIndex, build_index
from .state_items import QUOTED, Dumped, State, neighbor_items, port_items, route_items
from .state_routes import expected_routes, routes_v6

SCHEMA_ID = "https://railfabric.dev/schema/expected-state/v1.json"
SCHEMA_VERSION = 1
STATE_DIR = "expected/state"
ADDRESS_FAMILY = "ipv4-unicast"  # the underlay's address family
ADDRESS_FAMILY_V6 = "ipv6-unicast"  # dual-stack (routing.address_families with ipv6): on the same sessions
VRF = "default"  # fabric sessions and routes live in the default VRF (management has its own)



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
             **({"own_address": v.own} if v.own else {}), **_vlan_v6(v)} for v in dev.vlans]


def _vlan_v6(v: Vlan) -> dict[str, str]:
    """Dual-stack: the SVI's IPv6 gateway, its /64 and the switch's own IPv6 address beside a shared gateway."""
    if not v.prefix_v6:
        return {}
    return {"gateway_v6": v.gateway_v6, "prefix_v6": v.prefix_v6, **({"own_address_v6": v.own_v6} if v.own_v6 else {})}


def _mlag(dev: DeviceConfig) -> dict[str, Any] | None:
    m = dev.mlag
    if m is None:
        return None
    return {"domain": m.domain, "peer": m.peer, "peer_link": m.peer_link, "vlan": m.vlan, "interface": m.interface,
            "local_address": f"{m.local_ip}/{m.prefix_len}", "peer_address": m.peer_ip, "primary": m.primary}


def device_state(dev: DeviceConfig, ix: FabricIndex) -> State:
    """The expected state of one switch (a plain, JSON-ready dict; schema/expected-state.schema.json): its text
    read back, so the record and the file cannot differ."""
    state: State = orjson.loads(device_state_text(dev, ix))
    return state


def device_state_text(dev: DeviceConfig, ix: FabricIndex) -> str:
    """expected/state/<device>.json: the long lists (interfaces, LLDP neighbours, BGP neighbours, routes) written
    item by item as flat JSON (railfabric/outputs/state_items.py), the rest laid out from plain values."""
    interfaces, lldp = port_items(dev.interfaces)
    routes = expected_routes(dev, ix)
    dual = bool(dev.loopback_v6)
    loopback = {"interface": dev.loopback_interface, "address": dev.loopback}
    if dual:
        loopback["address_v6"] = dev.loopback_v6
    v6 = dev.bgp.ipv6
    # every neighbour: in the default VRF, Established, IPv4 unicast (and, dual-stack, IPv6 unicast) negotiated (said
    # once, not per neighbour)
    bgp: dict[str, object] = {
        "asn": dev.bgp.asn, "router_id": dev.bgp.router_id, "maximum_paths": dev.bgp.maximum_paths,
        "aggregates": list(dev.bgp.aggregates), "vrf": VRF, "neighbor_state": "Established",
        "address_families": [ADDRESS_FAMILY, ADDRESS_FAMILY_V6] if dual else [ADDRESS_FAMILY],
        "neighbors": Dumped(neighbor_items(dev, ix))}
    if dual:
        bgp["aggregates_v6"] = list(v6.aggregates) if v6 else []
    doc: dict[str, object] = {
        "$schema": SCHEMA_ID,
        "schema_version": SCHEMA_VERSION,
        "device": dev.hostname,
        "platform": dev.platform,
        "role": dev.role,
        "pod": dev.pod,
        "segment": dev.segment,
        "management": dev.management,
        "loopback": loopback,
        "mtu": dev.mtu,
        "interfaces": Dumped(interfaces),
        "port_channels": _port_channels(dev),
        "vlans": _vlans(dev),
        "lldp_neighbors": Dumped(lldp),
        "bgp": bgp,
        "mlag": _mlag(dev),
        "routes": Dumped(route_items(routes)),  # all BGP, default VRF
    }
    if dual:  # the IPv6 family's routes (a separate list: readers of `routes` see IPv4 prefixes only, as in v1)
        doc["routes_v6"] = Dumped(route_items(routes_v6(routes, ix)))
    return _laid_out(doc)


_SORT = orjson.OPT_SORT_KEYS


def _json(value: object) -> str:
    return orjson.dumps(value, option=_SORT).decode()


def state_text(state: State) -> str:
    """Sorted keys, one key per line down to the second level and one list item per line: about a third smaller
    than indented JSON at 5,000+ switches, and a diff still names the interface, neighbour or route that changed."""
    return _laid_out(state)


def _laid_out(document: Mapping[str, object]) -> str:
    """A non-empty list: an item a line; a non-empty mapping above the third level: a key a line; else flat JSON.
    A Dumped list's items are flat JSON already. Ends with a line break."""
    out: list[str] = []
    _lay(document, 0, 0, out)
    out.append("\n")
    return "".join(out)


def _lay(value: object, indent: int, depth: int, out: list[str]) -> None:
    """_laid_out's text, in pieces appended to `out` (joined once: a file's text is copied once, not once per
    level). Text and whole numbers first: most values are."""
    kind = type(value)
    if kind is str:
        out.append(QUOTED[value])  # type: ignore[index]
    elif kind is int:  # not a bool: its type is bool
        out.append(str(value))
    elif kind is Dumped:
        items = value.items  # type: ignore[attr-defined]
        if items:
            inner = f"\n{' ' * indent}  "
            out += ("[", inner, f",{inner}".join(items), inner[:-2], "]")
        else:
            out.append("[]")
    elif isinstance(value, list) and value:  # the items dumped and joined as bytes: one decode per list
        inner = f"\n{' ' * indent}  "
        out += ("[", inner, f",{inner}".encode().join([orjson.dumps(v, option=_SORT) for v in value]).decode(),
                inner[:-2], "]")
    elif isinstance(value, dict) and value and depth < 2:
        inner = f"\n{' ' * indent}  "
        sep = "{" + inner
        for k in sorted(value):
            out += (sep, QUOTED[k], ": ")
            _lay(value[k], indent + 2, depth + 1, out)
            sep = "," + inner
        out += (inner[:-2], "}")
    else:
        out.append(_json(value))


def state_path(device: str) -> str:
    return f"{STATE_DIR}/{device}.json"


def states(devices: Mapping[str, DeviceConfig], ix: FabricIndex | None = None) -> dict[str, State]:
    """device → expected state, for every device."""
    index = ix if ix is not None else build_index(devices)
    return {name: device_state(dev, index) for name, dev in devices.items()}


def state_files(devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    """expected/state/<device>.json for every device and the ANTA files of the EOS switches."""
    index = build_index(devices)
    out: dict[str, str] = {}
    for dev in devices.values():
        out.update(device_state_files(dev, index))
    out.update(anta_inventory_files(anta_hosts(devices)))
    return out


def device_state_files(dev: DeviceConfig, ix: FabricIndex) -> dict[str, str]:
    """One switch's expected/state/<device>.json and, for an EOS switch, its ANTA catalog: from its own model and
    the fabric-wide index only."""
    text = device_state_text(dev, ix)
    out = {state_path(dev.hostname): text}
    if PLATFORMS[dev.platform].anta:
        out[catalog_path(dev.hostname)] = catalog_text(orjson.loads(text))
    return out


def anta_hosts(devices: Mapping[str, DeviceConfig]) -> list[State]:
    """What the ANTA inventory reads of each EOS switch (the keys of its expected state it shows)."""
    return [{"device": d.hostname, "role": d.role, "pod": d.pod, "segment": d.segment, "management": d.management}
            for d in devices.values() if PLATFORMS[d.platform].anta]
