"""opensm.conf for upstream OpenSM 3.3.23 (Debian 12's `opensm` package), and the root and compute-node GUID files.

Forms and where they come from (checked offline, see tests/test_ib_opensm.py and tests/test_lab_ib.py):
- "key value" lines, '#' comments: the file `opensm -c FILE` writes (OpenSM 3.3.23). Every key below is one of the
  160 keys of that template; the test loads the file with `opensm -F FILE -c OUT` and finds each value back in
  OUT with no "Unrecognized token" or "Invalid Cached Option Value" (the 3.3.23 option parser's complaints).
- routing_engine, root_guid_file, cn_guid_file, lmc, sm_priority (0-15, higher is master), subnet_prefix,
  sweep_interval, partition_config_file, log_file, dump_files_dir, force_log_flush, qos, qos_policy_file, qos_max_vls,
  qos_high_limit, qos_vlarb_high/low ("VL:weight" pairs, comma separated), qos_sl2vl (16 comma-separated VLs): the
  template's comments; QoS values as linux-rdma/opensm doc/QoS_management_in_OpenSM.txt. The lab sees the SL-to-VL
  map applied (smpquery sl2vl) and the priorities elect the planned master (sminfo); VL arbitration is loaded
  without complaint but not read back.
- GUID files: "One guid in each line" (template comments of root_guid_file and cn_guid_file). ftree looks roots
  up by switch node GUID and compute nodes by port GUID (linux-rdma/opensm opensm/osm_ucast_ftree.c,
  rank_root_sw_by_guid and the cn_guid_tbl lookup with osm_physp_get_port_guid).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from railfabric.infiniband.model import Hca, IbFabric, SubnetManager

ROOT_ENGINES = ("ftree", "updn", "ar_ftree", "ar_updn")  # the engines that read root_guid_file


@dataclass(frozen=True, slots=True)
class Paths:
    """Where the SM host keeps the files opensm.conf names (the lab points them at its scratch directory)."""

    root_guid_file: str = "/etc/opensm/root-guids.conf"
    cn_guid_file: str = "/etc/opensm/cn-guids.conf"
    partition_config_file: str = "/etc/opensm/partitions.conf"
    qos_policy_file: str = "/etc/opensm/qos-policy.conf"
    log_file: str | None = None  # None: OpenSM's default (/var/log/opensm.log)
    dump_files_dir: str | None = None
    flush_log: bool = False  # force_log_flush TRUE: the lab reads the log while OpenSM runs


def opensm_conf(fab: IbFabric, sm: SubnetManager, paths: Paths = Paths()) -> str:
    """The configuration of one subnet manager (they differ in sm_priority only)."""
    lines = [
        f"# railfabric: OpenSM 3.3.23 configuration of the subnet manager on {sm.node} (fabric {fab.name})",
        f"# priority {sm.priority} of {', '.join(f'{s.node}={s.priority}' for s in fab.sms)}: the higher is master",
        f"subnet_prefix {fab.subnet_prefix:#018x}",
        f"routing_engine {fab.routing_engine}",
    ]
    if fab.routing_engine in ROOT_ENGINES:
        lines.append(f"root_guid_file {paths.root_guid_file}")
    if fab.routing_engine in ("ftree", "ar_ftree"):
        lines.append(f"cn_guid_file {paths.cn_guid_file}")
    lines += [
        f"lmc {fab.lmc}",
        f"sm_priority {sm.priority}",
        f"sweep_interval {fab.sweep_interval}",
        f"partition_config_file {paths.partition_config_file}",
    ]
    if fab.qos is None:
        lines.append("qos FALSE")
    else:
        q = fab.qos
        lines += [
            "qos TRUE",
            f"qos_max_vls {q.max_vls}",
            f"qos_high_limit {q.high_limit}",
            f"qos_vlarb_high {_arb(q.vlarb_high)}",
            f"qos_vlarb_low {_arb(q.vlarb_low)}",
            f"qos_sl2vl {','.join(str(v) for v in q.sl2vl)}",
        ]
        if q.partition_sl:
            lines.append(f"qos_policy_file {paths.qos_policy_file}")
    if paths.log_file is not None:
        lines.append(f"log_file {paths.log_file}")
    if paths.dump_files_dir is not None:
        lines.append(f"dump_files_dir {paths.dump_files_dir}")
    if paths.flush_log:
        lines.append("force_log_flush TRUE")
    return "\n".join(lines) + "\n"


def _arb(table: tuple[tuple[int, int], ...]) -> str:
    return ",".join(f"{vl}:{w}" for vl, w in table)


def root_guids(fab: IbFabric, node_guids: Mapping[str, int]) -> str:
    """The root GUID file: the node GUIDs of the top tier (spines, or cores when there are any), in plan order."""
    return guid_file(f"roots of {fab.name}", [(s.name, node_guids[s.name]) for s in fab.roots])


def cn_guids(fab: IbFabric, port_guids: Mapping[str, int]) -> str:
    """The compute-node GUID file: the port GUID of every HCA, in plan order."""
    return guid_file(f"compute nodes of {fab.name}", [(h.name, port_guids[h.name]) for h in fab.hcas])


def guid_file(what: str, rows: list[tuple[str, int]]) -> str:
    # OpenSM reads these files with parse_node_map (linux-rdma/opensm complib/cl_nodenamemap.c): '#' lines are
    # skipped, and after the GUID and white space the rest of the line is a name (ours: the node description).
    return f"# {what}\n" + "".join(f"{guid_text(g)} {name}\n" for name, g in rows)


def guid_text(guid: int) -> str:
    return f"0x{guid:016x}"


def hca_of(fab: IbFabric, name: str) -> Hca | None:
    node = fab.node(name)
    return node if isinstance(node, Hca) else None
