"""Root cause first: a finding that makes others follow is reported once, with the findings it caused folded under
it and counted.

The rules say what each finding is about (railfabric.core.finding.Finding): `subject` is the inventory object (its data
path, e.g. ("host_models", "hgx-h100")) whose own definition the finding faults, and `uses` the objects whose facts
the finding was derived from, most likely cause first (a host link's finding uses its host model, its switch model
and its segment). An error with a subject is the root of every finding that uses that object: a typo in a host
model's nic_speed is one error at that line, and the hundreds of port, capacity and buffer findings derived from the
speed are folded under it. Folding follows chains (a segment's HW001 that uses a faulty host model is folded under
the host model's error, and so is what the HW001 caused), never loops, and only ever hides, never drops: every
folded finding stays in the list, right after its root, with `caused_by` naming the root's code and location, and
counts toward the exit code as before. Text output shows roots with a count line; `--all` lists what they caused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from railfabric.core.finding import MAX_FINDINGS, OVERFLOW_CODE, Cause, Finding, Severity, hidden_count, overflow_note


def fold(findings: list[Finding]) -> list[Finding]:
    """`findings` (sorted) with the causes linked: each root that caused something first, each followed by what it
    caused (in the given order), then every other finding in the given order. Links already set are recomputed, so
    folding twice gives the same list."""
    roots: dict[tuple[Any, ...], int] = {}  # subject → index of the error that faults it
    derived: set[tuple[Any, ...]] = set()  # subjects whose root so far also uses the subject itself
    for i, f in enumerate(findings):
        if f.subject and f.severity is Severity.ERROR:
            subject = tuple(f.subject)
            own = subject in map(tuple, f.uses)
            if subject not in roots or (subject in derived and not own):
                roots[subject] = i  # an error at the definition itself beats one derived from it (PORT001)
                derived.discard(subject)
                if own:
                    derived.add(subject)
    if not roots:
        return [f if f.caused_by is None and not f.causes else replace(f, caused_by=None, causes=())
                for f in findings]
    parent: dict[int, int] = {}
    for i, f in enumerate(findings):
        for obj in f.uses:
            j = roots.get(tuple(obj))
            if j is not None and j != i:
                parent[i] = j
                break
    top = _tops(parent)
    children: dict[int, list[int]] = {}
    for i in sorted(top):
        children.setdefault(top[i], []).append(i)
    out: list[Finding] = []
    for r, kids in sorted(children.items()):
        root = findings[r]
        tally = Counter(findings[k].code for k in kids)
        out.append(replace(root, caused_by=None, causes=tuple(sorted(tally.items(), key=lambda t: (-t[1], t[0])))))
        cause = Cause(root.code, root.location)
        out += [replace(findings[k], caused_by=cause, causes=()) for k in kids]
    out += [f if f.caused_by is None and not f.causes else replace(f, caused_by=None, causes=())
            for i, f in enumerate(findings) if i not in top and i not in children]
    return out


def _tops(parent: dict[int, int]) -> dict[int, int]:
    """Each folded finding → the root at the top of its chain. A loop (A uses what B faults, B what A faults) is cut
    at its first finding, which stays a root."""
    parent = dict(parent)
    top: dict[int, int] = {}
    for start in sorted(parent):
        while True:
            chain = [start]
            i = start
            while i in parent and parent[i] not in chain:
                i = parent[i]
                chain.append(i)
            if i in parent:  # parent[i] is in the chain: a loop
                loop = chain[chain.index(parent[i]):]
                del parent[min(loop)]
                continue
            break
        if start in parent:
            top[start] = i
    return top


def folded_text(root: Finding) -> str:
    """The count line under a root in text output: '+ 558 findings caused by this (PORT006 ×447, RAIL012 ×64)'."""
    n = root.caused()
    parts = ", ".join(f"{code} ×{k:,}" for code, k in root.causes[:6])
    more = ", …" if len(root.causes) > 6 else ""
    return f"+ {n:,} finding{'s' if n != 1 else ''} caused by this ({parts}{more})"


def unique_sorted(findings: Iterable[Finding], limit: int = MAX_FINDINGS) -> list[Finding]:
    """Each finding once, in file/line order, except that a root cause comes first with the findings it caused
    right after it (fold); of two copies the fatal one wins. At most `limit` of them, then one
    LOAD016 finding that counts the rest (budget notes of earlier stages are merged into it)."""
    kept: dict[tuple, Finding] = {}
    hidden: list[Finding] = []
    noted = 0
    for f in findings:
        if f.code == OVERFLOW_CODE:
            noted += hidden_count(f)
            hidden.append(f)
            continue
        key = (f.code, f.message, f.location, f.severity)
        if key not in kept or (f.fatal and not kept[key].fatal):
            kept[key] = f
    ordered = fold(sorted(kept.values(), key=Finding.sort_key))
    shown, cut = ordered[:limit], ordered[limit:]
    if not cut and not noted:
        return shown
    last = next((f.location for f in reversed(shown) if f.location is not None), None)
    return [*shown, overflow_note(noted + len(cut), [*cut, *hidden], last)]
