"""One index of the cabled links, built once per run and shared by the rules and the solver's analyses.

At 131,072 GPUs a fabric has about 400,000 links and 660,000 cabled switch ports; each analysis used to walk them
with its own loop. The index holds the same facts as flat columns in topology order (built with C-level `map`,
`zip` and `Counter`), so an analysis counts what it needs per distinct value (a switch, a switch pair, a port
shape) instead of per link. It holds only what it copied from the topology: build it from the topology the checks
read, after expansion, and never keep it across topologies.
"""

from __future__ import annotations

from functools import cached_property
from itertools import chain, compress, repeat
from operator import attrgetter, is_, is_not, itemgetter, not_

from fabric.topology import End, Link, LinkRole, Topology

_A, _Z, _ROLE = attrgetter("a"), attrgetter("z"), attrgetter("role")
_DEV, _PORT, _LANE, _SPEED = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(3)


class LinkIndex:
    """The links of one topology as columns, each in topology order; each column is built on first use."""

    def __init__(self, topo: Topology) -> None:
        self.links = topo.links
        self.peer_links = topo.peer_links

    @cached_property
    def _is_host(self) -> list[bool]:
        return list(map(is_, map(_ROLE, self.links), repeat(LinkRole.HOST)))

    @cached_property
    def host_links(self) -> list[Link]:
        """topo.links of role host."""
        return list(compress(self.links, self._is_host))

    @cached_property
    def up_links(self) -> list[Link]:
        """topo.links of the other roles (fabric, core)."""
        return list(compress(self.links, map(not_, self._is_host)))

    @cached_property
    def _switch_end(self) -> list[bool]:
        """Per end of every link (a, z, a, z, …): whether it is a switch's (not the host end of a host link)."""
        return list(chain.from_iterable(zip(map(is_not, self._all_roles, repeat(LinkRole.HOST)), repeat(True))))

    @cached_property
    def _all_roles(self) -> list[LinkRole]:
        return list(map(_ROLE, chain(self.links, self.peer_links)))

    @cached_property
    def ends(self) -> list[End]:
        """Every cabled switch port end of topo.links and topo.peer_links: the switch end of a host link, both ends
        of any other link, link by link (a before z)."""
        every = list(chain(self.links, self.peer_links))
        return list(compress(chain.from_iterable(zip(map(_A, every), map(_Z, every), strict=True)), self._switch_end))

    @cached_property
    def end_roles(self) -> list[LinkRole]:
        """The role of the link of each of `ends`."""
        roles = self._all_roles
        return list(compress(chain.from_iterable(zip(roles, roles, strict=True)), self._switch_end))

    @cached_property
    def end_devs(self) -> list[str]:
        return list(map(_DEV, self.ends))

    @cached_property
    def end_ports(self) -> list[int]:
        return list(map(_PORT, self.ends))

    @cached_property
    def end_lanes(self) -> list[int]:
        return list(map(_LANE, self.ends))

    @cached_property
    def end_speeds(self) -> list[int]:
        return list(map(_SPEED, self.ends))

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
        return list(map(_DEV, map(_Z, self.host_links)))

    @cached_property
    def host_z_speed(self) -> list[int]:
        """host_links: the speed at the switch end."""
        return list(map(_SPEED, map(_Z, self.host_links)))

    @cached_property
    def up_a(self) -> list[str]:
        """up_links: the lower switch."""
        return list(map(_DEV, map(_A, self.up_links)))

    @cached_property
    def up_a_speed(self) -> list[int]:
        return list(map(_SPEED, map(_A, self.up_links)))

    @cached_property
    def up_z(self) -> list[str]:
        """up_links: the upper switch."""
        return list(map(_DEV, map(_Z, self.up_links)))

    @cached_property
    def up_z_speed(self) -> list[int]:
        return list(map(_SPEED, map(_Z, self.up_links)))


def link_index(topo: Topology) -> LinkIndex:
    return LinkIndex(topo)
