"""The planned InfiniBand subnet of an inventory (`fabric.kind: infiniband`): `ib_fabric(inventory, topology)`.

Everything comes from the expanded topology (railfabric.topology.expand, the same expansion as Ethernet) and the
inventory's `infiniband:` section; nothing is allocated (an InfiniBand subnet has no IP plan: the SM assigns LIDs).

- Switches: one per topology switch, in topology order; name = hostname (= the node description the site sets on
  the switch), model = its switch model's name, ports = the model's ports, tier: rail switch → leaf, spine →
  spine, super-spine → core.
- HCAs: one per host NIC port, hosts in topology order and each host's HCAs in rail order (index = NIC index ×
  ports per NIC + port − 1, the order of the host model's `rdma_devices`); the device is rdma_devices[index] when
  the model lists them, else mlx5_<index> (the HostModel default). The HCA's node description is "<host> <device>".
- Cables: every topology link (host links and leaf-spine-core links), switch ports as the topology numbers them
  (they are the IB port numbers: leaves' host ports, then uplinks), the HCA end on port 1 of its device (mlx5
  gives each port its own device). MLAG peer links do not exist on InfiniBand (dual_homing is refused, IB011).
- Subnet managers: on a switch by hostname, or on host + hca (rail index) → that HCA's node description. A name
  that is not planned stays as written: model.problems() names it (IB021).
- Partitions: members = every HCA of each named host (Slurm host lists expanded by
  railfabric.core.hostlist.expand_hostlist); hosts that do not exist are left out here and reported by
  railfabric.checks.rules.ib_rules (IB024).
- QoS: default SL = the compute service level; each partition with a service level gets a qos-ulps line.
"""

from __future__ import annotations

from railfabric.core.hostlist import expand_hostlist
from railfabric.infiniband.model import (
    Cable,
    End,
    Hca,
    IbFabric,
    Member,
    Membership,
    Partition,
    Qos,
    SubnetManager,
    Switch,
    Tier,
)
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_infiniband import IbPartition, IbQos, InfinibandSettings
from railfabric.topology import Topology
from railfabric.topology.model import LinkRole, Role

TIERS = {Role.RAIL: Tier.LEAF, Role.SPINE: Tier.SPINE, Role.SUPER_SPINE: Tier.CORE}


def ib_fabric(inv: Inventory, topo: Topology) -> IbFabric:
    """The subnet as planned (see the module docstring for each rule)."""
    ib = inv.infiniband
    if ib is None:
        raise ValueError("ib_fabric needs an inventory with fabric.kind: infiniband and an infiniband: section")
    switches = tuple(Switch(sw.name, sw.model, inv.switch_models[sw.model].ports, TIERS[sw.role])
                     for sw in topo.switches.values())
    hcas = _hcas(inv, topo)
    by_port = {(h.host, h.index): h for h in hcas}
    cables: list[Cable] = []
    for link in topo.links:
        if link.role is LinkRole.HOST:
            assert link.nic is not None
            ppn = inv.host_models[topo.hosts[link.a.device].model].ports_per_nic
            hca = by_port[(link.a.device, link.nic * ppn + link.a.port - 1)]
            cables.append(Cable(End(link.z.device, link.z.port), End(hca.name, 1)))
        else:
            cables.append(Cable(End(link.a.device, link.a.port), End(link.z.device, link.z.port)))
    return IbFabric(
        inv.fabric.name, switches, hcas, tuple(cables), _sms(ib, by_port), routing_engine=ib.routing_engine,
        lmc=ib.lmc, subnet_prefix=ib.prefix, partitions=tuple(_partition(p, hcas) for p in ib.partitions),
        default_membership=Membership(ib.default_partition.membership), qos=_qos(ib.qos, ib.partitions))


def _hcas(inv: Inventory, topo: Topology) -> tuple[Hca, ...]:
    """Every host's HCAs in rail order; the rail of each from its host link (a NIC port without a cable, e.g. on a
    disabled switch port, keeps its NIC index as rail)."""
    rail_of = {(lk.a.device, lk.nic, lk.a.port): lk.rail for lk in topo.links
               if lk.role is LinkRole.HOST and lk.nic is not None}
    out: list[Hca] = []
    for host in topo.hosts.values():
        model = inv.host_models[host.model]
        for nic in range(model.nics):
            for port in range(1, model.ports_per_nic + 1):
                index = nic * model.ports_per_nic + port - 1
                rdma = model.rdma_devices[index] if model.rdma_devices and index < len(model.rdma_devices) else None
                rail = rail_of.get((host.name, nic, port))
                out.append(Hca(host.name, index, nic if rail is None else rail, rdma=rdma))
    return tuple(out)


def _sms(ib: InfinibandSettings, by_port: dict[tuple[str, int], Hca]) -> tuple[SubnetManager, ...]:
    out = []
    for sm in ib.subnet_managers:
        if sm.node is not None:
            out.append(SubnetManager(sm.node, sm.priority))
            continue
        assert sm.host is not None and sm.hca is not None  # the schema wants node, or host with hca
        hca = by_port.get((sm.host, sm.hca))
        out.append(SubnetManager(hca.name if hca is not None else f"{sm.host} hca{sm.hca}", sm.priority))
    return tuple(out)


def partition_hosts(part: IbPartition) -> list[str]:
    """The host names a partition lists, Slurm host lists expanded, in order, each once (ValueError on a malformed
    list: railfabric.checks.rules.ib_rules reports it as IB024)."""
    return list(dict.fromkeys(name for spec in part.hosts for name in expand_hostlist(spec)))


def _partition(part: IbPartition, hcas: tuple[Hca, ...]) -> Partition:
    try:
        wanted = set(partition_hosts(part))
    except ValueError:
        wanted = set()
    membership = Membership(part.membership)
    return Partition(part.name, part.pkey, tuple(Member(h.name, membership) for h in hcas if h.host in wanted),
                     ipoib=part.ipoib)


def service_level(part: IbPartition, qos: IbQos | None) -> int | None:
    """The partition's SL: its number, or its class's (compute/storage) from the QoS plan; None when unset."""
    sl = part.service_level
    if sl is None or isinstance(sl, int):
        return sl
    levels = (qos or IbQos()).service_levels
    return levels.compute if sl == "compute" else levels.storage


def _qos(qos: IbQos | None, parts: list[IbPartition]) -> Qos | None:
    if qos is None:
        return None
    partition_sl = tuple((p.pkey, sl) for p in parts if (sl := service_level(p, qos)) is not None)
    return Qos(max_vls=qos.max_vls, high_limit=qos.high_limit, vlarb_high=tuple(qos.vlarb_high),
               vlarb_low=tuple(qos.vlarb_low), sl2vl=tuple(qos.sl2vl), default_sl=qos.service_levels.compute,
               partition_sl=partition_sl)
