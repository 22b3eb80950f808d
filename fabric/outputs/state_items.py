"""The long lists of a switch's expected state (fabric/outputs/state.py), each item written as the flat JSON text
orjson gives its record (sorted keys, no spaces): interfaces, LLDP neighbours, BGP neighbours and routes, three
million items at 131,072 GPUs. A record built as a dict and dumped costs about three times the text written here.

Strings are quoted as orjson quotes them. Those that repeat across switches (interface and device names, peer
groups, prefixes) are quoted once each (QUOTED); the addresses each switch has its own of are written between bare
quotes when the switch's addresses hold no byte that JSON escapes (`is_plain`, one search per switch), else
escaped by orjson too. Lines that repeat across switches (an interface but its address, a route) are made once.
tests/test_state_text.py compares each switch's text with the one its record, built as dicts, is laid out to.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from operator import itemgetter, le

import orjson

from fabric.address import order_key
from fabric.device import DeviceConfig
from fabric.device.interfaces import Interface
from fabric.device.mlag import MLAG_PEER_GROUP

from .state_index import FabricIndex
from .state_routes import Route

QUOTED_MAX = 1 << 17  # quoted strings kept (names and prefixes: about 40,000 at 131,072 GPUs)


class _Quoted(dict[str, str]):
    """text → its JSON string (orjson's), computed on first use; emptied when it passes QUOTED_MAX entries."""

    def __missing__(self, text: str) -> str:
        if len(self) >= QUOTED_MAX:
            self.clear()
        out = self[text] = orjson.dumps(text).decode()
        return out


QUOTED = _Quoted()

# printable ASCII but the quote and the backslash: what orjson writes as it is, between quotes
_NOT_PLAIN = re.compile(r'[^ !#-\[\]-~]')


def is_plain(text: str) -> bool:
    """Whether orjson writes every string of `text` as the string itself between quotes."""
    return _NOT_PLAIN.search(text) is None


@dataclass(frozen=True, slots=True)
class Dumped:
    """A list whose items are flat JSON text already: laid out an item a line."""
    items: list[str]


# an interface's text but its address, by everything else it shows: 176 different ones at 131,072 GPUs (the same
# ports of the same switch models), so most lines are two joins
_Shown = tuple[str, bool, str | None, int, str, int, int, int | None]
_INTERFACE_PARTS: dict[_Shown, tuple[str, str]] = {}


def interface_items(interfaces: Iterable[Interface], plain: bool) -> list[str]:
    """{"admin", "channel"?, "ipv4"?, "lanes", "mode", "mtu", "name", "oper", "speed_gbps", "vlan"?} of each
    interface; `plain`: the addresses need no escaping."""
    parts, out = _INTERFACE_PARTS, []
    for i in interfaces:
        shown = (i.name, i.admin_up, i.channel, len(i.lanes), i.mode, i.mtu, i.speed, i.vlan)
        around = parts.get(shown)
        if around is None:
            around = _interface_parts(i)
            if len(parts) >= QUOTED_MAX:
                parts.clear()
            parts[shown] = around
        if i.ipv4:
            out.append(f'{around[0]}"ipv4":"{i.ipv4 if plain else _inner(i.ipv4)}",{around[1]}')
        else:
            out.append(around[0] + around[1])
    return out


def _interface_parts(i: Interface) -> tuple[str, str]:
    """An interface's text before and after its address (`"ipv4":"a.b.c.d/len",`, where it has one)."""
    q = QUOTED
    up = '"up"' if i.admin_up else '"down"'
    channel = f'"channel":{q[i.channel]},' if i.channel else ""
    vlan = "" if i.vlan is None else f',"vlan":{i.vlan}'
    return (f'{{"admin":{up},{channel}',
            f'"lanes":{len(i.lanes)},"mode":{q[i.mode]},"mtu":{i.mtu},"name":{q[i.name]},"oper":{up},'
            f'"speed_gbps":{i.speed}{vlan}}}')


def _inner(text: str) -> str:
    """A string as JSON, without its quotes."""
    return orjson.dumps(text).decode()[1:-1]


def lldp_items(interfaces: Iterable[Interface]) -> list[str]:
    """{"interface", "neighbor", "neighbor_interface", "role"} of each cabled interface."""
    q = QUOTED
    return [f'{{"interface":{q[i.name]},"neighbor":{q[i.peer]},"neighbor_interface":{q[i.peer_interface]},'
            f'"role":{q[i.role]}}}' for i in interfaces if i.peer]


_ADDRESS = itemgetter(0)


def neighbor_items(dev: DeviceConfig, ix: FabricIndex, plain: bool) -> list[str]:
    """{"address", "bfd", "interface", "local_address", "peer_device", "peer_group", "peer_interface",
    "remote_as", "type"} of each BGP neighbour, by address (4 bytes, big-endian: compared as the numbers), the
    device and interface of each address from the index (FabricIndex.ends, in the model's order of neighbours);
    `plain`: the addresses need no escaping."""
    q, asn = QUOTED, dev.bgp.asn
    peers, locals_ = ix.ends[dev.hostname]  # the same model's neighbours, in order: a mismatch raises IndexError
    k = 0
    keys: list[bytes] = []
    texts: list[str] = []
    for group in dev.bgp.peer_groups:
        name, bfd = q[group.name], "true" if group.bfd else "false"
        ibgp = group.name == MLAG_PEER_GROUP
        for n in group.neighbors:
            peer, peer_if = peers[k]
            local_if = locals_[k][1]
            k += 1
            kind = '"ibgp"' if ibgp or n.remote_as == asn else '"ebgp"'
            ip, local_ip = (n.ip, n.local_ip) if plain else (_inner(n.ip), _inner(n.local_ip))
            keys.append(order_key(n.ip))
            texts.append(f'{{"address":"{ip}","bfd":{bfd},"interface":{q[local_if]},"local_address":"{local_ip}",'
                         f'"peer_device":{q[peer]},"peer_group":{name},"peer_interface":{q[peer_if]},'
                         f'"remote_as":{n.remote_as},"type":{kind}}}')
    if k != len(peers):
        raise ValueError(f"{dev.hostname}: the index holds {len(peers)} BGP neighbours, the model {k}")
    if all(map(le, keys, islice(keys, 1, None))):  # in order already (the model's, mostly)
        return texts
    rows = sorted(zip(keys, texts, strict=True), key=_ADDRESS)  # stable: one address's sessions keep their order
    return [text for _, text in rows]


_ROUTE_LINES: dict[Route, str] = {}  # a route is in the files of every switch that hears it alike


def route_items(routes: Sequence[Route]) -> list[str]:
    """{"kind", "next_hops", "origin", "prefix"} of each route."""
    lines, out = _ROUTE_LINES, []
    for route in routes:
        line = lines.get(route)
        if line is None:
            if len(lines) >= QUOTED_MAX:
                lines.clear()
            line = lines[route] = _route_line(route)
        out.append(line)
    return out


def _route_line(route: Route) -> str:
    q = QUOTED
    prefix, hops, kind, origin = route
    return f'{{"kind":{q[kind]},"next_hops":{hops},"origin":[{",".join([q[o] for o in origin])}],"prefix":{q[prefix]}}}'
