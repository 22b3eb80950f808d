"""The inventory's `routing:` section: the eBGP underlay (RFC 7938) and the options operators run on it.

- `addressing`: `numbered` (a /31 from pools.fabric_links on every routed link) or `unnumbered` (eBGP over the IPv6
  link-local addresses of each fabric link, IPv4 routes with IPv6 next hops: RFC 8950, formerly RFC 5549; no /31
  pool is needed).
- `bfd` switches BFD on every fabric session; `bfd_timers` sets its interval and multiplier, fabric-wide and per
  session tier, so that every platform of a mixed fabric detects a failure in the same time.
- `authentication`: a TCP MD5 (RFC 2385) or TCP-AO (RFC 5925) key per session tier, only as a vault reference
  (railfabric/inventory/intent_system.py: the key never sits in inventory/ or generated/). A TCP-AO tier may hold a
  `next` key beside its current one (its own KeyID, sent from `send_from` on): the rollover RFC 5925 designs in,
  without a session reset; TCP MD5 holds one key (AUTH002).
- `drain`: how the rollout takes a switch out of the forwarding path before it is changed: RFC 8326 graceful
  shutdown (the GRACEFUL_SHUTDOWN community, 65535:0) where every platform of the fabric supports it, else AS-path
  prepending.

Moved here from railfabric/inventory/intent.py (AsnPlan, Ecmp, Routing) when these options were added.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Literal

from pydantic import AwareDatetime, Field, field_validator

from railfabric.core.bounds import Asn
from railfabric.inventory.intent_ipv6 import AddressFamily
from railfabric.inventory.intent_system import Secret
from railfabric.inventory.intent_types import StrictModel as _Model


class EcmpMode(StrEnum):
    """How a switch spreads traffic over the equal-cost next hops of a route (railfabric/checks/rules/lb_rules.py).

    - flow: static hashing of each packet's header fields (`hash`): a flow keeps one path for its life.
    - flowlet: dynamic load balancing (DLB) at flowlet granularity: a flow keeps its path until it pauses longer
      than an inactivity interval, then the switch may move it to the least loaded member. Packets of a flow are
      not reordered as long as the interval exceeds the latency skew between paths. Arista's "dynamic" ECMP
      distribution (`ip hardware fib load-balance distribution dynamic`) and Junos `ecmp-dlb flowlet` are both
      this mode: EOS keeps its own interval (it has no inactivity setting in the forms railfabric renders), so a
      separate `dynamic` mode would render the same lines and is not offered.
    - packet: per-packet load balancing: each packet may take another member (NVIDIA Spectrum adaptive routing,
      Junos `ecmp-dlb per-packet`); the receiving NIC must tolerate reordering (HOST007).
    """

    FLOW = "flow"
    FLOWLET = "flowlet"
    PACKET = "packet"


class HashField(StrEnum):
    """A packet header field the ECMP hash may include. RoCEv2 runs over UDP to port 4791 with a source port the
    NIC varies per queue pair (the entropy NCCL and the NIC rely on): l4_src_port is what separates two RoCE flows
    between the same pair of NICs (LB005 warns when it is left out)."""

    SRC_IP = "src_ip"
    DST_IP = "dst_ip"
    IP_PROTOCOL = "ip_protocol"
    L4_SRC_PORT = "l4_src_port"
    L4_DST_PORT = "l4_dst_port"
    IPV6_FLOW_LABEL = "ipv6_flow_label"
    INGRESS_PORT = "ingress_port"


class Ecmp(_Model):
    mode: EcmpMode = Field(EcmpMode.FLOW, description="flow hashing, flowlet switching (dynamic load balancing) or "
                           "per-packet spraying")
    width: int = Field(64, ge=1, le=512, description="BGP maximum-paths")
    hash: list[HashField] | None = Field(
        None, description="the header fields of the ECMP hash, written in this order where the platform keeps one; "
        "unset: each platform's own default (nothing rendered)")
    flowlet_inactivity_us: int | None = Field(
        None, ge=1, le=65535, description="mode flowlet: the pause in microseconds after which a flow may move to "
        "another member (Junos ecmp-dlb flowlet inactivity-interval); unset: the switch's default")
    link_utilization_threshold: int | None = Field(
        None, ge=1, le=100, description="mode packet: the egress utilisation in percent above which adaptive "
        "routing treats a port as loaded (NVUE adaptive-routing link-utilization-threshold); unset: the switch's "
        "default (70)")


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


class NextKey(_Model):
    """The key a TCP-AO tier rolls over to: every switch of the tier holds it beside the current key (both accepted)
    and sends it from `send_from` on (RFC 5925 7.5.2: a key change without a connection reset)."""

    password: Secret = Field(description="vault reference {vault: NAME} to the next shared key")
    key_id: int = Field(ge=0, le=255, description="its TCP-AO KeyID (SendID = RecvID), not the current key's")
    send_from: AwareDatetime = Field(description="when every switch of the tier starts sending it: a date and time "
                                     "with its UTC offset, whole seconds (the switches' clocks must be in sync: NTP)")

    @field_validator("send_from")
    @classmethod
    def _whole_seconds(cls, value: datetime) -> datetime:
        if value.microsecond:
            raise ValueError("send_from takes whole seconds (no platform's key lifetime has a fraction)")
        return value.astimezone(UTC)


class SessionAuth(_Model):
    """The key of one session tier's BGP sessions."""

    password: Secret = Field(description="vault reference {vault: NAME} to the shared key")
    algorithm: AuthAlgorithm = Field(AuthAlgorithm.MD5, description="md5 (TCP MD5 signature, RFC 2385) or tcp-ao "
                                     "(RFC 5925, where the platform supports it)")
    key_id: int = Field(0, ge=0, le=255, description="tcp-ao: the key's KeyID (SendID = RecvID, RFC 5925)")
    next: NextKey | None = Field(None, description="tcp-ao: the key to roll over to without a session reset "
                                 "(held beside this one, sent from send_from on)")


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
