"""Juniper Junos reader: configs/<device>/junos.conf parsed with the verifier's own curly-brace reader
(railfabric/verify/junos_tree.py) → ObservedDevice.

Junos forms read (Juniper documentation; AI JVD leaf configuration): `interfaces X` with `disable`, `speed 400g`
(a channel et-0/0/P:C takes its parent's speed), `mtu M` (media MTU, the 14-byte Ethernet header included: the IP
MTU is M - 14 unless `unit 0 family inet mtu N` says it), `unit 0 family inet address A/L`, `unit 0 family
ethernet-switching interface-mode access; vlan members NAME`, `ether-options 802.3ad aeN`; `vlans NAME vlan-id N
l3-interface irb.N` with `interfaces irb unit N family inet address`; `lo0 unit 0`; the management port re0:mgmt-0
in `system management-instance` (instance mgmt_junos); `protocols bgp group G` (`peer-as`, `neighbor A peer-as`,
`bfd-liveness-detection`); `routing-options router-id / autonomous-system`; class-of-service: forwarding-classes
(queue, no-loss pfc-priority), the dscp classifier bound on unit 0 (DSCP trust and the DSCP → class map),
schedulers (`priority strict-high`, `explicit-congestion-notification`) through the scheduler map bound to the
port, the congestion-notification profile bound to the port (PFC priorities from `output ieee-802.1 code-point`,
`pfc-watchdog`); `system login user U class C` (super-user is the push's admin role); `system services netconf ssh`
(the push's API). MC-LAG (Juniper QFX MC-LAG guide): `protocols iccp local-ip-addr / peer`, `multi-chassis
multi-chassis-protection P interface aeN` (the ICL), `switch-options service-id` (the domain both switches share),
`aggregated-ether-options mc-ae mc-ae-id` (the MLAG id), an ae trunk's `vlan members [ ... ]`, and on an irb unit
`address A/L { vrrp-group N { virtual-address V; } }`: V/L is the shared gateway, A the switch's own.
An ae member carries its bundle's CoS (Junos applies an ae's class-of-service to its members).
Buffers on Junos are platform defaults here (no shared-buffer statements are rendered), so Buffers.managed is False.
Unnumbered sessions (a group's `dynamic-neighbor` with `peer-auto-discovery`, `peer-as-list`) are read by
railfabric/verify/junos_dynamic.py; a routed port's `family inet` without an address is still a routed port.
"""

from __future__ import annotations

import re
from pathlib import Path

from railfabric.verify.inputs import read_text
from railfabric.verify.junos_dynamic import as_lists, read_dynamic
from railfabric.verify.junos_tree import JunosSyntaxError, Node, parse
from railfabric.verify.load_balancing import from_junos
from railfabric.verify.model import (
    Bgp,
    Buffers,
    Failure,
    Interface,
    MlagObserved,
    Neighbor,
    ObservedDevice,
    Qos,
    VerifyInputError,
    Vlan,
    ao_keys,
)

MEDIA_OVERHEAD = 14
ROLE = {"super-user": "network-admin", "read-only": "network-operator"}
SPEED = re.compile(r"(\d+)g$")


def read_junos(name: str, root: Path) -> ObservedDevice:
    path = root / "configs" / name / "junos.conf"
    file = path.relative_to(root).as_posix()
    try:
        tree = parse(read_text(path, root))
    except JunosSyntaxError as e:
        raise VerifyInputError(f"{file}: not a Junos configuration: {e}") from None
    dev = ObservedDevice(name, "junos", files={"config": file, "bgp": file})
    vlan_ids = _vlans(dev, tree)
    interfaces = tree.find("interfaces") or Node(())
    speeds = {n.key: s for n in interfaces.children if (s := _speed(n)) is not None}
    for node in interfaces.children:
        _interface(dev, node, vlan_ids, speeds)
    _qos(dev, tree)
    _mclag(dev, tree)
    _bgp(dev, tree)
    _system(dev, tree)
    dev.balancing = from_junos(tree)
    dev.notes.append("Junos lossless buffers are platform defaults: nothing in junos.conf to verify")
    return dev


def _speed(node: Node) -> int | None:
    m = SPEED.fullmatch(node.value("speed") or "")
    return int(m.group(1)) * 1000 if m else None


def _vlans(dev: ObservedDevice, tree: Node) -> dict[str, int]:
    """VLAN name → id; each VLAN with its irb unit's address as the SVI."""
    names: dict[str, int] = {}
    irb_of: dict[int, int] = {}  # irb unit → VLAN id
    for v in (tree.find("vlans") or Node(())).children:
        vid = v.value("vlan-id")
        if not v.words or vid is None or not vid.isdigit():
            continue
        names[v.key] = int(vid)
        dev.vlans.setdefault(int(vid), Vlan(int(vid)))
        l3 = v.value("l3-interface") or ""
        if l3.startswith("irb.") and l3[4:].isdigit():
            irb_of[int(l3[4:])] = int(vid)
    irb = (tree.find("interfaces") or Node(())).find("irb")
    for unit in irb.all("unit") if irb else []:
        if len(unit.words) != 2 or not unit.words[1].isdigit() or int(unit.words[1]) not in irb_of:
            continue
        vlan = dev.vlans[irb_of[int(unit.words[1])]]
        inet = unit.find("family inet")
        if inet is not None:
            for a in (a for a in inet.all("address") if len(a.words) > 1):
                vlan.svi.append(a.words[1])
                _vrrp(vlan, a)
            mtu = inet.value("mtu")
            vlan.mtu = int(mtu) if mtu and mtu.isdigit() else None
        vlan.svi += _inet6_addresses(unit)
    return names


def _inet6_addresses(unit: Node) -> list[str]:
    """A unit's `family inet6 { address A/L; }` addresses (dual-stack lo0 and irb units)."""
    inet6 = unit.find("family inet6")
    return [a.words[1] for a in inet6.all("address") if len(a.words) > 1] if inet6 is not None else []


def _vrrp(vlan: Vlan, address: Node) -> None:
    """`address <own>/<len> { vrrp-group N { virtual-address V; } }`: V/<len> is the pair's shared gateway, the
    address itself this switch's own (MC-LAG)."""
    length = address.words[1].partition("/")[2]
    for group in address.all("vrrp-group"):
        virtual = group.find("virtual-address")
        for v in virtual.words[1:] if virtual is not None else ():
            vlan.svi.append(f"{v}/{length}" if length else v)
            vlan.virtual = True
            if address.words[1] not in vlan.own:
                vlan.own.append(address.words[1])


def _interface(dev: ObservedDevice, node: Node, vlan_ids: dict[str, int], speeds: dict[str, int]) -> None:
    name = node.key
    if len(node.words) != 1 or name == "irb":
        return
    unit = node.find("unit 0")
    inet = unit.find("family inet") if unit else None
    addresses = [a.words[1] for a in inet.all("address") if len(a.words) > 1] if inet else []
    if name == "lo0":
        dev.loopbacks += addresses + (_inet6_addresses(unit) if unit else [])
        return
    if name.startswith("re0:mgmt") or name in ("em0", "fxp0"):
        dev.mgmt.address = next(iter(addresses), None)
        return
    if node.value("number-of-sub-ports"):
        return  # the parent of a channelized port: its channels are the interfaces
    i = Interface(name, admin_up=not node.has("disable"))
    i.speed = speeds.get(name, speeds.get(name.split(":")[0]) if ":" in name else None)
    media = node.value("mtu")
    inet_mtu = inet.value("mtu") if inet else None
    if inet_mtu and inet_mtu.isdigit():
        i.mtu = int(inet_mtu)
    elif media and media.isdigit():
        i.mtu = int(media) - MEDIA_OVERHEAD
    i.ipv4 = addresses
    if addresses or inet is not None:  # unnumbered: `family inet` without an address
        i.mode = "routed"
    switching = unit.find("family ethernet-switching") if unit else None
    members_node = switching.find("vlan", "members") if switching is not None else None
    vids = [vlan_ids.get(w, int(w) if w.isdigit() else None) for w in (members_node.words[1:] if members_node else ())]
    if switching is not None and switching.value("interface-mode") == "access":
        i.mode, i.vlan = "access", vids[0] if len(vids) == 1 else None
        if i.vlan is not None:
            dev.vlans.setdefault(i.vlan, Vlan(i.vlan, declared=False)).members.append(name)
    elif switching is not None and switching.value("interface-mode") == "trunk":
        i.mode, i.trunk_vlans = "trunk", frozenset(v for v in vids if v is not None)
        for v in i.trunk_vlans:
            dev.vlans.setdefault(v, Vlan(v, declared=False)).tagged.append(name)
    mc_ae = node.find("aggregated-ether-options", "mc-ae")
    mc_ae_id = mc_ae.value("mc-ae-id") if mc_ae is not None else None
    if mc_ae_id and mc_ae_id.isdigit():
        i.mlag = int(mc_ae_id)
    lag = node.find("ether-options", "802.3ad")
    if lag is not None and len(lag.words) == 2:
        i.mode, i.channel = "member", lag.words[1]
    dev.interfaces[name] = i


def _qos(dev: ObservedDevice, tree: Node) -> None:
    cos = tree.find("class-of-service")
    if cos is None:
        return
    queue_of: dict[str, int] = {}
    pfc_class: dict[str, int] = {}
    for c in (cos.find("forwarding-classes") or Node(())).all("class"):
        w = c.words
        if len(w) >= 4 and w[2] == "queue-num" and w[3].isdigit():
            queue_of[w[1]] = int(w[3])
            if "pfc-priority" in w and w.index("pfc-priority") + 1 < len(w):
                pfc_class[w[1]] = int(w[w.index("pfc-priority") + 1])
    classifiers: dict[str, dict[int, int]] = {}
    for cl in (cos.find("classifiers") or Node(())).all("dscp"):
        table: dict[int, int] = {}
        for fc in cl.all("forwarding-class"):
            tc = pfc_class.get(fc.words[1], queue_of.get(fc.words[1])) if len(fc.words) > 1 else None
            for lp in fc.all("loss-priority"):
                points = lp.words[lp.words.index("code-points") + 1:] if "code-points" in lp.words else ()
                for p in points:
                    if tc is not None and re.fullmatch(r"[01]{6}", p):
                        table[int(p, 2)] = tc
        classifiers[cl.words[1] if len(cl.words) > 1 else ""] = table
    schedulers = {s.key: s for s in (cos.find("schedulers") or Node(())).children}
    maps: dict[str, tuple[frozenset[int], frozenset[int]]] = {}  # scheduler map → (strict queues, ECN queues)
    for sm in (cos.find("scheduler-maps") or Node(())).children:
        strict, ecn = set(), set()
        for entry in sm.all("forwarding-class"):
            w = entry.words
            if len(w) == 4 and w[2] == "scheduler" and w[1] in queue_of and w[3] in schedulers:
                s = schedulers[w[3]]
                if s.find("priority") is not None and s.value("priority") == "strict-high":
                    strict.add(queue_of[w[1]])
                if s.has("explicit-congestion-notification"):
                    ecn.add(queue_of[w[1]])
        maps[sm.key] = (frozenset(strict), frozenset(ecn))
    profiles: dict[str, tuple[frozenset[int], bool]] = {}
    for prof in cos.all("congestion-notification-profile"):
        out = prof.find("output", "ieee-802.1")
        prios = {int(c.words[1], 2) for c in (out.all("code-point") if out else [])
                 if len(c.words) == 2 and re.fullmatch(r"[01]{3}", c.words[1]) and c.find("flow-control-queue")}
        profiles[prof.words[1] if len(prof.words) > 1 else ""] = (frozenset(prios),
                                                                 prof.find("pfc-watchdog") is not None)
    bound = cos.find("interfaces") or Node(())
    for b in bound.children:
        intf = dev.interfaces.get(b.key)
        if intf is None:
            continue
        q = Qos()
        bound_cl = b.find("unit 0", "classifiers", "dscp")
        if bound_cl is not None and len(bound_cl.words) == 2 and bound_cl.words[1] in classifiers:
            q.dscp_trust, q.dscp_to_tc = True, dict(classifiers[bound_cl.words[1]])
        q.tc_to_queue = {tc: tc for tc in set(q.dscp_to_tc.values())}
        q.strict_queues, q.ecn_queues = maps.get(b.value("scheduler-map") or "", (frozenset(), frozenset()))
        q.pfc_priorities, q.watchdog = profiles.get(b.value("congestion-notification-profile") or "",
                                                    (frozenset(), False))
        intf.qos, intf.buffers = q, Buffers(managed=False)
    for intf in dev.interfaces.values():  # an ae member carries its bundle's CoS and MTU
        parent = dev.interfaces.get(intf.channel or "")
        if parent is not None:
            intf.qos, intf.buffers = parent.qos, parent.buffers
            if intf.mtu is None:
                intf.mtu = parent.mtu


def _bgp(dev: ObservedDevice, tree: Node) -> None:
    ro = tree.find("routing-options") or Node(())
    asn = ro.value("autonomous-system")
    dev.bgp = Bgp(asn=int(asn) if asn and asn.isdigit() else None, router_id=ro.value("router-id"))
    lists = as_lists(tree)
    for g in (tree.find("protocols", "bgp") or Node(())).all("group"):
        if len(g.words) != 2:
            continue
        group_as = g.value("peer-as") or (asn if g.value("type") == "internal" else None)
        liveness = g.find("bfd-liveness-detection")
        timers = None
        if liveness is not None:
            interval, mult = liveness.value("minimum-interval"), liveness.value("multiplier")
            if interval and mult and interval.isdigit() and mult.isdigit():
                timers = (int(interval), int(interval), int(mult))
        key = _session_key(tree, g)
        read_dynamic(dev, tree, g, Neighbor(
            "", int(group_as) if group_as and group_as.isdigit() else None, g.words[1], liveness is not None,
            bfd_timers=timers, key=key), lists, lambda block: _session_key(tree, block))
        for n in g.all("neighbor"):
            if len(n.words) < 2:
                continue
            peer_as = n.value("peer-as") or group_as
            dev.bgp.neighbors[n.words[1]] = Neighbor(
                n.words[1], int(peer_as) if peer_as and peer_as.isdigit() else None, g.words[1],
                liveness is not None or n.find("bfd-liveness-detection") is not None, bfd_timers=timers, key=key)


def _session_key(tree: Node, g: Node) -> tuple[str, str] | None:
    """A group's key: `authentication-key "K"` (TCP MD5), or `authentication-algorithm ao` with the keys of its
    `authentication-key-chain` (security authentication-key-chains key-chain C key N { secret "K"; ao-attribute
    { send-id I; } }) as verify.model.ao_keys writes them (`I=K`, in the chain's order)."""
    md5 = g.value("authentication-key")
    if md5:
        return ("md5", md5.strip('"'))
    chain = g.value("authentication-key-chain")
    if g.value("authentication-algorithm") != "ao" or not chain:
        return None
    kc = tree.find("security", "authentication-key-chains", f"key-chain {chain}")
    keys = kc.all("key") if kc is not None else []
    return ("tcp-ao", ao_keys([(_send_id(k), (k.value("secret") or "").strip('"')) for k in keys]))


def _send_id(key: Node) -> str:
    attr = key.find("ao-attribute")
    return (attr.value("send-id") if attr is not None else None) or "?"


def _mclag(dev: ObservedDevice, tree: Node) -> None:
    """MC-LAG: ICCP's local and peer addresses, the ICL (`multi-chassis multi-chassis-protection P interface
    aeN`), the service id both switches share (the domain), the peer VLAN = the one whose IRB holds local-ip-addr;
    that IRB unit is also the routed interface the plan names (irb.4094 in ipplan.csv and expected/)."""
    iccp = tree.find("protocols", "iccp")
    protection = tree.find("multi-chassis", "multi-chassis-protection")
    if iccp is None and protection is None:
        return
    peer = iccp.find("peer") if iccp is not None else None
    m = MlagObserved(domain=(tree.find("switch-options") or Node(())).value("service-id") or "",
                     local_ip=iccp.value("local-ip-addr") if iccp is not None else None,
                     peer_ip=peer.words[1] if peer is not None and len(peer.words) > 1 else None,
                     peer_link=protection.value("interface") if protection is not None else None)
    for vid, v in sorted(dev.vlans.items()):
        if m.local_ip is not None and m.local_ip in (a.split("/")[0] for a in v.svi):
            m.vlan = vid
            name = f"irb.{vid}"
            dev.interfaces[name] = Interface(name, mtu=v.mtu, mode="routed", ipv4=list(v.svi))
    dev.mlag = m


def _system(dev: ObservedDevice, tree: Node) -> None:
    system = tree.find("system") or Node(())
    dev.mgmt.vrf = "mgmt_junos" if system.has("management-instance") else "default"
    netconf = system.find("services", "netconf")
    dev.mgmt.api_enabled = netconf is not None and netconf.has("ssh")
    dev.mgmt.api_vrfs = frozenset({dev.mgmt.vrf}) if dev.mgmt.api_enabled else frozenset()
    for u in (system.find("login") or Node(())).all("user"):
        if len(u.words) == 2:
            dev.mgmt.users[u.words[1]] = ROLE.get(u.value("class") or "", u.value("class") or "")
    if not dev.mgmt.api_enabled:
        dev.failures.append(Failure("mgmt", dev.name, "system services netconf ssh",
                                    "NETCONF over SSH enabled (the push's API)", "absent", dev.files["config"]))

PLATFORM = "junos"  # the registry entry (railfabric/verify/readers.py)
READ = read_junos
