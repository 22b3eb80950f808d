"""FRR (frr.conf, templates/sonic/frr.conf.j2): the lines of a peer group's neighbors, formatted in Python.

A spine or super-spine has 64-128 neighbors; the three lines of each, written by a template loop, were most of the
time of rendering frr.conf. The template prints this text where its loop was (the `frr_neighbors` filter, declared
in railfabric/platforms/sonic.py). Formatting only: every value is the PeerGroup's (railfabric/device/routing.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: the platform registry imports this module's platform before railfabric.device exists
    from railfabric.device.routing import PeerGroup


def neighbor_lines(g: PeerGroup) -> str:
    """Each neighbor of `g`, by the group's order: its remote-as when the group has none, its peer group and its
    description, one line each (one leading space: inside `router bgp`), each line ending with a newline."""
    name = g.name
    if g.remote_as is None:
        return "".join([f" neighbor {n.ip} remote-as {n.remote_as}\n neighbor {n.ip} peer-group {name}\n"
                        f" neighbor {n.ip} description {n.description}\n" for n in g.neighbors])
    return "".join([f" neighbor {n.ip} peer-group {name}\n neighbor {n.ip} description {n.description}\n"
                    for n in g.neighbors])
