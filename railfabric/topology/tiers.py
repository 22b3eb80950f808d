"""Which BGP session tier (railfabric/inventory/intent_routing.py SessionTier) a session between two switch roles
belongs to: a rail switch and a spine `rail_spine`, a spine and a super-spine `spine_super_spine`, the two rail
switches of an MLAG pair `mlag_peer`. Both ends of a session map to the same tier."""

from __future__ import annotations

from railfabric.inventory.intent_routing import SessionTier
from railfabric.topology.model import LinkRole, Role

TIERS: dict[tuple[Role, Role], SessionTier] = {  # (my role, peer role) → the session tier
    (Role.RAIL, Role.SPINE): SessionTier.RAIL_SPINE,
    (Role.SPINE, Role.RAIL): SessionTier.RAIL_SPINE,
    (Role.SPINE, Role.SUPER_SPINE): SessionTier.SPINE_SUPER_SPINE,
    (Role.SUPER_SPINE, Role.SPINE): SessionTier.SPINE_SUPER_SPINE,
    (Role.RAIL, Role.RAIL): SessionTier.MLAG_PEER,
}
LINK_TIERS: dict[LinkRole, SessionTier] = {  # the tier of the session a link carries (host links carry none)
    LinkRole.FABRIC: SessionTier.RAIL_SPINE,
    LinkRole.CORE: SessionTier.SPINE_SUPER_SPINE,
    LinkRole.PEER: SessionTier.MLAG_PEER,
}
