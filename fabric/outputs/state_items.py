"""The long lists of a switch's expected state (fabric/outputs/state.py), each item written as the flat JSON text
orjson gives its record (sorted keys, no spaces): interfaces, LLDP neighbours, BGP neighbours and routes, three
million items at 131,072 GPUs. A record built as a dict and dumped costs about three times the text written here.

Strings are quoted as orjson quotes them. Those that repeat across switches (interface and device names, peer
groups, prefixes) are quoted once each (QUOTED); the addresses each switch has its own of are written between bare
quotes when the switch's addresses hold no byte that JSON escapes (`plain`, one search per switch), else quoted
through orjson too. tests/test_state_text.py reads every item back and compares it with its record.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter

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


def plain(text: str) -> bool:
    """Whether orjson writes every string of `text` as the string itself between quotes."""
    return _NOT_PLAIN.search(text) is None


def bare(text: str) -> str:
    """A string known to be plain, as JSON."""
    return f'"{text}"'


def quoted(text: str) -> str:
    """Any string, as JSON (not kept: for the addresses, which do not repeat)."""
    return orjson.dumps(text).decode()


@dataclass(frozen=True, slots=True)
class Dumped:
    """A list whose items are flat JSON text already: laid out an item a line."""
    items: list[str]


def interface_items(interfaces: Iterable[Interface], quote: Callable[[str], str]) -> list[str]:
    """{"admin", "channel"?, "ipv4"?, "lanes", "mode", "mtu", "name", "oper", "speed_gbps", "vlan"?} of each
    interface; `quote` writes the address."""
    q = QUOTED
    out: list[str] = []
    for i in interfaces:
        up = '"up"' if i.admin_up else '"down"'
        channel = f'"channel":{q[i.channel]},' if i.channel else ""
        ipv4 = f'"ipv4":{quote(i.ipv4)},' if i.ipv4 else ""
        vlan = "" if i.vlan is None else f',"vlan":{i.vlan}'
        out.append(f'{{"admin":{up},{channel}{ipv4}"lanes":{len(i.lanes)},"mode":{q[i.mode]},"mtu":{i.mtu},'
                   f'"name":{q[i.name]},"oper":{up},"speed_gbps":{i.speed}{vlan}}}')
    return out


def lldp_items(interfaces: Iterable[Interface]) -> list[str]:
    """{"interface", "neighbor", "neighbor_interface", "role"} of each cabled interface."""
    q = QUOTED
    return [f'{{"interface":{q[i.name]},"neighbor":{q[i.peer]},"neighbor_interface":{q[i.peer_interface]},'
            f'"role":{q[i.role]}}}' for i in interfaces if i.peer]


_ADDRESS = itemgetter(0)


def neighbor_items(dev: DeviceConfig, ix: FabricIndex, quote: Callable[[str], str]) -> list[str]:
    """{"address", "bfd", "interface", "local_address", "peer_device", "peer_group", "peer_interface",
    "remote_as", "type"} of each BGP neighbour, by address (4 bytes, big-endian: compared as the numbers), the
    device and interface of each address from the index (FabricIndex.ends, in the model's order of neighbours);
    `quote` writes the addresses."""
    q, asn = QUOTED, dev.bgp.asn
    ends, k = ix.ends[dev.hostname], 0  # two per neighbour, the same model's: a mismatch raises IndexError
    rows: list[tuple[bytes, str]] = []
    for group in dev.bgp.peer_groups:
        name, bfd = q[group.name], "true" if group.bfd else "false"
        ibgp = group.name == MLAG_PEER_GROUP
        for n in group.neighbors:
            peer, peer_if = ends[k]
            local_if = ends[k + 1][1]
            k += 2
            kind = '"ibgp"' if ibgp or n.remote_as == asn else '"ebgp"'
            rows.append((order_key(n.ip), f'{{"address":{quote(n.ip)},"bfd":{bfd},"interface":{q[local_if]},'
                                          f'"local_address":{quote(n.local_ip)},"peer_device":{q[peer]},'
                                          f'"peer_group":{name},"peer_interface":{q[peer_if]},'
                                          f'"remote_as":{n.remote_as},"type":{kind}}}'))
    if k != len(ends):
        raise ValueError(f"{dev.hostname}: the index holds {len(ends) // 2} BGP neighbours, the model {k // 2}")
    rows.sort(key=_ADDRESS)  # stable: sessions to one address keep the model's order
    return [text for _, text in rows]


def route_items(routes: Sequence[Route]) -> list[str]:
    """{"kind", "next_hops", "origin", "prefix"} of each route."""
    q = QUOTED
    return [f'{{"kind":{q[kind]},"next_hops":{hops},"origin":[{",".join([q[o] for o in origin])}],'
            f'"prefix":{q[prefix]}}}' for prefix, hops, kind, origin in routes]
