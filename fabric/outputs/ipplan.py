"""ipplan.csv: every address and prefix the plan hands out, with its owner and purpose (for IPAM import and
reviews).

Schema v1 columns:
- address: `a.b.c.d/len`; interface addresses carry their subnet's length (a host NIC `172.16.3.16/24`, a /31 end
  `10.4.0.1/31`), prefixes are written as the network (`172.16.3.0/24`);
- owner: the device (switch hostname or host name), empty for pools and blocks that belong to nobody;
- interface: where the address is configured (Loopback0, the management port, an Ethernet or port-channel, the rail
  VLAN's SVI, a host NIC port such as nic3p1), empty for summaries and pools;
- purpose: pool | segment-block | loopback | management | management-gateway | p2p | rail-subnet | rail-gateway |
  rail-own | host | aggregate (rail-own: a switch's own address on a rail SVI beside the gateway it shares with its
  MLAG peer, on platforms that need one, Platform.mlag_own_svi_address);
- pool: the inventory pool that contains the address (loopbacks, fabric_links, rail_subnets, management), empty
  when it lies outside every pool (a pinned management address, for instance);
- detail: the peer of a /31, the rail and VLAN of a rail subnet, the segment of a block.
Rows are sorted by address numerically, a containing prefix before the addresses inside it (ties: by the row's
text).
"""

from __future__ import annotations

from collections.abc import Mapping
from socket import inet_aton

from fabric.address import ntoa
from fabric.allocate import Plan
from fabric.device import DeviceConfig
from fabric.intent import Inventory
from fabric.platforms import PLATFORMS
from fabric.topology import LinkRole, Topology

from ._common import csv_text, host_bond

TITLE = "railfabric ip plan v1"
HEADER = ("address", "owner", "interface", "purpose", "pool", "detail")

# Names of the interfaces the device model does not name itself (the templates use the same ones).


def ipplan_csv(inv: Inventory, topo: Topology, plan: Plan, devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    pools = sorted(((p.prefix.net, p.prefix.net + p.prefix.size, name) for name, p in plan.pools.items()))

    def pool_of(n: int) -> str:
        for net, end, name in pools:
            if net <= n < end:
                return name
        return ""

    # (address as an integer, prefix length, row): sorted on the numbers, ties (the same prefix on several owners)
    # broken by the row's text
    rows: list[tuple[int, int, tuple[str, str, str, str, str, str]]] = []
    from_bytes, aton = int.from_bytes, inet_aton

    def add(address: str, owner: str, interface: str, purpose: str, detail: str = "") -> None:
        # fabric.address.cidr_key inlined (a few hundred thousand rows at 65K GPUs): the texts are the device
        # model's and the plan's own a.b.c.d/len, which inet_aton reads exactly as inet_pton
        text, _, length = address.partition("/")
        n = from_bytes(aton(text), "big")
        rows.append((n, int(length) if length else 32, (address, owner, interface, purpose, pool_of(n), detail)))

    for name, pool in plan.pools.items():
        rows.append((pool.prefix.net, pool.prefix.length, (str(pool.prefix), "", "", "pool", name, "")))
    for (pod, segment), block in plan.segment_blocks.items():
        add(str(block), "", "", "segment-block", f"pod {pod} segment {segment}")
    mg = inv.pools.management
    if mg.gateway is not None:
        add(f"{ntoa(int(mg.gateway))}/{plan.management_len}", "", "", "management-gateway")

    # /31 ends: the owner and interface of every routed address (_common.routed_owners, each address read once),
    # so each row can name its peer
    routed: list[tuple[int, int, str, str, str]] = []  # (address, length, text, device, interface)
    for name, dev in devices.items():
        ends = [(i.name, i.ipv4) for i in dev.interfaces if i.ipv4]
        ends += [(pc.name, pc.ipv4) for pc in dev.port_channels if pc.ipv4]
        if dev.mlag is not None:
            ends.append((dev.mlag.interface, f"{dev.mlag.local_ip}/{dev.mlag.prefix_len}"))
        for ifname, address in ends:
            text, _, bits = address.partition("/")
            routed.append((from_bytes(aton(text), "big"), int(bits), address, name, ifname))
    p2p = {n: (name, ifname) for n, _, _, name, ifname in routed}
    for n, plen, address, name, ifname in routed:
        peer = p2p.get(n ^ 1)
        detail = f"peer {peer[0]} {peer[1]}" if peer else ""
        rows.append((n, plen, (address, name, ifname, "p2p", pool_of(n), detail)))

    for name, dev in devices.items():
        add(dev.loopback, name, PLATFORMS[dev.platform].loopback_interface, "loopback")
        add(dev.management, name, PLATFORMS[dev.platform].management_interface, "management")
        for vlan in dev.vlans:
            svi = f"{PLATFORMS[dev.platform].svi_prefix}{vlan.id}"
            detail = f"rail {vlan.rail} vlan {vlan.id}"
            add(vlan.prefix, name, svi, "rail-subnet", detail)
            add(vlan.gateway, name, svi, "rail-gateway",
                f"{detail} shared with MLAG peer {dev.mlag.peer}" if vlan.virtual and dev.mlag else detail)
            if vlan.own and dev.mlag:
                add(vlan.own, name, svi, "rail-own", f"{detail} own address beside the gateway shared with MLAG peer "
                    f"{dev.mlag.peer}")
        for prefix in dev.bgp.aggregates:
            add(prefix, name, "", "aggregate", "BGP summary-only")

    bonds: dict[str, list[str]] = {}  # MLAG host bond → the switches it lands on
    for link in topo.links:
        if link.role is LinkRole.HOST and link.bundle:
            bonds.setdefault(link.bundle, []).append(link.z.device)
    for link in topo.links:
        if link.role is not LinkRole.HOST or link.id not in plan.host_addr:
            continue
        sub = plan.rail_subnets[(link.z.device, link.rail)]  # type: ignore[index]
        address = f"{ntoa(plan.host_addr[link.id])}/{sub.prefix.length}"
        if link.bundle is None:
            add(address, link.a.device, f"nic{link.nic}p{link.a.port}", "host",
                f"rail {link.rail} vlan {sub.vlan} via {link.z.device}")
        elif (switches := bonds.pop(link.bundle, None)) is not None:  # one address per MLAG bond, listed once
            add(address, link.a.device, host_bond(link.nic or 0), "host",
                f"rail {link.rail} vlan {sub.vlan} via MLAG {' + '.join(switches)}")

    rows.sort()
    return {"ipplan.csv": csv_text(TITLE, HEADER, (row for _, _, row in rows))}
