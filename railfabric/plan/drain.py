"""How the rollout drains a switch (`routing.drain`), decided once for the whole fabric.

- graceful-shutdown: RFC 8326. The switch being changed sends the GRACEFUL_SHUTDOWN community (65535:0) with every
  route on its eBGP sessions; every switch lowers LOCAL_PREF of received routes carrying it to 0 (an inbound policy
  railfabric renders, or the platform's own receiver where documented), so a draining neighbour's paths leave the
  ECMP set of every other switch while they stay usable as a last resort. Routes with no other path (the rail subnets
  of the draining rail switch itself) keep flowing through it.
- as-path-prepend: the switch prepends its own ASN to what it advertises (no cooperation from the neighbours needed,
  no receiver policy), the rollout's drain before graceful shutdown was offered.
- auto: graceful shutdown when every platform of the fabric can send it (Platform.graceful_shutdown), else AS-path
  prepending for the whole fabric: one drain for every switch, so no switch depends on a receiver policy that a
  neighbour of another platform lacks. A fabric that asks for graceful-shutdown on a platform without it is DRAIN001
  (railfabric/checks/rules/drain_rules.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from railfabric.inventory.intent_routing import Drain
from railfabric.platforms import PLATFORMS

GRACEFUL_SHUTDOWN = "graceful-shutdown"
AS_PATH_PREPEND = "as-path-prepend"
GSHUT_COMMUNITY = "65535:0"  # RFC 8326 §4 (IANA well-known community GRACEFUL_SHUTDOWN)
GSHUT_LOCAL_PREFERENCE = 0  # RFC 8326 §4.1: the receiver lowers LOCAL_PREF, 0 recommended


@dataclass(frozen=True, slots=True)
class DrainPlan:
    method: str  # graceful-shutdown | as-path-prepend
    why: str  # for `fabric plan` and the docs: how auto decided, or that it was asked for


PREPEND_PLAN = DrainPlan(AS_PATH_PREPEND, "")  # a record's default before the fabric's drain is decided


def lacking(platforms: Iterable[str]) -> list[str]:
    """The platforms of `platforms` that cannot send GRACEFUL_SHUTDOWN as a drain, sorted."""
    return sorted({p for p in platforms if not PLATFORMS[p].graceful_shutdown})


def drain_plan(requested: Drain, platforms: Iterable[str]) -> DrainPlan:
    """The fabric's drain from `routing.drain` and the platforms its switches run. An explicit graceful-shutdown on a
    fabric with a platform lacking it is refused before this runs (DRAIN001); here it is kept as asked."""
    used = sorted(set(platforms))
    if requested is Drain.AS_PATH_PREPEND:
        return DrainPlan(AS_PATH_PREPEND, "routing.drain: as-path-prepend")
    if requested is Drain.GRACEFUL_SHUTDOWN:
        return DrainPlan(GRACEFUL_SHUTDOWN, "routing.drain: graceful-shutdown")
    missing = lacking(used)
    if missing:
        return DrainPlan(AS_PATH_PREPEND, f"auto: {', '.join(missing)} cannot send GRACEFUL_SHUTDOWN, so the whole "
                         "fabric drains by AS-path prepending")
    return DrainPlan(GRACEFUL_SHUTDOWN, f"auto: every platform of the fabric ({', '.join(used)}) sends "
                     "GRACEFUL_SHUTDOWN (RFC 8326)")
