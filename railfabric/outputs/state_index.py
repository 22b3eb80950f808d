"""The fabric-wide facts a device's expected state needs about other devices, gathered once per render.

A device's expected state (railfabric/outputs/state.py) is a pure function of its own DeviceConfig and of this index:
- owners: every routed address → (device, interface); ends: for each device's BGP sessions, the owners of both
  addresses (each looked up once per render here, not once per file that names them: the state files and
  expected/bgp_sessions.csv);
- loopbacks / advertised: what each device originates (its loopback /32; its rail summary, or its rail subnets where
  no summary covers them; a spine's pod aggregate);
- sessions: eBGP sessions per (device, peer device), so a route's next-hop count is a sum of session counts;
  heard_by, its inverse;
- per pod and rail, its rail switches; every prefix's sort key (railfabric/outputs/state_routes.py reads these so
  that no switch's routes scan its pod or parse a prefix);
- dual-stack (routing.address_families with ipv6): twins, every IPv4 prefix a route can have → its IPv6 twin, from
  the device models (prefix_twins: the loopback /32 ↔ /128, each rail subnet ↔ its /64 on the same SVI, each
  summary ↔ its IPv6 summary), with the twins' sort keys. The IPv6 family rides on the same sessions with the same
  prefix shapes (railfabric/plan/allocate_v6.py), so an IPv6 route is its IPv4 twin's with the prefix swapped
  (state_routes.routes_v6); nothing is derived twice.
What a device's routes depend on: its direct BGP peers and, on a rail switch, its pod's spines and the rail
switches of the other segments of its pod (`depends_on` lists them for incremental rendering).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import itemgetter, ne

from railfabric.core.address import Prefix
from railfabric.core.address6 import Prefix6
from railfabric.device import DeviceConfig

from .rollout import RolloutSwitch, rollout_view
from .views import (
    UNNUMBERED_MARK,
    Addresses,
    Port,
    Sessions,
    addresses_view,
    ports_view,
    routed_of,
    sessions_view,
)

NOBODY = ("", "")  # the owner of an address no switch holds
Owner = tuple[str, str]  # (device, interface or port-channel)
Ends = tuple[tuple[Owner, ...], tuple[Owner, ...]]  # the owners of a switch's sessions' (neighbour, local) addresses


@dataclass(frozen=True, slots=True)
class FabricIndex:
    owners: dict[str, tuple[str, str]]  # routed address a.b.c.d → (device, interface or port-channel)
    # device → the owners of its BGP neighbours' addresses and of its own (local) addresses, (device, interface),
    # NOBODY for none, in views.Sessions order (the model's peer groups and neighbours): looked up once per render
    ends: dict[str, Ends]
    loopbacks: dict[str, str]  # device → loopback a.b.c.d/32
    advertised: dict[str, tuple[str, ...]]  # device → rail prefixes it sends (aggregates, uncovered subnets)
    sessions: dict[str, dict[str, int]]  # device → eBGP peer device → number of sessions
    role: dict[str, str]
    pod: dict[str, int | None]
    segment: dict[str, int | None]
    rails: dict[str, frozenset[int]]
    pod_rail_switches: dict[int, tuple[str, ...]]  # pod → its rail switches (sorted)
    pod_spine_aggregates: dict[int, tuple[tuple[str, str], ...]]  # pod → (aggregate, spine) of its spines
    pod_rail_switches_by_rail: dict[tuple[int, int], tuple[str, ...]]  # (pod, rail) → its rail switches (sorted)
    heard_by: dict[str, frozenset[str]]  # device → the devices with an eBGP session to it (sessions, inverted)
    prefix_order: dict[str, tuple[int, int]]  # every loopback, advertised and aggregate prefix → (address, length)
    # dual-stack: IPv4 prefix → its IPv6 twin, and each twin's sort key (address, length); empty on IPv4-only
    twins: dict[str, str] = field(default_factory=dict)
    twin_order: dict[str, tuple[int, int]] = field(default_factory=dict)


def _advertised(aggregates: tuple[str, ...], prefix_list: tuple[str, ...], loopback: str) -> tuple[str, ...]:
    """The rail prefixes a switch sends its peers: its aggregates plus the redistributed rail subnets no aggregate
    covers (summary-only suppresses the covered ones); the loopback is listed apart."""
    aggs = [Prefix.parse(a, strict=False) for a in aggregates]
    subnets = [e for e in prefix_list if e != loopback]
    kept = [s for s in subnets if not any(a.covers(Prefix.parse(s, strict=False)) for a in aggs)]
    return (*aggregates, *kept)


def prefix_lists(devices: Mapping[str, DeviceConfig]) -> dict[str, tuple[str, ...]]:
    """Each switch's redistribution prefix list (what the index reads of it besides the views below)."""
    return {n: d.bgp.prefix_list_entries for n, d in devices.items()}


Twins = tuple[tuple[str, str], ...]  # (IPv4 prefix, its IPv6 twin) of one switch


def prefix_twins(devices: Mapping[str, DeviceConfig]) -> dict[str, Twins]:
    """Each switch's IPv4 prefixes paired with their IPv6 twins; () on an IPv4-only switch. The loopback /32 with the
    /128, each rail SVI's subnet with its /64 (railfabric/device/vlans.py: both on one Vlan), and the summaries in
    order: a rail summary with its IPv6 summary over the same /64s, a spine's pod aggregates with the IPv6 ones
    (railfabric/device/routing_v6.py: both split the pod's segment blocks alike, so the i-th covers the same
    segments in both families)."""
    out: dict[str, Twins] = {}
    for name, d in devices.items():
        v6 = d.bgp.ipv6
        if not d.loopback_v6 or v6 is None:
            out[name] = ()
            continue
        pairs = [(d.loopback, d.loopback_v6), *((v.prefix, v.prefix_v6) for v in d.vlans if v.prefix_v6)]
        if len(d.bgp.aggregates) == len(v6.aggregates):
            pairs += zip(d.bgp.aggregates, v6.aggregates, strict=True)
        out[name] = tuple(pairs)
    return out


def routed_view(ports: Mapping[str, tuple[Port, ...]]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Switch → (interface, a.b.c.d/len) of each routed interface (views.Port with an address)."""
    return {name: routed_of(ps) for name, ps in ports.items()}


def build_index(devices: Mapping[str, DeviceConfig]) -> FabricIndex:
    return index_from(routed_view(ports_view(devices)), addresses_view(devices), sessions_view(devices),
                      rollout_view(devices), prefix_lists(devices), prefix_twins(devices))


def index_from(routed: Mapping[str, tuple[tuple[str, str], ...]], addresses: Mapping[str, Addresses],
               bgp: Mapping[str, Sessions], places: Mapping[str, RolloutSwitch],
               prefix_list: Mapping[str, tuple[str, ...]], twins: Mapping[str, Twins] | None = None) -> FabricIndex:
    """The index from exactly these views of the switches: routed interfaces, other addresses, BGP sessions,
    places (role, pod, segment, rails), prefix lists and (dual-stack) the IPv6 twins of their prefixes."""
    owners = _owners(routed, addresses)
    sessions, ends = _sessions(bgp, owners)
    heard: dict[str, list[str]] = defaultdict(list)
    for name, count in sessions.items():
        for other in count:
            heard[other].append(name)
    pod_rails: dict[int, list[str]] = defaultdict(list)
    by_rail: dict[tuple[int, int], list[str]] = defaultdict(list)
    spine_aggs: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for name in sorted(places):
        sw = places[name]
        if sw.pod is not None and sw.role == "rail":
            pod_rails[sw.pod].append(name)
            for rail in set(sw.rails):
                by_rail[(sw.pod, rail)].append(name)
        if sw.pod is not None and sw.role == "spine":
            spine_aggs[sw.pod].extend((a, name) for a in addresses[name].aggregates)
    advertised = {n: _advertised(a.aggregates, prefix_list[n], a.loopback) for n, a in addresses.items()}
    prefixes = {a.loopback for a in addresses.values()}.union(*advertised.values(),
                                                               *(a.aggregates for a in addresses.values()))
    return FabricIndex(
        owners=owners,
        ends=ends,
        loopbacks={n: a.loopback for n, a in addresses.items()},
        advertised=advertised,
        sessions=sessions,
        role={n: sw.role for n, sw in places.items()},
        pod={n: sw.pod for n, sw in places.items()},
        segment={n: sw.segment for n, sw in places.items()},
        rails={n: frozenset(sw.rails) for n, sw in places.items()},
        pod_rail_switches={pod: tuple(names) for pod, names in pod_rails.items()},
        pod_spine_aggregates={pod: tuple(aggs) for pod, aggs in spine_aggs.items()},
        pod_rail_switches_by_rail={key: tuple(names) for key, names in by_rail.items()},
        heard_by={name: frozenset(who) for name, who in heard.items()},
        prefix_order={p: _order_key(p) for p in prefixes},
        **_twins(twins or {}),
    )


def _twins(per_switch: Mapping[str, Twins]) -> dict[str, dict]:
    """FabricIndex.twins and twin_order from each switch's pairs (an MLAG pair's shared subnets name one twin)."""
    twins = {v4: v6 for pairs in per_switch.values() for v4, v6 in pairs}
    if not twins:
        return {}
    order = {}
    for v6 in twins.values():
        net = Prefix6.parse(v6)
        order[v6] = (net.net, net.length)
    return {"twins": twins, "twin_order": order}


def _owners(routed: Mapping[str, tuple[tuple[str, str], ...]],
            addresses: Mapping[str, Addresses]) -> dict[str, tuple[str, str]]:
    """Every routed address → (device, interface): _common.routed_owners keyed by the model's own a.b.c.d text.
    Built in C loops: the owners column by column, the addresses' text without its length in one pass
    (_address_texts); a million addresses at 131,072 GPUs."""
    devices: list[str] = []
    ifnames: list[str] = []
    texts: list[str] = []
    mlag: dict[str, tuple[str, tuple[str, str]]] = {}
    for name, ifs in routed.items():
        own = addresses[name]
        ends = (*ifs, *own.port_channels)  # (interface, a.b.c.d/len)
        devices += repeat(name, len(ends))
        ifnames += map(_FIRST, ends)
        texts += map(_SECOND, ends)
        if own.mlag is not None:
            mlag[name] = (own.mlag[1], (name, own.mlag[0]))
    owners = dict(zip(_address_texts(texts), zip(devices, ifnames, strict=True), strict=True))
    # each MLAG address after its switch's interfaces, in the switches' order (a later owner of an address wins):
    # when none is also an interface's, all of them after the interfaces is the same
    if _mlag_overlaps(owners, mlag):
        return _with_mlag(routed, addresses)
    owners.update(mlag.values())
    return owners


def _mlag_overlaps(owners: Mapping[str, tuple[str, str]], mlag: Mapping[str, tuple[str, tuple[str, str]]]) -> bool:
    """Whether an MLAG peer address is also a routed interface's (then the order of the updates matters)."""
    return any(address in owners for address, _ in mlag.values())


def _with_mlag(routed: Mapping[str, tuple[tuple[str, str], ...]],
               addresses: Mapping[str, Addresses]) -> dict[str, tuple[str, str]]:
    """The owners in the plain order, switch by switch (an MLAG peer address that is also a routed interface's:
    never in a valid fabric)."""
    out: dict[str, tuple[str, str]] = {}
    for name, ifs in routed.items():
        own = addresses[name]
        for ifname, ipv4 in (*ifs, *own.port_channels):
            out[ipv4.partition("/")[0]] = (name, ifname)
        if own.mlag is not None:
            out[own.mlag[1]] = (name, own.mlag[0])
    return out


_FIRST, _SECOND = itemgetter(0), itemgetter(1)


def _address_texts(texts: list[str]) -> list[str]:
    """Each 'a.b.c.d/len' (or 'a.b.c.d') without its '/len', in C passes over the texts joined: the /31s' lengths
    replaced at once, any other length cut by a regular expression."""
    joined = "\n".join(texts) + "\n"
    if joined.count("\n") != len(texts):  # a text holding a line break: one at a time
        return [t.partition("/")[0] for t in texts]
    cut = joined.replace("/31\n", "\n")
    if "/" in cut:
        cut = _LENGTH.sub("", cut)
    return cut.split("\n")[:-1]


_LENGTH = re.compile("/[^\n]*")  # what partition("/")[0] drops: from the first '/' to the end of the text


def _sessions(bgp: Mapping[str, Sessions], owners: Mapping[str, tuple[str, str]]
              ) -> tuple[dict[str, dict[str, int]], dict[str, Ends]]:
    """eBGP sessions per (device, peer device), and the owners of each session's two addresses (FabricIndex.ends):
    every address looked up once, in C loops (the neighbours' columns by zip, the owners by map of dict.get)."""
    sessions: dict[str, dict[str, int]] = {}
    ends: dict[str, Ends] = {}
    get = owners.get
    for name, (asn, groups) in bgp.items():
        # (ip, local_ip, remote_as) of each neighbour, in the model's order
        neighbors = groups[0][2] if len(groups) == 1 else [n for _group, _bfd, ns in groups for n in ns]
        if not neighbors:
            sessions[name], ends[name] = {}, ((), ())
            continue
        ips, local_ips, remote_as = zip(*neighbors, strict=True)
        if UNNUMBERED_MARK in "".join(ips):  # unnumbered sessions: each end names its device and interface
            peers = tuple(map(_unnumbered_owner, ips, repeat(get)))
            ends[name] = (peers, tuple(map(_unnumbered_owner, local_ips, repeat(get))))
        else:
            peers = tuple(map(get, ips, repeat(NOBODY)))
            ends[name] = (peers, tuple(map(get, local_ips, repeat(NOBODY))))
        # iBGP (the MLAG peer) is not counted: see state_routes; nor an address no switch holds
        devices = map(_FIRST, peers)
        count = Counter(compress(devices, map(ne, remote_as, repeat(asn))) if asn in remote_as else devices)
        count.pop("", None)
        sessions[name] = dict(count)
    return sessions, ends


def _unnumbered_owner(end: str, get: Callable[[str, tuple[str, str]], tuple[str, str]]) -> tuple[str, str]:
    """The (device, interface) of a session end: an unnumbered end (views.unnumbered_end) names them, an address is
    looked up (`get`: the owners' get)."""
    device, mark, interface = end.partition(UNNUMBERED_MARK)
    return (device, interface) if mark else get(end, NOBODY)


def _order_key(prefix: str) -> tuple[int, int]:
    """A route's sort key: the prefix's network address, then its length."""
    net = Prefix.parse(prefix, strict=False)
    return net.net, net.length
