"""Rules on the expanded topology and the allocation: names, ports, pools."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from railfabric.checks.rules.ipv6_rules import ipv6_plan
from railfabric.checks.rules.name_rules import case_collisions
from railfabric.checks.rules.release_rules import check_releases
from railfabric.checks.rules.session_rules import check_sessions
from railfabric.checks.rules.uses import Uses, switch_model
from railfabric.checks.rules.uses import pool as pool_of
from railfabric.core.address import Prefix, length_for, ntoa, size
from railfabric.core.finding import MAX_FINDINGS, Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.core.textsafe import Suggestions, quote
from railfabric.core.units import format_ports, format_speed, hostname_problem, lanes_at
from railfabric.inventory.intent import DualHoming, Inventory, SwitchModel
from railfabric.plan.allocate import Plan
from railfabric.plan.mtu import switch_mtu
from railfabric.topology import (
    LinkRole,
    Role,
    Switch,
    Topology,
    downlink_candidates,
    host_candidates,
    peer_link_candidates,
    uplink_candidates,
)


def _place(src: SourceMap, path: tuple) -> tuple[str, int, int]:
    """Where a key is, in the order findings are shown (Finding.sort_key)."""
    loc = src.key_loc(path)
    return (loc.file, loc.line, loc.col) if loc is not None else ("", 0, 0)


def check_topology(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    out: list[Finding] = []
    keys = {sw.key for sw in topo.switches.values()}
    unknown = sorted((k for k in inv.devices if k not in keys), key=lambda k: _place(src, ("devices", k)))
    suggest = Suggestions(keys, MAX_FINDINGS)  # only the first MAX_FINDINGS findings are shown
    for key in unknown:
        close = suggest(key)
        out.append(Finding("REF003", f"devices: no switch of the fabric has the pattern name {quote(key)}",
                           src.key_loc(("devices", key)),
                           f"did you mean {quote(close)}?" if close else "keys are the names the patterns make"))
    for name, first, second in topo.name_clashes:
        out.append(Finding("ID003", f"name {quote(name)} is generated twice", src.loc(second),
                           "make the name patterns or hostname overrides unique",
                           related=tuple(x for x in (src.loc(first),) if x)))
    out += case_collisions(inv, topo, src)
    for sw in topo.switches.values():
        problem = hostname_problem(sw.name.split("~")[0])
        if problem:
            path = ("devices", sw.key, "hostname") if sw.overridden and inv.devices[sw.key].hostname else sw.src
            out.append(Finding("SEC002", f"switch name {quote(sw.name)} {problem}", src.loc(path),
                               "use letters, digits and hyphens (name patterns expand placeholders first)"))
    bad_hosts: set[tuple] = set()
    for h in topo.hosts.values():
        problem = hostname_problem(h.name.split("~")[0])
        if problem and h.src not in bad_hosts:
            bad_hosts.add(h.src)
            out.append(Finding("SEC002", f"host name {quote(h.name)} {problem}", src.loc((*h.src, "name")),
                               "use letters, digits and hyphens"))
    for path, message in topo.bad_cables:
        out.append(Finding("REF004", message, src.loc(path), "cabling entries name hosts and switches by hostname"))
    for obj, message, setting in topo.stride_overflows:
        out.append(Finding("PORT003", message, src.loc(obj), "raise the stride (ports move once, on purpose) or "
                           "use fewer links", related=tuple(x for x in (src.loc(setting),) if x)))
    out += _ports(inv, topo, src)
    out += _ports_off(inv, topo, src)
    out += _dense_downlinks(inv, topo, src)
    if inv.is_infiniband:  # no MTU in bytes, switch OS releases or BGP sessions (railfabric/checks/rules/ib_rules.py)
        return out
    out += _host_mtu(inv, topo, src)
    out += check_releases(inv, topo, src)
    out += check_sessions(inv, topo, src)
    return out


def _host_mtu(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    """MTU003: host_mtu above the MTU of a rail switch hosts attach to (one finding per platform)."""
    host_mtu = inv.fabric.host_mtu
    below: dict[str, list[Switch]] = defaultdict(list)
    for sw in topo.switches.values():
        if sw.role is Role.RAIL and switch_mtu(inv.fabric.mtu, sw.platform) < host_mtu:
            below[sw.platform].append(sw)
    out = []
    for platform, switches in sorted(below.items()):
        cap = switch_mtu(inv.fabric.mtu, platform)
        names = ", ".join(sw.name for sw in switches[:3]) + (f" and {len(switches) - 3} more" if len(switches) > 3
                                                                else "")
        out.append(Finding("MTU003", f"host_mtu {host_mtu} is above the MTU of {len(switches)} {platform} rail "
                           f"switch(es) ({names}): they carry at most {cap}", src.loc(("fabric", "host_mtu")),
                           f"use host_mtu: {min(9000, cap)} (RoCE path MTU 4096 still fits)",
                           related=tuple(x for x in (src.loc(switches[0].src),) if x)))
    return out


def _ports(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    """Links placed past the ports of their block (host ports, downlinks, uplinks), said with the block's real size
    from the model's port map. The solver adds the complete port budget (speeds, both ends) on top of this."""
    over_links: dict[tuple[str, str], int] = defaultdict(int)
    over_ports: dict[tuple[str, str], set[tuple[int | None, int]]] = defaultdict(set)
    limit = {name: inv.switch_models[sw.model].ports for name, sw in topo.switches.items()}
    host, peer = LinkRole.HOST, LinkRole.PEER
    for link in (*topo.links, *topo.peer_links):
        a, z = link.a, link.z
        if (z.port <= limit[z.device]) if link.role is host else (
                a.port <= limit[a.device] and z.port <= limit[z.device]):
            continue  # the common case: every end within its model's ports
        ends = (((z, "host"),) if link.role is host else
                ((a, "peer link"), (z, "peer link")) if link.role is peer else
                ((a, "uplink"), (z, "downlink")))
        for end, kind in ends:
            if end.port > limit[end.device]:
                over_links[(end.device, kind)] += 1
                over_ports[(end.device, kind)].add((link.rail, end.port))
    out: list[Finding] = _too_few_ports(inv, topo, src, {name for name, _kind in over_links})
    uses = Uses(inv, topo)
    for name, kind in sorted(over_links, key=lambda t: (topo.switches[t[0]].slot, t[1])):
        sw = topo.switches[name]
        model = inv.switch_models[sw.model]
        has_up = has_uplinks(inv, sw)
        block = port_block(model, kind, len(sw.rails), has_up, _peer_ports(inv, sw))
        n_over = len(over_ports[(name, kind)])
        disabled = sum(1 for p in block if p in sw.disabled_ports)
        notes = [f"{disabled} disabled"] if disabled else []
        if kind != "uplink" and has_up:
            notes.append(f"{format_ports(uplink_candidates(model))} are uplinks")
        out.append(Finding(
            "PORT001", f"{sw.role.value} switch {name}: {over_links[(name, kind)]} link(s) do not fit its {kind} "
            f"ports: model {sw.model!r} has {len(block)} (ports {format_ports(block) or 'none'}"
            f"{'; ' + '; '.join(notes) if notes else ''}) and {len(block) + n_over} are needed "
            f"({n_over} more port(s) needed)", src.loc(sw.src), _PORT001_HINT[kind], subject=tuple(sw.src),
            uses=uses.switch(name)))
    return out


def _too_few_ports(inv: Inventory, topo: Topology, src: SourceMap, over: set[str]) -> list[Finding]:
    """HW004: a switch model whose switches run out of ports under two or more of the objects that declare them
    (super-spines, spine blocks, segments): the model's port count is the common fault (a typo such as ports: 32),
    said once at its own line; each switch's PORT001 and the port clashes that follow are folded under it."""
    declared: dict[str, dict[tuple, None]] = defaultdict(dict)
    for name in sorted(over, key=lambda n: topo.switches[n].slot):
        sw = topo.switches[name]
        declared[sw.model][tuple(sw.src)] = None
    out: list[Finding] = []
    for model, objects in sorted(declared.items()):
        if len(objects) < 2:
            continue
        names = [n for n in sorted(over, key=lambda n: topo.switches[n].slot) if topo.switches[n].model == model]
        out.append(Finding(
            "HW004", f"switch model {model!r} has {inv.switch_models[model].ports} ports, too few for "
            f"{len(names)} of its switches ({', '.join(names[:3])}{' …' if len(names) > 3 else ''}) declared by "
            f"{len(objects)} different objects", src.loc(("switch_models", model, "ports")),
            "check the model's ports (and port_blocks); if it is right, give these tiers fewer links or a larger "
            "model", subject=switch_model(model)))
    return out


_PORT001_HINT = {
    "host": "use fewer hosts per switch, a larger model, or widen the model's port_blocks.rails",
    "downlink": "use fewer lower switches or links each, a larger model, or a smaller port_blocks.uplinks",
    "uplink": "use fewer upper switches or links each, or widen the model's port_blocks.uplinks",
    "peer link": "use fewer peer_link_ports, or name free ports in the model's port_blocks.peer_link",
}


def _peer_ports(inv: Inventory, sw: Switch) -> int:
    """Peer-link ports of the switch's segment (0 unless dual_homing: mlag)."""
    if sw.side is None:
        return 0
    for pod in inv.pods:
        for seg in pod.segments:
            if (pod.id, seg.id) == (sw.pod, sw.segment) and seg.dual_homing is DualHoming.MLAG:
                return seg.peer_link_ports or 2
    return 0


def has_uplinks(inv: Inventory, sw: Switch) -> bool:
    """Does the switch have a tier above it: a rail switch in a pod with spines, a spine under super-spines?"""
    if sw.role is Role.RAIL:
        return any(pod.id == sw.pod and pod.spines for pod in inv.pods)
    return sw.role is Role.SPINE and inv.super_spines is not None


def port_block(model: SwitchModel, kind: str, rails: int, has_uplinks: bool, peer_ports: int = 0
               ) -> tuple[int, ...]:
    """The ports of one block of a switch: 'host' (the union of its rail slots), 'downlink', 'uplink' or
    'peer link' (MLAG)."""
    if kind == "uplink":
        return uplink_candidates(model)
    if kind == "peer link":
        return peer_link_candidates(model, has_uplinks, peer_ports)
    if kind == "downlink":
        return downlink_candidates(model, has_uplinks)
    seen: dict[int, None] = {}
    for slot in range(max(rails, 1)):
        seen.update(dict.fromkeys(host_candidates(model, slot, has_uplinks, peer_ports)))
    return tuple(seen)


def _ports_off(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    """PORT005: links taken off because their generated port is disabled (nothing else moved)."""
    out: list[Finding] = []
    uses = Uses(inv, topo)
    free: dict[tuple[str, int], Iterator[tuple[int, int]]] = {}
    for link, _pos, end in sorted(topo.off, key=lambda t: t[0].id):
        sw = topo.switches[end.device]
        loc = src.loc(("devices", sw.key, "disabled_ports"))
        if link.role is not LinkRole.HOST:
            out.append(Finding("PORT005", f"{link.role.value} link {link.id} is left out: its port {sw.name} "
                               f"{end.label()} is disabled ({format_speed(end.speed)} less {link.role.value} "
                               "capacity)", loc, "repair the port and remove it from disabled_ports (`cabling:` pins "
                               "host cables only); no other link moved", severity=Severity.WARNING,
                               uses=uses.link(link)))
            continue
        host = link.a.device
        slots = free.setdefault((sw.name, end.speed), _free_positions(inv, topo, sw.name, end.speed))
        spare = next(slots, None)
        where = f"port: {spare[0]}" + (f", lane: {spare[1]}" if spare and spare[1] else "") if spare else "port: N"
        out.append(Finding(
            "PORT005", f"host {host} NIC {link.nic} port {link.a.port} (rail {link.rail}) has no switch port: its "
            f"port {sw.name} {end.label()} is disabled", loc,
            f"re-cable it under `cabling:`, e.g. {{host: {host}, nic: {link.nic}"
            f"{', nic_port: 2' if link.a.port == 2 else ''}, switch: {sw.name}, {where}}}"
            f"{' (a free port)' if spare else ''}; no other host moved", severity=Severity.WARNING,
            uses=uses.link(link)))
    return out


def _free_positions(inv: Inventory, topo: Topology, switch: str, speed: int) -> Iterator[tuple[int, int]]:
    """Free (port, lane) positions for a `speed` cable on the host ports of `switch`: enabled ports that carry
    nothing, or free lanes of a port already broken out for that speed; from the top of the block down, because
    new hosts take the block from the bottom up (a low spare port is where the next host would land)."""
    sw = topo.switches[switch]
    model = inv.switch_models[sw.model]
    used: dict[int, set[tuple[int, int]]] = defaultdict(set)  # port → {(lane, speed)}
    for link in topo.links:
        for end in (link.a, link.z):
            if end.device == switch:
                used[end.port].add((end.lane, end.speed))
    lanes = lanes_at(model.speed, model.breakouts, speed)
    for port in reversed(port_block(model, "host", len(sw.rails), has_uplinks(inv, sw), _peer_ports(inv, sw))):
        taken = used.get(port, set())
        if port in sw.disabled_ports or any(lane == 0 or s != speed for lane, s in taken):
            continue
        for lane in range(1, lanes + 1) if lanes > 1 else (0,):
            if (lane, speed) not in taken:
                yield port, lane


def _dense_downlinks(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    """TOPO005: spine / super-spine downlinks without a per-id stride are dense, so a lower id inserted (or an
    earlier segment or pod that grows) moves the upper end of every later cable. Say which stride pins them."""
    out: list[Finding] = []
    lim = inv.limits
    rail_count = {(info.pod, info.id): len(info.switches) for info in topo.segments}
    for pi, pod in enumerate(inv.pods):
        sp = pod.spines
        if sp is None or sp.ports_per_segment:
            continue
        ids = sorted(seg.id for seg in pod.segments)
        if ids == [1]:
            continue
        need = max(rail_count.get((pod.id, seg.id), 0) * (seg.links_per_spine or sp.links_per_rail_switch)
                   for seg in pod.segments)
        block = len(downlink_candidates(inv.switch_models[sp.model], inv.super_spines is not None))
        stride, room = _stride(block, need, ids[-1], lim.segments_per_pod)
        out.append(Finding(
            "TOPO005", f"pod {pod.id}: spine downlinks are dense (no spines.ports_per_segment) over segments "
            f"{', '.join(map(str, ids))}: a segment inserted with a lower id, or one that grows, moves the spine-side "
            "cables of every later segment", src.loc(("pods", pi, "spines")),
            f"pin them with spines.ports_per_segment: {stride} (the largest segment needs {need} port(s) per spine; "
            f"{room} segment id(s) × {stride} fit the {block} downlink ports); it re-cables once, now",
            severity=Severity.WARNING))
    ss = inv.super_spines
    pods = sorted((pod.id, pi, pod) for pi, pod in enumerate(inv.pods) if pod.spines)
    if ss is None or ss.ports_per_pod or not pods or [p for p, _, _ in pods] == [1]:
        return out
    planes = ss.planes or 1
    need = max(-(-pod.spines.count // planes) * pod.spines.links_per_super_spine for _, _, pod in pods if pod.spines)
    block = len(downlink_candidates(inv.switch_models[ss.model], False))
    stride, room = _stride(block, need, pods[-1][0], lim.pods)
    out.append(Finding(
        "TOPO005", f"super-spine downlinks are dense (no super_spines.ports_per_pod) over pods "
        f"{', '.join(str(p) for p, _, _ in pods)}: a pod inserted with a lower id, or a spine added to a pod, moves "
        "the super-spine-side cables of every later pod", src.loc(("super_spines",)),
        f"pin them with super_spines.ports_per_pod: {stride} (the largest pod needs {need} port(s) per super-spine; "
        f"{room} pod id(s) × {stride} fit the {block} downlink ports); it re-cables once, now",
        severity=Severity.WARNING))
    return out


def _stride(block: int, need: int, top_id: int, limit: int) -> tuple[int, int]:
    """The widest stride that fits today's need with as many ids as possible (up to the limit), and that id count."""
    for ids in range(max(limit, top_id), top_id - 1, -1):
        if block // ids >= need:
            return block // ids, ids
    return max(need, 1), top_id


def check_plan(inv: Inventory, topo: Topology, plan: Plan, src: SourceMap) -> list[Finding]:
    out: list[Finding] = []
    paths = {"loopbacks": ("pools", "loopbacks"), "fabric_links": ("pools", "fabric_links"),
             "rail_subnets": ("pools", "rail_subnets"), "management": ("pools", "management", "prefix")}
    for name, pool in plan.pools.items():
        if pool.shortfall:
            need = pool.highest + 1
            length = length_for(need)
            out.append(Finding(
                "POOL002", f"pool {name} {pool.prefix} has {pool.prefix.size:,} addresses; the plan places "
                f"{pool.highest_owner} at offset {pool.highest:,}, so it needs {pool.shortfall:,} more",
                src.loc(paths[name]), f"a /{length} holds the plan; or lower the limits that set the strides",
                subject=pool_of(name)))
    # pinned management addresses
    mg = inv.pools.management
    by_addr: dict[int, str] = {}
    pinned = {sw.name for sw in topo.switches.values() if sw.management is not None}
    for name, addr in plan.management.items():
        if name not in pinned:
            by_addr[addr] = name
    mg_pool = Prefix.of(mg.prefix)
    gw = plan.management_gateway
    for sw in topo.switches.values():
        if sw.management is None:
            continue
        path = ("devices", sw.key, "management")
        addr = sw.management
        if addr not in mg_pool:
            out.append(Finding("POOL003", f"management address {ntoa(addr)} of {sw.name} is outside the management "
                               f"pool {mg.prefix}", src.loc(path), "pick an address inside the pool",
                               uses=(pool_of("management"),)))
            continue
        other = by_addr.get(addr)
        if addr == gw:
            other = "the management gateway"
        if other:
            out.append(Finding("POOL004", f"management address {ntoa(addr)} of {sw.name} is already {other}'s",
                               src.loc(path), "pick a free address (see `fabric validate --format json` summary)",
                               uses=(pool_of("management"),)))
        else:
            by_addr[addr] = sw.name
    # rail subnets: segment blocks and host capacity
    block = inv.limits.segment_rail_block
    for info in topo.segments:
        need = plan.segment_needs[(info.pod, info.id)]
        block_size = size(block)
        if need > block_size:
            length = length_for(need)
            out.append(Finding(
                "POOL005", f"segment {info.pod}/{info.id} needs {need:,} rail addresses "
                f"({len(info.switches)} switch(es), /{info.prefix_len} per rail) but each segment gets a /{block} "
                f"({block_size:,})", src.loc((*info.src, "rail_prefix_len")),
                f"use a longer rail_prefix_len, or set limits.segment_rail_block to {length} or less"))
        top = max(info.host_numbers) if info.host_numbers else 0
        # less network, gateway and broadcast, and the MLAG switches' own SVI addresses at the top where the
        # platform needs them (allocate.own_address: hosts count up from the gateway and must stop below them)
        own = plan.segment_reserved.get((info.pod, info.id), 0)
        cap = size(info.prefix_len) - 3 - own
        if top > cap:
            kept = f" + {own} switch addresses" if own else ""
            why = ("; the two switches of each MLAG pair need their own address on every rail SVI beside the shared "
                   "gateway (the last two usable addresses)") if own else ""
            out.append(Finding(
                "POOL006", f"segment {info.pod}/{info.id}: host number {top} does not fit a /{info.prefix_len} rail "
                f"subnet (gateway{kept} + {max(cap, 0)} hosts){why}", src.loc((*info.src, "rail_prefix_len")),
                f"use rail_prefix_len {length_for(top + 3 + own)} or shorter"))
    out.extend(ipv6_plan(plan, src))
    return out


def summary(inv: Inventory, topo: Topology, plan: Plan | None) -> dict:
    roles = {r.value: 0 for r in Role}
    for sw in topo.switches.values():
        roles[sw.role.value] += 1
    by_role = Counter(link.role for link in topo.links)
    links = {role.value: n for role, n in by_role.items()}
    gpus = sum(h.gpus for h in topo.hosts.values())
    out: dict = {
        "fabric": inv.fabric.name,
        "switches": roles,
        "switches_total": len(topo.switches),
        "pods": len(inv.pods),
        "segments": len(topo.segments),
        "hosts": len(topo.hosts),
        "gpus": gpus,
        "links": dict(sorted(links.items())),
        "links_total": len(topo.links),
    }
    if plan is not None:
        out["pools"] = {
            name: {"prefix": str(p.prefix), "size": p.prefix.size, "used": p.used,
                   "used_pct": round(100 * p.used / p.prefix.size, 2),
                   "highest_offset": p.highest, "reach_pct": round(100 * (p.highest + 1) / p.prefix.size, 2)}
            for name, p in plan.pools.items()
        }
    return out


__all__ = ["Severity", "check_plan", "check_topology", "summary"]
