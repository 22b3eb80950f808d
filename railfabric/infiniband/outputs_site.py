"""Every site output of railfabric.infiniband.outputs_* for one fabric, as relative file name -> text: what
`fabric render` writes under the fabric's InfiniBand directory once it is wired in (the emit step writes files;
this only names them). Names are fixed and sorted, so two renders of one plan give the same files and bytes.

  ibdiag/topology.topo              ibdiagnet -t / UFM Cable Validation load_topo (outputs_ibdiag.topology_file)
  ibdiag/ibnl/<type>.ibnl           ibdiagnet --out_ibnl_dir: one per host type (outputs_ibdiag.ibnl_files)
  nvidia-sm/opensm-<sm node>.conf   NVIDIA SM profile per subnet manager (outputs_nvidia_sm, NOT checkable offline)
  hosts/<host>/nccl.conf            drop in as /etc/nccl.conf on the host (outputs_hosts.nccl_conf)
  hosts/hosts.json                  every host's HCAs, PKey tables, compute partition, NCCL values
"""

from __future__ import annotations

from railfabric.infiniband.model import IbFabric
from railfabric.infiniband.outputs_hosts import host_plans, hosts_json, nccl_conf
from railfabric.infiniband.outputs_ibdiag import ibnl_files, topology_file
from railfabric.infiniband.outputs_nvidia_sm import nvidia_opensm_conf


def _file_part(name: str) -> str:
    """A node name as a file name part: node descriptions may hold spaces (an SM on an HCA: "dgx01 mlx5_0")."""
    return name.replace(" ", "_").replace("/", "_")


def site_outputs(fab: IbFabric) -> dict[str, str]:
    out = {"ibdiag/topology.topo": topology_file(fab)}
    out.update({f"ibdiag/ibnl/{name}": text for name, text in ibnl_files(fab).items()})
    out.update({f"nvidia-sm/opensm-{_file_part(sm.node)}.conf": nvidia_opensm_conf(fab, sm) for sm in fab.sms})
    out.update({f"hosts/{_file_part(hp.host)}/nccl.conf": nccl_conf(fab, hp) for hp in host_plans(fab)})
    out["hosts/hosts.json"] = hosts_json(fab)
    return dict(sorted(out.items()))
