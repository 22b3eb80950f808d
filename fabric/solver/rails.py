"""Rail mapping and port budget.

Rail mapping: NIC r of every host must land on a switch of its own segment that serves rail r, inside that rail's
port block when the model declares blocks; the two ports of a dual-homed NIC on two distinct switches; no switch port
carrying two cables. Generated cabling is right by construction, so these checks matter for explicit `cabling:`
entries (field re-cables) and for models whose blocks change.

Port budget: physical ports used, disabled and free per switch and per model (links placed past the last port are
PORT001, reported by the plan rules).
"""

from __future__ import annotations

from collections import defaultdict

from fabric.findings import Finding
from fabric.intent import Inventory
from fabric.load import SourceMap
from fabric.topology import LinkRole, Topology


def check_rails(inv: Inventory, topo: Topology, src: SourceMap) -> tuple[dict, list[Finding]]:
    findings: list[Finding] = []
    cable_index = {f"{c.host}:nic{c.nic}p{c.nic_port}": i for i, c in enumerate(inv.cabling)}
    on_port: dict[tuple[str, int, int], list[str]] = defaultdict(list)
    nic_switches: dict[tuple[str, int], list[str]] = defaultdict(list)
    miswired = 0

    def where(link_id: str, fallback: tuple):
        if link_id in cable_index:
            return src.loc(("cabling", cable_index[link_id]))
        return src.loc(fallback)

    for link in topo.links:
        on_port[(link.z.device, link.z.port, link.z.lane)].append(link.id)
        if link.role is not LinkRole.HOST:
            on_port[(link.a.device, link.a.port, link.a.lane)].append(link.id)
            continue
        sw = topo.switches[link.z.device]
        host = topo.hosts[link.a.device]
        rail = link.rail
        port = f"{link.z.port}/{link.z.lane}" if link.z.lane else str(link.z.port)
        nic_switches[(host.name, link.nic or 0)].append(sw.name)
        subject = f"host {host.name} NIC {link.nic} port {link.a.port} (rail {rail})"
        if (sw.pod, sw.segment) != (host.pod, host.segment):
            miswired += 1
            findings.append(Finding("RAIL011", f"{subject} is cabled to {sw.name} port {port}, a switch of "
                                    f"{'pod ' + str(sw.pod) + ' segment ' + str(sw.segment) if sw.segment else sw.role}"
                                    f", not of its own segment {host.pod}/{host.segment}", where(link.id, host.src),
                                    "cable the NIC to its own segment's rail switch"))
            continue
        if rail not in sw.rails:
            miswired += 1
            right = [s for s in topo.switches.values() if (s.pod, s.segment) == (host.pod, host.segment)
                     and rail in s.rails]
            target = " or ".join(s.name for s in right) or f"a rail {rail} switch"
            findings.append(Finding("RAIL010", f"{subject} is cabled to {sw.name} port {port}, which serves rail(s) "
                                    f"{', '.join(map(str, sw.rails))}", where(link.id, host.src),
                                    f"NIC {link.nic} belongs on {target}"))
            continue
        model = inv.switch_models[sw.model]
        blocks = model.port_blocks.rails if model.port_blocks else []
        slot = sw.rails.index(rail)
        if blocks and slot < len(blocks) and link.z.port not in blocks[slot]:
            miswired += 1
            findings.append(Finding("RAIL012", f"{subject} lands on {sw.name} port {port}, outside the rail's port "
                                    f"block (slot {slot}: ports {', '.join(map(str, blocks[slot][:6]))}"
                                    f"{' …' if len(blocks[slot]) > 6 else ''})", where(link.id, host.src),
                                    f"use a port of model {sw.model!r} port_blocks.rails[{slot}]"))
    for (host, nic), switches in nic_switches.items():
        if len(switches) > 1 and len(set(switches)) < len(switches):
            h = topo.hosts[host]
            findings.append(Finding("RAIL013", f"both ports of NIC {nic} of host {host} land on {switches[0]}; a "
                                    "dual-homed NIC needs two distinct switches", src.loc(h.src),
                                    "cable port 2 to the other switch of the rail pair"))
    for (dev, port, lane), ids in on_port.items():
        if len(ids) > 1:
            label = f"{port}/{lane}" if lane else str(port)
            first = ids[0]
            loc = where(ids[1], topo.switches[dev].src) if ids[1] in cable_index else where(first,
                                                                                             topo.switches[dev].src)
            findings.append(Finding("PORT002", f"switch {dev} port {label} carries {len(ids)} cables: "
                                    f"{', '.join(ids[:3])}", loc, "give each cable its own port"))
    segments = []
    for info in topo.segments:
        rails: dict[int, list[str]] = defaultdict(list)
        for name in info.switches:
            for r in topo.switches[name].rails:
                rails[r].append(name)
        segments.append({"pod": info.pod, "segment": info.id, "design": info.design.value,
                         "hosts": len(info.host_numbers), "rails": {str(r): v for r, v in sorted(rails.items())}})
    host_links = sum(1 for link in topo.links if link.role is LinkRole.HOST)
    report = {"host_links": host_links, "pinned_cables": len(topo.pinned), "miswired": miswired,
              "segments": segments}
    return report, findings


def check_ports(inv: Inventory, topo: Topology, src: SourceMap) -> tuple[dict, list[Finding]]:
    findings: list[Finding] = []
    used: dict[str, set[int]] = defaultdict(set)
    for link in topo.links:
        if link.a.speed != link.z.speed:
            findings.append(Finding("PORT004", f"link {link.id} runs at {link.a.speed}G on {link.a.device} but "
                                    f"{link.z.speed}G on {link.z.device}", src.loc(topo.switches[link.z.device].src),
                                    "both ends of a link need the same speed"))
        used[link.z.device].add(link.z.port)
        if link.role is not LinkRole.HOST:
            used[link.a.device].add(link.a.port)
    models: dict[str, dict] = {}
    switches = {}
    for name, sw in topo.switches.items():
        total = inv.switch_models[sw.model].ports
        n_used = len(used[name])
        disabled = len(sw.disabled_ports)
        free = max(0, total - n_used - disabled)
        switches[name] = {"model": sw.model, "ports": total, "used": n_used, "disabled": disabled, "free": free}
        m = models.setdefault(sw.model, {"switches": 0, "ports": 0, "used": 0, "disabled": 0, "free": 0})
        m["switches"] += 1
        m["ports"] += total
        m["used"] += n_used
        m["disabled"] += disabled
        m["free"] += free
    return {"models": dict(sorted(models.items())), "switches": switches}, findings
