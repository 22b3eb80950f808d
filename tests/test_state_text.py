"""The expected state written item by item (railfabric/outputs/state_items.py, state.device_state_text) against the
record it stands for, built here the plain way: each switch's document as dicts, its routes by scanning its pod and
its sessions resolved through the index's owners (the code these files were written by until the item writers;
it reads none of the index's derived tables: ends, heard_by, pod_rail_switches_by_rail, prefix_order), laid out by
state.state_text. Fabrics: the example (SONiC and EOS, dual-rail switches, breakouts), the example all on EOS, and
the MLAG segment on SONiC, EOS and NVUE (port-channels, host bonds, iBGP to the MLAG peer, the peer VLAN).

Hand derivations (inventory/fabric.yml, pods.yml; as in tests/test_anta_catalog.py's docstring):
- p1-s2-rail0-4 (pod 1, segment 2, rails 0 and 4): its uplink u = 0..15 takes the /31 10.4.8.0 + 2u of
  fabric_links; the spine holds the even end, so its session to 10.4.8.0 runs from its local 10.4.8.1. Uplink 0 is
  its port 33 (EOS Ethernet33/1) landing on p1-spine1 port 17, SONiC Ethernet(17-1)·8 = Ethernet128. Its 16
  uplinks go to the 4 spines of pod 1, 4 each: the devices with an eBGP session to it are p1-spine1..4.
- Rail 0 of pod 1 is served by p1-s1-rail0 (segment 1, single-rail) and p1-s2-rail0-4 (segment 2, rails 0 and 4);
  rail 4 by p1-s1-rail4 and p1-s2-rail0-4.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
import pytest

from railfabric.core.address import Prefix, order_key
from railfabric.device import DeviceConfig, build_devices
from railfabric.device.mlag import MLAG_PEER_GROUP
from railfabric.inventory.intent import Platform
from railfabric.outputs import Sources, artifact_parts
from railfabric.outputs._common import csv_text, natural_key
from railfabric.outputs.expected import BGP_HEADER, BGP_TITLE, expected_from
from railfabric.outputs.state import (
    ADDRESS_FAMILY,
    SCHEMA_ID,
    SCHEMA_VERSION,
    VRF,
    device_state,
    device_state_text,
    state_text,
)
from railfabric.outputs.state_index import FabricIndex, build_index
from railfabric.outputs.views import ports_view, sessions_view
from railfabric.pipeline import run
from railfabric.plan.allocate import allocate
from railfabric.topology import expand
from tests.helpers import EXAMPLE, mlag_inventory, run_data

RAIL = "p1-s2-rail0-4"


# --- the record the plain way (the reference) ---------------------------------------------------------------------

def _routes(dev: DeviceConfig, ix: FabricIndex) -> list[dict[str, Any]]:
    """The routes by scanning: every peer's loopback; a spine's rail prefixes; a rail switch's prefixes of the
    same-rail switches of its pod's other segments (or the spines' pod aggregate covering them)."""
    def net(p: str) -> Prefix:
        return Prefix.parse(p, strict=False)

    cap, mine = dev.bgp.maximum_paths, ix.sessions.get(dev.hostname, {})
    out: dict[str, tuple[int, str, tuple[str, ...]]] = {
        ix.loopbacks[p]: (min(n, cap), "peer-loopback", (p,)) for p, n in mine.items()}
    senders: dict[str, list[str]] = defaultdict(list)
    if dev.role == "spine":
        for peer in mine:
            if ix.role[peer] == "rail":
                for p in ix.advertised[peer]:
                    senders[p].append(peer)
        for p, who in senders.items():
            out[p] = (min(sum(mine[w] for w in who), cap), "peer-rail-prefix", tuple(sorted(who)))
    elif dev.role == "rail" and dev.pod is not None:
        spines = [s for s in mine if ix.role[s] == "spine"]
        for other in ix.pod_rail_switches.get(dev.pod, ()) if spines else ():
            if ix.segment[other] != dev.segment and ix.rails[other] & set(dev.rails):
                for p in ix.advertised[other]:
                    senders[p].append(other)
        aggs = ix.pod_spine_aggregates.get(dev.pod, ())
        for p, who in senders.items():
            covering = [a for a, _s in aggs if net(a).covers(net(p)) and net(a) != net(p)]
            for a in covering:
                origins = sorted({s for a2, s in aggs if a2 == a})
                out[a] = (min(sum(mine.get(s, 0) for s in origins), cap), "pod-aggregate", tuple(origins))
            hops = sum(mine[s] for s in spines if any(w in ix.sessions.get(s, {}) for w in who))
            if not covering and hops:
                out[p] = (min(hops, cap), "remote-segment", tuple(sorted(who)))
    return [{"prefix": p, "next_hops": n, "kind": k, "origin": list(o)}
            for p, (n, k, o) in sorted(out.items(), key=lambda kv: (net(kv[0]).net, net(kv[0]).length))]


def _neighbors(dev: DeviceConfig, ix: FabricIndex) -> list[dict[str, Any]]:
    out = []
    for g in dev.bgp.peer_groups:
        for n in g.neighbors:
            peer, peer_if = ix.owners.get(n.ip, ("", ""))
            out.append({"address": n.ip, "remote_as": n.remote_as, "local_address": n.local_ip,
                        "interface": ix.owners.get(n.local_ip, ("", ""))[1], "peer_device": peer,
                        "peer_interface": peer_if, "peer_group": g.name, "bfd": g.bfd,
                        "bfd_timers": {"interval_ms": g.bfd_timers.interval_ms, "multiplier": g.bfd_timers.multiplier}
                        if g.bfd_timers is not None else None,
                        "type": "ibgp" if g.name == MLAG_PEER_GROUP or n.remote_as == dev.bgp.asn else "ebgp"})
    return sorted(out, key=lambda x: order_key(x["address"]))


def _interface(i: Any) -> dict[str, Any]:
    up = "up" if i.admin_up else "down"
    return {"name": i.name, "admin": up, "oper": up, "mtu": i.mtu, "speed_gbps": i.speed, "mode": i.mode,
            "lanes": len(i.lanes), **({"ipv4": i.ipv4} if i.ipv4 else {}),
            **({"vlan": i.vlan} if i.vlan is not None else {}), **({"channel": i.channel} if i.channel else {})}


def record(dev: DeviceConfig, ix: FabricIndex) -> dict[str, Any]:
    interfaces = sorted(dev.interfaces, key=lambda i: (i.port, i.lane))
    m = dev.mlag
    return {
        "$schema": SCHEMA_ID, "schema_version": SCHEMA_VERSION, "device": dev.hostname, "platform": dev.platform,
        "role": dev.role, "pod": dev.pod, "segment": dev.segment, "management": dev.management,
        "loopback": {"interface": dev.loopback_interface, "address": dev.loopback}, "mtu": dev.mtu,
        "interfaces": [_interface(i) for i in interfaces],
        "port_channels": [{"name": pc.name, "admin": "up", "oper": "up", "mode": pc.mode, "mtu": pc.mtu,
                           "members": list(pc.members), "min_links": pc.min_links, "peer": pc.peer, "role": pc.role,
                           **({"ipv4": pc.ipv4} if pc.ipv4 else {}), **({"vlan": pc.vlan} if pc.vlan is not None
                                                                         else {}),
                           **({"trunk_vlans": list(pc.trunk_vlans)} if pc.trunk_vlans else {})}
                          for pc in dev.port_channels],
        "vlans": [{"id": v.id, "name": v.name, "rail": v.rail, "gateway": v.gateway, "prefix": v.prefix,
                   "mtu": v.mtu, "members": list(v.members), "tagged": list(v.tagged), "virtual_gateway": v.virtual,
                   **({"own_address": v.own} if v.own else {})} for v in dev.vlans],
        "lldp_neighbors": [{"interface": i.name, "neighbor": i.peer, "neighbor_interface": i.peer_interface,
                            "role": i.role} for i in interfaces if i.peer],
        "bgp": {"asn": dev.bgp.asn, "router_id": dev.bgp.router_id, "maximum_paths": dev.bgp.maximum_paths,
                "aggregates": list(dev.bgp.aggregates), "vrf": VRF, "neighbor_state": "Established",
                "address_families": [ADDRESS_FAMILY], "neighbors": _neighbors(dev, ix)},
        "mlag": None if m is None else {
            "domain": m.domain, "peer": m.peer, "peer_link": m.peer_link, "vlan": m.vlan, "interface": m.interface,
            "local_address": f"{m.local_ip}/{m.prefix_len}", "peer_address": m.peer_ip, "primary": m.primary},
        "routes": _routes(dev, ix),
    }


def sessions_csv(devices: Mapping[str, DeviceConfig], ix: FabricIndex) -> str:
    """expected/bgp_sessions.csv the plain way: every session's owners looked up, rows sorted as tuples."""
    rows: list[tuple[str, ...]] = []
    for name in sorted(devices, key=natural_key):
        d = devices[name]
        mine = sorted((order_key(n.ip), name, ix.owners.get(n.local_ip, ("", ""))[1], n.local_ip, d.bgp.asn, n.ip,
                       n.remote_as, *ix.owners.get(n.ip, ("", "")), g.name, "yes" if g.bfd else "no")
                      for g in d.bgp.peer_groups for n in g.neighbors)
        rows.extend(tuple(map(str, r[1:])) for r in mine)
    return csv_text(BGP_TITLE, BGP_HEADER, rows)


# --- the fabrics ---------------------------------------------------------------------------------------------------

def _example(eos: bool) -> dict[str, DeviceConfig]:
    r = run(EXAMPLE)
    assert r.findings == [] and r.inventory and r.topology and r.plan
    if not eos:
        return build_devices(r.inventory, r.topology, r.plan)
    inv = r.inventory.model_copy(update={"fabric": r.inventory.fabric.model_copy(update={"platform": Platform.EOS})})
    topo = expand(inv)
    return build_devices(inv, topo, allocate(inv, topo))


def _mlag(tmp: Path, platform: str) -> dict[str, DeviceConfig]:
    r = run_data(tmp, mlag_inventory(platform))
    assert not [f for f in r.findings if f.severity == "error"] and r.inventory and r.topology and r.plan
    return build_devices(r.inventory, r.topology, r.plan)


FABRICS = ("example", "example-eos", "mlag-sonic", "mlag-eos", "mlag-nvue")


@pytest.fixture(scope="module", params=FABRICS)
def fabric(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, DeviceConfig]:
    name: str = request.param
    if name.startswith("example"):
        return _example(name == "example-eos")
    return _mlag(tmp_path_factory.mktemp(name), name.split("-")[1])


@pytest.fixture(scope="module")
def example() -> dict[str, DeviceConfig]:
    return _example(False)


# --- the tests -----------------------------------------------------------------------------------------------------

def test_every_switch_text_is_its_record_laid_out(fabric: dict[str, DeviceConfig]) -> None:
    ix = build_index(fabric)
    kinds = set()
    for dev in fabric.values():
        want = state_text(record(dev, ix))
        assert device_state_text(dev, ix) == want, dev.hostname
        assert device_state(dev, ix) == orjson.loads(want)
        kinds |= {r["kind"] for r in orjson.loads(want)["routes"]}
    assert "peer-loopback" in kinds  # the fabrics have routes: the comparison covers them


def test_every_route_kind_and_mlag_is_covered(example: dict[str, DeviceConfig], tmp_path: Path) -> None:
    ix = build_index(example)
    kinds = {r["kind"] for d in example.values() for r in record(d, ix)["routes"]}
    assert {"peer-loopback", "peer-rail-prefix", "remote-segment"} <= kinds
    mlag = _mlag(tmp_path, "sonic")
    mix = build_index(mlag)
    neighbors = [n for d in mlag.values() for n in record(d, mix)["bgp"]["neighbors"]]
    assert {"ibgp", "ebgp"} <= {n["type"] for n in neighbors}


def test_sessions_file_matches_the_plain_way(fabric: dict[str, DeviceConfig]) -> None:
    ix = build_index(fabric)
    got = expected_from(sessions_view(fabric), ports_view(fabric), ix.ends)["expected/bgp_sessions.csv"]
    assert got == sessions_csv(fabric, ix)


def test_an_address_that_needs_escaping_is_escaped(example: dict[str, DeviceConfig]) -> None:
    # an interface address and a session's local address with a quote, a backslash and a non-ASCII letter: written
    # through orjson (never by a valid inventory; the item writers must still write valid, exact JSON)
    dev = example[RAIL]
    odd = 'x"y\\zé'
    first = next(i for i in dev.interfaces if i.ipv4)
    interfaces = tuple(dataclasses.replace(i, ipv4=odd) if i is first else i for i in dev.interfaces)
    group = dev.bgp.peer_groups[0]
    neighbor = dataclasses.replace(group.neighbors[0], local_ip=odd + "2")
    groups = (dataclasses.replace(group, neighbors=(neighbor, *group.neighbors[1:])), *dev.bgp.peer_groups[1:])
    changed = dataclasses.replace(dev, interfaces=interfaces, bgp=dataclasses.replace(dev.bgp, peer_groups=groups))
    ix = build_index({**example, RAIL: changed})  # the index of the same models, as a render builds it
    text = device_state_text(changed, ix)
    assert text == state_text(record(changed, ix))
    st = orjson.loads(text)
    assert [i["ipv4"] for i in st["interfaces"] if i["name"] == first.name] == [odd]
    assert odd + "2" in {n["local_address"] for n in st["bgp"]["neighbors"]}


def test_index_tables_by_hand(example: dict[str, DeviceConfig]) -> None:
    ix = build_index(example)
    assert ix.pod_rail_switches_by_rail[(1, 0)] == ("p1-s1-rail0", RAIL)
    assert ix.pod_rail_switches_by_rail[(1, 4)] == ("p1-s1-rail4", RAIL)
    assert ix.heard_by[RAIL] == frozenset({"p1-spine1", "p1-spine2", "p1-spine3", "p1-spine4"})
    assert ix.sessions[RAIL] == {"p1-spine1": 4, "p1-spine2": 4, "p1-spine3": 4, "p1-spine4": 4}
    # the session to 10.4.8.0 (uplink 0): its owners at its place in the model's order
    order = [n.ip for g in example[RAIL].bgp.peer_groups for n in g.neighbors]
    at = order.index("10.4.8.0")
    peers, locals_ = ix.ends[RAIL]
    assert peers[at] == ("p1-spine1", "Ethernet128")
    assert locals_[at] == (RAIL, "Ethernet33/1")
    assert ix.prefix_order["172.16.8.0/24"] == ((172 << 24) + (16 << 16) + (8 << 8), 24)


def test_a_session_address_changes_the_digests_of_the_parts_that_show_it(example: dict[str, DeviceConfig]) -> None:
    # expected/bgp_sessions.csv and every state file read the index's session owners (FabricIndex.ends): a change
    # of one session's local address (what ends is looked up by) must change those parts' digests
    r = run(EXAMPLE)
    assert r.inventory and r.topology and r.plan

    def digests(devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
        src = Sources(r.inventory, r.topology, r.plan, devices)  # type: ignore[arg-type]
        return {p.key: p.digest for p in artifact_parts(src) if p.artifact in ("expected", "state")}

    before = digests(example)
    dev = example[RAIL]
    group = dev.bgp.peer_groups[0]
    neighbor = dataclasses.replace(group.neighbors[0], local_ip="10.4.8.99")
    groups = (dataclasses.replace(group, neighbors=(neighbor, *group.neighbors[1:])), *dev.bgp.peer_groups[1:])
    after = digests({**example, RAIL: dataclasses.replace(dev, bgp=dataclasses.replace(dev.bgp, peer_groups=groups))})
    assert before.keys() == after.keys()
    assert before["expected"] != after["expected"]
    assert before["state:p1-spine1"] != after["state:p1-spine1"]  # another switch's file names this session's end
