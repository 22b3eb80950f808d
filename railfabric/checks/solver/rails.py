"""Rail mapping and port budget.

Rail mapping: NIC r of every host must land on a switch of its own segment that serves rail r, inside that rail's
port block when the model declares blocks; the two ports of a dual-homed NIC on two distinct switches; no switch port
carrying two cables. Generated cabling is right by construction, so these checks matter for explicit `cabling:`
entries (field re-cables) and for models whose blocks change.

Port budget: physical ports used, disabled and free per switch and per model (links placed past the last port are
PORT001, reported by the plan rules).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from itertools import compress
from typing import NamedTuple

from railfabric.checks.rules.uses import Uses
from railfabric.checks.solver.index import LinkIndex, link_index
from railfabric.core.finding import Finding
from railfabric.core.source_map import Location, SourceMap
from railfabric.core.units import format_speed, lanes_at
from railfabric.inventory.intent import Inventory, SwitchModel
from railfabric.topology import End, Link, LinkRole, Switch, Topology


def check_rails(inv: Inventory, topo: Topology, src: SourceMap,
                index: LinkIndex | None = None) -> tuple[dict, list[Finding]]:
    cable_index = {f"{c.host}:nic{c.nic}p{c.nic_port}": i for i, c in enumerate(inv.cabling)}

    def where(link_id: str, fallback: tuple) -> Location | None:
        if link_id in cable_index:
            return src.loc(("cabling", cable_index[link_id]))
        return src.loc(fallback)

    findings, host_links, miswired, nic_switches = _host_links(inv, topo, where)
    findings += _dual_nic_findings(topo, src, nic_switches)
    findings += check_port_use(inv, topo, where, index)
    report = {"host_links": host_links, "pinned_cables": len(topo.pinned), "miswired": miswired,
              "segments": _segments(topo)}
    return report, findings


def _host_links(inv: Inventory, topo: Topology, where: Callable[[str, tuple], Location | None]) \
        -> tuple[list[Finding], int, int, dict[tuple[str, int], list[str]]]:
    """Every host link against its NIC's rail (RAIL010), its own segment (RAIL011) and the rail's port block
    (RAIL012): (findings, host links, miswired links, each (host, NIC)'s switches in link order)."""
    findings: list[Finding] = []
    nic_switches: dict[tuple[str, int], list[str]] = defaultdict(list)
    miswired = host_links = 0
    uses = Uses(inv, topo)
    host_role, by_name, hosts = LinkRole.HOST, topo.switches, topo.hosts
    blocks_of: dict[str, list] = {}  # model → its rail port blocks
    for link in topo.links:
        if link.role is not host_role:
            continue
        host_links += 1
        sw = by_name[link.z.device]
        host = hosts[link.a.device]
        rail = link.rail
        nic_switches[(host.name, link.nic or 0)].append(sw.name)
        if sw.pod != host.pod or sw.segment != host.segment:
            miswired += 1
            subject = _subject(link, host.name)
            findings.append(Finding("RAIL011", f"{subject} is cabled to {sw.name} port {link.z.label()}, a switch of "
                                    f"{'pod ' + str(sw.pod) + ' segment ' + str(sw.segment) if sw.segment else sw.role}"
                                    f", not of its own segment {host.pod}/{host.segment}", where(link.id, host.src),
                                    "cable the NIC to its own segment's rail switch", uses=uses.link(link)))
            continue
        if rail not in sw.rails:
            miswired += 1
            right = [s for s in topo.switches.values() if (s.pod, s.segment) == (host.pod, host.segment)
                     and rail in s.rails]
            target = " or ".join(s.name for s in right) or f"a rail {rail} switch"
            subject = _subject(link, host.name)
            findings.append(Finding("RAIL010", f"{subject} is cabled to {sw.name} port {link.z.label()}, which serves "
                                    f"rail(s) {', '.join(map(str, sw.rails))}", where(link.id, host.src),
                                    f"NIC {link.nic} belongs on {target}", uses=uses.link(link)))
            continue
        blocks = blocks_of.get(sw.model)
        if blocks is None:
            model = inv.switch_models[sw.model]
            blocks = blocks_of[sw.model] = model.port_blocks.rails if model.port_blocks else []
        if not blocks:
            continue
        slot = sw.rails.index(rail)
        if slot < len(blocks) and link.z.port not in blocks[slot]:
            miswired += 1
            subject = _subject(link, host.name)
            findings.append(Finding("RAIL012", f"{subject} lands on {sw.name} port {link.z.label()}, outside "
                                    f"the rail's port block (slot {slot}: ports {', '.join(map(str, blocks[slot][:6]))}"
                                    f"{' …' if len(blocks[slot]) > 6 else ''})", where(link.id, host.src),
                                    f"use a port of model {sw.model!r} port_blocks.rails[{slot}]",
                                    uses=uses.link(link)))
    return findings, host_links, miswired, nic_switches


def _dual_nic_findings(topo: Topology, src: SourceMap,
                       nic_switches: dict[tuple[str, int], list[str]]) -> list[Finding]:
    """RAIL013: both ports of a dual-homed NIC on one switch."""
    findings: list[Finding] = []
    for (host_name, nic), switches in nic_switches.items():
        if len(switches) > 1 and len(set(switches)) < len(switches):
            h = topo.hosts[host_name]
            findings.append(Finding("RAIL013", f"both ports of NIC {nic} of host {host_name} land on {switches[0]}; a "
                                    "dual-homed NIC needs two distinct switches", src.loc(h.src),
                                    "cable port 2 to the other switch of the rail pair",
                                    uses=(("host_models", h.model), h.src)))
    return findings


def _segments(topo: Topology) -> list[dict]:
    """The report's segments: each one's design, host count and the switches of each rail."""
    segments = []
    for info in topo.segments:
        rails: dict[int, list[str]] = defaultdict(list)
        for name in info.switches:
            for r in topo.switches[name].rails:
                rails[r].append(name)
        segments.append({"pod": info.pod, "segment": info.id, "design": info.design.value,
                         "hosts": len(info.host_numbers), "rails": {str(r): v for r, v in sorted(rails.items())}})
    return segments


def _subject(link: Link, host: str) -> str:
    """How a rail finding names the host end of host link `link` (made only when there is a finding)."""
    return f"host {host} NIC {link.nic} port {link.a.port} (rail {link.rail})"


class _Use(NamedTuple):
    link: str
    lane: int
    lanes: int  # the port's breakout mode this cable needs: 1 native, n lanes, 0 no mode runs the speed
    speed: int

    def mode(self) -> str:
        return f"native {format_speed(self.speed)}" if self.lanes == 1 else f"{self.lanes}x{format_speed(self.speed)}"


def check_port_use(inv: Inventory, topo: Topology, where: Callable[[str, tuple], Location | None],
                   index: LinkIndex | None = None) -> list[Finding]:
    """Physical port use, whatever the link kind (host, uplink, core): a cable on a disabled port (PORT007), a lane
    that the port's mode does not have (PORT006), and two cables on one physical port (PORT002): a native port
    clashes with every lane of it, two lanes clash when equal, two cables at different breakout modes clash."""
    if _ports_fine(inv, topo, index or link_index(topo)):
        return []
    return _port_findings(inv, topo, where)


def _ports_fine(inv: Inventory, topo: Topology, index: LinkIndex) -> bool:
    """True when no cabled port can have a PORT002, PORT006 or PORT007, proven on sets of the ends' values (no
    per-port loop): no end on a disabled port; every distinct (switch, speed, lane) a valid lane of the mode its
    model runs that speed in (so lane 0 exactly on native ports); no two ends on one (switch, port, lane); one speed
    per physical port (one speed is one mode: the model is the switch's; looked at port by port only on the
    switches cabled at more than one speed). Then the cables of any port sit on distinct lanes, none native (two
    native ends would share lane 0), of one mode: what `_fits` accepts. False: `_port_findings` looks at every
    port."""
    devs, ports, lanes, speeds = index.end_devs, index.end_ports, index.end_lanes, index.end_speeds
    switches, models = topo.switches, inv.switch_models
    shapes = set(zip(devs, speeds, lanes, strict=True))
    for dev, speed, lane in shapes:
        model = models[switches[dev].model]
        mode = lanes_at(model.speed, model.breakouts, speed)
        if mode == 0 or (mode == 1) != (lane == 0) or lane > mode:
            return False
    with_disabled = {name for name, sw in switches.items() if sw.disabled_ports}
    if with_disabled:
        on = list(map(with_disabled.__contains__, devs))
        for dev, port in zip(compress(devs, on), compress(ports, on), strict=True):
            if port in switches[dev].disabled_ports:
                return False
    if len(set(zip(devs, ports, lanes, strict=True))) != len(devs):
        return False
    speeds_of = Counter(dev for dev, _speed in {(dev, speed) for dev, speed, _lane in shapes})
    mixed = {dev for dev, n in speeds_of.items() if n > 1}
    if mixed:
        on = list(map(mixed.__contains__, devs))
        speed_at: dict[tuple[str, int], int] = {}
        for dev, port, speed in zip(compress(devs, on), compress(ports, on), compress(speeds, on), strict=True):
            if speed_at.setdefault((dev, port), speed) != speed:
                return False
    return True


def _port_findings(inv: Inventory, topo: Topology, where: Callable[[str, tuple], Location | None]) -> list[Finding]:
    """`check_port_use`, port by port."""
    out: list[Finding] = []
    uses_of = Uses(inv, topo)
    # (switch, physical port) → its cables as _Use fields (plain tuples: there are hundreds of thousands)
    ports: dict[tuple[str, int], list[tuple[str, int, int, int]]] = defaultdict(list)
    lanes_of: dict[tuple[str, int], int] = {}  # (model, speed) → lanes_at of the model at that speed
    switches, models, host_role = topo.switches, inv.switch_models, LinkRole.HOST
    for link in (*topo.links, *topo.peer_links):
        link_id = link.id
        for end in (link.z,) if link.role is host_role else (link.a, link.z):
            dev, port, lane, speed = end
            sw = switches[dev]
            lanes = lanes_of.get((sw.model, speed))
            if lanes is None:
                model = models[sw.model]
                lanes = lanes_of[(sw.model, speed)] = lanes_at(model.speed, model.breakouts, speed)
            ports[(dev, port)].append((link_id, lane, lanes, speed))
            disabled = port in sw.disabled_ports
            if disabled or lanes == 0 or (lanes == 1) != (lane == 0) or lane > lanes:
                out += _end_findings(link_id, end, sw, models[sw.model], lanes, disabled, where(link_id, sw.src),
                                     uses_of.link(link))
    by_id: dict[str, Link] = {}  # built on the first PORT002 only
    for (dev, port), uses in ports.items():
        if len(uses) > 1 and not _fits(uses):
            problem = _clash(port, [_Use(*u) for u in uses])
            if problem:
                pinned = [u[0] for u in uses if u[0] in topo.pinned] or [uses[0][0]]
                by_id = by_id or {link.id: link for link in (*topo.links, *topo.peer_links)}
                derived = tuple(dict.fromkeys(o for u in uses if u[0] in by_id for o in uses_of.link(by_id[u[0]])))
                out.append(Finding("PORT002", f"switch {dev} port {problem}", where(pinned[0], topo.switches[dev].src),
                                   "give each cable its own physical port (a native port takes one cable, a broken-out "
                                   "port one cable per lane, all at one breakout mode)", uses=derived))
    return out


def _end_findings(link_id: str, end: End, sw: Switch, model: SwitchModel, lanes: int, disabled: bool,
                  at: Location | None, uses: tuple = ()) -> list[Finding]:
    """PORT007 and PORT006 of one cable end (only called for an end that has one of them)."""
    out: list[Finding] = []
    use = _Use(link_id, end.lane, lanes, end.speed)
    if disabled:
        out.append(Finding("PORT007", f"{link_id} is cabled to {sw.name} port {end.label()}, a disabled port",
                           at, f"pick an enabled port, or take {end.port} out of devices.{sw.key}."
                           "disabled_ports once it is repaired", uses=uses))
    if use.lanes == 0 or (use.lanes == 1) != (use.lane == 0) or use.lane > use.lanes:
        out.append(Finding("PORT006", f"{link_id} is cabled to {sw.name} port {end.label()} at "
                           f"{format_speed(end.speed)}, {_lane_problem(model, use)}", at,
                           f"model {sw.model!r} runs {format_speed(end.speed)} "
                           + (f"as {use.mode()}: {_lane_hint(use)}" if use.lanes else "in no mode"), uses=uses))
    return out


def _fits(uses: list[tuple[str, int, int, int]]) -> bool:
    """True when the cables of one port sit on distinct lanes (none native) of one breakout mode: the common case
    of a broken-out port, where `_clash` returns ''; False means `_clash` must look."""
    if len(uses) == 2:  # the commonest: two lanes of a 2-lane breakout, without building sets
        (_l1, lane1, lanes1, speed1), (_l2, lane2, lanes2, speed2) = uses
        return lane1 != lane2 and lane1 != 0 and lane2 != 0 and lanes1 == lanes2 and speed1 == speed2
    first = uses[0]
    lanes = {u[1] for u in uses}
    return (len(lanes) == len(uses) and 0 not in lanes
            and all(u[2] == first[2] and u[3] == first[3] for u in uses))


def _clash(port: int, uses: list[_Use]) -> str:
    """What is wrong with several cables on one physical port ('' when they fit: distinct lanes of one mode)."""
    port_uses = sorted(uses, key=lambda u: (u.lane, u.link))
    by_lane: dict[int, list[str]] = defaultdict(list)
    for u in port_uses:
        by_lane[u.lane].append(u.link)
    native = by_lane.get(0, [])
    if native and len(by_lane) > 1:
        lanes = [u for u in port_uses if u.lane]
        return (f"{port} carries a native cable ({', '.join(native[:3])}) and breakout lane(s) "
                f"{', '.join(f'{port}/{u.lane} ({u.link})' for u in lanes[:3])}: a native port takes one cable")
    for lane, ids in by_lane.items():
        if len(ids) > 1:
            return f"{port}{'/' + str(lane) if lane else ''} carries {len(ids)} cables: {', '.join(ids[:3])}"
    modes = sorted({u.mode() for u in port_uses})
    if len(modes) > 1:
        per = "; ".join(f"{m}: {', '.join(u.link for u in port_uses if u.mode() == m)}" for m in modes)
        return f"{port} is cabled at {len(modes)} breakout modes ({per}); one port runs one mode"
    return ""


def _lane_problem(model: SwitchModel, use: _Use) -> str:
    if use.lanes == 0:
        return f"a speed model {format_speed(model.speed)} ports cannot run"
    if use.lanes == 1:
        return f"a native speed: there is no lane {use.lane}"
    return f"a {use.mode()} breakout: lane {use.lane} does not exist" if use.lane else \
        f"a {use.mode()} breakout: the lane is missing"


def _lane_hint(use: _Use) -> str:
    return "lane: 0 (or leave lane out)" if use.lanes == 1 else f"lane 1 to {use.lanes}"


def check_ports(inv: Inventory, topo: Topology, src: SourceMap) -> tuple[dict, list[Finding]]:
    findings: list[Finding] = []
    used: dict[str, set[int]] = defaultdict(set)
    host = LinkRole.HOST
    for link in topo.links:
        a, z = link.a, link.z
        if a.speed != z.speed:
            findings.append(Finding("PORT004", f"link {link.id} runs at {a.speed}G on {a.device} but "
                                    f"{z.speed}G on {z.device}", src.loc(topo.switches[z.device].src),
                                    "both ends of a link need the same speed", uses=Uses(inv, topo).link(link)))
        used[z.device].add(z.port)
        if link.role is not host:
            used[a.device].add(a.port)
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
