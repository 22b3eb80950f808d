"""BGP session options per tier (routing.bfd_timers, routing.authentication) against the platforms that run them.

Both ends of a session are in one tier (railfabric/device/sessions.py) and configure its timers and key, so a tier's
value must fit every platform among the tier's switches:
- BFD001/BFD002: the tier's interval / multiplier outside a platform's documented range (Platform.bfd_interval_ms,
  bfd_multiplier), one finding per tier and platform, at the value that sets it (the tier's own or the fabric-wide);
- BFD003: timers written while routing.bfd is off (they would change nothing);
- BFD004 / AUTH001 (warnings): timers or a key of a tier no session of this fabric belongs to;
- PLAT046: tcp-ao on a tier whose switches include a platform without TCP-AO (Platform.session_auth);
- a key rollover (`next`, TCP-AO only): AUTH002 on an md5 tier (TCP MD5 holds one key per connection, RFC 2385;
  a change resets the session), AUTH003 a key_id on an md5 tier (key ids are TCP-AO's), AUTH004 the next key's
  KeyID equal to the current one's (RFC 5925 3.1: a connection's MKTs differ in their KeyIDs; Juniper: "must not
  use these numbers for any other key within that keychain"), AUTH005 (warning) the next key in the same vault
  variable as the current one (the rollover would change the KeyID only).
"""

from __future__ import annotations

from collections import defaultdict

from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_routing import SessionAuth, SessionTier
from railfabric.platforms import PLATFORMS
from railfabric.topology import Switch, Topology
from railfabric.topology.tiers import LINK_TIERS

_BFD = ("routing", "bfd_timers")


def tier_switches(topo: Topology) -> dict[SessionTier, dict[str, list[Switch]]]:
    """Per tier, platform → the switches at an end of a link carrying a session of the tier, in topology order."""
    ends: dict[SessionTier, set[str]] = {t: set() for t in SessionTier}
    for link in (*topo.links, *topo.peer_links):
        tier = LINK_TIERS.get(link.role)
        if tier is not None:
            ends[tier].update((link.a.device, link.z.device))
    out: dict[SessionTier, dict[str, list[Switch]]] = {t: defaultdict(list) for t in SessionTier}
    for sw in topo.switches.values():
        for tier in SessionTier:
            if sw.name in ends[tier]:
                out[tier][sw.platform].append(sw)
    return out


def _names(switches: list[Switch]) -> str:
    shown = ", ".join(sw.name for sw in switches[:2])
    return shown + (f" and {len(switches) - 2} more" if len(switches) > 2 else "")


def check_sessions(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    r = inv.routing
    by_tier = tier_switches(topo)
    out: list[Finding] = []
    written = "bfd_timers" in r.model_fields_set
    if not r.bfd and written:
        out.append(Finding("BFD003", "routing.bfd_timers is set but routing.bfd is false: no session runs BFD",
                           src.key_loc((*_BFD,)), "set routing.bfd: true or remove routing.bfd_timers"))
    if r.bfd:
        out += _bfd_ranges(inv, by_tier, src)
    for tier in r.bfd_timers.tiers:
        if not by_tier[tier]:
            out.append(Finding("BFD004", f"routing.bfd_timers.tiers.{tier}: no BGP session of this fabric is of tier "
                               f"{tier}", src.key_loc((*_BFD, "tiers", tier.value)),
                               "remove the tier's timers, or keep them for a fabric-wide policy",
                               severity=Severity.WARNING))
    for tier, auth in r.authentication.items():
        path = ("routing", "authentication", tier.value)
        if not by_tier[tier]:
            out.append(Finding("AUTH001", f"routing.authentication.{tier}: no BGP session of this fabric is of tier "
                               f"{tier}, so its key is rendered nowhere", src.key_loc(path),
                               "remove the tier's key, or keep it for a fabric-wide policy", severity=Severity.WARNING))
        out += _rollover(tier, auth, src)
        if auth.algorithm.value == "md5":
            continue
        for platform, switches in sorted(by_tier[tier].items()):
            if auth.algorithm.value not in PLATFORMS[platform].session_auth:
                out.append(Finding(
                    "PLAT046", f"routing.authentication.{tier}: {auth.algorithm} cannot be expressed on {platform} "
                    f"({len(switches)} switch(es) of the tier: {_names(switches)})",
                    src.loc((*path, "algorithm")),
                    f"use algorithm: md5 for {tier}; TCP-AO renders on "
                    f"{', '.join(sorted(p for p, t in PLATFORMS.items() if auth.algorithm.value in t.session_auth))}"))
    return out


def _rollover(tier: SessionTier, auth: SessionAuth, src: SourceMap) -> list[Finding]:
    """AUTH002-AUTH005: a tier's key id and next key (a TCP-AO rollover)."""
    path = ("routing", "authentication", tier.value)
    shown = f"routing.authentication.{tier}"
    out: list[Finding] = []
    md5 = auth.algorithm.value == "md5"
    if md5 and auth.next is not None:
        out.append(Finding(
            "AUTH002", f"{shown}.next: TCP MD5 holds one key per session (RFC 2385), so a tier cannot carry a "
            "second key to roll over to", src.key_loc((*path, "next")),
            "remove next and change password itself (each session resets: rotate switch by switch behind the "
            "rollout's drain, docs/underlay.md), or use algorithm: tcp-ao where every switch of the tier has it"))
    if md5 and auth.key_id != 0:
        out.append(Finding("AUTH003", f"{shown}.key_id {auth.key_id}: key ids are TCP-AO's; a TCP MD5 key has none",
                           src.loc((*path, "key_id")), "remove key_id, or use algorithm: tcp-ao"))
    if auth.next is None:
        return out
    if not md5 and auth.next.key_id == auth.key_id:
        out.append(Finding(
            "AUTH004", f"{shown}.next.key_id {auth.next.key_id} is the current key's KeyID: during the rollover "
            "both keys are held, and a receiver tells them apart by KeyID (RFC 5925)", src.loc((*path, "next",
                                                                                                "key_id")),
            f"give the next key another KeyID (0-255), e.g. {(auth.key_id + 1) % 256}"))
    if auth.next.password.vault == auth.password.vault:
        out.append(Finding(
            "AUTH005", f"{shown}.next.password names the current key's vault variable {auth.password.vault}: the "
            "rollover changes the KeyID only, not the key", src.loc((*path, "next", "password")),
            "put the new key in its own vault variable and name it here", severity=Severity.WARNING))
    return out


def _bfd_ranges(inv: Inventory, by_tier: dict[SessionTier, dict[str, list[Switch]]],
                src: SourceMap) -> list[Finding]:
    """BFD001/BFD002 per tier and platform whose range the tier's timers leave."""
    r = inv.routing
    out: list[Finding] = []
    for tier in SessionTier:
        own = tier in r.bfd_timers.tiers
        t = r.bfd_timers.tiers[tier] if own else r.bfd_timers
        base = (*_BFD, "tiers", tier.value) if own else _BFD
        shown = f"routing.bfd_timers{'.tiers.' + tier.value if own else ''}"
        for platform, switches in sorted(by_tier[tier].items()):
            traits = PLATFORMS[platform]
            for code, field, value, (lo, hi), unit in (
                    ("BFD001", "interval_ms", t.interval_ms, traits.bfd_interval_ms, " ms"),
                    ("BFD002", "multiplier", t.multiplier, traits.bfd_multiplier, "")):
                if lo <= value <= hi:
                    continue
                out.append(Finding(
                    code, f"{shown}.{field} {value}{unit} (tier {tier}) is outside {platform}'s range {lo}-{hi}{unit} "
                    f"({len(switches)} switch(es) of the tier: {_names(switches)})", src.loc((*base, field)),
                    f"use {lo}-{hi}{unit} for tier {tier} (routing.bfd_timers.tiers.{tier}.{field}); the ranges "
                    f"and their sources are in railfabric/platforms/{platform}.py"))
    return out
