"""The long lists of a switch's expected state (railfabric/outputs/state.py), each item written as the flat JSON text
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
from itertools import islice, repeat
from operator import attrgetter, itemgetter, le
from socket import AF_INET, inet_pton
from typing import Any

import orjson

from railfabric.core.order import natural_key
from railfabric.device import DeviceConfig
from railfabric.device.interfaces import Interface
from railfabric.device.mlag import MLAG_PEER_GROUP

from .state_index import FabricIndex
from .state_routes import Route

State = dict[str, Any]  # one switch's expected state, as expected/state/<device>.json holds it

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
# ports of the same switch models), so most lines are two joins; with the quoted name (for its LLDP item)
_Shown = tuple[str, bool, str | None, int, str, int, int, int | None]
_INTERFACE_PARTS: dict[_Shown, tuple[str, str, str]] = {}
_PORT_LANE = attrgetter("port", "lane")


def port_items(interfaces: Sequence[Interface]) -> tuple[list[str], list[str]]:
    """The interface items and the LLDP items of a switch's interfaces, by port and lane (stable: as sorted() by
    (port, lane)); written in one pass when the model lists them in that order already (it does)."""
    items = _port_items(interfaces)
    if items is None:
        items = _port_items(sorted(interfaces, key=_PORT_LANE), ordered=False)
        assert items is not None  # not `ordered`: never None
    return items


def _port_items(interfaces: Sequence[Interface], ordered: bool = True) -> tuple[list[str], list[str]] | None:
    """{"admin", "channel"?, "ipv4"?, "lanes", "mode", "mtu", "name", "oper", "speed_gbps", "vlan"?} of each
    interface and {"interface", "neighbor", "neighbor_interface", "role"} of each cabled one; None when `ordered`
    and an interface comes before the one listed ahead of it. The addresses are written as they are, then searched
    once for a byte JSON escapes: where one has, they are written again through orjson (_escaped_interfaces)."""
    q, parts, out, lldp, ips = QUOTED, _INTERFACE_PARTS, [], [], []
    last = (0, -1)
    for i in interfaces:
        if ordered:
            at = (i.port, i.lane)
            if at < last:
                return None
            last = at
        shown = (i.name, i.admin_up, i.channel, len(i.lanes), i.mode, i.mtu, i.speed, i.vlan)
        around = parts.get(shown)
        if around is None:
            around = _interface_parts(i)
            if len(parts) >= QUOTED_MAX:
                parts.clear()
            parts[shown] = around
        ip = i.ipv4
        if ip:
            ips.append(ip)
            out.append(f'{around[0]}"ipv4":"{ip}",{around[1]}')
        else:
            out.append(around[0] + around[1])
        if i.peer:
            lldp.append(f'{{"interface":{around[2]},"neighbor":{q[i.peer]},"neighbor_interface":'
                        f'{q[i.peer_interface]},"role":{q[i.role]}}}')
    if ips and not is_plain("".join(ips)):
        out = _escaped_interfaces(interfaces)
    return out, lldp


def _escaped_interfaces(interfaces: Iterable[Interface]) -> list[str]:
    """The interface items, every address escaped by orjson (never for a valid inventory's addresses)."""
    return [f'{before}"ipv4":"{_inner(i.ipv4)}",{after}' if i.ipv4 else before + after
            for i in interfaces for before, after, _ in (_interface_parts(i),)]


def _interface_parts(i: Interface) -> tuple[str, str, str]:
    """An interface's text before and after its address (`"ipv4":"a.b.c.d/len",`, where it has one), and its
    name quoted."""
    q = QUOTED
    up = '"up"' if i.admin_up else '"down"'
    channel = f'"channel":{q[i.channel]},' if i.channel else ""
    vlan = "" if i.vlan is None else f',"vlan":{i.vlan}'
    return (f'{{"admin":{up},{channel}',
            f'"lanes":{len(i.lanes)},"mode":{q[i.mode]},"mtu":{i.mtu},"name":{q[i.name]},"oper":{up},'
            f'"speed_gbps":{i.speed}{vlan}}}', q[i.name])


def _inner(text: str) -> str:
    """A string as JSON, without its quotes."""
    return orjson.dumps(text).decode()[1:-1]


_ADDRESS = itemgetter(0)


def neighbor_items(dev: DeviceConfig, ix: FabricIndex) -> list[str]:
    """{"address", "bfd", "bfd_timers", "interface", "local_address", "peer_device", "peer_group", "peer_interface",
    "remote_as", "type"} of each BGP neighbour (bfd_timers: its tier's {"interval_ms", "multiplier"}, or null), by
    address (railfabric.core.address.order_key: 4 bytes, big-endian, compared as the numbers), the device and
    interface of each address from the index (FabricIndex.ends, in the model's order of neighbours). An unnumbered
    neighbour (routing.addressing: unnumbered) has empty address and local_address (its interface and the peer's name
    it) and comes after the numbered ones, by interface. The addresses are written as they are, then searched once
    for a byte JSON escapes: where one has, the texts are written again with the addresses through orjson."""
    ips: list[str] = []
    local_ips: list[str] = []
    texts = _neighbor_texts(dev, ix, ips, local_ips, escape=False)
    if not is_plain("".join(ips) + "".join(local_ips)):
        texts = _neighbor_texts(dev, ix, [], [], escape=True)
    if "" in ips:  # unnumbered sessions (no address): after the numbered ones, by interface (digits as numbers)
        local_ifs = ix.ends[dev.hostname][1]
        order = [(0, inet_pton(AF_INET, ip), ()) if ip else (1, b"", natural_key(local_ifs[i][1]))
                 for i, ip in enumerate(ips)]
        return [text for _, text in sorted(zip(order, texts, strict=True), key=_ADDRESS)]
    keys = list(map(inet_pton, repeat(AF_INET), ips))  # order_key of each, in one C loop
    if all(map(le, keys, islice(keys, 1, None))):  # in order already (the model's, mostly)
        return texts
    rows = sorted(zip(keys, texts, strict=True), key=_ADDRESS)  # stable: one address's sessions keep their order
    return [text for _, text in rows]


def _neighbor_texts(dev: DeviceConfig, ix: FabricIndex, ips: list[str], local_ips: list[str], escape: bool
                    ) -> list[str]:
    """Each neighbour's text in the model's order; its addresses appended to `ips` and `local_ips`."""
    q, asn = QUOTED, dev.bgp.asn
    peers, locals_ = ix.ends[dev.hostname]  # the same model's neighbours, in order
    count = sum([len(g.neighbors) for g in dev.bgp.peer_groups])
    if count != len(peers):
        raise ValueError(f"{dev.hostname}: the index holds {len(peers)} BGP neighbours, the model {count}")
    texts: list[str] = []
    k = 0
    for group in dev.bgp.peer_groups:
        name, bfd = q[group.name], "true" if group.bfd else "false"
        t = group.bfd_timers
        timers = f'{{"interval_ms":{t.interval_ms},"multiplier":{t.multiplier}}}' if t is not None else "null"
        ibgp = '"ibgp"' if group.name == MLAG_PEER_GROUP else ""
        end = k + len(group.neighbors)
        for n, (peer, peer_if), (_, local_if) in zip(group.neighbors, peers[k:end], locals_[k:end], strict=True):
            ip, local_ip, remote_as = n.ip, n.local_ip, n.remote_as
            ips.append(ip)
            local_ips.append(local_ip)
            if escape:
                ip, local_ip = _inner(ip), _inner(local_ip)
            kind = ibgp or ('"ibgp"' if remote_as == asn else '"ebgp"')
            texts.append(f'{{"address":"{ip}","bfd":{bfd},"bfd_timers":{timers},"interface":{q[local_if]},'
                         f'"local_address":"{local_ip}",'
                         f'"peer_device":{q[peer]},"peer_group":{name},"peer_interface":{q[peer_if]},'
                         f'"remote_as":{remote_as},"type":{kind}}}')
        k = end
    return texts


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
