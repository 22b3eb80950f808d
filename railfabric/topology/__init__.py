"""The concrete topology: switches, hosts and links with both ends (expand.py builds it from the intent).

model.py: the records; expansion.py: the state one expansion fills; expand.py: the orchestration (super-spines,
spines, per pod); rails.py: a segment's rail switches, hosts and host links, MLAG peer links; uplinks.py: rail →
spine and spine → super-spine links; ports.py: which ports face where and the position allocator; cabling.py:
explicit `cabling:` entries.
"""

from railfabric.topology.cabling import apply_cabling
from railfabric.topology.expand import expand
from railfabric.topology.expansion import Expansion
from railfabric.topology.model import (
    MLAG_CHANNEL_BASE,
    MLAG_PEER_CHANNEL,
    End,
    Host,
    Link,
    LinkRole,
    Role,
    SegmentInfo,
    Switch,
    Topology,
)
from railfabric.topology.ports import (
    Ports,
    blocks_for,
    downlink_candidates,
    host_candidates,
    lanes_for,
    peer_link_candidates,
    uplink_candidates,
)
from railfabric.topology.rails import host_numbers, per_switch, rail_groups

__all__ = [
    "MLAG_CHANNEL_BASE", "MLAG_PEER_CHANNEL", "End", "Expansion", "Host", "Link", "LinkRole", "Ports", "Role",
    "SegmentInfo", "Switch", "Topology", "apply_cabling", "blocks_for", "downlink_candidates", "expand",
    "host_candidates", "host_numbers", "lanes_for", "peer_link_candidates", "per_switch", "rail_groups",
    "uplink_candidates",
]
