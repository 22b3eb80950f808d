"""Host rules on the host models: the NIC names that the host files (railfabric/hosts/) are rendered with name every NIC
port exactly once, no port is named like a bond the host gets (HOST001-HOST004), none takes a name Linux or
systemd-networkd (netplan's renderer) keeps for itself (HOST008, RESERVED_NETDEVS); packet spraying only toward NICs
that place out-of-order packets (HOST007).

HOST007: with routing.ecmp.mode packet the rail switches spray a flow's packets over every uplink, so packets of one
RoCE queue pair reach the destination NIC out of order. A NIC without out-of-order data placement takes that as loss
and retransmits from the first missing packet (go-back-N), so spraying cuts goodput instead of raising it. NVIDIA
documents out-of-order data placement for ConnectX-5 and later on RC/XRC QPs and DC ("Out-of-Order (OOO) Data
Placement", MLNX_OFED 23.10 / DOCA 2.9 documentation), enabled per QP (NCCL_IB_ADAPTIVE_ROUTING=1, which the host
files set under packet mode). Every host model placed in a pod with spines must say its NICs do
(`accepts_out_of_order: true`); a rail-only pod has no uplinks to spray over."""

from __future__ import annotations

from collections import Counter

from railfabric.core.finding import Finding
from railfabric.core.source_map import SourceMap
from railfabric.core.textsafe import quote
from railfabric.inventory.intent import DualHoming, Inventory
from railfabric.inventory.intent_routing import EcmpMode
from railfabric.plan.nic_names import bond

# Interface names a NIC port cannot take, and why (HOST008):
# - lo: the loopback device every network namespace has (netplan would configure it as the rail NIC);
# - all, default: systemd's ifname_valid_full refuses them as they name the sysctl directories
#   /proc/sys/net/{ipv4,ipv6}/conf/{all,default} (systemd src/basic/socket-util.c);
# - bonding_masters: the bonding driver's control file /sys/class/net/bonding_masters (Linux
#   Documentation/networking/bonding.rst), where every interface has its directory;
# and a name of digits only, which systemd refuses as it reads as an interface index (ifname_valid_full).
RESERVED_NETDEVS = {
    "lo": "the loopback interface every Linux network namespace has",
    "all": "the name of the sysctl directory /proc/sys/net/ipv4/conf/all (systemd-networkd refuses it)",
    "default": "the name of the sysctl directory /proc/sys/net/ipv4/conf/default (systemd-networkd refuses it)",
    "bonding_masters": "the bonding driver's file /sys/class/net/bonding_masters",
}


def reserved_netdev(name: str) -> str | None:
    """Why `name` cannot be a NIC port's interface name, or None."""
    if name.isdigit():
        return "a name of digits only reads as an interface index (systemd-networkd refuses it)"
    return RESERVED_NETDEVS.get(name)


def check_hosts(inv: Inventory, src: SourceMap) -> list[Finding]:
    out: list[Finding] = []
    mlag_models = {hg.model for pod in inv.pods for seg in pod.segments if seg.dual_homing is DualHoming.MLAG
                   for hg in seg.host_groups}
    for name, model in inv.host_models.items():
        ports = model.nics * model.ports_per_nic
        layout = (f"{model.nics} NIC(s) x {model.ports_per_nic} port(s)" if model.ports_per_nic > 1
                  else f"{model.nics} NIC(s)")
        for key, code in (("netdevs", "HOST001"), ("rdma_devices", "HOST002")):
            names = getattr(model, key)
            if names is None:
                continue
            where = src.loc(("host_models", name, key))
            if len(names) != ports:
                out.append(Finding(code, f"host model {name}: {key} lists {len(names)} name(s) for {layout} = "
                                   f"{ports} port(s)", where,
                                   f"list one name per NIC port, NIC by NIC (NIC 0 port 1, NIC 0 port 2, ...), or "
                                   f"leave {key} out for the defaults"))
            for dup, n in sorted(Counter(names).items()):
                if n > 1:
                    out.append(Finding("HOST003", f"host model {name}: {key} names {quote(dup)} {n} times", where,
                                       "every NIC port has its own name"))
        for i, netdev in enumerate(model.netdevs or ()):
            why = reserved_netdev(netdev)
            if why is not None:
                out.append(Finding("HOST008", f"host model {name}: NIC port name {quote(netdev)} is reserved: {why}",
                                   src.loc(("host_models", name, "netdevs", i)),
                                   "name the port as the server does (e.g. enp24s0np0, or nic<n>)"))
        if model.netdevs is not None and name in mlag_models:
            bonds = {bond(n) for n in range(model.nics)}
            for clash in sorted(bonds & set(model.netdevs)):
                out.append(Finding("HOST004", f"host model {name}: NIC port {quote(clash)} has the name of a bond "
                                   "(dual_homing: mlag bonds NIC n's ports as bond<n>)",
                                   src.loc(("host_models", name, "netdevs")), "rename the port"))
    return out + _out_of_order(inv, src)


def _out_of_order(inv: Inventory, src: SourceMap) -> list[Finding]:
    """HOST007 (module docstring): one finding per host model that receives sprayed packets and cannot take them."""
    if inv.routing.ecmp.mode is not EcmpMode.PACKET:
        return []
    placed = sorted({hg.model for pod in inv.pods if pod.spines is not None for seg in pod.segments
                     for hg in seg.host_groups})
    where = src.loc(("routing", "ecmp", "mode"))
    out = []
    for name in placed:
        model = inv.host_models.get(name)
        if model is None or model.accepts_out_of_order:
            continue  # an unknown model is REF's finding
        out.append(Finding("HOST007", f"routing.ecmp.mode packet sprays each flow over every uplink, but host model "
                           f"{quote(name)} does not declare NICs that accept out-of-order packets: they would take "
                           "reordering as loss and retransmit", where,
                           f"set host_models.{name}.accepts_out_of_order: true if its NICs do out-of-order data "
                           "placement (NVIDIA ConnectX-5 and later), or use routing.ecmp.mode flow or flowlet",
                           related=tuple(loc for loc in (src.loc(("host_models", name)),) if loc),
                           uses=(("host_models", name),)))
    return out
