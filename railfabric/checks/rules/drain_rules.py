"""DRAIN001: routing.drain: graceful-shutdown on a fabric where a platform in use cannot send GRACEFUL_SHUTDOWN.

Which drain the fabric gets (auto resolved) is railfabric/plan/drain.py; this only refuses an explicit request the
fabric cannot honour on every switch.
"""

from __future__ import annotations

from collections.abc import Callable

from railfabric.checks.rules.platform_rules import platforms_in_use
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_routing import Drain
from railfabric.plan.drain import lacking

Add = Callable[..., None]


def drain_capability(inv: Inventory, src: SourceMap, add: Add) -> None:
    if inv.routing.drain is not Drain.GRACEFUL_SHUTDOWN:
        return
    used = platforms_in_use(inv)
    for platform in lacking(used):
        at = ".".join(map(str, used[platform]))
        add("DRAIN001", f"routing.drain: graceful-shutdown cannot be honoured: {platform} (used at {at}) cannot send "
            "the GRACEFUL_SHUTDOWN community as a drain", ("routing", "drain"),
            "use drain: auto (AS-path prepending for the whole fabric while a platform lacks graceful shutdown) or "
            "drain: as-path-prepend")
