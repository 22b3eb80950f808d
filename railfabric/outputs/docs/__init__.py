"""generated/docs/: fabric.md (the fabric for reviewers: pictures, per pod and segment tables, the solver's figures)
and its pictures, SVG linked relatively from fabric.md so that they show where the Markdown is shown (a pull request
on GitHub or GitLab): docs/fabric-at-a-glance.svg and docs/rails/pod-<p>-segment-<s>.svg per segment (a
hosts-by-rails grid: railfabric/outputs/pictures_rails.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from railfabric.impact.costs import failure_costs
from railfabric.inventory.intent import Inventory
from railfabric.outputs.docs.facts import FabricFacts, fabric_facts, host_links_by_segment
from railfabric.outputs.docs.markdown import fabric_markdown
from railfabric.outputs.pictures_glance import glance_svg
from railfabric.outputs.pictures_rails_svg import ETHERNET, RailPictures, Wording
from railfabric.topology import Topology
from railfabric.topology.model import Host, Link, LinkRole

__all__ = ["GLANCE", "docs_facts", "docs_files", "docs_markdown", "docs_pictures", "fabric_markdown", "failure_costs",
           "rail_diagram_path"]

GLANCE = "fabric-at-a-glance.svg"


def rail_diagram_path(pod: int, segment: int) -> str:
    """The rail diagram of a segment, relative to docs/ (pod and segment ids are integers: always a safe name)."""
    return f"rails/pod-{int(pod)}-segment-{int(segment)}.svg"


def docs_files(inv: Inventory, topo: Topology, report: dict, summary: dict) -> dict[str, str]:
    """docs/fabric.md and its pictures: relative path under generated/ → text."""
    planes = (inv.super_spines.planes or 0) if inv.super_spines is not None else 0
    out = {**docs_pictures(inv.fabric.name, planes, topo, report),
           **docs_markdown(inv.fabric.name, planes, topo, report, summary, costs=failure_costs(inv, topo))}
    return dict(sorted(out.items()))


Facts = tuple[FabricFacts, dict[tuple[int, int], list[Link]]]


def docs_facts(name: str, planes: int, topo: Topology, report: dict) -> Facts:
    """The figures both docs parts show and the host links by segment: from the same inputs as the parts, so the
    two parts of a render may share them (railfabric/outputs/parts.py)."""
    by_segment = host_links_by_segment(topo)
    return fabric_facts(name, topo, report, planes, by_segment), by_segment


def docs_markdown(name: str, planes: int, topo: Topology, report: dict, summary: dict,
                  facts: Facts | None = None, costs: list[dict] | None = None) -> dict[str, str]:
    """docs/fabric.md, from the fabric's name and super-spine planes, the topology, the report and the summary
    (and `facts`: docs_facts of the same, when already made; `costs`: railfabric/impact/costs.py's rows)."""
    fabric, _ = facts or docs_facts(name, planes, topo, report)
    keys = sorted((s.pod, s.id) for s in topo.segments)
    diagrams = {key: rail_diagram_path(*key) for key in keys}
    return {"docs/fabric.md": fabric_markdown(summary, report, fabric, GLANCE, diagrams, costs)}


def docs_pictures(name: str, planes: int, topo: Topology, report: dict, facts: Facts | None = None,
                  words: Mapping[tuple[int, int], Wording] | None = None) -> dict[str, str]:
    """docs/fabric-at-a-glance.svg and docs/rails/*.svg (no summary: pool usage is not drawn; `facts` as in
    docs_markdown; `words`: (pod, segment) → how its rail diagram names the host ports, Ethernet's by default)."""
    fabric, by_segment = facts or docs_facts(name, planes, topo, report)
    out = {f"docs/{GLANCE}": glance_svg(fabric)[0]}
    hosts: dict[tuple[int, int], list[Host]] = defaultdict(list)
    for h in topo.hosts.values():
        hosts[(h.pod, h.segment)].append(h)
    peers: dict[str, list[Link]] = defaultdict(list)
    for lk in topo.peer_links:
        peers[lk.a.device].append(lk)
    off: dict[tuple[int, int], list[Link]] = defaultdict(list)  # host links taken off by a disabled port
    for lk, _at, _end in topo.off:
        if lk.role is LinkRole.HOST and lk.a.device in topo.hosts:
            h = topo.hosts[lk.a.device]
            off[(h.pod, h.segment)].append(lk)
    seg_facts = {(s.pod, s.id): s for p in fabric.pods for s in p.segments}
    drawer = RailPictures()
    pinned = frozenset(topo.pinned)
    for info in sorted(topo.segments, key=lambda s: (s.pod, s.id)):
        key = (info.pod, info.id)
        switches = [topo.switches[n] for n in info.switches]
        out[f"docs/{rail_diagram_path(*key)}"] = drawer.svg(info, seg_facts[key], switches, hosts[key],
                                                             by_segment.get(key, []),
                                                             [lk for n in info.switches for lk in peers.get(n, [])],
                                                             pinned, off.get(key, []),
                                                             (words or {}).get(key, ETHERNET))
    return out
