"""expected/anta/: ANTA (Arista Network Test Automation) catalogs and inventory for the EOS switches.

Targets ANTA 1.10 (test names and input models of anta 1.10.0, anta/tests/*.py and anta/input_models/). Each EOS
switch gets its own catalog, expected/anta/catalogs/<device>.yml, every test of it tagged with the device's name
(ANTA tags every device with its own name), plus one inventory, expected/anta/inventory.yml, with each switch's
management address and tags (its name, role, pod<p>, pod<p>-segment<s>). Why one catalog per device and not one
for the fabric: at 5,000+ switches a fabric-wide catalog is tens of megabytes that every run parses whole and that
changes with any device; per device, the rollout verifies the switch it just pushed
(`anta nrfu -i inventory.yml -c catalogs/<device>.yml --device <device>`), a change to one switch rewrites its own
file only (incremental rendering keys files by device), and a wider run merges the catalogs it wants
(AntaCatalog.merge_catalogs): the name tags keep each test on its own switch.

Every entry is a translation of the device's expected state (railfabric/outputs/state.py): no decision is made here.
Routes: VerifyBGPRouteECMP reads `routes` (IPv4) only. A dual-stack state's `routes_v6` is not translated: ANTA 1.10's
BgpRoute input takes IPv4 prefixes only ("Only IPv4 prefixes are supported for now", anta/input_models/routing/
bgp.py; the test runs `show ip route vrf all bgp`): an EOS switch of a dual-stack fabric (rendered over unnumbered
sessions only) gets no ANTA test of its IPv6 routes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from railfabric.platforms import PLATFORMS

from .state_items import State

ANTA_VERSION = "1.10"
ANTA_DIR = "expected/anta"
HEADER = ("# railfabric ANTA catalog for {device}: targets ANTA {version} (anta 1.10.0 test names and input models)\n"
          "# generated from the plan (expected/state/{device}.json); do not edit\n")
INVENTORY_HEADER = ("# railfabric ANTA inventory of the EOS switches: targets ANTA {version}; generated, do not edit\n"
                    "# credentials come from the ANTA command line or environment (ANTA_USERNAME, ANTA_PASSWORD)\n")

Tests = dict[str, list[dict[str, Any]]]

def _flow(value: object) -> str:
    """A value as a JSON flow node: JSON is YAML flow syntax, and orjson writes it in microseconds."""
    return orjson.dumps(value).decode()


def _dump_tests(tests: Tests) -> str:
    """Block YAML for the catalog's shape (module → list of {test: inputs}), each input's list items as flow nodes:
    PyYAML's emitter takes a minute for 5,000 catalogs, this a second; anta's loader reads both alike (tested)."""
    out: list[str] = []
    for module, entries in tests.items():
        out.append(f"{module}:")
        for entry in entries:
            for test, inputs in entry.items():
                out.append(f"- {test}:")
                for key, value in inputs.items():
                    if isinstance(value, list) and value:
                        out.append(f"    {key}:")
                        out.extend(f"    - {_flow(v)}" for v in value)
                    else:
                        out.append(f"    {key}: {_flow(value)}")
    return "\n".join(out) + "\n"


def catalog_path(device: str) -> str:
    return f"{ANTA_DIR}/catalogs/{device}.yml"


def _svi(vlan: int) -> str:
    return f"Vlan{vlan}"


def _interface_tests(st: State, tag: dict[str, Any]) -> list[dict[str, Any]]:
    mtu = st["mtu"]
    status = [{"name": i["name"], "status": "up" if i["admin"] == "up" else "adminDown"} for i in st["interfaces"]]
    status += [{"name": pc["name"], "status": "up"} for pc in st["port_channels"]]
    status += [{"name": _svi(v["id"]), "status": "up"} for v in st["vlans"]]
    if st.get("mlag"):
        status.append({"name": st["mlag"]["interface"], "status": "up"})
    status.append({"name": st["loopback"]["interface"], "status": "up"})
    wired = {n["interface"] for n in st["lldp_neighbors"]}
    cabled = [i for i in st["interfaces"] if i["name"] in wired]
    speeds = [{"name": i["name"], "speed": i["speed_gbps"], "lanes": i["lanes"]} for i in cabled]
    routed = [(i["name"], i["mtu"]) for i in st["interfaces"] if i["mode"] == "routed"]
    routed += [(pc["name"], pc["mtu"]) for pc in st["port_channels"] if pc["mode"] == "routed"]
    routed += [(_svi(v["id"]), v["mtu"]) for v in st["vlans"]]
    bridged = [(i["name"], i["mtu"]) for i in st["interfaces"] if i["mode"] in ("access", "unused")]
    bridged += [(pc["name"], pc["mtu"]) for pc in st["port_channels"] if pc["mode"] != "routed"]
    addresses = [{"name": i["name"], "primary_ip": i["ipv4"]} for i in st["interfaces"] if "ipv4" in i]
    addresses += [{"name": pc["name"], "primary_ip": pc["ipv4"]} for pc in st["port_channels"] if "ipv4" in pc]
    addresses += [{"name": _svi(v["id"]), "primary_ip": v["gateway"]} for v in st["vlans"]
                  if not v["virtual_gateway"]]
    addresses.append({"name": st["loopback"]["interface"], "primary_ip": st["loopback"]["address"]})
    tests: list[dict[str, Any]] = [
        {"VerifyInterfacesStatus": {"interfaces": status, **tag}},
        {"VerifyL3MTU": {"mtu": mtu, "specific_mtu": [{n: m} for n, m in routed if m != mtu], **tag}},
        {"VerifyL2MTU": {"mtu": mtu, "specific_mtu": [{n: m} for n, m in bridged if m != mtu], **tag}},
        {"VerifyInterfaceIPv4": {"interfaces": addresses, **tag}},
    ]
    if speeds:
        tests.append({"VerifyInterfacesSpeed": {"interfaces": speeds, **tag}})
    if st["port_channels"]:
        tests.append({"VerifyPortChannels": {"interfaces": [pc["name"] for pc in st["port_channels"]], **tag}})
    return tests


def _bgp_tests(st: State, tag: dict[str, Any]) -> list[dict[str, Any]]:
    neighbors = st["bgp"]["neighbors"]
    if not neighbors:
        return []
    vrf = st["bgp"]["vrf"]
    numbered = [n["address"] for n in neighbors if n["address"]]
    # an unnumbered peer (routing.addressing: unnumbered) has no address: ANTA's RFC 5549 form names its interface
    # (BgpPeer.interface, anta 1.10 input_models/routing/bgp.py); VerifyBGPSpecificPeers takes addresses only, so
    # those sessions are checked by VerifyBGPPeerSession
    unnumbered = [n["interface"] for n in neighbors if not n["address"]]
    tests: list[dict[str, Any]] = []
    if numbered:
        tests.append({"VerifyBGPSpecificPeers": {"address_families": [
            {"afi": "ipv4", "safi": "unicast", "vrf": "default", "peers": numbered}], **tag}})
    if unnumbered:
        tests.append({"VerifyBGPPeerSession": {"bgp_peers": [{"interface": i, "vrf": vrf} for i in unnumbered],
                                               **tag}})
    tests.append({"VerifyBGPPeerGroup": {"bgp_peers": [
        {**({"peer_address": n["address"]} if n["address"] else {"interface": n["interface"]}), "vrf": vrf,
         "peer_group": n["peer_group"]} for n in neighbors], **tag}})
    if st["routes"]:
        tests.append({"VerifyBGPRouteECMP": {"route_entries": [
            {"prefix": r["prefix"], "vrf": st["bgp"]["vrf"], "ecmp_count": r["next_hops"]} for r in st["routes"]],
            **tag}})
    return tests


def _bfd_intervals(n: dict[str, Any], st: State) -> dict[str, Any]:
    """One peer of ANTA's VerifyBFDPeersIntervals: tx/rx interval and multiplier in ms as planned for its tier, and the
    detection time (interval × multiplier)."""
    t = n["bfd_timers"]
    return {"peer_address": n["address"], "vrf": st["bgp"]["vrf"], "tx_interval": t["interval_ms"],
            "rx_interval": t["interval_ms"], "multiplier": t["multiplier"],
            "detection_time": t["interval_ms"] * t["multiplier"]}


def device_catalog(st: State) -> Tests:
    """The ANTA catalog of one EOS switch: module → tests, every test filtered to the device's own tag."""
    tag = {"filters": {"tags": [st["device"]]}}
    tests: Tests = {}
    fabric_lldp = [n for n in st["lldp_neighbors"] if n["role"] != "host"]
    if fabric_lldp:  # host NICs: their LLDP agent is the host's (often off; lldpd sends the MAC as port id)
        tests["anta.tests.connectivity"] = [{"VerifyLLDPNeighbors": {"require_fqdn": False, "neighbors": [
            {"port": n["interface"], "neighbor_device": n["neighbor"], "neighbor_port": n["neighbor_interface"]}
            for n in fabric_lldp], **tag}}]
    tests["anta.tests.interfaces"] = _interface_tests(st, tag)
    # BFD peers by address only: ANTA's BFDPeer needs one, and an unnumbered session's is a link-local address the
    # plan does not know (docs/expected-state.md)
    bfd = [n for n in st["bgp"]["neighbors"] if n["bfd"] and n["address"]]
    if bfd:
        tests["anta.tests.bfd"] = [{"VerifyBFDSpecificPeers": {"bfd_peers": [
            {"peer_address": n["address"], "vrf": st["bgp"]["vrf"]} for n in bfd], **tag}}]
        timed = [n for n in bfd if n["bfd_timers"]]
        if timed:  # the operational timers: both ends run the tier's interval, so they negotiate to it
            tests["anta.tests.bfd"].append({"VerifyBFDPeersIntervals": {"bfd_peers": [_bfd_intervals(n, st)
                                                                                      for n in timed], **tag}})
    if st.get("mlag"):
        tests["anta.tests.mlag"] = [{"VerifyMlagStatus": dict(tag)}]
    bgp = _bgp_tests(st, tag)
    if bgp:
        tests["anta.tests.routing.bgp"] = bgp
    vlans = [v["id"] for v in st["vlans"]] + ([st["mlag"]["vlan"]] if st.get("mlag") else [])
    if vlans:
        tests["anta.tests.vlan"] = [{"VerifyVlanStatus": {"vlans": [{"vlan_id": v, "status": "active"}
                                                                    for v in vlans], **tag}}]
    return dict(sorted(tests.items()))


def catalog_text(st: State) -> str:
    return HEADER.format(device=st["device"], version=ANTA_VERSION) + _dump_tests(device_catalog(st))


def inventory_text(states: Iterable[State]) -> str:
    """The ANTA inventory of the EOS switches: management address, name, tags (role, pod, pod-segment)."""
    hosts = []
    for st in sorted(states, key=lambda s: s["device"]):
        tags = {st["role"]}
        if st["pod"] is not None:
            tags.add(f"pod{st['pod']}")
            if st["segment"] is not None:
                tags.add(f"pod{st['pod']}-segment{st['segment']}")
        hosts.append({"name": st["device"], "host": st["management"].split("/")[0], "tags": sorted(tags)})
    return (INVENTORY_HEADER.format(version=ANTA_VERSION) + "anta_inventory:\n  hosts:\n"
            + "".join(f"  - {_flow(h)}\n" for h in hosts))


def anta_files(states: Iterable[State]) -> dict[str, str]:
    """Every EOS switch's catalog and the inventory (none of either when the fabric has no EOS switch)."""
    eos = [st for st in states if PLATFORMS[st["platform"]].anta]
    if not eos:
        return {}
    out = {catalog_path(st["device"]): catalog_text(st) for st in eos}
    out.update(anta_inventory_files(eos))
    return out


def anta_inventory_files(hosts: list[State]) -> dict[str, str]:
    """expected/anta/inventory.yml from the EOS switches' device, role, pod, segment and management (none without
    an EOS switch)."""
    return {f"{ANTA_DIR}/inventory.yml": inventory_text(hosts)} if hosts else {}
