"""MTU after vendor normalisation: what a switch, a link and a host can carry.

Every platform's interface `mtu` is the IP MTU of the port (EOS: 68-9214; SONiC PORT/PORTCHANNEL/VLAN `mtu`: 68-9216,
sonic-port.yang), so values compare like with like. A link runs at the largest MTU both ends accept, the same number
at both ends: a SONiC spine port facing an EOS rail switch gets EOS's 9214, not its own 9216. Hosts must fit the MTU
of every rail switch they attach to (MTU003).
"""

from __future__ import annotations

from railfabric.platforms import PLATFORMS


def switch_mtu(fabric_mtu: int, platform: str) -> int:
    """The fabric MTU capped at the platform's ceiling: the MTU of a switch's host ports and SVIs."""
    return min(fabric_mtu, PLATFORMS[platform].max_mtu)


def link_mtu(fabric_mtu: int, platform_a: str, platform_b: str) -> int:
    """The MTU both ends of a switch-to-switch link use."""
    return min(switch_mtu(fabric_mtu, platform_a), switch_mtu(fabric_mtu, platform_b))
