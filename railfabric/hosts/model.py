"""The vendor-neutral host model: what each GPU server's rail NICs need, decided once (railfabric/hosts/build.py) and
only formatted by the outputs (railfabric/outputs/hosts*.py) and `fabric show HOST`.

Frozen dataclasses of plain values (addresses as text), so the second half of issue 11 (the host <-> switch check of
the parse-back verifier, hosts in the FRR lab) can compare what it parses back from the rendered files with these.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Route:
    """A route of a rail interface's own table (railfabric/hosts/routes.py): `via` the rail gateway (the whole rail pool
    in a pod with spines; a rail-only switch's other subnets), or on-link (`via` None: the rail subnet itself, so
    that neighbours on the rail are reached directly, not through the gateway), or `unreachable`: the whole rail
    pool last in a rail-only pod, so that a rail prefix this NIC cannot reach ends the lookup in this table (a clear
    "no route") instead of falling through to the main table and leaving through another rail's NIC."""

    to: str  # a.b.c.d/len
    via: str | None
    unreachable: bool = False


@dataclass(frozen=True, slots=True)
class RailInterface:
    """One layer-3 interface of a host on the rail fabric: a NIC port, or the LACP bond of a NIC's two ports
    (dual_homing: mlag). It has its own routing table and a policy rule `from <address>` selecting it."""

    name: str  # the Linux interface: the port's netdev, or the bond
    members: tuple[str, ...]  # bond members (netdevs); () for a plain NIC port
    nic: int
    port: int  # NIC port, 1-based (1 for a bond)
    rail: int
    gpus: tuple[int, ...]  # local ranks whose traffic this NIC carries (several under gpu_to_nic)
    rdma_device: str
    uplinks: tuple[tuple[str, str], ...]  # (switch, port[/lane]) of every cable: two for a bond
    vlan: int
    address: str  # a.b.c.d
    prefix_len: int
    subnet: str  # a.b.c.d/len: the rail subnet
    gateway: str  # the rail switch's SVI (anycast/virtual under MLAG)
    mtu: int
    table: int  # routing table of this interface
    rule_priority: int  # priority of the `from <address>` rule
    routes: tuple[Route, ...]  # the table's routes: the rail subnet on-link, then the pool via gateway (routes.py)
    bond_mode: str | None  # "802.3ad" for a bond
    # dual-stack (routing.address_families with ipv6): the interface's IPv6 address on the rail /64 (gateway + host
    # number, as in IPv4), the rail SVI's IPv6 gateway and the same table's IPv6 routes; "" / () on an IPv4-only fabric
    address_v6: str = ""
    gateway_v6: str = ""
    routes_v6: tuple[Route, ...] = ()

    @property
    def ports(self) -> tuple[str, ...]:
        """The physical netdevs of this interface."""
        return self.members or (self.name,)


@dataclass(frozen=True, slots=True)
class HostPlan:
    name: str
    pod: int
    segment: int
    number: int
    model: str
    group: str  # the host group (HostGroupPlan.name)
    gpus: int
    interfaces: tuple[RailInterface, ...]  # by rail, then NIC port


@dataclass(frozen=True, slots=True)
class RoceSettings:
    """The NIC side of the fabric's RoCE policy (the same numbers the switches get from railfabric/device/qos.py)."""

    dscp_prio: tuple[tuple[int, int], ...]  # (DSCP, priority) of every DSCP the switches do not leave at 0
    pfc_prios: tuple[int, ...]  # lossless priorities (PFC on)
    roce_dscp: int
    roce_prio: int
    cnp_dscp: int
    cnp_prio: int
    ecn: bool  # ECN marking on the switches: NP (CNP generation) and RP (rate reduction) on in the NICs
    tos: int  # RoCE type of service byte: DSCP << 2 | ECT(0) when ECN is on (RDMA-CM default, NCCL_IB_TC)


@dataclass(frozen=True, slots=True)
class HostGroupPlan:
    """What every host of one inventory host group shares byte for byte: the RoCE script, its systemd unit and the
    NCCL environment (same host model, same pod, same fabric policy)."""

    name: str  # p<pod>-s<segment>-h<first host number>
    pod: int
    segment: int
    model: str
    hosts: tuple[str, ...]
    ports: tuple[str, ...]  # physical rail netdevs, in rail order (dcb, ECN)
    interfaces: tuple[str, ...]  # layer-3 rail interfaces (bond or netdev), in rail order (sysctls)
    rdma_devices: tuple[str, ...]  # one per rail interface, in rail order (RDMA-CM ToS, NCCL_IB_HCA)
    roce: RoceSettings
    nccl: tuple[tuple[str, str], ...]  # NCCL environment, sorted by name


@dataclass(frozen=True, slots=True)
class HostsPlan:
    hosts: dict[str, HostPlan]
    groups: dict[str, HostGroupPlan]
