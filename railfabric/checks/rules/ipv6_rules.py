"""Rules on the dual-stack keys (routing.address_families, pools.loopbacks_v6 / rail_subnets_v6; issue 30).

Before expansion (intent_rules registers `ipv6_intent`, platform_rules calls `ipv6_platform`):
- V6001: IPv6 asked for without a v6 pool;
- V6004: the two IPv6 pools overlap;
- V6005: IPv6-only ([ipv6] without ipv4) is refused: the loopback is the BGP router-id (an IPv4 address, RFC 6286
  allows any 32-bit value but railfabric derives it from the IPv4 loopback) and hosts are planned on IPv4;
- V6006 (warning): a v6 pool written while the fabric is IPv4-only (nothing uses it);
- PLAT047: a platform in use whose dual-stack forms railfabric does not render (Platform.ipv6_rails false;
  with Platform.ipv6_over_unnumbered: a numbered fabric, or an MLAG segment on that platform).
After allocation (plan_rules.check_plan calls `ipv6_plan`):
- V6002: a v6 pool too small for the slots the plan uses (the IPv4 POOL002 rule);
- V6003: a segment with more than 256 rail subnets: its /56 holds 256 /64s (railfabric/plan/allocate_v6.py).
"""

from __future__ import annotations

from collections.abc import Callable

from railfabric.checks.rules.addressing_rules import mlag_segment
from railfabric.checks.rules.uses import pool
from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_ipv6 import AddressFamily
from railfabric.inventory.intent_routing import Addressing
from railfabric.plan.allocate import Plan
from railfabric.plan.allocate_v6 import SEGMENT_LEN, SUBNETS_PER_SEGMENT
from railfabric.platforms import PLATFORMS

Add = Callable[..., None]
_POOLS = ("loopbacks_v6", "rail_subnets_v6")


def ipv6_intent(inv: Inventory, src: SourceMap, add: Add) -> None:
    fams = inv.routing.address_families
    path = ("routing", "address_families")
    if AddressFamily.IPV4 not in fams:
        add("V6005", "routing.address_families without ipv4 (IPv6-only) is not rendered: the BGP router-id is the "
            "IPv4 loopback and the hosts' RoCE addresses are planned on IPv4", path,
            "use [ipv4, ipv6] (dual-stack)")
    if len(set(fams)) != len(fams):
        add("V6005", f"routing.address_families names a family twice: {[f.value for f in fams]}", path,
            "list each family once: [ipv4] or [ipv4, ipv6]")
    p = inv.pools
    given = {name: getattr(p, name) for name in _POOLS if getattr(p, name) is not None}
    if inv.routing.ipv6:
        for name in _POOLS:
            if name not in given:
                example = "2001:db8:0:ffff::/64" if name == "loopbacks_v6" else "2001:db8:100::/44"
                add("V6001", f"routing.address_families has ipv6 but pools.{name} is missing", path,
                    f"add pools.{name} (e.g. {example})", subject=pool(name))
    elif given:
        for name in given:
            add("V6006", f"pools.{name} is set but routing.address_families has no ipv6: nothing uses it",
                ("pools", name), "add ipv6 to routing.address_families, or remove the pool", sev=Severity.WARNING)
    if len(given) == 2:
        a, b = given["loopbacks_v6"], given["rail_subnets_v6"]
        if a.first <= b.last and b.first <= a.last:
            add("V6004", f"pools loopbacks_v6 ({a}) and rail_subnets_v6 ({b}) overlap", ("pools", "rail_subnets_v6"),
                "make the IPv6 pools disjoint", related=(src.loc(("pools", "loopbacks_v6")),),
                subject=pool("rail_subnets_v6"), uses=(pool("loopbacks_v6"),))


def ipv6_platform(inv: Inventory, platform: str, at: str, add: Add) -> None:
    """PLAT047 when `platform` (first selected at `at`) cannot render a dual-stack fabric: no dual-stack form at all,
    or (Platform.ipv6_over_unnumbered) a numbered fabric, or an MLAG segment on the platform."""
    traits = PLATFORMS[platform]
    if not inv.routing.ipv6 or traits.ipv6_rails:
        return
    reason = traits.ipv6_refusal or "no confirmed form"
    if traits.ipv6_over_unnumbered:
        mlag = mlag_segment(inv, platform)
        if inv.routing.addressing is Addressing.UNNUMBERED and mlag is None:
            return
        why = f", and {mlag} has MLAG pairs, whose iBGP runs over an IPv4 /31" if mlag is not None else ""
        reason = (f"{platform} renders dual-stack over unnumbered sessions only (routing.addressing: unnumbered)"
                  f"{why}: {reason}")
    add("PLAT047", f"routing.address_families: [ipv4, ipv6] is not rendered on {platform} (used at {at}): {reason}",
        ("routing", "address_families"),
        "keep routing.address_families: [ipv4], or move these switches to a platform that renders dual-stack "
        f"({_renders_dual_stack()})")


def _renders_dual_stack() -> str:
    names = sorted(n for n, t in PLATFORMS.items() if t.ipv6_rails)
    over = sorted(n for n, t in PLATFORMS.items() if t.ipv6_over_unnumbered)
    return ", ".join(names) + (f"; {', '.join(over)} with routing.addressing: unnumbered and no MLAG" if over else "")


def ipv6_plan(plan: Plan, src: SourceMap) -> list[Finding]:
    out: list[Finding] = []
    v6 = plan.v6
    if v6 is None:
        return out
    for short in v6.shortfalls:
        length = 128 - max(0, (short.need - 1).bit_length())
        out.append(Finding(
            "V6002", f"pool {short.pool} {short.prefix} is too small: the plan places {short.owner} at offset "
            f"{short.need - 1:,} of it", src.loc(("pools", short.pool)),
            f"a /{length} holds the plan (rail subnets: a /{SEGMENT_LEN} per segment slot up to "
            "limits.pods × segments_per_pod); or lower the limits that set the strides", subject=pool(short.pool)))
    for (pod, seg), need in sorted(v6.crowded.items()):
        out.append(Finding(
            "V6003", f"segment {pod}/{seg} needs {need} IPv6 rail subnets, but its /{SEGMENT_LEN} of "
            f"pools.rail_subnets_v6 holds {SUBNETS_PER_SEGMENT} /64s", src.loc(("pools", "rail_subnets_v6")),
            "fewer rail subnets per segment (a longer limits.segment_rail_block against rail_prefix_len), or an "
            "IPv4-only fabric", subject=pool("rail_subnets_v6")))
    return out
