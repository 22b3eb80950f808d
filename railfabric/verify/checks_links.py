"""Checks 1 and 2: both ends of every railfabric/core/MLAG peer cable agree (MTU, speed, QoS; port-channels too), and
every host port is ready for RoCE (up, speed, rail VLAN, DSCP trust, PFC, ECN, watchdog, lossless buffers on SONiC);
a host port of a dual-homed bond and the MLAG peer links also keep the MLAG promises (checks_mlag.py).

MTU needs no normalisation between platforms: both readers report the L3 (IP) MTU (see model.py).
"""

from __future__ import annotations

from railfabric.verify.checks_mlag import MlagChecks
from railfabric.verify.inputs import Cable, Plan
from railfabric.verify.model import Failure, Interface, ObservedDevice, Qos


def speed_text(mbps: int | None) -> str:
    if mbps is None:
        return "no speed set"
    return f"{mbps // 1000}G" if mbps % 1000 == 0 else f"{mbps}M"


def mtu_text(mtu: int | None) -> str:
    return "no MTU set" if mtu is None else str(mtu)


def dscp_text(m: dict[int, int]) -> str:
    return " ".join(f"{d}→{tc}" for d, tc in sorted(m.items())) or "no DSCP map"


def ints(values: frozenset[int] | set[int]) -> str:
    return "{" + ",".join(str(v) for v in sorted(values)) + "}"


def buffer_gaps(intf: Interface) -> list[tuple[str, str]]:
    """(expected, found) for each lossless buffer a SONiC port with PFC lacks: a lossless BUFFER_PG for the PG of
    every PFC priority, a BUFFER_QUEUE for its queue, every referenced profile existing. [] where the platform keeps
    its buffer defaults (EOS) or the port has no QoS."""
    q, b = intf.qos, intf.buffers
    if q is None or b is None or not b.managed:
        return []
    gaps = [("buffer profiles that exist", problem) for problem in b.problems]
    for p in sorted(q.pfc_priorities):
        pg, queue = q.tc_to_pg.get(p, p), q.queue_of(p)
        if pg not in b.lossless_pgs:
            gaps.append((f"lossless BUFFER_PG {intf.name}|{pg} (PFC priority {p})", "none"))
        if queue not in b.queues:
            gaps.append((f"BUFFER_QUEUE {intf.name}|{queue} (PFC priority {p})", "none"))
    return gaps


class LinkChecks:
    def __init__(self, plan: Plan, devices: dict[str, ObservedDevice]) -> None:
        self.plan, self.devices = plan, devices
        self.failures: list[Failure] = []
        self.links = self.host_ports = 0
        self.rail_vlans: dict[tuple[str, str], int] = {}  # (switch, rail) → VLAN, from the rail gateways of ipplan
        for a in plan.addresses:
            words = a.detail.split()
            if a.purpose == "rail-gateway" and len(words) >= 4 and words[0] == "rail" and words[2] == "vlan" \
                    and words[3].isdigit():
                self.rail_vlans[(a.owner, words[1])] = int(words[3])
        # ECN and the PFC watchdog are policy (qos.ecn.enabled, qos.pfc_watchdog.enabled may turn them off): a host
        # port must have them when the fabric uses them anywhere, so one port without them is caught, and a fabric
        # that turned them off is not blamed for it
        ports = [i.qos for d in devices.values() for i in d.interfaces.values() if i.qos is not None]
        self.ecn_in_use = any(q.ecn_queues for q in ports)
        self.watchdog_in_use = any(q.watchdog for q in ports)
        self.mlag = MlagChecks(devices, self.rail_vlans, self.fail, plan.addresses)

    def fail(self, check: str, device: str, subject: str, expected: str, found: str, file: str) -> None:
        self.failures.append(Failure(check, device, subject, expected, found, file))

    def end(self, cable: Cable, device: str, ifname: str) -> tuple[ObservedDevice, Interface] | None:
        dev = self.devices.get(device)
        if dev is None:
            self.fail("cabling", device, ifname, f"a rendered config (cabling.csv:{cable.line})", "no device",
                      "ansible/host_vars")
            return None
        intf = dev.interfaces.get(ifname)
        if intf is None:
            self.fail("cabling", device, ifname, f"the interface of cable {cable.link_id} (cabling.csv:"
                      f"{cable.line})", "no such interface", dev.files["config"])
            return None
        return dev, intf

    def run(self) -> list[Failure]:
        bundles: dict[str, set[tuple[str, str, str, str]]] = {}
        for cable in self.plan.cables:
            if cable.role in ("fabric", "core", "peer"):
                self.links += 1
                a = self.end(cable, cable.a_device, cable.a_interface)
                z = self.end(cable, cable.z_device, cable.z_interface)
                for end in (a, z) if cable.role == "peer" else ():
                    if end:
                        self.mlag.peer_end(cable, *end)
                if a and z:
                    self.link(cable, a, z)
                    if cable.bundle:
                        bundles.setdefault(cable.bundle, set()).add(
                            (a[0].name, a[1].channel or "", z[0].name, z[1].channel or ""))
            elif cable.role == "host":
                self.host_ports += 1
                self.host(cable)
        for bundle, ends in sorted(bundles.items()):
            self.bundle(bundle, ends)
        self.mlag.run()
        return self.failures

    def link(self, cable: Cable, a: tuple[ObservedDevice, Interface], z: tuple[ObservedDevice, Interface]) -> None:
        (ad, ai), (zd, zi) = a, z
        files = f"{ad.files['config']}, {zd.files['config']}"
        subject = f"{ai.name} (to {zd.name} {zi.name})"
        other = f"{zd.name} {zi.name}"
        for dev, intf in (a, z):
            if not intf.admin_up:
                self.fail("link", dev.name, intf.name, f"admin up (cable {cable.link_id})", "shutdown",
                          dev.files["config"])
            if intf.speed != cable.speed:
                self.fail("link", dev.name, intf.name, f"speed {speed_text(cable.speed)} (cabling.csv:{cable.line})",
                          speed_text(intf.speed), dev.files["config"])
            if cable.bundle and not intf.channel:
                self.fail("link", dev.name, intf.name, f"a member of bundle {cable.bundle}", "not in a port-channel",
                          dev.files["config"])
            for expected, found in buffer_gaps(intf):
                self.fail("link-qos", dev.name, intf.name, expected, found, dev.files["config"])
        if ai.mtu != zi.mtu:
            self.fail("link", ad.name, subject, "the same MTU at both ends",
                      f"{mtu_text(ai.mtu)} here, {mtu_text(zi.mtu)} at {other}", files)
        self.qos(ad.name, subject, other, ai.qos, zi.qos, files)

    def qos(self, device: str, subject: str, other: str, a: Qos | None, z: Qos | None, files: str) -> None:
        if a is None or z is None:
            where = device if a is None else other
            self.fail("link-qos", device, subject, "RoCE QoS at both ends", f"none at {where}", files)
            return
        if a.dscp_to_tc != z.dscp_to_tc:
            diff = {d for d in set(a.dscp_to_tc) | set(z.dscp_to_tc) if a.dscp_to_tc.get(d) != z.dscp_to_tc.get(d)}
            self.fail("link-qos", device, subject, f"DSCP→TC {dscp_text({d: z.dscp_to_tc.get(d, -1) for d in diff})}"
                      f" as at {other}", dscp_text({d: a.dscp_to_tc.get(d, -1) for d in diff}), files)
        if a.pfc_priorities != z.pfc_priorities:
            self.fail("link-qos", device, subject, f"PFC priorities {ints(z.pfc_priorities)} as at {other}",
                      ints(a.pfc_priorities), files)
        if a.ecn_queues != z.ecn_queues:
            self.fail("link-qos", device, subject, f"ECN on queues {ints(z.ecn_queues)} as at {other}",
                      ints(a.ecn_queues), files)
        if a.dscp_trust != z.dscp_trust:
            self.fail("link-qos", device, subject, f"DSCP trust {'on' if z.dscp_trust else 'off'} as at {other}",
                      "on" if a.dscp_trust else "off", files)

    def bundle(self, bundle: str, ends: set[tuple[str, str, str, str]]) -> None:
        if len(ends) != 1:
            pairs = "; ".join(f"{a} {ac or '-'} / {z} {zc or '-'}" for a, ac, z, zc in sorted(ends))
            self.fail("link", sorted(ends)[0][0], f"bundle {bundle}", "one port-channel at each end",
                      pairs, "cabling.csv")
            return
        a_name, a_pc, z_name, z_pc = next(iter(ends))
        if not a_pc or not z_pc:
            return  # each member was already reported
        ad, zd = self.devices[a_name], self.devices[z_name]
        ai, zi = ad.interfaces.get(a_pc), zd.interfaces.get(z_pc)
        if ai is None or zi is None:
            missing = f"{a_name} {a_pc}" if ai is None else f"{z_name} {z_pc}"
            self.fail("link", a_name, f"bundle {bundle}", f"port-channel {missing} defined", "none",
                      f"{ad.files['config']}, {zd.files['config']}")
            return
        files = f"{ad.files['config']}, {zd.files['config']}"
        if ai.mtu != zi.mtu:
            self.fail("link", a_name, f"{a_pc} (to {z_name} {z_pc})", "the same MTU at both ends",
                      f"{mtu_text(ai.mtu)} here, {mtu_text(zi.mtu)} at {z_name} {z_pc}", files)
        for dev, intf in ((ad, ai), (zd, zi)):
            if not intf.admin_up:
                self.fail("link", dev.name, intf.name, f"admin up (bundle {bundle})", "shutdown", dev.files["config"])

    def host(self, cable: Cable) -> None:
        side = next(((d, i) for d, i in ((cable.z_device, cable.z_interface), (cable.a_device, cable.a_interface))
                     if d in self.devices), None)
        if side is None:
            self.fail("host", cable.z_device, cable.z_interface, f"a rendered switch (cabling.csv:{cable.line})",
                      "no device", "ansible/host_vars")
            return
        found = self.end(cable, *side)
        if found:
            HostPort(self, cable, *found).run()


class HostPort:
    """Check 2 on one switch port that faces a GPU NIC."""

    def __init__(self, owner: LinkChecks, cable: Cable, dev: ObservedDevice, intf: Interface) -> None:
        self.owner, self.cable, self.dev, self.intf = owner, cable, dev, intf
        self.file = dev.files["config"]

    def fail(self, expected: str, found: str) -> None:
        self.owner.fail("host", self.dev.name, self.intf.name, expected, found, self.file)

    def run(self) -> None:
        i, c = self.intf, self.cable
        if not i.admin_up:
            self.fail(f"admin up (host {c.a_device})", "shutdown")
        if i.speed != c.speed:
            self.fail(f"speed {speed_text(c.speed)} (cabling.csv:{c.line})", speed_text(i.speed))
        vlan = self.rail_vlan()
        if c.bundle or i.mode == "member":  # a dual-homed NIC: the VLAN is on its bond
            self.owner.mlag.host_member(c, self.dev, i, vlan)
        elif i.mode != "access" or (vlan is not None and i.vlan != vlan):
            want = f"access port in VLAN {vlan} (rail {c.rail})" if vlan is not None else "an access port"
            self.fail(want, f"{i.mode} port" + (f" in VLAN {i.vlan}" if i.vlan is not None else ""))
        if i.qos is None:
            self.fail("RoCE QoS (DSCP trust, PFC, ECN, watchdog)", "none")
            return
        self.qos(i.qos)

    def rail_vlan(self) -> int | None:
        return self.owner.rail_vlans.get((self.dev.name, self.cable.rail))

    def qos(self, q: Qos) -> None:
        if not q.dscp_trust:
            self.fail("DSCP trust", "none")
        if not q.pfc_priorities:
            self.fail("PFC on the RoCE priority", "no PFC priority")
        lossless_tcs = {tc for tc in q.dscp_to_tc.values() if tc in q.pfc_priorities}
        if q.pfc_priorities and q.dscp_to_tc and not lossless_tcs:
            self.fail(f"a DSCP mapped to a PFC priority {ints(q.pfc_priorities)}", "none")
        for p in sorted(q.pfc_priorities):
            if self.owner.ecn_in_use and q.queue_of(p) not in q.ecn_queues:
                self.fail(f"ECN on queue {q.queue_of(p)} (PFC priority {p})", f"ECN on {ints(q.ecn_queues)}")
        if self.owner.watchdog_in_use and not q.watchdog:
            self.fail("PFC watchdog (as on the fabric's other PFC ports)", "none")
        for expected, found in buffer_gaps(self.intf):
            self.fail(expected, found)
