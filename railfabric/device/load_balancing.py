"""A switch's load balancing over equal-cost next hops (issue 30, lb30): the fabric-wide routing.ecmp decisions in
one record, read by every platform's renderer (railfabric/configs/<platform>/, templates/<platform>/).

Every switch of a fabric gets the same record: the mode, its options, and the hash fields are fabric-wide, and a
platform that cannot honour one of them refused the inventory before this is built (railfabric/checks/rules/
lb_rules.py, PLAT001). `hash_fields` () means the platform's own default hash: nothing is rendered for it, so an
inventory without routing.ecmp.hash renders as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from railfabric.inventory.intent_routing import Ecmp, EcmpMode

# The five-tuple, the default hash of the platforms whose defaults their documents state (Junos enhanced-hash-key
# "Default" section, NVUE `nv show system forwarding` defaults): the fields a hash choice is compared against.
FIVE_TUPLE = ("src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port")


@dataclass(frozen=True, slots=True)
class LoadBalancing:
    mode: str = EcmpMode.FLOW.value  # flow | flowlet | packet (railfabric/inventory/intent_routing.py EcmpMode)
    hash_fields: tuple[str, ...] = ()  # in the inventory's order; () = the platform's default, nothing rendered
    flowlet_inactivity_us: int | None = None  # mode flowlet only; None = the switch's default
    link_utilization_threshold: int | None = None  # mode packet only (adaptive routing); None = the default

    @property
    def flowlet(self) -> bool:
        return self.mode == EcmpMode.FLOWLET.value

    @property
    def packet(self) -> bool:
        return self.mode == EcmpMode.PACKET.value

    def hashes(self, field: str) -> bool:
        """Whether the hash includes `field` (only meaningful when hash_fields is set)."""
        return field in self.hash_fields

    def excluded(self) -> tuple[str, ...]:
        """The five-tuple fields the chosen hash leaves out, in FIVE_TUPLE order (for platforms that write
        exclusions from their five-tuple default, Junos); () without a chosen hash."""
        return tuple(f for f in FIVE_TUPLE if f not in self.hash_fields) if self.hash_fields else ()


FLOW_HASH = LoadBalancing()


def load_balancing(ecmp: Ecmp) -> LoadBalancing:
    """The record of routing.ecmp; each option only with the mode that reads it (LB001 refused the others)."""
    return LoadBalancing(
        mode=ecmp.mode.value,
        hash_fields=tuple(f.value for f in ecmp.hash or ()),
        flowlet_inactivity_us=ecmp.flowlet_inactivity_us if ecmp.mode is EcmpMode.FLOWLET else None,
        link_utilization_threshold=ecmp.link_utilization_threshold if ecmp.mode is EcmpMode.PACKET else None,
    )
