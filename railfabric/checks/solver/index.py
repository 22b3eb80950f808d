"""One index of the cabled links, built once per run and shared by the rules and the solver's analyses.

At 131,072 GPUs a fabric has about 400,000 links and 660,000 cabled switch ports; each analysis used to walk them
with its own loop. The index holds the same facts as flat columns (built with C-level `map`, each on first use), so
an analysis counts what it needs per distinct value (a switch, a port shape) with `Counter`/`set` over `zip`s of
columns instead of a Python loop per link. The per-kind columns (host links, up links) are in topology order; the
`end_*` columns (every switch end) are grouped by kind, not in topology order: an analysis that needs link order
for a tie-break finds it in topo.links itself. The index holds only what it copied from the topology: build it from
the topology the checks read, after expansion, and never keep it across topologies.
"""

from __future__ import annotations

from functools import cached_property
from itertools import compress, repeat
from operator import attrgetter, is_, itemgetter, not_

from railfabric.topology import End, Link, LinkRole, Topology

_A, _Z, _ROLE = attrgetter("a"), attrgetter("z"), attrgetter("role")
_DEV, _PORT, _LANE, _SPEED = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(3)


class LinkIndex:
    """The links of one topology as columns; each column is built on first use."""

    def __init__(self, topo: Topology) -> None:
        self.links = topo.links
        self.peer_links = topo.peer_links

    @cached_property
    def _is_host(self) -> list[bool]:
        return list(map(is_, map(_ROLE, self.links), repeat(LinkRole.HOST)))

    @cached_property
    def host_links(self) -> list[Link]:
        """topo.links of role host, in topology order."""
        return list(compress(self.links, self._is_host))

    @cached_property
    def up_links(self) -> list[Link]:
        """topo.links of the other roles (fabric, core), in topology order."""
        return list(compress(self.links, map(not_, self._is_host)))

    @cached_property
    def _ends(self) -> tuple[list[End], list[End], list[End], list[End], list[End]]:
        """The switch ends by kind: z of host links, a and z of up links, a and z of peer links."""
        host, up, peer = self.host_links, self.up_links, self.peer_links
        return (list(map(_Z, host)), list(map(_A, up)), list(map(_Z, up)), list(map(_A, peer)),
                list(map(_Z, peer)))

    def _column(self, field: itemgetter) -> list:
        out: list = []
        for ends in self._ends:
            out += map(field, ends)
        return out

    # Every cabled switch port end of topo.links and topo.peer_links (the switch end of a host link, both ends of
    # any other link) as columns, NOT in topology order: the switch ends of the host links, then the lower and the
    # upper ends of the other links, then the peer links' a and z ends.
    @cached_property
    def end_devs(self) -> list[str]:
        return self.host_z + self.up_a + self.up_z + self._column_of(3, _DEV) + self._column_of(4, _DEV)

    @cached_property
    def end_ports(self) -> list[int]:
        return self._column(_PORT)

    @cached_property
    def end_lanes(self) -> list[int]:
        return self._column(_LANE)

    @cached_property
    def end_speeds(self) -> list[int]:
        return (self.host_z_speed + self.up_a_speed + self.up_z_speed + self._column_of(3, _SPEED)
                + self._column_of(4, _SPEED))

    @cached_property
    def end_roles(self) -> list[LinkRole]:
        """The role of the link of each end."""
        up = list(map(_ROLE, self.up_links))
        peer = list(map(_ROLE, self.peer_links))
        return [LinkRole.HOST] * len(self.host_links) + up + up + peer + peer

    def _column_of(self, kind: int, field: itemgetter) -> list:
        return list(map(field, self._ends[kind]))

    @cached_property
    def host_a(self) -> list[str]:
        """host_links: the host."""
        return list(map(_DEV, map(_A, self.host_links)))

    @cached_property
    def host_a_speed(self) -> list[int]:
        """host_links: the speed at the host end."""
        return list(map(_SPEED, map(_A, self.host_links)))

    @cached_property
    def host_z(self) -> list[str]:
        """host_links: the switch."""
        return self._column_of(0, _DEV)

    @cached_property
    def host_z_speed(self) -> list[int]:
        """host_links: the speed at the switch end."""
        return self._column_of(0, _SPEED)

    @cached_property
    def up_a(self) -> list[str]:
        """up_links: the lower switch."""
        return self._column_of(1, _DEV)

    @cached_property
    def up_a_speed(self) -> list[int]:
        return self._column_of(1, _SPEED)

    @cached_property
    def up_z(self) -> list[str]:
        """up_links: the upper switch."""
        return self._column_of(2, _DEV)

    @cached_property
    def up_z_speed(self) -> list[int]:
        return self._column_of(2, _SPEED)


def link_index(topo: Topology) -> LinkIndex:
    return LinkIndex(topo)
