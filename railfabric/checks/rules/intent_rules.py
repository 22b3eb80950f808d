"""Semantic rules on the intent (before expansion). Each finding points at the object the rule is about."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

from railfabric.checks.rules.addressing_rules import link_pool
from railfabric.checks.rules.drain_rules import drain_capability
from railfabric.checks.rules.ib_rules import ib_intent
from railfabric.checks.rules.ipv6_rules import ipv6_intent
from railfabric.checks.rules.lb_rules import lb_capability
from railfabric.checks.rules.platform_rules import platform_capabilities
from railfabric.checks.rules.uses import host_model, pool, switch_model
from railfabric.core.finding import MAX_FINDINGS, Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.core.textsafe import Suggestions, quote
from railfabric.core.units import format_speed
from railfabric.inventory.intent import DualHoming, Inventory, RailDesign, Segment, SwitchModel
from railfabric.topology import lanes_for, per_switch

# Findings with these codes leave the intent unusable for expansion (a missing model, rails that do not group).
BLOCKING = frozenset({"REF001", "REF002", "ID001", "ID002", "ID004", "ID005", "RAIL001", "RAIL002", "RAIL003",
                      "RAIL004", "TOPO002", "TOPO003", "TOPO004", "PORT002", "UND001"})

# RoCEv2 frame overhead above a 4096-byte payload: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ICRC 4.
# (FCS and VLAN tag are outside the L3 MTU.) 4096 + 74 = 4170 → host MTU must be at least 4170; 9000 is typical.
ROCE_PAYLOAD = 4096
ROCE_OVERHEAD = 20 + 8 + 12 + 16 + 4  # bytes inside the IP MTU: IPv4 + UDP + BTH + RETH + ICRC


def _seg_iter(inv: Inventory) -> Iterator[tuple[int, int, Segment]]:
    for pi, pod in enumerate(inv.pods):
        for si, seg in enumerate(pod.segments):
            yield pi, si, seg


def check_intent(inv: Inventory, src: SourceMap) -> list[Finding]:
    out: list[Finding] = []

    def add(code: str, msg: str, path: tuple, hint: str = "", sev: Severity = Severity.ERROR,
            related: tuple = (), key: bool = False, subject: tuple = (), uses: tuple = ()) -> None:
        """`subject`: the object whose definition the finding faults; `uses`: what it was derived from (both for
        root cause first, railfabric.core.causes)."""
        loc = src.key_loc(path) if key else src.loc(path)
        out.append(Finding(code, msg, loc, hint, sev, related=tuple(r for r in related if r), subject=subject,
                           uses=uses))

    for rule in _IB_RULES if inv.is_infiniband else _RULES:
        rule(inv, src, add)
    return out


Add = Callable[..., None]


def _ids(inv: Inventory, src: SourceMap, add: Add) -> None:
    seen: dict[int, int] = {}
    for pi, pod in enumerate(inv.pods):
        if pod.id in seen:
            add("ID001", f"pod id {pod.id} is used twice", ("pods", pi, "id"),
                "give every pod its own id; ids decide every address of the pod",
                related=(src.loc(("pods", seen[pod.id], "id")),))
        else:
            seen[pod.id] = pi
        segs: dict[int, int] = {}
        for si, seg in enumerate(pod.segments):
            if seg.id in segs:
                add("ID002", f"segment id {seg.id} is used twice in pod {pod.id}",
                    ("pods", pi, "segments", si, "id"), "segment ids must be unique within their pod",
                    related=(src.loc(("pods", pi, "segments", segs[seg.id], "id")),))
            else:
                segs[seg.id] = si


def _suggest(name: str, suggest: Suggestions) -> str:
    close = suggest(name, cutoff=0.5)
    if close:
        return f"did you mean {quote(close)}?"
    known = suggest.options
    return f"known: {', '.join(known[:10])}{', ...' if len(known) > 10 else ''}" if known else ""


def _refs(inv: Inventory, src: SourceMap, add: Add) -> None:
    # the references are visited in file order: the first MAX_FINDINGS unknown names get a suggestion
    sw = Suggestions(inv.switch_models, MAX_FINDINGS)
    hm = Suggestions(inv.host_models, MAX_FINDINGS)

    def need_switch(name: str, path: tuple) -> None:
        if name not in inv.switch_models:
            add("REF001", f"switch model {name!r} is not defined in switch_models", path, _suggest(name, sw))

    if inv.super_spines:
        need_switch(inv.super_spines.model, ("super_spines", "model"))
    for pi, pod in enumerate(inv.pods):
        if pod.spines:
            need_switch(pod.spines.model, ("pods", pi, "spines", "model"))
        for si, seg in enumerate(pod.segments):
            need_switch(seg.rail_switch_model, ("pods", pi, "segments", si, "rail_switch_model"))
            for gi, g in enumerate(seg.host_groups):
                if g.model not in inv.host_models:
                    add("REF002", f"host model {g.model!r} is not defined in host_models",
                        ("pods", pi, "segments", si, "host_groups", gi, "model"), _suggest(g.model, hm))
    for key, ov in inv.devices.items():
        if ov.model:
            need_switch(ov.model, ("devices", key, "model"))


def _limits(inv: Inventory, src: SourceMap, add: Add) -> None:
    lim = inv.limits
    hint = "raise the limit in `limits:` (this renumbers the plan on purpose) or use a smaller id"
    if inv.super_spines and inv.super_spines.count > lim.super_spines:
        add("ID004", f"{inv.super_spines.count} super-spines exceed limits.super_spines = {lim.super_spines}",
            ("super_spines", "count"), hint)
    ss_targets = 0
    if inv.super_spines:
        planes = inv.super_spines.planes or 1
        ss_targets = -(-inv.super_spines.count // planes)
    for pi, pod in enumerate(inv.pods):
        if pod.id > lim.pods:
            add("ID004", f"pod id {pod.id} exceeds limits.pods = {lim.pods}", ("pods", pi, "id"), hint)
        sp = pod.spines
        if sp:
            if sp.count > lim.spines_per_pod:
                add("ID004", f"pod {pod.id} has {sp.count} spines; limits.spines_per_pod = {lim.spines_per_pod}",
                    ("pods", pi, "spines", "count"), hint)
            up = ss_targets * sp.links_per_super_spine
            if up > lim.uplinks_per_spine:
                add("ID004", f"pod {pod.id} spines need {up} uplinks ({ss_targets} super-spines × "
                    f"{sp.links_per_super_spine}); limits.uplinks_per_spine = {lim.uplinks_per_spine}",
                    ("pods", pi, "spines", "links_per_super_spine"), hint)
        for si, seg in enumerate(pod.segments):
            path = ("pods", pi, "segments", si)
            if seg.id > lim.segments_per_pod:
                add("ID004", f"segment id {seg.id} exceeds limits.segments_per_pod = {lim.segments_per_pod}",
                    (*path, "id"), hint)
            per = per_switch(seg)
            sides = 2 if _dual(inv, seg) else 1
            n = -(-seg.rails // max(per, 1)) * sides
            if n > lim.rail_switches_per_segment:
                add("ID004", f"segment {pod.id}/{seg.id} needs {n} rail switches; "
                    f"limits.rail_switches_per_segment = {lim.rail_switches_per_segment}", path, hint)
            if sp:
                links = seg.links_per_spine or sp.links_per_rail_switch
                up = sp.count * links
                if up > lim.uplinks_per_rail_switch:
                    add("ID004", f"rail switches of segment {pod.id}/{seg.id} need {up} uplinks ({sp.count} spines "
                        f"× {links}); limits.uplinks_per_rail_switch = {lim.uplinks_per_rail_switch}", path, hint)


def _dual(inv: Inventory, seg: Segment) -> bool:
    m = inv.host_models.get(seg.host_groups[0].model)
    return bool(m and m.ports_per_nic == 2)


def _host_groups(inv: Inventory, src: SourceMap, add: Add) -> None:
    for pi, si, seg in _seg_iter(inv):
        path = ("pods", pi, "segments", si, "host_groups")
        groups = seg.host_groups
        if len(groups) > 1:
            missing = [gi for gi, g in enumerate(groups) if g.first is None]
            for gi in missing:
                add("ID005", f"segment {inv.pods[pi].id}/{seg.id} has {len(groups)} host groups; group {gi + 1} "
                    "needs an explicit `first` host number", (*path, gi),
                    "set `first:` on every group so adding or reordering groups never renumbers hosts")
            if missing:
                continue
        spans = sorted(((g.first or 1), (g.first or 1) + g.count - 1, gi) for gi, g in enumerate(groups))
        for (a0, a1, ga), (b0, b1, gb) in itertools.pairwise(spans):
            if b0 <= a1:
                add("ID005", f"host groups overlap: hosts {a0}-{a1} and {b0}-{b1}", (*path, gb, "first"),
                    f"start this group at {a1 + 1} or later", related=(src.loc((*path, ga)),))
        models = {inv.host_models[g.model].nics for g in groups if g.model in inv.host_models}
        ports = {inv.host_models[g.model].ports_per_nic for g in groups if g.model in inv.host_models}
        if len(models) > 1 or len(ports) > 1:
            add("RAIL001", "host groups of one segment use host models with different NIC layouts", path,
                "put hosts with a different NIC layout into their own segment", subject=path[:-1],
                uses=tuple(dict.fromkeys(host_model(g.model) for g in groups)))


def _rails(inv: Inventory, src: SourceMap, add: Add) -> None:
    for pi, si, seg in _seg_iter(inv):
        path = ("pods", pi, "segments", si)
        for g in seg.host_groups:
            hm = inv.host_models.get(g.model)
            if hm and hm.nics != seg.rails:
                add("RAIL001", f"segment has {seg.rails} rails but host model {g.model!r} has {hm.nics} NICs",
                    (*path, "rails"), f"set rails: {hm.nics} (NIC r of every host lands on rail r)",
                    subject=path, uses=(host_model(g.model),))
        design = seg.rail_design
        if design is not RailDesign.MULTI and seg.rails_per_switch is not None:
            expected = 1 if design is RailDesign.SINGLE else 2
            if seg.rails_per_switch != expected:
                add("RAIL002", f"{design.value} means {expected} rail(s) per switch, not {seg.rails_per_switch}",
                    (*path, "rails_per_switch"), "remove rails_per_switch or use rail_design: multi-rail")
                continue
        per = per_switch(seg)
        if seg.rail_groups is None:
            if seg.rails % per:
                add("RAIL002", f"{seg.rails} rails cannot be split into switches of {per} rails",
                    (*path, "rails"), f"use a rail count divisible by {per} or declare rail_groups")
            continue
        used: list[int] = [r for g in seg.rail_groups for r in g]
        bad = [g for g in seg.rail_groups if len(g) != per]
        if bad:
            add("RAIL002", f"rail_groups {bad[0]} has {len(bad[0])} rails; {design.value} needs {per} per switch",
                (*path, "rail_groups"))
        if sorted(used) != list(range(seg.rails)):
            dup = sorted({r for r in used if used.count(r) > 1})
            missing = sorted(set(range(seg.rails)) - set(used))
            extra = sorted(set(used) - set(range(seg.rails)))
            parts = []
            if dup:
                parts.append(f"rails {dup} appear twice")
            if missing:
                parts.append(f"rails {missing} are missing")
            if extra:
                parts.append(f"rails {extra} do not exist (rails are 0..{seg.rails - 1})")
            add("RAIL002", "rail_groups must use every rail exactly once: " + "; ".join(parts),
                (*path, "rail_groups"))


def _host_models(inv: Inventory, src: SourceMap, add: Add) -> None:
    for name, hm in inv.host_models.items():
        path = ("host_models", name)
        if hm.gpu_to_nic is None:
            if hm.nics < hm.gpus:
                add("RAIL003", f"host model {name!r} has {hm.gpus} GPUs but {hm.nics} NICs and no gpu_to_nic map",
                    path, f"add gpu_to_nic: a list of {hm.gpus} NIC indexes, e.g. "
                    f"{[g * hm.nics // hm.gpus for g in range(hm.gpus)]}", key=True, subject=path)
            continue
        if len(hm.gpu_to_nic) != hm.gpus:
            add("RAIL003", f"gpu_to_nic has {len(hm.gpu_to_nic)} entries for {hm.gpus} GPUs",
                (*path, "gpu_to_nic"), subject=path)
        bad = [n for n in hm.gpu_to_nic if not 0 <= n < hm.nics]
        if bad:
            add("RAIL003", f"gpu_to_nic names NIC {bad[0]}; NICs are 0..{hm.nics - 1}", (*path, "gpu_to_nic"),
                subject=path)
        unused = sorted(set(range(hm.nics)) - set(hm.gpu_to_nic))
        if unused and not bad:
            add("RAIL003", f"NIC(s) {unused} carry no GPU in gpu_to_nic", (*path, "gpu_to_nic"),
                sev=Severity.WARNING)


def _dual_homing(inv: Inventory, src: SourceMap, add: Add) -> None:
    for pi, si, seg in _seg_iter(inv):
        path = ("pods", pi, "segments", si)
        dual = _dual(inv, seg)
        models = tuple(dict.fromkeys(host_model(g.model) for g in seg.host_groups))
        if dual and seg.dual_homing is None:
            add("TOPO004", "hosts have dual-port NICs (ports_per_nic: 2) but the segment has no dual_homing mode",
                path, "set dual_homing: mlag, esi or two-vlans", subject=path, uses=models)
        if not dual and seg.dual_homing is not None:
            add("TOPO004", f"dual_homing: {seg.dual_homing.value} needs hosts with ports_per_nic: 2",
                (*path, "dual_homing"), "remove dual_homing or use a dual-port host model", subject=path,
                uses=models)
        elif seg.dual_homing is DualHoming.ESI:
            add("PLAT002", "dual_homing: esi is not rendered: EVPN multihoming needs an EVPN-VXLAN overlay (VTEPs, "
                "a VNI per rail VLAN, the EVPN address family on every rail switch and spine), and railfabric's "
                "fabric is routed IP with no overlay; without it both switches would own the same gateway and "
                "subnet, and a host that loses one link would be blackholed by the other switch",
                (*path, "dual_homing"),
                "use dual_homing: mlag (peer link, shared gateway, LACP bonds) or two-vlans (each switch of the "
                "pair serves its own rail subnet)")
        if seg.peer_link_ports is not None and seg.dual_homing is not DualHoming.MLAG:
            add("TOPO004", "peer_link_ports is for dual_homing: mlag only", (*path, "peer_link_ports"),
                "remove peer_link_ports, or set dual_homing: mlag")


def _hardware(inv: Inventory, src: SourceMap, add: Add) -> None:
    for name, m in inv.switch_models.items():
        path: tuple[str | int, ...] = ("switch_models", name)
        for bi, (lanes, speed) in enumerate(m.breakouts):
            if lanes * speed != m.speed:
                add("HW002", f"breakout {lanes}x{format_speed(speed)} is {format_speed(lanes * speed)}, "
                    f"not the native {format_speed(m.speed)}", (*path, "breakouts", bi), subject=path)
            if m.serdes_lanes % lanes:
                add("HW003", f"serdes_lanes {m.serdes_lanes} do not split into the {lanes} lanes of breakout "
                    f"{lanes}x{format_speed(speed)}", (*path, "serdes_lanes"),
                    f"use a multiple of {lanes}, or leave serdes_lanes out to derive it from the speed", subject=path)
        blocks = m.port_blocks
        if not blocks:
            continue
        owner: dict[int, tuple] = {}
        lists: list[tuple[tuple[str | int, ...], tuple[int, ...]]] = [
            (("port_blocks", "rails", i), b) for i, b in enumerate(blocks.rails)]
        if blocks.uplinks:
            lists.append((("port_blocks", "uplinks"), blocks.uplinks))
        if blocks.peer_link:
            lists.append((("port_blocks", "peer_link"), blocks.peer_link))
        for sub, ports in lists:
            over = [p for p in ports if p > m.ports]
            if over:
                add("PORT001", f"port {over[0]} in {'.'.join(map(str, sub))} does not exist on {name!r} "
                    f"({m.ports} ports)", (*path, *sub), subject=path)
            for p in ports:
                if p in owner:
                    add("PORT002", f"port {p} is in both {'.'.join(map(str, owner[p]))} and "
                        f"{'.'.join(map(str, sub))}", (*path, *sub), "each port belongs to one block", subject=path)
                    break
                owner[p] = sub
    _speed_modes(inv, add)


def _speed_modes(inv: Inventory, add: Add) -> None:
    """HW001: a tier's links at a speed its switch model runs in no mode. Its subject is the object that pairs the
    speed with the model (the segment for host links, the spine block for its link speeds); it uses the object that
    sets the speed (a host model, a spine block), so a speed that is wrong at its own definition is the root."""
    def mode(model_name: str, speed: int, what: str, path: tuple, subject: tuple, uses: tuple = ()) -> None:
        m = inv.switch_models.get(model_name)
        if m and not lanes_for(m, speed):
            add("HW001", f"{what} run at {format_speed(speed)} but switch model {model_name!r} offers "
                f"{', '.join(_modes(m))}", path, f"add a breakout to {model_name!r} or change the speed",
                subject=subject, uses=(*uses, switch_model(model_name)))

    ss_uses: tuple = (("super_spines",),)
    for pi, pod in enumerate(inv.pods):
        sp = pod.spines
        sp_path = ("pods", pi, "spines")
        for si, seg in enumerate(pod.segments):
            path = ("pods", pi, "segments", si)
            hm = inv.host_models.get(seg.host_groups[0].model)
            if hm:
                mode(seg.rail_switch_model, hm.nic_speed, "host links", (*path, "rail_switch_model"), path,
                     (host_model(seg.host_groups[0].model),))
            rm = inv.switch_models.get(seg.rail_switch_model)
            if rm and rm.port_blocks and rm.port_blocks.rails and len(rm.port_blocks.rails) < per_switch(seg):
                add("RAIL004", f"switch model {seg.rail_switch_model!r} has {len(rm.port_blocks.rails)} rail port "
                    f"block(s); a {seg.rail_design.value} switch here serves {per_switch(seg)} rails",
                    (*path, "rail_switch_model"), "add a port block per rail slot to the model")
            if sp:
                mode(seg.rail_switch_model, sp.link_speed, "rail switch uplinks", (*path, "rail_switch_model"), path,
                     (sp_path,))
        if sp:
            mode(sp.model, sp.link_speed, "spine downlinks", (*sp_path, "link_speed"), sp_path)
            if inv.super_spines:
                speed = sp.super_spine_link_speed or sp.link_speed
                mode(sp.model, speed, "spine uplinks", (*sp_path, "model"), sp_path)
                mode(inv.super_spines.model, speed, "super-spine downlinks", ("super_spines", "model"), ss_uses[0],
                     (sp_path,))
            if sp.port_channel_members:
                for seg in pod.segments:
                    links = seg.links_per_spine or sp.links_per_rail_switch
                    if links % sp.port_channel_members:
                        add("TOPO003", f"{links} links per spine cannot form port-channels of "
                            f"{sp.port_channel_members}", ("pods", pi, "spines", "port_channel_members"),
                            "make the link count a multiple of the member count")


def _modes(m: SwitchModel) -> list[str]:
    return [format_speed(m.speed)] + [f"{n}x{format_speed(s)}" for n, s in m.breakouts]


def _nic_speeds(inv: Inventory, src: SourceMap, add: Add) -> None:
    """HOST005: a host model whose NICs run at a speed that none of the rail switch models it is placed on runs in
    any mode (natively or as a breakout lane): the speed itself is the fault (a typo such as 4000G), said once at
    its own line; every port, capacity and buffer finding derived from it is folded under it. A speed that some of
    its rail switch models run is a pairing problem instead, HW001 at the segment."""
    placed: dict[str, dict[str, None]] = {}
    for _pi, _si, seg in _seg_iter(inv):
        for g in seg.host_groups:
            if seg.rail_switch_model in inv.switch_models:
                placed.setdefault(g.model, {})[seg.rail_switch_model] = None
    for name, switches in placed.items():
        hm = inv.host_models.get(name)
        if hm is None or any(lanes_for(inv.switch_models[s], hm.nic_speed) for s in switches):
            continue
        offered = "; ".join(f"{s}: {', '.join(_modes(inv.switch_models[s]))}" for s in switches)
        add("HOST005", f"host model {name!r}: its NICs run at {format_speed(hm.nic_speed)}, a speed no rail switch "
            f"model it is cabled to runs ({offered})", ("host_models", name, "nic_speed"),
            "correct nic_speed (e.g. 400G), or give the rail switch model a mode at this speed (speed or "
            "breakouts)", subject=("host_models", name))


def _nic_layouts(inv: Inventory, src: SourceMap, add: Add) -> None:
    """HOST006: a host model whose NIC count or ports per NIC fits none of the segments it is placed in (RAIL001 or
    TOPO004 at every one of them): the model's fact is the fault, said once at its own line, and the segments'
    findings are folded under it."""
    segs: dict[str, list[Segment]] = {}
    for _pi, _si, seg in _seg_iter(inv):
        for name in dict.fromkeys(g.model for g in seg.host_groups):
            segs.setdefault(name, []).append(seg)
    for name, placed in segs.items():
        hm = inv.host_models.get(name)
        if hm is None:
            continue
        if all(hm.nics != seg.rails for seg in placed):
            rails = sorted({seg.rails for seg in placed})
            add("HOST006", f"host model {name!r} has {hm.nics} NICs, but every segment it is placed in has "
                f"{' or '.join(map(str, rails))} rails (NIC r lands on rail r)", ("host_models", name, "nics"),
                "correct nics, or the segments' rails", subject=("host_models", name))
        if all((hm.ports_per_nic == 2) != (seg.dual_homing is not None) for seg in placed):
            add("HOST006", f"host model {name!r} has ports_per_nic: {hm.ports_per_nic}, which fits none of the "
                f"{len(placed)} segment(s) it is placed in (" + ("none has" if hm.ports_per_nic == 2 else "each has")
                + " a dual_homing mode)", ("host_models", name, "ports_per_nic"),
                "correct ports_per_nic, or the segments' dual_homing", subject=("host_models", name))


def _topology_shape(inv: Inventory, src: SourceMap, add: Add) -> None:
    with_spines = [pi for pi, p in enumerate(inv.pods) if p.spines]
    if not inv.super_spines and len(with_spines) > 1:
        add("TOPO001", f"{len(with_spines)} pods have spines but no super_spines join them; they form separate "
            "fabrics", ("pods",), "add a super_spines section for a 3-tier fabric", sev=Severity.WARNING,
            key=True)
    ss = inv.super_spines
    if ss and ss.planes:
        if ss.planes > ss.count:
            add("TOPO002", f"{ss.planes} planes need at least {ss.planes} super-spines, not {ss.count}",
                ("super_spines", "planes"))
        elif ss.count % ss.planes:
            add("TOPO002", f"{ss.count} super-spines do not split evenly into {ss.planes} planes",
                ("super_spines", "planes"), sev=Severity.WARNING)
        for pi in with_spines:
            sp = inv.pods[pi].spines
            assert sp is not None
            if sp.count % ss.planes:
                add("TOPO002", f"pod {inv.pods[pi].id} has {sp.count} spines for {ss.planes} planes; the planes get "
                    "unequal spine counts", ("pods", pi, "spines", "count"), sev=Severity.WARNING)


def _mtu(inv: Inventory, src: SourceMap, add: Add) -> None:
    f = inv.fabric
    if f.host_mtu > f.mtu:
        add("MTU001", f"host_mtu {f.host_mtu} is above the fabric mtu {f.mtu}", ("fabric", "host_mtu"),
            f"use host_mtu: {min(9000, f.mtu)}")
    need = ROCE_PAYLOAD + ROCE_OVERHEAD
    if f.host_mtu < need:
        add("MTU002", f"host_mtu {f.host_mtu} cannot carry a {ROCE_PAYLOAD}-byte RoCE payload: it needs "
            f"{ROCE_PAYLOAD} + {ROCE_OVERHEAD} bytes of headers = {need}", ("fabric", "host_mtu"),
            "use host_mtu: 9000 (RoCE path MTU 4096)")


def _qos(inv: Inventory, src: SourceMap, add: Add) -> None:
    q = inv.qos
    if q.ecn.enabled and q.ecn.min_bytes >= q.ecn.max_bytes:
        add("QOS001", f"ECN min_bytes {q.ecn.min_bytes:,} is not below max_bytes {q.ecn.max_bytes:,}",
            ("qos", "ecn", "min_bytes"), "NVIDIA's RoCE profile uses 150000 / 1500000")
    if q.roce.dscp == q.cnp.dscp:
        add("QOS002", f"RoCE and CNP both use DSCP {q.roce.dscp}", ("qos", "cnp", "dscp"),
            "the usual values are 26 (RoCE) and 48 (CNP)")
    if q.roce.priority == q.cnp.priority:
        add("QOS003", f"CNP priority {q.cnp.priority} is the lossless RoCE priority", ("qos", "cnp", "priority"),
            "give CNP its own strict-priority class, e.g. 6")
    wd = q.pfc_watchdog
    if wd.enabled and wd.detection_ms < wd.poll_ms:
        add("QOS004", f"PFC watchdog detection_ms {wd.detection_ms} is shorter than poll_ms {wd.poll_ms}",
            ("qos", "pfc_watchdog", "detection_ms"), "detection must be at least one poll interval")


def _pools(inv: Inventory, src: SourceMap, add: Add) -> None:
    p = inv.pools
    named = [("loopbacks", p.loopbacks, ("pools", "loopbacks")),
             ("fabric_links", p.fabric_links, ("pools", "fabric_links")),
             ("rail_subnets", p.rail_subnets, ("pools", "rail_subnets")),
             ("management", p.management.prefix, ("pools", "management", "prefix"))]
    named = [n for n in named if n[1] is not None]  # pools.fabric_links is optional (unnumbered fabrics)
    for i, (an, a, apath) in enumerate(named):
        for bn, b, bpath in named[i + 1:]:
            if a.first <= b.last and b.first <= a.last:
                add("POOL001", f"pools {an} ({a}) and {bn} ({b}) overlap", bpath, "make every pool disjoint",
                    related=(src.loc(apath),), subject=pool(bn), uses=(pool(an),))
    gw = p.management.gateway
    if gw is not None and gw not in p.management.prefix:
        add("POOL003", f"management gateway {gw} is outside {p.management.prefix}", ("pools", "management", "gateway"),
            subject=pool("management"))


_PRIVATE = ((64512, 65534), (4200000000, 4294967294))


def _asns(inv: Inventory, src: SourceMap, add: Add) -> None:
    a = inv.routing.asn
    lim = inv.limits
    rail_slots = lim.pods * lim.segments_per_pod * lim.rail_switches_per_segment
    ranges = [
        ("super-spine", a.super_spine, a.super_spine, ("routing", "asn", "super_spine")),
        ("spine", a.spine_base + 1, a.spine_base + lim.pods, ("routing", "asn", "spine_base")),
        ("rail switch", a.rail_switch_base, a.rail_switch_base + rail_slots - 1,
         ("routing", "asn", "rail_switch_base")),
    ]
    for name, lo, hi, path in ranges:
        if hi > 4294967294:
            add("ASN001", f"{name} ASNs run to {hi:,}, past the largest usable ASN 4,294,967,294", path,
                "lower the base or the limits")
        elif not any(plo <= lo and hi <= phi for plo, phi in _PRIVATE):
            add("ASN001", f"{name} ASNs {lo}-{hi} are not all private (RFC 6996)", path,
                "use 4200000000-4294967294 unless these ASNs are really yours", sev=Severity.WARNING)
    for i, (an, alo, ahi, _ap) in enumerate(ranges):
        for bn, blo, bhi, bp in ranges[i + 1:]:
            if alo <= bhi and blo <= ahi:
                add("ASN002", f"{an} ASNs {alo}-{ahi} overlap {bn} ASNs {blo}-{bhi}", bp,
                    "space the bases so the tiers never share an ASN")


def _vlans(inv: Inventory, src: SourceMap, add: Add) -> None:
    for pi, si, seg in _seg_iter(inv):
        base = seg.vlan_base or inv.fabric.rail_vlan_base
        top = base + seg.rails - 1
        if top > 4094:
            path = ("pods", pi, "segments", si, "vlan_base") if seg.vlan_base else ("fabric", "rail_vlan_base")
            add("VLAN001", f"rail VLANs {base}-{top} pass 4094", path, f"use a base of at most {4095 - seg.rails}")


_RULES = [_ids, _refs, _limits, _host_groups, _rails, _host_models, _dual_homing, _hardware, _nic_speeds,
          _nic_layouts, _topology_shape, _mtu, _qos, _pools, link_pool, _asns, _vlans, platform_capabilities,
          drain_capability, lb_capability, ipv6_intent]
# An InfiniBand fabric (fabric.kind: infiniband): the shape rules, not the Ethernet ones (MTU, RoCE QoS, pools, ASNs,
# VLANs, platforms), whose keys it may not write (railfabric/checks/rules/ib_rules.py)
_IB_RULES = [_ids, _refs, _host_groups, _rails, _host_models, _hardware, _nic_speeds, _nic_layouts, _topology_shape,
             ib_intent]
