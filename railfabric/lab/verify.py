"""Read the running lab (vtysh JSON, `ip -j`, ping) and compare it with the plan's expectations."""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from railfabric.lab.expect import Expected, Ping, Session
from railfabric.lab.model import LabNode, LabSpec

CATEGORIES = (
    ("config", "frr.conf loaded clean (vtysh -b)"),
    ("interfaces", "interfaces up, planned MTU and address"),
    ("asn", "local ASN as planned"),
    ("sessions", "BGP sessions Established, remote AS as planned"),
    ("bfd", "BFD sessions up at both ends"),
    ("bfd-timers", "BFD timers FRR runs as planned (interval, multiplier)"),
    ("link-local", "unnumbered: BGP peer = fe80:: of planned interface"),
    ("rail-routes", "rail prefixes at rail switches, ECMP as planned"),
    ("other-routes", "other routes (loopbacks, spines, super-spines)"),
    ("absent", "suppressed / unreachable prefixes absent"),
    ("unexpected", "no unplanned BGP routes"),
    ("ipv6-routes", "dual-stack: IPv6 prefixes, ECMP as planned"),
    ("link-pings", "DF ping across each link at its MTU"),
    ("rail-pings", "DF pings SVI to SVI (pass / fail as planned)"),
    ("host-interfaces", "host NICs: up, planned MTU/address, on the rail SVI"),
    ("host-rules", "host policy rule from each NIC address"),
    ("host-egress", "host traffic leaves through its rail's NIC"),
    ("host-pings", "DF pings host NIC to NIC, same rail (as planned)"),
    ("cross-rail", "pings between rails (pass / fail as planned)"),
)

# checked only where the plan has unnumbered sessions (routing.addressing: unnumbered): a numbered lab neither runs
# nor lists them (railfabric/lab/linklocal.py)
UNNUMBERED_ONLY = frozenset({"link-local"})
# checked only on a dual-stack fabric (routing.address_families with ipv6): the IPv6 unicast family's routes at every
# switch (rail /64s and summaries, loopback /128s) at their planned ECMP width, the absent ones absent, none unplanned
DUAL_STACK_ONLY = frozenset({"ipv6-routes"})


def categories(exp: Expected) -> tuple[tuple[str, str], ...]:
    """The check categories of a run of `exp`: every one, less UNNUMBERED_ONLY where no planned session is
    unnumbered and DUAL_STACK_ONLY where no switch is dual-stack."""
    drop: set[str] = set()
    if not any(s.unnumbered for s in exp.sessions):
        drop |= UNNUMBERED_ONLY
    if not exp.routes_v6:
        drop |= DUAL_STACK_ONLY
    return tuple(c for c in CATEGORIES if c[0] not in drop)


@dataclass
class Check:
    total: int = 0
    bad: list[str] = field(default_factory=list)

    def ok(self, good: bool, what: str) -> None:
        self.total += 1
        if not good:
            self.bad.append(what)


@dataclass
class Observed:
    summary: dict
    bfd: list
    routes: dict
    error: str = ""
    local_as: int | None = None
    routes_v6: dict = field(default_factory=dict)  # `show ipv6 route json` of a dual-stack switch


def _decode_all(text: str) -> list:
    dec = json.JSONDecoder()
    out: list[object] = []
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        obj, i = dec.raw_decode(text, i)
        out.append(obj)


Vtysh = Callable[..., subprocess.CompletedProcess]  # Instances.vtysh: (node, *args) → the finished vtysh run


def observe(node: LabNode, vtysh: Vtysh) -> Observed:
    proc = vtysh(node, "-c", "show bgp summary json", "-c", "show bfd peers json", "-c", "show ip route json")
    try:
        docs = _decode_all(proc.stdout)
    except ValueError as exc:
        return Observed({}, [], {}, f"unreadable vtysh output: {exc}")
    if len(docs) != 3:
        return Observed({}, [], {}, f"vtysh answered {len(docs)} of 3 commands: {proc.stderr.strip()[:200]}")
    o = Observed(docs[0] or {}, docs[1] or [], docs[2] or {})
    if node.device.loopback_v6:  # dual-stack
        with contextlib.suppress(ValueError):
            o.routes_v6 = json.loads(vtysh(node, "-c", "show ipv6 route json").stdout or "{}")
    o.local_as = (o.summary.get("ipv4Unicast") or {}).get("as") if isinstance(o.summary, dict) else None
    if o.local_as is None:  # a BGP instance without neighbours has an empty summary; its table header has the AS
        with contextlib.suppress(ValueError):
            o.local_as = json.loads(vtysh(node, "-c", "show bgp ipv4 unicast json").stdout or "{}").get("localAS")
    return o


def observe_all(spec: LabSpec, vtysh: Vtysh, pool: ThreadPoolExecutor) -> dict[str, Observed]:
    nodes = list(spec.nodes.values())
    return dict(zip((n.name for n in nodes), pool.map(lambda n: observe(n, vtysh), nodes), strict=True))


def bfd_timers_seen(peer: dict, s: Session, node: str, peer_ip: str) -> tuple[bool, str]:
    """Whether the BFD peer FRR shows (`show bfd peers json`: receive-interval, transmit-interval, detect-multiplier,
    the local side's, in ms) runs the session's planned timers, and the mismatch text naming the session."""
    got = (peer.get("receive-interval"), peer.get("transmit-interval"), peer.get("detect-multiplier"))
    want = (s.bfd_interval, s.bfd_interval, s.bfd_multiplier)
    shown = "/".join("?" if v is None else str(v) for v in got) if peer else "no BFD peer"
    return got == want, (f"{s.label}: BFD at {node} toward {peer_ip} rx/tx/multiplier {shown}, plan "
                         f"{want[0]}/{want[1]}/{want[2]}")


def control_plane(spec: LabSpec, exp: Expected, obs: dict[str, Observed],
                  reasons: dict[tuple[str, str], str] | None = None) -> dict[str, Check]:
    """ASN, sessions, BFD and routing tables against the plan. `reasons`: (node, peer ip) → why a session is down."""
    reasons = reasons or {}
    checks = {k: Check() for k in ("asn", "sessions", "bfd", "bfd-timers", "rail-routes", "other-routes", "absent",
                                   "unexpected")}
    if exp.routes_v6:
        checks["ipv6-routes"] = ipv6_routes(exp, obs)
    peers: dict[str, dict] = {}
    bfd: dict[str, dict] = {}
    bfd_if: dict[str, dict] = {}  # link-local BFD peers by interface (unnumbered sessions)
    for name, o in obs.items():
        v4 = o.summary.get("ipv4Unicast", {}) if isinstance(o.summary, dict) else {}
        peers[name] = v4.get("peers", {})
        bfd[name] = {p.get("peer"): p for p in o.bfd if isinstance(p, dict)}
        bfd_if[name] = {p.get("interface"): p for p in o.bfd
                        if isinstance(p, dict) and str(p.get("peer", "")).startswith("fe80:")}
        planned = spec.nodes[name].device.bgp.asn
        got = o.local_as
        checks["asn"].ok(got == planned, f"{name}: local AS {got if got is not None else o.error or 'none'}, "
                                         f"plan {planned}")
    for s in exp.sessions:
        ends = ((s.a, s.peer_key(s.a), s.z_as), (s.z, s.peer_key(s.z), s.a_as))
        states = []
        for node, peer_ip, peer_as in ends:
            p = peers[node].get(peer_ip, {})
            state = p.get("state", "missing")
            if state == "Established" and p.get("remoteAs") != peer_as:
                state = f"Established with AS {p.get('remoteAs')}"
            elif state != "Established" and (node, peer_ip) in reasons:
                state += f" ({reasons[(node, peer_ip)]})"
            states.append(state)
        checks["sessions"].ok(all(st == "Established" for st in states),
                              f"{s.label}: {states[0]} / {states[1]} (plan AS {s.a_as} <-> {s.z_as})")
        if s.bfd:  # an unnumbered session's BFD peer is the link-local address on the session's interface
            st = [(bfd_if if s.unnumbered else bfd)[node].get(s.peer_key(node), {}).get("status", "missing")
                  for node in (s.a, s.z)]
            checks["bfd"].ok(st == ["up", "up"], f"{s.label}: BFD {st[0]} / {st[1]}")
        if s.bfd and s.bfd_interval:  # the same BFD peer as above, numbered or unnumbered
            for node in (s.a, s.z):
                key = s.peer_key(node)
                checks["bfd-timers"].ok(*bfd_timers_seen((bfd_if if s.unnumbered else bfd)[node].get(key, {}), s,
                                                         node, key))
    for name, o in obs.items():
        rib = _bgp_rib(o.routes)
        want = exp.routes[name]
        rail_set = set()
        if spec.nodes[name].device.role == "rail":
            for other, prefixes in exp.rail_prefixes.items():
                if other != name:
                    rail_set |= prefixes
        for prefix, ecmp in sorted(want.items()):
            got = rib.get(prefix)
            cat = "rail-routes" if prefix in rail_set else "other-routes"
            checks[cat].ok(got == ecmp, f"{name}: {prefix} " + (f"with {got} next-hop(s), plan {ecmp}" if got
                                                                  else f"missing, plan {ecmp} next-hop(s)"))
        for prefix in sorted(exp.absent[name]):
            present = prefix in o.routes
            why = "suppressed by a summary-only aggregate" if prefix in exp.suppressed else "no planned path"
            checks["absent"].ok(not present, f"{name}: {prefix} present ({_describe(o.routes.get(prefix))}), "
                                             f"plan: absent ({why})")
        extra = sorted(p for p in rib if p not in want and p not in exp.local[name] and p not in exp.absent[name])
        checks["unexpected"].ok(not extra, f"{name}: unplanned BGP route(s) {', '.join(extra[:6])}"
                                           + (f" and {len(extra) - 6} more" if len(extra) > 6 else ""))
    return checks


def ipv6_routes(exp: Expected, obs: dict[str, Observed]) -> Check:
    """Dual-stack: at every switch each planned IPv6 route (the other switches' loopback /128s, rail /64s and
    summaries) with its planned ECMP width, each suppressed or unreachable one absent, no unplanned BGP route."""
    check = Check()
    for name, o in obs.items():
        rib = _bgp_rib(o.routes_v6)
        want = exp.routes_v6.get(name, {})
        for prefix, ecmp in sorted(want.items()):
            got = rib.get(prefix)
            check.ok(got == ecmp, f"{name}: {prefix} " + (f"with {got} next-hop(s), plan {ecmp}" if got
                                                          else f"missing, plan {ecmp} next-hop(s)"))
        for prefix in sorted(exp.absent_v6.get(name, ())):
            check.ok(prefix not in o.routes_v6, f"{name}: {prefix} present ({_describe(o.routes_v6.get(prefix))}), "
                                                "plan: absent")
        extra = sorted(p for p in rib if p not in want and p not in exp.local_v6.get(name, ())
                       and p not in exp.absent_v6.get(name, ()))
        check.ok(not extra, f"{name}: unplanned IPv6 BGP route(s) {', '.join(extra[:6])}")
    return check


def _bgp_rib(routes: dict) -> dict[str, int]:
    """prefix → installed next-hops of the selected BGP route."""
    out = {}
    for prefix, entries in routes.items():
        for e in entries:
            if e.get("protocol") == "bgp" and e.get("selected"):
                out[prefix] = sum(1 for nh in e.get("nexthops", []) if nh.get("active") and nh.get("fib"))
    return out


def _describe(entries: list[dict[str, Any]] | None) -> str:
    if not entries:
        return "?"
    e = entries[0]
    return f"{e.get('protocol')}, {len(e.get('nexthops', []))} next-hop(s)"


def down_reasons(spec: LabSpec, checks: dict[str, Check], exp: Expected, obs: dict[str, Observed], vtysh: Vtysh,
                 pool: ThreadPoolExecutor) -> dict[tuple[str, str], str]:
    """Why sessions are not Established (last NOTIFICATION or reset reason), for the report."""
    if not checks["sessions"].bad:
        return {}
    want: dict[str, list[str]] = {}
    for s in exp.sessions:
        for node, peer_ip in ((s.a, s.peer_key(s.a)), (s.z, s.peer_key(s.z))):
            peers = obs[node].summary.get("ipv4Unicast", {}).get("peers", {})
            if peers.get(peer_ip, {}).get("state") != "Established":
                want.setdefault(node, []).append(peer_ip)

    def read(node: str) -> dict:
        proc = vtysh(spec.nodes[node], "-c", "show bgp neighbors json")
        try:
            return json.loads(proc.stdout or "{}")
        except ValueError:
            return {}

    out = {}
    for node, data in zip(want, pool.map(read, list(want)), strict=True):
        for ip in want[node]:
            n = data.get(ip, {})
            why = n.get("lastNotificationReason") or n.get("lastResetDueTo")
            if why:
                out[(node, ip)] = why
    return out


def fingerprint(obs: dict[str, Observed]) -> tuple:
    """What must stop changing before the lab is judged: established peers, BFD states, BGP routes and widths."""
    out = []
    for name in sorted(obs):
        o = obs[name]
        peers = o.summary.get("ipv4Unicast", {}).get("peers", {}) if isinstance(o.summary, dict) else {}
        out.append((name, o.error, tuple(sorted(ip for ip, p in peers.items() if p.get("state") == "Established")),
                    tuple(sorted((p.get("peer"), p.get("status")) for p in o.bfd if isinstance(p, dict))),
                    tuple(sorted(_bgp_rib(o.routes).items())), tuple(sorted(_bgp_rib(o.routes_v6).items()))))
    return tuple(out)


def interfaces(spec: LabSpec, pool: ThreadPoolExecutor) -> Check:
    check = Check()

    def read(node: LabNode) -> list:
        proc = subprocess.run(["ip", "-n", node.ns, "-j", "addr", "show"], capture_output=True, text=True, timeout=30)
        return json.loads(proc.stdout or "[]")

    nodes = list(spec.nodes.values())
    links = dict(zip((n.name for n in nodes), pool.map(read, nodes), strict=True))

    def one(node: str, ifname: str, mtu: int, addr: str | None) -> None:
        link = next((x for x in links[node] if x.get("ifname") == ifname), None)
        if link is None:
            check.ok(False, f"{node}: {ifname} missing")
            return
        addrs = {f"{a['local']}/{a['prefixlen']}" for a in link.get("addr_info", []) if a.get("family") == "inet"}
        problems = []
        if "UP" not in link.get("flags", []) or "LOWER_UP" not in link.get("flags", []):
            problems.append(f"state {link.get('operstate')}")
        if link.get("mtu") != mtu:
            problems.append(f"mtu {link.get('mtu')}, plan {mtu}")
        if addr and addr not in addrs:
            problems.append(f"address {', '.join(sorted(addrs)) or 'none'}, plan {addr}")
        check.ok(not problems, f"{node}: {ifname} " + "; ".join(problems))

    for name, node in spec.nodes.items():
        lo: dict[str, Any] = next((x for x in links[name] if x.get("ifname") == "lo"), {})
        has = {f"{a['local']}/{a['prefixlen']}" for a in lo.get("addr_info", [])}
        check.ok(node.loopback in has, f"{name}: lo without {node.loopback}")
        for svi in node.svis:
            one(name, svi.name, svi.mtu, svi.gateway)
    for ln in spec.links:
        for end in (ln.a, ln.z):
            one(end.node, end.ifname, end.mtu, end.ipv4)
    return check


def ping(spec: LabSpec, p: Ping) -> tuple[bool, str]:
    ns = spec.nodes[p.node].ns if p.node in spec.nodes else spec.hosts[p.node].ns  # a switch or a GPU host
    proc = subprocess.run(["ip", "netns", "exec", ns, "ping", "-n", "-c", "1", "-W", "1", "-M", "do",
                           "-s", str(p.size - 28), "-I", p.src, p.dst], capture_output=True, text=True, timeout=15)
    if proc.returncode == 0:
        return True, "replied"
    err = proc.stderr.strip().splitlines()
    stats = [ln for ln in proc.stdout.splitlines() if "transmitted" in ln]
    return False, (err[0] if err else stats[0] if stats else f"exit {proc.returncode}")[:120]


# pauses between the tries of a ping that did not do what the plan says: a first packet can be lost while the
# switches resolve ARP (a full ARP table is not retried away: railfabric/lab/neigh.py sizes it before the lab starts)
RETRY_PAUSES = (0.2, 0.5, 1.0, 2.0)


def pings(spec: LabSpec, todo: list[Ping], pool: ThreadPoolExecutor, pauses: tuple[float, ...] = RETRY_PAUSES,
          done: Callable[[int], object] | None = None) -> Check:
    """Run the pings of `todo` (`done(1)` after each, from the pool's threads)."""
    check = Check()

    def run(p: Ping) -> tuple[bool, str]:
        ok, why = ping(spec, p)
        for pause in pauses:
            if ok == p.expect_ok:
                break
            time.sleep(pause)
            ok, why = ping(spec, p)
        if done is not None:
            done(1)
        return ok, why

    for p, (ok, why) in zip(todo, pool.map(run, todo), strict=True):
        check.ok(ok == p.expect_ok, f"{p.why}: {'passed' if ok else 'failed'} ({why}), plan: "
                                    f"{'pass' if p.expect_ok else 'fail'}")
    return check
