"""The `infiniband:` section of an inventory whose `fabric.kind` is `infiniband` (issue 31), and the list of the
Ethernet-only keys such an inventory may not write (railfabric/checks/rules/ib_rules.py refuses them, IB001-IB014 and
IB034-IB040; IB015 is the section on an Ethernet fabric).

What the section means for OpenSM (railfabric/topology/infiniband.py turns it into the subnet model):
- subnet_prefix: opensm.conf `subnet_prefix` (OpenSM's default 0xfe80000000000000, `opensm -c`, 3.3.23);
- subnet_managers: where an SM runs (a switch by hostname, or a host's HCA by rail index) and its `sm_priority`
  (0-15, the higher is master: opensm -c template);
- routing_engine: ftree (the fat tree's engine), updn, dnup, minhop (upstream OpenSM 3.3.23); ar_ftree, ar_updn
  (NVIDIA's SM only: adaptive routing, not in upstream OpenSM);
- lmc: LIDs per port = 2^lmc (0-7; ftree needs 0);
- partitions: PKeys 0x0001-0x7ffe (0x7fff is the default partition), members = every HCA of the named hosts
  (Slurm host lists, `dgx[01-16]`, expanded by railfabric.core.hostlist.expand_hostlist), full or limited;
- default_partition: the HCAs' membership of the default partition (switches and the SM are always full);
- qos: service levels of compute and storage traffic, the SL-to-VL map and VL arbitration (opensm.conf qos_*:
  linux-rdma/opensm doc/QoS_management_in_OpenSM.txt).
Pod-level `kind` (a fabric mixing Ethernet and InfiniBand pods) is not supported: the kind is fabric-wide.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from railfabric.inventory.intent_types import StrictModel

DEFAULT_SUBNET_PREFIX = "0xfe80000000000000"
ENGINES = ("ftree", "updn", "dnup", "minhop", "ar_ftree", "ar_updn")
NVIDIA_ONLY_ENGINES = ("ar_ftree", "ar_updn")


def _pkey(v: Any) -> Any:
    """A PKey as YAML gives it: an integer (YAML 1.1 reads 0x0a01 as 2561) or a hex string '0x0a01'."""
    if isinstance(v, str):
        text = v.strip().lower()
        if not text.startswith("0x"):
            raise PydanticCustomError("SCH003", "PKey {got} is not a hex number such as '0x0a01'",
                                      {"got": repr(v), "hint": "write the PKey in hex, e.g. pkey: '0x0a01'"})
        try:
            return int(text, 16)
        except ValueError:
            raise PydanticCustomError("SCH003", "PKey {got} is not a hex number such as '0x0a01'",
                                      {"got": repr(v), "hint": "write the PKey in hex, e.g. pkey: '0x0a01'"}) from None
    return v


def _pkey_schema(schema: dict[str, Any]) -> None:
    """The JSON Schema of a PKey: an integer 1-0x7ffe or a hex string (what `_pkey` accepts)."""
    schema.clear()
    schema.update({"description": "partition key 0x0001-0x7ffe (0x7fff is the default partition), e.g. '0x0a01'",
                   "anyOf": [{"type": "integer", "minimum": 0x0001, "maximum": 0x7FFE},
                             {"type": "string", "pattern": "^0[xX][0-9a-fA-F]{1,4}$"}]})


PKey = Annotated[int, BeforeValidator(_pkey), Field(ge=0x0001, le=0x7FFE, json_schema_extra=_pkey_schema)]
ServiceLevel = Annotated[int, Field(ge=0, le=15)]
Membership = Literal["full", "limited"]
Name = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")]
HostName = Annotated[str, Field(min_length=1, max_length=4096)]


class SubnetManagerPlacement(StrictModel):
    """Where one subnet manager runs: on a switch (`node`: its hostname) or on a host's HCA (`host` + `hca`: the
    HCA's rail index)."""

    node: Annotated[str, Field(max_length=63)] | None = Field(None, description="switch hostname")
    host: Annotated[str, Field(max_length=63)] | None = Field(None, description="host name (with hca)")
    hca: int | None = Field(None, ge=0, le=63, description="the host's HCA by rail index (with host)")
    priority: int = Field(ge=0, le=15, description="sm_priority: the higher is master, each SM its own")

    @model_validator(mode="after")
    def _one_place(self) -> SubnetManagerPlacement:
        if (self.node is None) == (self.host is None):
            raise ValueError("a subnet manager runs on a switch (node: <hostname>) or on a host's HCA "
                             "(host: <name> with hca: <rail index>), one of the two")
        if (self.host is None) != (self.hca is None):
            raise ValueError("host and hca go together: the SM runs on that HCA of that host")
        return self


class IbPartition(StrictModel):
    name: Name = Field(description="partition name in partitions.conf (letters, digits, '-' and '_')")
    pkey: PKey
    hosts: list[HostName] = Field(min_length=1, description="member hosts (every HCA of each): names or Slurm "
                                  "host lists such as 'dgx[01-16]'")
    membership: Membership = Field("full", description="full members talk to every member; limited members "
                                   "only to full ones")
    ipoib: bool = Field(False, description="an IPoIB interface in this partition (partitions.conf `ipoib` flag)")
    service_level: ServiceLevel | Literal["compute", "storage"] | None = Field(
        None, description="path-record SL of this partition: a number or the QoS class (default: compute)")


class DefaultPartition(StrictModel):
    membership: Membership = Field("full", description="the HCAs' membership of the default partition 0x7fff "
                                   "(limited: hosts reach only the switches and the SM through it)")


class ServiceLevels(StrictModel):
    compute: ServiceLevel = Field(0, description="SL of GPU-to-GPU (NCCL) traffic: the default SL")
    storage: ServiceLevel = Field(1, description="SL of storage traffic (partitions with service_level: storage)")


VlWeight = Annotated[tuple[Annotated[int, Field(ge=0, le=14)], Annotated[int, Field(ge=0, le=255)]],
                     Field(description="[VL, weight]")]


class IbQos(StrictModel):
    """OpenSM's QoS options (opensm.conf qos TRUE, qos_*)."""

    service_levels: ServiceLevels = ServiceLevels()
    sl2vl: list[Annotated[int, Field(ge=0, le=14)]] = Field(
        default_factory=lambda: [0, 1] + [0] * 14, min_length=16, max_length=16,
        description="the VL of each SL 0-15 (qos_sl2vl)")
    vlarb_high: list[VlWeight] = Field(default_factory=lambda: [(0, 128), (1, 64)],
                                       description="high-priority VL arbitration table (qos_vlarb_high)")
    vlarb_low: list[VlWeight] = Field(default_factory=lambda: [(0, 4), (1, 4)],
                                      description="low-priority VL arbitration table (qos_vlarb_low)")
    high_limit: int = Field(255, ge=-1, le=255, description="qos_high_limit")
    max_vls: Literal[1, 2, 4, 8, 15] = Field(2, description="qos_max_vls: data VLs in use")


class InfinibandSettings(StrictModel):
    """The subnet: subnet managers, routing engine, LMC, partitions and QoS (fabric.kind: infiniband only)."""

    subnet_prefix: Annotated[str, Field(pattern=r"^0[xX][0-9a-fA-F]{1,16}$")] = Field(
        DEFAULT_SUBNET_PREFIX, description="the subnet's GID prefix (hex)")
    subnet_managers: list[SubnetManagerPlacement] = Field(
        min_length=1, description="two recommended (master and standby), distinct priorities")
    routing_engine: Literal["ftree", "updn", "dnup", "minhop", "ar_ftree", "ar_updn"] = Field(
        "ftree", description="ftree (fat tree), updn, dnup, minhop; ar_ftree / ar_updn need NVIDIA's SM")
    lmc: int = Field(0, ge=0, le=7, description="LID mask control: 2^lmc LIDs per port (ftree needs 0)")
    partitions: list[IbPartition] = Field(default_factory=list)
    default_partition: DefaultPartition = DefaultPartition()
    qos: IbQos | None = Field(None, description="absent: QoS off (qos FALSE)")

    @property
    def prefix(self) -> int:
        return int(self.subnet_prefix, 16)


# The keys an InfiniBand inventory may not write, with what each means on Ethernet (the finding says why it means
# nothing on InfiniBand). Paths: '*' matches any list index or mapping key. Codes IB001-IB014.
ETHERNET_ONLY: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("IB001", ("routing",), "the BGP/OSPF underlay: InfiniBand forwarding is programmed by the subnet manager "
     "(infiniband.routing_engine)"),
    ("IB002", ("qos",), "the RoCE QoS (DSCP, PFC, ECN): InfiniBand's QoS is service levels and VLs "
     "(infiniband.qos)"),
    ("IB003", ("pools",), "IP address pools: an InfiniBand subnet addresses ports by LIDs the SM assigns"),
    ("IB004", ("system",), "the switches' management baseline for the Ethernet platforms' configs"),
    ("IB005", ("raw",), "raw configuration for the Ethernet platforms' configs"),
    ("IB006", ("limits",), "the IP address plan's geometry"),
    ("IB007", ("fabric", "platform"), "the Ethernet switch OS: InfiniBand switches run no configured OS here"),
    ("IB007", ("fabric", "releases"), "Ethernet switch OS releases"),
    ("IB008", ("fabric", "mtu"), "the Ethernet MTU in bytes: InfiniBand's MTU is negotiated per link "
     "(4096 bytes)"),
    ("IB008", ("fabric", "host_mtu"), "the hosts' Ethernet MTU"),
    ("IB009", ("fabric", "rail_vlan_base"), "rail VLANs: InfiniBand has no VLANs (partitions are its isolation)"),
    ("IB009", ("pods", "*", "segments", "*", "vlan_base"), "rail VLANs"),
    ("IB010", ("pods", "*", "segments", "*", "rail_prefix_len"), "the rail subnets' IP prefix length"),
    ("IB011", ("pods", "*", "segments", "*", "dual_homing"), "Ethernet dual homing (MLAG/ESI): an HCA port "
     "connects to one switch"),
    ("IB011", ("pods", "*", "segments", "*", "peer_link_ports"), "the MLAG peer link"),
    ("IB012", ("pods", "*", "spines", "port_channel_members"), "L3 port-channels: the SM spreads routes over "
     "parallel links itself"),
    ("IB012", ("pods", "*", "spines", "port_channel_min_links"), "L3 port-channels"),
    ("IB013", ("devices", "*", "asn"), "a pinned BGP ASN"),
    ("IB013", ("devices", "*", "loopback"), "a pinned loopback address"),
    ("IB013", ("devices", "*", "router_id"), "a pinned BGP router-id"),
    ("IB013", ("devices", "*", "management"), "a pinned management address from the Ethernet address plan"),
    ("IB014", ("pods", "*", "segments", "*", "platform"), "the Ethernet switch OS"),
    ("IB014", ("pods", "*", "spines", "platform"), "the Ethernet switch OS"),
    ("IB014", ("super_spines", "platform"), "the Ethernet switch OS"),
    ("IB014", ("devices", "*", "platform"), "the Ethernet switch OS"),
    ("IB014", ("devices", "*", "system"), "the management baseline of an Ethernet switch config"),
    ("IB014", ("devices", "*", "release"), "an Ethernet switch OS release"),
    # Switch-model keys (IB034-IB040): the hardware catalogue's Ethernet facts. An InfiniBand switch model is its
    # ports, speed and latency_ns (and port_blocks' rails and uplinks, which place the cables).
    ("IB034", ("switch_models", "*", "buffers"), "the ASIC's packet-buffer facts for SONiC's lossless (PFC) "
     "buffers: InfiniBand's link-level flow control is credit based, no PFC headroom is planned"),
    ("IB035", ("switch_models", "*", "hwsku"), "the SONiC HwSKU written into an Ethernet switch's config"),
    ("IB036", ("switch_models", "*", "asic"), "the Ethernet ASIC family whose QoS forms an Ethernet platform "
     "writes"),
    ("IB037", ("switch_models", "*", "releases"), "Ethernet switch OS releases per platform"),
    ("IB038", ("switch_models", "*", "port_blocks", "peer_link"), "the MLAG peer-link ports"),
    ("IB039", ("switch_models", "*", "serdes_lanes"), "electrical lanes per port, for Ethernet interface names "
     "and SONiC port lanes: an InfiniBand port is numbered, not named by lanes"),
    ("IB040", ("switch_models", "*", "breakouts"), "Ethernet breakout modes (lanes of one port): the subnet "
     "numbers an InfiniBand switch's logical ports 1..ports, one cable each"),
)


def refused_paths(data: Any) -> list[tuple[str, tuple[Any, ...], str]]:
    """Every Ethernet-only key written in `data` (an infiniband inventory's merged tree): (code, path, meaning)."""
    out: list[tuple[str, tuple[Any, ...], str]] = []
    for code, pattern, meaning in ETHERNET_ONLY:
        out += [(code, path, meaning) for path in _matches(data, pattern, ())]
    return out


def _matches(node: Any, pattern: tuple[str, ...], path: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    if not pattern:
        return [path]
    head, rest = pattern[0], pattern[1:]
    if head == "*":
        items = list(enumerate(node)) if isinstance(node, list) else list(node.items()) if isinstance(node, dict) \
            else []
        return [m for k, v in items for m in _matches(v, rest, (*path, k))]
    if isinstance(node, dict) and head in node:
        return _matches(node[head], rest, (*path, head))
    return []


def without(data: dict[str, Any], paths: list[tuple[Any, ...]]) -> dict[str, Any]:
    """A copy of `data` without the keys at `paths` (copied along each path only; list indices do not move)."""
    out: dict[str, Any] = dict(data)
    for path in paths:
        node: Any = out
        for el in path[:-1]:
            child = node[el]
            child = dict(child) if isinstance(child, dict) else list(child)
            node[el] = child
            node = child
        if isinstance(node, dict):
            node.pop(path[-1], None)
    return out


def kind_of(data: Any) -> str:
    """The fabric kind written in a raw inventory tree ('ethernet' when absent or not readable)."""
    fabric = data.get("fabric") if isinstance(data, dict) else None
    kind = fabric.get("kind") if isinstance(fabric, dict) else None
    return kind if isinstance(kind, str) else "ethernet"
