"""Rules on the per-device pins of the address plan (`devices.<name>.asn / loopback / router_id`): PIN001-PIN009.

The allocator (railfabric/plan/allocate.py) puts a pinned value in place of the computed one and moves nothing else,
so a pin can clash with what the plan computed for another switch, or break the RFC 7938 ASN plan:

- loopbacks and router-ids are unique fabric-wide (PIN001, PIN002): two switches announcing one /32 split the
  traffic for it; a BGP speaker refuses an OPEN whose BGP Identifier is its own (RFC 4271 section 6.2, "Bad BGP
  Identifier"), which is the MLAG pair's iBGP session, and RFC 6286 asks for a unique identifier within an AS (the
  spines of a pod share one).
- a pinned loopback outside pools.loopbacks is a WARNING (PIN003), not an error: every switch announces its own /32
  (the redistribution prefix-list names the address, not the pool: railfabric/device/routing.py), so it works, and
  keeping a loopback from before the migration is what a pin is for; but the pool no longer describes every loopback
  (the ip plan leaves its pool column empty, POOL001 and MGMT009 do not cover it). Inside another pool
  (fabric_links, rail_subnets, management) it is an ERROR (PIN004): those addresses are handed out by the plan.
- ASN pins keep the RFC 7938 plan (section 5.2.1): the super-spines share one ASN, the spines of a pod one, the two
  switches of an MLAG pair one (they speak for the same subnets), every other rail switch its own. Two switches
  outside one such group that share an ASN are:
  - PIN005 when they are BGP neighbours: the session is configured with remote-as = the local ASN, so it becomes
    iBGP (no AS added, iBGP-learned routes not passed on to the other iBGP peers: RFC 4271 section 9.2): the
    switch no longer forwards between its tiers;
  - PIN006 when their routes reach each other through other switches: BGP drops an UPDATE whose AS_PATH holds its
    own ASN (loop prevention, RFC 4271 section 9.1.2), so each drops every route originated by or passing through
    the other (a rail switch sharing its ASN with another rail switch of the fabric loses that switch's rail
    subnets; one sharing the super-spines' ASN loses every other pod). Switches in parts of the fabric that do not
    exchange routes (rail-only pods) may share an ASN.
- PIN007: a pin that splits one of those groups. An MLAG pair with two ASNs is an ERROR: the pair's iBGP session
  is configured with the switch's own ASN on both ends, so it would not come up. Spines of one pod (or
  super-spines) with different ASNs is a WARNING: every platform railfabric renders configures multipath-relax
  (Platform.multipath_relax), so ECMP over them still holds, but the shared ASN is what stops a spine from accepting
  a path through another spine and a rail switch (RFC 7938 section 5.2.1: a "valley" through the lower tier, and
  path hunting when a prefix is withdrawn); with different ASNs a rail switch can become transit between two
  spines after a link failure.
- PIN008: reserved ASNs (ERROR): AS_TRANS 23456 (RFC 6793), the documentation ASNs 64496-64511 and 65536-65551
  (RFC 5398), 65535 (RFC 7300) and 65552-131071 (reserved by IANA); 0 and 4294967295 the schema refuses. A public
  ASN (outside RFC 6996's private ranges) is a WARNING, as ASN001 says of the plan's bases.
- PIN009: an address no switch can use as a loopback or router-id (0.0.0.0/8, 127.0.0.0/8, multicast 224.0.0.0/4,
  240.0.0.0/4 with the broadcast address); RFC 6286 section 2.1: the BGP Identifier is a non-zero 32-bit number.

A pin on a name `devices:` does not generate is REF003 (railfabric/checks/rules/plan_rules.py), as for every
override.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from railfabric.checks.rules.uses import pool as pool_of
from railfabric.core.address import Prefix, ntoa
from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import Location, SourceMap
from railfabric.inventory.intent import DualHoming, Inventory
from railfabric.plan.allocate import Plan
from railfabric.topology import LinkRole, Role, Switch, Topology

AS_TRANS = 23456
RESERVED_ASNS = ((AS_TRANS, AS_TRANS, "AS_TRANS (RFC 6793)"), (64496, 64511, "documentation (RFC 5398)"),
                 (65535, 65535, "reserved (RFC 7300)"), (65536, 65551, "documentation (RFC 5398)"),
                 (65552, 131071, "reserved by IANA"))
PRIVATE_ASNS = ((64512, 65534), (4200000000, 4294967294))  # RFC 6996
UNUSABLE = ((Prefix(0, 8), "in 0.0.0.0/8 ('this network')"), (Prefix(127 << 24, 8), "a loopback (127.0.0.0/8)"),
            (Prefix(224 << 24, 4), "multicast (224.0.0.0/4)"), (Prefix(240 << 24, 4), "reserved (240.0.0.0/4)"))
SHOWN = 3  # switches named in one message


def check_pins(inv: Inventory, topo: Topology, plan: Plan, src: SourceMap) -> list[Finding]:
    """PIN001-PIN009 for every pinned switch; nothing to do (and nothing computed) when nothing is pinned."""
    pinned = [sw for sw in topo.switches.values() if sw.asn is not None or sw.loopback is not None
              or sw.router_id is not None]
    if not pinned:
        return []
    pinned.sort(key=lambda sw: _order(src, sw))
    out: list[Finding] = []
    out += _addresses(inv, topo, plan, src, pinned)
    if any(sw.asn is not None for sw in pinned):
        out += _asns(inv, topo, plan, src, [sw for sw in pinned if sw.asn is not None])
    return out


def _order(src: SourceMap, sw: Switch) -> tuple[str, int, int]:
    loc = src.key_loc(("devices", sw.key))
    return (loc.file, loc.line, loc.col) if loc is not None else ("", 0, 0)


def _names(names: list[str]) -> str:
    more = len(names) - SHOWN
    return ", ".join(names[:SHOWN]) + (f" and {more} more" if more > 0 else "")


# --------------------------------------------------------------------------- loopbacks and router-ids


def _addresses(inv: Inventory, topo: Topology, plan: Plan, src: SourceMap, pinned: list[Switch]) -> list[Finding]:
    out: list[Finding] = []
    loopback_owner = _owners(plan.loopback)
    router_id_owner = _owners(plan.router_id)
    others = {"rail_subnets": Prefix.of(inv.pools.rail_subnets), "management": Prefix.of(inv.pools.management.prefix)}
    if inv.pools.fabric_links is not None:  # an unnumbered fabric without MLAG pairs may leave it out
        others["fabric_links"] = Prefix.of(inv.pools.fabric_links)
    loopbacks = Prefix.of(inv.pools.loopbacks)
    for sw in pinned:
        if sw.loopback is not None:
            out += _loopback(sw, topo, src, loopback_owner, loopbacks, others)
        out += _router_id(sw, topo, plan, src, router_id_owner)
    return out


def _owners(values: dict[str, int]) -> dict[int, list[str]]:
    owners: dict[int, list[str]] = defaultdict(list)
    for name, value in values.items():
        owners[value].append(name)
    return owners


def _unusable(addr: int) -> str:
    if addr == 0xFFFFFFFF:
        return "the broadcast address"
    return next((why for net, why in UNUSABLE if addr in net), "")


def _loopback(sw: Switch, topo: Topology, src: SourceMap, owner: dict[int, list[str]], loopbacks: Prefix,
              others: dict[str, Prefix]) -> list[Finding]:
    assert sw.loopback is not None
    addr, loc = sw.loopback, src.loc(("devices", sw.key, "loopback"))
    bad = _unusable(addr)
    if bad:
        return [Finding("PIN009", f"loopback pin {ntoa(addr)} of {sw.name} is {bad}: no switch can use it", loc,
                        f"pin an address of pools.loopbacks ({loopbacks}) or remove the pin")]
    out: list[Finding] = []
    clash = [n for n in owner[addr] if n != sw.name]
    if clash:
        out.append(Finding(
            "PIN001", f"loopback pin {ntoa(addr)} of {sw.name} is also the loopback of {_names(clash)}: both would "
            "announce the /32 and the fabric would split its traffic between them", loc,
            "pin a free address (`fabric show SWITCH` shows each switch's loopback; the ip plan lists them all)",
            related=_related(src, topo, clash, "loopback")))
    inside = next((name for name, net in others.items() if addr in net), None)
    if inside is not None:
        out.append(Finding(
            "PIN004", f"loopback pin {ntoa(addr)} of {sw.name} is inside pools.{inside} ({others[inside]}), "
            "whose addresses the plan hands to links, rail subnets or management interfaces", loc,
            f"pin an address of pools.loopbacks ({loopbacks}) or outside every pool",
            uses=(pool_of(inside),)))
    elif addr not in loopbacks:
        out.append(Finding(
            "PIN003", f"loopback pin {ntoa(addr)} of {sw.name} is outside pools.loopbacks ({loopbacks}): it "
            "is announced and works, but the pool no longer holds every loopback (the ip plan shows no pool for it "
            "and the pool checks do not cover it)", loc,
            "widen pools.loopbacks to cover it, or keep it knowingly (an address kept from before the migration)",
            severity=Severity.WARNING, uses=(pool_of("loopbacks"),)))
    return out


def _router_id(sw: Switch, topo: Topology, plan: Plan, src: SourceMap, owner: dict[int, list[str]]
               ) -> list[Finding]:
    """PIN002/PIN009 for a pinned router-id, or the router-id a pinned loopback gives."""
    if sw.router_id is None and sw.loopback is None:
        return []
    rid = plan.router_id[sw.name]
    field = "router_id" if sw.router_id is not None else "loopback"
    loc = src.loc(("devices", sw.key, field))
    if sw.router_id is not None and rid == 0:
        return [Finding("PIN009", f"router-id pin 0.0.0.0 of {sw.name}: a BGP Identifier is a non-zero number "
                        "(RFC 6286 section 2.1)", loc, "remove the pin (the router-id is then the loopback address)")]
    clash = [n for n in owner[rid] if n != sw.name]
    if sw.router_id is None:  # the pinned loopback: a switch whose router-id is its own equal loopback is PIN001's
        clash = [n for n in clash if plan.loopback[n] != rid]
    if not clash:
        return []
    return [Finding(
        "PIN002", f"router-id {ntoa(rid)} of {sw.name} ({'pinned' if field == 'router_id' else 'its pinned loopback'}) "
        f"is also the router-id of {_names(clash)}: BGP identifiers must be unique (a speaker refuses an OPEN with its "
        "own identifier, RFC 4271 section 6.2; RFC 6286: unique within an AS)", loc,
        "pin another router_id, or remove the pin (the router-id is then the loopback address)",
        related=_related(src, topo, clash, "router_id"))]


def _related(src: SourceMap, topo: Topology, names: Iterable[str], field: str) -> tuple[Location, ...]:
    """Where the other switches of a clash pin the value (a computed value has no place of its own)."""
    out = []
    for name in names:
        sw = topo.switches[name]
        if getattr(sw, field) is not None:
            loc = src.loc(("devices", sw.key, field))
            if loc is not None:
                out.append(loc)
    return tuple(out[:SHOWN])


# --------------------------------------------------------------------------- ASNs


def design_group(sw: Switch, mlag_segments: set[tuple[int | None, int | None]]) -> tuple:
    """The RFC 7938 group the switch shares its ASN with: every super-spine, the spines of its pod, its MLAG pair;
    any other rail switch is a group of its own."""
    if sw.role is Role.SUPER_SPINE:
        return ("super-spines",)
    if sw.role is Role.SPINE:
        return ("spines", sw.pod)
    if (sw.pod, sw.segment) in mlag_segments:
        return ("pair", sw.pod, sw.segment, sw.group)
    return ("rail", sw.key)


def _components(topo: Topology) -> dict[str, str]:
    """Switch → a representative of the part of the fabric it exchanges routes with (BGP sessions over routed links
    and MLAG peer links, union-find)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:
            parent[x], x = root, parent[x]
        return root

    for link in (*topo.links, *topo.peer_links):
        if link.role is LinkRole.HOST:
            continue
        a, z = find(link.a.device), find(link.z.device)
        if a != z:
            parent[a] = z
    return {name: find(name) for name in topo.switches}


def _asns(inv: Inventory, topo: Topology, plan: Plan, src: SourceMap, pinned: list[Switch]) -> list[Finding]:
    out: list[Finding] = []
    mlag: set[tuple[int | None, int | None]] = {(i.pod, i.id) for i in topo.segments
                                               if i.sides == 2 and i.dual_homing is DualHoming.MLAG}
    group = {name: design_group(sw, mlag) for name, sw in topo.switches.items()}
    by_asn: dict[int, list[str]] = defaultdict(list)
    for name, asn in plan.asn.items():
        by_asn[asn].append(name)
    names = {sw.name for sw in pinned}
    neighbours: dict[str, set[str]] = defaultdict(set)
    for link in (*topo.links, *topo.peer_links):
        if link.role is not LinkRole.HOST and (link.a.device in names or link.z.device in names):
            neighbours[link.a.device].add(link.z.device)
            neighbours[link.z.device].add(link.a.device)
    component = _components(topo) if any(len(by_asn[sw.asn]) > 1 for sw in pinned if sw.asn is not None) else {}
    for sw in pinned:
        assert sw.asn is not None
        loc = src.loc(("devices", sw.key, "asn"))
        reserved = _reserved(sw, loc)
        if reserved is not None:
            out.append(reserved)
        sharing = [n for n in by_asn[sw.asn] if n != sw.name and group[n] != group[sw.name]]
        direct = [n for n in sharing if n in neighbours[sw.name]]
        reach = [n for n in sharing if n not in neighbours[sw.name] and component[n] == component[sw.name]]
        if direct:
            out.append(Finding(
                "PIN005", f"ASN pin {sw.asn} of {sw.name} is also the ASN of its BGP neighbour(s) {_names(direct)}: "
                "the session would be iBGP (remote-as = its own ASN), which adds no AS and does not pass routes "
                "between iBGP peers, so the switch stops carrying traffic between the tiers", loc,
                "pin an ASN no neighbour has (RFC 7938: each tier its own ASNs)"))
        if reach:
            out.append(Finding(
                "PIN006", f"ASN pin {sw.asn} of {sw.name} is also the ASN of {_names(reach)}, whose routes reach it "
                "through the fabric: BGP drops a route whose AS path holds its own ASN (loop prevention), so each "
                "would drop the other's routes (and every route passing through it)", loc,
                "pin an ASN no other switch of the fabric has (RFC 7938: one per rail switch, one per pod's spines, "
                "one for the super-spines)"))
    out += _splits(topo, plan, src, pinned, group)
    return out


def _reserved(sw: Switch, loc: Location | None) -> Finding | None:
    asn = sw.asn
    assert asn is not None
    why = next((why for lo, hi, why in RESERVED_ASNS if lo <= asn <= hi), None)
    if why is not None:
        return Finding("PIN008", f"ASN pin {asn} of {sw.name} is {why}: no BGP speaker may use it", loc,
                       "pin a private ASN (RFC 6996: 64512-65534, 4200000000-4294967294)")
    if not any(lo <= asn <= hi for lo, hi in PRIVATE_ASNS):
        return Finding("PIN008", f"ASN pin {asn} of {sw.name} is not private (RFC 6996)", loc,
                       "use 64512-65534 or 4200000000-4294967294 unless this ASN is really yours",
                       severity=Severity.WARNING)
    return None


_GROUP_TEXT = {"super-spines": "the super-spines", "spines": "the spines of pod {}", "pair": "MLAG pair {}/{} group {}"}


def _splits(topo: Topology, plan: Plan, src: SourceMap, pinned: list[Switch], group: dict[str, tuple]
            ) -> list[Finding]:
    """PIN007: one finding per RFC 7938 group that a pin splits, at the first pin of the group."""
    members: dict[tuple, list[str]] = defaultdict(list)
    for name, g in group.items():
        if g[0] != "rail":
            members[g].append(name)
    out: list[Finding] = []
    seen: set[tuple] = set()
    for sw in pinned:
        g = group[sw.name]
        if g[0] == "rail" or g in seen:
            continue
        seen.add(g)
        asns = {plan.asn[n] for n in members[g]}
        if len(asns) < 2:
            continue
        what = _GROUP_TEXT[g[0]].format(*g[1:])
        others = [n for n in members[g] if plan.asn[n] != sw.asn]
        theirs = ", ".join(str(a) for a in sorted({plan.asn[n] for n in others}))
        split = f"{_names(others)} {'has' if len(others) == 1 else 'have'} {theirs}"
        loc = src.loc(("devices", sw.key, "asn"))
        if g[0] == "pair":
            out.append(Finding(
                "PIN007", f"ASN pin {sw.asn} of {sw.name} splits {what} ({split}): the two switches of an MLAG pair "
                "are one BGP speaker for their shared rail subnets, and their iBGP session (remote-as = own ASN) "
                "would not come up", loc,
                "give both switches the same asn (devices: overrides apply to one switch)"))
        else:
            out.append(Finding(
                "PIN007", f"ASN pin {sw.asn} of {sw.name} splits {what} ({split}): "
                "multipath-relax keeps ECMP across them, but a shared ASN is what stops a spine from accepting a path "
                "through another spine and a lower switch (RFC 7938 section 5.2.1): a lower switch can become transit "
                "after a link failure and withdrawals hunt through longer paths", loc,
                "pin every switch of the group to the same ASN (or none)", severity=Severity.WARNING))
    return out


__all__ = ["check_pins", "design_group"]
