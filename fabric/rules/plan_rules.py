"""Rules on the expanded topology and the allocation: names, ports, pools."""

from __future__ import annotations

import difflib
from collections import Counter, defaultdict

from fabric.allocate import Plan, ntoa
from fabric.findings import Finding, Severity
from fabric.intent import Inventory
from fabric.load import SourceMap
from fabric.topology import LinkRole, Role, Topology
from fabric.units import hostname_problem


def check_topology(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    out: list[Finding] = []
    keys = {sw.key for sw in topo.switches.values()}
    for key in inv.devices:
        if key not in keys:
            close = difflib.get_close_matches(key, sorted(keys), n=1, cutoff=0.6)
            out.append(Finding("REF003", f"devices.{key}: no switch of the fabric has the pattern name {key!r}",
                               src.key_loc(("devices", key)),
                               f"did you mean {close[0]!r}?" if close else "keys are the names the patterns make"))
    for name, first, second in topo.name_clashes:
        out.append(Finding("ID003", f"name {name!r} is generated twice", src.loc(second),
                           "make the name patterns or hostname overrides unique", related=(src.loc(first),)))
    for sw in topo.switches.values():
        problem = hostname_problem(sw.name.split("~")[0])
        if problem:
            path = ("devices", sw.key, "hostname") if sw.overridden and inv.devices[sw.key].hostname else sw.src
            out.append(Finding("SEC002", f"switch name {sw.name!r} {problem}", src.loc(path),
                               "use letters, digits and hyphens (name patterns expand placeholders first)"))
    bad_hosts: set[tuple] = set()
    for h in topo.hosts.values():
        problem = hostname_problem(h.name.split("~")[0])
        if problem and h.src not in bad_hosts:
            bad_hosts.add(h.src)
            out.append(Finding("SEC002", f"host name {h.name!r} {problem}", src.loc((*h.src, "name")),
                               "use letters, digits and hyphens"))
    for path, message in topo.bad_cables:
        out.append(Finding("REF004", message, src.loc(path), "cabling entries name hosts and switches by hostname"))
    for obj, message, setting in topo.stride_overflows:
        out.append(Finding("PORT003", message, src.loc(obj), "raise the stride (ports move once, on purpose) or "
                           "use fewer links", related=tuple(x for x in (src.loc(setting),) if x)))
    out += _ports(inv, topo, src)
    return out


def _ports(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    """Links placed past a model's last port: their block (host ports, uplinks) is full.
    The solver adds the complete port budget (speeds, both ends) on top of this."""
    over_links: dict[str, int] = defaultdict(int)
    over_ports: dict[str, set[int]] = defaultdict(set)
    limit = {name: inv.switch_models[sw.model].ports for name, sw in topo.switches.items()}
    for link in topo.links:
        ends = (link.z,) if link.role is LinkRole.HOST else (link.a, link.z)
        for end in ends:
            if end.port > limit[end.device]:
                over_links[end.device] += 1
                over_ports[end.device].add(end.port)
    out: list[Finding] = []
    for name in sorted(over_links, key=lambda n: topo.switches[n].slot):
        sw = topo.switches[name]
        model = inv.switch_models[sw.model]
        disabled = f", {len(sw.disabled_ports)} disabled" if sw.disabled_ports else ""
        out.append(Finding(
            "PORT001", f"{sw.role.value} switch {name}: {over_links[name]} link(s) do not fit the ports of model "
            f"{sw.model!r} ({model.ports} ports{disabled}); {len(over_ports[name])} more port(s) needed",
            src.loc(sw.src), "use fewer hosts or links per switch, a larger model, or widen the model's port_blocks"))
    return out


def check_plan(inv: Inventory, topo: Topology, plan: Plan, src: SourceMap) -> list[Finding]:
    out: list[Finding] = []
    paths = {"loopbacks": ("pools", "loopbacks"), "fabric_links": ("pools", "fabric_links"),
             "rail_subnets": ("pools", "rail_subnets"), "management": ("pools", "management", "prefix")}
    for name, pool in plan.pools.items():
        if pool.shortfall:
            need = pool.highest + 1
            length = 32 - max(0, (need - 1).bit_length())
            out.append(Finding(
                "POOL002", f"pool {name} {pool.prefix} has {pool.prefix.size:,} addresses; the plan places "
                f"{pool.highest_owner} at offset {pool.highest:,}, so it needs {pool.shortfall:,} more",
                src.loc(paths[name]), f"a /{length} holds the plan; or lower the limits that set the strides"))
    # pinned management addresses
    mg = inv.pools.management
    by_addr: dict[int, str] = {}
    pinned = {sw.name for sw in topo.switches.values() if sw.management is not None}
    for name, addr in plan.management.items():
        if name not in pinned:
            by_addr[addr] = name
    gw = int(mg.gateway) if mg.gateway is not None else int(mg.prefix.first) + 1
    for sw in topo.switches.values():
        if sw.management is None:
            continue
        path = ("devices", sw.key, "management")
        addr = sw.management
        if not int(mg.prefix.first) <= addr <= int(mg.prefix.last):
            out.append(Finding("POOL003", f"management address {ntoa(addr)} of {sw.name} is outside the management "
                               f"pool {mg.prefix}", src.loc(path), "pick an address inside the pool"))
            continue
        other = by_addr.get(addr)
        if addr == gw:
            other = "the management gateway"
        if other:
            out.append(Finding("POOL004", f"management address {ntoa(addr)} of {sw.name} is already {other}'s",
                               src.loc(path), "pick a free address (see `fabric validate --format json` summary)"))
        else:
            by_addr[addr] = sw.name
    # rail subnets: segment blocks and host capacity
    block = inv.limits.segment_rail_block
    for info in topo.segments:
        need = plan.segment_needs[(info.pod, info.id)]
        size = 1 << (32 - block)
        if need > size:
            length = 32 - max(0, (need - 1).bit_length())
            out.append(Finding(
                "POOL005", f"segment {info.pod}/{info.id} needs {need:,} rail addresses "
                f"({len(info.switches)} switch(es), /{info.prefix_len} per rail) but each segment gets a /{block} "
                f"({size:,})", src.loc((*info.src, "rail_prefix_len")),
                f"use a longer rail_prefix_len, or set limits.segment_rail_block to {length} or less"))
        top = max(info.host_numbers) if info.host_numbers else 0
        cap = (1 << (32 - info.prefix_len)) - 3
        if top > cap:
            out.append(Finding(
                "POOL006", f"segment {info.pod}/{info.id}: host number {top} does not fit a /{info.prefix_len} rail "
                f"subnet (gateway + {cap} hosts)", src.loc((*info.src, "rail_prefix_len")),
                f"use rail_prefix_len {32 - (top + 2).bit_length()} or shorter"))
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
