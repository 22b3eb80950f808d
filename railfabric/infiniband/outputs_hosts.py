"""The host side of an InfiniBand fabric: per host, its HCAs in rail order and the NCCL settings that follow from the
plan, as the file NCCL reads at start (`/etc/nccl.conf`), plus one JSON summary of every host.

NCCL (forms and sources):
- /etc/nccl.conf: "Environment variables can also be set statically in /etc/nccl.conf (for an administrator to set
  system-wide values)" (NCCL User Guide 2.23.4, Environment Variables). NCCL reads it line by line, takes the text
  before the first '=' as the name and the rest of the line as the value, skips lines without '=', and does not
  override a variable already set in the environment (NVIDIA/nccl setEnvFile, src/include/param.h of NCCL 2.x:
  setenv(name, value, 0); read in NVIDIA/nccl source, not run). There is no comment syntax: our comment lines
  start with '#' and never contain '=', so NCCL skips them; values carry no spaces.
- NCCL_IB_HCA: a leading '=' makes the whole list exact names (not prefixes), entries are comma separated, each
  `<device>:<port>` (NVIDIA/nccl src/transport/net_ib.cc: `searchExact = userIbEnv[0] == '='`, then
  parseStringList; the User Guide documents the same '=' exact-match prefix for NCCL_SOCKET_IFNAME). We list every
  cabled port of each HCA in rail order, e.g. `NCCL_IB_HCA==mlx5_0:1,mlx5_1:1`.
- NCCL_IB_SL: the InfiniBand service level of NCCL's queue pairs. We write the SL the QoS plan gives the host's
  compute partition (railfabric.infiniband.model.Qos.sl_of); without a QoS plan it is not written.
- NCCL_IB_PKEY: the INDEX in the port's PKey table, not the PKey value (net_ib.cc: qpAttr.pkey_index =
  ncclParamIbPkey(), default 0). Written only when the host is in a tenant partition.

The host's compute partition: among the planned partitions in which every HCA of the host is a full member, the
ones whose service level is the compute one (the QoS plan's default SL; all of them without QoS); exactly one of
those is the compute partition, none means the host uses the default partition (NCCL's index 0 default is then
right; when the HCAs are only limited members of it, hosts cannot talk over it and a note says so), several are
ambiguous and no PKey index is written (the JSON says why).

The PKey index, as OpenSM 3.3.23 fills a port's PKey table on its first sweep (linux-rdma/opensm
opensm/osm_pkey_mgr.c): the default partition (0x7fff) goes to index 0 (no partition uses the `indx0` flag: our
partitions.conf never writes it), then the port's other partitions take the next free entries in the order OpenSM
walks its partition table: a map keyed by the PKey in network byte order, so on a little-endian SM host (x86-64,
aarch64) the order is by the PKey's low byte, then its high byte (0x7000 < 0x0a01 < 0x0b01 < 0x0102 < 0x0a02).
Proven in the simulated subnet: tests/test_lab_ib_hosts.py runs OpenSM on a rail fat tree with partitions whose
order by value, by low byte and by file order all differ, and reads every HCA's table back (smpquery pkeys).
Caveat: OpenSM keeps an entry's index once given (its accumulated PKey indices), so partitions added later to a
running subnet take free entries, not this order; re-render after such a change and compare with `smpquery pkeys`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from railfabric.infiniband.model import DEFAULT_PKEY, Hca, IbFabric, Membership, Partition
from railfabric.infiniband.outputs_ibdiag import host_type, host_units

NCCL_CONF = "/etc/nccl.conf"


@dataclass(frozen=True, slots=True)
class HostPlan:
    host: str
    hcas: tuple[Hca, ...]  # rail order
    ports: tuple[tuple[str, int], ...]  # (device, port) of every cabled HCA port, rail order
    partition: Partition | None  # the compute partition, None: the default partition
    pkey_index: int | None  # NCCL_IB_PKEY, None: not written
    sl: int | None  # NCCL_IB_SL, None: not written
    notes: tuple[str, ...]


def pkey_order(pkey: int) -> tuple[int, int]:
    """OpenSM's walk order of partitions on a little-endian SM host: the PKey's network-order bytes read as a
    little-endian number, i.e. by low byte, then high byte."""
    base = pkey & 0x7FFF
    return base & 0xFF, base >> 8


def pkey_table(fab: IbFabric, hca: str) -> tuple[int, ...]:
    """The base PKeys (membership bit cleared) of an HCA port, by index: the default partition first, then the
    HCA's partitions in OpenSM's order."""
    mine = sorted({p.pkey for p in fab.partitions if any(m.node == hca for m in p.members)}, key=pkey_order)
    return (DEFAULT_PKEY, *mine)


def _compute_partitions(fab: IbFabric, hcas: tuple[Hca, ...]) -> list[Partition]:
    names = {h.name for h in hcas}
    full = [p for p in fab.partitions
            if names <= {m.node for m in p.members if m.membership is Membership.FULL}]
    if fab.qos is None:
        return full
    qos = fab.qos
    return [p for p in full if qos.sl_of(p.pkey) == qos.default_sl]


def host_plan(fab: IbFabric, host: str, hcas: tuple[Hca, ...],
              cabled: frozenset[tuple[str, int]] | None = None) -> HostPlan:
    """The host's plan; `cabled`: every (node, port) a cable uses (computed when not given)."""
    if cabled is None:
        cabled = _cabled(fab)
    ports = tuple((h.device, p) for h in hcas for p in range(1, h.ports + 1) if (h.name, p) in cabled)
    notes: list[str] = []
    candidates = _compute_partitions(fab, hcas)
    part = candidates[0] if len(candidates) == 1 else None
    if len(candidates) > 1:
        notes.append("in several compute partitions (" + ", ".join(p.name for p in candidates)
                     + "): NCCL_IB_PKEY not written, the job must choose")
    if not candidates and fab.default_membership is Membership.LIMITED:
        notes.append("no compute partition and the HCAs are limited members of the default partition: two limited "
                     "members cannot talk, so NCCL between hosts fails until a compute partition is planned")
    index = None
    if part is not None:
        indices = sorted({pkey_table(fab, h.name).index(part.pkey) for h in hcas})
        if len(indices) == 1:
            index = indices[0]
        else:
            notes.append(f"the HCAs hold {part.name} at different PKey indices {indices}: NCCL_IB_PKEY not written")
    sl = None
    if fab.qos is not None:
        sl = fab.qos.sl_of(part.pkey) if part is not None else fab.qos.default_sl
    return HostPlan(host, hcas, ports, part, index, sl, tuple(notes))


def _cabled(fab: IbFabric) -> frozenset[tuple[str, int]]:
    return frozenset((end.node, end.port) for cable in fab.cables for end in (cable.a, cable.z))


def host_plans(fab: IbFabric) -> tuple[HostPlan, ...]:
    """Every host in plan order."""
    cabled = _cabled(fab)
    return tuple(host_plan(fab, host, hcas, cabled) for host, hcas in host_units(fab).items())


def nccl_conf(fab: IbFabric, hp: HostPlan) -> str:
    """The host's /etc/nccl.conf."""
    comments = [
        f"# railfabric: NCCL settings of {hp.host} (fabric {fab.name}), for {NCCL_CONF}",
        "# NCCL skips lines without an equals sign, and a variable already set in the environment wins",
        "# HCAs in rail order: " + ", ".join(f"rail {h.rail} {h.device}" for h in hp.hcas),
    ]
    if hp.partition is not None:
        comments.append(f"# compute partition {hp.partition.name} PKey {hp.partition.pkey:#06x}, at this index in "
                        f"every HCA's PKey table (OpenSM order, see docs/infiniband-outputs.md)")
    else:
        comments.append("# compute partition: the default partition (PKey index 0, NCCL's default)")
    comments += [f"# {n}" for n in hp.notes]
    for line in comments:
        if "=" in line:  # NCCL would read it as a variable
            raise ValueError(f"comment line with '=' in nccl.conf: {line!r}")
    lines = [f"NCCL_IB_HCA=={','.join(f'{dev}:{port}' for dev, port in hp.ports)}"]
    if hp.sl is not None:
        lines.append(f"NCCL_IB_SL={hp.sl}")
    if hp.pkey_index is not None and hp.partition is not None:
        lines.append(f"NCCL_IB_PKEY={hp.pkey_index}")
    return "\n".join([*comments, *lines]) + "\n"


def hosts_json(fab: IbFabric) -> str:
    """One summary of every host: HCAs in rail order with node descriptions and ibdiagnet port names, the PKey tables,
    the compute partition and the NCCL values."""
    out = {}
    for hp in host_plans(fab):
        out[hp.host] = {
            "hcas": [{"device": h.device, "rail": h.rail, "node_description": h.name,
                      "ibdiagnet_port": f"{host_type(hp.hcas)} {hp.host} {h.device}/P1",
                      "pkey_table": [f"{p:#06x}" for p in pkey_table(fab, h.name)]}
                     for h in hp.hcas],
            "compute_partition": None if hp.partition is None else
            {"name": hp.partition.name, "pkey": f"{hp.partition.pkey:#06x}"},
            "nccl": {"NCCL_IB_HCA": "=" + ",".join(f"{d}:{p}" for d, p in hp.ports),
                     **({"NCCL_IB_SL": hp.sl} if hp.sl is not None else {}),
                     **({"NCCL_IB_PKEY": hp.pkey_index} if hp.pkey_index is not None else {})},
            "notes": list(hp.notes),
        }
    return json.dumps({"fabric": fab.name, "hosts": out}, indent=2, sort_keys=True) + "\n"
