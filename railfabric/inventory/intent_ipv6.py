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
from typing import Annotated

import netaddr
from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

from railfabric.inventory.intent_types import prefix_parser


class AddressFamily(StrEnum):
    IPV4 = "ipv4"
    IPV6 = "ipv6"


_network6 = prefix_parser(6, "2001:db8:100::/48")


IPv6Prefix = Annotated[
    netaddr.IPNetwork,
    BeforeValidator(_network6),
    PlainSerializer(str),
    WithJsonSchema({"type": "string", "description": "IPv6 prefix, e.g. '2001:db8:100::/48'"}),
]
