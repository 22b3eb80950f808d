"""Rules on what each platform in use can express of the fabric-wide policy (ECMP mode, PFC watchdog, ECN).

A platform is in use when the fabric, the super-spines, a pod's spines, a segment or a device override names it;
each finding names the first place that does. PLAT001: the policy cannot be expressed there (an error, or a
warning where the switch's own behaviour stands in); PLAT030: ECN thresholds in bytes become queue fill levels;
QOS005: a watchdog time the switch counts in whole polls is rounded up to the next poll.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from railfabric.checks.rules.addressing_rules import unnumbered_platform
from railfabric.checks.rules.ipv6_rules import ipv6_platform
from railfabric.core.finding import Severity
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.platforms import PLATFORMS

Add = Callable[..., None]


def platforms_in_use(inv: Inventory) -> dict[str, tuple]:
    """Platform name → the inventory path of the first place that selects it."""
    used: dict[str, tuple] = {inv.fabric.platform.value: ("fabric", "platform")}
    if inv.super_spines and inv.super_spines.platform:
        used.setdefault(inv.super_spines.platform.value, ("super_spines", "platform"))
    for pi, pod in enumerate(inv.pods):
        if pod.spines and pod.spines.platform:
            used.setdefault(pod.spines.platform.value, ("pods", pi, "spines", "platform"))
        for si, seg in enumerate(pod.segments):
            if seg.platform:
                used.setdefault(seg.platform.value, ("pods", pi, "segments", si, "platform"))
    for key, ov in inv.devices.items():
        if ov.platform:
            used.setdefault(ov.platform.value, ("devices", key, "platform"))
    return used


def platform_capabilities(inv: Inventory, src: SourceMap, add: Add) -> None:
    for platform, where in sorted(platforms_in_use(inv).items()):
        at = ".".join(map(str, where))
        _watchdog(inv, platform, at, add)
        unnumbered_platform(inv, platform, at, add)
        ipv6_platform(inv, platform, at, add)
        traits = PLATFORMS[platform]
        if inv.qos.ecn.enabled and not traits.ecn_bytes:
            add("PLAT030", f"ECN thresholds {inv.qos.ecn.min_bytes}/{inv.qos.ecn.max_bytes} bytes cannot be expressed "
                f"on {platform} (used at {at}): rendered as queue fill levels 55/90 %",
                ("qos", "ecn"), "check the marking point on the switch against the hosts' DCQCN settings",
                sev=Severity.WARNING)
        mode = inv.routing.ecmp.mode.value
        if mode not in traits.ecmp_modes:
            offers = ", ".join(sorted(traits.ecmp_modes))
            add("PLAT001", f"ECMP mode {mode!r} cannot be expressed on {platform} (used at {at}); "
                f"{platform} offers {offers}", ("routing", "ecmp", "mode"),
                "use mode: flow, or move these switches to a platform that offers the mode")


def _watchdog(inv: Inventory, platform: str, at: str, add: Add) -> None:
    wd = inv.qos.pfc_watchdog
    traits = PLATFORMS[platform]
    if not wd.enabled:
        return
    if wd.action not in traits.watchdog_actions:
        add("PLAT001", f"PFC watchdog action {wd.action!r} cannot be expressed on {platform} (used at {at}); "
            f"{platform} offers {', '.join(sorted(traits.watchdog_actions))}", ("qos", "pfc_watchdog", "action"),
            "use action: drop")
    if "restoration_ms" in wd.model_fields_set and not traits.watchdog_restoration:
        add("PLAT001", f"PFC watchdog restoration_ms {wd.restoration_ms} cannot be expressed on {platform} (used "
            f"at {at}): the switch's own restoration time applies there", ("qos", "pfc_watchdog", "restoration_ms"),
            "leave restoration_ms out, or accept the platform's own restoration on these switches",
            sev=Severity.WARNING)
    for name, ms in (("detection", wd.detection_ms), ("restoration", wd.restoration_ms)):
        if name not in traits.watchdog_in_polls or ms % wd.poll_ms == 0:
            continue
        if name == "restoration" and not traits.watchdog_restoration:
            continue
        polls = max(1, math.ceil(ms / wd.poll_ms))
        add("QOS005", f"PFC watchdog {name}_ms {ms} is not a whole number of polls of {wd.poll_ms} ms: {platform} "
            f"(used at {at}) counts it in polls and acts after {polls} polls = {polls * wd.poll_ms} ms",
            ("qos", "pfc_watchdog", f"{name}_ms"),
            f"use a multiple of poll_ms, e.g. {polls * wd.poll_ms} or {max(1, polls - 1) * wd.poll_ms}",
            sev=Severity.WARNING)
