"""The inventory schema (v1): what the operator writes, as immutable pydantic models.

Unknown keys are refused everywhere. Defaults follow ../shared/REFERENCE.md (NVIDIA Cumulus RoCE profile for ECN,
SONiC pfcwd defaults for the PFC watchdog, 9216/9000 MTUs). `fabric schema` publishes this as JSON Schema.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal

import netaddr
from pydantic import (
    BeforeValidator,
    Field,
    PlainSerializer,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from railfabric.core.bounds import (
    LATENCY_NS_MAX,
    PORTS_HINT,
    PORTS_MAX,
    SPEED_GBPS_MAX,
    SPEED_HINT,
    AddressOffset,
    AsicDelayNs,
    Asn,
    BufferBytes,
    BufferBytesFloat,
    BufferSize,
    EcnBytes,
    HostMtu,
    NicIndex,
    PortNumber,
    RailIndex,
    SwitchMtu,
    Vlan,
)
from railfabric.core.textsafe import did_you_mean, quote
from railfabric.core.units import (
    PLACEHOLDERS,
    check_pattern,
    default_serdes_lanes,
    parse_breakout,
    parse_ports,
    parse_speed,
)
from railfabric.inventory.intent_infiniband import InfinibandSettings
from railfabric.inventory.intent_ipv6 import IPv6Prefix
from railfabric.inventory.intent_raw import RawBlock
from railfabric.inventory.intent_routing import Routing
from railfabric.inventory.intent_system import SystemSettings
from railfabric.inventory.intent_types import FreeText, IPv4Addr, Release, prefix_parser
from railfabric.inventory.intent_types import StrictModel as _Model
from railfabric.platforms import PLATFORM_NAMES
from railfabric.platforms.asic import AsicFamily

SCHEMA_VERSION = 1
# (`_Model` above is imported under its name, not assigned: through an assigned alias mypy's pydantic plugin does
# not see the fields of the subclasses, and every `TrafficClass(dscp=...)` is an "unexpected keyword")



# --------------------------------------------------------------------------- scalar types


def _speed(v: Any) -> int:
    try:
        return parse_speed(v)
    except ValueError as exc:
        raise PydanticCustomError("SCH003", "{problem}", {"problem": str(exc), "hint": SPEED_HINT}) from None


Speed = Annotated[
    int,
    BeforeValidator(_speed),
    WithJsonSchema({"type": ["string", "integer"], "pattern": r"^\d+(\.\d+)?[GgTt]$", "minimum": 1,
                    "maximum": SPEED_GBPS_MAX,
                    "description": "link speed, e.g. '400G', '800G', '1.6T' (integers are Gbit/s; at most 10T)"}),
]


def _breakout(v: Any) -> tuple[int, int]:
    if isinstance(v, tuple):
        return v
    return parse_breakout(v)


Breakout = Annotated[
    tuple[int, int],
    BeforeValidator(_breakout),
    PlainSerializer(lambda v: f"{v[0]}x{v[1]}G"),
    WithJsonSchema({"type": "string", "pattern": r"^\d+[xX]\d+(\.\d+)?[GgTt]$",
                    "description": "breakout mode: lanes x speed, e.g. '2x400G'"}),
]


def _ports(v: Any) -> tuple[int, ...]:
    if isinstance(v, tuple):
        return v
    try:
        return parse_ports(v)
    except ValueError as exc:
        raise PydanticCustomError("SCH003", "{problem}", {"problem": str(exc), "hint": PORTS_HINT}) from None


PortList = Annotated[
    tuple[int, ...],
    BeforeValidator(_ports),
    WithJsonSchema({"oneOf": [
        {"type": "string", "description": "ranges and numbers, e.g. '1-16' or '1,4,7,10'"},
        {"type": "array", "items": {"type": ["integer", "string"], "minimum": 1, "maximum": PORTS_MAX},
         "description": "port numbers or 'a-b' ranges, e.g. [1, 4, 7, 10] or ['33-64']"}]}),
]


_network = prefix_parser(4, "10.0.0.0/16")


IPv4Prefix = Annotated[
    netaddr.IPNetwork,
    BeforeValidator(_network),
    PlainSerializer(str),
    WithJsonSchema({"type": "string", "description": "IPv4 prefix, e.g. '10.0.0.0/16'"}),
]


def _pattern(allowed: frozenset[str]) -> BeforeValidator:
    def check(v: Any) -> str:
        if not isinstance(v, str):
            raise ValueError("name pattern must be a string")
        check_pattern(v, allowed)
        return v

    return BeforeValidator(check)


# Identifiers used as mapping keys and in file names: no path separators, no leading dot.
Ident = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]


# --------------------------------------------------------------------------- fabric-wide settings


# The switch platforms: one member per module of railfabric/platforms/ (Platform.SONIC == "sonic", ...).
Platform = StrEnum("Platform", {name.upper(): name for name in PLATFORM_NAMES})  # type: ignore[misc]


class FabricSettings(_Model):
    """Fabric-wide settings."""

    name: Annotated[str, Field(pattern=r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$",
                               description="fabric name (an RFC 1123 label)")]
    kind: Literal["ethernet", "infiniband"] = Field(
        "ethernet", description="ethernet (RoCEv2, the switch configs) or infiniband (the subnet manager's files: "
        "the `infiniband:` section, railfabric/inventory/intent_infiniband.py)")
    platform: Platform = Field(Platform("sonic"), description="default switch platform")
    mtu: SwitchMtu = Field(9216, description="MTU of every switch port (normalised per platform)")
    host_mtu: HostMtu = Field(9000, description="MTU of the GPU NICs")
    rail_vlan_base: Vlan = Field(100, description="rail r uses VLAN rail_vlan_base + r")
    releases: dict[Platform, Release] = Field(
        default_factory=dict, description="switch OS release per platform, e.g. {nvue: '5.12'}: selects the forms "
        "rendered and the vendor schema checked; a switch model's releases or a device's release overrides it")


class TrafficClass(_Model):
    dscp: int = Field(ge=0, le=63)
    priority: int = Field(ge=0, le=7, description="switch priority / traffic class")


class Ecn(_Model):
    enabled: bool = True
    min_bytes: EcnBytes = Field(150_000, description="WRED/ECN minimum threshold (bytes)")
    max_bytes: EcnBytes = Field(1_500_000, description="WRED/ECN maximum threshold (bytes)")
    probability: int = Field(100, ge=1, le=100, description="marking probability at max_bytes (%)")


class PfcWatchdog(_Model):
    enabled: bool = True
    detection_ms: int = Field(200, ge=100, le=5000)
    restoration_ms: int = Field(200, ge=100, le=60000)
    poll_ms: int = Field(200, ge=100, le=1000)
    action: Literal["drop", "forward", "alert"] = "drop"


class Scheduler(_Model):
    roce_weight: int = Field(50, ge=1, le=100, description="DWRR weight of the lossless RoCE queue")
    default_weight: int = Field(50, ge=1, le=100, description="DWRR weight of the default queue")


class Qos(_Model):
    """Lossless RoCEv2 profile: the same on both ends of every link."""

    roce: TrafficClass = TrafficClass(dscp=26, priority=3)
    cnp: TrafficClass = TrafficClass(dscp=48, priority=6)
    ecn: Ecn = Ecn()
    pfc_watchdog: PfcWatchdog = PfcWatchdog()
    scheduler: Scheduler = Scheduler()


class ManagementPool(_Model):
    prefix: IPv4Prefix
    gateway: IPv4Addr | None = Field(None, description="default: the first address of the prefix")
    first_offset: AddressOffset = Field(16, description="device addresses start this many addresses into the prefix")


class Pools(_Model):
    loopbacks: IPv4Prefix = Field(description="one /32 per switch")
    fabric_links: IPv4Prefix | None = Field(None, description="one /31 per routed link (or port-channel) and per MLAG "
                                            "peer VLAN; needed only when some link is numbered (UND001)")
    rail_subnets: IPv4Prefix = Field(description="rail subnets: one block per segment (limits.segment_rail_block)")
    management: ManagementPool
    # dual-stack (routing.address_families with ipv6; railfabric/plan/allocate_v6.py)
    loopbacks_v6: IPv6Prefix | None = Field(None, description="one IPv6 /128 per switch, at its loopback slot "
                                            "(dual-stack only)")
    rail_subnets_v6: IPv6Prefix | None = Field(None, description="an IPv6 /64 per rail subnet: each segment owns a "
                                               "/56 of this pool at its segment slot (dual-stack only)")


class Limits(_Model):
    """The address plan's geometry. Allocations stride by these numbers, never by how many things exist,
    so adding a pod, segment, spine or host group never renumbers anything that exists.
    Changing a limit renumbers on purpose."""

    pods: int = Field(16, ge=1, le=4096)
    segments_per_pod: int = Field(32, ge=1, le=4096)
    rail_switches_per_segment: int = Field(16, ge=1, le=256)
    spines_per_pod: int = Field(64, ge=1, le=1024)
    super_spines: int = Field(64, ge=1, le=1024)
    uplinks_per_rail_switch: int = Field(64, ge=1, le=1024, description="routed links from one rail switch up")
    uplinks_per_spine: int = Field(64, ge=1, le=1024, description="routed links from one spine up")
    segment_rail_block: int = Field(21, ge=8, le=30,
                                    description="prefix length of the rail-subnet block each segment gets")


class Oversubscription(_Model):
    """Allowed downlink:uplink ratio per tier (1.0 = non-blocking). Anything above is a CAP001 error."""

    rail: float = Field(1.0, ge=1.0, le=64.0, description="rail switches: host Gbps down / spine Gbps up")
    spine: float = Field(1.0, ge=1.0, le=64.0, description="spines: rail-switch Gbps down / super-spine Gbps up")


class CableLengths(_Model):
    host_m: float = Field(3.0, ge=0, le=2000, description="host ↔ rail switch (DAC/AOC in the rack)")
    fabric_m: float = Field(30.0, ge=0, le=10000, description="rail switch ↔ spine")
    core_m: float = Field(100.0, ge=0, le=10000, description="spine ↔ super-spine")


class SolverSettings(_Model):
    oversubscription: Oversubscription = Oversubscription()
    latency_budget_ns: int = Field(10_000, ge=100, le=10_000_000,
                                   description="one-way GPU-to-GPU budget (Ultra Ethernet back-end target: 10 µs)")
    cable: CableLengths = CableLengths()
    fiber_ns_per_m: float = Field(5.0, ge=3.0, le=10.0, description="propagation delay (about 5 ns/m in fibre)")


# --------------------------------------------------------------------------- hardware catalogue


class RailPortBlocks(_Model):
    rails: list[PortList] = Field(default_factory=list,
                                  description="host-facing ports per rail slot: the i-th rail a switch serves "
                                              "uses rails[i]")
    uplinks: PortList | None = Field(None, description="ports towards the next tier up (default: top half)")
    peer_link: PortList | None = Field(None, description="MLAG peer-link ports (dual_homing: mlag; default: the "
                                                         "highest-numbered ports outside the uplinks and rail "
                                                         "blocks)")


class SwitchBuffers(_Model):
    """Packet-buffer facts of a switch's ASIC, for SONiC's traditional buffer model (railfabric/plan/buffers.py): the
    pools carved from the shared buffer, and the ASIC constants of the lossless headroom formula. Take them from the SKU
    directory of sonic-buildimage (device/<vendor>/<platform>/<hwsku>/) or the vendor."""

    total_bytes: BufferSize = Field(description="shared buffer memory (SONiC's mmu_size)")
    ingress_lossless_pool: BufferSize = Field(description="BUFFER_POOL ingress_lossless_pool size (bytes)")
    ingress_lossy_pool: BufferSize = Field(description="BUFFER_POOL ingress_lossy_pool size (bytes)")
    egress_lossless_pool: BufferSize = Field(description="BUFFER_POOL egress_lossless_pool size (bytes)")
    egress_lossy_pool: BufferSize = Field(description="BUFFER_POOL egress_lossy_pool size (bytes)")
    shared_headroom_pool: BufferBytes = Field(0, description="xoff of ingress_lossless_pool: a shared headroom pool "
                                                           "(each lossless PG then reserves only its xon); 0: every "
                                                           "lossless PG reserves its full headroom")
    pool_mode: Literal["static", "dynamic"] = "dynamic"
    cell_bytes: int = Field(ge=1, le=65536, description="buffer cell size")
    pipeline_latency_bytes: BufferBytes = Field(description="xon of a lossless PG (doubled on 8-lane ports)")
    mac_phy_delay_bytes: BufferBytesFloat = Field(description="MAC/PHY delay of the headroom formula, in bytes")
    tile_delay_ns: AsicDelayNs = Field(0, description="in-ASIC delay counted as bytes at line rate (Spectrum-4/5)")
    lossless_pg_dynamic_th: int = Field(0, ge=-8, le=7, description="dynamic_th of the lossless PG profiles")
    lossless_dynamic_th: int = Field(7, ge=-8, le=7, description="dynamic_th of the other lossless profiles")
    lossy_dynamic_th: int = Field(3, ge=-8, le=7, description="dynamic_th of the lossy PG and queue profiles")
    egress_lossy_reserve: BufferBytes = Field(9216, description="size of egress_lossy_profile (port egress list)")
    create_only_config_db_buffers: bool = Field(False, description="DEVICE_METADATA flag: the ASIC gets only the "
                                                                   "buffers config_db names (set by the SKU)")


def _no_default(schema: dict[str, Any]) -> None:
    """json_schema_extra: the schema shows no default (the real one depends on the speed)."""
    schema.pop("default", None)


def _asic_family(v: Any) -> Any:
    """An unknown family is refused with the known ones and the closest as the hint (SCH003)."""
    known = [f.value for f in AsicFamily]
    if isinstance(v, str) and v not in known:
        close = did_you_mean(v, known)
        raise PydanticCustomError("SCH003", "unknown ASIC family {got}", {
            "got": quote(v), "hint": (f"did you mean {close!r}? " if close else "") + f"known: {', '.join(known)} "
            "(railfabric/platforms/asic.py lists the documents behind each)"})
    return v


class SwitchModel(_Model):
    ports: int = Field(ge=1, le=PORTS_MAX, description="physical front-panel ports")
    speed: Speed = Field(description="native port speed")
    breakouts: list[Breakout] = Field(default_factory=list, description="e.g. ['2x400G', '4x200G']")
    port_blocks: RailPortBlocks | None = None
    latency_ns: int = Field(600, ge=0, le=LATENCY_NS_MAX, description="port-to-port latency (for the solver)")
    serdes_lanes: int = Field(8, ge=1, le=16, json_schema_extra=_no_default,
                              description="electrical lanes per port (interface naming, SONiC lanes); default: "
                                          "from the speed (800G/400G: 8, 200G/100G/40G: 4, 25G: 1), a multiple "
                                          "of every breakout's lanes")
    hwsku: Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")] | None = Field(
        None, description="SONiC HwSKU written into DEVICE_METADATA")
    buffers: SwitchBuffers | None = Field(None, description="buffer facts of the ASIC (SONiC lossless buffers)")
    releases: dict[Platform, Release] = Field(
        default_factory=dict, description="switch OS release per platform on this model, e.g. {nvue: '5.14'}: "
        "overrides fabric.releases")
    asic: Annotated[AsicFamily, BeforeValidator(_asic_family)] | None = Field(
        None, description="the switch ASIC family (spectrum-4, tomahawk-3/4/5, jericho-2): where a platform writes "
        "per-queue QoS differently per family (EOS: uc-tx-queue and an MMU profile on Tomahawk, tx-queue on "
        "Jericho), its switches need it (HW006); elsewhere it is a recorded fact")

    @model_validator(mode="before")
    @classmethod
    def _serdes_default(cls, data: Any) -> Any:
        """serdes_lanes left out: derived from the speed and breakouts (units.default_serdes_lanes)."""
        if not isinstance(data, dict) or data.get("serdes_lanes") is not None:
            return data
        try:
            speed = parse_speed(data.get("speed"))
            breakouts = [parse_breakout(b) for b in data.get("breakouts") or []]
        except (ValueError, TypeError):
            return data  # the field validators report it
        return {**data, "serdes_lanes": default_serdes_lanes(speed, breakouts)}


# Linux names of a GPU server's rail NICs: they go into netplan keys, shell scripts, sysfs paths and file names, so
# only letters, digits, '_', '.', '-' (first a letter or digit: no '..', no option-like '-x'); a netdev name fits
# the kernel's IFNAMSIZ (15 characters), an RDMA device name IB_DEVICE_NAME_MAX (64, with its NUL).
NetdevName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$",
                                  description="Linux network interface name (at most 15 characters)")]
RdmaName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$",
                                description="RDMA device name as `rdma link` / `ibv_devices` show it")]


class HostModel(_Model):
    gpus: int = Field(ge=1, le=64)
    nics: int = Field(ge=1, le=64)
    ports_per_nic: Literal[1, 2] = 1
    nic_speed: Speed
    gpu_to_nic: list[NicIndex] | None = Field(None, description="NIC index per GPU; required when NICs < GPUs")
    netdevs: list[NetdevName] | None = Field(
        None, description="Linux interface name of every NIC port, NIC by NIC (NIC 0 port 1, NIC 0 port 2, NIC 1 "
        "port 1, ...): nics × ports_per_nic names (HOST001). Default: nic<n> (one port per NIC) or nic<n>p<port>, "
        "names to give the ports with udev/systemd .link files; write the server's own names instead")
    rdma_devices: list[RdmaName] | None = Field(
        None, description="RDMA device of every NIC port, in the order of netdevs (mlx5 gives each port its own "
        "device): nics × ports_per_nic names (HOST002). Under dual_homing: mlag a NIC's port 1 entry names its RoCE "
        "LAG device (mlx5_bond_<k>). Default: mlx5_<i> for port i counted from 0 (mlx5_bond_<n> for NIC n's bond)")
    accepts_out_of_order: bool = Field(
        False, description="the NICs place RoCE packets that arrive out of order into memory instead of dropping "
        "them (NVIDIA 'Out-of-Order Data Placement': ConnectX-5 and later, RC/XRC QPs and DC, enabled per QP), so "
        "switches may spray a flow packet by packet (routing.ecmp.mode: packet). false (the default): a NIC that "
        "takes reordering as loss and retransmits (go-back-N); HOST007 refuses packet spraying toward it")


# --------------------------------------------------------------------------- the fabric


class SuperSpines(_Model):
    count: int = Field(ge=1, le=1024)
    model: Ident
    name: Annotated[str, _pattern(frozenset({"index", "plane"}))] = "ss{index}"
    planes: int | None = Field(None, ge=1, le=64,
                               description="absent: every spine meets every super-spine; N: spine i meets the "
                                           "super-spines of plane ((i-1) mod N)+1; super-spine s is in plane "
                                           "((s-1) mod N)+1")
    ports_per_pod: int | None = Field(None, ge=1, le=1024,
                                      description="reserve this many downlink ports per pod id on every "
                                                  "super-spine (pod p starts at port (p-1)·N+1), so adding a pod "
                                                  "or spine never moves another pod's cables; absent: dense, in "
                                                  "pod id order")
    platform: Platform | None = None


class Spines(_Model):
    count: int = Field(ge=1, le=1024)
    model: Ident
    name: Annotated[str, _pattern(frozenset({"pod", "index", "plane"}))] = "p{pod}-spine{index}"
    links_per_rail_switch: int = Field(1, ge=1, le=64, description="parallel links from each rail switch")
    link_speed: Speed = Field(description="speed of rail switch ↔ spine links")
    port_channel_members: int | None = Field(None, ge=2, le=32,
                                             description="bundle parallel links into L3 port-channels of N")
    port_channel_min_links: int | None = Field(
        None, ge=1, le=32, description="members that must be up for a port-channel to stay up (default: all of "
        "them: a degraded bundle would still attract an equal ECMP share and congest RoCE traffic; a bundle that "
        "goes down moves its share to the other paths)")
    links_per_super_spine: int = Field(1, ge=1, le=64)
    super_spine_link_speed: Speed | None = Field(None, description="default: link_speed")
    ports_per_segment: int | None = Field(None, ge=1, le=1024,
                                          description="reserve this many downlink ports per segment id on every "
                                                      "spine (segment s starts at port (s-1)·N+1), so adding a "
                                                      "segment never moves another segment's cables; absent: "
                                                      "dense, in segment id order")
    platform: Platform | None = None

    @model_validator(mode="after")
    def _min_links_fit(self) -> Spines:
        if self.port_channel_min_links is None:
            return self
        if self.port_channel_members is None:
            raise ValueError("port_channel_min_links needs port_channel_members (there are no port-channels)")
        if self.port_channel_min_links > self.port_channel_members:
            raise ValueError(f"port_channel_min_links {self.port_channel_min_links} is above "
                             f"port_channel_members {self.port_channel_members}: the bundle could never come up")
        return self

    def min_links(self) -> int:
        """Members a port-channel needs up (what the configs say and the failure analysis assumes)."""
        return self.port_channel_min_links or self.port_channel_members or 1


class DualHoming(StrEnum):
    MLAG = "mlag"
    ESI = "esi"
    TWO_VLANS = "two-vlans"


class RailDesign(StrEnum):
    SINGLE = "single-rail"
    DUAL = "dual-rail"
    MULTI = "multi-rail"


class HostGroup(_Model):
    model: Ident
    count: int = Field(ge=1, le=4096)
    first: int | None = Field(None, ge=1, le=4096,
                              description="number of this group's first host in the segment (required when a "
                                          "segment has several groups)")
    name: Annotated[str, _pattern(frozenset({"pod", "segment", "host"}))] = "p{pod}-s{segment}-gpu{host:03d}"


class Segment(_Model):
    id: int = Field(ge=1, le=4096)
    rail_design: RailDesign
    rails: int = Field(ge=1, le=64, description="rails = NICs per host")
    rails_per_switch: int | None = Field(None, ge=1, le=64, description="multi-rail only")
    rail_groups: list[list[RailIndex]] | None = Field(None, description="explicit rails per switch, e.g. [[0,4],[1,5]]")
    rail_prefix_len: int = Field(24, ge=16, le=30, description="prefix length of each rail subnet")
    rail_switch_model: Ident
    rail_switch_name: Annotated[str, _pattern(frozenset({"pod", "segment", "rail", "rails", "index", "side"}))] = (
        "p{pod}-s{segment}-rail{rails}{side}"
    )
    dual_homing: DualHoming | None = Field(None, description="how dual-port NICs attach: two switches per rail")
    peer_link_ports: int | None = Field(None, ge=1, le=16,
                                        description="dual_homing: mlag only: ports of each pair's peer link "
                                                    "(default 2)")
    links_per_spine: int | None = Field(None, ge=1, le=64, description="default: the pod's links_per_rail_switch")
    vlan_base: Vlan | None = Field(None, description="default: fabric.rail_vlan_base")
    host_groups: list[HostGroup] = Field(min_length=1)
    platform: Platform | None = None


class Pod(_Model):
    id: int = Field(ge=1, le=4096)
    spines: Spines | None = Field(None, description="absent: a rail-only pod (no spine tier)")
    segments: list[Segment] = Field(min_length=1)


class DeviceOverride(_Model):
    hostname: Annotated[str, Field(max_length=63)] | None = None
    platform: Platform | None = None
    model: Ident | None = None
    rack: FreeText | None = None
    management: IPv4Addr | None = None
    disabled_ports: PortList = Field(default_factory=tuple, description="ports kept down and skipped by cabling")
    system: SystemSettings | None = Field(None, description="this switch's management/baseline overrides: each key "
                                          "written here replaces the fabric-wide one")
    release: Release | None = Field(None, description="this switch's OS release (its platform's), e.g. '5.12': "
                                    "overrides the model's and the fabric's")
    # per-device pins of the address plan (issue 30): each replaces one computed value, nothing else moves
    # (railfabric/plan/allocate.py); railfabric/checks/rules/pin_rules.py checks them (PIN001-PIN009)
    asn: Asn | None = Field(None, description="this switch's BGP ASN instead of the plan's (routing.asn): its peers' "
                            "remote-as follows; it must keep the RFC 7938 plan (PIN005-PIN008)")
    loopback: IPv4Addr | None = Field(None, description="this switch's loopback /32 address instead of its slot in "
                                      "pools.loopbacks (a warning outside that pool, an error in another pool or on "
                                      "another switch's loopback)")
    router_id: IPv4Addr | None = Field(None, description="this switch's BGP router-id (default: its loopback address, "
                                       "pinned or not); unique fabric-wide (PIN002)")


class HostLink(_Model):
    """An explicit cable: pins one host NIC port to a switch port (e.g. a field re-cable). The solver checks that
    it still lands on a switch serving the NIC's rail."""

    host: Annotated[str, Field(max_length=63)]
    nic: NicIndex = Field(description="NIC index (= local rank of its rail)")
    nic_port: int = Field(1, ge=1, le=2)
    switch: Annotated[str, Field(max_length=63)] = Field(description="switch hostname")
    port: PortNumber
    lane: int = Field(0, ge=0, le=16, description="breakout lane, 0 when not broken out")


class Inventory(_Model):
    """A railfabric inventory (schema v1). Files under inventory/ merge into this one document."""

    fabric: FabricSettings
    routing: Routing = Routing()
    qos: Qos = Qos()
    # None only on an infiniband fabric (which has no IP plan and never allocates): an Ethernet inventory without
    # pools is refused as before (missing required key, SCH002) by _pools_required
    if TYPE_CHECKING:  # every reader of pools runs on an Ethernet fabric, where it is always there
        pools: Pools
    else:
        pools: Pools | None = Field(None, validate_default=True)
    limits: Limits = Limits()
    solver: SolverSettings = SolverSettings()
    switch_models: dict[Ident, SwitchModel] = Field(min_length=1)
    host_models: dict[Ident, HostModel] = Field(min_length=1)
    super_spines: SuperSpines | None = None
    pods: list[Pod] = Field(min_length=1)
    devices: dict[str, DeviceOverride] = Field(default_factory=dict,
                                               description="per-device overrides keyed by the pattern name")
    cabling: list[HostLink] = Field(default_factory=list, description="explicit host cables that replace the "
                                                                      "generated ones")
    system: SystemSettings | None = Field(None, description="management plane and baseline (users, AAA, NTP, DNS, "
                                          "syslog, SNMP, banner), fabric-wide")
    raw: list[RawBlock] = Field(default_factory=list, description="raw configuration the model does not know, per "
                                "platform, fabric-wide or for some roles, pods, segments or devices "
                                "(railfabric/inventory/intent_raw.py)")
    infiniband: InfinibandSettings | None = Field(None, description="the InfiniBand subnet (fabric.kind: "
                                                  "infiniband only): subnet managers, routing engine, LMC, "
                                                  "partitions, QoS")

    @field_validator("pools", mode="after")
    @classmethod
    def _pools_required(cls, v: Pools | None, info: ValidationInfo) -> Pools | None:
        fabric = info.data.get("fabric")
        if v is None and (fabric is None or fabric.kind != "infiniband"):
            raise PydanticCustomError("missing", "Field required")
        return v

    @property
    def is_infiniband(self) -> bool:
        return self.fabric.kind == "infiniband"


def json_schema() -> dict:
    schema = Inventory.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://railfabric.invalid/schema/inventory-v{SCHEMA_VERSION}.json"
    schema["title"] = f"railfabric inventory v{SCHEMA_VERSION}"
    return schema


__all__ = ["PLACEHOLDERS", "SCHEMA_VERSION", "Inventory", "json_schema"]
