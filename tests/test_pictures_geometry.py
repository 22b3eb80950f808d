"""The pictures' geometry, measured on the SVG they are: no text overlaps another, a text drawn on a box stays
inside it, no edge of the fabric picture crosses a text or runs through a box, the rail grid has no crossing lines.

Text boxes come from the font, not from the program's own width constant: DejaVu Sans Mono (the first font the
pictures ask for, and the one resvg finds on Linux) advances every glyph 1233/2048 = 0.602 em, its glyphs reach
about 0.76 em above the baseline (digits and capitals 0.73, ascenders 0.76) and 0.24 em below it (descenders).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

import pytest

from railfabric.outputs.docs import docs_files
from railfabric.outputs.docs.facts import FabricFacts, PodFacts, SegmentFacts, fabric_facts, host_links_by_segment
from railfabric.outputs.pictures_glance import glance_svg
from railfabric.pipeline import Result, run
from tests.helpers import EXAMPLE, base_inventory, mlag_inventory, run_data
from tests.test_docs_pictures import _bench

SVG = "{http://www.w3.org/2000/svg}"
ADVANCE, ASCENT, DESCENT = 1233 / 2048, 0.76, 0.24


class Box(NamedTuple):
    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, o: Box) -> bool:
        return self.x0 < o.x1 and o.x0 < self.x1 and self.y0 < o.y1 and o.y0 < self.y1

    def holds(self, o: Box, slack: float = 0.5) -> bool:
        return (self.x0 - slack <= o.x0 and o.x1 <= self.x1 + slack and self.y0 - slack <= o.y0
                and o.y1 <= self.y1 + slack)


class Text(NamedTuple):
    text: str
    box: Box
    at: tuple[float, float]  # the anchor point


Segment = tuple[float, float, float, float]


def _texts(root: ET.Element) -> list[Text]:
    base = float(root.attrib.get("font-size", 12))
    out = []
    for t in root.iter(f"{SVG}text"):
        size = float(t.attrib.get("font-size", base))
        x, y, text = float(t.attrib["x"]), float(t.attrib["y"]), t.text or ""
        w = len(text) * ADVANCE * size
        anchor = t.attrib.get("text-anchor", "start")
        x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
        out.append(Text(text, Box(x0, y - ASCENT * size, x0 + w, y + DESCENT * size), (x, y)))
    return out


def _rects(root: ET.Element) -> list[Box]:
    """Every rect but the page itself (the first one)."""
    rects = [r.attrib for r in root.iter(f"{SVG}rect")][1:]
    return [Box(float(a["x"]), float(a["y"]), float(a["x"]) + float(a["width"]), float(a["y"]) + float(a["height"]))
            for a in rects]


def _segments(root: ET.Element) -> list[list[Segment]]:
    """The straight segments of every line and polyline, one list per element (curves are not drawn any more)."""
    assert not list(root.iter(f"{SVG}path"))
    out = [[(float(a["x1"]), float(a["y1"]), float(a["x2"]), float(a["y2"]))]
           for a in (e.attrib for e in root.iter(f"{SVG}line"))]
    for e in root.iter(f"{SVG}polyline"):
        pts = [tuple(float(v) for v in p.split(",")) for p in e.attrib["points"].split()]
        out.append([(*a, *b) for a, b in pairwise(pts)])  # type: ignore[misc]
    return out


def _crosses(seg: Segment, box: Box) -> bool:
    """Whether the segment passes through the box's inside (Liang-Barsky clipping; touching an edge is not)."""
    x0, y0, x1, y1 = seg
    dx, dy = x1 - x0, y1 - y0
    lo, hi = 0.0, 1.0
    for p, q in ((-dx, x0 - box.x0), (dx, box.x1 - x0), (-dy, y0 - box.y0), (dy, box.y1 - y0)):
        if p == 0:
            if q <= 0:
                return False
        else:
            t = q / p
            if p < 0:
                lo = max(lo, t)
            else:
                hi = min(hi, t)
    return hi - lo > 1e-9


def _intersect(a: Segment, b: Segment) -> bool:
    """Whether two segments cross or overlap. Runs that share an end point do not count: the edges out of one box
    leave it together (down from its middle, then apart along one horizontal run), as a tree's edges do."""
    def orient(px: float, py: float, qx: float, qy: float, rx: float, ry: float) -> float:
        return (qx - px) * (ry - py) - (qy - py) * (rx - px)

    ax0, ay0, ax1, ay1 = a
    bx0, by0, bx1, by1 = b
    if {(ax0, ay0), (ax1, ay1)} & {(bx0, by0), (bx1, by1)}:
        return False
    d1, d2 = orient(bx0, by0, bx1, by1, ax0, ay0), orient(bx0, by0, bx1, by1, ax1, ay1)
    d3, d4 = orient(ax0, ay0, ax1, ay1, bx0, by0), orient(ax0, ay0, ax1, ay1, bx1, by1)
    if d1 * d2 < 0 and d3 * d4 < 0:
        return True
    if d1 == d2 == 0:  # collinear: overlapping runs
        return (max(min(ax0, ax1), min(bx0, bx1)) < min(max(ax0, ax1), max(bx0, bx1))
                or max(min(ay0, ay1), min(by0, by1)) < min(max(ay0, ay1), max(by0, by1)))
    return False


def assert_texts_apart_and_inside(svg: str) -> None:
    root = ET.fromstring(svg)
    texts, rects = _texts(root), _rects(root)
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            assert not a.box.overlaps(b.box), (a.text, b.text)
        under = [r for r in rects if r.x0 < a.at[0] < r.x1 and r.y0 < a.at[1] < r.y1]
        if under:  # drawn on a box (the last one drawn there): it fits in it
            assert under[-1].holds(a.box), (a.text, under[-1])


def assert_edges_clear(svg: str) -> None:
    """No edge crosses a text or runs through a box (it may end on a box's edge), no two edges cross or share a
    run."""
    root = ET.fromstring(svg)
    texts, rects, edges = _texts(root), _rects(root), _segments(root)
    for k, edge in enumerate(edges):
        for seg in edge:
            for t in texts:
                assert not _crosses(seg, t.box), (seg, t.text)
            for r in rects:
                assert not _crosses(seg, r), (seg, r)
            for other in edges[k + 1:]:
                assert not any(_intersect(seg, o) for o in other), (seg, other)


def _docs(res: Result) -> dict[str, str]:
    assert res.inventory is not None and res.topology is not None and res.report is not None
    summary = res.summary()
    assert summary is not None
    return docs_files(res.inventory, res.topology, res.report, summary)


@pytest.fixture(scope="module")
def example() -> dict[str, str]:
    return _docs(run(EXAMPLE))


def test_the_checks_catch_what_they_check() -> None:
    # a label at (100, 50) of 10 characters at 12 px: x 100-172.2, y 40.9-52.9
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" font-size="12"><rect x="0" y="0" width="9" height="9"/>'
           '<text x="100" y="50">0123456789</text>{}</svg>')
    assert_edges_clear(svg.format('<polyline points="90,60 200,60"/>'))  # under it
    with pytest.raises(AssertionError):
        assert_edges_clear(svg.format('<polyline points="150,0 150,100"/>'))  # through it
    with pytest.raises(AssertionError):
        assert_edges_clear(svg.format('<line x1="0" y1="0" x2="10" y2="10"/><line x1="0" y1="10" x2="10" y2="0"/>'))
    with pytest.raises(AssertionError):  # two texts on one line, the second starting inside the first
        assert_texts_apart_and_inside(svg.format('<text x="160" y="50">x</text>'))
    with pytest.raises(AssertionError):  # a text running out of its box
        assert_texts_apart_and_inside(svg.format('<rect x="95" y="30" width="50" height="30"/>'))


def test_example_pictures(example: dict[str, str]) -> None:
    for path, svg in example.items():
        if path.endswith(".svg"):
            assert_texts_apart_and_inside(svg)
            assert_edges_clear(svg)


def test_glance_edges_keep_clear_of_labels(example: dict[str, str]) -> None:
    # the example: super-spines → pods 1, 2 (labelled links), a hidden edge to rail-only pod 3; pods → their 4
    # segments (3 labelled, pod 3's dashed), segments → hosts (4 labelled): 8 drawn edges, each 3 runs or fewer
    edges = _segments(ET.fromstring(example["docs/fabric-at-a-glance.svg"]))
    assert len(edges) == 2 + 4 + 4


def test_pictures_of_small_and_dual_homed_fabrics(tmp_path: Path) -> None:
    many = base_inventory()
    many["pods"][0]["segments"][0]["host_groups"] = [{"model": "h2", "count": 40}]
    off = base_inventory()
    off["devices"] = {"p1-s1-rail0": {"disabled_ports": [1]}}
    for i, data in enumerate([base_inventory(), mlag_inventory(rails=2, hosts=4), many, off]):
        docs = _docs(run_data(tmp_path / str(i), data))
        for svg in (docs["docs/fabric-at-a-glance.svg"], docs["docs/rails/pod-1-segment-1.svg"]):
            assert_texts_apart_and_inside(svg)
            assert_edges_clear(svg)


def test_glance_of_large_and_unlike_fabrics(tmp_path: Path) -> None:
    bench = _bench()
    res = run(bench.write_inventory(tmp_path / "inv", bench.Geometry.for_gpus(65536)))
    assert res.topology is not None and res.report is not None
    svg, _ = glance_svg(fabric_facts("bench", res.topology, res.report, 16, host_links_by_segment(res.topology)))
    assert_texts_apart_and_inside(svg)
    assert_edges_clear(svg)

    def segment(pod: int, sid: int, hosts: int) -> SegmentFacts:
        return SegmentFacts(pod, sid, "single-rail", 8, 1, "", 8, "sw", "SONiC", hosts, 8 * hosts, f"{hosts} × h",
                            1, 8, 1, 8 * hosts, 400, 64, 800, 3200 * hosts, 51200, 1.0, "x")

    pods = tuple(PodFacts(p, tuple(segment(p, s, p * 100 + s) for s in range(1, 11)), 4, "sw", "SONiC", 2, 32, 800,
                          1, 1, 1.0, "x") for p in range(1, 21))
    svg, _ = glance_svg(FabricFacts("big", 4, "sw", "SONiC", 0, pods))
    assert_texts_apart_and_inside(svg)
    assert_edges_clear(svg)
