"""MLAG / MCLAG promises, checked on the neutral records (either platform) against cabling.csv and ipplan.csv:

- a host port that cabling.csv puts in a host bond (its `bundle` column) is a member of a port-channel that exists,
  is an access port in the rail VLAN and has an MLAG id; the bond's other port lands on the other switch of the pair
  in a port-channel with the same MLAG id in the same VLAN;
- both ends of every peer cable (role `peer`) are members of their MLAG domain's peer-link port-channel, which trunks
  every rail VLAN of the switch and the peer VLAN;
- the two switches of a pair agree on their MLAG domain: the same domain and peer VLAN, each one's peer address is
  the other's local address, the same virtual MAC;
- every rail SVI of an MLAG switch is a virtual (shared) gateway, with the same address on both switches, answered
  with a virtual MAC where the platform configures one (EOS `ip virtual-router mac-address`; on SONiC iccpd gives
  the MCLAG standby's SVIs the active's MAC, MC-LAG HLD §5.4, so there is nothing to configure or check);
- where the platform gives each switch its own address beside the shared one (Platform.mlag_own_svi_address:
  NVUE VRR), the own addresses are ipplan.csv's `rail-own` rows, inside the rail subnet (its `rail-subnet` row),
  distinct from the shared gateway and from the peer's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from ipaddress import ip_interface, ip_network

from railfabric.platforms import PLATFORMS
from railfabric.verify.inputs import Address, Cable
from railfabric.verify.model import Interface, ObservedDevice

Fail = Callable[[str, str, str, str, str, str], None]  # check, device, subject, expected, found, file


def ints(values: frozenset[int] | set[int]) -> str:
    return ",".join(str(v) for v in sorted(values)) or "none"


def rail_rows(addresses: Iterable[Address], purpose: str) -> dict[tuple[str, int], list[Address]]:
    """ipplan.csv rows of one purpose on rail SVIs, by (owner, VLAN) from their detail `rail R vlan V ...`."""
    out: dict[tuple[str, int], list[Address]] = {}
    for a in addresses:
        words = a.detail.split()
        if a.purpose == purpose and len(words) >= 4 and words[2] == "vlan" and words[3].isdigit():
            out.setdefault((a.owner, int(words[3])), []).append(a)
    return out


def ips(addresses: Iterable[str]) -> set[str]:
    return {a.split("/")[0] for a in addresses}


class MlagChecks:
    def __init__(self, devices: dict[str, ObservedDevice], rail_vlans: dict[tuple[str, str], int], fail: Fail,
                 addresses: Iterable[Address] = ()) -> None:
        self.devices, self.rail_vlans, self.fail = devices, rail_vlans, fail
        addresses = list(addresses)
        self.own = rail_rows(addresses, "rail-own")  # (switch, VLAN) → its own SVI address rows
        self.subnets = rail_rows(addresses, "rail-subnet")
        self.bonds: dict[str, list[tuple[Cable, ObservedDevice, Interface]]] = {}  # host bond → its switch ports
        self.pairs: set[tuple[str, str]] = set()
        self.peer_ends: list[tuple[Cable, ObservedDevice, Interface]] = []

    # -- collected while LinkChecks walks cabling.csv --------------------------------------------------------
    def host_member(self, cable: Cable, dev: ObservedDevice, intf: Interface, vlan: int | None) -> None:
        """Check 2 for a host port of a bond: its port-channel, access in the rail VLAN, with an MLAG id."""
        file = dev.files["config"]
        if cable.bundle:
            self.bonds.setdefault(cable.bundle, []).append((cable, dev, intf))
        if intf.mode != "member" or not intf.channel:
            self.fail("host", dev.name, intf.name, f"a member of a port-channel (host bond {cable.bundle})",
                      f"{intf.mode} port", file)
            return
        bond = dev.interfaces.get(intf.channel)
        if bond is None:
            self.fail("host", dev.name, intf.name, f"its port-channel {intf.channel} defined", "none", file)
            return
        if bond.mode != "access" or (vlan is not None and bond.vlan != vlan):
            want = f"access port in VLAN {vlan} (rail {cable.rail})" if vlan is not None else "an access port"
            self.fail("host", dev.name, bond.name, want,
                      f"{bond.mode} port" + (f" in VLAN {bond.vlan}" if bond.vlan is not None else ""), file)
        if bond.mlag is None and dev.mlag is not None:  # (no MLAG domain at all: reported on the peer link)
            self.fail("mlag", dev.name, bond.name, f"an MLAG id (host bond {cable.bundle})", "none", file)

    def peer_end(self, cable: Cable, dev: ObservedDevice, intf: Interface) -> None:
        self.peer_ends.append((cable, dev, intf))
        self.pairs.add(tuple(sorted((cable.a_device, cable.z_device))))  # type: ignore[arg-type]

    # -- after the walk ----------------------------------------------------------------------------------------
    def run(self) -> None:
        for bundle, ends in sorted(self.bonds.items()):
            self.bond_pair(bundle, ends)
        for cable, dev, intf in self.peer_ends:
            self.peer_link(cable, dev, intf)
        for a, z in sorted(self.pairs):
            if a in self.devices and z in self.devices:
                self.domains(self.devices[a], self.devices[z])
                self.gateways(self.devices[a], self.devices[z], compare=True)
                self.gateways(self.devices[z], self.devices[a], compare=False)

    def bond_pair(self, bundle: str, ends: list[tuple[Cable, ObservedDevice, Interface]]) -> None:
        """Both switch ports of a host bond: distinct switches, port-channels with the same MLAG id and VLAN."""
        seen = []
        for _cable, dev, intf in ends:
            bond = dev.interfaces.get(intf.channel or "")
            seen.append((dev, bond))
        if len({dev.name for dev, _b in seen}) != len(seen) or len(seen) < 2:
            return  # a bond on one switch is an ordinary LAG; not an MLAG promise
        (ad, ab), rest = seen[0], seen[1:]
        for zd, zb in rest:
            if ab is None or zb is None:
                continue  # reported per port
            files = f"{ad.files['config']}, {zd.files['config']}"
            if None not in (ab.mlag, zb.mlag) and ab.mlag != zb.mlag:  # a missing id is reported per port
                self.fail("mlag", zd.name, zb.name, f"MLAG id {ab.mlag} as on {ad.name} {ab.name} (host bond {bundle})",
                          f"mlag {zb.mlag}", files)
            if ab.vlan != zb.vlan:
                self.fail("mlag", zd.name, zb.name, f"VLAN {ab.vlan} as on {ad.name} {ab.name} (host bond {bundle})",
                          f"VLAN {zb.vlan}", files)

    def peer_link(self, cable: Cable, dev: ObservedDevice, intf: Interface) -> None:
        file = dev.files["config"]
        mlag = dev.mlag
        if mlag is None or not mlag.peer_link:
            self.fail("mlag", dev.name, "MLAG domain", f"an MLAG domain with a peer link (peer cable {cable.link_id})",
                      "none", file)
            return
        if intf.channel != mlag.peer_link:
            self.fail("mlag", dev.name, intf.name, f"a member of the peer link {mlag.peer_link} (peer cable "
                      f"{cable.link_id})", intf.channel or "not in a port-channel", file)
        pc = dev.interfaces.get(mlag.peer_link)
        if pc is None:
            self.fail("mlag", dev.name, mlag.peer_link, "the peer-link port-channel defined", "none", file)
            return
        want = {v for (sw, _rail), v in self.rail_vlans.items() if sw == dev.name}
        if mlag.vlan is not None:
            want.add(mlag.vlan)
        missing = want - pc.trunk_vlans
        if pc.mode != "trunk" or missing:
            self.fail("mlag", dev.name, pc.name, f"a trunk carrying VLANs {ints(want)} (the rail VLANs and the peer "
                      "VLAN)", f"{pc.mode} port carrying {ints(pc.trunk_vlans)}", file)

    def domains(self, a: ObservedDevice, z: ObservedDevice) -> None:
        if a.mlag is None or z.mlag is None:
            return  # reported by peer_link
        am, zm = a.mlag, z.mlag
        files = f"{a.files['config']}, {z.files['config']}"
        subject = f"MLAG domain (peer {a.name})"
        for what, mine, theirs in (("domain", zm.domain, am.domain), ("peer VLAN", zm.vlan, am.vlan),
                                   ("virtual MAC", _mac(zm.virtual_mac), _mac(am.virtual_mac))):
            if mine != theirs:
                self.fail("mlag", z.name, subject, f"{what} {theirs} as on {a.name}", f"{mine}", files)
        for dev, m, other, om in ((a, am, z, zm), (z, zm, a, am)):
            if m.local_ip is None:
                self.fail("mlag", dev.name, "MLAG domain", "a local address on the peer VLAN's SVI"
                          + (f" Vlan{m.vlan}" if m.vlan is not None else ""), "none", dev.files["config"])
            if m.peer_ip != om.local_ip:
                self.fail("mlag", dev.name, "MLAG peer address", f"{om.local_ip} (the local address of {other.name})",
                          m.peer_ip or "none", files)

    def gateways(self, dev: ObservedDevice, other: ObservedDevice, compare: bool) -> None:
        """Every rail SVI of an MLAG switch: virtual, with a virtual MAC, its own address where the platform needs
        one, and (`compare`: once per pair) the same shared address as on the other switch."""
        file = dev.files["config"]
        for (sw, rail), vid in sorted(self.rail_vlans.items()):
            if sw != dev.name:
                continue
            vlan = dev.vlans.get(vid)
            if vlan is None or not vlan.svi:
                continue  # reported by the address plan check
            subject = f"Vlan{vid}"
            shared = [a for a in vlan.svi if a not in vlan.own]
            if not vlan.virtual:
                self.fail("mlag", dev.name, subject, f"a virtual gateway shared with {other.name} (rail {rail})",
                          f"ip address {', '.join(vlan.svi)}", file)
            elif PLATFORMS[dev.platform].configured_virtual_mac and (dev.mlag is None or not dev.mlag.virtual_mac):
                self.fail("mlag", dev.name, subject, "a virtual MAC for the shared gateway", "none", file)
            twin = other.vlans.get(vid)
            twin_shared = [a for a in twin.svi if a not in twin.own] if twin is not None else []
            if compare and twin is not None and sorted(twin_shared) != sorted(shared):
                self.fail("mlag", dev.name, subject, f"gateway {', '.join(twin_shared) or 'none'} as on {other.name}",
                          ", ".join(shared) or "none", f"{file}, {other.files['config']}")
            self.own_address(dev, vid, vlan.own, shared)
            if compare and twin is not None and (same := ips(vlan.own) & ips(twin.own)):
                self.fail("mlag", dev.name, subject, f"an own address distinct from {other.name}'s",
                          f"{', '.join(sorted(same))} on both", f"{file}, {other.files['config']}")

    def own_address(self, dev: ObservedDevice, vid: int, own: list[str], shared: list[str]) -> None:
        """The switch's own address on rail SVI `vid`: ipplan.csv's rail-own rows (none where the platform needs
        none), inside the rail subnet, not the shared gateway."""
        file, subject = dev.files["config"], f"Vlan{vid}"
        rows = self.own.get((dev.name, vid), [])
        if not rows and not own and not PLATFORMS[dev.platform].mlag_own_svi_address:
            return
        planned = sorted(r.address for r in rows)
        if sorted(own) != planned:
            where = ", ".join(f"ipplan.csv:{r.line}" for r in rows) or "ipplan.csv has none: render again"
            self.fail("mlag", dev.name, subject, f"own address {', '.join(planned) or 'none'} beside the shared "
                      f"gateway ({where})", ", ".join(own) or "none", file)
        subnets = [r.address for r in self.subnets.get((dev.name, vid), [])]
        for a in own:
            if subnets and not any(_inside(a, p) for p in subnets):
                same = [p for p in subnets if (":" in p) == (":" in a)] or subnets
                self.fail("mlag", dev.name, subject, f"an own address inside the rail subnet {same[0]}", a, file)
            if a.split("/")[0] in ips(shared):
                self.fail("mlag", dev.name, subject, "an own address other than the shared gateway", a, file)


def _inside(address: str, prefix: str) -> bool:
    """`address` (with its length) lies in `prefix`, IPv4 or IPv6 (a dual-stack SVI has one of each); False for text
    that is not an address or prefix, or for two families."""
    try:
        return ip_interface(address).ip in ip_network(prefix, strict=False)
    except ValueError:
        return False


def _mac(mac: str | None) -> str | None:
    """MAC addresses compare in one form (EOS also writes hhhh.hhhh.hhhh)."""
    if mac is None:
        return None
    digits = "".join(c for c in mac.lower() if c in "0123456789abcdef")
    return ":".join(digits[i:i + 2] for i in range(0, 12, 2)) if len(digits) == 12 else mac.lower()

