"""The lab's whole specification for one run: build_spec assembles the switches, links and device models
(railfabric.lab.model's records), adds the GPU hosts (railfabric.lab.hosts) and injects the faults asked for; no side
effects.

The lab has no vault: each `%%vault.NAME%%` placeholder of a rendered frr.conf (the BGP session keys of
routing.authentication) becomes a value made for the run from NAME (lab_secret), the same in every switch of the run,
so both ends of a session share their tier's key as the push would give them; `--fault auth` then gives one end of
one session another key."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

from railfabric.configs.render import render_device
from railfabric.device import Interface, Neighbor, build_devices
from railfabric.inventory.intent_system import PLACEHOLDER_RE
from railfabric.lab.hosts import add_hosts, inject_host_policy
from railfabric.lab.model import (
    FAULTS,
    End,
    Fault,
    LabError,
    LabLink,
    LabNode,
    LabSpec,
    Svi,
    grouped,
    ns_name,
    out_reason,
)
from railfabric.pipeline import Result
from railfabric.topology import LinkRole


def build_spec(res: Result, pod: int | None = None, faults: list[str] | tuple[str, ...] = (), hosts: int | str = 0,
               host_files: Mapping[str, Mapping[str, str]] | None = None, run: str = "") -> LabSpec:
    """The lab for the whole fabric, or for one pod (its rail switches and spines; super-spines are outside).
    `hosts`: GPU hosts per segment (0: none, N, or "all"), configured from `host_files` (host → {name: netplan
    text}; default: the render's hosts/<host>/*.yaml). `run`: the run id the namespace names carry."""
    inv, topo, plan = res.inventory, res.topology, res.plan
    if inv is None or topo is None or plan is None:
        raise LabError("the inventory did not validate; run `fabric validate`")
    devices = build_devices(inv, topo, plan)
    if pod is not None:
        pods = sorted({d.pod for d in devices.values() if d.pod is not None})
        if pod not in pods:
            raise LabError(f"no pod {pod} in the fabric (pods: {', '.join(map(str, pods))})")
    in_pod = [name for name, d in devices.items() if pod is None or d.pod == pod]
    # the lab runs FRR on the rendered frr.conf, which only SONiC switches have: other platforms stay outside, like
    # the super-spines of a one-pod lab (their sessions are counted as not checked)
    # MLAG pairs stay outside too: namespaces emulate neither MCLAG (iccpd, the peer link's L2) nor one gateway
    # address on two switches, so the lab could only prove something else than what the pair does
    selected = [name for name in in_pod if out_reason(devices[name]) is None]
    if not selected:
        raise LabError("nothing to verify: the lab runs FRR on the rendered frr.conf of SONiC switches outside MLAG "
                       "pairs, and " + (f"pod {pod}" if pod is not None else "the fabric") + " has none: "
                       + grouped({name: out_reason(devices[name]) or "" for name in in_pod}))
    nodes: dict[str, LabNode] = {}
    for name in selected:
        d = devices[name]
        svis = tuple(Svi(f"Vlan{v.id}", v.gateway, v.prefix, v.mtu, v.rail, v.gateway_v6) for v in d.vlans)
        nodes[name] = LabNode(name, ns_name(name, run), d, with_lab_secrets(render_device(d)["frr.conf"], run), svis)

    by_port: dict[tuple[str, int, int], Interface] = {}
    for name in selected:
        for i in devices[name].interfaces:
            by_port[(name, i.port, i.lane)] = i
    links: list[LabLink] = []
    seen_bundles: set[str] = set()
    for link in topo.links:
        if link.role is LinkRole.HOST or link.a.device not in nodes or link.z.device not in nodes:
            continue
        ia = by_port[(link.a.device, link.a.port, link.a.lane)]
        iz = by_port[(link.z.device, link.z.port, link.z.lane)]
        ip_a, ip_z = ia.ipv4, iz.ipv4
        name_a, name_z = ia.name, iz.name
        channel = None
        if link.bundle:
            channel = ia.channel
            pc_a = next(p for p in devices[link.a.device].port_channels if p.name == ia.channel)
            pc_z = next(p for p in devices[link.z.device].port_channels if p.name == iz.channel)
            carries = ia.name == pc_a.members[0] and link.bundle not in seen_bundles
            if carries:
                seen_bundles.add(link.bundle)
            ip_a, ip_z = (pc_a.ipv4, pc_z.ipv4) if carries else (None, None)
            if carries and pc_a.unnumbered:  # the session's interface: the carrying veth is named as the bundle
                name_a, name_z = pc_a.name, pc_z.name
        links.append(LabLink(End(link.a.device, name_a, ip_a, ia.mtu, ia.mtu),
                             End(link.z.device, name_z, ip_z, iz.mtu, iz.mtu), link.role.value, channel))
    spec = LabSpec(run, inv.fabric.name, pod, nodes, links, devices, inv.fabric.host_mtu,
                   not_in_lab=tuple(name for name in in_pod if name not in nodes), host_request=hosts)
    if hosts not in (0, "0"):
        spec.host_notes = add_hosts(spec, res, hosts, host_files)
    for kind in dict.fromkeys(faults):
        _inject(spec, kind)
    return spec


def lab_secret(run: str, name: str) -> str:
    """The lab's value of vault variable `name` in run `run`: 24 hex digits, the same wherever the run needs it."""
    return "rflab" + hashlib.sha256(f"{run}/{name}".encode()).hexdigest()[:24]


def with_lab_secrets(text: str, run: str) -> str:
    """`text` with each vault placeholder replaced by the run's lab value of its variable."""
    return PLACEHOLDER_RE.sub(lambda m: lab_secret(run, m.group(1)), text)


# --------------------------------------------------------------------------- faults


def _inject(spec: LabSpec, kind: str) -> None:
    """Rewrite one switch's frr.conf (asn, summary) or one link end's MTU (mtu), and record where."""
    taken = {f.where.split(":")[0] for f in spec.faults}
    if kind not in FAULTS:
        raise LabError(f"unknown fault {kind!r} (one of {', '.join(FAULTS)})")
    rails = [n for n in spec.nodes.values() if n.device.role == "rail" and n.name not in taken]
    if kind == "host-policy":
        spec.faults.append(inject_host_policy(spec))
    elif kind == "asn":
        peered = [n for n in rails if _peers_in_lab(spec, n)]
        if not peered:
            raise LabError("fault asn: no rail switch with BGP neighbours in the lab")
        node = peered[0]
        asn = node.device.bgp.asn
        text, count = re.subn(rf"^router bgp {asn}$", f"router bgp {asn + 1}", node.frr_conf, flags=re.M)
        assert count == 1, node.name
        node.frr_conf = text
        spec.faults.append(Fault(kind, node.name, f"`router bgp {asn}` → `router bgp {asn + 1}`",
                                 (node.name, *_advertised(node))))
    elif kind == "auth":
        spec.faults.append(_wrong_key(spec, rails))
    elif kind == "summary":
        agg = [n for n in rails if n.device.bgp.aggregates and _peers_in_lab(spec, n)]
        if not agg:
            raise LabError("fault summary: no rail switch with an aggregate (multi- or dual-rail) in the lab")
        node = agg[0]
        node.frr_conf = re.sub(r"^(  aggregate-address \S+) summary-only$", r"\1", node.frr_conf, flags=re.M)
        spec.faults.append(Fault(kind, node.name, f"`aggregate-address {node.device.bgp.aggregates[0]}` without "
                                                  "summary-only", tuple(f" {svi.prefix} " for svi in node.svis)))
    else:
        cands = [i for i, ln in enumerate(spec.links) if ln.a.ipv4 and ln.a.node not in taken]
        if not cands:
            raise LabError("fault mtu: no routed fabric link in the lab")
        i = cands[0]
        ln = spec.links[i]
        bad = 9100 if ln.a.mtu != 9100 else ln.a.mtu - 100
        spec.links[i] = LabLink(End(ln.a.node, ln.a.ifname, ln.a.ipv4, ln.a.mtu, bad), ln.z, ln.role, ln.channel)
        spec.faults.append(Fault(kind, f"{ln.a.node}:{ln.a.ifname}",
                                 f"MTU {bad} instead of {ln.a.mtu} (peer {ln.z.node}:{ln.z.ifname} keeps {ln.z.mtu})",
                                 (f"{ln.a.node}:{ln.a.ifname}-", f"{ln.a.node}: {ln.a.ifname} ", f"{ln.a.node} Vlan")))


def _wrong_key(spec: LabSpec, rails: list[LabNode]) -> Fault:
    """One end of one session (the first rail switch's first neighbour in the lab) gets a TCP MD5 password of its own
    (`neighbor <peer> password ...` overrides its peer group's; an unnumbered session's peer is its interface): with
    a key on the tier it differs from the peer's, without one the peer has none; either way TCP MD5 (RFC 2385) drops
    every segment and the session stays down."""
    for node in rails:
        for g in node.device.bgp.peer_groups:
            for n in g.neighbors:
                ends = _session_ends(spec, node, n)
                if ends is None:
                    continue
                who, line, label, peer = ends
                assert node.frr_conf.count(line) == 1, (node.name, line)
                wrong = lab_secret(spec.run, "fault-auth")
                node.frr_conf = node.frr_conf.replace(line, f"{line} neighbor {who} password {wrong}\n")
                had = f"its peer group's key ({g.key.vault})" if g.key is not None else "no key at the peer"
                ends_named = (f"{node.name} {who}:", f"{peer} {n.peer_interface}:") if n.interface else ()
                return Fault("auth", f"{node.name}:neighbor {who}", f"`neighbor {who} password` of its own, "
                             f"{peer} keeps {had}", (label, f"{node.name}: ", *ends_named, *_advertised(node)))
    raise LabError("fault auth: no rail switch with a BGP session inside the lab")


def _session_ends(spec: LabSpec, node: LabNode, n: Neighbor) -> tuple[str, str, str, str] | None:
    """(how node's frr.conf names the peer, its peer-group line, the session's label as the lab's checks write it,
    the peer device) for a neighbour whose other end is in the lab; None otherwise."""
    group = next(g.name for g in node.device.bgp.peer_groups if n in g.neighbors)
    if n.interface:  # unnumbered: each end names the session by its own interface (expect.py)
        if n.peer not in spec.nodes:
            return None
        a, z = sorted(((node.name, n.interface), (n.peer, n.peer_interface)))
        return (n.interface, f" neighbor {n.interface} interface peer-group {group}\n",
                f"{a[0]} {a[1]} <-> {z[0]} {z[1]}", n.peer)
    peer = next((name for name, other in spec.nodes.items() for g in other.device.bgp.peer_groups
                 for m in g.neighbors if m.local_ip == n.ip), None)
    if peer is None:
        return None
    a, z = sorted(((node.name, n.local_ip), (peer, n.ip)))
    return n.ip, f" neighbor {n.ip} peer-group {group}\n", f"{a[0]} {a[1]} <-> {z[0]} {z[1]}", peer


def _advertised(node: LabNode) -> tuple[str, ...]:
    """The loopback and every rail prefix of a switch, and its aggregates."""
    return (node.device.loopback, *(svi.prefix for svi in node.svis), *node.device.bgp.aggregates)


def _peers_in_lab(spec: LabSpec, node: LabNode) -> bool:
    return any(ln.a.node == node.name or ln.z.node == node.name for ln in spec.links)
