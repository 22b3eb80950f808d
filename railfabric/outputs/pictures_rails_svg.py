"""Draws a segment's rail grid (railfabric/outputs/pictures_rails.py builds it) as SVG:

    title
    [peer link bars over the MLAG pairs]
    rail switch    | switch heading (name, rails, model) over the columns of its rails
    NIC r = rail r | per column, in the rail's colour: "NIC r" (port a / b when dual-homed) and its switch ports
    host rows      | per column, a cell tinted in the rail's colour: the switch port (/lane) of that host's NIC
    legend

Columns are equally wide, as wide as the widest text any of them holds (monospace widths: pictures_svg.text_width),
so nothing overflows and the grid reads as a table. Each cell carries a tooltip naming the host, NIC, switch and
port(s) (and the cable count of the fold), read by the tests and by whoever hovers in a browser.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from railfabric.outputs.docs.facts import SegmentFacts, gbps
from railfabric.outputs.pictures_rails import (
    Cell,
    Column,
    Ends,
    Grid,
    Row,
    end_text,
    legend_lines,
    port_text,
    rail_grid,
    switch_lines,
)
from railfabric.outputs.pictures_svg import GREY, LINE_H, Svg, on_colour, rail_colour, text_width, tint
from railfabric.topology.model import Host, Link, SegmentInfo, Switch

PAD = 8  # text inside a box or cell, from its edge
GAP = 4  # between columns, and between the heading rows and the first host
CELL_H = 20  # a host's row (ROW apart)
ROW = CELL_H + 2
FOLD_GAP = 5  # more room above and below the fold's row (its dashed label box)
SWITCH_H = 3 * LINE_H + PAD  # the switch heading: name, rails, model
BLOCK_H = 2 * LINE_H + 4  # the coloured heading of a column: NIC, ports
PEER_H = 30  # room over the switch headings for the peer link bars
SMALL = 11  # px: headings' second lines, the fold's cells, the legend
FIT = 26  # characters a fold cell or a port heading shows at most (the tooltip holds the whole list)


def _fit(text: str) -> str:
    return text if len(text) <= FIT else text[:FIT - 1] + "…"


def _nic(c: Column) -> str:
    return f"NIC {c.rail}" + (f" port {'ab'[c.side]}" if c.side is not None else "")


@dataclass(frozen=True)
class Wording:
    """How a picture names the host ports: Ethernet's "NIC r" by default; an InfiniBand segment names each rail's
    HCA (`names`: rail → "mlx5_3"), with its own left-hand heading and first two legend lines."""

    names: tuple[tuple[int, str], ...] = ()
    left: tuple[str, str, str] = ("rail switch", "NIC r = rail r", "switch ports")
    legend: tuple[str, ...] = ()  # replaces the legend's first two lines when given

    def nic(self, c: Column) -> str:
        name = dict(self.names).get(c.rail)
        return _nic(c) if name is None else name


ETHERNET = Wording()


@lru_cache(maxsize=1 << 14)
def _cell_text(cell: Cell, fold: bool) -> str:
    """A cell's text: a host's port(s) (the fold: its hosts' port ranges), '*' when re-cabled by `cabling:`; the
    disabled port(s) and 'off' when the cable was taken off; '–' for no cable."""
    show = (lambda e: _fit(port_text(e))) if fold else end_text
    if cell.ends:
        return show(cell.ends) + (" *" if cell.pinned else "")
    return f"{show(cell.off)} off" if cell.off else "–"


@lru_cache(maxsize=1 << 12)
def _cells_width(cells: tuple[Cell, ...], fold: bool) -> int:
    return max((text_width(_cell_text(cell, fold), SMALL if fold else 12) for cell in cells), default=0)


class RailPictures:
    """Draws the rail diagram of each segment (railfabric/outputs/docs/__init__.py calls it once per segment)."""

    def svg(self, info: SegmentInfo, facts: SegmentFacts, switches: list[Switch], hosts: list[Host],
            links: list[Link], peers: list[Link], pinned: frozenset[str] = frozenset(),
            off: Iterable[Link] = (), words: Wording = ETHERNET) -> str:
        """`pinned`: ids of links placed by `cabling:`; `off`: the segment's host links taken off (disabled ports);
        `words`: how the host ports are named."""
        return draw_grid(info, facts, switches, hosts, rail_grid(switches, hosts, links, pinned, off), peers, words)


def draw_grid(info: SegmentInfo, facts: SegmentFacts, switches: list[Switch], hosts: list[Host], grid: Grid,
              peers: list[Link], words: Wording = ETHERNET) -> str:
    dual = f", dual-homed ({facts.dual_homing})" if facts.dual_homing else ""
    title = (f"Pod {info.pod} segment {info.id}: {facts.design}, {facts.rails} rails, {facts.hosts} hosts "
             f"({facts.host_models}), {facts.rail_switches} rail switches ({facts.platforms}){dual}")
    by_name = {sw.name: sw for sw in switches}
    heads = {name: switch_lines(by_name[name]) if name in by_name else [name, "another segment's", ""]
             for name, _, _ in grid.headers}
    pairs = _peer_pairs(peers, {name for name, _, _ in grid.headers})
    columns = [_column_ends(grid, i) for i in range(len(grid.columns))]
    left = max([text_width(r.label, 12) for r in grid.rows] + [text_width(t, SMALL) for t in words.left]) + PAD
    cw = _column_width(grid, heads, columns, pairs, words)
    legend = legend_lines(facts, grid, hosts, gbps(facts.host_speed))
    if words.legend:
        legend = [*words.legend, *legend[2:]]
    right = left + len(grid.columns) * (cw + GAP)
    full = max([right, text_width(title, 14)] + [text_width(t, SMALL) for t in legend])
    svg = Svg(title)
    svg.text(full // 2, 14, title, size=14, bold=True, anchor="middle")
    y0 = 30 + (PEER_H if pairs else 0)
    x_of = [left + GAP + i * (cw + GAP) for i in range(len(grid.columns))]
    boxes: dict[str, tuple[int, int]] = {}
    for name, first, n in grid.headers:
        x, w = x_of[first], n * cw + (n - 1) * GAP
        boxes[name] = (x, w)
        svg.rect(x, y0, w, SWITCH_H, fill="#f7f7f7", width=1.2)
        for i, line in enumerate(heads[name]):
            svg.text(x + PAD, y0 + PAD + 8 + i * LINE_H, line, bold=i == 0)
    _peer_bars(svg, pairs, boxes, y0)
    y1 = y0 + SWITCH_H + GAP
    svg.text(0, y0 + PAD + 8, words.left[0], size=SMALL, fill=GREY)
    svg.text(0, y1 + 14, words.left[1], size=SMALL, fill=GREY)
    svg.text(0, y1 + 30, words.left[2], size=SMALL, fill=GREY)
    for i, (c, x) in enumerate(zip(grid.columns, x_of, strict=True)):
        colour = rail_colour(c.rail)
        svg.rect(x, y1, cw, BLOCK_H, fill=colour, stroke=colour, rx=2)
        svg.text(x + cw // 2, y1 + 14, words.nic(c), size=SMALL, bold=True, anchor="middle", fill=on_colour(colour))
        svg.text(x + cw // 2, y1 + 30, _fit(port_text(columns[i])), size=SMALL, anchor="middle",
                 fill=on_colour(colour))
    y = y1 + BLOCK_H + GAP
    for row in grid.rows:
        y += FOLD_GAP if row.fold else 0
        _row(svg, row, grid.columns, x_of, cw, y, left, words)
        y += ROW + (FOLD_GAP if row.fold else 0)
    y3 = y + 10
    for i, line in enumerate(legend):
        svg.text(0, y3 + (i + 1) * LINE_H, line, size=SMALL, fill=GREY)
    return svg.document(full, y3 + len(legend) * LINE_H + 4)


def _column_ends(grid: Grid, i: int) -> Ends:
    return tuple(e for row in grid.rows for e in row.cells[i].ends)


def _column_width(grid: Grid, heads: dict[str, list[str]], columns: list[tuple[tuple[int, int], ...]],
                  pairs: dict[tuple[str, str], list[Link]], words: Wording) -> int:
    """The one width of every column: its widest cell or heading, or its share of its switch's heading."""
    widths = [text_width(words.nic(c), SMALL) for c in grid.columns]
    widths += [text_width(_fit(port_text(ends)), SMALL) for ends in columns]
    widths += [_cells_width(r.cells, r.fold) for r in grid.rows]
    cw = max(widths, default=40) + 2 * PAD
    span = {name: n for name, _, n in grid.headers}
    for name, _, n in grid.headers:
        need = max(text_width(t) for t in heads[name]) + 2 * PAD
        cw = max(cw, -(-(need - (n - 1) * GAP) // n))
    for (a, z), members in pairs.items():
        n = span[a] + span[z]
        cw = max(cw, -(-(text_width(_peer_text(members), SMALL) + PAD - (n - 1) * GAP) // n))
    return cw


def _row(svg: Svg, row: Row, columns: tuple[Column, ...], x_of: list[int], cw: int, y: int, left: int,
         words: Wording) -> None:
    if row.fold:
        svg.rect(-4, y - 3, left + 4 - GAP, CELL_H + 6, fill="#ffffff", stroke=GREY, dash=True, rx=3)
    svg.text(0, y + 14, row.label, bold=not row.fold)
    tips = tuple(_fold_tip(row, c, cell, words) for c, cell in zip(columns, row.cells, strict=True)) if row.fold else ()
    svg.parts += _cells(y, tuple(x_of), cw, tuple(c.rail for c in columns), row.cells, row.fold, tips)


def _fold_tip(row: Row, c: Column, cell: Cell, words: Wording) -> str:
    off = f" ({len(cell.off)} taken off: port disabled)" if cell.off else ""
    return f"{row.label}: {words.nic(c)} → {c.switch} ports {port_text(cell.ends)}: {len(cell.ends)} cables{off}"


@lru_cache(maxsize=1 << 12)
def _cells(y: int, x_of: tuple[int, ...], cw: int, rails: tuple[int, ...], cells: tuple[Cell, ...], fold: bool,
           tips: tuple[str, ...]) -> tuple[str, ...]:
    """A row's cells at height y: the same in every segment of one shape (the same ports), so drawn once; the
    fold's cells carry a tooltip with the hosts, switch, ports and cable count."""
    svg = Svg("")
    for k, (rail, x, cell) in enumerate(zip(rails, x_of, cells, strict=True)):
        colour = rail_colour(rail)
        text = _cell_text(cell, fold)
        size = SMALL if fold else 12
        if not cell.ends:
            svg.rect(x, y, cw, CELL_H, fill="#ffffff", stroke=GREY, width=0.5, rx=2, dash=fold,
                     tip=tips[k] if tips else "")
            svg.text(x + cw // 2, y + 14, text, size=size, anchor="middle", fill=GREY)
            continue
        svg.rect(x, y, cw, CELL_H, fill=tint(colour), stroke=colour, width=1 if fold else 0.5, rx=2, dash=fold,
                 tip=tips[k] if tips else "")
        svg.text(x + cw // 2, y + 14, text, size=size, anchor="middle")
    return tuple(svg.parts)


def _peer_pairs(peers: list[Link], drawn: set[str]) -> dict[tuple[str, str], list[Link]]:
    pairs: dict[tuple[str, str], list[Link]] = defaultdict(list)
    for lk in peers:
        if lk.a.device in drawn and lk.z.device in drawn:
            pairs[(lk.a.device, lk.z.device)].append(lk)
    return dict(pairs)


def _peer_text(members: list[Link]) -> str:
    return f"peer link {len(members)} × {gbps(members[0].a.speed)}"


def _peer_bars(svg: Svg, pairs: dict[tuple[str, str], list[Link]], boxes: dict[str, tuple[int, int]],
               y0: int) -> None:
    """An MLAG pair's peer link: a bar from the middle of one switch heading to the other's over the pair, with
    its member count and speed above it."""
    for (a, z), members in pairs.items():
        xa, xz = boxes[a][0] + boxes[a][1] // 2, boxes[z][0] + boxes[z][1] // 2
        y = y0 - 10
        svg.polyline([(xa, y0), (xa, y), (xz, y), (xz, y0)], stroke=GREY, width=3)
        svg.text((xa + xz) // 2, y - 6, _peer_text(members), size=SMALL, anchor="middle")
