"""The links up the tiers: rail switch → spine (fabric) and spine → super-spine (core), with their /31 slots.

Uplinks take the lower switch's uplink ports by uplink index u = (upper switch index − 1) × links + link; the upper
switch's downlinks run in identity order of the lower switch, or from (id − 1)·stride + 1 with a per-segment /
per-pod stride, so inserting a segment or pod never moves an existing cable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from railfabric.inventory.intent import Pod, Spines, SuperSpines
from railfabric.topology.expansion import Expansion
from railfabric.topology.model import End, Link, LinkRole, SegmentInfo, Switch
from railfabric.topology.ports import Ports, downlink_candidates, lanes_for, uplink_ports


@dataclass
class CoreDownlinks:
    """The super-spines' downlink allocators and next positions: shared by every pod."""

    supers: list[Switch]
    position: dict[str, int] = field(default_factory=dict)  # super-spine → next downlink position
    ports: dict[tuple[str, int], Ports] = field(default_factory=dict)  # (super-spine, speed) → allocator

    def __post_init__(self) -> None:
        self.position = {s.name: 0 for s in self.supers}


def fabric_links(x: Expansion, pi: int, pod: Pod, spines: list[Switch],
                 seg_switches: list[tuple[SegmentInfo, list[Switch]]]) -> None:
    """Every rail switch of the pod to every spine, links_per_rail_switch (or the segment's links_per_spine) each;
    with port_channel_members, consecutive links form bundles that share the /31 slot of their first link."""
    sp = pod.spines
    assert sp is not None
    p, lim = pod.id, x.inv.limits
    down_pos = {s.name: 0 for s in spines}
    spine_down = {}
    for spine in spines:
        smodel = x.inv.switch_models[spine.model]
        spine_down[spine.name] = Ports(downlink_candidates(smodel, x.inv.super_spines is not None),
                                       spine.disabled_ports, lanes_for(smodel, sp.link_speed) or 1, smodel.ports)
    seg_by_id = {s.id: s for s in pod.segments}
    speed, members, add, fabric = sp.link_speed, sp.port_channel_members, x.topo.add, LinkRole.FABRIC
    place, new = x.topo.links.append, tuple.__new__  # new(End, ...): End without namedtuple's Python-level __new__
    for info, switches in seg_switches:
        per_spine = seg_by_id[info.id].links_per_spine or sp.links_per_rail_switch
        _segment_stride(x, pi, p, sp, info, spines, down_pos, len(switches) * per_spine)
        for sw in switches:
            model = x.inv.switch_models[sw.model]
            up = uplink_ports(model, sw, lanes_for(model, speed) or 1)
            name, slot_base = sw.name, sw.tier_slot * lim.uplinks_per_rail_switch
            up_table = up.table
            for spine in spines:
                sname, down = spine.name, spine_down[spine.name]
                down_table = down.table
                first_u = (spine.index - 1) * per_spine
                for link in range(per_spine):
                    u = first_u + link
                    port, lane = up_table[u] if u < len(up_table) else up.at(u)
                    d = down_pos[sname]
                    sport, slane = down_table[d] if d < len(down_table) else down.at(d)
                    down_pos[sname] = d + 1
                    bundle = None
                    slot_u = u
                    if members:
                        c = link // members
                        bundle = f"{name}>{sname}#pc{c + 1}"
                        slot_u = first_u + c * members
                    a, z = new(End, (name, port, lane, speed)), new(End, (sname, sport, slane, speed))
                    made = Link(f"{name}>{sname}#{link + 1}", fabric, a, z, None, None, None, bundle,
                                slot_base + slot_u)
                    if port in up.disabled or sport in down.disabled:
                        add(made, a if port in up.disabled else z)
                    else:
                        place(made)


def _segment_stride(x: Expansion, pi: int, p: int, sp: Spines, info: SegmentInfo, spines: list[Switch],
                    down_pos: dict[str, int], need: int) -> None:
    """With spines.ports_per_segment, the segment's spine downlinks start at (segment id − 1)·stride; a segment
    needing more than the stride is recorded in topo.stride_overflows."""
    stride = sp.ports_per_segment
    if not stride:
        return
    for spine in spines:
        down_pos[spine.name] = (info.id - 1) * stride
    if need > stride:
        x.topo.stride_overflows.append((info.src, f"segment {p}/{info.id} needs {need} downlink ports on each "
                                        f"spine but spines.ports_per_segment is {stride}",
                                        ("pods", pi, "spines", "ports_per_segment")))


def core_links(x: Expansion, pi: int, pod: Pod, spines: list[Switch], core: CoreDownlinks) -> None:
    """Every spine of the pod to the super-spines of its plane (all of them without planes), links_per_super_spine
    each, at super_spine_link_speed (default the spine link speed)."""
    sp, ss_cfg = pod.spines, x.inv.super_spines
    assert sp is not None and ss_cfg is not None
    lim = x.inv.limits
    speed = sp.super_spine_link_speed or sp.link_speed
    planes = ss_cfg.planes
    for sup in core.supers:
        if (sup.name, speed) not in core.ports:
            umodel = x.inv.switch_models[sup.model]
            core.ports[(sup.name, speed)] = Ports(downlink_candidates(umodel, False), sup.disabled_ports,
                                                  lanes_for(umodel, speed) or 1, umodel.ports)
    by_plane: dict[int | None, list[Switch]] = {None: list(core.supers)}
    for sup in core.supers:
        if sup.plane is not None:
            by_plane.setdefault(sup.plane, []).append(sup)
    _pod_stride(x, pi, pod.id, sp, ss_cfg, spines, core)
    links, add, role = sp.links_per_super_spine, x.topo.add, LinkRole.CORE
    place, new = x.topo.links.append, tuple.__new__  # new(End, ...): End without namedtuple's Python-level __new__
    position = core.position
    for spine in spines:
        smodel = x.inv.switch_models[spine.model]
        up = uplink_ports(smodel, spine, lanes_for(smodel, speed) or 1)
        name, slot_base = spine.name, x.core_net_base + spine.tier_slot * lim.uplinks_per_spine
        up_table = up.table
        for pos, sup in enumerate(by_plane[spine.plane if planes else None]):
            uname, down = sup.name, core.ports[(sup.name, speed)]
            down_table = down.table
            for link in range(links):
                u = pos * links + link
                port, lane = up_table[u] if u < len(up_table) else up.at(u)
                d = position[uname]
                sport, slane = down_table[d] if d < len(down_table) else down.at(d)
                position[uname] = d + 1
                a, z = new(End, (name, port, lane, speed)), new(End, (uname, sport, slane, speed))
                made = Link(f"{name}>{uname}#{link + 1}", role, a, z, None, None, None, None, slot_base + u)
                if port in up.disabled or sport in down.disabled:
                    add(made, a if port in up.disabled else z)
                else:
                    place(made)


def _pod_stride(x: Expansion, pi: int, p: int, sp: Spines, ss_cfg: SuperSpines, spines: list[Switch],
                core: CoreDownlinks) -> None:
    """With super_spines.ports_per_pod, the pod's super-spine downlinks start at (pod id − 1)·stride; a pod needing
    more than the stride is recorded in topo.stride_overflows."""
    stride = ss_cfg.ports_per_pod
    if not stride:
        return
    for sup in core.supers:
        core.position[sup.name] = (p - 1) * stride
    per_ss = sum(1 for s in spines if ss_cfg.planes is None or s.plane == 1) * sp.links_per_super_spine
    if per_ss > stride:
        x.topo.stride_overflows.append((("pods", pi, "spines"), f"pod {p} needs {per_ss} downlink ports on each "
                                        f"super-spine but super_spines.ports_per_pod is {stride}",
                                        ("super_spines", "ports_per_pod")))
