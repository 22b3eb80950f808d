"""The fabric-wide facts a device's expected state needs about other devices, gathered once per render.

A device's expected state (fabric/outputs/state.py) is a pure function of its own DeviceConfig and of this index:
- owners: every routed address → (device, interface), to name each BGP neighbour's device and interface;
- loopbacks / advertised: what each device originates (its loopback /32; its rail summary, or its rail subnets where
  no summary covers them; a spine's pod aggregate);
- sessions: eBGP sessions per (device, peer device), so a route's next-hop count is a sum of session counts.
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


@dataclass(frozen=True, slots=True)
class FabricIndex:
    owners: dict[str, tuple[str, str]]  # routed address a.b.c.d → (device, interface or port-channel)
    loopbacks: dict[str, str]  # device → loopback a.b.c.d/32
    advertised: dict[str, tuple[str, ...]]  # device → rail prefixes it sends (aggregates, uncovered subnets)
    sessions: dict[str, dict[str, int]]  # device → eBGP peer device → number of sessions
    role: dict[str, str]
    pod: dict[str, int | None]
    segment: dict[str, int | None]
    rails: dict[str, frozenset[int]]
    pod_rail_switches: dict[int, tuple[str, ...]]  # pod → its rail switches (sorted)
    pod_spine_aggregates: dict[int, tuple[tuple[str, str], ...]]  # pod → (aggregate, spine) of its spines


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
    owners: dict[str, tuple[str, str]] = {}  # _common.routed_owners keyed by the model's own a.b.c.d text
    for name, ends in routed.items():
        for ifname, ipv4 in ends:
            owners[ipv4.partition("/")[0]] = (name, ifname)
        own = addresses[name]
        for pc_name, pc_ip in own.port_channels:
            owners[pc_ip.partition("/")[0]] = (name, pc_name)
        if own.mlag is not None:
            owners[own.mlag[1]] = (name, own.mlag[0])
    sessions: dict[str, dict[str, int]] = {}
    for name, (asn, groups) in bgp.items():
        count: dict[str, int] = defaultdict(int)
        for _group, _bfd, neighbors in groups:
            for ip, _local, remote_as in neighbors:
                peer = owners.get(ip, ("", ""))[0]
                if peer and remote_as != asn:  # iBGP (the MLAG peer) is not counted: see state_routes
                    count[peer] += 1
        sessions[name] = dict(count)
    pod_rails: dict[int, list[str]] = defaultdict(list)
    spine_aggs: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for name in sorted(places):
        sw = places[name]
        if sw.pod is not None and sw.role == "rail":
            pod_rails[sw.pod].append(name)
        if sw.pod is not None and sw.role == "spine":
            spine_aggs[sw.pod].extend((a, name) for a in addresses[name].aggregates)
    return FabricIndex(
        owners=owners,
        loopbacks={n: a.loopback for n, a in addresses.items()},
        advertised={n: _advertised(a.aggregates, prefix_list[n], a.loopback) for n, a in addresses.items()},
        sessions=sessions,
        role={n: sw.role for n, sw in places.items()},
        pod={n: sw.pod for n, sw in places.items()},
        segment={n: sw.segment for n, sw in places.items()},
        rails={n: frozenset(sw.rails) for n, sw in places.items()},
        pod_rail_switches={pod: tuple(names) for pod, names in pod_rails.items()},
        pod_spine_aggregates={pod: tuple(aggs) for pod, aggs in spine_aggs.items()},
    )
