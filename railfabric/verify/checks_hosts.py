"""Host and switch checked against each other, at both ends of every host link (railmap.csv's rows).

For each NIC port the plan names (host, NIC, port → switch, switch port, VLAN, address, gateway, MTU):
- host-nic: the host's netplan has an interface with the planned address (a bond under MLAG), with a `from
  <address>` rule to that interface's own table;
- host-rail: the switch's SVI of the planned VLAN holds the host's subnet: the NIC is on the rail the plan says
  (that the switch port is an access port of that VLAN is the link checks' `host` promise, not repeated here);
- host-gateway: whatever the host routes through a gateway goes through the rail SVI's (shared) address (a host of
  a rail-only pod may route through none: its rail switch has nothing behind the gateway);
- host-mtu: the host MTU fits the switch port's and the SVI's;
- host-qos: the host's DSCP → priority map agrees with the switch port's DSCP → TC map on every DSCP the host
  marks; PFC is on for the same priorities at both ends; the CNP DSCP the NIC sends maps on the switch to the
  priority the NIC gives CNPs, and that queue is strict on the switch.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field

from railfabric.verify.checks_links import ints
from railfabric.verify.hosts import HostFiles, HostInterface, NicPort, NicQos
from railfabric.verify.model import Failure, Interface, ObservedDevice


@dataclass
class HostChecks:
    ports: list[NicPort]
    hosts: dict[str, HostFiles]
    devices: dict[str, ObservedDevice]
    failures: list[Failure] = field(default_factory=list)
    checked: int = 0

    def fail(self, check: str, device: str, subject: str, expected: str, found: str, file: str) -> None:
        self.failures.append(Failure(check, device, subject, expected, found, file))

    def run(self) -> list[Failure]:
        for port in self.ports:
            host = self.hosts.get(port.host)
            dev = self.devices.get(port.switch)
            if host is None or dev is None:
                continue
            self.checked += 1
            self.port(port, host, dev)
        return self.failures

    def port(self, p: NicPort, host: HostFiles, dev: ObservedDevice) -> None:
        subject = f"nic{p.nic} port {p.port} (to {p.switch} {p.interface})"
        iface = next((i for i in host.interfaces.values() if p.address in i.addresses), None)
        if iface is None:
            self.fail("host-nic", p.host, subject, f"an interface with {p.address} (hosts/railmap.csv:{p.line})",
                      "none", host.netplan)
            return
        address = p.address.split("/")[0]
        if not any(src == address and table in iface.tables for src, table in iface.rules):
            self.fail("host-nic", p.host, f"{iface.name} ({subject})",
                      f"a rule from {address} to the interface's own table {ints(iface.tables)}",
                      ", ".join(f"from {s} table {t}" for s, t in iface.rules) or "none", host.netplan)
        sw = dev.interfaces.get(p.interface)
        if sw is None:
            self.fail("host-rail", p.switch, p.interface, f"a port for {p.host} nic{p.nic}", "none",
                      dev.files["config"])
            return
        self.rail(p, host, iface, dev, sw, subject)
        self.qos(p, host, iface, dev, sw, subject)

    def rail(self, p: NicPort, host: HostFiles, iface: HostInterface, dev: ObservedDevice, sw: Interface,
             subject: str) -> None:
        vlan = dev.vlans.get(p.vlan)
        net = ipaddress.ip_interface(p.address).network
        shared = [a for a in (vlan.svi if vlan else []) if a not in (vlan.own if vlan else [])]
        on_rail = [a.split("/")[0] for a in shared if ipaddress.ip_interface(a).network == net]
        if not on_rail:
            self.fail("host-rail", p.switch, f"Vlan{p.vlan} (rail {p.rail})", f"an SVI in {net} for {p.host}",
                      ", ".join(shared) or "none", dev.files["config"])
        elif iface.gateways - {on_rail[0]} - _on_rail_v6(shared, iface.addresses):  # none: a rail-only switch
            self.fail("host-gateway", p.host, f"{iface.name} ({subject})", f"routes only via {on_rail[0]} ({p.switch} "
                      f"Vlan{p.vlan})", ", ".join(sorted(iface.gateways)) or "no route via a gateway", host.netplan)
        limits = [(f"{p.switch} {p.interface}", sw.mtu), (f"{p.switch} Vlan{p.vlan}", vlan.mtu if vlan else None)]
        for where, mtu in limits:
            if iface.mtu is None or (mtu is not None and iface.mtu > mtu):
                self.fail("host-mtu", p.host, f"{iface.name} ({subject})", f"an MTU within {where}'s {mtu}",
                          str(iface.mtu), host.netplan)

    def qos(self, p: NicPort, host: HostFiles, iface: HostInterface, dev: ObservedDevice, sw: Interface,
            subject: str) -> None:
        netdev = next((n for n in (iface.members or [iface.name]) if n in host.qos), None)
        q: NicQos | None = host.qos.get(netdev) if netdev else None
        if q is None:
            self.fail("host-qos", p.host, f"{iface.name} ({subject})", "RoCE settings in the group's roce.sh",
                      "none", host.roce or host.netplan)
            return
        sq = sw.qos
        if sq is None:
            return  # the link checks already name a host port without QoS
        where = f"{p.switch} {p.interface}"
        wrong = {d: v for d, v in q.dscp_prio.items() if sq.dscp_to_tc.get(d) != v}
        if wrong:
            self.fail("host-qos", p.host, f"{netdev} ({subject})",
                      "DSCP→priority " + ", ".join(f"{d}→{sq.dscp_to_tc.get(d, '-')}" for d in sorted(wrong))
                      + f" as at {where}", ", ".join(f"{d}→{v}" for d, v in sorted(wrong.items())), host.roce)
        if q.pfc_on is None or q.pfc_on != sq.pfc_priorities:
            self.fail("host-qos", p.host, f"{netdev} ({subject})", f"PFC on {ints(sq.pfc_priorities)} as at {where}",
                      "no dcb pfc line" if q.pfc_on is None else ints(q.pfc_on), host.roce)
        if q.cnp_dscp is not None and q.cnp_prio is not None:
            tc = sq.dscp_to_tc.get(q.cnp_dscp)
            if tc != q.cnp_prio or sq.queue_of(tc) not in sq.strict_queues:
                self.fail("host-qos", p.host, f"{netdev} ({subject})",
                          f"CNP DSCP {q.cnp_dscp} on priority {q.cnp_prio}, strict at {where}",
                          f"{where} maps DSCP {q.cnp_dscp} to {tc if tc is not None else 'nothing'}"
                          + ("" if tc is None or sq.queue_of(tc) in sq.strict_queues else " (not strict)"), host.roce)


def _on_rail_v6(shared: list[str], addresses: Iterable[str]) -> set[str]:
    """Dual-stack: the SVI's shared IPv6 addresses whose /64 holds one of the host interface's IPv6 addresses (the
    IPv6 gateway its IPv6 routes may use, beside the IPv4 one)."""
    nets = {ipaddress.ip_interface(a).network for a in addresses if ":" in a}
    return {a.split("/")[0] for a in shared if ":" in a and ipaddress.ip_interface(a).network in nets}
