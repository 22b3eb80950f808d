"""Checks 3-5 and the address plan: BGP sessions in both directions and as expected/bgp_sessions.csv plans them,
VLANs (members exist, access VLANs exist with an SVI), the management API and push account, and every planned
loopback, /31 and rail gateway configured where ipplan.csv puts it."""

from __future__ import annotations

import re

from railfabric.verify.inputs import Plan
from railfabric.verify.model import Failure, Neighbor, ObservedDevice

PLANNED_PURPOSES = ("loopback", "p2p", "rail-gateway")
PLACEHOLDER = re.compile(r"%%vault\.([a-z_][a-z0-9_]{0,47})%%")  # the vault placeholder (intent_system.py)


class ControlChecks:
    def __init__(self, plan: Plan, devices: dict[str, ObservedDevice]) -> None:
        self.plan, self.devices = plan, devices
        self.failures: list[Failure] = []
        self.owner: dict[str, str] = {}  # IPv4 address → device that configures it
        self.mine: dict[str, set[str]] = {}  # device → its addresses
        for dev in devices.values():
            self.mine[dev.name] = dev.addresses()
            for addr in self.mine[dev.name]:
                self.owner.setdefault(addr, dev.name)
        self.sessions = 0
        # unnumbered sessions (no addresses) as the plan names them: (device, interface) → its planned row
        self.by_interface = {(s.device, s.interface): s for s in plan.sessions if s.unnumbered}

    def fail(self, check: str, dev: ObservedDevice, subject: str, expected: str, found: str, role: str = "config",
             ) -> None:
        file = dev.files.get(role, role)  # a role that is not a config file names the file itself
        self.failures.append(Failure(check, dev.name, subject, expected, found, file))

    def run(self) -> list[Failure]:
        for dev in self.devices.values():
            self.reverse_sessions(dev)
            self.vlans(dev)
            self.management(dev)
        self.expected_sessions()
        self.addresses()
        return self.failures

    def reverse_sessions(self, dev: ObservedDevice) -> None:
        loopbacks = {a.split("/")[0] for a in dev.loopbacks}
        pinned = self.plan.devices[dev.name].router_id if dev.name in self.plan.devices else None
        if pinned is not None:  # devices.<name>.router_id: the plan's (host_vars router_id), not a loopback
            if dev.bgp.router_id != pinned:
                self.fail("bgp", dev, "router-id", f"{pinned} (the pinned router_id of host_vars)",
                          dev.bgp.router_id or "none", "bgp")
        elif dev.bgp.neighbors and dev.bgp.router_id not in loopbacks:
            self.fail("bgp", dev, "router-id", "a Loopback address (" + (", ".join(sorted(loopbacks)) or "none") + ")",
                      dev.bgp.router_id or "none", "bgp")
        for ip, n in sorted(dev.bgp.neighbors.items()):
            self.sessions += 1
            subject = f"neighbor {ip}"
            if n.interface:
                self.reverse_unnumbered(dev, ip, n)
                continue
            peer_name = self.owner.get(ip)
            if peer_name is None:
                self.fail("bgp", dev, subject, "an address configured on a peer device", "no device has it", "bgp")
                continue
            peer = self.devices[peer_name]
            if n.remote_as != peer.bgp.asn:
                self.fail("bgp", dev, subject, f"remote-as {peer.bgp.asn} (router bgp of {peer_name})",
                          f"remote-as {n.remote_as}", "bgp")
            back = [peer.bgp.neighbors[a] for a in sorted(self.mine[dev.name] & peer.bgp.neighbors.keys())]
            if not back:
                self.fail("bgp", dev, subject, f"a reverse session on {peer_name} to one of this device's addresses",
                          "none", "bgp")
                continue
            for p in back:
                if p.remote_as != dev.bgp.asn:
                    self.fail("bgp", peer, f"neighbor {p.ip}", f"remote-as {dev.bgp.asn} (router bgp of {dev.name})",
                              f"remote-as {p.remote_as}", "bgp")
                if p.bfd != n.bfd:
                    self.fail("bgp", dev, subject, f"BFD {'on' if p.bfd else 'off'} as on {peer_name}",
                              "on" if n.bfd else "off", "bgp")
                elif p.bfd and p.bfd_timers != n.bfd_timers:
                    self.fail("bgp", dev, subject, f"BFD timers {_timers(p.bfd_timers)} as on {peer_name}",
                              _timers(n.bfd_timers), "bgp")
                if p.key != n.key:
                    self.fail("bgp", dev, subject, f"session key {_key(p.key)} as on {peer_name}", _key(n.key), "bgp")

    def reverse_unnumbered(self, dev: ObservedDevice, ifname: str, n: Neighbor) -> None:
        """An unnumbered neighbour (named by its interface): the plan's peer at the other end of that interface has
        one back on its own interface, the remote-as at each end is the other's router bgp, BFD the same."""
        subject = f"neighbor {ifname} interface"
        s = self.by_interface.get((dev.name, ifname))
        peer = self.devices.get(s.peer_device) if s is not None else None
        if s is None or peer is None:
            self.fail("bgp", dev, subject, "a planned unnumbered session on this interface (expected/bgp_sessions.csv)",
                      "none planned" if s is None else f"{s.peer_device} not rendered", "bgp")
            return
        if not n.accepts(peer.bgp.asn):
            self.fail("bgp", dev, subject, f"remote-as {peer.bgp.asn} (router bgp of {peer.name})",
                      n.remote_as_text, "bgp")
        back = peer.bgp.neighbors.get(s.peer_interface)
        if back is None or not back.interface:
            self.fail("bgp", dev, subject, f"a reverse unnumbered session on {peer.name} {s.peer_interface}", "none",
                      "bgp")
        elif back.bfd != n.bfd:
            self.fail("bgp", dev, subject, f"BFD {'on' if back.bfd else 'off'} as on {peer.name}",
                      "on" if n.bfd else "off", "bgp")

    def expected_sessions(self) -> None:
        planned: dict[str, set[str]] = {}
        for s in self.plan.sessions:
            dev = self.devices.get(s.device)
            if dev is None:
                continue  # reported by the device coverage check
            key = s.interface if s.unnumbered else s.neighbor_ip  # an unnumbered session is named by its interface
            planned.setdefault(s.device, set()).add(key)
            where = f"expected/bgp_sessions.csv:{s.line}"
            if dev.bgp.asn != s.local_asn:
                self.fail("bgp-plan", dev, "router bgp", f"ASN {s.local_asn} ({where})", f"{dev.bgp.asn}", "bgp")
            n = dev.bgp.neighbors.get(key)
            if n is None or n.interface != s.unnumbered:
                self.fail("bgp-plan", dev, f"neighbor {key}", f"a{'n unnumbered' if s.unnumbered else ''} session to "
                          f"{s.peer_device} ({where})", "none" if n is None else "another kind", "bgp")
                continue
            if not n.accepts(s.remote_asn):
                self.fail("bgp-plan", dev, f"neighbor {key}", f"remote-as {s.remote_asn} ({where})",
                          n.remote_as_text, "bgp")
            if n.peer_group != s.peer_group:
                self.fail("bgp-plan", dev, f"neighbor {key}", f"peer group {s.peer_group} ({where})",
                          f"peer group {n.peer_group}", "bgp")
            if n.bfd != s.bfd:
                self.fail("bgp-plan", dev, f"neighbor {key}", f"BFD {'on' if s.bfd else 'off'} ({where})",
                          "on" if n.bfd else "off", "bgp")
            have = interface_addresses(dev, s.interface)
            if s.unnumbered:  # the session runs over IPv6 link-local: the interface carries no IPv4 address
                if have:
                    self.fail("bgp-plan", dev, s.interface, f"no IPv4 address (unnumbered, {where})", ", ".join(have))
            elif not any(a.split("/")[0] == s.local_ip for a in have):
                self.fail("bgp-plan", dev, s.interface, f"local address {s.local_ip} ({where})",
                          ", ".join(have) or "none")
        for name, dev in sorted(self.devices.items()):
            for ip in sorted(set(dev.bgp.neighbors) - planned.get(name, set())):
                self.fail("bgp-plan", dev, f"neighbor {ip}", "only the sessions of expected/bgp_sessions.csv",
                          "an unplanned session", "bgp")

    def vlans(self, dev: ObservedDevice) -> None:
        for vid, vlan in sorted(dev.vlans.items()):
            for member in vlan.members:
                if member not in dev.interfaces:
                    self.fail("vlan", dev, f"Vlan{vid} member {member}", "an interface of the device",
                              "no such interface")
        for intf in sorted(dev.interfaces.values(), key=lambda i: i.name):
            if intf.mode != "access" or intf.vlan is None:
                continue
            access = dev.vlans.get(intf.vlan)
            if access is None or not access.declared:
                self.fail("vlan", dev, intf.name, f"VLAN {intf.vlan} defined", "no such VLAN")
            elif not access.svi:
                self.fail("vlan", dev, intf.name, f"VLAN {intf.vlan} with an SVI address", "no SVI")

    def management(self, dev: ObservedDevice) -> None:
        vars_ = self.plan.devices[dev.name]
        m = dev.mgmt
        host = vars_.ansible_host
        if host is None:
            self.fail("mgmt", dev, "management", "ansible_host in ansible/inventory.yml", "none",
                      "ansible/inventory.yml")
        elif (m.address or "").split("/")[0] != host:
            self.fail("mgmt", dev, "management", f"address {host} (ansible_host)", m.address or "none")
        if m.mgmt_port is not None:  # the platform declares a management port (SONiC): that is its promise
            if not m.mgmt_port:
                self.fail("mgmt", dev, "MGMT_PORT|eth0", "the management port defined", "none")
            return
        if vars_.access is not None and "eapi" not in vars_.access:
            pass  # the plan pushes this switch over SSH only (host_vars management_access): no eAPI promised
        elif not m.api_enabled:
            self.fail("mgmt", dev, "management api http-commands", "no shutdown", "shut down or absent")
        elif m.vrf and m.vrf not in m.api_vrfs:
            self.fail("mgmt", dev, "management api http-commands", f"vrf {m.vrf} with no shutdown (the VRF of "
                      "Management1)", "vrfs " + (", ".join(sorted(m.api_vrfs)) or "none"))
        user = vars_.push_user
        if user is None:
            self.fail("mgmt", dev, "push user", "push_user or ansible_user in ansible/host_vars or group_vars",
                      "push user unknown", f"ansible/host_vars/{dev.name}.yml")
        elif m.users.get(user) != "network-admin":
            self.fail("mgmt", dev, f"username {user}", "role network-admin (the push account)",
                      "no such user" if user not in m.users else f"role {m.users[user] or 'none'}")

    def addresses(self) -> None:
        for a in self.plan.addresses:
            dev = self.devices.get(a.owner)
            if a.purpose not in PLANNED_PURPOSES or dev is None:
                continue
            have = dev.loopbacks if a.purpose == "loopback" else interface_addresses(dev, a.interface)
            if a.address not in have:
                self.fail("address", dev, a.interface, f"{a.address} (ipplan.csv:{a.line})", ", ".join(have) or "none")


def interface_addresses(dev: ObservedDevice, name: str) -> list[str]:
    """The addresses (with length) of an interface: an SVI (VlanN, NVUE vlanN, Junos irb.N: rail gateways, the MLAG
    peer VLAN) or a port (NVUE's peerlink.4094 too)."""
    for prefix in ("Vlan", "vlan", "irb."):  # EOS / SONiC SVIs, NVUE vlan<id>, Junos irb units
        if name.startswith(prefix) and name[len(prefix):].isdigit():
            vlan = dev.vlans.get(int(name[len(prefix):]))
            return vlan.svi if vlan else []
    intf = dev.interfaces.get(name)
    return intf.ipv4 if intf else []


def _timers(t: tuple[int, int, int] | None) -> str:
    return f"tx {t[0]} ms / rx {t[1]} ms × {t[2]}" if t is not None else "none configured (the platform's default)"


def _key(k: tuple[str, str] | None) -> str:
    """A session key as a report may show it: its algorithm and vault variable, never a literal key (TCP-AO: each
    key of the profile or chain with its KeyID, verify.model.ao_keys)."""
    if k is None:
        return "none"
    if k[0] == "tcp-ao":
        parts = [p.partition("=") for p in k[1].split()]
        return "tcp-ao " + (", ".join(f"{_variable(key)} (KeyID {key_id})" for key_id, _, key in parts) or "none")
    return f"{k[0]} {_variable(k[1])}"


def _variable(key: str) -> str:
    m = PLACEHOLDER.fullmatch(key)
    return m.group(1) if m else "with a literal key (not a vault placeholder)"
