"""Namespaces, veth pairs, addresses, loopbacks and rail-SVI bridges, with `ip -batch` (a few processes in all)."""

from __future__ import annotations

import subprocess
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from railfabric.lab.model import LabError, LabSpec
from railfabric.lab.runs import Registry
from railfabric.lab.teardown import list_namespaces

if TYPE_CHECKING:
    from railfabric.lab.hosts import LabHost


def _batch(lines: list[str], netns: str | None = None, family: tuple[str, ...] = ()) -> None:
    cmd = ["ip", *family, *(["-n", netns] if netns else []), "-batch", "-"]
    proc = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise LabError(f"{' '.join(cmd)} failed: {(proc.stderr or proc.stdout).strip()[:400]}")


def build(spec: LabSpec, reg: Registry) -> None:
    """Create every namespace and link. Each namespace is recorded in `reg` before it exists, so a failure half-way
    still tears down what was made."""
    nodes = list(spec.nodes.values())
    clash = sorted({node.ns for node in nodes} & set(list_namespaces()))
    if clash:  # not ours: a lab of ours left behind was removed before, from its state file
        raise LabError(f"network namespace(s) {', '.join(clash[:5])} already exist and were not made by this lab; "
                       "remove them (ip netns del NAME) first")
    for node in nodes:
        reg.add_namespace(node.ns)
    _batch([f"netns add {node.ns}" for node in nodes])
    ns_of = {node.name: node.ns for node in nodes}
    _batch([f"link add name {ln.a.ifname} netns {ns_of[ln.a.node]} type veth peer name {ln.z.ifname} "
            f"netns {ns_of[ln.z.node]}" for ln in spec.links])
    per_ns: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        cmds = per_ns[node.ns]
        cmds += ["link set lo up", f"addr add {node.loopback} dev lo"]
        if node.device.loopback_v6:  # dual-stack: no duplicate address detection (nodad): usable at once
            cmds.append(f"addr add {node.device.loopback_v6} dev lo nodad")
        for svi in node.svis:
            cmds += [f"link add name {svi.name} mtu {svi.mtu} type bridge", f"link set {svi.name} up",
                     f"addr add {svi.gateway} dev {svi.name}"]
            if svi.gateway_v6:
                cmds.append(f"addr add {svi.gateway_v6} dev {svi.name} nodad")
    for ln in spec.links:
        for end in (ln.a, ln.z):
            cmds = per_ns[ns_of[end.node]]
            cmds.append(f"link set {end.ifname} mtu {end.built_mtu} up")
            if end.ipv4:
                cmds.append(f"addr add {end.ipv4} dev {end.ifname}")

    def configure(ns: str) -> None:
        _batch(per_ns[ns], ns)
        # net.ipv4.ip_forward is per namespace (0 in a new one); /proc/sys/net is the writer's namespace's
        forward = "echo 1 > /proc/sys/net/ipv4/ip_forward; echo 1 > /proc/sys/net/ipv6/conf/all/forwarding"
        proc = subprocess.run(["ip", "netns", "exec", ns, "sh", "-c", forward],
                              capture_output=True, text=True, timeout=30)
        if proc.returncode != 0:
            raise LabError(f"ip_forward in {ns}: {proc.stderr.strip()}")

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(configure, [node.ns for node in nodes]))


def build_hosts(spec: LabSpec, reg: Registry) -> None:
    """The GPU hosts: a namespace each, a veth per NIC port from the host (named as its netplan file names the NIC)
    to the rail switch (named as the switch port, in the rail SVI's bridge at the switch port's MTU), then what the
    host's networkd files say (hosts.host_commands), the host sysctls, and the host faults."""
    from railfabric.lab.hosts import host_commands, host_rules_v6

    hosts = list(spec.hosts.values())
    if not hosts:
        return
    clash = sorted({h.ns for h in hosts} & set(list_namespaces()))
    if clash:
        raise LabError(f"network namespace(s) {', '.join(clash[:5])} already exist and were not made by this lab; "
                       "remove them (ip netns del NAME) first")
    for h in hosts:
        reg.add_namespace(h.ns, host=True)
    _batch([f"netns add {h.ns}" for h in hosts])
    _batch([f"link add name {nic.ifname} netns {h.ns} type veth peer name {nic.plan.switch_if} "
            f"netns {spec.nodes[nic.plan.switch].ns}" for h in hosts for nic in h.nics])
    per_switch: dict[str, list[str]] = defaultdict(list)
    for h in hosts:
        for nic in h.nics:
            per_switch[spec.nodes[nic.plan.switch].ns].append(
                f"link set {nic.plan.switch_if} mtu {nic.switch_mtu} master Vlan{nic.plan.vlan} up")
    faults = {f.where: f.action for f in spec.faults if f.action}

    def switch_side(ns: str) -> None:
        _batch(per_switch[ns], ns)

    def host_side(h: LabHost) -> None:
        sysctl = "; ".join(f"echo {v} > /proc/sys/{path}" for path, v in h.sysctls)
        proc = subprocess.run(["ip", "netns", "exec", h.ns, "sh", "-c", sysctl], capture_output=True, text=True,
                              timeout=30)
        if proc.returncode != 0:
            raise LabError(f"sysctls in {h.ns}: {proc.stderr.strip()}")
        _batch(host_commands(h), h.ns)
        if rules6 := host_rules_v6(h):  # dual-stack
            _batch(rules6, h.ns, ("-6",))
        if h.name in faults:
            _batch([faults[h.name]], h.ns)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(switch_side, list(per_switch)))
        list(pool.map(host_side, hosts))
