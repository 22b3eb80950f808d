"""hosts/railmap.csv: what each GPU server's NICs need (for whoever configures NICs: scripts, l8k-style tools).

Schema v2, one row per GPU and NIC port (a dual-homed NIC gives two rows per GPU; GPUs that share a NIC through
`gpu_to_nic` each get their own row naming that NIC):
host, gpu (local rank), nic (NIC index), nic_port (1-based), rail, switch, switch_interface (platform name, as in
the rendered config), vlan (the rail VLAN, untagged on the switch port), address (`a.b.c.d/len`), gateway (the rail
switch's SVI), mtu (the host MTU: the NIC's, not the switch port's), bond and bond_mode: under `dual_homing: mlag`
both ports of a NIC are one LACP bond (`bond<nic>`, mode `802.3ad`: the switches run LACP active on a port-channel
with one MLAG id on both switches) holding the one address; empty otherwise (two-vlans: each port has its own
address on its own switch's subnet, no bond). v2 added bond and bond_mode.
Rows are sorted by host (digits as numbers), GPU, NIC port. NICs not linked to a rail (reported by validation) have
no row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import compress
from operator import attrgetter

from fabric.address import ntoa, ntoa_many
from fabric.allocate import Plan
from fabric.device import DeviceConfig
from fabric.intent import Inventory
from fabric.topology import Link, LinkRole, Topology

from ._common import csv_text_plain, host_bond, natural_key
from .views import Port, RailSubnet, interface_names, ports_view, rail_subnets_view

TITLE = "railfabric host rail map v2"
HEADER = ("host", "gpu", "nic", "nic_port", "rail", "switch", "switch_interface", "vlan", "address", "gateway", "mtu",
          "bond", "bond_mode")
BOND_MODE = "802.3ad"  # LACP (Linux bonding / netplan `mode: 802.3ad`), what an MLAG port-channel expects


# a host model as the rail map reads it: (gpus, gpu_to_nic or None, ports_per_nic)
HostShape = tuple[int, tuple[int, ...] | None, int]


def host_shapes(inv: Inventory) -> dict[str, HostShape]:
    return {name: (m.gpus, tuple(m.gpu_to_nic) if m.gpu_to_nic else None, m.ports_per_nic)
            for name, m in inv.host_models.items()}


def host_links(topo: Topology) -> list[Link]:
    return host_links_in(topo.links)


def host_links_in(links: Iterable[Link]) -> list[Link]:
    """The host links among `links`, in their order (picked in C-level passes)."""
    links = links if isinstance(links, list | tuple) else list(links)
    return list(compress(links, map(LinkRole.HOST.__eq__, map(_ROLE, links))))


_ROLE = attrgetter("role")


def railmap_csv(inv: Inventory, topo: Topology, plan: Plan, devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    return railmap_files({h.name: h.model for h in topo.hosts.values()}, host_shapes(inv), host_links(topo),
                         plan.host_addr, rail_subnets_view(plan), inv.fabric.host_mtu, ports_view(devices))


def railmap_files(hosts: Mapping[str, str], shapes: Mapping[str, HostShape], links: Iterable[Link],
                  host_addr: Mapping[str, int], subnets: Mapping[tuple[str, int], RailSubnet], mtu: int,
                  ports: Mapping[str, tuple[Port, ...]]) -> dict[str, str]:
    """From exactly what the map shows: host → host model, the models' GPU/NIC shapes, the host links, their
    addresses, the rail subnets, the host MTU and the switches' interface names. Rows are built as text cells (as
    csv.writer writes numbers) column by column: the addresses in one pass (address.ntoa_many)."""
    by_id: dict[str, Link] = {lk.id: lk for lk in links}
    address_text = dict(zip(host_addr, ntoa_many(host_addr.values()), strict=True))
    names: dict[str, dict[tuple[int, int], str]] = {}  # of the switches the map shows only
    rails: dict[tuple[str, int | None], tuple[str, str, str, str]] = {}  # (switch, rail) → rail, vlan, /len, gateway
    text = {n: str(n) for gpus, gpu_to_nic, ports_per_nic in shapes.values()  # each GPU, NIC and port number
            for n in (*range(gpus), *(gpu_to_nic or ()), *range(1, ports_per_nic + 1))}
    mtu_text, no_bond = str(mtu), ("", "")
    rows = []
    for hostname in sorted(hosts, key=natural_key):
        gpus, gpu_to_nic, ports_per_nic = shapes[hosts[hostname]]
        for gpu in range(gpus):
            nic = gpu_to_nic[gpu] if gpu_to_nic and gpu < len(gpu_to_nic) else gpu
            for port in range(1, ports_per_nic + 1):
                link = by_id.get(f"{hostname}:nic{nic}p{port}")
                if link is None or (address := address_text.get(link.id)) is None:
                    continue
                z = link.z
                sw = z[0]
                if (rail := rails.get((sw, link.rail))) is None:
                    sub = subnets[(sw, link.rail)]  # type: ignore[index]
                    rail = rails[(sw, link.rail)] = (str(link.rail), str(sub.vlan), f"/{sub.length}", ntoa(sub.gateway))
                if (sw_names := names.get(sw)) is None:
                    sw_names = names[sw] = interface_names({sw: ports[sw]})[sw]
                rows.append((hostname, text[gpu], text[nic], text[port], rail[0], sw, sw_names[z[1:3]], rail[1],
                             address + rail[2], rail[3], mtu_text,
                             *((host_bond(nic), BOND_MODE) if link.bundle else no_bond)))
    return {"hosts/railmap.csv": csv_text_plain(TITLE, HEADER, rows)}

