"""DeviceConfig: one switch's whole vendor-neutral configuration, one record per section (built by
railfabric/device/build.py from the section builders of this package). Templates only format it."""

from __future__ import annotations

from dataclasses import dataclass

from railfabric.device.interfaces import Interface
from railfabric.device.load_balancing import FLOW_HASH, LoadBalancing
from railfabric.device.mlag import Mlag
from railfabric.device.port_channels import PortChannel
from railfabric.device.qos import Qos
from railfabric.device.raw import RawConfig
from railfabric.device.routing import Bgp
from railfabric.device.system import System
from railfabric.device.vlans import Vlan
from railfabric.plan.buffers import Buffers
from railfabric.plan.drain import PREPEND_PLAN, DrainPlan
from railfabric.platforms.asic import QueueForm


@dataclass(frozen=True, slots=True)
class DeviceConfig:
    hostname: str
    platform: str
    role: str
    pod: int | None
    segment: int | None
    rails: tuple[int, ...]
    model: str
    hwsku: str | None
    rack: str | None
    loopback: str  # a.b.c.d/32
    loopback_interface: str  # the platform's loopback interface name (railfabric/platforms/<name>.py)
    router_id: str
    asn: int
    management: str  # a.b.c.d/len
    management_gateway: str
    mtu: int  # normalised for the platform
    mtu_note: str  # why the MTU differs from the fabric MTU, or ""
    host_mtu: int
    interfaces: tuple[Interface, ...]
    port_channels: tuple[PortChannel, ...]
    vlans: tuple[Vlan, ...]
    bgp: Bgp
    qos: Qos
    ecmp_mode: str
    bfd: bool
    buffers: Buffers | None  # SONiC lossless buffer tables (railfabric/plan/buffers.py); None on EOS
    system: System  # management plane and baseline (railfabric/device/system.py)
    mlag: Mlag | None = None  # MLAG/MCLAG pair membership (railfabric/device/mlag.py)
    release: str = ""  # the OS release its files are rendered for (railfabric/device/release.py); "" = no choice
    # the per-queue QoS form of the switch's ASIC family on its platform (queue keyword, MMU profile:
    # railfabric/platforms/<platform>_asic.py); None where the platform has one form for every family
    queue_form: QueueForm | None = None
    # raw configuration blocks that apply to the switch, in merge order (railfabric/device/raw.py)
    raw: tuple[RawConfig, ...] = ()
    # the rollout's drain of the whole fabric and why (railfabric/plan/drain.py): graceful-shutdown | as-path-prepend
    drain: DrainPlan = PREPEND_PLAN
    # ECMP load balancing beyond the mode: hash fields, flowlet interval, adaptive-routing threshold (lb30,
    # railfabric/device/load_balancing.py); the default renders nothing
    load_balancing: LoadBalancing = FLOW_HASH
    # dual-stack (routing.address_families with ipv6): the loopback's IPv6 address with its /128 ("" = IPv4-only);
    # the rail SVIs' IPv6 addresses are on the Vlans, the IPv6 family of BGP is bgp.ipv6
    loopback_v6: str = ""

    @property
    def ipv6(self) -> bool:
        """Dual-stack: fabric links carry the IPv6 link-local next hops of the IPv6 routes."""
        return bool(self.loopback_v6)

    def interface(self, name: str) -> Interface:
        for i in self.interfaces:
            if i.name == name:
                return i
        raise KeyError(name)
