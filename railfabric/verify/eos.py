"""Arista EOS reader: configs/<device>/running-config.cfg parsed with hier_config's EOS config tree → ObservedDevice.

EOS forms read (Arista EOS User Manual; CIS Arista EOS benchmark for the eAPI block): `interface X` with `shutdown`,
`mtu N` (IP MTU), `speed 400g-4` / `speed forced 100gfull` / `speed 400g`, `no switchport` + `ip address A/L`,
`switchport access vlan N`, `channel-group N mode active`, `qos trust dscp`, `priority-flow-control priority P
no-drop`, `priority-flow-control pause watchdog`, `tx-queue Q` (Sand) or `uc-tx-queue Q` (Trident/Tomahawk: the
unicast queue, railfabric/platforms/eos_asic.py) with `random-detect ecn ...` / `priority strict`;
global `qos map dscp D... to traffic-class T`, `qos map traffic-class T to tx-queue Q`; `vlan N`; `router bgp N`
with `router-id`, `neighbor G peer group`, `neighbor X remote-as N`, `neighbor X bfd`, `neighbor IP peer group G`;
`management api http-commands` with `no shutdown` and `vrf V` / `no shutdown`; `username U ... role R ...`.
MLAG (EOS User Manual, Multi-Chassis Link Aggregation; VARP and virtual IP chapter): `switchport mode trunk`,
`switchport trunk allowed vlan L` (absent: every VLAN), `switchport trunk group G`, `mlag N` on a port-channel;
`vlan N` with `trunk group G` (such a VLAN is carried only by trunks in one of its groups); `ip address virtual A/L`
on an SVI; `mlag configuration` (domain-id, local-interface, peer-address, peer-link); `ip virtual-router
mac-address M`.
Unnumbered sessions (routing.addressing: unnumbered; forms from Arista's AVD, platforms/eos.py): `neighbor interface
<if> peer-group G remote-as N` (bgp_statements.py), with `ipv6 enable` on <if> and the global `ip routing ipv6
interfaces` and `ipv6 unicast-routing` (_unnumbered_needs).
Dual-stack (over unnumbered sessions only on EOS; AVD's forms, platforms/eos.py): `ipv6 address A/L` on Loopback0 and
the rail SVIs, read beside their IPv4 addresses (the IP plan's IPv6 rows are then found like the IPv4 ones).
EOS has no per-port lossless PG/queue buffer configuration to read (the Trident/Tomahawk `platform trident mmu queue
profile` is one platform-wide ingress threshold and headroom, not per-port tables), so Buffers.managed is False.
"""

from __future__ import annotations

import re
from pathlib import Path

from railfabric.verify.bgp_statements import neighbors
from railfabric.verify.inputs import read_text
from railfabric.verify.load_balancing import from_cli
from railfabric.verify.model import (
    Bgp,
    Buffers,
    Failure,
    Interface,
    MlagObserved,
    ObservedDevice,
    Qos,
    VerifyInputError,
    Vlan,
    ao_keys,
)
from railfabric.verify.raw import merged_sections

IP_ADDRESS = re.compile(r"ip address (?:virtual )?(\S+)")
# a loopback's or SVI's addresses, IPv4 and (dual-stack) IPv6: `ip address A/L`, `ipv6 address A/L`
ANY_ADDRESS = re.compile(r"(?:ip|ipv6) address (?:virtual )?(\S+)")
SPEED = re.compile(r"speed (?:forced |auto )?(\d+)(g|m)(?:full|-\d+)?$", re.I)
DSCP_MAP = re.compile(r"qos map dscp ([\d\s-]+) to traffic-class (\d+)$")
TC_QUEUE = re.compile(r"qos map traffic-class ([\d\s-]+) to tx-queue (\d+)$")


def _numbers(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split():
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def _lines(node: object) -> list[str]:
    return [c.text for c in node.children]  # type: ignore[attr-defined]


def read_eos(name: str, root: Path) -> ObservedDevice:
    path = root / "configs" / name / "running-config.cfg"
    file = path.relative_to(root).as_posix()
    text = read_text(path, root)
    from hier_config import Platform, get_hconfig  # imported here: only EOS fabrics pay its import time

    try:
        try:
            tree = get_hconfig(Platform.ARISTA_EOS, text)
        except Exception:  # a raw block re-opening a section: one section on the switch (verify/raw.py)
            if "railfabric raw " not in text:
                raise
            tree = get_hconfig(Platform.ARISTA_EOS, merged_sections(text))
    except Exception as e:  # hier_config raises plain exceptions on text it cannot structure
        raise VerifyInputError(f"{file}: hier_config cannot parse it: {e}") from None
    dev = ObservedDevice(name, "eos", files={"config": file, "bgp": file})
    dev.balancing = from_cli("eos", (top.text for top in tree.children))
    dscp_to_tc: dict[int, int] = {}
    tc_to_queue: dict[int, int] = {}
    layer2 = Layer2()
    secrets = _shared_secrets(tree)  # TCP-AO profiles (management security) come after router bgp in the file
    for top in tree.children:
        t = top.text
        if m := DSCP_MAP.match(t):
            dscp_to_tc.update(dict.fromkeys(_numbers(m.group(1)), int(m.group(2))))
        elif m := TC_QUEUE.match(t):
            tc_to_queue.update(dict.fromkeys(_numbers(m.group(1)), int(m.group(2))))
        elif m := re.fullmatch(r"vlan ([\d,\s-]+)", t):
            groups = {ln.split(None, 2)[2] for ln in _lines(top) if ln.startswith("trunk group ")}
            for vid in _numbers(m.group(1).replace(",", " ")):
                dev.vlans.setdefault(vid, Vlan(vid)).declared = True
                layer2.vlan_groups.setdefault(vid, set()).update(groups)
        elif t.startswith("interface "):
            _interface(dev, t.split(None, 1)[1], top, layer2)
        elif t == "mlag configuration":
            layer2.mlag = _mlag(_lines(top))
        elif m := re.fullmatch(r"ip virtual-router mac-address (\S+)", t):
            layer2.virtual_mac = m.group(1)
        elif m := re.fullmatch(r"router bgp (\d+)", t):
            dev.bgp = _bgp(int(m.group(1)), top, secrets)
        elif t == "management api http-commands":
            _eapi(dev, top)
        elif m := re.match(r"username (\S+)(.*)$", t):
            # one account may span several lines (`username U ssh-key ...` has no role): keep the role once seen
            role = re.search(r"\brole (\S+)", m.group(2))
            if role or m.group(1) not in dev.mgmt.users:
                dev.mgmt.users[m.group(1)] = role.group(1) if role else ""
    for i in dev.interfaces.values():
        if i.qos is not None:
            i.qos.dscp_to_tc, i.qos.tc_to_queue = dict(dscp_to_tc), dict(tc_to_queue)
        if i.channel and i.mtu is None and i.channel in dev.interfaces:
            i.mtu = dev.interfaces[i.channel].mtu  # a member takes its port-channel's MTU
    for i in dev.interfaces.values():
        if i.mode == "access" and i.vlan is not None:
            dev.vlans.setdefault(i.vlan, Vlan(i.vlan, declared=False)).members.append(i.name)
    layer2.finish(dev)
    _unnumbered_needs(dev, tree)
    dev.notes.append("EOS lossless buffers are platform defaults: nothing in the running-config to verify")
    return dev


def _unnumbered_needs(dev: ObservedDevice, tree: object) -> None:
    """What an interface neighbour (`neighbor interface <if> ...`, routing.addressing: unnumbered) needs besides the
    neighbour line (platforms/eos.py, from AVD and ipSpace.net's cEOS configuration): `ipv6 enable` on its interface
    (a link-local address to peer from), and globally `ip routing ipv6 interfaces` (IPv4 routed over interfaces
    without an IPv4 address) and `ipv6 unicast-routing` (without it EOS looks for no link-local peer). A missing one
    is a reader failure: the session would never come up."""
    unnumbered = sorted(ip for ip, n in dev.bgp.neighbors.items() if n.interface)
    if not unnumbered:
        return
    tops = {top.text: _lines(top) for top in tree.children}  # type: ignore[attr-defined]
    file = dev.files["config"]
    for ifname in unnumbered:
        if "ipv6 enable" not in tops.get(f"interface {ifname}", []):
            dev.failures.append(Failure("bgp", dev.name, ifname, "ipv6 enable (an unnumbered BGP session's link-local "
                                        "address)", "absent", file))
    for line in ("ip routing ipv6 interfaces", "ipv6 unicast-routing"):
        if line not in tops:
            dev.failures.append(Failure("bgp", dev.name, line, f"{line} (unnumbered BGP sessions)", "absent", file))


class Layer2:
    """What the interfaces alone do not say: VLAN trunk groups, each trunk's allowed list and groups, the MLAG block."""

    def __init__(self) -> None:
        self.vlan_groups: dict[int, set[str]] = {}
        self.trunks: dict[str, tuple[frozenset[int], set[str]]] = {}  # interface → (allowed VLANs, trunk groups)
        self.mlag: MlagObserved | None = None
        self.virtual_mac: str | None = None

    def finish(self, dev: ObservedDevice) -> None:
        """A trunk carries an allowed VLAN unless the VLAN is restricted to trunk groups the trunk is not in; the
        MLAG domain's local address is its local-interface SVI's."""
        for name, (allowed, groups) in self.trunks.items():
            carried = frozenset(v for v in allowed if not self.vlan_groups.get(v) or self.vlan_groups[v] & groups)
            dev.interfaces[name].trunk_vlans = carried
            for vid in sorted(carried & dev.vlans.keys()):
                dev.vlans[vid].tagged.append(name)
        if self.mlag is None and self.virtual_mac is None:
            return
        mlag = self.mlag or MlagObserved()
        mlag.virtual_mac = self.virtual_mac
        if mlag.vlan is not None and mlag.vlan in dev.vlans and dev.vlans[mlag.vlan].svi:
            mlag.local_ip = dev.vlans[mlag.vlan].svi[0].split("/")[0]
        dev.mlag = mlag


def _vlan_list(text: str) -> frozenset[int]:
    """`switchport trunk allowed vlan` values: all, none, or a list like 100-101,4094."""
    if text == "all":
        return frozenset(range(1, 4095))
    if text == "none":
        return frozenset()
    return frozenset(_numbers(text.replace(",", " ")))


def _mlag(lines: list[str]) -> MlagObserved:
    mlag = MlagObserved()
    for ln in lines:
        words = ln.split()
        if len(words) != 2:
            continue
        if words[0] == "domain-id":
            mlag.domain = words[1]
        elif words[0] == "local-interface" and re.fullmatch(r"Vlan\d+", words[1]):
            mlag.vlan = int(words[1][4:])
        elif words[0] == "peer-address":
            mlag.peer_ip = words[1]
        elif words[0] == "peer-link":
            mlag.peer_link = words[1]
    return mlag


def _addresses(lines: list[str]) -> list[str]:
    return [m.group(1) for ln in lines if (m := ANY_ADDRESS.match(ln))]


def _interface(dev: ObservedDevice, ifname: str, node: object, layer2: Layer2) -> None:
    lines = _lines(node)
    if ifname.startswith("Vlan") and ifname[4:].isdigit():
        vid = int(ifname[4:])
        vlan = dev.vlans.setdefault(vid, Vlan(vid, declared=False))
        vlan.svi += _addresses(lines)
        vlan.virtual = any(ln.startswith("ip address virtual ") for ln in lines)
        vlan.mtu = next((int(ln.split()[1]) for ln in lines if re.fullmatch(r"mtu \d+", ln)), None)
        return
    if ifname.startswith("Loopback"):
        dev.loopbacks += _addresses(lines)
        return
    if ifname.startswith("Management"):
        dev.mgmt.vrf = next((ln.split()[1] for ln in lines if re.fullmatch(r"vrf \S+", ln)), None)
        dev.mgmt.address = next(iter(_addresses(lines)), None)
        return
    i = Interface(ifname, admin_up="shutdown" not in lines)
    qos = Qos()
    has_qos = False
    allowed, groups = frozenset(range(1, 4095)), set()
    for ln in lines:
        if m := re.fullmatch(r"mtu (\d+)", ln):
            i.mtu = int(m.group(1))
        elif m := SPEED.match(ln):
            i.speed = int(m.group(1)) * (1000 if m.group(2).lower() == "g" else 1)
        elif ln == "no switchport":
            i.mode = "routed"
        elif m := IP_ADDRESS.match(ln):
            i.ipv4.append(m.group(1))
        elif m := re.fullmatch(r"switchport access vlan (\d+)", ln):
            i.mode, i.vlan = "access", int(m.group(1))
        elif m := re.fullmatch(r"channel-group (\d+) mode \S+", ln):
            i.mode, i.channel = "member", f"Port-Channel{m.group(1)}"
        elif m := re.fullmatch(r"switchport trunk allowed vlan (\S+)", ln):
            allowed = _vlan_list(m.group(1))
        elif m := re.fullmatch(r"switchport trunk group (\S+)", ln):
            groups.add(m.group(1))
        elif m := re.fullmatch(r"mlag (\d+)", ln):
            i.mlag = int(m.group(1))
        elif ln == "qos trust dscp":
            qos.dscp_trust, has_qos = True, True
        elif m := re.fullmatch(r"priority-flow-control priority (\d) no-drop", ln):
            qos.pfc_priorities, has_qos = qos.pfc_priorities | {int(m.group(1))}, True
        elif ln == "priority-flow-control pause watchdog":
            qos.watchdog = True
    for child in node.children:  # type: ignore[attr-defined]
        if m := re.fullmatch(r"(?:uc-)?tx-queue (\d)", child.text):  # uc-tx-queue: Trident/Tomahawk's unicast queue
            q, sub = int(m.group(1)), _lines(child)
            if any(s.startswith("random-detect ecn ") for s in sub):
                qos.ecn_queues |= {q}
            if "priority strict" in sub:
                qos.strict_queues |= {q}
            has_qos = True
    i.qos = qos if has_qos else None
    i.buffers = Buffers(managed=False) if has_qos else None
    if "switchport mode trunk" in lines and i.mode in ("none", "access"):  # the mode wins over an access VLAN
        i.mode, i.vlan = "trunk", None
        layer2.trunks[ifname] = (allowed, groups)
    dev.interfaces[ifname] = i


def _bgp(asn: int, node: object, secrets: dict[str, str]) -> Bgp:
    bgp = Bgp(asn=asn)
    statements = [ln.split() for ln in _lines(node)]
    for words in statements:
        if words[:1] == ["router-id"] and len(words) == 2:
            bgp.router_id = words[1]
    bgp.neighbors.update(neighbors(statements, secrets=secrets))
    return bgp


def _shared_secrets(tree: object) -> dict[str, str]:
    """`management security` / `session shared-secret profile P` / `secret ID TYPE KEY ...`: P → its keys as
    verify.model.ao_keys writes them (`ID=KEY`, in the file's order; two during a rollover)."""
    out: dict[str, str] = {}
    for top in tree.children:  # type: ignore[attr-defined]
        if top.text != "management security":
            continue
        for prof in top.children:
            words = prof.text.split()
            if words[:3] == ["session", "shared-secret", "profile"] and len(words) == 4:
                keys = [(w[1], w[3]) for ln in _lines(prof) if ln.startswith("secret ") and len(w := ln.split()) > 3]
                if keys:
                    out[words[3]] = ao_keys(keys)
    return out


def _eapi(dev: ObservedDevice, node: object) -> None:
    lines = _lines(node)
    dev.mgmt.api_enabled = "no shutdown" in lines
    vrfs = set()
    for child in node.children:  # type: ignore[attr-defined]
        if (m := re.fullmatch(r"vrf (\S+)", child.text)) and "no shutdown" in _lines(child):
            vrfs.add(m.group(1))
    dev.mgmt.api_vrfs = frozenset(vrfs)

PLATFORM = "eos"  # the registry entry (railfabric/verify/readers.py)
READ = read_eos
