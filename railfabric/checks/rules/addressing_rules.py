"""Rules on routing.addressing (numbered /31s or BGP unnumbered, RFC 8950) before expansion.

UND001: pools.fabric_links is optional, but a numbered link needs it: every fabric link with `addressing:
numbered`, and the MLAG peer VLAN's /31 (the pair's iBGP session stays numbered) with either addressing.
PLAT041: a platform in use whose unnumbered form railfabric does not render (Platform.bgp_unnumbered false).
"""

from __future__ import annotations

from collections.abc import Callable

from railfabric.checks.rules.uses import pool
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import DualHoming, Inventory
from railfabric.inventory.intent_routing import Addressing
from railfabric.platforms import PLATFORMS

Add = Callable[..., None]


def mlag_segment(inv: Inventory, platform: str | None = None) -> str | None:
    """The first segment (as 'pod P segment S') whose switches form MLAG pairs (with `platform`: whose rail
    switches run it), None when there is none."""
    for pod in inv.pods:
        for seg in pod.segments:
            if seg.dual_homing is DualHoming.MLAG and (
                    platform is None or (seg.platform or inv.fabric.platform).value == platform):
                return f"pod {pod.id} segment {seg.id}"
    return None


def link_pool(inv: Inventory, src: SourceMap, add: Add) -> None:
    if inv.pools.fabric_links is not None:
        return
    if inv.routing.addressing is Addressing.NUMBERED:
        add("UND001", "pools.fabric_links is missing, but routing.addressing is numbered: every fabric link needs a "
            "/31 from it", ("pools",), "add pools.fabric_links (e.g. 10.32.0.0/11), or set routing.addressing: "
            "unnumbered", subject=pool("fabric_links"))
        return
    seg = mlag_segment(inv)
    if seg is not None:
        add("UND001", f"pools.fabric_links is missing, but {seg} has MLAG pairs: the iBGP session over each pair's "
            "peer VLAN stays numbered, a /31 from pools.fabric_links", ("pools",),
            "add pools.fabric_links (only the MLAG peer VLANs draw from it)", subject=pool("fabric_links"))


def unnumbered_platform(inv: Inventory, platform: str, at: str, add: Add) -> None:
    """PLAT041 when `platform` (first selected at `at`) cannot render routing.addressing: unnumbered."""
    traits = PLATFORMS[platform]
    if inv.routing.addressing is Addressing.UNNUMBERED and not traits.bgp_unnumbered:
        add("PLAT041", f"routing.addressing: unnumbered is not rendered on {platform} (used at {at}): "
            f"{traits.unnumbered_refusal or 'no confirmed form'}", ("routing", "addressing"),
            "keep routing.addressing: numbered, or move these switches to sonic or nvue")
