"""Expand the intent into a concrete topology: switches, hosts and links with both ends.

Expansion is total for an inventory that passed the intent rules (models exist, rails group correctly):
ports that do not exist on a model are still numbered (above the model's port count) so that the checks can
say how many more are needed instead of failing half-way.

Identity and order: everything is sorted by declared identity (pod id, segment id, switch index, host number),
never by list position, so reordering the YAML changes nothing.

Port rules (logical port numbers; platform interface names come with rendering):
- rail switch host ports follow the model's rail port blocks (rail slot i → port_blocks.rails[i]); without blocks
  they run consecutively from port 1, host-major (host 1 rails..., host 2 rails...), so adding hosts appends;
- rail switch and spine uplinks take the uplink ports (port_blocks.uplinks, default the upper half), ascending by
  uplink index u = (upper switch index - 1) × links + link, which depends on identity only;
- downlinks (rail switch host ports without blocks, spine downlinks under super-spines) are the ports outside the
  uplink block; super-spines use every port;
- spine and super-spine downlinks run from port 1 in identity order of the lower switch (append-stable); with
  spines.ports_per_segment / super_spines.ports_per_pod they start at (id-1)·N+1 per segment / pod, so
  inserting a segment or pod with a lower id never moves an existing cable;
- MLAG (`dual_homing: mlag`): each rail group is a pair of switches (side a, b) joined by a peer link of
  `peer_link_ports` (default 2) native ports: port_blocks.peer_link, else the highest-numbered ports outside the
  uplinks and rail blocks (taken off the top of the host ports when the model has no rail blocks), the same ports
  on both sides; both links of a NIC form one bond, numbered MLAG_CHANNEL_BASE + its host position;
- a breakout puts `lanes` logical ports on one physical port (lane 1..n);
- a disabled port keeps its place in the sequence: the link(s) it would carry are taken off (`Topology.off`,
  reported as PORT005) and nothing else moves. A `cabling:` entry puts such a host link back on another port.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from fabric.intent import DualHoming, Inventory, RailDesign, Segment, SwitchModel
from fabric.units import expand_pattern, lanes_at


class Role(StrEnum):
    SUPER_SPINE = "super-spine"
    SPINE = "spine"
    RAIL = "rail"


MLAG_CHANNEL_BASE = 1000  # MLAG host bonds are port-channels 1001..: clear of fabric bundles (numbered by port)
MLAG_PEER_CHANNEL = 1000  # the peer link's port-channel


class LinkRole(StrEnum):
    HOST = "host"  # host NIC port → rail switch
    FABRIC = "fabric"  # rail switch → spine
    CORE = "core"  # spine → super-spine
    PEER = "peer"  # MLAG peer link: side a → side b of a rail group (Topology.peer_links)


@dataclass(slots=True)
class Switch:
    key: str  # the pattern name: stable identity, key of `devices:` overrides
    name: str  # hostname (override or key)
    role: Role
    pod: int | None
    segment: int | None
    index: int  # 1-based: super-spines fabric-wide, spines per pod, rail switches per segment
    model: str
    platform: str
    slot: int  # device slot of the address plan (loopback, management, ASN)
    tier_slot: int  # slot inside its tier (uplink /31s)
    src: tuple  # inventory path of the object that declares it
    rails: tuple[int, ...] = ()
    side: int | None = None  # 0 / 1 for dual-homed rail switches
    group: int | None = None  # rail group (0-based) inside the segment
    plane: int | None = None
    rack: str | None = None
    management: int | None = None  # pinned management address (int), if any
    disabled_ports: frozenset[int] = frozenset()
    overridden: bool = False


@dataclass(slots=True)
class Host:
    name: str
    pod: int
    segment: int
    number: int  # host number inside the segment (1-based): decides ports and addresses
    model: str
    gpus: int
    nics: int
    src: tuple


class End(NamedTuple):
    """One end of a link (a tuple: immutable and cheap, there are hundreds of thousands)."""

    device: str
    port: int  # physical port (switches) or NIC port (hosts: 1-based)
    lane: int  # breakout lane 1..n, 0 when the port is not broken out
    speed: int  # Gbit/s

    def label(self) -> str:
        return f"{self.port}/{self.lane}" if self.lane else str(self.port)


@dataclass(slots=True)
class Link:
    id: str
    role: LinkRole
    a: End  # lower end: host, rail switch or spine
    z: End  # upper end: rail switch, spine or super-spine
    rail: int | None = None
    nic: int | None = None  # NIC index = local rank of the rail
    host_number: int | None = None
    bundle: str | None = None  # L3 port-channel id, members share one /31
    net_slot: int | None = None  # /31 slot of the fabric-links pool (routed links and bundles)
    channel: int | None = None  # MLAG host bond: port-channel number and MLAG id, the same on both switches


@dataclass(slots=True)
class SegmentInfo:
    pod: int
    id: int
    src: tuple
    design: RailDesign
    rails: int
    groups: tuple[tuple[int, ...], ...]  # rails served by each rail group
    sides: int  # 1, or 2 when dual-homed
    dual_homing: DualHoming | None
    prefix_len: int
    vlan_base: int
    switches: tuple[str, ...]  # rail switch names by index
    host_numbers: tuple[int, ...]
    rails_per_switch: int


@dataclass
class Topology:
    switches: dict[str, Switch] = field(default_factory=dict)
    hosts: dict[str, Host] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    # MLAG peer links (side a → side b of each rail group of a `dual_homing: mlag` segment), kept apart from
    # `links` because they carry no planned traffic: the solver's capacity and paths never see them
    peer_links: list[Link] = field(default_factory=list)
    segments: list[SegmentInfo] = field(default_factory=list)
    name_clashes: list[tuple[str, tuple, tuple]] = field(default_factory=list)
    # (inventory path of the object, message, path of the stride setting) for port strides that are too small
    stride_overflows: list[tuple[tuple, str, tuple]] = field(default_factory=list)
    # explicit cables that name a host NIC port or switch that does not exist: (inventory path, message)
    bad_cables: list[tuple[tuple, str]] = field(default_factory=list)
    pinned: set[str] = field(default_factory=set)  # ids of host links placed by `cabling:`
    # links taken off because their generated port is disabled: (link, position it had in `links`, disabled end)
    off: list[tuple[Link, int, End]] = field(default_factory=list)

    def add(self, link: Link, disabled_end: End | None) -> None:
        """Place `link`, or take it off when one of its generated ports is disabled (nothing else moves)."""
        if disabled_end is None:
            self.links.append(link)
        else:
            self.off.append((link, len(self.links), disabled_end))

    def by_role(self, role: Role) -> Iterator[Switch]:
        return (s for s in self.switches.values() if s.role is role)


# --------------------------------------------------------------------------- helpers


def rail_groups(seg: Segment) -> tuple[tuple[int, ...], ...]:
    """Rails served by each switch group of a segment (validated by the intent rules)."""
    if seg.rail_groups is not None:
        return tuple(tuple(g) for g in seg.rail_groups)
    per = per_switch(seg)
    return tuple(tuple(range(i, min(i + per, seg.rails))) for i in range(0, seg.rails, per))


def per_switch(seg: Segment) -> int:
    if seg.rail_design is RailDesign.SINGLE:
        return 1
    if seg.rail_design is RailDesign.DUAL:
        return 2
    return seg.rails_per_switch or seg.rails


def lanes_for(model: SwitchModel, speed: int) -> int:
    """Logical ports per physical port when running at `speed` (1 = native; 0 = impossible)."""
    return lanes_at(model.speed, model.breakouts, speed)


def host_numbers(seg: Segment) -> list[tuple[int, int, int]]:
    """(host number, group index, index in group) for every host of a segment, by host number."""
    out = []
    for gi, g in enumerate(seg.host_groups):
        first = g.first if g.first is not None else 1
        out.extend((first + i, gi, i) for i in range(g.count))
    out.sort()
    return out


class _Ports:
    """Hands out (physical port, lane) positions from an ordered list of candidate ports. Disabled ports keep their
    position (the caller takes their links off), so disabling one port moves no other link; positions past the
    list get numbers above the model's port count so checks can count them."""

    def __init__(self, candidates: tuple[int, ...] | list[int], disabled: frozenset[int], lanes: int,
                 overflow_base: int) -> None:
        self.ports = tuple(candidates)
        self.disabled = disabled
        self.lanes = max(lanes, 1)
        self.breakout = lanes > 1
        self.overflow_base = overflow_base

    def at(self, position: int) -> tuple[int, int]:
        q, r = divmod(position, self.lanes)
        port = self.ports[q] if q < len(self.ports) else self.overflow_base + (q - len(self.ports)) + 1
        return port, (r + 1 if self.breakout else 0)


def uplink_candidates(model: SwitchModel) -> tuple[int, ...]:
    """Ports towards the next tier up: port_blocks.uplinks, default the upper half."""
    if model.port_blocks and model.port_blocks.uplinks:
        return tuple(model.port_blocks.uplinks)
    return tuple(range(model.ports // 2 + 1, model.ports + 1))


def downlink_candidates(model: SwitchModel, has_uplinks: bool) -> tuple[int, ...]:
    """Ports towards the tier below (hosts of a rail switch without rail blocks, rail switches of a spine): every
    port outside the uplink block when the switch has uplinks, else every port."""
    if not has_uplinks:
        return tuple(range(1, model.ports + 1))
    up = set(uplink_candidates(model))
    return tuple(p for p in range(1, model.ports + 1) if p not in up)


def host_candidates(model: SwitchModel, slot: int, has_uplinks: bool, peer_ports: int = 0) -> tuple[int, ...]:
    """Host ports of rail slot `slot`: the model's rail block when it declares blocks, else the downlink ports
    (less the MLAG peer-link ports when `peer_ports` > 0)."""
    blocks = model.port_blocks.rails if model.port_blocks else []
    if blocks:
        return tuple(blocks[slot]) if slot < len(blocks) else ()
    down = downlink_candidates(model, has_uplinks)
    if peer_ports:
        peer = set(peer_link_candidates(model, has_uplinks, peer_ports))
        return tuple(p for p in down if p not in peer)
    return down


def peer_link_candidates(model: SwitchModel, has_uplinks: bool, count: int) -> tuple[int, ...]:
    """MLAG peer-link ports: port_blocks.peer_link, else the `count` highest-numbered ports outside the uplinks
    and the rail blocks (with no rail blocks they are taken off the top of the host ports)."""
    if model.port_blocks and model.port_blocks.peer_link:
        return tuple(model.port_blocks.peer_link)
    taken: set[int] = set(uplink_candidates(model)) if has_uplinks else set()
    for block in (model.port_blocks.rails if model.port_blocks else []):
        taken.update(block)
    free = [p for p in range(1, model.ports + 1) if p not in taken]
    return tuple(free[-count:]) if count else ()


def _off(end: End, ports: _Ports) -> End | None:
    return end if end.port in ports.disabled else None


# --------------------------------------------------------------------------- expansion


def expand(inv: Inventory) -> Topology:
    topo = Topology()
    lim = inv.limits
    ss_cfg = inv.super_spines
    n_ss = ss_cfg.count if ss_cfg else 0
    overrides = inv.devices

    def make(sw: Switch) -> Switch:
        ov = overrides.get(sw.key)
        if ov is not None:
            sw.overridden = True
            if ov.hostname:
                sw.name = ov.hostname
            if ov.platform:
                sw.platform = ov.platform.value
            if ov.model:
                sw.model = ov.model
            sw.rack = ov.rack
            sw.management = int(ov.management) if ov.management is not None else None
            sw.disabled_ports = frozenset(ov.disabled_ports)
        if sw.name in topo.switches:
            topo.name_clashes.append((sw.name, topo.switches[sw.name].src, sw.src))
            sw.name = f"{sw.name}~{sw.slot}"  # keep both so the checks can report the clash
        topo.switches[sw.name] = sw
        return sw

    # super-spines
    supers: list[Switch] = []
    if ss_cfg:
        planes = ss_cfg.planes or 1
        for i in range(1, n_ss + 1):
            plane = (i - 1) % planes + 1
            key = expand_pattern(ss_cfg.name, index=i, plane=plane)
            supers.append(make(Switch(key, key, Role.SUPER_SPINE, None, None, i, ss_cfg.model,
                                      (ss_cfg.platform or inv.fabric.platform).value, slot=i - 1,
                                      tier_slot=i - 1, src=("super_spines",),
                                      plane=plane if ss_cfg.planes else None)))
    ss_down_pos: dict[str, int] = {s.name: 0 for s in supers}
    ss_down: dict[tuple[str, int], _Ports] = {}

    add_link = topo.add
    place = topo.links.append  # the hot path: host links on enabled ports
    rail_tier_base = lim.super_spines + lim.pods * lim.spines_per_pod
    core_net_base = lim.pods * lim.segments_per_pod * lim.rail_switches_per_segment * lim.uplinks_per_rail_switch
    peer_net_base = core_net_base + lim.pods * lim.spines_per_pod * lim.uplinks_per_spine

    pods = sorted(enumerate(inv.pods), key=lambda t: t[1].id)
    for pi, pod in pods:
        p = pod.id
        spines: list[Switch] = []
        sp = pod.spines
        if sp:
            planes = (ss_cfg.planes if ss_cfg else None) or 1
            for j in range(1, sp.count + 1):
                plane = (j - 1) % planes + 1
                key = expand_pattern(sp.name, pod=p, index=j, plane=plane)
                tier = (p - 1) * lim.spines_per_pod + (j - 1)
                spines.append(make(Switch(key, key, Role.SPINE, p, None, j, sp.model,
                                          (sp.platform or inv.fabric.platform).value, slot=lim.super_spines + tier,
                                          tier_slot=tier, src=("pods", pi, "spines"),
                                          plane=plane if ss_cfg and ss_cfg.planes else None)))
        spine_down_pos = {s.name: 0 for s in spines}
        seg_switches: list[tuple[SegmentInfo, list[Switch]]] = []

        for si, seg in sorted(enumerate(pod.segments), key=lambda t: t[1].id):
            s = seg.id
            src = ("pods", pi, "segments", si)
            groups = rail_groups(seg)
            host_model = inv.host_models[seg.host_groups[0].model]
            dual = host_model.ports_per_nic == 2
            sides = 2 if dual else 1
            mlag = dual and seg.dual_homing is DualHoming.MLAG
            peer_ports = (seg.peer_link_ports or 2) if mlag else 0
            switches: list[Switch] = []
            for g, rails in enumerate(groups):
                for side in range(sides):
                    k = g * sides + side + 1
                    key = expand_pattern(seg.rail_switch_name, pod=p, segment=s, rail=rails[0],
                                         rails="-".join(str(r) for r in rails), index=k,
                                         side=("ab"[side] if dual else ""))
                    tier = ((p - 1) * lim.segments_per_pod + (s - 1)) * lim.rail_switches_per_segment + (k - 1)
                    switches.append(make(Switch(key, key, Role.RAIL, p, s, k, seg.rail_switch_model,
                                                (seg.platform or inv.fabric.platform).value,
                                                slot=rail_tier_base + tier, tier_slot=tier, src=src, rails=rails,
                                                side=side if dual else None, group=g)))
            hosts = host_numbers(seg)
            info = SegmentInfo(p, s, src, seg.rail_design, seg.rails, groups, sides, seg.dual_homing,
                               seg.rail_prefix_len, seg.vlan_base or inv.fabric.rail_vlan_base,
                               tuple(sw.name for sw in switches), tuple(h for h, _, _ in hosts), per_switch(seg))
            topo.segments.append(info)
            seg_switches.append((info, switches))

            # hosts and host links
            group_sw = [switches[g * sides:(g + 1) * sides] for g in range(len(groups))]
            rail_slot = {r: (g, i) for g, rails in enumerate(groups) for i, r in enumerate(rails)}
            port_alloc: dict[tuple[str, int], _Ports] = {}
            for sw in switches:
                model = inv.switch_models[sw.model]
                lanes = lanes_for(model, host_model.nic_speed) or 1
                for i in range(len(sw.rails)):
                    port_alloc[(sw.name, i)] = _Ports(host_candidates(model, i, sp is not None, peer_ports),
                                                      sw.disabled_ports, lanes, model.ports)
            m = len(groups[0]) if groups else 1
            uses_blocks = {sw.name: blocks_for(inv, sw) for sw in switches}
            for number, gi, _idx in hosts:
                hg = seg.host_groups[gi]
                hm = inv.host_models[hg.model]
                hname = expand_pattern(hg.name, pod=p, segment=s, host=number)
                hsrc = (*src, "host_groups", gi)
                if hname in topo.hosts:
                    topo.name_clashes.append((hname, topo.hosts[hname].src, hsrc))
                    hname = f"{hname}~{p}.{s}.{number}"
                topo.hosts[hname] = Host(hname, p, s, number, hg.model, hm.gpus, hm.nics, hsrc)
                speed = hm.nic_speed
                for nic in range(hm.nics):
                    if nic not in rail_slot:
                        continue  # rails-vs-NICs is reported by the intent rules
                    g, i = rail_slot[nic]
                    for side, sw in enumerate(group_sw[g]):
                        swname = sw.name
                        position = (number - 1) if uses_blocks[swname] else (number - 1) * m + i
                        ports = port_alloc[(swname, i)]
                        port, lane = ports.at(position)
                        z = End(swname, port, lane, speed)
                        host_link = Link(f"{hname}:nic{nic}p{side + 1}", LinkRole.HOST,
                                         End(hname, side + 1, 0, speed), z, nic, nic, number)
                        if mlag:  # one LACP bond per NIC over both switches: same number on both
                            host_link.bundle = f"{hname}:nic{nic}"
                            host_link.channel = MLAG_CHANNEL_BASE + (number - 1) * m + i + 1
                        if port in ports.disabled:
                            add_link(host_link, z)
                        else:
                            place(host_link)
            if mlag:
                _peer_links(inv, topo, group_sw, peer_ports, sp is not None, peer_net_base)

        # rail switch ↔ spine links
        if sp:
            stride = sp.ports_per_segment
            spine_down = {}
            for spine in spines:
                smodel = inv.switch_models[spine.model]
                spine_down[spine.name] = _Ports(downlink_candidates(smodel, ss_cfg is not None), spine.disabled_ports,
                                                lanes_for(smodel, sp.link_speed) or 1, smodel.ports)
            seg_by_id = {x.id: x for x in pod.segments}
            for info, switches in seg_switches:
                seg = seg_by_id[info.id]
                per_spine = seg.links_per_spine or sp.links_per_rail_switch
                if stride:
                    for spine in spines:
                        spine_down_pos[spine.name] = (info.id - 1) * stride
                    need = len(switches) * per_spine
                    if need > stride:
                        topo.stride_overflows.append((info.src, f"segment {p}/{info.id} needs {need} downlink "
                                                      f"ports on each spine but spines.ports_per_segment is {stride}",
                                                      ("pods", pi, "spines", "ports_per_segment")))
                for sw in switches:
                    model = inv.switch_models[sw.model]
                    up = _uplink_ports(model, sw, lanes_for(model, sp.link_speed) or 1)
                    for spine in spines:
                        down = spine_down[spine.name]
                        for link in range(per_spine):
                            u = (spine.index - 1) * per_spine + link
                            port, lane = up.at(u)
                            sport, slane = down.at(spine_down_pos[spine.name])
                            spine_down_pos[spine.name] += 1
                            bundle = None
                            slot_u = u
                            if sp.port_channel_members:
                                c = link // sp.port_channel_members
                                bundle = f"{sw.name}>{spine.name}#pc{c + 1}"
                                slot_u = (spine.index - 1) * per_spine + c * sp.port_channel_members
                            a, z = End(sw.name, port, lane, sp.link_speed), End(spine.name, sport, slane, sp.link_speed)
                            add_link(Link(f"{sw.name}>{spine.name}#{link + 1}", LinkRole.FABRIC, a, z, bundle=bundle,
                                          net_slot=sw.tier_slot * lim.uplinks_per_rail_switch + slot_u),
                                     _off(a, up) or _off(z, down))

        # spine ↔ super-spine links
        if sp and supers:
            speed = sp.super_spine_link_speed or sp.link_speed
            planes = ss_cfg.planes if ss_cfg else None
            for sup in supers:
                if (sup.name, speed) not in ss_down:
                    umodel = inv.switch_models[sup.model]
                    ss_down[(sup.name, speed)] = _Ports(downlink_candidates(umodel, False), sup.disabled_ports,
                                                        lanes_for(umodel, speed) or 1, umodel.ports)
            by_plane: dict[int | None, list[Switch]] = {None: list(supers)}
            for sup in supers:
                if sup.plane is not None:
                    by_plane.setdefault(sup.plane, []).append(sup)
            pod_stride = ss_cfg.ports_per_pod if ss_cfg else None
            if pod_stride:
                for sup in supers:
                    ss_down_pos[sup.name] = (p - 1) * pod_stride
                per_ss = sum(1 for s in spines if planes is None or s.plane == 1) * sp.links_per_super_spine
                if per_ss > pod_stride:
                    topo.stride_overflows.append((("pods", pi, "spines"), f"pod {p} needs {per_ss} downlink ports on "
                                                  f"each super-spine but super_spines.ports_per_pod is {pod_stride}",
                                                  ("super_spines", "ports_per_pod")))
            for spine in spines:
                smodel = inv.switch_models[spine.model]
                up = _uplink_ports(smodel, spine, lanes_for(smodel, speed) or 1)
                targets = by_plane[spine.plane if planes else None]
                for pos, sup in enumerate(targets):
                    down = ss_down[(sup.name, speed)]
                    for link in range(sp.links_per_super_spine):
                        u = pos * sp.links_per_super_spine + link
                        port, lane = up.at(u)
                        sport, slane = down.at(ss_down_pos[sup.name])
                        ss_down_pos[sup.name] += 1
                        a, z = End(spine.name, port, lane, speed), End(sup.name, sport, slane, speed)
                        add_link(Link(f"{spine.name}>{sup.name}#{link + 1}", LinkRole.CORE, a, z,
                                      net_slot=core_net_base + spine.tier_slot * lim.uplinks_per_spine + u),
                                 _off(a, up) or _off(z, down))
    if inv.cabling:
        _apply_cabling(inv, topo)
    return topo


def _peer_links(inv: Inventory, topo: Topology, pairs: list[list[Switch]], count: int, has_uplinks: bool,
                net_base: int) -> None:
    """The peer link of every MLAG pair: `count` ports of side a to the same ports of side b, one port-channel
    (bundle) with one /31 (peer VLAN SVIs) at fabric-links slot net_base + side a's tier slot."""
    for a, b in (pair for pair in pairs if len(pair) == 2):
        ends = []
        for sw in (a, b):
            model = inv.switch_models[sw.model]
            ends.append((_Ports(peer_link_candidates(model, has_uplinks, count), sw.disabled_ports, 1, model.ports),
                         model.speed))
        (pa, speed_a), (pb, speed_b) = ends
        speed = min(speed_a, speed_b)
        for k in range(count):
            x, z = End(a.name, pa.at(k)[0], 0, speed), End(b.name, pb.at(k)[0], 0, speed)
            link = Link(f"{a.name}={b.name}#{k + 1}", LinkRole.PEER, x, z, bundle=f"{a.name}={b.name}",
                        net_slot=net_base + a.tier_slot)
            disabled = _off(x, pa) or _off(z, pb)
            if disabled is None:
                topo.peer_links.append(link)
            else:
                topo.off.append((link, len(topo.links), disabled))


def _apply_cabling(inv: Inventory, topo: Topology) -> None:
    """Replace the switch end of host links pinned under `cabling:` (identity of the link stays). A host link that
    was taken off (its generated port is disabled) is put back, at its place in the link order."""
    index = {link.id: i for i, link in enumerate(topo.links) if link.role is LinkRole.HOST}
    off = {link.id: k for k, (link, _pos, _end) in enumerate(topo.off) if link.role is LinkRole.HOST}
    back: dict[int, tuple[int, Link]] = {}  # index in topo.off → (position, link)
    for ci, cable in enumerate(inv.cabling):
        path = ("cabling", ci)
        link_id = f"{cable.host}:nic{cable.nic}p{cable.nic_port}"
        if link_id not in index and link_id not in off:
            what = "host" if cable.host not in topo.hosts else "NIC port"
            topo.bad_cables.append((path, f"cabling[{ci}]: no {what} {cable.host} nic{cable.nic} port "
                                          f"{cable.nic_port} in the fabric"))
            continue
        if cable.switch not in topo.switches:
            topo.bad_cables.append(((*path, "switch"), f"cabling[{ci}]: no switch named {cable.switch!r}"))
            continue
        if link_id in off:
            link, pos, _end = topo.off[off[link_id]]
            back[off[link_id]] = (pos, link)
        else:
            link = topo.links[index[link_id]]
        link.z = End(cable.switch, cable.port, cable.lane, link.z.speed)
        topo.pinned.add(link_id)
    if back:
        _put_back(topo, back)


def _put_back(topo: Topology, back: dict[int, tuple[int, Link]]) -> None:
    """Merge re-cabled links back into `topo.links` where expansion would have placed them."""
    at: dict[int, list[Link]] = {}
    for pos, link in sorted(back.values(), key=lambda t: t[0]):
        at.setdefault(pos, []).append(link)
    merged: list[Link] = []
    for i, link in enumerate(topo.links):
        merged.extend(at.get(i, ()))
        merged.append(link)
    merged.extend(at.get(len(topo.links), ()))
    topo.links = merged
    topo.off = [entry for k, entry in enumerate(topo.off) if k not in back]


def blocks_for(inv: Inventory, sw: Switch) -> bool:
    model = inv.switch_models[sw.model]
    return bool(model.port_blocks and model.port_blocks.rails)


def _uplink_ports(model: SwitchModel, sw: Switch, lanes: int) -> _Ports:
    return _Ports(uplink_candidates(model), sw.disabled_ports, lanes, model.ports)
