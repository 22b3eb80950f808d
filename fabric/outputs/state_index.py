"""The fabric-wide facts a device's expected state needs about other devices, gathered once per render.

A device's expected state (fabric/outputs/state.py) is a pure function of its own DeviceConfig and of this index:
- owners: every routed address → (device, interface); ends: for each device's BGP sessions, the owners of both
  addresses (each looked up once per render here, not once per file that names them: the state files and
  expected/bgp_sessions.csv);
- loopbacks / advertised: what each device originates (its loopback /32; its rail summary, or its rail subnets where
  no summary covers them; a spine's pod aggregate);
- sessions: eBGP sessions per (device, peer device), so a route's next-hop count is a sum of session counts;
  heard_by, its inverse;
- per pod and rail, its rail switches; every prefix's sort key (fabric/outputs/state_routes.py reads these so
  that no switch's routes scan its pod or parse a prefix).
What a device's routes depend on: its direct BGP peers and, on a rail switch, its pod's spines and the rail
switches of the other segments of its pod (`depends_on` lists them for incremental rendering).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from fabric.address import Prefix
from fabric.device import DeviceConfig

from .rollout import RolloutSwitch, rollout_view
from .views import IPV4, NAME, Addresses, Port, Sessions, addresses_view, ports_view, sessions_view

NOBODY = ("", "")  # the owner of an address no switch holds


@dataclass(frozen=True, slots=True)
class FabricIndex:
    owners: dict[str, tuple[str, str]]  # routed address a.b.c.d → (device, interface or port-channel)
    # device → for each BGP neighbour (views.Sessions order: the model's peer groups and neighbours), the owner of
    # its address and then of the local address, (device, interface), ("", "") for none: looked up once per render
    ends: dict[str, tuple[tuple[str, str], ...]]
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


def routed_view(ports: Mapping[str, tuple[Port, ...]]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Switch → (interface, a.b.c.d/len) of each routed interface (views.Port with an address)."""
    return {name: tuple((p[NAME], p[IPV4]) for p in ps if p[IPV4]) for name, ps in ports.items()}


def build_index(devices: Mapping[str, DeviceConfig]) -> FabricIndex:
    return index_from(routed_view(ports_view(devices)), addresses_view(devices), sessions_view(devices),
                      rollout_view(devices), prefix_lists(devices))


def index_from(routed: Mapping[str, tuple[tuple[str, str], ...]], addresses: Mapping[str, Addresses],
               bgp: Mapping[str, Sessions], places: Mapping[str, RolloutSwitch],
               prefix_list: Mapping[str, tuple[str, ...]]) -> FabricIndex:
    """The index from exactly these views of the switches: routed interfaces, other addresses, BGP sessions,
    places (role, pod, segment, rails) and prefix lists."""
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
    )


def _owners(routed: Mapping[str, tuple[tuple[str, str], ...]],
            addresses: Mapping[str, Addresses]) -> dict[str, tuple[str, str]]:
    """Every routed address → (device, interface): _common.routed_owners keyed by the model's own a.b.c.d text."""
    owners: dict[str, tuple[str, str]] = {}
    for name, ifs in routed.items():
        for ifname, ipv4 in ifs:
            owners[ipv4.partition("/")[0]] = (name, ifname)
        own = addresses[name]
        for pc_name, pc_ip in own.port_channels:
            owners[pc_ip.partition("/")[0]] = (name, pc_name)
        if own.mlag is not None:
            owners[own.mlag[1]] = (name, own.mlag[0])
    return owners


def _sessions(bgp: Mapping[str, Sessions], owners: Mapping[str, tuple[str, str]]
              ) -> tuple[dict[str, dict[str, int]], dict[str, tuple[tuple[str, str], ...]]]:
    """eBGP sessions per (device, peer device), and the owners of each session's two addresses (FabricIndex.ends):
    every address looked up once."""
    sessions: dict[str, dict[str, int]] = {}
    ends: dict[str, tuple[tuple[str, str], ...]] = {}
    for name, (asn, groups) in bgp.items():
        count: dict[str, int] = defaultdict(int)
        found: list[tuple[str, str]] = []
        for _group, _bfd, neighbors in groups:
            for ip, local, remote_as in neighbors:
                peer = owners.get(ip, NOBODY)
                found.append(peer)
                found.append(owners.get(local, NOBODY))
                if peer[0] and remote_as != asn:  # iBGP (the MLAG peer) is not counted: see state_routes
                    count[peer[0]] += 1
        sessions[name] = dict(count)
        ends[name] = tuple(found)
    return sessions, ends


def _order_key(prefix: str) -> tuple[int, int]:
    """A route's sort key: the prefix's network address, then its length."""
    net = Prefix.parse(prefix, strict=False)
    return net.net, net.length
