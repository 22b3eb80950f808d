"""`fabric lab --down NAME ...`: take switches, links, ports or host NICs down in a running lab the way they fail.

The names are resolved by `fabric impact`'s Resolver (railfabric/lab/prediction.py); this module turns what they
resolve to into actions on the lab, all planned (and refused) before anything is built:
- a switch: every interface of its namespace set down (its peers see the carrier go, as when it loses power), then
  its FRR daemons stopped;
- a link (a link id, or each member of a bundle id): the veth pair's ends set down on both sides;
- a switch port `SWITCH:PORT`: that switch's veth end only (the peer sees the carrier go);
- a host NIC `HOST:nicN` (or a host link id): the host end of each of its ports, in the lab's GPU host namespace.
An L3 port-channel has no bond in the lab (railfabric/lab/model.py SUBSTITUTIONS): its /31 rides on one member veth.
The bond's min-links is emulated: when the members taken down leave fewer live members than the port-channel's
min-links (the rendered PORTCHANNEL min_links), the carrying member is set down too, as teamd takes the port-channel
down; a down set that takes the carrying member but leaves the bundle up cannot be emulated and is refused.
Refused too, with the reason: a name whose switch or link is not in the lab (another platform, an MLAG pair, another
pod), a host NIC of a host the lab did not build, and --down together with --fault (a fault already makes the lab
differ from the plan, so the comparison with impact would prove nothing).
"""

from __future__ import annotations

import json
import signal
import subprocess
from collections import defaultdict
from dataclasses import dataclass, field

from railfabric.impact import Down, Resolver
from railfabric.lab.daemons import Instances
from railfabric.lab.model import LabError, LabLink, LabSpec, out_reason
from railfabric.pipeline import Result
from railfabric.topology import Link, LinkRole, Topology


@dataclass
class DownPlan:
    """The lab's actions for a Down set."""

    switches: list[str] = field(default_factory=list)  # namespaces whose interfaces all go down, daemons stop
    ends: dict[str, list[str]] = field(default_factory=dict)  # namespace → interfaces set down
    said: list[str] = field(default_factory=list)  # one line per action, for the report

    def add(self, ns: str, ifname: str) -> None:
        mine = self.ends.setdefault(ns, [])
        if ifname not in mine:
            mine.append(ifname)


def lab_links(res: Result, spec: LabSpec) -> dict[str, LabLink]:
    """Topology link id → the lab's veth pair, in the order spec.build_spec builds them (the same filter)."""
    assert res.topology is not None
    ids = [ln.id for ln in res.topology.links if ln.role is not LinkRole.HOST
           and ln.a.device in spec.nodes and ln.z.device in spec.nodes]
    assert len(ids) == len(spec.links), (len(ids), len(spec.links))
    return dict(zip(ids, spec.links, strict=True))


def _why_out(spec: LabSpec, device: str) -> str:
    d = spec.devices.get(device)
    if d is None:
        return "not a switch of the fabric"
    reason = out_reason(d)
    if reason:
        return reason.replace("in MLAG pairs", "in an MLAG pair")
    return f"outside pod {spec.pod}" if spec.pod is not None else "outside the lab"


def plan_down(res: Result, spec: LabSpec, down: Down, faults: list[str] | tuple[str, ...] = ()) -> DownPlan:
    """The actions for `down` in the lab of `spec`; LabError naming every name the lab cannot take down."""
    assert res.topology is not None
    if faults:
        raise LabError("--down cannot be combined with --fault: the lab compares what FRR converges to with "
                       "`fabric impact`'s prediction from the plan, and a fault makes the lab differ from the plan "
                       "before anything is taken down (run them separately)")
    topo = res.topology
    links = lab_links(res, spec)
    by_id: dict[str, Link] = {ln.id: ln for ln in (*topo.links, *topo.peer_links)}
    out = DownPlan()
    problems: list[str] = []
    for sw in sorted(down.switches):
        if sw not in spec.nodes:
            problems.append(f"switch {sw}: {_why_out(spec, sw)}")
            continue
        out.switches.append(sw)
        out.said.append(f"switch {sw}: every interface of {spec.nodes[sw].ns} down, then its FRR daemons stopped")
    port_of = _named_ports(topo, down)
    member_down: dict[tuple[str, str], set[str]] = defaultdict(set)
    for lid in sorted(down.links):
        link = by_id[lid]
        if link.role is LinkRole.HOST:
            problems += _host_link(spec, link, out, switch_end=port_of.get(lid) == link.z.device)
            continue
        lab = links.get(lid)
        if lab is None:
            outside = [d for d in (link.a.device, link.z.device) if d not in spec.nodes]
            problems.append(f"link {lid}: " + "; ".join(f"{d} {_why_out(spec, d)}" for d in outside or ["?"]))
            continue
        if link.a.device in down.switches or link.z.device in down.switches:
            continue  # the switch takes it down
        only = port_of.get(lid)
        ends = [e for e in (lab.a, lab.z) if only is None or e.node == only]
        for e in ends:
            out.add(spec.nodes[e.node].ns, e.ifname)
        out.said.append(f"link {lid}: " + " and ".join(f"{e.node}:{e.ifname}" for e in ends) + " down")
        if lab.channel:
            member_down[(lab.a.node, lab.channel)].add(lid)
    problems += _bundles(spec, links, member_down, out)
    if problems:
        raise LabError("--down names what the lab cannot take down: " + "; ".join(problems))
    return out


def _named_ports(topo: Topology, down: Down) -> dict[str, str]:
    """Link id → the switch whose port was named (`SWITCH:PORT`: only that end goes down)."""
    out: dict[str, str] = {}
    resolver = Resolver(topo)
    for name in down.names:
        kind, _sw, ids = resolver.one(name)
        if kind.startswith("port "):
            sw = kind[len("port "):].split(" ", 1)[0].rpartition(":")[0]
            for lid in ids:
                out[lid] = sw
    return out


def _bundles(spec: LabSpec, links: dict[str, LabLink], member_down: dict[tuple[str, str], set[str]],
             out: DownPlan) -> list[str]:
    """min-links of each L3 port-channel touched: its carrying veth down when the bundle goes down."""
    problems = []
    for (node, channel), gone in sorted(member_down.items()):
        members = {lid: ln for lid, ln in links.items() if ln.a.node == node and ln.channel == channel}
        carrier_id, carrier = next((lid, ln) for lid, ln in members.items() if ln.a.ipv4 or ln.a.ifname == channel)
        pc = next(p for p in spec.devices[node].port_channels if p.name == channel)
        live = len(members) - len(gone)
        if live < pc.min_links:
            if carrier_id not in gone:
                out.add(spec.nodes[carrier.a.node].ns, carrier.a.ifname)
                out.add(spec.nodes[carrier.z.node].ns, carrier.z.ifname)
            out.said.append(f"{node} {channel}: {live} of {len(members)} members live, min-links {pc.min_links}: "
                            f"the port-channel goes down (its /31's veth {carrier.a.ifname} down at both ends)")
        elif carrier_id in gone:
            problems.append(f"{node} {channel}: {live} of {len(members)} members stay up (min-links "
                            f"{pc.min_links}), but the lab carries the port-channel on member {carrier_id} (no "
                            "bond in a namespace): name another member, or the whole bundle")
        else:
            out.said.append(f"{node} {channel}: {live} of {len(members)} members live, min-links {pc.min_links}: "
                            "the port-channel stays up")
    return problems


def _host_link(spec: LabSpec, link: Link, out: DownPlan, switch_end: bool = False) -> list[str]:
    """A host NIC port: its host end down (its switch end when the switch port was named), when the lab built the
    host."""
    host = spec.hosts.get(link.a.device)
    sw = link.z.device
    if host is None:
        return [f"NIC port {link.id}: host {link.a.device} is not built in this lab (--hosts all builds every host "
                "of the lab's segments)"]
    iface = next((i for i in spec.devices[sw].interfaces if (i.port, i.lane) == (link.z.port, link.z.lane)), None)
    nic = next((n for n in host.nics if iface is not None and n.plan.switch == sw and n.plan.switch_if == iface.name),
               None)
    if nic is None or sw not in spec.nodes:
        return [f"NIC port {link.id}: not built in the lab's host {host.name}"]
    if switch_end:
        out.add(spec.nodes[sw].ns, nic.plan.switch_if)
        out.said.append(f"NIC port {link.id}: {sw}:{nic.plan.switch_if} down")
    else:
        out.add(host.ns, nic.ifname)
        out.said.append(f"NIC port {link.id}: {host.name}:{nic.ifname} down")
    return []


def _ip(ns: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", "-n", ns, *args], capture_output=True, text=True, timeout=30)


def apply_down(spec: LabSpec, plan: DownPlan, inst: Instances) -> None:
    """Take it down: the switches' interfaces, the named veth ends, then the switches' FRR daemons."""
    for sw in plan.switches:
        ns = spec.nodes[sw].ns
        shown = json.loads(_ip(ns, "-j", "link", "show").stdout or "[]")
        for ifname in sorted(x["ifname"] for x in shown if x.get("ifname") != "lo"):
            plan.add(ns, ifname)
    for ns, names in sorted(plan.ends.items()):
        batch = "".join(f"link set {name} down\n" for name in names)
        proc = subprocess.run(["ip", "-n", ns, "-batch", "-"], input=batch, capture_output=True, text=True,
                              timeout=60)
        if proc.returncode != 0:
            raise LabError(f"--down: ip -n {ns} link set ... down failed: {(proc.stderr or proc.stdout).strip()}")
    for sw in plan.switches:
        stop_daemons(inst, sw)


def stop_daemons(inst: Instances, node: str, grace: float = 5.0) -> None:
    """SIGTERM the node's FRR daemons (SIGKILL after `grace`), and stop watching them (Instances.check_alive)."""
    mine = [(key, proc) for key, proc in inst.procs.items() if key[0] == node]
    for _key, proc in mine:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for key, proc in mine:
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=grace)
        del inst.procs[key]
