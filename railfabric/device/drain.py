"""The receiving side of RFC 8326 graceful shutdown in the device model: the inbound policy that lowers LOCAL_PREF
of routes carrying GRACEFUL_SHUTDOWN (65535:0) to 0 on every eBGP peer group, so that a neighbour being drained by
the rollout (railfabric/plan/drain.py) leaves this switch's ECMP set. Decided here once; templates only write it.

Rendered only when the fabric drains by graceful shutdown, and only on a platform without a documented built-in
receiver (Platform.gshut_receiver_builtin: Junos). The iBGP session of an MLAG pair gets no policy: LOCAL_PREF
travels over iBGP, so routes the peer lowered arrive lowered. Routes without the community keep LOCAL_PREF 100 and
stay equal: the ECMP of normal routes is unchanged (a later permit entry with no match and no set).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from railfabric.device.mlag import MLAG_PEER_GROUP
from railfabric.plan.drain import GRACEFUL_SHUTDOWN, GSHUT_COMMUNITY, GSHUT_LOCAL_PREFERENCE, DrainPlan
from railfabric.platforms.base import Platform

COMMUNITY_LIST = "CL-GSHUT"
GSHUT_NAME = "graceful-shutdown"  # FRR's and NVUE's name of 65535:0 (FRR bgp.rst "well-known communities")
ROUTE_MAP_IN = "RM-GSHUT-IN"
MATCH_SEQ = 10  # match the community, set LOCAL_PREF 0
PASS_SEQ = 20  # every other route unchanged


@dataclass(frozen=True, slots=True)
class GshutReceipt:
    community_list: str
    community: str  # 65535:0
    community_name: str  # its well-known name, as FRR and NVUE write it: graceful-shutdown
    route_map: str
    match_seq: int
    local_preference: int
    pass_seq: int
    groups: tuple[str, ...]  # the eBGP peer groups whose inbound policy it is, in the switch's group order


def gshut_receipt(drain: DrainPlan, traits: Platform, groups: Sequence[str]) -> GshutReceipt | None:
    """The switch's receiver policy, or None: the fabric drains by AS-path prepending, the platform receives by
    itself, or the switch has no eBGP peer group."""
    if drain.method != GRACEFUL_SHUTDOWN or traits.gshut_receiver_builtin:
        return None
    ebgp = tuple(g for g in groups if g != MLAG_PEER_GROUP)
    if not ebgp:
        return None
    return GshutReceipt(COMMUNITY_LIST, GSHUT_COMMUNITY, GSHUT_NAME, ROUTE_MAP_IN, MATCH_SEQ, GSHUT_LOCAL_PREFERENCE,
                        PASS_SEQ, ebgp)
