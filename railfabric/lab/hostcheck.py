"""What the built GPU hosts must show, from the plan (rail map, switch routing model), and reading it back.

Per built NIC port: the interface (host end up at the planned host MTU with the planned address, switch end in the
rail SVI's bridge at the switch port's MTU), a policy rule `from <planned address>`. Pings, DF, sourced from the NIC's
planned address (`ping -I <address>`):
- same rail: from every NIC to the NICs of the same rail on every built host of the other segments (pods too); with
  one segment in the lab, to the other built hosts of that segment. At the host MTU: pass where the plan routes both
  rail subnets between the two rail switches (the path-vector model of expect.py), fail where it does not (a
  rail-only pod). Per NIC once more at host MTU + 1 to its first passing destination: must fail (the host MTU is the
  NIC's, below the switch MTU, so the NIC itself refuses the bigger packet).
- cross rail: from every NIC to one NIC on another rail (the next rail of the next built host): pass or fail as the
  plan routes the two subnets (through the spines; nowhere in a rail-only pod).
Every pair pinged is also looked up: `ip route get <dst> from <src>` in the host must leave through the source's NIC
(and the rail gateway when the destination is off the NIC's subnet); where the plan gives no path, no route or the
source's NIC, never another rail's NIC (what a main-table route does when a rail's table has no match).
"""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from railfabric.core.address import Prefix
from railfabric.lab.expect import Expected, Ping
from railfabric.lab.hosts import HostNic, LabHost
from railfabric.lab.model import LabSpec
from railfabric.lab.verify import Check


@dataclass(frozen=True, slots=True)
class HostPing:
    ping: Ping  # ping.node is the source host
    nic: str  # source NIC's interface in the host namespace
    gateway: str | None  # expected next hop (None: on the NIC's own subnet)


@dataclass
class HostExpected:
    same_rail: list[HostPing]
    cross_rail: list[HostPing]


def _prefix(address: str) -> Prefix:
    return Prefix.parse(address, strict=False)


def _reaches(exp: Expected, switch: str, target: Prefix) -> bool:
    """The plan gives `switch` a route (or a connected subnet) covering `target`."""
    return any(_prefix(p).covers(target) for p in (*exp.local[switch], *exp.routes[switch]))


def _reachable(exp: Expected, a: HostNic, b: HostNic) -> bool:
    pa, pb = _prefix(a.plan.address), _prefix(b.plan.address)
    return _reaches(exp, a.plan.switch, pb) and _reaches(exp, b.plan.switch, pa)


def _ping(src_host: LabHost, a: HostNic, dst_host: LabHost, b: HostNic, size: int, ok: bool, why: str) -> HostPing:
    where = (f"{src_host.name} {a.ifname} {a.plan.ip} (rail {a.plan.rail}) -> {dst_host.name} {b.ifname} {b.plan.ip} "
             f"(rail {b.plan.rail})")
    on_link = _prefix(a.plan.address).covers(_prefix(b.plan.address))
    return HostPing(Ping(src_host.name, a.plan.ip, b.plan.ip, dst_host.name, size, ok, f"{where}: {why}"), a.ifname,
                    None if on_link else a.plan.gateway)


def host_expected(spec: LabSpec, exp: Expected) -> HostExpected:
    hosts = list(spec.hosts.values())
    segments = {(h.pod, h.segment) for h in hosts}
    same: list[HostPing] = []
    cross: list[HostPing] = []
    for i, h in enumerate(hosts):
        peers = [g for g in hosts if g is not h and ((g.pod, g.segment) != (h.pod, h.segment) or len(segments) == 1)]
        nxt = hosts[(i + 1) % len(hosts)] if len(hosts) > 1 else None
        for a in h.nics:
            first_ok = None
            for g in peers:
                for b in g.nics:
                    if b.plan.rail != a.plan.rail:
                        continue
                    ok = _reachable(exp, a, b)
                    why = f"same rail at host MTU {a.plan.mtu}" + ("" if ok else " (no planned path)")
                    same.append(_ping(h, a, g, b, a.plan.mtu, ok, why))
                    if ok and first_ok is None:
                        first_ok = (g, b)
            if first_ok is not None:
                g, b = first_ok
                same.append(_ping(h, a, g, b, a.plan.mtu + 1, False, f"host MTU {a.plan.mtu} + 1 (the NIC's limit)"))
            if nxt is not None:
                rails = sorted({b.plan.rail for b in nxt.nics if b.plan.rail != a.plan.rail})
                if rails:
                    want = next((r for r in rails if r > a.plan.rail), rails[0])
                    b = next(b for b in nxt.nics if b.plan.rail == want)
                    ok = _reachable(exp, a, b)
                    cross.append(_ping(h, a, nxt, b, a.plan.mtu, ok, "another rail: " + (
                        "routed through the fabric" if ok else "no planned path (rails isolated)")))
    return HostExpected(same, cross)


# --------------------------------------------------------------------------- reading the hosts back


def _ip_json(ns: str, *args: str) -> list:
    proc = subprocess.run(["ip", "-n", ns, "-j", *args], capture_output=True, text=True, timeout=30)
    try:
        return json.loads(proc.stdout or "[]")
    except ValueError:
        return []


def host_interfaces(spec: LabSpec, pool: ThreadPoolExecutor) -> tuple[Check, Check]:
    """Per NIC: host end up with the planned MTU and address, switch end in the planned bridge at the switch port's
    MTU; and a policy rule from the planned address."""
    ifs, rules = Check(), Check()
    hosts = list(spec.hosts.values())

    def read(h: LabHost) -> tuple[list, list, dict[str, list]]:
        switches = {n.plan.switch for n in h.nics}
        return (_ip_json(h.ns, "addr", "show"), _ip_json(h.ns, "rule", "show"),
                {s: _ip_json(spec.nodes[s].ns, "link", "show") for s in switches})

    for h, (links, rule_list, sw_links) in zip(hosts, pool.map(read, hosts), strict=True):
        for nic in h.nics:
            p = nic.plan
            link = next((x for x in links if x.get("ifname") == nic.ifname), None)
            problems = []
            if link is None:
                problems.append("missing")
            else:
                addrs = {f"{a['local']}/{a['prefixlen']}" for a in link.get("addr_info", [])
                         if a.get("family") == "inet"}
                if "UP" not in link.get("flags", []) or "LOWER_UP" not in link.get("flags", []):
                    problems.append(f"state {link.get('operstate')}")
                if link.get("mtu") != p.mtu:
                    problems.append(f"mtu {link.get('mtu')}, plan {p.mtu}")
                if p.address not in addrs:
                    problems.append(f"address {', '.join(sorted(addrs)) or 'none'}, plan {p.address}")
            sw = next((x for x in sw_links[p.switch] if x.get("ifname") == p.switch_if), None)
            if sw is None:
                problems.append(f"switch end {p.switch}:{p.switch_if} missing")
            else:
                if sw.get("master") != f"Vlan{p.vlan}":
                    problems.append(f"switch end {p.switch}:{p.switch_if} in {sw.get('master')}, plan Vlan{p.vlan}")
                if sw.get("mtu") != nic.switch_mtu:
                    problems.append(f"switch end mtu {sw.get('mtu')}, plan {nic.switch_mtu}")
            ifs.ok(not problems, f"{h.name}: {nic.ifname} (NIC {p.nic} port {p.port}, rail {p.rail}) "
                                 + "; ".join(problems))
            has = [r for r in rule_list if r.get("src") == p.ip and r.get("table") not in (None, "main", "local")]
            rules.ok(bool(has), f"{h.name}: no ip rule from {p.ip} ({nic.ifname}, rail {p.rail}): its traffic "
                                "follows the main table, plan: policy routing per rail NIC")
    return ifs, rules


def egress(spec: LabSpec, todo: list[HostPing], pool: ThreadPoolExecutor) -> Check:
    """`ip route get <dst> from <src>` in the source host: through the source's NIC (and the rail gateway off the
    NIC's subnet) where the plan gives a path; where it gives none, no route or the source's NIC, never another NIC
    (a main-table route that pulls the traffic onto another rail)."""
    check = Check()

    def one(hp: HostPing) -> str:
        got = _ip_json(spec.hosts[hp.ping.node].ns, "route", "get", hp.ping.dst, "from", hp.ping.src)
        if not got:
            return "no route" if hp.ping.expect_ok else ""
        dev, via = got[0].get("dev"), got[0].get("gateway")
        problems = []
        if dev != hp.nic:
            problems.append(f"leaves through {dev}" + (f" via {via}" if via else "") + f", plan {hp.nic}"
                            + ("" if hp.ping.expect_ok else " or no route (no planned path)"))
        elif hp.ping.expect_ok and hp.gateway and via != hp.gateway:
            problems.append(f"via {via or 'no gateway'}, plan {hp.gateway}")
        return "; ".join(problems)

    for hp, bad in zip(todo, pool.map(one, todo), strict=True):
        check.ok(not bad, f"{hp.ping.why.split(':')[0]}: route get: {bad}")
    return check


def egress_todo(hx: HostExpected) -> list[HostPing]:
    """One route lookup per source and destination pinged (the MTU + 1 probe repeats a pair)."""
    seen: dict[tuple[str, str], HostPing] = {}
    for hp in hx.same_rail + hx.cross_rail:
        seen.setdefault((hp.ping.src, hp.ping.dst), hp)
    return list(seen.values())
