"""The inventory's dual-stack keys (issue 30, IPv6 loopbacks and rail subnets): the IPv6 prefix type of
`pools.loopbacks_v6` / `pools.rail_subnets_v6` and `routing.address_families`.

`routing.address_families: [ipv4]` (the default) renders what railfabric always rendered; `[ipv4, ipv6]` gives every
switch an IPv6 /128 on its loopback and every rail VLAN an IPv6 /64 beside its IPv4 subnet, and activates the IPv6
unicast address family on every fabric session (railfabric/plan/allocate_v6.py has the layout). IPv6-only (`[ipv6]`)
is refused (V6005): the loopback is the IPv4 BGP router-id and the host side (RoCE GID selection, NCCL) is planned
on IPv4.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import netaddr
from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

from railfabric.core.textsafe import quote


class AddressFamily(StrEnum):
    IPV4 = "ipv4"
    IPV6 = "ipv6"


def _network6(v: Any) -> netaddr.IPNetwork:
    if isinstance(v, netaddr.IPNetwork):
        return v
    if not isinstance(v, str):
        raise ValueError("must be an IPv6 prefix such as '2001:db8:100::/48'")
    try:
        net = netaddr.IPNetwork(v)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        raise ValueError(f"{quote(v)} is not an IPv6 prefix such as '2001:db8:100::/48'") from None
    if net.version != 6 or "/" not in v:
        raise ValueError(f"{quote(v)} must be an IPv6 prefix with a length, such as '2001:db8:100::/48'")
    if net.ip != net.network:
        raise ValueError(f"{quote(v)} has host bits set; did you mean '{net.cidr}'?")
    return net


IPv6Prefix = Annotated[
    netaddr.IPNetwork,
    BeforeValidator(_network6),
    PlainSerializer(str),
    WithJsonSchema({"type": "string", "description": "IPv6 prefix, e.g. '2001:db8:100::/48'"}),
]
