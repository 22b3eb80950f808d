"""Cumulus Linux NVUE reader: configs/<device>/startup.yaml parsed with PyYAML's safe loader → ObservedDevice.

The file is NVUE's object model (`- set:` + the `nv set` path tree). Read: `interface <swp|bond|vlanN|lo|eth0>` with
`link {mtu, speed, state up|down}`, `ip address`, `ip vrf`, `bridge domain <br> access <vlan>`, `bond member`,
`qos pfc-watchdog`, `type svi` + `vlan`; `bridge domain <br> vlan`; `qos mapping default-global {trust, dscp <d>
switch-priority <p>}`, `qos egress-queue-mapping default-global switch-priority <p> traffic-class <t>`, `qos pfc
default-global switch-priority`, `qos congestion-control default-global traffic-class <t> ecn`, `qos
egress-scheduler default-global traffic-class <t> mode strict`; `router bgp {autonomous-system, router-id}`, `vrf
default router bgp {neighbor <ip> {remote-as, peer-group}, peer-group <g> bfd enable}`; `system aaa user <u>
role`. MLAG (Cumulus clagd, CL 5.14 MLAG and VRR guides): `interface <bond> bond mlag id`, the peer link as the
bond of type `peerlink` (a bridge member, so a trunk of every bridge VLAN) and its subinterface `peerlink.<vid>`
(type sub, base-interface, vlan: the peer VLAN and its address), `mlag {mac-address, peer-ip}` (the system MAC
stands for the domain: both switches of a pair must share it), `interface vlanN ip vrr {address, mac-address}` (a
virtual gateway; its MAC is the pair's virtual MAC) beside the switch's own `ip address` (Vlan.own). QoS is global
in NVUE (default-global profiles), so every port with `qos pfc-watchdog` or in a RoCE profile gets the global map;
a port is a RoCE port when `qos roce` is on. Buffers are NVIDIA's RoCE pools (`qos roce mode lossless`), not
written per port: Buffers.managed is False. On/off values are accepted as YAML booleans or the strings on/off
(NVUE prints them unquoted).

Both sides of Cumulus Linux 5.15's renaming are read (railfabric/platforms/nvue_release.py): a feature's switch `enable:
on` or `state: enabled`, interface addresses under `ip` or `ipv4`, eth0's VRF as `ip vrf` or the interface's `vrf`,
BGP BFD as the peer group's `bfd enable on` or `bfd profile <p>` with `router bfd state enabled`. The reader does not
know the file's release: it reads what the file says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from railfabric.verify.inputs import read_text
from railfabric.verify.load_balancing import from_nvue
from railfabric.verify.model import (
    Bgp,
    Buffers,
    Interface,
    MlagObserved,
    Neighbor,
    ObservedDevice,
    Qos,
    VerifyInputError,
    Vlan,
)
from railfabric.verify.nvue_schema import check_text, document

ROLES = {"system-admin": "network-admin", "nvue-monitor": "network-operator"}


def _on(value: Any) -> bool:
    return value is True or str(value).lower() in ("on", "enabled", "true")


def _switched(node: dict, default: bool = False) -> bool:
    """A feature's switch: `enable: on` (up to 5.14) or `state: enabled` (5.15+); `default` when neither is written.
    Before 5.15 VRR's `state` is the interface state `{up: {}}`, not the switch: only a scalar state counts."""
    if "enable" in node:
        return _on(node["enable"])
    state = node.get("state")
    return _on(state) if isinstance(state, (str, bool)) else default


def _ipv4(node: dict) -> dict:
    """An interface's IPv4 branch: `ip` up to 5.14, `ipv4` from 5.15."""
    return {**_dict(node.get("ip")), **_dict(node.get("ipv4"))}


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _speed(text: Any) -> int | None:
    s = str(text or "").upper()
    return int(s[:-1]) * 1000 if s.endswith("G") and s[:-1].isdigit() else None


def _tree(path: Path, root: Path) -> dict:
    file = path.relative_to(root).as_posix()
    try:
        doc = document(read_text(path, root))  # parsed once for the reader and the schema check
    except yaml.YAMLError as e:
        raise VerifyInputError(f"{file}: not YAML: {e}") from None
    if not isinstance(doc, list) or not all(isinstance(x, dict) for x in doc):
        raise VerifyInputError(f"{file}: not an NVUE configuration (a list of `- set:` items)")
    tree: dict = {}
    for item in doc:
        if "set" in item:
            tree = _dict(item["set"])  # a rendered file has exactly one `set`
    return tree


def _qos(q: dict) -> Qos | None:
    if not _switched(_dict(q.get("roce"))):
        return None
    mapping = _dict(_dict(q.get("mapping")).get("default-global"))
    dscp_sp = {int(d): int(_dict(v).get("switch-priority", 0)) for d, v in _dict(mapping.get("dscp")).items()}
    sp_tc = {int(p): int(_dict(v).get("traffic-class", p)) for p, v in
             _dict(_dict(_dict(q.get("egress-queue-mapping")).get("default-global")).get("switch-priority")).items()}
    pfc = _dict(_dict(_dict(q.get("pfc")).get("default-global")).get("switch-priority"))
    cc = _dict(_dict(_dict(q.get("congestion-control")).get("default-global")).get("traffic-class"))
    sched = _dict(_dict(_dict(q.get("egress-scheduler")).get("default-global")).get("traffic-class"))
    return Qos(
        dscp_trust=mapping.get("trust") in ("both", "l3", "dscp"),
        # DSCP → switch priority → traffic class (NVUE's two maps), compared as the neutral DSCP → TC map
        dscp_to_tc={d: sp_tc.get(sp, sp) for d, sp in dscp_sp.items()},
        tc_to_queue={},  # Spectrum: traffic class n is egress queue n
        pfc_priorities=frozenset(int(p) for p in pfc),
        ecn_queues=frozenset(int(t) for t, v in cc.items() if _dict(v).get("ecn") == "enable"),
        strict_queues=frozenset(int(t) for t, v in sched.items() if _dict(v).get("mode") == "strict"),
    )


def _bfd_on(node: dict, profiles: set[str]) -> bool:
    """A neighbour's or peer group's BFD: `bfd enable on` (to 5.14) or a profile of an enabled `router bfd` (5.15+)."""
    b = _dict(node.get("bfd"))
    return _switched(b) or b.get("profile") in profiles


def _timers(node: dict, profiles: dict) -> tuple[int, int, int] | None:
    """A neighbour's or peer group's BFD timers (transmit, receive, multiplier): its own leaves (to 5.14) or its
    profile's (5.15+); None when neither says them."""
    b = _dict(node.get("bfd"))
    src = _dict(profiles.get(b.get("profile"))) if b.get("profile") is not None else b
    tx, rx, mult = (src.get("min-tx-interval"), src.get("min-rx-interval"), src.get("detect-multiplier"))
    return (tx, rx, mult) if isinstance(tx, int) and isinstance(rx, int) and isinstance(mult, int) else None


def _bgp(router: dict, vrf: dict) -> Bgp:
    top = _dict(router.get("bgp"))
    asn = top.get("autonomous-system")
    bgp = Bgp(asn=int(asn) if asn is not None else None, router_id=top.get("router-id"))
    body = _dict(_dict(_dict(_dict(vrf.get("default")).get("router")).get("bgp")))
    groups = _dict(body.get("peer-group"))
    router_bfd = _dict(router.get("bfd"))
    profiles = set(_dict(router_bfd.get("profile"))) if _switched(router_bfd) else set()
    bodies = {k: _dict(v) for k, v in _dict(router_bfd.get("profile")).items()}
    for ip, n in _dict(body.get("neighbor")).items():
        n = _dict(n)
        group = n.get("peer-group")
        g = _dict(groups.get(group)) if group else {}
        remote = n.get("remote-as", g.get("remote-as"))
        bfd = _bfd_on(n, profiles) or _bfd_on(g, profiles)
        timers = _timers(n, bodies) or _timers(g, bodies)
        password = n.get("password", g.get("password"))
        bgp.neighbors[str(ip)] = Neighbor(str(ip), int(str(remote)) if str(remote).isdigit() else None, group, bfd,
                                          n.get("type") == "unnumbered", bfd_timers=timers,
                                          key=("md5", str(password)) if password not in (None, "none") else None)
    return bgp


def read_nvue(name: str, root: Path) -> ObservedDevice:
    path = root / "configs" / name / "startup.yaml"
    file = path.relative_to(root).as_posix()
    tree = _tree(path, root)
    dev = ObservedDevice(name, "nvue", files={"config": file, "bgp": file})
    qos = _qos(_dict(tree.get("qos")))
    for vid in _dict(_dict(_dict(_dict(tree.get("bridge")).get("domain")).get("br_default")).get("vlan")):
        dev.vlans.setdefault(int(vid), Vlan(int(vid)))
    members: dict[str, str] = {}
    for ifname, node in _dict(tree.get("interface")).items():
        node = _dict(node)
        for m in _dict(_dict(node.get("bond")).get("member")):
            members[str(m)] = str(ifname)
    for ifname, node in _dict(tree.get("interface")).items():
        _interface(dev, str(ifname), _dict(node), members, qos)
    _mlag(dev, tree)
    for i in dev.interfaces.values():
        if i.mode == "access" and i.vlan is not None:
            dev.vlans.setdefault(i.vlan, Vlan(i.vlan, declared=False)).members.append(i.name)
    dev.bgp = _bgp(_dict(tree.get("router")), _dict(tree.get("vrf")))
    dev.balancing = from_nvue(tree)
    for user, u in _dict(_dict(_dict(tree.get("system")).get("aaa")).get("user")).items():
        dev.mgmt.users[str(user)] = ROLES.get(_dict(u).get("role", ""), "")
    dev.notes.append("NVUE lossless buffers are NVIDIA's RoCE pools (qos roce mode lossless): nothing per port")
    return dev


def _interface(dev: ObservedDevice, ifname: str, node: dict, members: dict[str, str], qos: Qos | None) -> None:
    link, ip = _dict(node.get("link")), _ipv4(node)
    addresses = [str(a) for a in _dict(ip.get("address"))]
    kind = node.get("type")
    if kind == "loopback":
        dev.loopbacks += addresses
        return
    if kind == "eth":
        dev.mgmt.vrf, dev.mgmt.address = ip.get("vrf", node.get("vrf")), next(iter(addresses), None)
        return
    if kind == "svi":
        vid = int(node.get("vlan") or ifname.removeprefix("vlan"))
        vlan = dev.vlans.setdefault(vid, Vlan(vid, declared=False))
        vrr = _dict(ip.get("vrr"))
        virtual = [str(a) for a in _dict(vrr.get("address"))] if _switched(vrr, True) else []
        vlan.svi += addresses + virtual
        vlan.virtual = bool(virtual)
        vlan.own += addresses if virtual else []  # the switch's own address beside the shared VRR address
        vlan.mtu = link.get("mtu")
        return
    if kind == "sub" and node.get("vlan") is not None:  # peerlink.4094: the MLAG peer VLAN, routed, off the bridge
        vid = int(node["vlan"])
        vlan = dev.vlans.setdefault(vid, Vlan(vid, declared=False))
        vlan.svi += addresses
        vlan.tagged.append(str(node.get("base-interface", ifname.split(".")[0])))
        vlan.mtu = link.get("mtu")
        # also the routed interface the plan names (ipplan.csv, expected/bgp_sessions.csv: peerlink.4094)
        dev.interfaces[ifname] = Interface(ifname, mtu=vlan.mtu, mode="routed", ipv4=list(addresses))
        return
    if "breakout" in link and kind == "swp" and set(link) == {"breakout"}:
        return  # the parent of a broken-out port: its lanes are the interfaces
    i = Interface(ifname, admin_up="down" not in _dict(link.get("state")), speed=_speed(link.get("speed")),
                  mtu=link.get("mtu"), ipv4=addresses)
    access = _dict(_dict(_dict(node.get("bridge")).get("domain")).get("br_default")).get("access")
    if ifname in members:
        i.mode, i.channel = "member", members[ifname]
    elif kind == "peerlink":  # NVUE bridges the peer link in every bridge VLAN; its subinterfaces add theirs
        i.mode = "trunk"
    elif access is not None:
        i.mode, i.vlan = "access", int(access)
    elif addresses or (kind in ("swp", "bond") and i.admin_up):  # up and in no bridge: routed (unnumbered: no
        i.mode = "routed"                                         # address, its BGP neighbor is the interface)
    mlag_id = _dict(_dict(node.get("bond")).get("mlag"))
    if mlag_id.get("id") is not None and _switched(mlag_id, True):
        i.mlag = int(mlag_id["id"])
    if qos is not None and kind == "swp" and i.mode != "none":
        i.qos = Qos(qos.dscp_trust, dict(qos.dscp_to_tc), {}, {}, qos.pfc_priorities, qos.ecn_queues,
                    qos.strict_queues, watchdog="pfc-watchdog" in _dict(node.get("qos")))
        i.buffers = Buffers(managed=False)
    dev.interfaces[ifname] = i


def _mlag(dev: ObservedDevice, tree: dict) -> None:
    """The peer link's VLANs (the bridge's plus its subinterfaces'), the `mlag` section and the VRR MAC."""
    section = _dict(tree.get("mlag"))
    peerlinks = [n for n, i in dev.interfaces.items() if i.mode == "trunk"]
    for name in peerlinks:
        subs = {vid for vid, v in dev.vlans.items() if name in v.tagged}
        bridged = {vid for vid, v in dev.vlans.items() if v.declared}
        dev.interfaces[name].trunk_vlans = frozenset(bridged | subs)
        for vid in bridged:
            dev.vlans[vid].tagged.append(name)
    if not section or not _switched(section, True):
        return
    m = MlagObserved(domain=str(section.get("mac-address", "")).lower(), peer_ip=section.get("peer-ip"),
                     peer_link=next(iter(peerlinks), None))
    for vid, v in sorted(dev.vlans.items()):
        if m.peer_link is not None and m.peer_link in v.tagged and not v.declared and v.svi:
            m.vlan, m.local_ip = vid, v.svi[0].split("/")[0]
    vrrs = [_dict(_ipv4(_dict(n)).get("vrr")) for n in _dict(tree.get("interface")).values()]
    macs = sorted({str(v["mac-address"]).lower() for v in vrrs if v.get("mac-address") is not None})
    m.virtual_mac = macs[0] if macs else None
    dev.mlag = m

PLATFORM = "nvue"  # the registry entry (railfabric/verify/readers.py)
READ = read_nvue
SCHEMA_CHECK = check_text  # NVIDIA's NVUE OpenAPI schema of the file's release
