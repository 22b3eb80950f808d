"""CONFIG_DB lossless buffer tables (railfabric/plan/buffers.py decides every value; this only shapes them):
BUFFER_POOL, BUFFER_PROFILE, CABLE_LENGTH and, with PFC ports, BUFFER_PG, BUFFER_QUEUE and the per-port profile lists
(sonic-buffer-pool/-profile/-pg/-queue/-port-ingress-profile-list/-port-egress-profile-list.yang,
sonic-cable-length.yang). Every port has a CABLE_LENGTH."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: the platform registry imports this module before railfabric.device exists
    from railfabric.plan.buffers import Assignment, Buffers, Pool, Profile


Tables = dict[str, dict[str, Any]]

BUFFER_TABLES = frozenset({"BUFFER_POOL", "BUFFER_PROFILE", "CABLE_LENGTH", "BUFFER_PG", "BUFFER_QUEUE",
                           "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"})

CABLE_LENGTH_KEY = "AZURE"  # the single CABLE_LENGTH row SONiC's buffer manager reads


def pool_row(p: Pool) -> dict[str, str]:
    row = {"type": p.type, "mode": p.mode, "size": str(p.size)}
    if p.xoff:  # the shared headroom pool; 0 = none
        row["xoff"] = str(p.xoff)
    return row


def profile_row(p: Profile) -> dict[str, str]:
    row = {"pool": p.pool, "dynamic_th": str(p.dynamic_th), "size": str(p.size)}
    if p.xoff is not None:  # lossless PG profiles
        row["xon"] = str(p.xon)
        row["xoff"] = str(p.xoff)
    return row


def _assignments(rows: Iterable[Assignment]) -> dict[str, dict[str, str]]:
    return {f"{a.port}|{a.index}": {"profile": a.profile} for a in rows}


def _profile_lists(rows: Iterable[tuple[str, tuple[str, ...]]]) -> dict[str, dict[str, str]]:
    return {port: {"profile_list": ",".join(profiles)} for port, profiles in rows}


# Switches of one shape share one Buffers (railfabric/device/buffers.py): its tables are built once and shared by
# reference (the document is serialised, never edited). Keyed by identity, holding the Buffers so the id stays its.
_SHARED: dict[int, tuple[Buffers, Tables]] = {}
_SHARED_MAX = 256


def buffer_tables(b: Buffers) -> Tables:
    """The buffer tables of `b`, built once per Buffers object."""
    hit = _SHARED.get(id(b))
    if hit is not None and hit[0] is b:
        return dict(hit[1])
    if len(_SHARED) >= _SHARED_MAX:
        _SHARED.clear()
    tables = _SHARED[id(b)] = (b, _buffer_tables(b))
    return dict(tables[1])


def _buffer_tables(b: Buffers) -> Tables:
    out: Tables = {
        "BUFFER_POOL": {p.name: pool_row(p) for p in b.pools},
        "BUFFER_PROFILE": {p.name: profile_row(p) for p in b.profiles},
        "CABLE_LENGTH": {CABLE_LENGTH_KEY: dict(b.cable_lengths)},
    }
    if b.pgs:
        out["BUFFER_PG"] = _assignments(b.pgs)
        out["BUFFER_QUEUE"] = _assignments(b.queues)
        out["BUFFER_PORT_INGRESS_PROFILE_LIST"] = _profile_lists(b.ingress_lists)
        out["BUFFER_PORT_EGRESS_PROFILE_LIST"] = _profile_lists(b.egress_lists)
    return out
