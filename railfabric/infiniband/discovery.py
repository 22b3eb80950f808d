"""ibnetdiscover's output (infiniband-diags 44.0), parsed: the nodes with their GUIDs and node descriptions, and
the links between ports.

Lines read (the rest, vendid=/devid=/sysimgguid= and comments, are skipped):
  `Switch <ports> "S-<node guid>"  # "<node description>" base port 0 lid <lid> lmc <lmc>`
  `Ca <ports> "H-<node guid>"  # "<node description>"`   (Rt for routers: "R-")
  `switchguid=0x<node guid>(<port 0 guid>)`
  `[<port>](<port guid>)?  "<S|H|R>-<remote node guid>"[<remote port>](<remote port guid>)?  # ...`
as ibnetdiscover prints them on ibsim and on hardware (its man page, ibnetdiscover(8), "TOPOLOGY FILE FORMAT").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADER = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"\s*#\s*"(.*?)"')
_PORT = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\]')
_SWITCHGUID = re.compile(r"^switchguid=0x([0-9a-fA-F]+)\(([0-9a-fA-F]+)\)")


@dataclass(slots=True)
class Node:
    guid: int
    kind: str  # "Switch", "Ca" or "Rt"
    ports: int
    desc: str
    port_guids: dict[int, int] = field(default_factory=dict)  # port → port GUID (a switch: 0 → its port 0 GUID)


@dataclass(slots=True)
class Discovered:
    nodes: dict[int, Node]  # node GUID → node
    links: dict[tuple[int, int], tuple[int, int]]  # (node GUID, port) → (node GUID, port), both directions

    def by_desc(self) -> dict[str, list[Node]]:
        out: dict[str, list[Node]] = {}
        for node in sorted(self.nodes.values(), key=lambda n: n.guid):
            out.setdefault(node.desc, []).append(node)
        return out


class ParseError(ValueError):
    pass


def parse(text: str) -> Discovered:
    nodes: dict[int, Node] = {}
    links: dict[tuple[int, int], tuple[int, int]] = {}
    current: Node | None = None
    switch_port0: int | None = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if m := _SWITCHGUID.match(line):
            switch_port0 = int(m.group(2), 16)
        elif m := _HEADER.match(line):
            current = Node(int(m.group(4), 16), m.group(1), int(m.group(2)), m.group(5))
            if current.kind == "Switch" and switch_port0 is not None:
                current.port_guids[0] = switch_port0
            switch_port0 = None
            nodes[current.guid] = current
        elif m := _PORT.match(line):
            if current is None:
                raise ParseError(f"line {lineno}: a port line before any node header: {line!r}")
            port = int(m.group(1))
            if m.group(2):
                current.port_guids[port] = int(m.group(2), 16)
            links[(current.guid, port)] = (int(m.group(4), 16), int(m.group(5)))
        elif not line:
            current = None
    for (guid, port), (rguid, rport) in links.items():
        if rguid not in nodes or links.get((rguid, rport)) != (guid, port):
            raise ParseError(f"link {guid:#x}[{port}] -> {rguid:#x}[{rport}] is not reported from the far end")
    return Discovered(nodes, links)
