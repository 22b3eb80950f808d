"""The inventory's `routing:` section: the eBGP underlay (RFC 7938) and the options operators run on it.

- `addressing`: `numbered` (a /31 from pools.fabric_links on every routed link) or `unnumbered` (eBGP over the IPv6
  link-local addresses of each fabric link, IPv4 routes with IPv6 next hops: RFC 8950, formerly RFC 5549; no /31
  pool is needed).
- `bfd` switches BFD on every fabric session; `bfd_timers` sets its interval and multiplier, fabric-wide and per
  session tier, so that every platform of a mixed fabric detects a failure in the same time.
- `authentication`: a TCP MD5 (RFC 2385) or TCP-AO (RFC 5925) key per session tier, only as a vault reference
  (railfabric/inventory/intent_system.py: the key never sits in inventory/ or generated/).
- `drain`: how the rollout takes a switch out of the forwarding path before it is changed: RFC 8326 graceful
  shutdown (the GRACEFUL_SHUTDOWN community, 65535:0) where every platform of the fabric supports it, else AS-path
  prepending.

Moved here from railfabric/inventory/intent.py (AsnPlan, Ecmp, Routing) when these options were added.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from railfabric.core.bounds import Asn
from railfabric.inventory.intent_ipv6 import AddressFamily
from railfabric.inventory.intent_system import Secret
from railfabric.inventory.intent_types import StrictModel as _Model


class EcmpMode(StrEnum):
    FLOW = "flow"
    FLOWLET = "flowlet"
    PACKET = "packet"


class Ecmp(_Model):
    mode: EcmpMode = Field(EcmpMode.FLOW, description="flow hashing, flowlet switching or per-packet spraying")
    width: int = Field(64, ge=1, le=512, description="BGP maximum-paths")


class AsnPlan(_Model):
    """RFC 7938 ASN plan: one ASN for all super-spines, one per pod for its spines, one per rail switch."""

    super_spine: Asn = Field(4200000000)
    spine_base: Asn = Field(4200001000, description="pod p's spines use spine_base + p")
    rail_switch_base: Asn = Field(4200100000,
                                  description="rail switch in slot n uses rail_switch_base + n (see limits)")


class Addressing(StrEnum):
    NUMBERED = "numbered"
    UNNUMBERED = "unnumbered"


class SessionTier(StrEnum):
    """The tiers of BGP sessions: a rail switch to its spines, a spine to the super-spines, an MLAG pair's iBGP."""

    RAIL_SPINE = "rail_spine"
    SPINE_SUPER_SPINE = "spine_super_spine"
    MLAG_PEER = "mlag_peer"


class BfdTimers(_Model):
    """BFD's transmit/receive interval and detect multiplier: a failure is detected after interval × multiplier."""

    interval_ms: int = Field(300, ge=50, le=10000, description="minimum transmit and receive interval in "
                             "milliseconds (every platform's common range)")
    multiplier: int = Field(3, ge=2, le=50, description="missed packets before the session is declared down")


class BfdSettings(BfdTimers):
    """The fabric-wide BFD timers (FRR's and NVIDIA's default, 300 ms × 3) and per-tier overrides."""

    tiers: dict[SessionTier, BfdTimers] = Field(
        default_factory=dict, description="timers of one session tier, replacing the fabric-wide ones")


class AuthAlgorithm(StrEnum):
    MD5 = "md5"
    TCP_AO = "tcp-ao"


class SessionAuth(_Model):
    """The key of one session tier's BGP sessions."""

    password: Secret = Field(description="vault reference {vault: NAME} to the shared key")
    algorithm: AuthAlgorithm = Field(AuthAlgorithm.MD5, description="md5 (TCP MD5 signature, RFC 2385) or tcp-ao "
                                     "(RFC 5925, where the platform supports it)")


class Drain(StrEnum):
    AUTO = "auto"
    GRACEFUL_SHUTDOWN = "graceful-shutdown"
    AS_PATH_PREPEND = "as-path-prepend"


class Routing(_Model):
    underlay: Literal["ebgp"] = "ebgp"
    addressing: Addressing = Field(Addressing.NUMBERED, description="numbered: a /31 per fabric link from "
                                   "pools.fabric_links; unnumbered: eBGP over IPv6 link-local addresses (RFC 8950)")
    asn: AsnPlan = AsnPlan()
    bfd: bool = True
    bfd_timers: BfdSettings = Field(BfdSettings(), description="BFD interval and multiplier, fabric-wide and per "
                                    "session tier")
    authentication: dict[SessionTier, SessionAuth] = Field(
        default_factory=dict, description="BGP session keys per tier, as vault references")
    drain: Drain = Field(Drain.AUTO, description="the rollout's drain: graceful-shutdown (RFC 8326), "
                         "as-path-prepend, or auto (graceful shutdown where every platform of the fabric supports "
                         "it)")
    ecmp: Ecmp = Ecmp()
    address_families: list[AddressFamily] = Field(
        default_factory=lambda: [AddressFamily.IPV4], min_length=1, max_length=2,
        description="[ipv4] (default) or dual-stack [ipv4, ipv6]: IPv6 loopbacks and rail subnets from "
        "pools.loopbacks_v6 / rail_subnets_v6, advertised in BGP's IPv6 unicast address family")
    spine_pod_aggregate: bool = Field(False, description="spines also advertise their pod's rail block as one "
                                                         "aggregate (summary-only)")

    @property
    def ipv6(self) -> bool:
        """Dual-stack: IPv6 loopbacks and rail subnets, the IPv6 unicast address family on every session."""
        return AddressFamily.IPV6 in self.address_families
