"""Layered layout of the pictures' boxes by grandalf's Sugiyama layout (the algorithm of graphviz's dot, in pure
Python: layering, crossing reduction, Brandes-Köpf coordinates), with integer coordinates.

Everything railfabric draws is a layered graph (super-spines over spines over rail switches over hosts), so a
Sugiyama layout places it: the caller gives boxes (size and rank) and edges, grandalf gives every box its position.
Determinism: grandalf keeps vertices and edges in insertion-ordered sets (its Poset), uses no randomness in the
Sugiyama layout, and the coordinates are rounded to whole pixels here, so the same input gives the same layout on
every machine (grandalf is pinned to an exact version in pyproject.toml). Unconnected parts of the graph are laid
out one by one and set side by side, left to right in the order of their first box.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from grandalf.graphs import Edge, Graph, Vertex  # type: ignore[import-untyped]
from grandalf.layouts import SugiyamaLayout  # type: ignore[import-untyped]

GAP_X = 28  # horizontal space between boxes of one layer, and between unconnected parts
GAP_Y = 90  # vertical space between layers (room for the edge labels)


@dataclass(frozen=True)
class Box:
    """A box to place: its size and its layer (0 = top); `key` identifies it in the result."""

    key: str
    w: int
    h: int
    rank: int


@dataclass(frozen=True)
class Placed:
    """A placed box: top-left corner and size, whole pixels."""

    x: int
    y: int
    w: int
    h: int

    @property
    def cx(self) -> int:
        return self.x + self.w // 2

    @property
    def bottom(self) -> int:
        return self.y + self.h


class _View:
    """What grandalf's Sugiyama layout reads (w, h) and writes (xy: the centre) for each vertex."""

    def __init__(self, w: int, h: int) -> None:
        self.w = w
        self.h = h
        self.xy: tuple[float, float] = (0.0, 0.0)


def layered(boxes: Sequence[Box], edges: Sequence[tuple[str, str]], gap_x: int = GAP_X,
            gap_y: int = GAP_Y) -> tuple[dict[str, Placed], int, int]:
    """Place `boxes` (edges go from a box of a lower rank to one of a higher rank). Returns each box's place, and
    the width and height of the whole drawing.

    Every layer's y comes from the ranks (the tallest box of a rank sets its height), so unconnected parts line
    up; grandalf decides the order inside a layer and the x of every box."""
    vertices = {b.key: Vertex(b.key) for b in boxes}
    for b in boxes:
        vertices[b.key].view = _View(b.w, b.h)
    graph = Graph(list(vertices.values()), [Edge(vertices[a], vertices[z]) for a, z in edges])
    by_key = {b.key: b for b in boxes}
    heights: dict[int, int] = {}
    for b in boxes:
        heights[b.rank] = max(heights.get(b.rank, 0), b.h)
    tops: dict[int, int] = {}
    y = 0
    for rank in sorted(heights):
        tops[rank] = y
        y += heights[rank] + gap_y
    placed: dict[str, Placed] = {}
    left = 0
    for part in graph.C:
        xs = _part_x(part, by_key, gap_x)
        lo = min(xs[k] - by_key[k].w / 2 for k in xs)
        for key, cx in xs.items():
            b = by_key[key]
            x = left + round(cx - b.w / 2 - lo)
            placed[key] = Placed(x, tops[b.rank] + (heights[b.rank] - b.h) // 2, b.w, b.h)
        left = max(p.x + p.w for p in placed.values()) + gap_x
    width = max(p.x + p.w for p in placed.values())
    return {b.key: placed[b.key] for b in boxes}, width, y - gap_y


def _part_x(part: object, by_key: dict[str, Box], gap_x: int) -> dict[str, float]:
    """The x of each box's centre in one connected part, by grandalf."""
    verts = list(part.sV)  # type: ignore[attr-defined]
    if len(verts) == 1:
        return {verts[0].data: by_key[verts[0].data].w / 2}
    sug = SugiyamaLayout(part)
    sug.xspace = gap_x
    top = min(by_key[v.data].rank for v in verts)
    sug.init_all(roots=[v for v in verts if by_key[v.data].rank == top])
    sug.draw(N=1.5)
    return {v.data: v.view.xy[0] for v in verts}
