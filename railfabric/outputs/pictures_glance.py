"""The fabric at a glance (docs/fabric-at-a-glance.svg): one box per tier per kind of pod and segment, with counts,
speeds and oversubscription, identical pods and segments folded into one box ("pods 1–64 ×64"), so that a
100,000-GPU fabric draws as few boxes as a small one. grandalf lays the boxes out
(railfabric/outputs/pictures_layout.py).

Boxes: super-spines (top), per kind of pod its spines, per kind of segment of that pod its rail switches and its
hosts. Edges carry the links of one pod or segment (count × speed) and the tier's worst oversubscription.
At most MAX_SEGMENT_KINDS kinds of segments per kind of pod are drawn, and kinds of pods only while their segment
boxes fit in MAX_COLUMNS; the rest are counted in one box that points at the tables of fabric.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from railfabric.outputs.docs.facts import FabricFacts, PodFacts, SegmentFacts, gbps, id_ranges, ratio_text
from railfabric.outputs.pictures_layout import Box, Placed, layered
from railfabric.outputs.pictures_svg import GREY, LINE_H, Svg, text_width

MAX_SEGMENT_KINDS = 4  # kinds of segment drawn per kind of pod (the rest: one "more" box)
MAX_COLUMNS = 12  # segment boxes side by side at most (about 2,500 px): kinds of pods past that go in one box
PAD = 10
LABEL_SIZE = 11  # px, the text beside an edge
LABEL_DX = 6  # the label's left edge: this far right of the edge's vertical run into the box
BUS_DY = 14  # the horizontal run of the edges into a layer: this far below the lowest box of the layer above
FILL = {"ss": "#e3ecf8", "spine": "#e6f2e1", "rail": "#fbefd9", "host": "#efe6f5", "more": "#f4f4f4"}


@dataclass
class _Node:
    key: str
    rank: int
    lines: list[str]
    kind: str
    stacked: bool = False  # stands for several identical pods or segments
    dashed: bool = False
    label: list[str] = field(default_factory=list)  # on the edge from its parent
    parent: str = ""
    hidden: bool = False  # the edge from its parent is not a link: laid out, not drawn
    member: bool = False  # the edge from its parent only says "belongs to" (a rail-only pod): drawn dashed

    def size(self) -> tuple[int, int]:
        """The box (with the card behind it when stacked)."""
        w = max(text_width(t) for t in self.lines) + 2 * PAD
        return w + (6 if self.stacked else 0), len(self.lines) * LINE_H + PAD + 4

    def room(self) -> int:
        """The width the layout gives the box: the box, and right of its centre the label of its edge."""
        w = self.size()[0]
        return max(w, 2 * (LABEL_DX + max((text_width(t, LABEL_SIZE) for t in self.label), default=0) + 6))


def _kinds(items: list, shape: str = "shape") -> list[list]:
    """Items grouped by identical shape, in order of first appearance."""
    groups: dict[object, list] = {}
    for it in items:
        groups.setdefault(getattr(it, shape), []).append(it)
    return list(groups.values())


def glance_nodes(facts: FabricFacts) -> list[_Node]:
    nodes: list[_Node] = []
    top = ""
    if facts.super_spines:
        top = "ss"
        lines = ["super-spines", f"{facts.super_spines} × {facts.super_spine_model}", facts.super_spine_platforms]
        if facts.planes:
            lines.append(f"{facts.planes} planes")
        nodes.append(_Node(top, 0, lines, "ss"))
    base = 1 if top else 0
    kinds = _kinds(list(facts.pods))
    columns = 0
    drawn = 0
    for k, pods in enumerate(kinds):
        seg_kinds = len(_kinds(list(pods[0].segments)))
        width = min(seg_kinds, MAX_SEGMENT_KINDS) + (1 if seg_kinds > MAX_SEGMENT_KINDS else 0)
        if drawn and columns + width > MAX_COLUMNS:
            break
        nodes += _pod_nodes(f"p{k}", pods, base, top)
        columns += width
        drawn += 1
    rest = kinds[drawn:]
    if rest:
        n = sum(len(p) for p in rest)
        nodes.append(_Node("more-pods", base, [f"{n} more pods of {len(rest)} other kinds", "see the pod table"],
                           "more", dashed=True, parent=top, member=True))
    return nodes


def _pod_nodes(key: str, pods: list[PodFacts], rank: int, parent: str) -> list[_Node]:
    pod = pods[0]
    many = len(pods) > 1
    title = f"pods {id_ranges(p.id for p in pods)} (×{len(pods)})" if many else f"pod {pod.id}"
    if pod.spines:
        lines = [title, f"{pod.spines} spines × {pod.spine_model}" + (" each" if many else ""), pod.platforms]
        if many:
            lines.append(f"{pod.spines * len(pods):,} spines in all")
        label = [f"{pod.uplinks:,} × {gbps(pod.uplink_speed)}" + (" per pod" if many else ""),
                 f"spine tier {ratio_text(pod.ratio)}"]
        node = _Node(key, rank, lines, "spine", many, label=label if parent else [], parent=parent)
    else:  # no links to the super-spines: the edge only keeps the pod in its layer, it is not drawn
        node = _Node(key, rank, [title, "rail-only: no spines", "cross-rail over NVLink"], "spine", many,
                     dashed=True, parent=parent, hidden=True)
    out = [node]
    seg_kinds = _kinds(list(pod.segments))
    for k, segs in enumerate(seg_kinds[:MAX_SEGMENT_KINDS]):
        out += _segment_nodes(f"{key}s{k}", segs, rank + 1, key, pod, len(pods))
    rest = seg_kinds[MAX_SEGMENT_KINDS:]
    if rest:
        n = sum(len(s) for s in rest)
        out.append(_Node(f"{key}-more", rank + 1, [f"{n} more segments", f"of {len(rest)} other kinds",
                                                   "see the segment table"], "more", dashed=True, parent=key,
                        member=True))
    return out


def _segment_nodes(key: str, segs: list[SegmentFacts], rank: int, parent: str, pod: PodFacts,
                   pod_count: int) -> list[_Node]:
    seg = segs[0]
    many_pods = pod_count > 1
    many = len(segs) > 1
    ids = id_ranges(s.id for s in segs)
    title = (f"segments {ids} (×{len(segs)}" + (" per pod)" if many_pods else ")")) if many else f"segment {ids}"
    copies = len(segs) * (pod_count if many_pods else 1)
    lines = [title, f"{seg.design}, {seg.rails} rails", f"{seg.rail_switches} rail switches × {seg.rail_model}",
             seg.platforms]
    if seg.dual_homing:
        lines.append(f"dual-homed: {seg.dual_homing}")
    if copies > 1:
        lines.append(f"{seg.rail_switches * copies:,} rail switches in all")
    label: list[str] = []
    if pod.spines:
        label = [f"{seg.uplinks:,} × {gbps(seg.uplink_speed)}" + (" per segment" if copies > 1 else "")]
        label += [f"port-channels of {pod.bundle}"] if pod.bundle else []
        label.append(f"rail tier {ratio_text(seg.ratio)}")
    rails = _Node(key, rank, lines, "rail", many, label=label, parent=parent, member=not pod.spines)
    nic = f"{seg.nics_per_host} {seg.nic_word}" + (f" × {seg.ports_per_nic} ports" if seg.ports_per_nic > 1 else "")
    groups = f" ({seg.host_groups} groups)" if seg.host_groups > 1 else ""
    host_lines = [f"{seg.hosts:,} hosts" + (" per segment" if copies > 1 else ""), seg.host_models + groups,
                  f"{seg.gpus:,} GPUs, {nic}"]
    if copies > 1:
        host_lines.append(f"{seg.hosts * copies:,} hosts, {seg.gpus * copies:,} GPUs in all")
    hosts = _Node(f"{key}h", rank + 1, host_lines, "host", many,
                  label=[f"{seg.host_links:,} × {gbps(seg.host_speed)}"], parent=key)
    return [rails, hosts]


def glance_svg(facts: FabricFacts) -> tuple[str, int]:
    """The picture, and how many boxes it has."""
    nodes = glance_nodes(facts)
    sizes = {n.key: n.size() for n in nodes}
    boxes = [Box(n.key, n.room(), sizes[n.key][1], n.rank) for n in nodes]
    edges = [(n.parent, n.key) for n in nodes if n.parent]
    rooms, width, height = layered(boxes, edges)
    places = {k: Placed(p.x + (p.w - sizes[k][0]) // 2, p.y, sizes[k][0], p.h) for k, p in rooms.items()}
    pods = facts.pods
    gpus = sum(p.gpus for p in pods)
    hosts = sum(p.hosts for p in pods)
    rails = sum(p.rail_switches for p in pods)
    spines = sum(p.spines for p in pods)
    tiers = [_count(facts.super_spines, "super-spine"), _count(spines, "spine"), _count(rails, "rail switch")]
    title = (f"Fabric {facts.name}: {gpus:,} GPUs, {_count(hosts, 'host')}; "
             f"{', '.join(t for t in tiers if not t.startswith('0 '))} in {_count(len(pods), 'pod')}")
    svg = Svg(title)
    full = max(width, text_width(title, 14), text_width(LEGEND[0], 11))
    shift = (full - width) // 2  # the drawing centred under the title
    places = {k: Placed(p.x + shift, p.y + 30, p.w, p.h) for k, p in places.items()}
    svg.text(full // 2, 14, title, size=14, bold=True, anchor="middle")
    stacked = {n.key: n.stacked for n in nodes}
    bus = _bus_heights(nodes, places)
    for n in nodes:
        if n.parent and not n.hidden:
            _edge(svg, places[n.parent], places[n.key], n, stacked[n.parent], bus[n.rank])
    for n in nodes:
        _box(svg, places[n.key], n)
    for i, line in enumerate(LEGEND):
        svg.text(0, height + 30 + 24 + i * LINE_H, line, size=11, fill=GREY)
    return svg.document(full, height + 30 + 24 + len(LEGEND) * LINE_H), len(nodes)


LEGEND = ("Edges: the links of one pod or segment (count × speed) and the tier's worst oversubscription (down:up);",
          "dashed: no links (a rail-only pod's segments). A stacked box stands for identical pods or segments;",
          "per-pod and per-segment figures: fabric.md.")


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}" + ("" if n == 1 else "es" if what.endswith("h") else "s")


def _bus_heights(nodes: list[_Node], places: dict[str, Placed]) -> dict[int, int]:
    """Per layer, the height of the horizontal runs of the edges into it: BUS_DY under the lowest box of the layer
    above, so that every run of that gap lies above every label (the labels sit on the boxes below)."""
    bottoms: dict[int, int] = {}
    for n in nodes:
        bottoms[n.rank] = max(bottoms.get(n.rank, 0), places[n.key].bottom)
    return {rank + 1: bottom + BUS_DY for rank, bottom in bottoms.items()}


def _edge(svg: Svg, up: Placed, down: Placed, node: _Node, up_stacked: bool, bus: int) -> None:
    """An edge routed down from the parent's middle to the layer's bus height, across, and down into the child's
    middle (onto the card behind, when stacked); its label left-aligned just right of that last vertical run and
    above the child, where no other edge runs: the label is never crossed (tests/test_docs_pictures.py checks)."""
    cx = down.x + (down.w - (6 if node.stacked else 0)) // 2
    ux = up.x + (up.w - (6 if up_stacked else 0)) // 2
    ux = cx if abs(ux - cx) <= 4 else ux  # a box right above: straight down, no jog of a few pixels
    top = down.y - (6 if node.stacked else 0)
    svg.polyline([(ux, up.bottom), (ux, bus), (cx, bus), (cx, top)], stroke=GREY,
                 width=1 if node.member else 1.5, dash=node.member)
    for i, line in enumerate(node.label):
        y = top - 6 - (len(node.label) - 1 - i) * (LINE_H - 2)
        svg.text(cx + LABEL_DX, y, line, size=LABEL_SIZE)


def _box(svg: Svg, p: Placed, node: _Node) -> None:
    y = p.y
    w = p.w - (6 if node.stacked else 0)
    if node.stacked:  # a card behind the card: this box stands for several identical ones
        svg.rect(p.x + 6, y - 6, w, p.h, fill=FILL[node.kind], dash=node.dashed)
    svg.rect(p.x, y, w, p.h, fill=FILL[node.kind], dash=node.dashed, width=1.2)
    for i, line in enumerate(node.lines):
        svg.text(p.x + PAD, y + PAD + 8 + i * LINE_H, line, bold=i == 0)
