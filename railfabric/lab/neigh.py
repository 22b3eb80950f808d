"""The kernel's IPv4 neighbour (ARP) table is one table for the whole machine: its size limits
(net.ipv4.neigh.default.gc_thresh1..3, writable only in the initial namespace) count the entries of every network
namespace together. A lab with every GPU host of a segment on one rail SVI needs an entry per pair of NICs that
talk (k NICs on an SVI: up to k·(k-1) entries), far beyond the default hard limit of 1,024: past it the kernel
refuses new entries ("neighbour: arp_cache: neighbor table overflow!") and `ping` fails with "sendmsg: No buffer
space available". So the lab raises the limits to what it needs before it starts, records the values it found in
its state file, and puts them back at teardown (also `fabric lab --teardown` after --keep or a killed run).

Limits are only ever raised, never lowered; a limit someone else changed while the lab ran is left as it is.

Several labs may run at once and the limits are one for all of them: each run claims its entries in one shared
record (NEIGH_STATE, under an flock) before anything is written; the limits are raised to the sum of the live claims
plus the entries found before the first claim plus HEADROOM, stay raised while any claim is left, and the values
found before the first claim are put back when the last claim is released (also by `fabric lab --teardown` of a
kept or killed run).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from railfabric.lab.model import LabSpec

SYSCTL_DIR = Path("/proc/sys/net/ipv4/neigh/default")
ARP_STAT = Path("/proc/net/stat/arp_cache")
# gc_thresh2 is the soft limit (entries above it for 5 s are collected), gc_thresh3 the hard one
LIMITS = ("gc_thresh2", "gc_thresh3")
HEADROOM = 1024  # for what else the machine keeps in the table, and the switches' own ARP on p2p links
NEIGH_STATE = Path("/run/railfabric-lab/neigh.json")  # the live claims, shared by every lab run on the machine


def needed_entries(spec: LabSpec) -> int:
    """An upper bound of the ARP entries the lab creates: on a rail SVI with k host NICs and the switch, each of the
    k + 1 may learn each other one; each end of a routed link learns the other end."""
    per_svi = Counter((nic.plan.switch, nic.plan.vlan) for h in spec.hosts.values() for nic in h.nics)
    svis = sum((k + 1) * k for k in per_svi.values())
    return svis + 2 * len(spec.links)


def current_entries() -> int:
    """Entries in the table now (first field of the first CPU's row of /proc/net/stat/arp_cache, hexadecimal)."""
    try:
        rows = ARP_STAT.read_text().splitlines()
        return int(rows[1].split()[0], 16)
    except (OSError, IndexError, ValueError):
        return 0


def read_limit(name: str, base: Path = SYSCTL_DIR) -> int | None:
    try:
        return int((base / name).read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return None


def raise_limits(need: int, base: Path = SYSCTL_DIR) -> dict[str, tuple[int, int]]:
    """Which of gc_thresh2 and gc_thresh3 are below `need`: {sysctl path: (value found, value to set)}. Nothing is
    written here: record the result, then `apply` it, and later `restore_limits` it."""
    changed: dict[str, tuple[int, int]] = {}
    for name in LIMITS:
        found = read_limit(name, base)
        if found is None or found >= need:
            continue
        changed[str(base / name)] = (found, need)
    return changed


def apply(changed: dict[str, tuple[int, int]]) -> None:
    for path, (_found, value) in changed.items():
        Path(path).write_text(f"{value}\n")


def restore_limits(changed: dict[str, tuple[int, int]]) -> int:
    """Put back the values found, where the value is still the one the lab set. Returns how many were restored."""
    restored = 0
    for path, (found, value) in changed.items():
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(Path(path).read_text().split()[0]) == value:
                Path(path).write_text(f"{found}\n")
                restored += 1
    return restored


@contextlib.contextmanager
def _shared(state: Path) -> Iterator[dict]:
    """The shared record, read and written under an exclusive flock (one lab at a time changes it)."""
    state.parent.mkdir(parents=True, exist_ok=True)
    with open(state.with_suffix(".lock"), "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            try:
                data = json.loads(state.read_text())
            except (OSError, ValueError):
                data = {}
            if not data.get("runs"):
                data = {"runs": {}, "original": {}, "set": {}, "baseline": 0}
            yield data
            _write(state, data)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _write(state: Path, data: dict) -> None:
    if data["runs"]:
        tmp = state.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, sort_keys=True))
        tmp.replace(state)
    else:
        with contextlib.suppress(OSError):
            state.unlink()


def claim(run: str, entries: int, base: Path | None = None,
          state: Path | None = None) -> tuple[int, dict[str, tuple[int, int]]]:
    """Claim `entries` for `run` and raise the limits to the sum of every live claim + the entries found before the
    first claim + HEADROOM. Returns (that need, {sysctl path: (value found, value set)} of what was raised)."""
    state = state or NEIGH_STATE
    base = base or SYSCTL_DIR
    with _shared(state) as data:
        if not data["runs"]:  # the first claim: what the machine had before any lab
            data["baseline"] = current_entries()
            data["original"] = {str(base / n): v for n in LIMITS if (v := read_limit(n, base)) is not None}
        data["runs"][run] = entries
        need = sum(data["runs"].values()) + data["baseline"] + HEADROOM
        changed = raise_limits(need, base)
        for path, (found, value) in changed.items():
            data["original"].setdefault(path, found)
            data["set"][path] = value
        _write(state, data)  # recorded before applied, applied under the lock (no other claim in between)
        apply(changed)
    return need, changed


def release(run: str, state: Path | None = None) -> int:
    """Drop the run's claim; when it was the last one, put back the values found before the first claim where the
    limit still holds the value the labs set. Returns how many limits were put back."""
    with _shared(state or NEIGH_STATE) as data:
        if data["runs"].pop(run, None) is None or data["runs"]:
            return 0
        return restore_limits({p: (data["original"][p], v) for p, v in data["set"].items() if p in data["original"]})


class _Records(Protocol):
    run: str

    def add_neigh(self) -> None: ...


def size_table(spec: LabSpec, reg: _Records, say: Callable[[str], object]) -> int:
    """Claim the lab's ARP entries on the machine's table (recorded in `reg` first). Returns the need."""
    reg.add_neigh()
    need, changed = claim(reg.run, needed_entries(spec))
    if changed:
        found = ", ".join(f"{Path(p).name} {old:,}" for p, (old, _new) in changed.items())
        say(f"  neighbour table: {found} raised to {need:,} for the lab (machine-wide; put back at teardown of "
            "the last lab running)")
    return need
