"""SONiC MCLAG (iccpd) in one config_db.json: the domain, its port-channels, the peer link and the shared gateway,
read into the neutral records, and the promises one file can keep on its own.

Meanings follow sonic-buildimage sonic-mclag.yang and the MC-LAG HLDs (sonic-net/SONiC doc/mclag/):
- MCLAG_DOMAIN|<id> {source_ip, peer_ip, peer_link}: the ICCP session between the pair (at most one domain);
- MCLAG_INTERFACE|<id>|<port-channel>: an MCLAG host bond. ICCP pairs the bonds of the two switches by name, so the
  port-channel number is the bond's MLAG id;
- MCLAG_UNIQUE_IP|Vlan<n>: that SVI keeps its own address and MAC on each switch. Every other SVI of a VLAN that an
  MCLAG bond or the peer link belongs to is a shared gateway: the standby takes the active's MAC on it (iccpd
  update_vlan_if_mac_on_standby), so it is `virtual` in the records. A VLAN_INTERFACE with
  static_anycast_gateway "true" (SAG|GLOBAL gateway_mac) is a shared gateway as well.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from railfabric.verify.model import Failure, Interface, MlagObserved, ObservedDevice
from railfabric.verify.sonic_tables import split_key, table


def _number(name: str) -> int | None:
    digits = name.removeprefix("PortChannel")
    return int(digits) if digits.isdigit() else None


def read_svis(db: dict[str, Any], dev: ObservedDevice) -> None:
    """Each VLAN SVI with an address as an interface `Vlan<n>` too, as sessions name it (expected/bgp_sessions.csv)."""
    for vid, vlan in dev.vlans.items():
        if vlan.svi and f"Vlan{vid}" not in dev.interfaces:
            dev.interfaces[f"Vlan{vid}"] = Interface(f"Vlan{vid}", True, None, vlan.mtu, mode="routed",
                                                     ipv4=list(vlan.svi))


def read_mclag(db: dict[str, Any], dev: ObservedDevice) -> None:
    """MCLAG ids on the bonds, trunks, shared gateways and ObservedDevice.mlag from the MCLAG tables."""
    bonds = {split_key(k)[1] for k in table(db, "MCLAG_INTERFACE")}
    for name in bonds:
        if name in dev.interfaces:
            dev.interfaces[name].mlag = _number(name)
    domains = table(db, "MCLAG_DOMAIN")
    peer_link = next((str(e.get("peer_link", "")) or None for e in domains.values()), None)
    unique = set(table(db, "MCLAG_UNIQUE_IP"))
    sag = "gateway_mac" in table(db, "SAG").get("GLOBAL", {})
    for vid, vlan in dev.vlans.items():
        name = f"Vlan{vid}"
        anycast = sag and str(table(db, "VLAN_INTERFACE").get(name, {}).get("static_anycast_gateway")) == "true"
        shared = bool(domains) and name not in unique and (
            any(m in bonds for m in vlan.members) or (peer_link is not None and peer_link in vlan.tagged))
        vlan.virtual = bool(vlan.svi) and (anycast or shared)
    if not domains:
        return
    key, entry = sorted(domains.items())[0]
    local = str(entry.get("source_ip", "")) or None
    holder = next((vid for vid, v in dev.vlans.items() if any(a.split("/")[0] == local for a in v.svi)), None)
    dev.mlag = MlagObserved(domain=key, local_ip=local, peer_ip=str(entry.get("peer_ip", "")) or None,
                            peer_link=peer_link, vlan=holder,
                            virtual_mac=table(db, "SAG").get("GLOBAL", {}).get("gateway_mac") if sag else None)


def check_mclag(db: dict[str, Any], dev: ObservedDevice, file: str) -> list[Failure]:
    """References between the MCLAG tables resolve, and what one switch's file must hold for MCLAG to work."""
    out: list[Failure] = []

    def fail(check: str, subject: str, expected: str, found: str) -> None:
        out.append(Failure(check, dev.name, subject, expected, found, file))

    domains = table(db, "MCLAG_DOMAIN")
    channels = table(db, "PORTCHANNEL")
    for key in table(db, "MCLAG_INTERFACE"):
        domain, name = split_key(key)
        if domain not in domains:
            fail("leafref", f"MCLAG_INTERFACE|{key}", f"domain {domain} defined in MCLAG_DOMAIN", "no such entry")
        if name not in channels:
            fail("leafref", f"MCLAG_INTERFACE|{key}", f"port-channel {name} defined in PORTCHANNEL", "no such entry")
    for key in table(db, "MCLAG_UNIQUE_IP"):
        if key not in table(db, "VLAN"):
            fail("leafref", f"MCLAG_UNIQUE_IP|{key}", f"VLAN {key} defined in VLAN", "no such entry")
    if table(db, "MCLAG_INTERFACE") and not domains:
        fail("mclag", "MCLAG_INTERFACE", "an MCLAG_DOMAIN for the MCLAG port-channels", "none")
    if len(domains) > 1:
        fail("mclag", "MCLAG_DOMAIN", "one domain (sonic-mclag.yang max-elements 1)", f"{len(domains)} domains")
    for key, entry in sorted(domains.items()):
        _domain(dev, db, f"MCLAG_DOMAIN|{key}", entry, fail)
    bonds = {split_key(k)[1] for k in table(db, "MCLAG_INTERFACE")}
    peer_link = dev.mlag.peer_link if dev.mlag is not None else None
    for vid, vlan in sorted(dev.vlans.items()):
        if peer_link and any(m in bonds for m in vlan.members) and peer_link not in vlan.tagged:
            fail("mclag", f"Vlan{vid}", f"the peer link {peer_link} a tagged member (an MCLAG bond is in the VLAN: "
                                        "its traffic crosses the peer link when a host link fails)", "not a member")
    return out


Fail = Callable[[str, str, str, str], None]  # (check, subject, expected, found)


def _domain(dev: ObservedDevice, db: dict[str, Any], where: str, entry: dict[str, Any], fail: Fail) -> None:
    link = str(entry.get("peer_link", ""))
    if not link:
        fail("mclag", where, "a peer_link (an L2 MCLAG needs one)", "none")
    elif link not in table(db, "PORT") and link not in table(db, "PORTCHANNEL"):
        fail("leafref", where, f"peer_link {link} defined in PORT or PORTCHANNEL", "no such port")
    source = str(entry.get("source_ip", ""))
    if not source:
        fail("mclag", where, "a source_ip", "none")
    elif source not in dev.addresses():
        fail("mclag", where, f"source_ip {source} an address of the switch", "not configured on any interface")
    elif dev.mlag is not None and dev.mlag.vlan is not None and f"Vlan{dev.mlag.vlan}" not in table(
            db, "MCLAG_UNIQUE_IP"):
        fail("mclag", where, f"Vlan{dev.mlag.vlan} (holds source_ip {source}) in MCLAG_UNIQUE_IP, so it keeps its "
                             "own MAC on the standby", "not listed")
    if not str(entry.get("peer_ip", "")):
        fail("mclag", where, "a peer_ip", "none")
    elif str(entry.get("peer_ip")) == source:
        fail("mclag", where, f"peer_ip other than source_ip {source}", str(entry.get("peer_ip")))
