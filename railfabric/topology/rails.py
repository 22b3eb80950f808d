"""One segment of a pod: its rail switches (a pair per rail group when dual-homed), its hosts and their links,
and the MLAG peer links of a `dual_homing: mlag` segment."""

from __future__ import annotations

from railfabric.core.units import expand_pattern
from railfabric.inventory.intent import DualHoming, HostModel, Inventory, RailDesign, Segment
from railfabric.topology.expansion import Expansion
from railfabric.topology.model import MLAG_CHANNEL_BASE, End, Host, Link, LinkRole, Role, SegmentInfo, Switch, Topology
from railfabric.topology.ports import Ports, blocks_for, host_candidates, lanes_for, off_end, peer_link_candidates


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


def host_numbers(seg: Segment) -> list[tuple[int, int, int]]:
    """(host number, group index, index in group) for every host of a segment, by host number."""
    out: list[tuple[int, int, int]] = []
    for gi, g in enumerate(seg.host_groups):
        first = g.first if g.first is not None else 1
        out.extend((first + i, gi, i) for i in range(g.count))
    out.sort()
    return out


def expand_segment(x: Expansion, pi: int, pod_id: int, has_uplinks: bool, si: int,
                   seg: Segment) -> tuple[SegmentInfo, list[Switch]]:
    """Segment `seg` (index `si` of pod index `pi`): its rail switches, hosts, host links and MLAG peer links."""
    src = ("pods", pi, "segments", si)
    groups = rail_groups(seg)
    host_model = x.inv.host_models[seg.host_groups[0].model]
    dual = host_model.ports_per_nic == 2
    sides = 2 if dual else 1
    mlag = dual and seg.dual_homing is DualHoming.MLAG
    peer_ports = (seg.peer_link_ports or 2) if mlag else 0
    switches = _rail_switches(x, pod_id, seg, src, groups, sides)
    hosts = host_numbers(seg)
    info = SegmentInfo(pod_id, seg.id, src, seg.rail_design, seg.rails, groups, sides, seg.dual_homing,
                       seg.rail_prefix_len, seg.vlan_base or x.inv.fabric.rail_vlan_base,
                       tuple(sw.name for sw in switches), tuple(h for h, _, _ in hosts), per_switch(seg))
    x.topo.segments.append(info)
    group_sw = [switches[g * sides:(g + 1) * sides] for g in range(len(groups))]
    ports = _host_ports(x, switches, host_model, has_uplinks, peer_ports)
    _host_links(x, pod_id, seg, src, groups, group_sw, hosts, ports, mlag)
    if mlag:
        peer_links(x.inv, x.topo, group_sw, peer_ports, has_uplinks, x.peer_net_base)
    return info, switches


def _rail_switches(x: Expansion, p: int, seg: Segment, src: tuple, groups: tuple[tuple[int, ...], ...],
                   sides: int) -> list[Switch]:
    """The segment's rail switches by index: group-major, side a then side b when dual-homed."""
    lim = x.inv.limits
    dual = sides == 2
    s = seg.id
    switches: list[Switch] = []
    for g, rails in enumerate(groups):
        for side in range(sides):
            k = g * sides + side + 1
            key = expand_pattern(seg.rail_switch_name, pod=p, segment=s, rail=rails[0],
                                 rails="-".join(str(r) for r in rails), index=k, side=("ab"[side] if dual else ""))
            tier = ((p - 1) * lim.segments_per_pod + (s - 1)) * lim.rail_switches_per_segment + (k - 1)
            switches.append(x.make(Switch(key, key, Role.RAIL, p, s, k, seg.rail_switch_model,
                                          (seg.platform or x.inv.fabric.platform).value,
                                          slot=x.rail_tier_base + tier, tier_slot=tier, src=src, rails=rails,
                                          side=side if dual else None, group=g)))
    return switches


def _host_ports(x: Expansion, switches: list[Switch], host_model: HostModel, has_uplinks: bool,
                peer_ports: int) -> dict[tuple[str, int], Ports]:
    """The host-port allocator of each (rail switch, rail slot), at the lanes the hosts' NIC speed needs."""
    out: dict[tuple[str, int], Ports] = {}
    for sw in switches:
        model = x.inv.switch_models[sw.model]
        lanes = lanes_for(model, host_model.nic_speed) or 1
        for i in range(len(sw.rails)):
            out[(sw.name, i)] = Ports(host_candidates(model, i, has_uplinks, peer_ports), sw.disabled_ports, lanes,
                                      model.ports)
    return out


def _host_links(x: Expansion, p: int, seg: Segment, src: tuple, groups: tuple[tuple[int, ...], ...],
                group_sw: list[list[Switch]], hosts: list[tuple[int, int, int]],
                port_alloc: dict[tuple[str, int], Ports], mlag: bool) -> None:
    """Every host of the segment and its NIC links: NIC n goes to the switch(es) of n's rail group, at position
    host-1 of the rail block (blocks) or (host-1)·rails-per-switch + slot (no blocks); an MLAG segment bonds both
    links of a NIC as port-channel MLAG_CHANNEL_BASE + (host-1)·rails-per-switch + slot + 1."""
    topo, s = x.topo, seg.id
    add_link, host_role = topo.add, LinkRole.HOST
    place = topo.links.append  # the hot path: host links on enabled ports
    new = tuple.__new__  # new(End, ...): End without namedtuple's Python-level __new__
    rail_slot = {r: (g, i) for g, rails in enumerate(groups) for i, r in enumerate(rails)}
    m = len(groups[0]) if groups else 1
    uses_blocks = {sw.name: blocks_for(x.inv, sw) for g in group_sw for sw in g}
    for number, gi, _idx in hosts:
        hg = seg.host_groups[gi]
        hm = x.inv.host_models[hg.model]
        hname = expand_pattern(hg.name, pod=p, segment=s, host=number)
        hsrc = (*src, "host_groups", gi)
        if hname in topo.hosts:
            topo.name_clashes.append((hname, topo.hosts[hname].src, hsrc))
            hname = f"{hname}~{p}.{s}.{number}"
        topo.hosts[hname] = Host(hname, p, s, number, hg.model, hm.gpus, hm.nics, hsrc)
        speed = hm.nic_speed
        host_ends = (End(hname, 1, 0, speed), End(hname, 2, 0, speed))  # NIC port 1 or 2 (immutable: shared)
        for nic in range(hm.nics):
            if nic not in rail_slot:
                continue  # rails-vs-NICs is reported by the intent rules
            g, i = rail_slot[nic]
            for side, sw in enumerate(group_sw[g]):
                swname = sw.name
                position = (number - 1) if uses_blocks[swname] else (number - 1) * m + i
                ports = port_alloc[(swname, i)]
                table = ports.table
                port, lane = table[position] if position < len(table) else ports.at(position)
                z = new(End, (swname, port, lane, speed))
                host_link = Link(f"{hname}:nic{nic}p{side + 1}", host_role, host_ends[side], z, nic, nic, number)
                if mlag:  # one LACP bond per NIC over both switches: same number on both
                    host_link.bundle = f"{hname}:nic{nic}"
                    host_link.channel = MLAG_CHANNEL_BASE + (number - 1) * m + i + 1
                if port in ports.disabled:
                    add_link(host_link, z)
                else:
                    place(host_link)


def peer_links(inv: Inventory, topo: Topology, pairs: list[list[Switch]], count: int, has_uplinks: bool,
               net_base: int) -> None:
    """The peer link of every MLAG pair: `count` ports of side a to the same ports of side b, one port-channel
    (bundle) with one /31 (peer VLAN SVIs) at fabric-links slot net_base + side a's tier slot."""
    for a, b in (pair for pair in pairs if len(pair) == 2):
        ends = []
        for sw in (a, b):
            model = inv.switch_models[sw.model]
            ends.append((Ports(peer_link_candidates(model, has_uplinks, count), sw.disabled_ports, 1, model.ports),
                         model.speed))
        (pa, speed_a), (pb, speed_b) = ends
        speed = min(speed_a, speed_b)
        for k in range(count):
            x, z = End(a.name, pa.at(k)[0], 0, speed), End(b.name, pb.at(k)[0], 0, speed)
            link = Link(f"{a.name}={b.name}#{k + 1}", LinkRole.PEER, x, z, bundle=f"{a.name}={b.name}",
                        net_slot=net_base + a.tier_slot)
            disabled = off_end(x, pa) or off_end(z, pb)
            if disabled is None:
                topo.peer_links.append(link)
            else:
                topo.off.append((link, len(topo.links), disabled))
