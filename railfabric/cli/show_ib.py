"""`fabric show NAME` on an InfiniBand inventory: one switch or one GPU server of the planned subnet
(railfabric.topology.infiniband.ib_fabric), formatted only. NAME is a switch's hostname or pattern name, a host's
name, or an HCA's node description ("dgx01 mlx5_0", as ibnetdiscover prints it: that HCA's host is shown).

- A switch: tier, model, ports used and free (a port is used when a planned cable ends on it), each cable (port →
  the peer's node description and port), the subnet manager it runs (priority; master = the highest priority,
  IbFabric.master, the others standby), and whether it is a root of the routing engine (IbFabric.roots, listed in
  root_guid_file for the engines railfabric.infiniband.opensm_conf.ROOT_ENGINES names).
- A host: its HCAs in rail order (railfabric.infiniband.outputs_ibdiag.host_units) with the leaf and leaf port of
  each, the partitions its HCAs are in (PKey, membership, the PKey index of outputs_hosts.pkey_table) and the lines
  of the host's /etc/nccl.conf as railfabric.infiniband.outputs_hosts.nccl_conf writes them (never recomputed here).
"""

from __future__ import annotations

from railfabric.infiniband.model import DEFAULT_PKEY, End, Hca, IbFabric, Switch
from railfabric.infiniband.opensm_conf import ROOT_ENGINES
from railfabric.infiniband.outputs_hosts import host_plan, nccl_conf, pkey_table
from railfabric.infiniband.outputs_ibdiag import host_units
from railfabric.topology import Topology


def _peers(fab: IbFabric, node: str) -> dict[int, End]:
    """port of `node` -> the other end of the cable on it."""
    out: dict[int, End] = {}
    for cable in fab.cables:
        if cable.a.node == node:
            out[cable.a.port] = cable.z
        if cable.z.node == node:
            out[cable.z.port] = cable.a
    return out


def _ranges(ports: list[int]) -> str:
    """1, 2, 3, 7 -> "1-3, 7"."""
    out: list[str] = []
    for p in ports:
        if out and p == int(out[-1].split("-")[-1]) + 1:
            out[-1] = f"{out[-1].split('-')[0]}-{p}"
        else:
            out.append(str(p))
    return ", ".join(out)


def _sm_line(fab: IbFabric, node: str) -> str:
    sm = next((s for s in fab.sms if s.node == node), None)
    if sm is None:
        return "none"
    role = "master" if sm == fab.master else f"standby (master {fab.master.node}, priority {fab.master.priority})"
    return f"priority {sm.priority}, {role}"


def format_ib_switch(fab: IbFabric, topo: Topology, name: str) -> str:
    sw = next(s for s in fab.switches if s.name == name)
    tsw = topo.switches[name]
    where = "".join(f" {k}={v}" for k, v in (("pod", tsw.pod), ("segment", tsw.segment)) if v is not None)
    peers = _peers(fab, name)
    free = [p for p in range(1, sw.ports + 1) if p not in peers]
    lines = [f"{sw.name}  tier={sw.tier.value}{where} model={sw.model}",
             f"  ports      {sw.ports}: {len(peers)} used, {len(free)} free" + (f" ({_ranges(free)})" if free else "")]
    if tsw.rails:
        lines.append(f"  rails      {', '.join(map(str, tsw.rails))}")
    lines.append(f"  subnet manager  {_sm_line(fab, name)}")
    lines.append(f"  {fab.routing_engine} root  " + _root(fab, sw))
    for port in sorted(peers):
        peer = peers[port]
        lines.append(f"  port {port:<4} -> {peer.node} port {peer.port}")
    return "\n".join(lines) + "\n"


def _root(fab: IbFabric, sw: Switch) -> str:
    if fab.routing_engine not in ROOT_ENGINES:
        return f"- ({fab.routing_engine} uses no root GUID file)"
    return "yes (in root_guid_file)" if sw in fab.roots else "no"


def _partition_lines(fab: IbFabric, hcas: tuple[Hca, ...]) -> list[str]:
    names = {h.name for h in hcas}
    tables = {h.name: pkey_table(fab, h.name) for h in hcas}

    def index(pkey: int) -> str:
        found = sorted({t.index(pkey) for t in tables.values() if pkey in t})
        return "index " + ", ".join(map(str, found))

    out = [f"  partition  default {DEFAULT_PKEY:#06x} {fab.default_membership.value} ({index(DEFAULT_PKEY)})"]
    for part in fab.partitions:
        mine = [m for m in part.members if m.node in names]
        if not mine:
            continue
        kinds = sorted({m.membership.value for m in mine})
        some = "" if len(mine) == len(hcas) else f", {len(mine)} of {len(hcas)} HCAs"
        out.append(f"  partition  {part.name} {part.pkey:#06x} {'/'.join(kinds)} ({index(part.pkey)}{some})")
    return out


def format_ib_host(fab: IbFabric, topo: Topology, name: str) -> str:
    host = topo.hosts[name]
    hcas = host_units(fab).get(name, ())
    lines = [f"{name}  pod={host.pod} segment={host.segment} number={host.number} model={host.model} "
             f"gpus={host.gpus}"]
    for hca in hcas:
        peers = _peers(fab, hca.name)
        to = ", ".join(f"port {p} -> {peers[p].node} port {peers[p].port}" for p in sorted(peers)) or "not cabled"
        sm = _sm_line(fab, hca.name)
        lines.append(f"  rail {hca.rail:<3} {hca.device:<8} {to}" + (f"; subnet manager {sm}" if sm != "none" else ""))
    lines += _partition_lines(fab, hcas)
    plan = host_plan(fab, name, hcas)
    if plan.partition is not None:
        lines.append(f"  compute    {plan.partition.name} {plan.partition.pkey:#06x}")
    else:
        lines.append(f"  compute    the default partition {DEFAULT_PKEY:#06x}")
    conf = nccl_conf(fab, plan).splitlines()
    lines.append("  nccl       " + " ".join(line for line in conf if not line.startswith("#")))
    lines += [f"  note       {n}" for n in plan.notes]
    return "\n".join(lines) + "\n"
