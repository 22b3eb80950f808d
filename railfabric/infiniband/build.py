"""A rail-optimized two-tier fat tree, planned the way railfabric plans Ethernet rails: HCA r of every host on rail
r's leaf, every leaf cabled to every spine. Port numbering (planned, so the GUID binding can name each cable):
  leaf r:  port h+1 to host h's HCA r (h = 0..hosts-1), then port hosts+1+s*links+k to spine s (k = 0..links-1);
  spine s: port r*links+k+1 to leaf r.
"""

from __future__ import annotations

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


def rail_fat_tree(name: str, *, hosts: int, rails: int, spines: int, links: int = 1, model: str = "QM9700",
                  ports: int = 64, host_prefix: str = "dgx", routing_engine: str = "ftree",
                  partitions: tuple[Partition, ...] = (), default_membership: Membership = Membership.FULL,
                  qos: Qos | None = None) -> IbFabric:
    """The fabric: switches spine1.., leaf-rail0.., hosts dgx01.. with HCAs mlx5_0..; the subnet managers on the
    first two spines (priorities 15 and 14; one spine: 15 only)."""
    spine_names = [f"spine{s + 1}" for s in range(spines)]
    leaf_names = [f"leaf-rail{r}" for r in range(rails)]
    host_names = [f"{host_prefix}{h + 1:02d}" for h in range(hosts)]
    switches = tuple(Switch(n, model, ports, Tier.SPINE) for n in spine_names) + tuple(
        Switch(n, model, ports, Tier.LEAF) for n in leaf_names)
    hcas = tuple(Hca(host, r, r) for host in host_names for r in range(rails))
    cables: list[Cable] = []
    for r, leaf in enumerate(leaf_names):
        cables += [Cable(End(leaf, h + 1), End(f"{host} mlx5_{r}", 1)) for h, host in enumerate(host_names)]
        for s, spine in enumerate(spine_names):
            cables += [Cable(End(leaf, hosts + 1 + s * links + k), End(spine, r * links + k + 1))
                       for k in range(links)]
    sms = tuple(SubnetManager(n, 15 - i) for i, n in enumerate(spine_names[:2]))
    return IbFabric(name, switches, hcas, tuple(cables), sms, routing_engine=routing_engine, partitions=partitions,
                    default_membership=default_membership, qos=qos)


def two_tenants(fab: IbFabric) -> tuple[Partition, ...]:
    """An example partition plan: tenant-a = the first half of the hosts (every HCA, full), tenant-b = the rest;
    storage: the first host full (it stands in for the storage targets, which the example has not), every other
    HCA limited, so the tenants reach storage but not each other through it (PKeys 0x0a01, 0x0a02, 0x0b01)."""
    hosts = sorted({h.host for h in fab.hcas})
    half = set(hosts[: len(hosts) // 2])
    a = tuple(Member(h.name) for h in fab.hcas if h.host in half)
    b = tuple(Member(h.name) for h in fab.hcas if h.host not in half)
    storage = tuple(Member(h.name, Membership.FULL if h.host == hosts[0] else Membership.LIMITED) for h in fab.hcas)
    return (Partition("tenant-a", 0x0A01, a), Partition("tenant-b", 0x0A02, b),
            Partition("storage", 0x0B01, storage, ipoib=True))


# Compute on SL 0 -> VL 0, storage (two_tenants' PKey 0x0b01) on SL 1 -> VL 1; VL 0 weighs twice VL 1 in the
# high-priority table, both 4 in the low one.
TWO_CLASS_QOS = Qos(max_vls=2, high_limit=255, vlarb_high=((0, 128), (1, 64)), vlarb_low=((0, 4), (1, 4)),
                    sl2vl=(0, 1) + (0,) * 14, default_sl=0, partition_sl=((0x0B01, 1),))
