"""The vendor-neutral device model: one DeviceConfig per switch holding every decision; templates only format.

Built from the intent, the topology and the plan. Platform differences that are decisions (interface names, the MTU
ceiling, port-channel names) are taken here from fabric/platforms.py, so templates never compute anything.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

from fabric.allocate import Plan, Prefix, ntoa
from fabric.buffers import Buffers, device_buffers
from fabric.device_mlag import MLAG_LACP_KEY, MLAG_PEER_GROUP, PEER_VLAN, Mlag, MlagParts, build_mlag
from fabric.device_system import System, build_system
from fabric.intent import Inventory
from fabric.mtu import link_mtu, switch_mtu
from fabric.platforms import PLATFORMS, fec_for
from fabric.topology import MLAG_PEER_CHANNEL, Link, LinkRole, Role, Switch, Topology
from fabric.units import format_speed

PL_REDISTRIBUTE = "PL-LOOPBACK-RAILS"
RM_REDISTRIBUTE = "RM-CONN-TO-BGP"


@dataclass(slots=True)  # not frozen: hundreds of thousands are built at scale; treat as read-only
class Interface:
    name: str
    port: int
    lane: int  # 0 = not broken out
    speed: int  # Gbit/s
    mode: str  # routed | access | member | unused
    admin_up: bool
    description: str
    mtu: int
    ipv4: str | None = None  # a.b.c.d/31 on routed ports
    vlan: int | None = None  # access VLAN on host ports
    channel: str | None = None  # port-channel this member belongs to
    qos: bool = False  # RoCE QoS (trust DSCP, PFC, ECN, scheduler, watchdog) applies
    peer: str = ""  # peer device
    peer_interface: str = ""
    role: str = ""  # host | fabric | core (link role), "" when unused
    breakout: str = ""  # breakout mode of the physical port, e.g. "2x400G"; "" when native
    lanes: tuple[int, ...] = ()  # serdes lanes (sequential numbering: port p owns (p-1)·serdes ...)
    channel_number: int | None = None
    speed_setting: str = ""  # the platform's forced-speed value (EOS "400g-4", SONiC "400000"): platforms.py
    fec: str = "none"  # "rs" | "none": the same at both ends of a link (platforms.fec_for)


@dataclass(frozen=True, slots=True)
class PortChannel:
    name: str
    number: int
    members: tuple[str, ...]
    ipv4: str | None  # a.b.c.d/31 of a routed bundle; None on MLAG host bonds and the peer link
    description: str
    mtu: int
    peer: str
    min_links: int
    mode: str = "routed"  # routed (fabric bundle) | access (MLAG host bond) | trunk (MLAG peer link)
    vlan: int | None = None  # access VLAN of an MLAG host bond
    trunk_vlans: tuple[int, ...] = ()  # VLANs the MLAG peer link carries (the pair's rail VLANs + peer VLAN)
    mlag: int | None = None  # MLAG id of a host bond: its number, the same on both switches of the pair
    role: str = "fabric"  # fabric | host | peer
    lacp_key: str | None = None  # SONiC PORTCHANNEL lacp_key (MLAG port-channels: device_mlag.MLAG_LACP_KEY)


@dataclass(frozen=True, slots=True)
class Vlan:
    id: int
    name: str
    rail: int
    gateway: str  # a.b.c.d/len of the SVI
    prefix: str
    mtu: int
    members: tuple[str, ...]  # untagged: host ports, or MLAG host bonds
    tagged: tuple[str, ...] = ()  # the MLAG peer link
    virtual: bool = False  # the gateway is shared by an MLAG pair (EOS `ip address virtual`, SONiC SAG)


@dataclass(frozen=True, slots=True)
class Neighbor:
    ip: str
    remote_as: int
    description: str
    local_ip: str


@dataclass(frozen=True, slots=True)
class PeerGroup:
    name: str
    remote_as: int | None  # shared by every neighbor of the group, else per neighbor
    bfd: bool
    description: str
    neighbors: tuple[Neighbor, ...]
    next_hop_self: bool = False  # iBGP to the MLAG peer


@dataclass(frozen=True, slots=True)
class Bgp:
    asn: int
    router_id: str
    maximum_paths: int
    multipath_relax: bool
    peer_groups: tuple[PeerGroup, ...]
    aggregates: tuple[str, ...]  # advertised summary-only
    prefix_list: str
    prefix_list_entries: tuple[str, ...]  # what connected routes may be redistributed
    route_map: str


@dataclass(frozen=True, slots=True)
class Ecn:
    min_bytes: int
    max_bytes: int
    probability: int


@dataclass(frozen=True, slots=True)
class Watchdog:
    detection_ms: int
    restoration_ms: int
    poll_ms: int
    action: str


@dataclass(frozen=True, slots=True)
class Qos:
    dscp_to_tc: tuple[int, ...]  # 64 entries: RoCE DSCP → lossless TC, CNP DSCP → strict TC, the rest → 0
    tc_groups: tuple[tuple[int, tuple[int, ...]], ...]  # (tc, dscps) for platforms that list DSCPs per TC
    tc_to_queue: tuple[int, ...]  # 8 entries (identity)
    tc_to_pg: tuple[int, ...]  # 8 entries: lossless TC → its own PG, the rest → PG 0
    lossless: tuple[int, ...]  # PFC priorities
    pfc_to_queue: tuple[tuple[int, int], ...]  # (PFC priority, queue it pauses)
    roce_tc: int
    cnp_tc: int
    roce_dscp: int
    cnp_dscp: int
    ecn: Ecn | None
    strict_queues: tuple[int, ...]
    dwrr: tuple[tuple[int, int], ...]  # (queue, weight)
    watchdog: Watchdog | None


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
    buffers: Buffers | None  # SONiC lossless buffer tables (fabric/buffers.py); None on EOS
    system: System  # management plane and baseline (fabric/device_system.py)
    mlag: Mlag | None = None  # MLAG/MCLAG pair membership (fabric/device_mlag.py)

    def interface(self, name: str) -> Interface:
        for i in self.interfaces:
            if i.name == name:
                return i
        raise KeyError(name)


def build_qos(inv: Inventory) -> Qos:
    q = inv.qos
    dscp = [0] * 64
    dscp[q.roce.dscp] = q.roce.priority
    dscp[q.cnp.dscp] = q.cnp.priority
    groups: dict[int, list[int]] = defaultdict(list)
    for d, tc in enumerate(dscp):
        groups[tc].append(d)
    tc_to_pg = tuple(tc if tc == q.roce.priority else 0 for tc in range(8))
    dwrr = tuple(sorted({(0, q.scheduler.default_weight), (q.roce.priority, q.scheduler.roce_weight)}))
    ecn = Ecn(q.ecn.min_bytes, q.ecn.max_bytes, q.ecn.probability) if q.ecn.enabled else None
    wd = q.pfc_watchdog
    watchdog = Watchdog(wd.detection_ms, wd.restoration_ms, wd.poll_ms, wd.action) if wd.enabled else None
    tc_to_queue = tuple(range(8))
    return Qos(tuple(dscp), tuple((tc, tuple(ds)) for tc, ds in sorted(groups.items())), tc_to_queue, tc_to_pg,
               (q.roce.priority,), ((q.roce.priority, tc_to_queue[q.roce.priority]),), q.roce.priority,
               q.cnp.priority, q.roce.dscp, q.cnp.dscp, ecn, (q.cnp.priority,), dwrr, watchdog)


def _pod_aggregates(inv: Inventory, pod: int) -> tuple[str, ...]:
    """The rail-pool block of pod `pod` (segments_per_pod consecutive segment blocks) as CIDR prefixes."""
    lim = inv.limits
    pool = inv.pools.rail_subnets
    size = 1 << (32 - lim.segment_rail_block)
    start = int(pool.network) + (pod - 1) * lim.segments_per_pod * size
    end = start + lim.segments_per_pod * size
    out = []
    while start < end:
        step = start & -start if start else 1 << 32
        while step > end - start:
            step >>= 1
        out.append(str(Prefix(start, 32 - step.bit_length() + 1)))
        start += step
    return tuple(out)


_GROUP = {  # (my role, peer role) → peer group name and description
    (Role.RAIL, Role.SPINE): ("SPINES", "uplinks to the pod's spines"),
    (Role.SPINE, Role.RAIL): ("RAIL-SWITCHES", "downlinks to rail switches"),
    (Role.SPINE, Role.SUPER_SPINE): ("SUPER-SPINES", "uplinks to the super-spines"),
    (Role.SUPER_SPINE, Role.SPINE): ("SPINES", "downlinks to pod spines"),
    (Role.RAIL, Role.RAIL): (MLAG_PEER_GROUP, "iBGP to the MLAG peer over the peer VLAN"),
}


def build_devices(inv: Inventory, topo: Topology, plan: Plan) -> dict[str, DeviceConfig]:
    """Every switch's DeviceConfig, by hostname, in topology order."""
    qos = build_qos(inv)
    by_device: dict[str, list[tuple[Link, bool]]] = defaultdict(list)  # (link, I am the upper end)
    for link in topo.links:
        by_device[link.z.device].append((link, True))
        if link.role is not LinkRole.HOST:
            by_device[link.a.device].append((link, False))
    for link in topo.peer_links:
        by_device[link.z.device].append((link, True))
        by_device[link.a.device].append((link, False))
    mg = inv.pools.management
    gateway = ntoa(int(mg.gateway)) if mg.gateway is not None else ntoa(int(mg.prefix.network) + 1)
    return {name: _device(inv, topo, plan, sw, by_device.get(name, []), qos, gateway)
            for name, sw in topo.switches.items()}


def _device(inv: Inventory, topo: Topology, plan: Plan, sw: Switch, links: list[tuple[Link, bool]], qos: Qos,
            mgmt_gateway: str) -> DeviceConfig:
    traits = PLATFORMS[sw.platform]
    model = inv.switch_models[sw.model]
    fabric_mtu = inv.fabric.mtu
    mtu = switch_mtu(fabric_mtu, sw.platform)
    mtu_note = (f"fabric mtu {fabric_mtu} normalised to {mtu}, the {sw.platform} maximum"
                if mtu != fabric_mtu else "")
    lower_peers: dict[str, int] = {}  # peer platform → link MTU, where a peer's ceiling is below ours

    def ifname(sw_: Switch, port: int, lane: int, speed: int) -> str:
        m = inv.switch_models[sw_.model]
        return _interface_name(sw_.platform, port, lane, m.speed // speed if lane else 1, m.serdes_lanes)

    used: dict[tuple[int, int], dict] = {}  # (port, lane) → Interface fields, built once at the end
    breakout_of: dict[int, tuple[int, int]] = {}  # port → (lanes, lane speed)
    channels: dict[str, list[tuple[int, int, Link, bool]]] = defaultdict(list)
    neighbors: dict[str, list[Neighbor]] = defaultdict(list)
    peer_roles: dict[str, Role] = {}
    vlan_members: dict[int, list[str]] = defaultdict(list)
    mlag_parts = MlagParts(traits.port_channel)

    for link, upper in links:
        me, peer = (link.z, link.a) if upper else (link.a, link.z)
        name = ifname(sw, me.port, me.lane, me.speed)
        if me.lane:
            breakout_of[me.port] = (model.speed // me.speed, me.speed)
        if link.role is LinkRole.HOST:
            host = topo.hosts[peer.device]
            sub = plan.rail_subnets[(sw.name, link.rail)]  # type: ignore[index]
            spec = used[(me.port, me.lane)] = dict(
                name=name, port=me.port, lane=me.lane, speed=me.speed, mode="access", admin_up=True,
                description=f"{host.name} nic{link.nic} port{peer.port} rail{link.rail}", mtu=mtu, vlan=sub.vlan,
                qos=True, peer=host.name, peer_interface=f"nic{link.nic}p{peer.port}", role="host")
            if link.channel is not None:  # MLAG host bond member: the VLAN goes on the bond
                mlag_parts.host_member(spec, link, sub.vlan)
            else:
                vlan_members[sub.vlan].append(name)
            continue
        psw = topo.switches[peer.device]
        pname = ifname(psw, peer.port, peer.lane, peer.speed)
        if link.role is LinkRole.PEER:
            mlag_parts.peer_member(used.setdefault((me.port, me.lane), dict(
                name=name, port=me.port, lane=me.lane, speed=me.speed, mode="member", admin_up=True,
                description=f"MLAG peer link {psw.name} {pname}", mtu=mtu, qos=True, peer=psw.name,
                peer_interface=pname, role="peer")), link, upper, psw.name)
            continue
        lmtu = link_mtu(fabric_mtu, sw.platform, psw.platform)
        if lmtu < mtu:
            lower_peers[psw.platform] = lmtu
        key = link.bundle or link.id
        upper_ip, lower_ip = plan.p2p_ends(key)
        mine, theirs = (upper_ip, lower_ip) if upper else (lower_ip, upper_ip)
        group, _ = _GROUP[(sw.role, psw.role)]
        peer_roles[group] = psw.role
        if link.bundle:
            channels[link.bundle].append((me.port, me.lane, link, upper))
            used[(me.port, me.lane)] = dict(
                name=name, port=me.port, lane=me.lane, speed=me.speed, mode="member", admin_up=True,
                description=f"{psw.name} {pname}", mtu=lmtu, qos=True, peer=psw.name, peer_interface=pname,
                role=link.role.value)
            if len(channels[link.bundle]) == 1:
                neighbors[group].append(Neighbor(ntoa(theirs), plan.asn[psw.name], psw.name, ntoa(mine)))
            continue
        used[(me.port, me.lane)] = dict(
            name=name, port=me.port, lane=me.lane, speed=me.speed, mode="routed", admin_up=True,
            description=f"{psw.name} {pname}", mtu=lmtu, ipv4=f"{ntoa(mine)}/31", qos=True, peer=psw.name,
            peer_interface=pname, role=link.role.value)
        neighbors[group].append(Neighbor(ntoa(theirs), plan.asn[psw.name], f"{psw.name} {pname}", ntoa(mine)))

    # port-channels: numbered by their first member's port, so the number follows the cabling
    pcs: list[PortChannel] = []
    for bundle, members in channels.items():
        members.sort()
        port, _lane, link, upper = members[0]
        number = port
        pc_name = traits.port_channel(number)
        key = link.bundle or link.id
        upper_ip, lower_ip = plan.p2p_ends(key)
        mine = upper_ip if upper else lower_ip
        peer = link.a.device if upper else link.z.device
        member_names = []
        for p, lane, _l, _u in members:
            spec = used[(p, lane)]
            spec["channel"] = pc_name
            spec["channel_number"] = number
            member_names.append(spec["name"])
        pc_mtu = used[(port, members[0][1])]["mtu"]  # the members' link MTU (both ends' ceiling)
        pcs.append(PortChannel(pc_name, number, tuple(member_names), f"{ntoa(mine)}/31",
                               f"{peer} {bundle.rsplit('#', 1)[1]}", pc_mtu, peer,
                               _min_links(inv, sw.pod, len(member_names))))
    pcs.extend(_mlag_port_channels(mlag_parts, mtu, [plan.rail_subnets[(sw.name, r)].vlan for r in sw.rails]))
    pcs.sort(key=lambda p: p.number)

    # every port of the model: used lanes, the spare lanes of broken-out ports, unused and disabled ports
    interfaces: list[Interface] = []
    for port in range(1, model.ports + 1):
        lanes_speed = breakout_of.get(port)
        lane_ids = range(1, lanes_speed[0] + 1) if lanes_speed else [0]
        mode = f"{lanes_speed[0]}x{format_speed(lanes_speed[1])}" if lanes_speed else ""
        per_lane = model.serdes_lanes // (lanes_speed[0] if lanes_speed else 1)
        for lane in lane_ids:
            first = (port - 1) * model.serdes_lanes + ((lane - 1) * per_lane if lane else 0)
            serdes = tuple(range(first, first + max(per_lane, 1)))
            spec = used.get((port, lane))
            speed = spec["speed"] if spec else lanes_speed[1] if lanes_speed else model.speed
            physical = dict(breakout=mode, lanes=serdes, speed_setting=traits.speed_setting(speed, len(serdes)),
                            fec=fec_for(speed, len(serdes)))
            if spec is not None:
                interfaces.append(Interface(**spec, **physical))
                continue
            disabled = port in sw.disabled_ports
            interfaces.append(Interface(ifname(sw, port, lane, speed), port, lane, speed, "unused", False,
                                        "disabled in inventory" if disabled else "unused", mtu, **physical))
    # beyond-model ports never reach here: the validation stops rendering on PORT001

    vlans = []
    for rail in sw.rails:
        sub = plan.rail_subnets[(sw.name, rail)]
        gw = f"{ntoa(sub.gateway)}/{sub.prefix.length}"
        vlans.append(Vlan(id=sub.vlan, name=f"RAIL{rail}", rail=rail, gateway=gw, prefix=str(sub.prefix), mtu=mtu,
                          members=(*vlan_members.get(sub.vlan, ()), *mlag_parts.bonds_in(sub.vlan)),
                          tagged=mlag_parts.trunk(), virtual=mlag_parts.active))
    mlag = build_mlag(sw, plan, mlag_parts) if mlag_parts.active else None
    if mlag is not None:
        neighbors[MLAG_PEER_GROUP].append(Neighbor(mlag.peer_ip, plan.asn[sw.name], mlag.peer, mlag.local_ip))

    loopback = ntoa(plan.loopback[sw.name])
    groups = []
    for gname in sorted(neighbors, key=lambda g: ("SUPER" not in g, g)):
        nbrs = tuple(sorted(neighbors[gname], key=lambda n: _ip_key(n.ip)))
        asns = {n.remote_as for n in nbrs}
        desc = next(d for (mine_r, _p), (g, d) in _GROUP.items() if g == gname and mine_r is sw.role)
        groups.append(PeerGroup(gname, asns.pop() if len(asns) == 1 else None, inv.routing.bfd, desc, nbrs,
                                next_hop_self=gname == MLAG_PEER_GROUP))
    aggregates: tuple[str, ...] = ()
    if sw.name in plan.aggregates:
        aggregates = (str(plan.aggregates[sw.name]),)
    elif sw.role is Role.SPINE and inv.routing.spine_pod_aggregate and sw.pod is not None:
        aggregates = _pod_aggregates(inv, sw.pod)
    if lower_peers:
        mtu_note = "; ".join(filter(None, (mtu_note, *(f"links to {p} peers run at {m}, the {p} maximum"
                                                      for p, m in sorted(lower_peers.items())))))
    entries = (f"{loopback}/32", *(v.prefix for v in vlans))
    bgp = Bgp(plan.asn[sw.name], loopback, inv.routing.ecmp.width, traits.multipath_relax, tuple(groups),
              aggregates, PL_REDISTRIBUTE, entries, RM_REDISTRIBUTE)
    return DeviceConfig(
        sw.name, sw.platform, sw.role.value, sw.pod, sw.segment, sw.rails, sw.model, model.hwsku, sw.rack,
        f"{loopback}/32", loopback, plan.asn[sw.name], f"{ntoa(plan.management[sw.name])}/{plan.management_len}",
        mgmt_gateway, mtu, mtu_note, inv.fabric.host_mtu, tuple(interfaces), tuple(pcs), tuple(vlans), bgp, qos,
        inv.routing.ecmp.mode.value, inv.routing.bfd, device_buffers(inv, sw.platform, model, interfaces, qos),
        build_system(inv, sw.key, sw.platform, ntoa(plan.management[sw.name])), mlag)


def _mlag_port_channels(parts: MlagParts, mtu: int, rail_vlans: list[int]) -> list[PortChannel]:
    """MLAG host bonds (access, one member here, its twin on the peer) and the peer link (trunk)."""
    out = [PortChannel(parts.port_channel_name(n), n, (member,), None, desc, mtu, host, 1, mode="access", vlan=vlan,
                       mlag=n, role="host", lacp_key=MLAG_LACP_KEY)
           for n, (member, vlan, host, desc) in sorted(parts.bonds.items())]
    if parts.peer_members:
        out.append(PortChannel(parts.port_channel_name(MLAG_PEER_CHANNEL), MLAG_PEER_CHANNEL,
                               tuple(parts.peer_members), None, f"MLAG peer link {parts.peer}", mtu, parts.peer, 1,
                               mode="trunk", trunk_vlans=(*sorted(rail_vlans), PEER_VLAN), role="peer",
                               lacp_key=MLAG_LACP_KEY))
    return out


@lru_cache(maxsize=1 << 16)
def _interface_name(platform: str, port: int, lane: int, lanes: int, serdes: int) -> str:
    """Interface names repeat across thousands of identical switches: compute each once."""
    return PLATFORMS[platform].interface(port, lane, lanes, serdes)


def _min_links(inv: Inventory, pod_id: int | None, members: int) -> int:
    """The pod's spines.port_channel_min_links (default: every member; the failure analysis assumes the same)."""
    pod = next((p for p in inv.pods if p.id == pod_id), None)
    if pod is None or pod.spines is None:
        return members
    return min(pod.spines.min_links(), members)


def _ip_key(ip: str) -> tuple[int, ...]:
    return tuple(int(x) for x in ip.split("."))
