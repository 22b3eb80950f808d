"""docs/ of an InfiniBand fabric: docs/fabric.md (railfabric.outputs.docs.ib_markdown, figures from
railfabric.outputs.docs.ib_facts) and the pictures Ethernet draws, from the same expanded topology and report:
docs/fabric-at-a-glance.svg and docs/rails/pod-<p>-segment-<s>.svg (railfabric.outputs.docs.docs_pictures).

What differs on InfiniBand: the pictures name the switches' kind "InfiniBand" where Ethernet names the switch
platform (SONiC, EOS, ...: an InfiniBand switch runs none of them), the glance counts a host's HCAs, and the rail
diagram heads each column with the HCA's RDMA device when every host of the segment has the same one on that rail
(ib_wording), its left headings and first legend lines speaking of leaves, HCAs and IB ports. No picture shows an
address or an AS number (an InfiniBand fabric has neither).
"""

from __future__ import annotations

from dataclasses import replace

from railfabric.infiniband.model import IbFabric
from railfabric.outputs.docs import GLANCE, Facts, docs_facts, docs_pictures, rail_diagram_path
from railfabric.outputs.docs.ib_facts import ib_facts
from railfabric.outputs.docs.ib_markdown import ib_markdown
from railfabric.outputs.ib_paths import deploy_rows
from railfabric.outputs.pictures_rails_svg import Wording
from railfabric.topology import Topology

KIND = "InfiniBand"


def ib_fabric_facts(fab: IbFabric, topo: Topology, report: dict) -> Facts:
    """Ethernet's figures of the pictures (and the host links by segment) with every platform named InfiniBand."""
    facts, by_segment = docs_facts(fab.name, 0, topo, report)
    pods = tuple(replace(p, platforms=KIND, segments=tuple(replace(s, platforms=KIND, nic_word="HCAs")
                                                                for s in p.segments))
                 for p in facts.pods)
    return replace(facts, pods=pods, super_spine_platforms=KIND if facts.super_spines else ""), by_segment


IB_LEFT = ("leaf switch", "HCA of rail r", "leaf ports")
IB_LEGEND = ("Row: a host. Column: the HCA of one rail on every host (its RDMA device) and the leaf it is cabled to.",
             "Cell: the leaf's IB port that HCA lands on; the coloured heading: all its ports there.")


def ib_wording(fab: IbFabric, topo: Topology) -> dict[tuple[int, int], Wording]:
    """Per segment, each rail's HCA device when every host of the segment has the same one on that rail (else the
    column keeps "NIC r")."""
    devices: dict[tuple[int, int], dict[int, set[str]]] = {}
    for hca in fab.hcas:
        host = topo.hosts[hca.host]
        devices.setdefault((host.pod, host.segment), {}).setdefault(hca.rail, set()).add(hca.device)
    return {key: Wording(tuple((rail, next(iter(names))) for rail, names in sorted(rails.items())
                               if len(names) == 1), IB_LEFT, IB_LEGEND)
            for key, rails in devices.items()}


def ib_docs(fab: IbFabric, topo: Topology, report: dict | None) -> dict[str, str]:
    """docs/fabric.md, and its pictures when the solver's report is there (they draw its capacity figures)."""
    keys = sorted((s.pod, s.id) for s in topo.segments)
    out: dict[str, str] = {}
    glance, diagrams = "", [rail_diagram_path(*key) for key in keys]
    if report is not None:
        out.update(docs_pictures(fab.name, 0, topo, report, facts=ib_fabric_facts(fab, topo, report),
                                 words=ib_wording(fab, topo)))
        glance = GLANCE
    else:
        diagrams = []
    out["docs/fabric.md"] = ib_markdown(ib_facts(fab, topo), fab.qos, report, deploy_rows(fab), glance, diagrams)
    return dict(sorted(out.items()))
