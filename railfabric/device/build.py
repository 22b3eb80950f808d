"""build_devices: every switch's DeviceConfig, from the intent, the topology and the plan.

The orchestration only: fabric-wide values are computed once (QoS, the management gateway, each switch's links),
parts shared by many switches once per group (`Shared`: each link's two sides, per-pod min-links, the management
plane per platform and override), then per switch the link walk (links.py) feeds the section builders
(port_channels, interfaces, vlans, mlag, routing, buffers, system). Platform differences that are decisions
(interface names, the MTU ceiling, the port-channel and loopback names) come from the platform registry
(railfabric/platforms/).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace

from railfabric.core.address import aton, ntoa
from railfabric.core.address6 import ntoa6
from railfabric.device.buffers import device_buffers
from railfabric.device.drain import gshut_receipt
from railfabric.device.interfaces import build_interfaces_shaped
from railfabric.device.links import SwitchLinks, switch_links, walk_fabric
from railfabric.device.load_balancing import load_balancing
from railfabric.device.mlag import MLAG_PEER_GROUP, build_mlag, mlag_port_channels
from railfabric.device.model import DeviceConfig
from railfabric.device.port_channels import fabric_port_channels, min_links_limit
from railfabric.device.qos import Qos, build_qos
from railfabric.device.raw import raw_of
from railfabric.device.release import release_of
from railfabric.device.routing import Neighbor, aggregates_of, build_bgp, peer_groups_keyed
from railfabric.device.routing_v6 import aggregates_v6, build_bgp_v6
from railfabric.device.sessions import TierOptions, session_options
from railfabric.device.system import System, system_template, with_address
from railfabric.device.vlans import build_vlans
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_routing import SessionTier
from railfabric.plan.allocate import Plan
from railfabric.plan.drain import PREPEND_PLAN, DrainPlan, drain_plan
from railfabric.plan.mtu import switch_mtu
from railfabric.platforms import PLATFORMS, Platform
from railfabric.platforms.asic import QueueForm
from railfabric.topology import Switch, Topology


@dataclass(slots=True)
class Shared:
    """What build_devices decides once and every switch reuses: fabric-wide values (QoS, the management gateway),
    each pod's port-channel min-links, and the management
    plane per group of switches that share it (system.system_template)."""

    qos: Qos
    gateway: str
    min_links: dict[int | None, int | None] = field(default_factory=dict)
    systems: dict[tuple[str | None, str], System] = field(default_factory=dict)
    drain: DrainPlan = PREPEND_PLAN  # the fabric's drain, decided in build_devices
    sessions: dict[SessionTier, TierOptions] = field(default_factory=dict)  # BFD timers and key per session tier

    @classmethod
    def of(cls, inv: Inventory, plan: Plan) -> Shared:
        # the gateway is decided once, in allocate
        return cls(build_qos(inv), ntoa(plan.management_gateway), sessions=session_options(inv.routing))

    def min_links_of(self, inv: Inventory, pod: int | None) -> int | None:
        if pod not in self.min_links:
            self.min_links[pod] = min_links_limit(inv, pod)
        return self.min_links[pod]

    def system_of(self, inv: Inventory, sw: Switch, management_ip: str) -> System:
        """The switch's System: the template of its group (its own `devices:` system override, or none: the
        fabric's settings; and its platform) with its management address."""
        override = inv.devices.get(sw.key)
        group = (sw.key if override is not None and override.system is not None else None, sw.platform)
        template = self.systems.get(group)
        if template is None:
            template = self.systems[group] = system_template(inv, sw.key, sw.platform)
        return with_address(template, management_ip)


def build_devices(inv: Inventory, topo: Topology, plan: Plan,
                  done: Callable[[int], object] | None = None,
                  only: Collection[str] | None = None) -> dict[str, DeviceConfig]:
    """Every switch's DeviceConfig, by hostname, in topology order (`done(1)` after each, for progress); with `only`,
    the DeviceConfigs of those switches alone (the links of every switch are still walked: each side needs the
    other's)."""
    shared = Shared.of(inv, plan)
    shared.drain = drain_plan(inv.routing.drain, {sw.platform for sw in topo.switches.values()})
    found = {name: switch_links(inv, sw, switch_mtu(inv.fabric.mtu, sw.platform), PLATFORMS[sw.platform].port_channel)
             for name, sw in topo.switches.items()}
    walk_fabric(inv, topo, plan, found, topo.links, topo.peer_links)
    out: dict[str, DeviceConfig] = {}
    for name, sw in topo.switches.items():
        if only is not None and name not in only:
            continue
        out[name] = build_device(inv, plan, sw, found.pop(name), shared)
        if done is not None:
            done(1)
    return out


def mtu_note(fabric_mtu: int, mtu: int, platform: str, lower_peers: dict[str, int]) -> str:
    """Why the switch's MTUs differ from the fabric MTU: its own platform ceiling, then each peer platform whose
    lower ceiling its links run at; "" when nothing differs."""
    own = f"fabric mtu {fabric_mtu} normalised to {mtu}, the {platform} maximum" if mtu != fabric_mtu else ""
    peers = (f"links to {p} peers run at {m}, the {p} maximum" for p, m in sorted(lower_peers.items()))
    return "; ".join(filter(None, (own, *peers)))


def build_device(inv: Inventory, plan: Plan, sw: Switch, found: SwitchLinks, shared: Shared) -> DeviceConfig:
    """The DeviceConfig of one switch from what its links gave (links.walk_fabric); `shared` what build_devices
    decided once for all switches."""
    traits = PLATFORMS[sw.platform]
    model, mtu = found.model, found.mtu
    subnets = [plan.rail_subnets[(sw.name, r)] for r in sw.rails]
    pcs = fabric_port_channels(found.channels, found.used, plan, traits.port_channel,
                               shared.min_links_of(inv, sw.pod))
    for bundle, pc in zip(found.channels, pcs, strict=True):  # unnumbered bundles: the session runs over the bundle
        if bundle in found.bundle_neighbors:
            nb, peer_platform = found.bundle_neighbors[bundle]
            nb.interface = pc.name
            # the peer's port-channel is numbered by its lowest member port, as this one (port_channels.py)
            peer_ports = [(link.a if upper else link.z).port for _p, _l, link, upper in found.channels[bundle]]
            nb.peer_interface = PLATFORMS[peer_platform].port_channel(min(peer_ports))
    pcs.extend(mlag_port_channels(found.mlag, mtu, [s.vlan for s in subnets]))
    pcs.sort(key=lambda p: p.number)
    interfaces, shape = build_interfaces_shaped(sw, model, found.used, found.breakout_of, mtu)
    v6 = plan.v6
    subnets6 = [v6.rail_subnets.get((sw.name, r)) for r in sw.rails] if v6 is not None else []
    vlans = build_vlans(subnets, mtu, found.vlan_members, found.mlag, subnets6)
    mlag = build_mlag(sw, plan, found.mlag, traits.mlag_peer_interface) if found.mlag.active else None
    if mlag is not None:
        found.neighbors[MLAG_PEER_GROUP].append(
            (aton(mlag.peer_ip), Neighbor(mlag.peer_ip, plan.asn[sw.name], mlag.peer, mlag.local_ip)))
    loopback = ntoa(plan.loopback[sw.name])
    router_id = ntoa(plan.router_id[sw.name])
    groups = peer_groups_keyed(sw.role, found.neighbors, inv.routing.bfd, shared.sessions)
    bgp = build_bgp(plan.asn[sw.name], loopback, groups, aggregates_of(inv, plan, sw), tuple(v.prefix for v in vlans),
                    inv.routing.ecmp.width, traits.multipath_relax, router_id,
                    gshut_receipt(shared.drain, traits, [g.name for g in groups]))
    loopback6 = ""
    if v6 is not None:
        loopback6 = f"{ntoa6(v6.loopback[sw.name])}/128"
        bgp = replace(bgp, ipv6=build_bgp_v6(loopback6, tuple(v.prefix_v6 for v in vlans if v.prefix_v6),
                                             aggregates_v6(inv, v6, sw)))
    management_ip = ntoa(plan.management[sw.name])
    return DeviceConfig(
        hostname=sw.name, platform=sw.platform, role=sw.role.value, pod=sw.pod, segment=sw.segment, rails=sw.rails,
        model=sw.model, hwsku=model.hwsku, rack=sw.rack, loopback=f"{loopback}/32",
        loopback_interface=traits.loopback_interface, router_id=router_id, asn=plan.asn[sw.name],
        management=f"{management_ip}/{plan.management_len}", management_gateway=shared.gateway,
        mtu=mtu, mtu_note=mtu_note(inv.fabric.mtu, mtu, sw.platform, found.lower_peers),
        host_mtu=inv.fabric.host_mtu, interfaces=interfaces, port_channels=tuple(pcs), vlans=vlans, bgp=bgp,
        qos=shared.qos, ecmp_mode=inv.routing.ecmp.mode.value, bfd=inv.routing.bfd,
        buffers=device_buffers(inv, sw.platform, model, interfaces, shared.qos, shape),
        system=shared.system_of(inv, sw, management_ip), mlag=mlag, release=release_of(inv, sw),
        queue_form=queue_form(traits, model.asic), raw=raw_of(inv, sw), drain=shared.drain,
        load_balancing=load_balancing(inv.routing.ecmp), loopback_v6=loopback6)


def queue_form(traits: Platform, asic: str | None) -> QueueForm | None:
    """The platform's per-queue QoS form for the model's ASIC family; None where the platform has a single form
    (no queue_forms) or the family has none there (HW006/HW007 refused that inventory before devices are built)."""
    return traits.queue_forms.get(asic) if traits.queue_forms and asic is not None else None
