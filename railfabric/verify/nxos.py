"""Cisco NX-OS reader: configs/<device>/running-config.cfg parsed with hier_config's NX-OS config tree → ObservedDevice.

NX-OS forms read (Cisco Nexus 9000 NX-OS Interfaces, QoS and Unicast Routing guides; cisco.nxos collection parsers):
`interface X` with `shutdown` / `no shutdown`, `speed N` (Mb/s), `mtu N`, `no switchport` + `ip address A/L`,
`switchport access vlan N`, `channel-group N mode active`, `priority-flow-control mode on`,
`priority-flow-control watch-dog-interval on`, `service-policy type qos input P`; `vlan N`; `interface VlanN`;
`interface loopbackN`; `interface mgmt0` with `vrf member V`; vPC (Cisco Nexus 9000 Interfaces guide, Configuring
vPCs; Unicast Routing guide, HSRP): `vpc domain N` with `peer-keepalive destination A source B vrf V`, a
port-channel's `switchport mode trunk`, `switchport trunk allowed vlan L`, `vpc peer-link`, `vpc N`; an SVI's `hsrp N`
group with `ip A` (the shared gateway: recorded with the SVI's own prefix length beside its own `ip address`);
`class-map type qos match-any C` / `match dscp D,...`;
`policy-map type qos P` / `class C` / `set qos-group G`; `policy-map type network-qos P` / `class type network-qos
c-8q-nqN` / `pause pfc-cos N`; `policy-map type queuing P` / `class type queuing c-out-8q-qN|c-out-8q-q-default` /
`priority level 1` / `random-detect ... ecn`; `system qos` / `service-policy type network-qos|queuing output P`;
`router bgp N` with `router-id`, `template peer T` (`remote-as`, `bfd`) and `neighbor A` (`inherit peer T`,
`remote-as`, `bfd`); `feature nxapi` + `nxapi use-vrf V` (the management API); `no feature ssh`; `username U ...
role R`.

What the QoS of a port means on NX-OS: DSCP is trusted where the port applies a `type qos` input policy that
classifies by DSCP; a qos-group is its queue (the 8q templates); PFC pauses the CoS values the system network-qos
policy marks `pause pfc-cos`, on ports with `priority-flow-control mode on`; ECN and strict priority are the system
queuing policy's, so every port has them. NX-OS buffers are carved by the platform from the network-qos MTU and
no-drop classes (nothing per port to read): Buffers.managed is False.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from pathlib import Path

from railfabric.verify.bgp_statements import neighbors
from railfabric.verify.inputs import read_text
from railfabric.verify.load_balancing import from_cli
from railfabric.verify.model import Bgp, Buffers, Interface, MlagObserved, ObservedDevice, Qos, VerifyInputError, Vlan
from railfabric.verify.raw import merged_sections

IP_ADDRESS = re.compile(r"ip address (\S+)")
QUEUE_CLASS = re.compile(r"class type queuing c-out-8q-q(\d|-default)")


def _lines(node: object) -> list[str]:
    return [c.text for c in node.children]  # type: ignore[attr-defined]


def _numbers(text: str) -> list[int]:
    out: list[int] = []
    for part in text.replace(",", " ").split():
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


class _Policies:
    """The QoS policy objects of the file, by name, and which ones `system qos` applies."""

    def __init__(self) -> None:
        self.class_dscps: dict[str, list[int]] = {}  # class-map type qos → DSCPs
        self.qos: dict[str, dict[int, int]] = {}  # policy-map type qos → DSCP → qos-group
        self.pause: dict[str, set[int]] = {}  # policy-map type network-qos → paused CoS values
        self.strict: dict[str, set[int]] = {}  # policy-map type queuing → strict queues
        self.ecn: dict[str, set[int]] = {}  # policy-map type queuing → queues with WRED-ECN
        self.system: dict[str, str] = {}  # network-qos | queuing-output → the policy system qos applies

    def read(self, text: str, node: object) -> bool:
        words = text.split()
        if words[:3] == ["class-map", "type", "qos"] and len(words) >= 4:
            self.class_dscps[words[-1]] = [d for ln in _lines(node) if ln.startswith("match dscp ")
                                           for d in _numbers(ln.split(None, 2)[2])]
        elif words[:3] == ["policy-map", "type", "qos"] and len(words) == 4:
            groups: dict[int, int] = {}
            for c in node.children:  # type: ignore[attr-defined]
                m = re.fullmatch(r"class (\S+)", c.text)
                g = next((int(x.split()[-1]) for x in _lines(c) if re.fullmatch(r"set qos-group \d", x)), None)
                if m and g is not None:
                    groups.update(dict.fromkeys(self.class_dscps.get(m.group(1), []), g))
            self.qos[words[3]] = groups
        elif words[:3] == ["policy-map", "type", "network-qos"] and len(words) == 4:
            self.pause[words[3]] = {int(x.split()[-1]) for c in node.children  # type: ignore[attr-defined]
                                    for x in _lines(c) if re.fullmatch(r"pause pfc-cos \d", x)}
        elif words[:3] == ["policy-map", "type", "queuing"] and len(words) == 4:
            strict, ecn = set(), set()
            for c in node.children:  # type: ignore[attr-defined]
                m = QUEUE_CLASS.fullmatch(c.text)
                if not m:
                    continue
                queue = 0 if m.group(1) == "-default" else int(m.group(1))
                sub = _lines(c)
                if any(x.startswith("priority level") for x in sub):
                    strict.add(queue)
                if any(x.startswith("random-detect ") and x.endswith(" ecn") for x in sub):
                    ecn.add(queue)
            self.strict[words[3]], self.ecn[words[3]] = strict, ecn
        elif text == "system qos":
            for ln in _lines(node):
                if m := re.fullmatch(r"service-policy type network-qos (\S+)", ln):
                    self.system["network-qos"] = m.group(1)
                elif m := re.fullmatch(r"service-policy type queuing output (\S+)", ln):
                    self.system["queuing"] = m.group(1)
        else:
            return False
        return True


def read_nxos(name: str, root: Path) -> ObservedDevice:
    path = root / "configs" / name / "running-config.cfg"
    file = path.relative_to(root).as_posix()
    text = read_text(path, root)
    from hier_config import Platform, get_hconfig  # imported here: only NX-OS fabrics pay its import time

    try:
        try:
            tree = get_hconfig(Platform.CISCO_NXOS, text)
        except Exception:  # a raw block re-opening a section: one section on the switch (verify/raw.py)
            if "railfabric raw " not in text:
                raise
            tree = get_hconfig(Platform.CISCO_NXOS, merged_sections(text))
    except Exception as e:  # hier_config raises plain exceptions on text it cannot structure
        raise VerifyInputError(f"{file}: hier_config cannot parse it: {e}") from None
    dev = ObservedDevice(name, "nxos", files={"config": file, "bgp": file})
    dev.balancing = from_cli("nxos", (top.text for top in tree.children))
    policies = _Policies()
    qos_input: dict[str, str] = {}  # interface → its type qos input policy
    peer_links: set[str] = set()  # port-channels with `vpc peer-link`
    features: set[str] = set()
    ssh_off = False
    nxapi_vrfs: set[str] = set()
    timers: dict[str, tuple[int, int, int]] = {}  # interface → its `bfd interval TX min_rx RX multiplier M`
    for top in tree.children:
        t = top.text
        if policies.read(t, top):
            continue
        if m := re.fullmatch(r"(no )?feature (\S+)", t):
            if m.group(1):
                ssh_off |= m.group(2) == "ssh"
            else:
                features.add(m.group(2))
        elif m := re.fullmatch(r"vlan ([\d,\s-]+)", t):
            for vid in _numbers(m.group(1)):
                dev.vlans.setdefault(vid, Vlan(vid)).declared = True
        elif t.startswith("interface "):
            _interface(dev, t.split(None, 1)[1], top, qos_input, peer_links)
            for ln in _lines(top):
                if m := _BFD_TIMERS.fullmatch(ln.strip()):
                    timers[t.split(None, 1)[1]] = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
        elif m := re.fullmatch(r"router bgp (\d+)", t):
            dev.bgp = _bgp(int(m.group(1)), top)
        elif m := re.fullmatch(r"vpc domain (\d+)", t):
            dev.mlag = _vpc_domain(m.group(1), _lines(top))
        elif m := re.fullmatch(r"nxapi use-vrf (\S+)", t):
            nxapi_vrfs.add(m.group(1))
        elif m := re.match(r"username (\S+)(.*)$", t):
            role = re.search(r"\brole (\S+)", m.group(2))
            if role or m.group(1) not in dev.mgmt.users:
                dev.mgmt.users[m.group(1)] = role.group(1) if role else ""
    _session_timers(dev, timers)
    paused = policies.pause.get(policies.system.get("network-qos", ""), set())
    queuing = policies.system.get("queuing", "")
    for ifname, i in dev.interfaces.items():
        if i.qos is None:
            continue
        dscp = policies.qos.get(qos_input.get(ifname, ""), {})
        i.qos.dscp_trust = bool(dscp)
        # what no class matches falls into class-default, qos-group 0: every DSCP is mapped once a policy applies
        i.qos.dscp_to_tc = {**dict.fromkeys(range(64), 0), **dscp} if dscp else {}
        i.qos.tc_to_queue = {g: g for g in range(8)}  # qos-group N is queue N in the 8q templates
        if i.qos.pfc_priorities:  # `priority-flow-control mode on`: the system no-drop classes
            i.qos.pfc_priorities = frozenset(paused)
        i.qos.strict_queues = frozenset(policies.strict.get(queuing, set()))
        i.qos.ecn_queues = frozenset(policies.ecn.get(queuing, set()))
    for i in dev.interfaces.values():
        if i.channel and i.mtu is None and i.channel in dev.interfaces:
            i.mtu = dev.interfaces[i.channel].mtu
        if i.mode == "access" and i.vlan is not None:
            dev.vlans.setdefault(i.vlan, Vlan(i.vlan, declared=False)).members.append(i.name)
    _vpc(dev, peer_links)
    dev.mgmt.api_enabled = "nxapi" in features
    dev.mgmt.api_vrfs = frozenset(nxapi_vrfs)
    if ssh_off:
        dev.notes.append("SSH is switched off (no feature ssh)")
    dev.notes.append("NX-OS lossless buffers are carved by the platform from the network-qos policy: nothing per "
                     "port to verify")
    return dev


def _vpc_domain(domain: str, lines: list[str]) -> MlagObserved:
    """`vpc domain N`: the domain id, and the keepalive's source and destination as the pair's local and peer
    addresses (vPC's control link: each switch's destination is the other's source)."""
    m = MlagObserved(domain=domain)
    for ln in lines:
        if k := re.fullmatch(r"peer-keepalive destination (\S+) source (\S+)(?: vrf \S+)?", ln):
            m.peer_ip, m.local_ip = k.group(1), k.group(2)
    return m


def _vpc(dev: ObservedDevice, peer_links: set[str]) -> None:
    """After the interfaces: trunks are the tagged members of the VLANs they carry; the domain's peer link is the
    port-channel with `vpc peer-link`; the peer VLAN is the VLAN with a routed SVI, no HSRP and no access member (the
    rail VLANs have the host bonds), whether the peer link carries it or not (that is checked)."""
    for name, i in dev.interfaces.items():
        if i.mode == "trunk":
            for vid in sorted(i.trunk_vlans):
                dev.vlans.setdefault(vid, Vlan(vid, declared=False)).tagged.append(name)
    if dev.mlag is None:
        return
    peer_link = next((n for n in dev.interfaces if n in peer_links), None)
    dev.mlag.peer_link = peer_link
    dev.mlag.vlan = next((vid for vid, v in sorted(dev.vlans.items()) if v.declared and v.svi and not v.members
                          and not v.virtual), None)


def _addresses(lines: list[str]) -> list[str]:
    return [m.group(1) for ln in lines if (m := IP_ADDRESS.fullmatch(ln))]


def _hsrp(node: object) -> list[str]:
    """The virtual addresses of an SVI's HSRP groups (`hsrp N` / `ip A`)."""
    return [ln.split()[1] for c in node.children if re.fullmatch(r"hsrp \d+", c.text)  # type: ignore[attr-defined]
            for ln in _lines(c) if re.fullmatch(r"ip \d+\.\d+\.\d+\.\d+", ln)]


def _interface(dev: ObservedDevice, ifname: str, node: object, qos_input: dict[str, str],
               peer_links: set[str]) -> None:
    lines = _lines(node)
    if m := re.fullmatch(r"Vlan(\d+)", ifname):
        vlan = dev.vlans.setdefault(int(m.group(1)), Vlan(int(m.group(1)), declared=False))
        own = _addresses(lines)
        virtual = _hsrp(node)
        vlan.svi += own
        if virtual:  # the shared gateway, with the length of the SVI's own subnet
            length = own[0].split("/")[1] if own else "32"
            vlan.virtual, vlan.own = True, list(own)
            vlan.svi += [f"{a}/{length}" for a in virtual]
        vlan.mtu = next((int(ln.split()[1]) for ln in lines if re.fullmatch(r"mtu \d+", ln)), None)
        return
    if ifname.startswith("loopback"):
        dev.loopbacks += _addresses(lines)
        return
    if ifname == "mgmt0":
        dev.mgmt.vrf = next((ln.split()[2] for ln in lines if re.fullmatch(r"vrf member \S+", ln)), None)
        dev.mgmt.address = next(iter(_addresses(lines)), None)
        return
    if ifname.startswith("breakout "):
        return
    i = Interface(ifname, admin_up="shutdown" not in lines)
    qos = Qos()
    has_qos = False
    for ln in lines:
        if m := re.fullmatch(r"mtu (\d+)", ln):
            i.mtu = int(m.group(1))
        elif m := re.fullmatch(r"speed (\d+)", ln):
            i.speed = int(m.group(1))
        elif ln == "no switchport":
            i.mode = "routed"
        elif m := IP_ADDRESS.fullmatch(ln):
            i.ipv4.append(m.group(1))
        elif m := re.fullmatch(r"switchport access vlan (\d+)", ln):
            i.mode, i.vlan = "access", int(m.group(1))
        elif m := re.fullmatch(r"channel-group (\d+)(?: mode \S+)?", ln):
            i.channel = f"port-channel{m.group(1)}"
        elif ln == "switchport mode trunk":
            i.mode = "trunk"
        elif m := re.fullmatch(r"switchport trunk allowed vlan (\S+)", ln):
            i.trunk_vlans = frozenset(_numbers(m.group(1)))
        elif ln == "vpc peer-link":
            peer_links.add(ifname)
        elif m := re.fullmatch(r"vpc (\d+)", ln):
            i.mlag = int(m.group(1))
        elif m := re.fullmatch(r"service-policy type qos input (\S+)", ln):
            qos_input[ifname], has_qos = m.group(1), True
        elif ln == "priority-flow-control mode on":
            qos.pfc_priorities, has_qos = frozenset({-1}), True  # filled from the system policy afterwards
        elif ln == "priority-flow-control watch-dog-interval on":
            qos.watchdog = True
    if i.channel:  # a member whatever switchport lines it repeats from its channel
        i.mode = "member"
    if i.mode != "trunk":
        i.trunk_vlans = frozenset()
    i.qos = qos if has_qos else None
    i.buffers = Buffers(managed=False) if has_qos else None
    dev.interfaces[ifname] = i


_BFD_TIMERS = re.compile(r"bfd interval (\d+) min_rx (\d+) multiplier (\d+)")


def _session_timers(dev: ObservedDevice, timers: dict[str, tuple[int, int, int]]) -> None:
    """NX-OS sets BFD timers per interface: each BFD neighbour runs those of the interface whose subnet holds it."""
    nets = [(ipaddress.ip_interface(a).network, t) for name, t in timers.items()
            for a in _session_addresses(dev, name)]
    for ip, n in list(dev.bgp.neighbors.items()):
        hit = next((t for net, t in nets if ipaddress.ip_address(ip) in net), None)
        if n.bfd and hit is not None:
            dev.bgp.neighbors[ip] = dataclasses.replace(n, bfd_timers=hit)


def _session_addresses(dev: ObservedDevice, name: str) -> list[str]:
    """The addresses of a routed interface, port-channel or SVI (VlanN: the VLAN's SVI addresses)."""
    if name in dev.interfaces:
        return dev.interfaces[name].ipv4
    vid = name.removeprefix("Vlan")
    return dev.vlans[int(vid)].svi if name.startswith("Vlan") and vid.isdigit() and int(vid) in dev.vlans else []


def _bgp(asn: int, node: object) -> Bgp:
    """NX-OS nests a neighbour's settings under `neighbor A` and a template's under `template peer T`: flattened
    into the `neighbor X ...` statements the shared reader takes (`inherit peer T` = membership of group T)."""
    bgp = Bgp(asn=asn)
    statements: list[list[str]] = []
    for child in node.children:  # type: ignore[attr-defined]
        words = child.text.split()
        if words[:1] == ["router-id"] and len(words) == 2:
            bgp.router_id = words[1]
        elif (words[:2] == ["template", "peer"] and len(words) == 3) or (words[:1] == ["neighbor"] and len(words) == 2):
            who = words[-1]
            if words[0] == "template":
                statements.append(["neighbor", who, "peer-group"])  # declares the group
            for sub in _lines(child):
                w = sub.split()
                if w[:2] == ["inherit", "peer"] and len(w) == 3:
                    statements.append(["neighbor", who, "peer-group", w[2]])
                elif w[:1] in (["remote-as"], ["password"]) or w == ["bfd"]:
                    statements.append(["neighbor", who, *w])
    bgp.neighbors.update(neighbors(statements))
    return bgp

PLATFORM = "nxos"  # the registry entry (railfabric/verify/readers.py)
READ = read_nxos
