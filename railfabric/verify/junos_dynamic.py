"""Junos auto-discovered BGP peers (routing.addressing: unnumbered; the forms and their sources are in
railfabric/platforms/junos.py, "BGP unnumbered") read back from junos.conf as interface neighbours.

A group's `dynamic-neighbor D { peer-auto-discovery { family inet6 { ipv6-nd; } interface X.0; ... } }` is one
unnumbered session per listed unit, keyed by its interface X (unit 0 is where railfabric puts a port's or ae's
addresses), as SONiC, NVUE and EOS interface neighbours are. The session's peer AS is the group's `peer-as N`, or
its `peer-as-list L` with `policy-options as-list L members <entry> | [ <entry> ... ]` (an entry N or first-last):
the peers' ASNs are accepted when they fall in an entry (Neighbor.accepts). Its key is the dynamic-neighbor block's
(`authentication-key`, or `authentication-algorithm ao` with `authentication-key-chain`: Juniper's interface-scoped
TCP authentication); a key at the group of a dynamic neighbour is a failure (Junos refuses to commit it). What such
a session needs besides its `interface` line is a reader failure when absent: `ipv6-nd` under the dynamic neighbour
(the peer is found by IPv6 neighbour discovery), `family inet unicast extended-nexthop` in the group (IPv4 routes
over an IPv6 next hop, RFC 8950), and for each unit `protocols router-advertisement interface X.0` and `family
inet6` on X unit 0 (the link-local address to peer from).
"""

from __future__ import annotations

from collections.abc import Callable

from railfabric.verify.junos_tree import Node
from railfabric.verify.model import Failure, Neighbor, ObservedDevice

Range = tuple[int, int]
Key = tuple[str, str]


def as_lists(tree: Node) -> dict[str, tuple[Range, ...]]:
    """`policy-options as-list NAME members ...` → its entries as (first, last); an unreadable entry is left out."""
    out: dict[str, tuple[Range, ...]] = {}
    for a in (tree.find("policy-options") or Node(())).all("as-list"):
        if len(a.words) < 4 or a.words[2] != "members":
            continue
        out[a.words[1]] = tuple(r for r in map(_entry, a.words[3:]) if r is not None)
    return out


def _entry(text: str) -> Range | None:
    first, dash, last = text.partition("-")
    if not first.isdigit() or (dash and not last.isdigit()):
        return None
    return (int(first), int(last)) if dash else (int(first), int(first))


def read_dynamic(dev: ObservedDevice, tree: Node, g: Node, template: Neighbor, lists: dict[str, tuple[Range, ...]],
                 key_of: Callable[[Node], Key | None]) -> None:
    """The dynamic neighbours of group `g` into dev.bgp.neighbors, each like `template` (the group's remote-as, BFD,
    timers and key) named by its interface, with the key of its dynamic-neighbor block when it has one (`key_of`:
    the reader's key of a group or block); the statements they need, as failures when absent."""
    units = [(dn, i.words[1]) for dn in g.all("dynamic-neighbor") if len(dn.words) == 2
             for i in (dn.find("peer-auto-discovery") or Node(())).all("interface") if len(i.words) == 2]
    if not units:
        return
    listed = g.value("peer-as-list")
    ranges = lists.get(listed, ()) if listed else ()
    file = dev.files["config"]
    group = g.words[1]
    if template.key is not None:
        dev.failures.append(Failure("bgp", dev.name, f"group {group}", "the session key under its dynamic-neighbor "
                                    "(Junos refuses a key at the group of auto-discovered peers)",
                                    f"{template.key[0]} key at the group", file))
    if listed and listed not in lists:
        dev.failures.append(Failure("bgp", dev.name, f"group {group} peer-as-list {listed}", f"policy-options as-list "
                                    f"{listed} (the peer ASNs the group accepts)", "absent", file))
    if not g.find("family inet", "unicast", "extended-nexthop"):
        dev.failures.append(Failure("bgp", dev.name, f"group {group}", "family inet unicast extended-nexthop (IPv4 "
                                    "routes over the unnumbered sessions' IPv6 next hops)", "absent", file))
    for name in dict.fromkeys(block.words[1] for block, _unit in units):
        node = g.find(f"dynamic-neighbor {name}", "peer-auto-discovery", "family inet6")
        if node is None or not node.has("ipv6-nd"):
            dev.failures.append(Failure("bgp", dev.name, f"group {group} dynamic-neighbor {name}",
                                        "peer-auto-discovery family inet6 ipv6-nd (peers found by IPv6 neighbour "
                                        "discovery)", "absent", file))
    advertised = {i.words[1] for i in (tree.find("protocols", "router-advertisement") or Node(())).all("interface")
                  if len(i.words) == 2}
    interfaces = tree.find("interfaces") or Node(())
    for dn, unit in units:
        name = unit.removesuffix(".0")
        dev.bgp.neighbors[name] = Neighbor(name, template.remote_as, group, template.bfd, interface=True,
                                           bfd_timers=template.bfd_timers, key=key_of(dn) or template.key,
                                           as_ranges=ranges if listed else ())
        if unit not in advertised:
            dev.failures.append(Failure("bgp", dev.name, name, f"protocols router-advertisement interface {unit} (IPv6 "
                                        "neighbour discovery of the unnumbered peer)", "absent", file))
        port = interfaces.find(name, "unit 0") if unit.endswith(".0") else None
        if port is None or port.find("family inet6") is None:
            dev.failures.append(Failure("bgp", dev.name, name, f"family inet6 on {unit} (the unnumbered session's "
                                        "link-local address)", "absent", file))
