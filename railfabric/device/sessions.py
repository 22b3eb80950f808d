"""The session options of each BGP session tier, decided once from `routing:` (railfabric/inventory/intent_routing.py):
the BFD timers the tier runs and its TCP MD5 / TCP-AO key, as the device model's peer groups carry them.

A peer group maps to one tier by (my role, peer role): a rail switch to its spines and a spine to its rail switches
are `rail_spine`, a spine to the super-spines and back `spine_super_spine`, an MLAG pair's iBGP `mlag_peer`. Both
ends of a session are in the same tier, so both get the same timers and the same key.

- BFD timers: a tier's own `routing.bfd_timers.tiers.<tier>` or else the fabric-wide `routing.bfd_timers`; the
  interval is both the minimum transmit and the required minimum receive interval, so the detection time is
  interval × multiplier at both ends (RFC 5880 6.8.4: the remote's detect multiplier × the agreed interval). None
  when `routing.bfd` is off.
- Key: the vault reference as its placeholder `%%vault.NAME%%` (the push substitutes it,
  railfabric/inventory/intent_system.py), with the algorithm (md5 | tcp-ao) and a per-tier name for the platform
  objects that hold it (the FRR/NVUE BFD profile, the EOS shared-secret profile, the Junos key chain). A TCP-AO key
  has its KeyID and may carry the next key of a rollover (`routing.authentication.<tier>.next`): its placeholder,
  KeyID and the UTC time from which every switch of the tier sends it; each platform writes the two keys' lifetimes
  from these (railfabric/platforms/eos.py, junos.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from railfabric.inventory.intent_routing import Routing, SessionTier
from railfabric.inventory.intent_system import PLACEHOLDER


def object_name(tier: SessionTier | str) -> str:
    """The name of a tier's platform objects (BFD profile, shared-secret profile, key chain): RF-RAIL-SPINE."""
    return "RF-" + str(tier).upper().replace("_", "-")


@dataclass(frozen=True, slots=True)
class SessionTimers:
    """BFD timers of a session: transmit and receive interval (ms) and detect multiplier."""

    interval_ms: int
    multiplier: int
    profile: str  # the tier's BFD profile name (FRR, NVUE 5.15+): RF-RAIL-SPINE

    @property
    def detection_ms(self) -> int:
        """How long after the last packet a failure is declared: interval × multiplier."""
        return self.interval_ms * self.multiplier


@dataclass(frozen=True, slots=True)
class NextKey:
    """The key a TCP-AO tier rolls over to: its vault variable, KeyID and when sending it starts (UTC)."""

    vault: str
    key_id: int
    send_from: str  # UTC, whole seconds, ISO 8601: 2026-12-01T05:00:00Z (a text: the model digest takes no datetime)

    @property
    def send_from_utc(self) -> datetime:
        return datetime.fromisoformat(self.send_from)

    @property
    def placeholder(self) -> str:
        return PLACEHOLDER.format(self.vault)


@dataclass(frozen=True, slots=True)
class SessionKey:
    """The shared key of a tier's sessions: only its vault placeholder, never the value."""

    vault: str  # the Ansible variable holding the key
    algorithm: str  # md5 | tcp-ao
    name: str  # the tier's key object name (EOS shared-secret profile, Junos key chain): RF-RAIL-SPINE
    key_id: int = 0  # tcp-ao: the KeyID (SendID = RecvID); 0 with md5
    next: NextKey | None = None  # tcp-ao: the key being rolled over to, held beside this one

    @property
    def placeholder(self) -> str:
        return PLACEHOLDER.format(self.vault)

    @property
    def vaults(self) -> tuple[str, ...]:
        """The vault variables the push resolves for this key: the current key's, then the next key's."""
        return (self.vault,) if self.next is None else (self.vault, self.next.vault)


@dataclass(frozen=True, slots=True)
class TierOptions:
    timers: SessionTimers | None  # None: BFD off
    key: SessionKey | None  # None: no authentication


def session_options(routing: Routing) -> dict[SessionTier, TierOptions]:
    """Every tier's timers and key, from the inventory's routing section."""
    out: dict[SessionTier, TierOptions] = {}
    for tier in SessionTier:
        t = routing.bfd_timers.tiers.get(tier, routing.bfd_timers)
        timers = SessionTimers(t.interval_ms, t.multiplier, object_name(tier)) if routing.bfd else None
        auth = routing.authentication.get(tier)
        key = None
        if auth is not None:
            nxt = auth.next
            rollover = None if nxt is None else NextKey(nxt.password.vault, nxt.key_id,
                                                        f"{nxt.send_from.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}")
            key = SessionKey(auth.password.vault, auth.algorithm.value, object_name(tier), auth.key_id, rollover)
        out[tier] = TierOptions(timers, key)
    return out

