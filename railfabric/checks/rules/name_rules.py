"""Rules on generated names beyond exact duplicates (ID003, found while expanding): names that differ only in case.

Switch names become directories under generated/configs/ and host names appear in the host files; on a
case-insensitive file system (macOS, Windows) and in DNS, `P1-Spine1` and `p1-spine1` are the same name.
"""

from __future__ import annotations

from railfabric.core.finding import Finding
from railfabric.core.source_map import SourceMap
from railfabric.core.textsafe import quote
from railfabric.inventory.intent import Inventory
from railfabric.topology import Topology


def _named(inv: Inventory, topo: Topology) -> list[tuple[str, str, tuple]]:
    """(name, kind, inventory path of its declaration: the hostname override or the pattern) of every switch and
    host; exact duplicates (suffixed with '~' by the expansion and reported as ID003) count once."""
    out = [(sw.name, "switch", ("devices", sw.key, "hostname") if sw.overridden and inv.devices[sw.key].hostname
            else sw.src) for sw in topo.switches.values() if "~" not in sw.name]
    out += [(h.name, "host", (*h.src, "name")) for h in topo.hosts.values() if "~" not in h.name]
    return out


def case_collisions(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    """ID006 for every pair of names that differ only in case: one finding per pair of declarations (a host pattern
    that collides does so for every host it makes), naming both devices and where each comes from."""
    first: dict[str, tuple[str, str, tuple]] = {}
    seen_pairs: set[tuple[tuple, tuple]] = set()
    out: list[Finding] = []
    for name, kind, path in _named(inv, topo):
        folded = name.casefold()
        if folded not in first:
            first[folded] = (name, kind, path)
            continue
        other, other_kind, other_path = first[folded]
        if other == name or (other_path, path) in seen_pairs:
            continue
        seen_pairs.add((other_path, path))
        here, there = src.loc(path), src.loc(other_path)
        out.append(Finding(
            "ID006", f"{kind} name {quote(name)} differs only in case from {other_kind} name {quote(other)}"
            + (f" (declared at {there})" if there else ""), here,
            "make the names differ by more than case: they collide on macOS and Windows checkouts and in DNS",
            related=(there,) if there else ()))
    return out
