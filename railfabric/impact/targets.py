"""What is down: the names given to `fabric impact --down` resolved against the topology.

A name is, first match wins:
- a switch: its hostname or its pattern name (the key of `devices:`), e.g. `p1-s1-rail0`, `ss1`;
- a link: its id as in generated/cabling.csv (`p1-s1-rail0>p1-spine1#1`, `p1-s1-gpu001:nic0p1`), or an MLAG peer
  link's id;
- an L3 port-channel or a host bond: its bundle id (the `bundle` column of cabling.csv): every member;
- a switch port `SWITCH:PORT`: `p1-s1-rail0:33` (every lane of a broken-out port) or `p1-s1-rail0:1/2` (one lane),
  the a_port / z_port column of cabling.csv; or `SWITCH:INTERFACE`, the switch's own interface name as its platform
  names it (the a_interface / z_interface column: SONiC `Ethernet256`, EOS `Ethernet33/1`, NVUE `swp33s0`, NX-OS
  `Ethernet1/33`, Junos `et-0/0/32`), from the same naming the device model uses (Platform.end_interface,
  railfabric/platforms/base.py) when the Resolver is given the switch models;
- a host NIC `HOST:nicN`: every port of NIC N (`HOST:nicNpM`, one port, is the link id).
Anything else is refused, all unknown names at once, each with the closest known names.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from railfabric.inventory.intent import SwitchModel
from railfabric.platforms import PLATFORMS
from railfabric.topology import End, Link, Topology


class UnknownNames(ValueError):
    """Names that match no switch, link, port or NIC; `close` holds up to three close matches per name."""

    def __init__(self, names: list[str], close: dict[str, list[str]]) -> None:
        self.names = names
        self.close = close
        parts = []
        for n in names:
            hint = f" (did you mean {', '.join(close[n])}?)" if close.get(n) else ""
            parts.append(f"{n!r}{hint}")
        super().__init__("unknown switch, link, port or NIC: " + "; ".join(parts))


@dataclass(frozen=True)
class Down:
    """The resolved set: whole switches, and links (ids) taken down on their own."""

    switches: frozenset[str] = frozenset()
    links: frozenset[str] = frozenset()
    names: tuple[str, ...] = ()  # as given, deduplicated, in order
    what: dict[str, str] = field(default_factory=dict)  # name as given → what it resolved to (for the text)

    def link_dead(self, link: Link) -> bool:
        return link.id in self.links or link.a.device in self.switches or link.z.device in self.switches


class Resolver:
    """Indexes of the topology's names, built once (a maintenance plan resolves many names)."""

    def __init__(self, topo: Topology, models: Mapping[str, SwitchModel] | None = None) -> None:
        """`models` (the inventory's switch_models): switch ports may then be named by their interface names too."""
        self.topo = topo
        self.models = models
        self.key_to_name = {s.key: n for n, s in topo.switches.items()}
        self.links: dict[str, Link] = {}
        self.bundles: dict[str, list[str]] = defaultdict(list)
        for link in (*topo.links, *topo.peer_links):
            self.links[link.id] = link
            if link.bundle:
                self.bundles[link.bundle].append(link.id)
        self._ports: dict[tuple[str, str], list[str]] | None = None
        self._nics: dict[tuple[str, str], list[str]] | None = None

    @property
    def ports(self) -> dict[tuple[str, str], list[str]]:
        """(switch, port label or port number) → link ids; built when a port is first named."""
        if self._ports is None:
            self._ports = defaultdict(list)
            switches = self.topo.switches
            for link in self.links.values():
                for end in (link.a, link.z):
                    if end.device in switches:
                        self._ports[(end.device, end.label())].append(link.id)
                        if end.lane:
                            self._ports[(end.device, str(end.port))].append(link.id)
                        name = self.interface_of(end.device, end)
                        if name is not None and name != end.label():
                            self._ports[(end.device, name)].append(link.id)
        return self._ports

    def interface_of(self, switch: str, end: End) -> str | None:
        """The platform's interface name of a link end on `switch` (None without the switch models)."""
        if self.models is None:
            return None
        sw = self.topo.switches[switch]
        model = self.models.get(sw.model)
        if model is None or sw.platform not in PLATFORMS:
            return None
        return PLATFORMS[sw.platform].end_interface(end.port, end.lane, end.speed, model.speed, model.serdes_lanes)

    @property
    def nics(self) -> dict[tuple[str, str], list[str]]:
        """(host, "nicN") → its ports' link ids; built when a NIC is first named."""
        if self._nics is None:
            self._nics = defaultdict(list)
            hosts = self.topo.hosts
            for link in self.topo.links:
                if link.a.device in hosts and link.nic is not None:
                    self._nics[(link.a.device, f"nic{link.nic}")].append(link.id)
        return self._nics

    def one(self, name: str) -> tuple[str, str | None, list[str]]:
        """(what it is, the switch if it is one, link ids); ("", None, []) when unknown."""
        sw = name if name in self.topo.switches else self.key_to_name.get(name)
        if sw is not None:
            return f"switch {sw}", sw, []
        if name in self.links:
            return f"link {name}", None, [name]
        if name in self.bundles:
            members = self.bundles[name]
            return f"bundle {name} ({len(members)} members)", None, list(members)
        left, sep, right = name.partition(":")  # Junos interface names hold a colon: the switch is before the first
        if sep:
            dev = left if left in self.topo.switches else self.key_to_name.get(left)
            if dev is not None and (dev, right) in self.ports:
                ids = self.ports[(dev, right)]
                return f"port {dev}:{right} ({len(ids)} link{'s' if len(ids) != 1 else ''})", None, list(ids)
            if (left, right) in self.nics:
                ids = self.nics[(left, right)]
                return f"NIC {left}:{right} ({len(ids)} port{'s' if len(ids) != 1 else ''})", None, list(ids)
        return "", None, []

    def close(self, name: str) -> list[str]:
        """Up to three known names close to `name`: for `SWITCH:PORT` of a known switch, among that switch's ports
        (numbers and interface names), else among switches, links, bundles and NICs."""
        left, sep, right = name.partition(":")  # Junos interface names hold a colon: the switch is before the first
        dev = (left if left in self.topo.switches else self.key_to_name.get(left)) if sep else None
        if dev is not None:
            mine = [f"{dev}:{label}" for d, label in self.ports if d == dev]
            return difflib.get_close_matches(f"{dev}:{right}", mine, n=3, cutoff=0.6)
        return difflib.get_close_matches(name, self.candidates(), n=3, cutoff=0.6)

    def candidates(self) -> list[str]:
        return list(dict.fromkeys([*self.topo.switches, *self.key_to_name, *self.links, *self.bundles,
                                   *(f"{h}:{n}" for h, n in self.nics)]))

    def resolve(self, names: list[str]) -> Down:
        """The Down set of `names`; UnknownNames (all of them, with close matches) when any is unknown."""
        switches: set[str] = set()
        links: set[str] = set()
        what: dict[str, str] = {}
        unknown: list[str] = []
        given = list(dict.fromkeys(names))
        for name in given:
            kind, sw, ids = self.one(name)
            if not kind:
                unknown.append(name)
                continue
            what[name] = kind
            if sw is not None:
                switches.add(sw)
            links.update(ids)
        if unknown:
            close = {n: self.close(n) for n in unknown}
            raise UnknownNames(unknown, close)
        return Down(frozenset(switches), frozenset(links), tuple(given), what)
