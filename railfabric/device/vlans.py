"""VLANs and SVIs of the device model: one VLAN per rail of a rail switch, its SVI the rail subnet's gateway.

Untagged members are the host access ports, or the MLAG host bonds of the VLAN; on an MLAG pair the peer link is
the tagged member and the gateway is shared (virtual); where the platform needs it (Platform.mlag_own_svi_address)
each switch of the pair also has its own address on the SVI (`own`, decided in allocate).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from railfabric.core.address import ntoa
from railfabric.core.address6 import ntoa6
from railfabric.device.mlag import MlagParts
from railfabric.plan.allocate import RailSubnet
from railfabric.plan.allocate_v6 import RailSubnet6


@dataclass(frozen=True, slots=True)
class Vlan:
    id: int
    name: str
    rail: int
    gateway: str  # a.b.c.d/len of the SVI
    prefix: str
    mtu: int
    members: tuple[str, ...]  # untagged: host ports, or MLAG host bonds
    tagged: tuple[str, ...] = ()  # the MLAG peer link
    virtual: bool = False  # the gateway is shared by an MLAG pair (EOS `ip address virtual`, SONiC SAG)
    own: str = ""  # a.b.c.d/len: this switch's own address beside the shared gateway (NVUE VRR), "" = none
    # dual-stack (routing.address_families with ipv6, railfabric/plan/allocate_v6.py): the SVI's IPv6 gateway
    # (<prefix>::1/64), its /64, and the switch's own IPv6 address beside a shared gateway; "" on an IPv4-only fabric
    gateway_v6: str = ""
    prefix_v6: str = ""
    own_v6: str = ""


def build_vlans(subnets: Sequence[RailSubnet], mtu: int, members: dict[int, list[str]],
                mlag: MlagParts, subnets6: Sequence[RailSubnet6 | None] = ()) -> tuple[Vlan, ...]:
    """The VLAN of each rail subnet (in the switch's rail order): name RAIL<rail>, the gateway address with the
    subnet length, the access ports of `members` (VLAN → ports) then the MLAG host bonds in the VLAN; with `subnets6`
    (dual-stack, one per subnet) each SVI's IPv6 gateway and own address too."""
    tagged = mlag.trunk()
    virtual = mlag.active
    if subnets6:
        return tuple(_with_v6(v, s6, virtual) for v, s6 in zip(build_vlans(subnets, mtu, members, mlag), subnets6,
                                                                 strict=True))
    return tuple(Vlan(id=sub.vlan, name=f"RAIL{sub.rail}", rail=sub.rail,
                      gateway=f"{ntoa(sub.gateway)}/{sub.prefix.length}", prefix=str(sub.prefix), mtu=mtu,
                      members=(*members.get(sub.vlan, ()), *mlag.bonds_in(sub.vlan)), tagged=tagged, virtual=virtual,
                      own=f"{ntoa(sub.own)}/{sub.prefix.length}" if virtual and sub.own is not None else "")
                 for sub in subnets)


def _with_v6(v: Vlan, sub: RailSubnet6 | None, virtual: bool) -> Vlan:
    if sub is None:
        return v
    length = sub.prefix.length
    own = f"{ntoa6(sub.own)}/{length}" if virtual and sub.own is not None else ""
    return replace(v, gateway_v6=f"{ntoa6(sub.gateway)}/{length}", prefix_v6=str(sub.prefix), own_v6=own)
