"""Build the host model (fabric/hosts/model.py) from the topology, the plan and the fabric's QoS policy: the same
sources as the rail map (fabric/outputs/railmap.py) and the switches' device model (fabric/device/qos.py), so host
and switch cannot disagree.

Decisions made here, once:
- one layer-3 rail interface per NIC port, or per NIC under dual_homing: mlag (LACP bond `bond<n>`, mode 802.3ad,
  both ports members, one address); two-vlans: each port its own address, table and rule;
- routing table of NIC n port p: TABLE_BASE + n·ports_per_nic + p (a bond counts as port 1): 101, 102, ... for
  one-port NICs; the `from <address>` rule has the same number as its priority (before main's 32766);
- the table holds the rail subnet on-link and the merged rail prefixes reachable through the gateway
  (fabric/hosts/routes.py); the main table gets nothing but the kernel's own connected route;
- MTU = fabric.host_mtu (the rules already keep it within every rail switch's);
- RoCE: the switches' DSCP → priority entries, PFC on the lossless priority, ECN NP/RP on it, CNP DSCP/priority,
  ToS = DSCP << 2 | ECT(0) (2) when ECN is on;
- NCCL: NCCL_IB_HCA exact (`=`) names with port, in rail order; NCCL_IB_TC = ToS; NCCL_IB_GID_INDEX = 3;
  NCCL_CROSS_NIC = 0 in a pod without spines (rails are isolated there); NCCL_IB_ADAPTIVE_ROUTING = 1 when
  routing.ecmp.mode is packet (per-packet spraying reorders: NCCL must expect it).
"""

from __future__ import annotations

from collections import defaultdict

from fabric.address import ntoa
from fabric.allocate import Plan
from fabric.device.qos import build_qos
from fabric.intent import EcmpMode, HostModel, Inventory
from fabric.topology import Link, LinkRole, Topology

from .model import HostGroupPlan, HostPlan, HostsPlan, RailInterface, RoceSettings, Route
from .names import bond, bond_rdma_device, netdev, rdma_device
from .routes import reachable

TABLE_BASE = 100
BOND_MODE = "802.3ad"
ECT0 = 2  # the ECN field's ECT(0) codepoint: RoCE packets are sent ECN-capable so that switches mark, not drop
GID_INDEX = 3  # mlx5 RoCE v2 GID of the IPv4 address (0/1: v1/v2 of the IPv6 link-local, 2/3: v1/v2 of IPv4)


def table_of(nic: int, port: int, ports_per_nic: int) -> int:
    return TABLE_BASE + nic * ports_per_nic + port


def roce_settings(inv: Inventory) -> RoceSettings:
    qos = build_qos(inv)
    ecn = qos.ecn is not None
    return RoceSettings(
        dscp_prio=tuple((d, tc) for d, tc in enumerate(qos.dscp_to_tc) if tc),
        pfc_prios=qos.lossless, roce_dscp=qos.roce_dscp, roce_prio=qos.roce_tc, cnp_dscp=qos.cnp_dscp,
        cnp_prio=qos.cnp_tc, ecn=ecn, tos=qos.roce_dscp << 2 | (ECT0 if ecn else 0))


def _gpus_of(model: HostModel, nic: int) -> tuple[int, ...]:
    if model.gpu_to_nic:
        return tuple(g for g, n in enumerate(model.gpu_to_nic) if n == nic)
    return (nic,) if nic < model.gpus else ()


def build_hosts(inv: Inventory, topo: Topology, plan: Plan) -> HostsPlan:
    by_host: dict[str, list[Link]] = defaultdict(list)
    for lk in topo.links:
        if lk.role is LinkRole.HOST and lk.id in plan.host_addr:
            by_host[lk.a.device].append(lk)
    behind = reachable(topo, plan)
    pool = str(inv.pools.rail_subnets)  # last route of every rail table: the rest of the pool is unreachable
    mtu = inv.fabric.host_mtu
    hosts: dict[str, HostPlan] = {}
    members: dict[str, list[str]] = defaultdict(list)
    firsts: dict[tuple, int] = {}
    for h in topo.hosts.values():  # a host group's name: its pod, segment and first host number
        firsts[h.src] = min(firsts.get(h.src, h.number), h.number)
    for name in sorted(topo.hosts):
        h = topo.hosts[name]
        model = inv.host_models[h.model]
        group = f"p{h.pod}-s{h.segment}-h{firsts[h.src]}"
        links = sorted(by_host.get(name, ()), key=lambda lk: (lk.rail, lk.nic, lk.a.port))
        ifaces: list[RailInterface] = []
        done: set[int] = set()
        for lk in links:
            assert lk.nic is not None and lk.rail is not None
            if lk.bundle and lk.nic in done:
                continue
            sub = plan.rail_subnets[(lk.z.device, lk.rail)]
            if lk.bundle:  # MLAG: the NIC's two links are one bond with one address
                done.add(lk.nic)
                both = [x for x in links if x.nic == lk.nic]
                iface_name, port = bond(lk.nic), 1
                ports = tuple(netdev(model, lk.nic, x.a.port) for x in both)
                rdma = bond_rdma_device(model, lk.nic)
                uplinks = tuple((x.z.device, x.z.label()) for x in both)
                mode: str | None = BOND_MODE
            else:
                port = lk.a.port
                iface_name, ports = netdev(model, lk.nic, port), ()
                rdma = rdma_device(model, lk.nic, port)
                uplinks = ((lk.z.device, lk.z.label()),)
                mode = None
            table = table_of(lk.nic, port, model.ports_per_nic)
            subnet = str(sub.prefix)
            gateway = ntoa(sub.gateway)
            routes = (Route(subnet, None), *(Route(p, gateway) for p in behind.get(lk.z.device, ()) if p != subnet),
                      Route(pool, None, unreachable=True))
            ifaces.append(RailInterface(
                iface_name, ports, lk.nic, port, lk.rail, _gpus_of(model, lk.nic), rdma, uplinks, sub.vlan,
                ntoa(plan.host_addr[lk.id]), sub.prefix.length, subnet, gateway, mtu, table, table, routes, mode))
        hosts[name] = HostPlan(name, h.pod, h.segment, h.number, h.model, group, model.gpus, tuple(ifaces))
        members[group].append(name)
    return HostsPlan(hosts, _groups(inv, topo, hosts, members))


def _groups(inv: Inventory, topo: Topology, hosts: dict[str, HostPlan],
            members: dict[str, list[str]]) -> dict[str, HostGroupPlan]:
    roce = roce_settings(inv)
    spined = {pod.id for pod in inv.pods if pod.spines is not None}
    packet = inv.routing.ecmp.mode is EcmpMode.PACKET
    out: dict[str, HostGroupPlan] = {}
    for group in sorted(members):
        names = members[group]
        # every host of a group has the same model and the same NIC layout: its first host speaks for all (a host
        # with a NIC off the fabric, PORT007, still gets the group's settings for the NICs it has)
        richest = max(names, key=lambda n: len(hosts[n].interfaces))
        first = hosts[richest]
        ifaces = first.interfaces
        rdma = tuple(i.rdma_device for i in ifaces)
        nccl = {"NCCL_IB_HCA": "=" + ",".join(f"{d}:1" for d in rdma), "NCCL_IB_TC": str(roce.tos),
                "NCCL_IB_GID_INDEX": str(GID_INDEX)}
        if first.pod not in spined:
            nccl["NCCL_CROSS_NIC"] = "0"
        if packet:
            nccl["NCCL_IB_ADAPTIVE_ROUTING"] = "1"
        out[group] = HostGroupPlan(
            group, first.pod, first.segment, first.model, tuple(sorted(names, key=_natural)),
            tuple(p for i in ifaces for p in i.ports), tuple(i.name for i in ifaces), rdma, roce,
            tuple(sorted(nccl.items())))
    return out


def _natural(name: str) -> tuple:
    from fabric.outputs._common import natural_key

    return natural_key(name)
