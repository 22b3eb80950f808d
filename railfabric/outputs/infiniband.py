"""What `fabric render` writes for an InfiniBand fabric (fabric.kind: infiniband), as pure functions of the planned
subnet: path under generated/ → text. railfabric/emit/build.py calls `ib_files`; only the emit stage writes.

IB_OUTPUTS is the one list of InfiniBand output builders: each takes the planned subnet (IbFabric) and the
pipeline's values (IbSources) and returns {path: text}. Add a builder here to add an output. Ethernet-only outputs
(switch configs, IP plan, Ansible, expected state, netplan) are not made: an InfiniBand fabric has none of their
inputs.

- infiniband/<sm node>/opensm.conf: one per subnet manager (railfabric.infiniband.opensm_conf, paths under
  /etc/opensm/); they differ in sm_priority only. A node description with spaces (an SM on a host's HCA,
  "dgx01 mlx5_0") becomes dgx01_mlx5_0 in the path.
- infiniband/partitions.conf: the planned, fail-closed file (partitions.planned_partitions_conf).
- infiniband/qos-policy.conf: when a partition has a service level (qos_policy.qos_policy).
- infiniband/topology.net: the expected topology in ibnetdiscover / ibsim net form (netfile.net_file).
- cabling.csv: the Ethernet writer (railfabric.outputs.cabling) with the IB port number as each switch port's
  interface name and the HCA (port 1, RDMA device `mlx5_0`) at each host end.
- hosts/railmap.csv: one row per host × rail: HCA, leaf and leaf port, partitions, the SL NCCL uses
  (railfabric.outputs.ib_railmap).
- report.json: the solver's report with its `infiniband` section.
- infiniband/ibdiag/, infiniband/nvidia-sm/, infiniband/hosts/: the site outputs (railfabric.infiniband.outputs_site:
  the ibdiagnet / UFM cable-validation topology and IBNL files, NVIDIA's SM profile per SM, each host's nccl.conf
  and hosts.json; docs/infiniband-outputs.md says where each form comes from).
- docs/fabric.md and its pictures (docs/fabric-at-a-glance.svg, docs/rails/*.svg): railfabric.outputs.ib_docs; the
  page's "Where each file goes" table from railfabric.outputs.ib_paths.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from railfabric.infiniband.model import IbFabric
from railfabric.infiniband.netfile import net_file
from railfabric.infiniband.opensm_conf import opensm_conf
from railfabric.infiniband.outputs_site import site_outputs
from railfabric.infiniband.partitions import planned_partitions_conf
from railfabric.infiniband.qos_policy import qos_policy
from railfabric.outputs.cabling import cabling_files
from railfabric.outputs.ib_docs import ib_docs
from railfabric.outputs.ib_paths import DIR, sm_dir
from railfabric.outputs.ib_railmap import hca_of_links, ib_railmap
from railfabric.outputs.views import Port, topology_links
from railfabric.topology import Topology


@dataclass(frozen=True)
class IbSources:
    """What the builders may read besides the subnet: the expanded topology and the solver's report."""

    topology: Topology
    report: dict | None


Builder = Callable[[IbFabric, IbSources], dict[str, str]]


def opensm_files(fab: IbFabric, _src: IbSources) -> dict[str, str]:
    return {f"{sm_dir(sm.node)}/opensm.conf": opensm_conf(fab, sm) for sm in fab.sms}


def partition_files(fab: IbFabric, _src: IbSources) -> dict[str, str]:
    return {f"{DIR}/partitions.conf": planned_partitions_conf(fab)}


def qos_files(fab: IbFabric, _src: IbSources) -> dict[str, str]:
    text = qos_policy(fab)
    return {} if text is None else {f"{DIR}/qos-policy.conf": text}


def topology_files(fab: IbFabric, _src: IbSources) -> dict[str, str]:
    return {f"{DIR}/topology.net": net_file(fab)}


def cabling(fab: IbFabric, src: IbSources) -> dict[str, str]:
    """cabling.csv as for Ethernet; a switch port's interface is its IB port number (no breakouts on these links), a
    host end's port the HCA's port and its interface the HCA's RDMA device."""
    topo = src.topology
    links = topology_links(topo)
    used: dict[str, set[tuple[int, int]]] = {name: set() for name in topo.switches}
    for link in links:
        for end in (link.a, link.z):
            if end.device in used:
                used[end.device].add((end.port, end.lane))
    ports: dict[str, tuple[Port, ...]] = {
        name: tuple((p, lane, str(p) if not lane else f"{p}/{lane}", None, "", "", "") for p, lane in sorted(at))
        for name, at in used.items()}
    hcas = {link_id: (str(port), hca.device) for link_id, (hca, port) in hca_of_links(fab, topo).items()}
    return cabling_files(links, {n: sw.rack for n, sw in topo.switches.items()}, ports, hcas)


def railmap(fab: IbFabric, _src: IbSources) -> dict[str, str]:
    return ib_railmap(fab)


def docs(fab: IbFabric, src: IbSources) -> dict[str, str]:
    return ib_docs(fab, src.topology, src.report)


def site(fab: IbFabric, _src: IbSources) -> dict[str, str]:
    return {f"{DIR}/{name}": text for name, text in site_outputs(fab).items()}


def report(_fab: IbFabric, src: IbSources) -> dict[str, str]:
    return {} if src.report is None else {"report.json": json.dumps(src.report, indent=2, sort_keys=True) + "\n"}


IB_OUTPUTS: tuple[tuple[str, Builder], ...] = (
    ("opensm", opensm_files),
    ("partitions", partition_files),
    ("qos-policy", qos_files),
    ("topology", topology_files),
    ("cabling", cabling),
    ("railmap", railmap),
    ("report", report),
    ("site", site),
    ("docs", docs),
)


def ib_files(fab: IbFabric, src: IbSources) -> dict[str, dict[str, str]]:
    """Every output: its name → {path under generated/: text}; ValueError when two claim one path."""
    out: dict[str, dict[str, str]] = {}
    seen: set[str] = set()
    for name, build in IB_OUTPUTS:
        files = build(fab, src)
        clash = seen & files.keys()
        if clash:
            raise ValueError(f"two InfiniBand outputs claim {sorted(clash)}")
        seen |= files.keys()
        out[name] = files
    return out
