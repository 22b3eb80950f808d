"""FRR (frr.conf, templates/sonic/frr.conf.j2): the lines of a peer group's neighbors, formatted in Python.

A spine or super-spine has 64-128 neighbors; the three lines of each, written by a template loop, were most of the
time of rendering frr.conf. The template prints this text where its loop was (the `frr_neighbors` filter, declared
in railfabric/platforms/sonic.py). Formatting only: every value is the PeerGroup's (railfabric/device/routing.py).

Unnumbered sessions (routing.addressing: unnumbered, RFC 8950): `neighbor <ifname> interface peer-group <G>` (FRR user
guide, BGP, "neighbor <interface> interface ..." / "Peering over IPv6 link-local": the peer's link-local address is
learnt from its router advertisements, which bgpd starts on the interface itself; the extended next-hop capability
is negotiated automatically on link-local sessions, so `capability extended-nexthop` is not written), checked by the
FRR lab (railfabric/lab/, tests/test_lab_unnumbered.py) with FRR 8.4/10.x's own parser and sessions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: the platform registry imports this module's platform before railfabric.device exists
    from railfabric.device.routing import PeerGroup


def neighbor_lines(g: PeerGroup) -> str:
    """Each neighbor of `g`, by the group's order: its remote-as when the group has none, its peer group and its
    description, one line each (one leading space: inside `router bgp`), each line ending with a newline. An
    unnumbered neighbor (Neighbor.interface) is its interface: `neighbor <if> interface peer-group <G>`, then its
    remote-as when the group has none (the order FRR's own `show running-config` writes them in)."""
    name = g.name
    if g.neighbors and g.neighbors[0].interface:
        remote = g.remote_as is None
        return "".join([f" neighbor {n.interface} interface peer-group {name}\n"
                        + (f" neighbor {n.interface} remote-as {n.remote_as}\n" if remote else "")
                        + f" neighbor {n.interface} description {n.description}\n" for n in g.neighbors])
    if g.remote_as is None:
        return "".join([f" neighbor {n.ip} remote-as {n.remote_as}\n neighbor {n.ip} peer-group {name}\n"
                        f" neighbor {n.ip} description {n.description}\n" for n in g.neighbors])
    return "".join([f" neighbor {n.ip} peer-group {name}\n neighbor {n.ip} description {n.description}\n"
                    for n in g.neighbors])
