"""Build the host model (railfabric/hosts/model.py) from the topology, the plan and the fabric's QoS policy: the same
sources as the rail map (railfabric/outputs/railmap.py) and the switches' device model (railfabric/device/qos.py), so
host and switch cannot disagree.

Decisions made here, once:
- one layer-3 rail interface per NIC port, or per NIC under dual_homing: mlag (LACP bond `bond<n>`, mode 802.3ad,
  both ports members, one address); two-vlans: each port its own address, table and rule;
- routing table of NIC n port p: TABLE_BASE + n·ports_per_nic + p (a bond counts as port 1): 101, 102, ... for
  one-port NICs; the `from <address>` rule has the same number as its priority (before main's 32766);
- the table holds the rail subnet on-link and, in a pod with spines, the whole rail pool via the gateway; in a
  rail-only pod the rail switch's other subnets via the gateway and the pool unreachable (railfabric/hosts/routes.py:
  stable aggregates only, never one route per segment or pod, so growing the fabric rewrites no host file); the
  main table gets nothing but the kernel's own connected route;
- MTU = fabric.host_mtu (the rules already keep it within every rail switch's);
- RoCE: the switches' DSCP → priority entries, PFC on the lossless priority, ECN NP/RP on it, CNP DSCP/priority,
  ToS = DSCP << 2 | ECT(0) (2) when ECN is on;
- NCCL: NCCL_IB_HCA exact (`=`) names with port, in rail order; NCCL_IB_TC = ToS; NCCL_IB_GID_INDEX = 3;
  NCCL_CROSS_NIC = 0 in a pod without spines (rails are isolated there); NCCL_IB_ADAPTIVE_ROUTING = 1 when
  routing.ecmp.mode is packet (per-packet spraying reorders: NCCL must expect it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import Any

from railfabric.core.address import ntoa
from railfabric.core.address6 import ntoa6
from railfabric.core.order import natural_key
from railfabric.device.qos import build_qos
from railfabric.inventory.intent import HostModel, Inventory
from railfabric.inventory.intent_routing import EcmpMode
from railfabric.plan.allocate import Plan
from railfabric.plan.nic_names import bond, bond_rdma_device, netdev, rdma_device
from railfabric.topology import LinkRole, Topology
from railfabric.topology.model import Host

from .model import HostGroupPlan, HostPlan, HostsPlan, RailInterface, RoceSettings, Route
from .routes import isolated, isolated_v6, rail_routes

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


@dataclass(frozen=True, slots=True)
class NicShape:
    """What a host group's plan reads of its host model (railfabric.inventory.intent.HostModel): GPUs, NIC ports,
    names."""

    gpus: int
    ports_per_nic: int
    gpu_to_nic: tuple[int, ...] | None
    netdevs: tuple[str, ...] | None
    rdma_devices: tuple[str, ...] | None


def nic_shape(model: HostModel) -> NicShape:
    return NicShape(model.gpus, model.ports_per_nic, tuple(model.gpu_to_nic) if model.gpu_to_nic else None,
                    tuple(model.netdevs) if model.netdevs is not None else None,
                    tuple(model.rdma_devices) if model.rdma_devices is not None else None)


@dataclass(frozen=True, slots=True)
class GroupInput:
    """Everything one host group's plan is built from, and nothing else (railfabric/outputs digests it to reuse the
    group's files): its hosts, their rail links, the rail subnets of the switches they land on (and, in a rail-only
    pod, what those switches reach), the pool, MTU and RoCE policy. Nothing in it grows with the rest of the fabric
    (tests/test_hosts_growth.py)."""

    name: str  # p<pod>-s<segment>-h<first host number>
    pod: int
    segment: int
    model: str
    shape: NicShape
    hosts: tuple[tuple[str, int], ...]  # (name, number), by name
    # (host, rail, nic, NIC port, bundle, switch, switch port label, address): the host's links with an address
    links: tuple[tuple[str, int, int, int, str | None, str, str, int], ...]
    # ((switch, rail), vlan, subnet a.b.c.d/len, length, gateway a.b.c.d)
    subnets: tuple[tuple[tuple[str, int], int, str, int, str], ...]
    # rail-only pod: switch → the prefixes its rail gateway leads to (routes.isolated); () in a pod with spines
    behind: tuple[tuple[str, tuple[str, ...]], ...]
    pool: str  # pools.rail_subnets: via the gateway (pod with spines) or unreachable last (rail-only pod)
    mtu: int
    roce: RoceSettings
    spined: bool  # the pod has spines (rails are not isolated)
    packet: bool  # routing.ecmp.mode is packet
    # dual-stack (routing.address_families with ipv6; railfabric/plan/allocate_v6.py), as pairs (digested as JSON):
    # (host, NIC, NIC port, IPv6 address) of each host link, ((switch, rail), /64, IPv6 gateway) of each rail
    # subnet, the rail-only switches' IPv6 prefixes behind their gateway, pools.rail_subnets_v6; empty when IPv4-only
    addresses_v6: tuple[tuple[str, int, int, str], ...] = ()
    subnets_v6: tuple[tuple[tuple[str, int], str, str], ...] = ()
    behind_v6: tuple[tuple[str, tuple[str, ...]], ...] = ()
    pool_v6: str = ""


_LINK_ORDER = itemgetter(1, 2, 3)  # a host's links by rail, NIC and NIC port


def _host_links(topo: Topology, plan: Plan) -> dict[str, list[tuple[str, int, int, int, str | None, str, str, int]]]:
    """Host → its rail links with an address, as GroupInput.links rows, by rail, NIC and NIC port."""
    by_host: dict[str, list[tuple[str, int, int, int, str | None, str, str, int]]] = defaultdict(list)
    addr = plan.host_addr
    labels: dict[tuple[int, int], str] = {}  # a switch port's label (End.label) by (port, lane): few distinct ones
    host_role = LinkRole.HOST
    for lk in topo.links:
        if lk.role is not host_role:
            continue
        address = addr.get(lk.id)
        if address is None:
            continue
        a, z = lk.a, lk.z
        label = labels.get(z[1:3])
        if label is None:
            label = labels[z[1:3]] = z.label()
        by_host[a[0]].append((a[0], lk.rail or 0, lk.nic or 0, a[1], lk.bundle, z[0], label, address))
    for rows in by_host.values():
        rows.sort(key=_LINK_ORDER)
    return by_host


def group_inputs(inv: Inventory, topo: Topology, plan: Plan) -> list[GroupInput]:
    """Every host group's input, by group name."""
    by_host = _host_links(topo, plan)
    spined = {pod.id for pod in inv.pods if pod.spines is not None}
    behind = isolated(topo, plan, [pod.id for pod in inv.pods if pod.spines is None])
    v6 = (plan, *_v6_context(inv, topo, plan)) if plan.v6 is not None else None
    firsts: dict[tuple, int] = {}
    for h in topo.hosts.values():  # a host group's name: its pod, segment and first host number
        firsts[h.src] = min(firsts.get(h.src, h.number), h.number)
    members: dict[str, list[Host]] = defaultdict(list)
    for name in sorted(topo.hosts):
        h = topo.hosts[name]
        members[f"p{h.pod}-s{h.segment}-h{firsts[h.src]}"].append(h)
    roce = roce_settings(inv)
    packet = inv.routing.ecmp.mode is EcmpMode.PACKET
    pool, mtu = str(inv.pools.rail_subnets), inv.fabric.host_mtu
    shapes = {name: nic_shape(m) for name, m in inv.host_models.items()}
    subnet_text: dict[tuple[str, int], tuple[tuple[str, int], int, str, int, str]] = {}
    out: list[GroupInput] = []
    none: list[tuple[str, int, int, int, str | None, str, str, int]] = []
    for group in sorted(members):
        hosts = members[group]
        first = hosts[0]
        links = tuple(row for h in hosts for row in by_host.get(h.name, none))
        keys = sorted({(lk[5], lk[1]) for lk in links})
        for k in keys:
            if k not in subnet_text:
                sub = plan.rail_subnets[k]
                subnet_text[k] = (k, sub.vlan, str(sub.prefix), sub.prefix.length, ntoa(sub.gateway))
        through = first.pod in spined
        switches = () if through else sorted({k[0] for k in keys})
        out.append(GroupInput(group, first.pod, first.segment, first.model, shapes[first.model],
                              tuple((h.name, h.number) for h in hosts), links, tuple(subnet_text[k] for k in keys),
                              tuple((sw, behind.get(sw, ())) for sw in switches), pool, mtu, roce, through, packet,
                              **v6_input(v6, links, keys, switches)))
    return out


def _v6_context(inv: Inventory, topo: Topology, plan: Plan) -> tuple[dict[tuple[str, int, int], str],
                                                                       dict[str, tuple[str, ...]]]:
    """Dual-stack: each host link's IPv6 address by (host, NIC, NIC port), and the rail-only switches' IPv6
    prefixes behind their gateway; empty when IPv4-only."""
    v6 = plan.v6
    if v6 is None:
        return {}, {}
    addresses = {(lk.a.device, lk.nic or 0, lk.a.port): ntoa6(v6.host_addr[lk.id]) for lk in topo.links
                 if lk.role is LinkRole.HOST and lk.id in v6.host_addr}
    return addresses, isolated_v6(topo, plan, [pod.id for pod in inv.pods if pod.spines is None])


def v6_input(v6: tuple[Plan, dict[tuple[str, int, int], str], dict[str, tuple[str, ...]]] | None,
             links: tuple[Row, ...], keys: list[tuple[str, int]], switches: Iterable[str]) -> dict[str, Any]:
    """The dual-stack fields of one group's GroupInput (none when IPv4-only)."""
    if v6 is None:
        return {}
    plan, addresses, behind = v6
    assert plan.v6 is not None
    subs = plan.v6.rail_subnets
    return {"addresses_v6": tuple((lk[0], lk[2], lk[3], addresses[(lk[0], lk[2], lk[3])]) for lk in links
                                  if (lk[0], lk[2], lk[3]) in addresses),
            "subnets_v6": tuple((k, str(subs[k].prefix), ntoa6(subs[k].gateway)) for k in keys if k in subs),
            "behind_v6": tuple((sw, behind.get(sw, ())) for sw in switches), "pool_v6": str(plan.v6.rail_pool)}


def build_hosts(inv: Inventory, topo: Topology, plan: Plan) -> HostsPlan:
    return plan_of(group_inputs(inv, topo, plan))


def plan_of(inputs: Iterable[GroupInput]) -> HostsPlan:
    """The host plan of these host groups (each built from its own input alone)."""
    hosts: dict[str, HostPlan] = {}
    groups: dict[str, HostGroupPlan] = {}
    for g in inputs:
        group, members = build_group(g)
        groups[group.name] = group
        hosts.update((h.name, h) for h in members)
    return HostsPlan(dict(sorted(hosts.items())), groups)


Row = tuple[str, int, int, int, str | None, str, str, int]  # a GroupInput.links row


def _selected(links: list[Row]) -> list[tuple[Row, tuple[Row, ...] | None]]:
    """A host's layer-3 rail interfaces, each as its first link row and, for an MLAG bond, every link of its NIC
    (the bond's members); a plain NIC port is its own row (None)."""
    out: list[tuple[Row, tuple[Row, ...] | None]] = []
    done: set[int] = set()
    for lk in links:
        if lk[4]:  # a bundle: the NIC's links are one bond with one address
            if lk[2] in done:
                continue
            done.add(lk[2])
            out.append((lk, tuple(x for x in links if x[2] == lk[2])))
        else:
            out.append((lk, None))
    return out


def _table(row: Row, bonded: tuple[Row, ...] | None, ports_per_nic: int) -> int:
    """The routing table of an interface: a bond counts as its NIC's port 1."""
    return table_of(row[2], 1 if bonded else row[3], ports_per_nic)


def _links_by_host(g: GroupInput) -> dict[str, list[Row]]:
    by_host: dict[str, list[Row]] = defaultdict(list)
    for lk in g.links:
        by_host[lk[0]].append(lk)
    return by_host


class _Hosts:
    """Builds the HostPlan of hosts of one group; a NIC port's names, GPUs and table (the same for every host of
    the group: one model) and a rail subnet's routes are worked out once."""

    def __init__(self, g: GroupInput) -> None:
        self.g = g
        self.subnets = {k: (vlan, subnet, length, gateway) for k, vlan, subnet, length, gateway in g.subnets}
        self.behind = dict(g.behind)
        self.routes: dict[tuple[str, int], tuple[Route, ...]] = {}  # the same table for every NIC on one subnet
        self.addresses_v6 = {(h, nic, port): a for h, nic, port, a in g.addresses_v6}
        self.subnets_v6 = {k: (subnet, gateway) for k, subnet, gateway in g.subnets_v6}
        self.behind_v6 = dict(g.behind_v6)
        self.routes_v6: dict[tuple[str, int], tuple[Route, ...]] = {}
        self.port_names: dict[tuple[int, int], tuple[str, str, tuple[int, ...], int]] = {}

    def host(self, name: str, number: int, links: list[Row]) -> HostPlan:
        g, model = self.g, self.g.shape
        ifaces: list[RailInterface] = []
        for (_host, rail, nic, nic_port, _bundle, switch, label, address), both in _selected(links):
            vlan, subnet, length, gateway = self.subnets[(switch, rail)]
            if both:
                iface_name, port = bond(nic), 1
                ports = tuple(netdev(model, nic, x[3]) for x in both)
                rdma = bond_rdma_device(model, nic)
                uplinks = tuple((x[5], x[6]) for x in both)
                mode: str | None = BOND_MODE
                gpus, table = _gpus_of(model, nic), table_of(nic, port, model.ports_per_nic)
            else:
                port, ports, uplinks, mode = nic_port, (), ((switch, label),), None
                named = self.port_names.get((nic, port))
                if named is None:
                    named = self.port_names[(nic, port)] = (
                        netdev(model, nic, port), rdma_device(model, nic, port), _gpus_of(model, nic),
                        table_of(nic, port, model.ports_per_nic))
                iface_name, rdma, gpus, table = named
            table_routes = self.routes.get((switch, rail))
            if table_routes is None:
                table_routes = self.routes[(switch, rail)] = rail_routes(
                    subnet, gateway, g.pool, None if g.spined else self.behind.get(switch, ()))
            iface = RailInterface(iface_name, ports, nic, port, rail, gpus, rdma, uplinks, vlan, ntoa(address), length,
                                  subnet, gateway, g.mtu, table, table, table_routes, mode)
            if self.subnets_v6:
                iface = self._with_v6(iface, name, nic, nic_port, switch, rail)
            ifaces.append(iface)
        return HostPlan(name, g.pod, g.segment, number, g.model, g.name, model.gpus, tuple(ifaces))


    def _with_v6(self, iface: RailInterface, host: str, nic: int, nic_port: int, switch: str,
                 rail: int) -> RailInterface:
        """The interface's IPv6 address, gateway and routes (dual-stack): the IPv4 table's rules over the rail /64
        and pools.rail_subnets_v6 (railfabric/hosts/routes.py), in the same table."""
        sub = self.subnets_v6.get((switch, rail))
        address = self.addresses_v6.get((host, nic, nic_port))
        if sub is None or address is None:
            return iface
        routes = self.routes_v6.get((switch, rail))
        if routes is None:
            routes = self.routes_v6[(switch, rail)] = rail_routes(
                sub[0], sub[1], self.g.pool_v6, None if self.g.spined else self.behind_v6.get(switch, ()))
        return replace(iface, address_v6=address, gateway_v6=sub[1], routes_v6=routes)


def build_group(g: GroupInput) -> tuple[HostGroupPlan, tuple[HostPlan, ...]]:
    """One host group's plan and its hosts' plans, from its input alone."""
    by_host = _links_by_host(g)
    make = _Hosts(g)
    hosts = [make.host(name, number, by_host.get(name, [])) for name, number in g.hosts]
    return _group(g, [h.name for h in hosts], max(hosts, key=lambda h: len(h.interfaces))), tuple(hosts)


# A host's netplan shape: its links but for their host, switch port and address (rail, NIC, NIC port, bundle,
# switch each): hosts of one shape have the same rail interfaces but for their uplinks' switch ports and addresses
NetplanShape = tuple[tuple[int, int, int, str | None, str], ...]


def group_shapes(g: GroupInput) -> tuple[HostGroupPlan, list[tuple[str, HostPlan, tuple[str, ...]]]]:
    """One host group's plan and per host (in the group's order) its name, the plan of the first host of its
    NetplanShape and its own interfaces' addresses (in interface order): what build_group gives with one host's plan
    made per shape, not per host (the netplan files read no uplink; tests/test_hosts_shapes.py)."""
    by_host = _links_by_host(g)
    make = _Hosts(g)
    shapes: dict[NetplanShape, HostPlan] = {}
    out: list[tuple[str, HostPlan, tuple[str, ...]]] = []
    bonds = any(lk[4] for lk in g.links)
    most, first = -1, ("", 0)
    none: list[Row] = []
    for name, number in g.hosts:
        links = by_host.get(name, none)
        shape = tuple([lk[1:6] for lk in links])
        plan = shapes.get(shape)
        if g.subnets_v6:  # dual-stack: the IPv6 addresses are the host's own too (no shared shape plan)
            plan = make.host(name, number, links)
        elif plan is None:
            plan = shapes[shape] = make.host(name, number, links)
        selected = [row for row, _both in _selected(links)] if bonds else links
        out.append((name, plan, tuple([ntoa(row[7]) for row in selected])))
        if len(selected) > most:  # the first host with the most interfaces speaks for the group (build_group)
            most, first = len(selected), (name, number)
    return _group(g, [n for n, _ in g.hosts], make.host(*first, by_host.get(first[0], none))), out


def group_rules(g: GroupInput) -> tuple[HostGroupPlan, dict[str, tuple[tuple[str, int], ...]]]:
    """One host group's plan and each of its hosts' (address, table) per rail interface, in interface order: what
    build_group gives, without making every host's plan (the Ansible inventory reads no more of the hosts)."""
    by_host = _links_by_host(g)
    ppn = g.shape.ports_per_nic
    rules: dict[str, tuple[tuple[str, int], ...]] = {}
    most, first = -1, ("", 0)
    bonds = any(lk[4] for lk in g.links)
    for name, number in g.hosts:
        links = by_host.get(name, [])
        if bonds:
            selected = _selected(links)
            rules[name] = tuple((ntoa(row[7]), _table(row, both, ppn)) for row, both in selected)
        else:  # no bond in the group: every link is an interface (_selected's rows), its table its NIC port's
            rules[name] = tuple((ntoa(row[7]), table_of(row[2], row[3], ppn)) for row in links)
        if len(rules[name]) > most:  # the first host with the most interfaces speaks for the group (build_group)
            most, first = len(rules[name]), (name, number)
    return _group(g, list(rules), _Hosts(g).host(*first, by_host.get(first[0], []))), rules


def _gpus_of(model: NicShape, nic: int) -> tuple[int, ...]:
    if model.gpu_to_nic:
        return tuple(i for i, n in enumerate(model.gpu_to_nic) if n == nic)
    return (nic,) if nic < model.gpus else ()


def _group(g: GroupInput, names: list[str], first: HostPlan) -> HostGroupPlan:
    """The group's plan from its hosts' names and the first of its hosts with the most interfaces: every host of
    a group has the same model and NIC layout, so that host speaks for all (a host with a NIC off the fabric,
    PORT007, still gets the group's settings for the NICs it has)."""
    roce = g.roce
    ifaces = first.interfaces
    rdma = tuple(i.rdma_device for i in ifaces)
    nccl = {"NCCL_IB_HCA": "=" + ",".join(f"{d}:1" for d in rdma), "NCCL_IB_TC": str(roce.tos),
            "NCCL_IB_GID_INDEX": str(GID_INDEX)}
    if not g.spined:
        nccl["NCCL_CROSS_NIC"] = "0"
    if g.packet:
        nccl["NCCL_IB_ADAPTIVE_ROUTING"] = "1"
    return HostGroupPlan(
        g.name, g.pod, g.segment, g.model, tuple(sorted(names, key=_natural())),
        tuple(p for i in ifaces for p in i.ports), tuple(i.name for i in ifaces), rdma, roce,
        tuple(sorted(nccl.items())))


def _natural() -> Callable[[str], tuple]:
    """railfabric.core.order.natural_key."""
    return natural_key
