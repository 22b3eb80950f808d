"""`fabric show HOST`: one GPU server's plan as text (the host model of railfabric/hosts/, formatted only)."""

from __future__ import annotations

from railfabric.hosts import HostsPlan, Route


def _how(r: Route) -> str:
    return " unreachable" if r.unreachable else f" via {r.via}" if r.via else " on-link"


def format_host(plan: HostsPlan, name: str) -> str:
    host = plan.hosts[name]
    g = plan.groups[host.group]
    lines = [f"{host.name}  pod={host.pod} segment={host.segment} number={host.number} model={host.model} "
             f"gpus={host.gpus} group={host.group}"]
    for i in host.interfaces:
        kind = f"bond {i.bond_mode} of {', '.join(i.members)}" if i.members else f"NIC {i.nic} port {i.port}"
        lines.append(f"  rail {i.rail:<3} {i.name} ({kind}; rdma {i.rdma_device}; gpus "
                     f"{', '.join(map(str, i.gpus)) or '-'})")
        lines.append(f"    address {i.address}/{i.prefix_len} gateway {i.gateway} vlan {i.vlan} mtu {i.mtu} -> "
                     + ", ".join(f"{sw} port {port}" for sw, port in i.uplinks))
        lines.append(f"    rule from {i.address} lookup {i.table} (priority {i.rule_priority}); table {i.table}: "
                     + ", ".join(r.to + _how(r) for r in i.routes))
    r = g.roce
    lines.append(f"  roce       dscp-prio {' '.join(f'{d}:{p}' for d, p in r.dscp_prio)}; pfc "
                 f"{', '.join(map(str, r.pfc_prios))}; ecn {'on' if r.ecn else 'off'}; cnp dscp {r.cnp_dscp} "
                 f"prio {r.cnp_prio}; tos {r.tos}")
    lines.append("  nccl       " + " ".join(f"{k}={v}" for k, v in g.nccl))
    return "\n".join(lines) + "\n"
