"""Load balancing beyond flow hashing (issue 30, lb30): what routing.ecmp asks of every platform of the fabric.

The mode itself is checked with the other fabric-wide policies (PLAT001, railfabric/checks/rules/platform_rules.py);
per-packet spraying towards hosts that cannot take reordering is HOST007 (host_rules.py; flowlet mode does not
reorder while the inactivity interval exceeds the path skew, so it needs nothing of the hosts). Here:

- LB001: flowlet_inactivity_us without mode flowlet, link_utilization_threshold without mode packet (error).
- LB002: an empty hash list or one naming a field twice (error).
- LB003: a hash without l4_src_port, the entropy RoCEv2 NICs put in the UDP source port (warning).
- PLAT053 / PLAT054: a hash field, or (NX-OS) a field set, a platform of the fabric cannot select (error).
- PLAT055 / PLAT056: the flowlet interval / adaptive-routing threshold on a platform that runs the mode but cannot
  set it (error).

Mixed platforms: the mode and its options are fabric-wide, so a fabric whose platforms would balance differently is
refused rather than warned about: a rail switch that moves flowlets after 256 µs next to a spine that keeps its own
interval (or one that hashes the source port next to one that cannot) gives each tier its own reordering bound and
its own polarisation, which is exactly what an operator picks a fabric-wide setting to avoid.
"""

from __future__ import annotations

from collections.abc import Callable

from railfabric.checks.rules.platform_rules import platforms_in_use
from railfabric.core.finding import Severity
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_routing import Ecmp, EcmpMode, HashField
from railfabric.platforms import PLATFORMS

Add = Callable[..., None]
ECMP = ("routing", "ecmp")


def lb_capability(inv: Inventory, src: SourceMap, add: Add) -> None:
    ecmp = inv.routing.ecmp
    _options(ecmp, add)
    if ecmp.hash is not None:
        _hash_list(ecmp.hash, add)
    for platform, where in sorted(platforms_in_use(inv).items()):
        at = ".".join(map(str, where))
        if ecmp.hash:
            _hash_platform(ecmp.hash, platform, at, add)
        _options_platform(ecmp, platform, at, add)


def _options(ecmp: Ecmp, add: Add) -> None:
    if ecmp.flowlet_inactivity_us is not None and ecmp.mode is not EcmpMode.FLOWLET:
        add("LB001", f"routing.ecmp.flowlet_inactivity_us {ecmp.flowlet_inactivity_us} is read only by mode flowlet, "
            f"but the mode is {ecmp.mode.value}", (*ECMP, "flowlet_inactivity_us"),
            "set routing.ecmp.mode: flowlet, or remove flowlet_inactivity_us")
    if ecmp.link_utilization_threshold is not None and ecmp.mode is not EcmpMode.PACKET:
        add("LB001", f"routing.ecmp.link_utilization_threshold {ecmp.link_utilization_threshold} is read only by mode "
            f"packet (adaptive routing), but the mode is {ecmp.mode.value}", (*ECMP, "link_utilization_threshold"),
            "set routing.ecmp.mode: packet, or remove link_utilization_threshold")


def _hash_list(fields: list[HashField], add: Add) -> None:
    if not fields:
        add("LB002", "routing.ecmp.hash is empty: the switches would hash on nothing and put every flow on one next "
            "hop", (*ECMP, "hash"), "list the fields (src_ip, dst_ip, ip_protocol, l4_src_port, l4_dst_port), or "
            "remove hash for each platform's default")
        return
    seen: set[HashField] = set()
    for i, f in enumerate(fields):
        if f in seen:
            add("LB002", f"routing.ecmp.hash names {f.value} twice", (*ECMP, "hash", i), "list each field once")
        seen.add(f)
    if HashField.L4_SRC_PORT not in seen:
        add("LB003", "routing.ecmp.hash leaves out l4_src_port: RoCEv2 varies only the UDP source port between the "
            "queue pairs of two NICs, so all of them would take one path", (*ECMP, "hash"),
            "add l4_src_port (unless this fabric carries no RoCE)", sev=Severity.WARNING)


def _hash_platform(fields: list[HashField], platform: str, at: str, add: Add) -> None:
    traits = PLATFORMS[platform]
    bad = [(i, f) for i, f in enumerate(fields) if f.value not in traits.ecmp_hash_fields]
    for i, f in bad:
        offers = ", ".join(sorted(traits.ecmp_hash_fields)) or "none (its own default hash only)"
        add("PLAT053", f"ECMP hash field {f.value} cannot be selected on {platform} (used at {at}); {platform} "
            f"selects {offers}", (*ECMP, "hash", i),
            "remove the field, or move these switches to a platform that selects it")
    chosen = frozenset(f.value for f in fields)
    if not bad and traits.ecmp_hash_sets and chosen not in traits.ecmp_hash_sets:
        sets = "; ".join("[" + ", ".join(sorted(s)) + "]" for s in traits.ecmp_hash_sets)
        add("PLAT054", f"ECMP hash [{', '.join(sorted(chosen))}] cannot be expressed on {platform} (used at {at}): "
            f"it takes only these whole sets: {sets}", (*ECMP, "hash"), "use one of those sets")


def _options_platform(ecmp: Ecmp, platform: str, at: str, add: Add) -> None:
    traits = PLATFORMS[platform]
    if ecmp.mode.value not in traits.ecmp_modes:
        return  # the mode itself is PLAT001 there
    if (ecmp.mode is EcmpMode.FLOWLET and ecmp.flowlet_inactivity_us is not None
            and not traits.flowlet_inactivity):
        add("PLAT055", f"routing.ecmp.flowlet_inactivity_us {ecmp.flowlet_inactivity_us} cannot be set on "
            f"{platform} (used at {at}): its switches would keep their own interval while others use this one",
            (*ECMP, "flowlet_inactivity_us"),
            "remove flowlet_inactivity_us (every switch keeps its default), or move these switches to a platform "
            "that sets it")
    if (ecmp.mode is EcmpMode.PACKET and ecmp.link_utilization_threshold is not None
            and not traits.adaptive_routing_threshold):
        add("PLAT056", f"routing.ecmp.link_utilization_threshold {ecmp.link_utilization_threshold} cannot be set on "
            f"{platform} (used at {at}): its per-packet mode has no utilisation threshold in the rendered forms",
            (*ECMP, "link_utilization_threshold"),
            "remove link_utilization_threshold, or move these switches to a platform that sets it")
