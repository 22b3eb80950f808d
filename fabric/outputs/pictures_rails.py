"""Per segment, the rail diagram (docs/rails/pod-<p>-segment-<s>.svg): rail switches on top, hosts below, one line
per cable from the host's NIC port to its rail switch, a colour per rail, the switch ports of each rail labelled.

Drawn the way rail-optimised designs are drawn: each host's NIC r goes to the switch of rail r. A dual-port NIC
shows both ports (a: to side a, b: to side b of the rail's switch pair); an MLAG pair's peer link is the arc over
the pair. A segment of more than MAX_HOSTS hosts shows its first and last hosts and folds the rest into one box
(their cables follow the same pattern, one thick line per NIC port). grandalf places the boxes
(fabric/outputs/pictures_layout.py); the layout of one shape of segment is computed once and reused by every
segment of that shape, so a fabric of 512 identical segments lays out one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from fabric.outputs.docs.facts import SegmentFacts, gbps
from fabric.outputs.pictures_layout import Box, Placed, layered
from fabric.outputs.pictures_svg import GREY, LINE_H, Svg, on_colour, rail_colour, text_width
from fabric.topology.model import Host, Link, SegmentInfo, Switch

MAX_HOSTS = 8  # more hosts than this: the first FIRST and the last LAST are drawn, the others folded into one box
FIRST, LAST = 6, 1  # (a picture a pull request shows at its width: about 1,200 px)
MARK_W, MARK_H = 14, 12  # a NIC port marker on a host box
PAD = 8
BLOCK_H = 18  # the coloured port block of one rail at the bottom of a switch box


@dataclass(frozen=True)
class _Shown:
    """A host box: one host, or the fold (several hosts drawn as one)."""

    key: str
    lines: tuple[str, ...]
    links: tuple[Link, ...]  # its cables (of the first folded host, for the fold)
    fold: int = 0  # hosts folded into this box
    dual: bool = False  # dual-port NICs: markers say which port (a, b)


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


class RailPictures:
    """Draws the rail diagram of each segment; layouts are shared between segments of the same shape."""

    def __init__(self) -> None:
        self._layouts: dict[tuple, tuple[dict[str, Placed], int, int]] = {}

    def svg(self, info: SegmentInfo, facts: SegmentFacts, switches: list[Switch], hosts: list[Host],
            links: list[Link], peers: list[Link]) -> str:
        by_host: dict[str, list[Link]] = defaultdict(list)
        for lk in links:
            by_host[lk.a.device].append(lk)
        shown = _shown_hosts(hosts, by_host)
        ports = max((len(s.links) for s in shown), default=0)
        host_w = max([text_width(t) for s in shown for t in s.lines] + [ports * (MARK_W + 2)]) + 2 * PAD
        host_h = len(shown[0].lines) * LINE_H + MARK_H + PAD + 6 if shown else 40
        blocks = _blocks(switches, links)
        sw_lines = {sw.name: _switch_lines(sw, info) for sw in switches}
        block_w = max((text_width(b[1], 11) for bs in blocks.values() for b in bs), default=40) + 12
        sw_w = max([text_width(t) for lines in sw_lines.values() for t in lines]
                   + [len(bs) * block_w - 4 for bs in blocks.values()]) + 2 * PAD if switches else 100
        sw_h = 3 * LINE_H + PAD + BLOCK_H + 4
        index = {sw.name: i for i, sw in enumerate(switches)}
        edges = sorted({(index[lk.z.device], h) for h, s in enumerate(shown) for lk in s.links if lk.z.device in index})
        key = (len(switches), sw_w, sw_h, len(shown), host_w, host_h, tuple(edges))
        if key not in self._layouts:
            boxes = [Box(f"s{i}", sw_w, sw_h, 0) for i in range(len(switches))]
            boxes += [Box(f"h{i}", host_w, host_h, 1) for i in range(len(shown))]
            self._layouts[key] = layered(boxes, [(f"s{a}", f"h{b}") for a, b in edges], keep_order=True, gap_x=18,
                                         gap_y=160)
        places, width, height = self._layouts[key]
        return _draw(info, facts, switches, shown, blocks, sw_lines, peers, places, width, height)


def _shown_hosts(hosts: list[Host], by_host: dict[str, list[Link]]) -> list[_Shown]:
    def one(h: Host) -> _Shown:
        cables = tuple(sorted(by_host.get(h.name, []), key=lambda lk: (lk.nic or 0, lk.a.port)))
        return _Shown(h.name, (h.name,), cables,
                      dual=any(lk.a.port > 1 for lk in cables))

    hosts = sorted(hosts, key=lambda h: h.number)
    if len(hosts) <= MAX_HOSTS:
        return [one(h) for h in hosts]
    folded = hosts[FIRST:-LAST]
    fold = _Shown("fold", (f"hosts {folded[0].number}–{folded[-1].number} (×{len(folded)})",),
                  one(folded[0]).links, len(folded), one(folded[0]).dual)
    return [one(h) for h in hosts[:FIRST]] + [fold] + [one(h) for h in hosts[-LAST:]]


def _blocks(switches: list[Switch], links: list[Link]) -> dict[str, list[tuple[int, str]]]:
    """Each switch's rails with the text of their host ports."""
    ends: dict[tuple[str, int | None], list[tuple[int, int]]] = defaultdict(list)
    for lk in links:
        ends[(lk.z.device, lk.rail)].append((lk.z.port, lk.z.lane))
    return {sw.name: [(r, f"r{r}: {_port_text(tuple(ends[(sw.name, r)]))}" if ends.get((sw.name, r))
                       else f"r{r}: no cable") for r in sw.rails] for sw in switches}


@lru_cache(maxsize=1 << 12)
def _port_text(ends: tuple[tuple[int, int], ...]) -> str:
    """port_ranges, once per list of ports: the switches of segments of one shape have the same ports."""
    return port_ranges(ends)


def _switch_lines(sw: Switch, info: SegmentInfo) -> list[str]:
    rails = ", ".join(str(r) for r in sw.rails)
    first = f"rail {rails}" if len(sw.rails) == 1 else f"rails {rails}"
    if sw.side is not None:
        first += f", side {'ab'[sw.side]}"
    return [sw.name, first, sw.model]


def _draw(info: SegmentInfo, facts: SegmentFacts, switches: list[Switch], shown: list[_Shown],
          blocks: dict[str, list[tuple[int, str]]], sw_lines: dict[str, list[str]], peers: list[Link],
          places: dict[str, Placed], width: int, height: int) -> str:
    dual = f", dual-homed ({facts.dual_homing})" if facts.dual_homing else ""
    title = (f"Pod {info.pod} segment {info.id}: {facts.design}, {facts.rails} rails, {facts.hosts} hosts "
             f"({facts.host_models}), {facts.rail_switches} rail switches ({facts.platforms}){dual}")
    svg = Svg(title)
    top = 34 + (30 if peers else 0)
    legend = _legend_lines(facts, shown)
    full = max([width, text_width(title, 14), info.rails * 70] + [text_width(t, 11) for t in legend])
    shift = (full - width) // 2
    at = {k: Placed(p.x + shift, p.y + top, p.w, p.h) for k, p in places.items()}
    svg.text(full // 2, 14, title, size=14, bold=True, anchor="middle")
    attach = _attach_points(switches, shown, blocks, at)
    for h, s in enumerate(shown):
        box = at[f"h{h}"]
        ends = tuple((lk.rail, attach[lk.z.device][(lk.rail, h)] if lk.z.device in attach else None)
                     for lk in s.links)
        svg.parts += _cables(box.x, box.y, bool(s.fold), ends)
    for i, sw in enumerate(switches):
        _switch_box(svg, at[f"s{i}"], sw_lines[sw.name], blocks[sw.name])
    for h, s in enumerate(shown):
        _host_box(svg, at[f"h{h}"], s)
    _peer_arcs(svg, switches, peers, at)
    _legend(svg, info, legend, height + top + 28)
    return svg.document(full, height + top + 28 + len(legend) * LINE_H)


def _attach_points(switches: list[Switch], shown: list[_Shown], blocks: dict[str, list[tuple[int, str]]],
                   at: dict[str, Placed]) -> dict[str, dict[tuple[int | None, int], tuple[int, int]]]:
    """Where each shown host's cable of each rail meets each switch: spread along the rail's port block, in host
    order, so that the cables fan out like the ports they land on."""
    out: dict[str, dict[tuple[int | None, int], tuple[int, int]]] = {}
    n = len(shown)
    for i, sw in enumerate(switches):
        p = at[f"s{i}"]
        rails = blocks[sw.name]
        bw = (p.w - 2 * PAD) // max(1, len(rails))
        points: dict[tuple[int | None, int], tuple[int, int]] = {}
        for b, (rail, _text) in enumerate(rails):
            x0 = p.x + PAD + b * bw
            for h in range(n):
                points[(rail, h)] = (x0 + 4 + (bw - 8) * (2 * h + 1) // (2 * n), p.bottom)
        out[sw.name] = points
    return out


def _switch_box(svg: Svg, p: Placed, lines: list[str], blocks: list[tuple[int, str]]) -> None:
    svg.rect(p.x, p.y, p.w, p.h, fill="#f7f7f7", width=1.2)
    for i, line in enumerate(lines):
        svg.text(p.x + PAD, p.y + PAD + 8 + i * LINE_H, line, bold=i == 0)
    bw = (p.w - 2 * PAD) // max(1, len(blocks))
    for b, (rail, text) in enumerate(blocks):
        x = p.x + PAD + b * bw
        svg.rect(x, p.bottom - BLOCK_H - 4, bw - 4, BLOCK_H, fill=rail_colour(rail), stroke=rail_colour(rail), rx=2)
        svg.text(x + 4, p.bottom - 9, text, size=11, fill=on_colour(rail_colour(rail)))


def _host_box(svg: Svg, p: Placed, s: _Shown) -> None:
    svg.rect(p.x, p.y, p.w, p.h, fill="#f3f0f7" if not s.fold else "#ffffff", width=1.2, dash=bool(s.fold))
    svg.parts += _markers(p.x, p.y, s.dual, tuple((lk.rail, lk.nic, lk.a.port) for lk in s.links))
    for i, line in enumerate(s.lines):
        svg.text(p.x + PAD, p.y + MARK_H + 8 + 12 + i * LINE_H, line, bold=i == 0 and not s.fold)


@lru_cache(maxsize=1 << 12)
def _cables(x: int, y: int, fold: bool, ends: tuple[tuple[int | None, tuple[int, int] | None], ...]) -> tuple[str, ...]:
    """The cables of a host box at (x, y), from each cable's rail and where it meets its switch (None: a switch not
    drawn): the same for every box at that place with those ends, so drawn once."""
    svg = Svg("")
    for k, (rail, end) in enumerate(ends):
        if end is not None:
            svg.line(x + PAD + k * (MARK_W + 2) + MARK_W // 2, y, end[0], end[1], stroke=rail_colour(rail or 0),
                     width=3 if fold else 1.2, opacity=0.8)
    return tuple(svg.parts)


@lru_cache(maxsize=1 << 12)
def _markers(x: int, y: int, dual: bool, links: tuple[tuple[int | None, int | None, int], ...]) -> tuple[str, ...]:
    """The NIC port markers of a host box at (x, y), from each cable's (rail, NIC, NIC port): the same in every
    box at that place with those cables (segments of one shape share their layout), so drawn once."""
    svg = Svg("")
    for k, (rail, nic, port) in enumerate(links):
        at = x + PAD + k * (MARK_W + 2)
        colour = rail_colour(rail or 0)
        svg.rect(at, y + 3, MARK_W, MARK_H, fill=colour, stroke=colour, rx=2)
        label = f"{nic}{'ab'[port - 1]}" if dual else str(nic)
        svg.text(at + MARK_W // 2, y + 3 + MARK_H - 2, label, size=9, anchor="middle", fill=on_colour(colour))
    return tuple(svg.parts)


def _peer_arcs(svg: Svg, switches: list[Switch], peers: list[Link], at: dict[str, Placed]) -> None:
    """An MLAG pair's peer link: an arc over the two switches, with its member count and speed."""
    index = {sw.name: i for i, sw in enumerate(switches)}
    pairs: dict[tuple[str, str], list[Link]] = defaultdict(list)
    for lk in peers:
        if lk.a.device in index and lk.z.device in index:
            pairs[(lk.a.device, lk.z.device)].append(lk)
    for (a, z), members in pairs.items():
        pa, pz = at[f"s{index[a]}"], at[f"s{index[z]}"]
        xa, xz, y = pa.cx, pz.cx, pa.y
        svg.parts.append(f'<path d="M{xa} {y}C{xa} {y - 28} {xz} {y - 28} {xz} {y}" fill="none" stroke="{GREY}" '
                         f'stroke-width="3"/>')
        svg.text((xa + xz) // 2, y - 24, f"peer link {len(members)} × {gbps(members[0].a.speed)}", size=11,
                 anchor="middle", halo=True)


def _legend_lines(facts: SegmentFacts, shown: list[_Shown]) -> list[str]:
    nic = "NIC r (ports a and b: one to each switch of the pair)" if facts.ports_per_nic > 1 else "NIC r"
    lines = [f"{nic} of every host → a switch of rail r; r<n>: the switch ports of rail n (/lanes: breakout lanes);",
             f"{facts.host_links:,} cables × {gbps(facts.host_speed)}."]
    if facts.dual_homing == "mlag":
        lines.append("Both ports of a NIC are one LACP bond across the MLAG pair; the arc is the pair's peer link.")
    if any(s.fold for s in shown):
        lines.append("The dashed box stands for the hosts between the first and the last ones drawn: their cables "
                     "follow the same pattern (hosts/railmap.csv lists each).")
    return lines


def _legend(svg: Svg, info: SegmentInfo, lines: list[str], y: int) -> None:
    x = 0
    for r in range(info.rails):
        svg.rect(x, y - 10, 12, 12, fill=rail_colour(r), stroke=rail_colour(r), rx=2)
        svg.text(x + 16, y, f"rail {r}", size=11)
        x += 70
    for i, line in enumerate(lines):
        svg.text(0, y + (i + 1) * LINE_H, line, size=11, fill=GREY)
