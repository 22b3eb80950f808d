"""What the lab builds, derived from the topology, the plan and the device model; no side effects.

One network namespace per switch, one veth pair per railfabric/core cable, the loopback on `lo`, one port-less bridge
per rail SVI, and the frr.conf rendered by the same templates as `fabric render` (byte-identical to
generated/configs/<host>/frr.conf). Substitutions for what this kernel cannot build are listed in SUBSTITUTIONS.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from railfabric.device import DeviceConfig
from railfabric.platforms import PLATFORMS

NS_PREFIX = "rf"  # namespace and FRR pathspace of a switch or host: rf<run id>-<hostname> (runs.py)
HOSTNAME_MAX = 63  # an RFC 1123 label (railfabric.core.units.hostname_problem: every switch and host name is one)
IFNAMSIZ = 15  # Linux interface names: at most 15 bytes (IFNAMSIZ 16 with the NUL)
# FRR binds its sockets under /var/run/frr/<pathspace>/ (zserv.api, <daemon>.vty, the bfdd control socket the lab
# puts there); a Unix socket path holds at most 107 bytes (sun_path is 108 with the NUL)
FRR_RUN = "/var/run/frr/"
FRR_SOCKETS = ("zserv.api", "zebra.vty", "bgpd.vty", "bfdd.vty", "bfdd.sock")
SUN_PATH_MAX = 107

# How the lab stands in for what a SONiC switch has and this kernel cannot build (no vlan, bond, dummy, vrf modules).
SUBSTITUTIONS: tuple[str, ...] = (
    "rail SVI VlanN (VLAN + SVI): a Linux bridge named VlanN carrying the gateway address and the VLAN MTU; its "
    "ports are the switch ends of the built hosts' NIC veths (named as the switch port), none when no host is built",
    "L3 port-channel: no bond; its /31 rides on one member veth (the lower end's first member), the other members "
    "are up without an address",
    "unnumbered L3 port-channel (routing.addressing: unnumbered): no bond; the member veth that carries the session "
    "is named as the port-channel at both ends (the name frr.conf's `neighbor <PortChannelN> interface` uses), the "
    "other members are up without an address",
    "loopback: the /32 on the namespace's lo",
    "IPv4 forwarding: net.ipv4.ip_forward=1 per namespace (SONiC's kernel default; a new namespace starts at 0)",
    "GPU host: a namespace rf<run>-<host> per built host, each rail NIC port (once, however many GPUs share the NIC) a "
    "veth named as its netplan file names the NIC "
    "(cut to 12 characters + a 3-digit counter when longer than Linux's 15), configured from the networkd files "
    "`netplan generate` writes for the rendered netplan file; no NIC QoS (the kernel has no DCB)",
    "host bonds (dual_homing: mlag): not built; their MLAG rail switches stay outside the lab, and so do their hosts",
    "host sysctls: those the host group's rendered boot script sets per rail NIC (arp_ignore, arp_announce, "
    "rp_filter); where it sets none, arp_ignore=1, arp_announce=2, rp_filter=2 on `all`, the multi-NIC RDMA host "
    "values IBM documents",
)

FAULTS = {
    "asn": "wrong ASN: `router bgp` of one rail switch's frr.conf is off by one",
    "summary": "dropped summary-only: `summary-only` removed from one rail switch's aggregate-address",
    "mtu": "MTU mismatch: one end of one fabric link left at SONiC's default 9100 instead of the planned MTU",
    "host-policy": "broken host policy routing: one `ip rule from <NIC address>` deleted in one host namespace",
    "auth": "wrong session key: one end of one BGP session of a rail switch gets another TCP MD5 password",
}


class LabError(Exception):
    """The lab cannot run (not root, FRR missing, unusable selection); exit code 2."""


@dataclass(frozen=True, slots=True)
class End:
    node: str
    ifname: str
    ipv4: str | None  # a.b.c.d/31, None for port-channel members without the address
    mtu: int  # planned
    built_mtu: int  # what the lab sets (differs from `mtu` only under the mtu fault)


@dataclass(frozen=True, slots=True)
class LabLink:
    a: End  # lower end (rail switch or spine)
    z: End  # upper end (spine or super-spine)
    role: str  # fabric | core
    channel: str | None = None  # port-channel at the lower end, for members

    @property
    def label(self) -> str:
        return f"{self.a.node}:{self.a.ifname}--{self.z.node}:{self.z.ifname}"


@dataclass(frozen=True, slots=True)
class Svi:
    name: str  # VlanN
    gateway: str  # a.b.c.d/len
    prefix: str
    mtu: int
    rail: int
    gateway_v6: str = ""  # dual-stack: the SVI's IPv6 gateway (<prefix>::1/64), "" on an IPv4-only fabric


@dataclass(slots=True)
class LabNode:
    name: str
    ns: str
    device: DeviceConfig
    frr_conf: str  # what is loaded: the rendered frr.conf (verbatim unless a fault rewrote it)
    svis: tuple[Svi, ...] = ()

    @property
    def loopback(self) -> str:
        return self.device.loopback


@dataclass(frozen=True, slots=True)
class Fault:
    kind: str
    where: str
    detail: str
    marks: tuple[str, ...] = ()  # strings a mismatch caused by this fault names (device, interface, prefixes)
    action: str = ""  # host faults: the `ip -batch` line run in the namespace of host `where` once it is configured


@dataclass
class LabSpec:
    run: str  # the run id every namespace name carries ("" outside a run: expectations only)
    fabric: str
    pod: int | None
    nodes: dict[str, LabNode]
    links: list[LabLink]
    devices: dict[str, DeviceConfig]  # every device of the fabric (the plan), also those outside the selection
    host_mtu: int
    faults: list[Fault] = field(default_factory=list)
    not_in_lab: tuple[str, ...] = ()  # selected switches the lab cannot run: not SONiC (no frr.conf), MLAG pairs
    hosts: dict = field(default_factory=dict)  # host → hosts.LabHost: the GPU hosts built (none by default)
    host_notes: list[str] = field(default_factory=list)  # segments without hosts in the lab, and why
    host_request: int | str = 0  # --hosts as asked: 0, N, "all" or "auto" (the CLI's default)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for node in self.nodes.values():
            out[node.device.role] = out.get(node.device.role, 0) + 1
        return out


def ns_name(host: str, run: str = "") -> str:
    """The namespace (and FRR pathspace) of a switch or host in run `run`: rf<run>-<host>. Every interface the lab
    names lives inside a namespace of its own run, so interface names carry no run id and never meet another run's:
    they are the plan's (switch ports, VlanN, the host files' NIC names cut to IFNAMSIZ)."""
    return f"{NS_PREFIX}{run}-{host}"


def name_problems(spec: LabSpec) -> list[str]:
    """Names the kernel or FRR would refuse: a namespace whose FRR socket paths are too long, an interface name
    over IFNAMSIZ. With run ids of RUN_ID_LEN characters and RFC 1123 host names neither happens (the longest
    namespace is 2 + 6 + 1 + 63 = 72 characters: /var/run/frr/<72>/zserv.api is 95 bytes); checked anyway."""
    out = []
    for ns in [n.ns for n in spec.nodes.values()] + [h.ns for h in spec.hosts.values()]:
        longest = max(len(f"{FRR_RUN}{ns}/{sock}") for sock in FRR_SOCKETS)
        if longest > SUN_PATH_MAX:
            out.append(f"namespace {ns}: its FRR socket paths would be {longest} bytes (at most {SUN_PATH_MAX})")
    names = [(ln.a.node, ln.a.ifname) for ln in spec.links] + [(ln.z.node, ln.z.ifname) for ln in spec.links]
    names += [(n.name, svi.name) for n in spec.nodes.values() for svi in n.svis]
    names += [(h.name, nic.ifname) for h in spec.hosts.values() for nic in h.nics]
    names += [(nic.plan.switch, nic.plan.switch_if) for h in spec.hosts.values() for nic in h.nics]
    out += [f"{node}: interface name {name!r} is {len(name.encode())} bytes (Linux allows {IFNAMSIZ})"
            for node, name in dict.fromkeys(names) if len(name.encode()) > IFNAMSIZ]
    return out


def out_reason(d: DeviceConfig) -> str | None:
    """Why the lab cannot run this switch ("N switch(es) <reason>"), or None."""
    if not PLATFORMS[d.platform].frr_lab:
        return f"on {d.platform}, not SONiC (no frr.conf to run)"
    if d.mlag is not None:
        return "in MLAG pairs (namespaces emulate neither MCLAG nor a shared gateway)"
    return None


def grouped(reasons: Mapping[str, str], show: int = 6) -> str:
    """'N switch(es) <reason>: a, b, ...; M switch(es) <reason>: ...' for switch → reason, in first-seen order."""
    by: dict[str, list[str]] = {}
    for name, why in reasons.items():
        by.setdefault(why, []).append(name)
    return "; ".join(f"{len(names)} switch(es) {why}: " + ", ".join(names[:show])
                     + (" ..." if len(names) > show else "") for why, names in by.items())
