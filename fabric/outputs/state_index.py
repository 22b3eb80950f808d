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


def _advertised(dev: DeviceConfig) -> tuple[str, ...]:
    """The rail prefixes `dev` sends its peers: its aggregates plus the redistributed rail subnets no aggregate
    covers (summary-only suppresses the covered ones); the loopback is listed apart."""
    aggs = [Prefix.parse(a, strict=False) for a in dev.bgp.aggregates]
    subnets = [e for e in dev.bgp.prefix_list_entries if e != dev.loopback]
    kept = [s for s in subnets if not any(a.covers(Prefix.parse(s, strict=False)) for a in aggs)]
    return (*dev.bgp.aggregates, *kept)


def _owners(devices: Mapping[str, DeviceConfig]) -> dict[str, tuple[str, str]]:
    """Every routed address a.b.c.d → (device, interface or port-channel): _common.routed_owners keyed by the text
    the device model writes (fabric/device: always fabric.address.ntoa's), without a round trip through integers."""
    owners: dict[str, tuple[str, str]] = {}
    for name, dev in devices.items():
        for i in dev.interfaces:
            if i.ipv4:
                owners[i.ipv4.partition("/")[0]] = (name, i.name)
        for pc in dev.port_channels:
            if pc.ipv4:
                owners[pc.ipv4.partition("/")[0]] = (name, pc.name)
        if dev.mlag is not None:
            owners[dev.mlag.local_ip] = (name, dev.mlag.interface)
    return owners


def build_index(devices: Mapping[str, DeviceConfig]) -> FabricIndex:
    owners = _owners(devices)
    sessions: dict[str, dict[str, int]] = {}
    for name, dev in devices.items():
        count: dict[str, int] = defaultdict(int)
        for group in dev.bgp.peer_groups:
            for n in group.neighbors:
                peer = owners.get(n.ip, ("", ""))[0]
                if peer and n.remote_as != dev.bgp.asn:  # iBGP (the MLAG peer) is not counted: see state_routes
                    count[peer] += 1
        sessions[name] = dict(count)
    pod_rails: dict[int, list[str]] = defaultdict(list)
    spine_aggs: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for name in sorted(devices):
        dev = devices[name]
        if dev.pod is not None and dev.role == "rail":
            pod_rails[dev.pod].append(name)
        if dev.pod is not None and dev.role == "spine":
            spine_aggs[dev.pod].extend((a, name) for a in dev.bgp.aggregates)
    return FabricIndex(
        owners=owners,
        loopbacks={n: d.loopback for n, d in devices.items()},
        advertised={n: _advertised(d) for n, d in devices.items()},
        sessions=sessions,
        role={n: d.role for n, d in devices.items()},
        pod={n: d.pod for n, d in devices.items()},
        segment={n: d.segment for n, d in devices.items()},
        rails={n: frozenset(d.rails) for n, d in devices.items()},
        pod_rail_switches={pod: tuple(names) for pod, names in pod_rails.items()},
        pod_spine_aggregates={pod: tuple(aggs) for pod, aggs in spine_aggs.items()},
    )
