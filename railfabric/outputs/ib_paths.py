"""Where an InfiniBand fabric's generated files are (under generated/) and where a site puts each one: the rows of
"Where each file goes" in docs/fabric.md.

Destinations and their sources:
- /etc/opensm/opensm.conf: upstream OpenSM reads it when -F is not given ("When not specified
  /etc/opensm/opensm.conf will be used (if exists)", opensm(8), OpenSM 3.3.23); partitions.conf, qos-policy.conf,
  root-guids.conf and cn-guids.conf go where the rendered opensm.conf names them (railfabric.infiniband.opensm_conf
  OpensmPaths: /etc/opensm/).
- /opt/ufm/files/conf/opensm/opensm.conf: the "Default SM configuration file" of NVIDIA UFM Enterprise (UFM
  Enterprise User Manual v6.19.14, Appendix "SM Default Files"; the same path in v6.11.3 to v6.23.20). NOT verified
  on a UFM host.
- /etc/nccl.conf: NCCL's system-wide settings file (NCCL User Guide 2.23.4, Environment Variables;
  railfabric.infiniband.outputs_hosts).
- ibdiag/: read by `ibdiagnet -t` / UFM Cable Validation where they run (docs/infiniband-outputs.md); topology.net,
  cabling.csv, hosts/railmap.csv, hosts.json and docs/ are for people and site tools, not installed.
"""

from __future__ import annotations

from railfabric.infiniband.model import IbFabric

DIR = "infiniband"
OPENSM_ETC = "/etc/opensm"
UFM_OPENSM = "/opt/ufm/files/conf/opensm/opensm.conf"
NOT_INSTALLED = "not installed: read by people and tools"


def sm_dir(node: str) -> str:
    return f"{DIR}/{node.replace(' ', '_')}"


def file_part(name: str) -> str:
    """A node name as a file name part, as railfabric.infiniband.outputs_site names the NVIDIA SM profiles."""
    return name.replace(" ", "_").replace("/", "_")


Deploy = tuple[tuple[str, ...], str, str]  # generated paths (none: made on site), where they go, on which node(s)


def deploy_rows(fab: IbFabric) -> list[Deploy]:
    """Every kind of file: (generated paths, where it goes, on which node(s)); SM files one row per SM. "On" an SM
    node: the host that runs OpenSM for it (an SM planned on a switch's node description)."""
    every_sm = ", ".join(sm.node for sm in fab.sms) or "–"
    rows: list[Deploy] = [((f"{sm_dir(sm.node)}/opensm.conf",), f"{OPENSM_ETC}/opensm.conf", sm.node)
                          for sm in fab.sms]
    rows.append(((f"{DIR}/partitions.conf",), f"{OPENSM_ETC}/partitions.conf", every_sm))
    if fab.qos is not None:
        rows.append(((f"{DIR}/qos-policy.conf",), f"{OPENSM_ETC}/qos-policy.conf", every_sm))
    rows.append(((), f"{OPENSM_ETC}/root-guids.conf and cn-guids.conf, made by `fabric ib bind` from the "
                 "discovered fabric", every_sm))
    rows += [((f"{DIR}/nvidia-sm/opensm-{file_part(sm.node)}.conf",), f"{UFM_OPENSM} (NVIDIA's SM under UFM, "
              "instead of the upstream files)", sm.node) for sm in fab.sms]
    rows += [
        ((f"{DIR}/hosts/<host>/nccl.conf",), "/etc/nccl.conf", "each host, its own"),
        ((f"{DIR}/ibdiag/topology.topo", f"{DIR}/ibdiag/ibnl/"), "`ibdiagnet -t` / UFM Cable Validation",
         "the node that runs the check"),
        ((f"{DIR}/topology.net",), NOT_INSTALLED + " (diff with `ibnetdiscover`)", "–"),
        (("cabling.csv", "hosts/railmap.csv"), NOT_INSTALLED + " (cabling, HCA set-up)", "–"),
        ((f"{DIR}/hosts/hosts.json", "report.json", "docs/"), NOT_INSTALLED, "–"),
    ]
    return rows
