"""Per segment, the rail diagram (docs/rails/pod-<p>-segment-<s>.svg) as a hosts-by-rails grid: one column per
NIC (NIC r is on rail r) and rail switch, headed by that switch (name, rails, model) and by the switch ports of the
rail; one row per host; each cell the switch port (/breakout lane) the host's NIC lands on, coloured by rail.

Why a grid and not lines: a rail-optimised segment cables NIC r of every host to the switch of rail r, so a drawing
with one line per cable is a complete bipartite web (16 hosts × 8 rails: 128 lines, most of them crossing) that
shows neither the pattern nor a single cable. The grid has no connector lines at all, so nothing crosses; every
cable is one cell, read like a cabling sheet (row: the server, column: the switch, cell: the port); the rail's
colour runs down its column; the fold keeps a 128-host segment as small as a 16-host one. Every rail design is a
choice of columns: single-rail one column per switch; dual- and multi-rail a switch heading two or more columns
(its rails); dual-homed NICs (MLAG, two VLANs) a column per side, the switches of a pair side by side, an MLAG peer
link the bar over its pair; shared NICs (gpu_to_nic) one column per NIC, as the switches see them; a rail-only
pod's segment the same grid (its legend says there are no spines). A cable placed by an explicit `cabling:` entry
is marked `*`, a NIC whose port is disabled shows that port and `off`. No layout engine is needed: the columns are
as wide as their widest text (monospace, railfabric/outputs/pictures_svg.py), so no text overflows or overlaps
(tests/test_pictures_geometry.py measures it on the rendered SVG).

Segments of more than MAX_HOSTS hosts show their first FIRST and last LAST hosts, and one dashed row for the hosts
between (their cabling follows the same pattern: the next ports of each rail's block), whose cells list every port
those hosts take on that switch as port ranges, and whose tooltips count their cables. This module builds the grid
(who lands where); railfabric/outputs/pictures_rails_svg.py draws it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from railfabric.outputs.docs.facts import SegmentFacts
from railfabric.topology.model import Host, Link, Switch

MAX_HOSTS = 16  # a segment of up to this many hosts shows every host
FIRST, LAST = 8, 2  # larger: the first FIRST and the last LAST hosts, the others folded into one row


@dataclass(frozen=True)
class Column:
    """One NIC of every host, on one switch: `rail` (= the NIC), `side` the switch's side of a dual-homed pair
    (the NIC port: a, b)."""

    switch: str
    rail: int
    side: int | None


Ends = tuple[tuple[int, int], ...]  # switch ends (port, lane)


class Cell(NamedTuple):
    """What one host (or the fold's hosts) has on one column: its cables' switch ends, whether one of them was
    placed by an explicit `cabling:` entry (a re-cable), and the ends of its cables taken off by a disabled port."""

    ends: Ends
    pinned: bool = False
    off: Ends = ()


@dataclass(frozen=True)
class Row:
    """A host, or the fold (`count` hosts): a cell per column."""

    label: str
    count: int
    cells: tuple[Cell, ...]

    @property
    def fold(self) -> bool:
        return self.count > 1


@dataclass(frozen=True)
class Grid:
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    headers: tuple[tuple[str, int, int], ...]  # switch name, first column, columns it heads (consecutive)


def port_ranges(ends: Iterable[tuple[int, int]]) -> str:
    """Switch ports (port, lane) as text: '1–8', '1, 4, … 22' for an even step, with the breakout lanes."""
    ports = sorted({p for p, _ in ends})
    lanes = sorted({lane for _, lane in ends if lane})
    parts: list[str] = []
    i = 0
    while i < len(ports):
        j = i
        step = ports[i + 1] - ports[i] if i + 1 < len(ports) else 1
        while j + 1 < len(ports) and ports[j + 1] - ports[j] == step:
            j += 1
        if j - i >= 2 or (j > i and step == 1):
            parts.append(f"{ports[i]}–{ports[j]}" if step == 1 else f"{ports[i]}, {ports[i] + step}, … {ports[j]}")
            i = j + 1
        else:
            parts.append(str(ports[i]))
            i += 1
    text = ", ".join(parts)
    if lanes:
        text += f" /{lanes[0]}" if len(lanes) == 1 else f" /{lanes[0]}–{lanes[-1]}"
    return text


@lru_cache(maxsize=1 << 12)
def port_text(ends: tuple[tuple[int, int], ...]) -> str:
    """port_ranges, once per list of ports: the switches of segments of one shape have the same ports."""
    return port_ranges(ends)


def end_text(ends: tuple[tuple[int, int], ...]) -> str:
    """A host's cell: its ports on that switch, `port/lane` ('1/2') or `port` when not broken out."""
    return ", ".join(f"{p}/{lane}" if lane else str(p) for p, lane in ends)


def rail_grid(switches: list[Switch], hosts: list[Host], links: list[Link], pinned: frozenset[str] = frozenset(),
              off: Iterable[Link] = ()) -> Grid:
    """The segment's grid: the switches' own rails as columns, in switch order (group by group, side a then b),
    then any column a cable outside the design needs (explicit `cabling:` onto another rail or switch). `pinned`:
    the ids of the links an explicit `cabling:` entry placed; `off`: the segment's host links taken off by a
    disabled port."""
    extra: dict[str, set[int]] = {}
    own = {(sw.name, r) for sw in switches for r in sw.rails}
    placed = {lk.id for lk in links}
    off = [lk for lk in off if lk.id not in placed]
    for lk in (*links, *off):
        if (lk.z.device, lk.rail or 0) not in own:
            extra.setdefault(lk.z.device, set()).add(lk.rail or 0)
    columns = [Column(sw.name, r, sw.side) for sw in switches
               for r in (*sw.rails, *sorted(extra.pop(sw.name, set())))]
    columns += [Column(name, r, None) for name in sorted(extra) for r in sorted(extra[name])]
    index = {(c.switch, c.rail): i for i, c in enumerate(columns)}
    cells: dict[str, list[list[tuple[int, int]]]] = {h.name: [[] for _ in columns] for h in hosts}
    offs: dict[str, list[list[tuple[int, int]]]] = {h.name: [[] for _ in columns] for h in hosts}
    marks: dict[str, set[int]] = {h.name: set() for h in hosts}
    for lk in sorted(links, key=lambda lk: (lk.a.port, lk.z.port, lk.z.lane)):
        i = index[(lk.z.device, lk.rail or 0)]
        cells[lk.a.device][i].append((lk.z.port, lk.z.lane))
        if lk.id in pinned:
            marks[lk.a.device].add(i)
    for lk in off:
        offs[lk.a.device][index[(lk.z.device, lk.rail or 0)]].append((lk.z.port, lk.z.lane))
    table = {h.name: [Cell(tuple(e), i in marks[h.name], tuple(o)) for i, (e, o) in
                      enumerate(zip(cells[h.name], offs[h.name], strict=True))] for h in hosts}
    return Grid(tuple(columns), _rows(hosts, table, len(columns)), _headers(columns))


def _headers(columns: list[Column]) -> tuple[tuple[str, int, int], ...]:
    out: list[tuple[str, int, int]] = []
    for i, c in enumerate(columns):
        if out and out[-1][0] == c.switch:
            out[-1] = (c.switch, out[-1][1], out[-1][2] + 1)
        else:
            out.append((c.switch, i, 1))
    return tuple(out)


def _rows(hosts: list[Host], table: dict[str, list[Cell]], width: int) -> tuple[Row, ...]:
    def one(h: Host) -> Row:
        return Row(h.name, 1, tuple(table[h.name]))

    hosts = sorted(hosts, key=lambda h: h.number)
    if len(hosts) <= MAX_HOSTS:
        return tuple(one(h) for h in hosts)
    folded = hosts[FIRST:-LAST]
    cells = tuple(Cell(tuple(e for h in folded for e in table[h.name][c].ends),
                       any(table[h.name][c].pinned for h in folded),
                       tuple(e for h in folded for e in table[h.name][c].off)) for c in range(width))
    fold = Row(f"hosts {folded[0].number}–{folded[-1].number} (×{len(folded)})", len(folded), cells)
    return (*(one(h) for h in hosts[:FIRST]), fold, *(one(h) for h in hosts[-LAST:]))


def switch_lines(sw: Switch) -> list[str]:
    """A switch's heading: its name, the rails it serves (and its side of a pair), its model."""
    rails = ", ".join(str(r) for r in sw.rails)
    first = f"rail {rails}" if len(sw.rails) == 1 else f"rails {rails}"
    if sw.side is not None:
        first += f", side {'ab'[sw.side]}"
    return [sw.name, first, sw.model]


def legend_lines(facts: SegmentFacts, grid: Grid, hosts: list[Host], speed: str) -> list[str]:
    """What the grid shows, in words, under it."""
    lines = ["Row: a host. Column: one NIC of every host (NIC r is on rail r) and the rail switch it is cabled to.",
             "Cell: the switch port (/breakout lane) that NIC lands on; the coloured heading: all its ports there.",
             f"{facts.host_links:,} cables × {speed}; their interface names: cabling.csv and hosts/railmap.csv."]
    shared = sorted({(h.gpus, h.nics) for h in hosts if h.nics < h.gpus})
    if shared:
        lines.append(f"{shared[0][0]} GPUs share {shared[0][1]} NICs (gpu_to_nic): the GPUs of each NIC are in "
                     "hosts/railmap.csv.")
    if facts.dual_homing == "mlag":
        lines.append("Ports a and b of a NIC are one LACP bond across the MLAG pair; the bar over a pair is its "
                     "peer link.")
    elif facts.dual_homing:
        lines.append(f"Ports a and b of a NIC go to the two switches of its rail ({facts.dual_homing}).")
    if any(r.fold for r in grid.rows):
        lines.append("The dashed row stands for the hosts between those drawn: each cell lists the ports they take "
                     "(hosts/railmap.csv lists each host).")
    cells = [cell for r in grid.rows for cell in r.cells]
    if any(cell.pinned for cell in cells):
        lines.append("*: a cable placed by an explicit `cabling:` entry (a re-cable), not by the rail's port pattern.")
    if any(cell.off for cell in cells):
        lines.append("off: the port that NIC would take is disabled (`disabled_ports`): no cable (see the report).")
    if any(not cell.ends and not cell.off for cell in cells):
        lines.append("–: no cable there (a NIC without a rail: see the report).")
    if facts.uplinks == 0:
        lines.append("Rail-only pod: no spines above these switches; traffic between rails crosses NVLink in the "
                     "hosts.")
    return lines
