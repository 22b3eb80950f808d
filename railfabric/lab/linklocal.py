"""The lab's check of unnumbered sessions (routing.addressing: unnumbered, RFC 8950): each end's BGP peer is an
IPv6 link-local (fe80::/10) address, and it is the one the kernel gave the peer's planned interface (so the session
runs over the planned link, not another). Read from `show bgp neighbors json` (FRR names an interface peer by its
interface; `hostForeign` is the peer's address) and `ip -j addr show` of the peer's namespace."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor

from railfabric.lab.expect import Expected
from railfabric.lab.model import LabNode, LabSpec
from railfabric.lab.verify import Check, Vtysh


def _link_locals(node: LabNode) -> dict[str, set[str]]:
    """interface → its IPv6 link-local addresses, in the node's namespace."""
    proc = subprocess.run(["ip", "-n", node.ns, "-j", "-6", "addr", "show"], capture_output=True, text=True,
                          timeout=30)
    out: dict[str, set[str]] = {}
    for link in json.loads(proc.stdout or "[]"):
        out[link.get("ifname", "")] = {a["local"] for a in link.get("addr_info", [])
                                       if a.get("scope") == "link" and str(a.get("local", "")).startswith("fe80:")}
    return out


def link_local(spec: LabSpec, exp: Expected, vtysh: Vtysh, pool: ThreadPoolExecutor) -> Check:
    """One check per end of each unnumbered session: its peer address is fe80:: and held by the peer's planned
    interface. Nothing to check (total 0) in a numbered fabric."""
    check = Check()
    sessions = [s for s in exp.sessions if s.unnumbered]
    if not sessions:
        return check
    names = sorted({n for s in sessions for n in (s.a, s.z)})

    def read(name: str) -> tuple[dict, dict[str, set[str]]]:
        proc = vtysh(spec.nodes[name], "-c", "show bgp neighbors json")
        try:
            neighbors = json.loads(proc.stdout or "{}")
        except ValueError:
            neighbors = {}
        return neighbors, _link_locals(spec.nodes[name])

    seen = dict(zip(names, pool.map(read, names), strict=True))
    for s in sessions:
        for node, ifname, peer, peer_if in ((s.a, s.a_ip, s.z, s.z_ip), (s.z, s.z_ip, s.a, s.a_ip)):
            got = str(seen[node][0].get(ifname, {}).get("hostForeign") or "")
            held = seen[peer][1].get(peer_if, set())
            ok = got.startswith("fe80:") and got in held
            check.ok(ok, f"{node} {ifname}: BGP peer {got or 'none'}, plan: the link-local address of {peer} "
                         f"{peer_if} ({', '.join(sorted(held)) or 'none'})")
    return check
