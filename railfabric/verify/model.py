"""The verifier's neutral records: what one device's rendered files say, whatever the platform.

Each platform reader (sonic.py + frr.py, eos.py) fills one `ObservedDevice` from the files alone; the checks compare
these records with each other and with the plan's CSV files, never with railfabric's device model.

MTU is always the L3 (IP) MTU: EOS `mtu N` under an interface is the IP MTU (the L2 frame limit is a separate
`l2 mtu`), and a SONiC PORT/PORTCHANNEL `mtu` is the netdev MTU that orchagent programs into the ASIC as
mtu + 22 (Ethernet header 14 + FCS 4 + one VLAN tag 4; sonic-swss portsorch.cpp setPortMtu). So the two numbers
compare directly, with no offset. Speed is in Mb/s.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Balancing:
    """A switch's ECMP load balancing as its files say (railfabric/verify/load_balancing.py reads it)."""

    mode: str = "flow"  # flow | flowlet | packet
    fields: frozenset[str] | None = None  # the selected hash fields; None = the platform's default hash

    def text(self) -> str:
        fields = "default hash" if self.fields is None else "hash " + ", ".join(sorted(self.fields))
        return f"{self.mode}, {fields}"


class VerifyInputError(Exception):
    """Input the verifier cannot use at all (missing directory, garbled file): exit 2 with this message."""


@dataclass(frozen=True, slots=True)
class Failure:
    """One broken promise: where (device, interface or neighbour), what was expected, what was found, which file."""

    check: str
    device: str
    subject: str
    expected: str
    found: str
    file: str

    def line(self) -> str:
        return f"{self.device} {self.subject}: expected {self.expected}, found {self.found} ({self.file})"

    def as_dict(self) -> dict[str, str]:
        return {"check": self.check, "device": self.device, "subject": self.subject, "expected": self.expected,
                "found": self.found, "file": self.file}


@dataclass(slots=True)
class Qos:
    """RoCE QoS on one interface. dscp_to_tc holds only explicitly mapped DSCPs."""

    dscp_trust: bool = False
    dscp_to_tc: dict[int, int] = field(default_factory=dict)
    tc_to_queue: dict[int, int] = field(default_factory=dict)
    tc_to_pg: dict[int, int] = field(default_factory=dict)  # SONiC only (ingress priority groups)
    pfc_priorities: frozenset[int] = frozenset()
    ecn_queues: frozenset[int] = frozenset()
    strict_queues: frozenset[int] = frozenset()
    watchdog: bool = False

    def queue_of(self, tc: int) -> int:
        return self.tc_to_queue.get(tc, tc)  # both platforms default to TC n → queue n


@dataclass(slots=True)
class Buffers:
    """Lossless buffering of one port (SONiC). `managed` is False where the platform keeps its defaults (EOS)."""

    managed: bool = True
    lossless_pgs: dict[int, str] = field(default_factory=dict)  # PG → profile name (a lossless profile that exists)
    queues: dict[int, str] = field(default_factory=dict)  # queue → profile name (a profile that exists)
    problems: list[str] = field(default_factory=list)  # dangling or lossy profiles, as text for the failure line


@dataclass(slots=True)
class Interface:
    name: str
    admin_up: bool = True
    speed: int | None = None  # Mb/s; None: no explicit speed
    mtu: int | None = None
    mode: str = "none"  # routed | access | trunk | member | none
    vlan: int | None = None  # access VLAN (a host port, or an MLAG host bond port-channel)
    channel: str | None = None  # the port-channel this port is a member of
    trunk_vlans: frozenset[int] = frozenset()  # VLANs a trunk (the MLAG peer link) carries
    mlag: int | None = None  # MLAG id of a port-channel (EOS `mlag N`, SONiC MCLAG_INTERFACE)
    ipv4: list[str] = field(default_factory=list)
    qos: Qos | None = None
    buffers: Buffers | None = None


@dataclass(frozen=True, slots=True)
class Neighbor:
    ip: str  # its address; an unnumbered neighbor (`interface`): the interface it is named by
    remote_as: int | None
    peer_group: str | None
    bfd: bool
    interface: bool = False  # unnumbered (routing.addressing: unnumbered): a session over the interface's link-local
    # the BFD timers the session runs (transmit ms, receive ms, multiplier) as configured; None: none configured
    bfd_timers: tuple[int, int, int] | None = None
    # (md5 | tcp-ao, the key as written: a vault placeholder; tcp-ao: every key of the profile or chain with its
    # KeyID, ao_keys); None: no key
    key: tuple[str, str] | None = None
    # the peer ASNs a session accepts when no one remote-as is configured: Junos's peer-as-list of a dynamic
    # neighbour (its as-list's entries, each (first, last)); () = remote_as alone
    as_ranges: tuple[tuple[int, int], ...] = ()

    def accepts(self, asn: int | None) -> bool:
        """The session comes up with a peer in `asn`: its remote-as, or an entry of its as-list."""
        if self.as_ranges:
            return asn is not None and any(first <= asn <= last for first, last in self.as_ranges)
        return self.remote_as == asn

    @property
    def remote_as_text(self) -> str:
        """`remote-as N` or `peer-as-list a-b c` as found."""
        if self.as_ranges:
            return "peer-as-list " + " ".join(str(a) if a == b else f"{a}-{b}" for a, b in self.as_ranges)
        return f"remote-as {self.remote_as}"


def ao_keys(keys: list[tuple[str, str]]) -> str:
    """The TCP-AO keys of an EOS shared-secret profile or a Junos key chain, (KeyID, key as written) each, as one
    text: `3=%%vault.a%% 4=%%vault.b%%` (two during a rollover), so that the two ends of a session compare their
    KeyIDs and keys at once."""
    return " ".join(f"{key_id}={key}" for key_id, key in keys)


@dataclass(slots=True)
class Bgp:
    asn: int | None = None
    router_id: str | None = None
    neighbors: dict[str, Neighbor] = field(default_factory=dict)


@dataclass(slots=True)
class Management:
    address: str | None = None  # with prefix length
    vrf: str | None = None
    api_vrfs: frozenset[str] = frozenset()  # VRFs the management API (EOS eAPI) is enabled in
    api_enabled: bool = False
    # a platform whose config declares its management port (SONiC MGMT_PORT|eth0): whether it does; None: the
    # platform has no such declaration (its management API is checked instead)
    mgmt_port: bool | None = None
    users: dict[str, str] = field(default_factory=dict)  # name → role ("" when none)


@dataclass(slots=True)
class Vlan:
    id: int
    members: list[str] = field(default_factory=list)
    svi: list[str] = field(default_factory=list)  # SVI addresses
    virtual: bool = False  # the SVI address is a shared MLAG gateway (EOS `ip address virtual`, SONiC SAG)
    own: list[str] = field(default_factory=list)  # of `svi`: the switch's own addresses beside a virtual one (NVUE)
    tagged: list[str] = field(default_factory=list)  # tagged members (the MLAG peer link)
    mtu: int | None = None
    declared: bool = True  # False: only named by a member (EOS `switchport access vlan N` without `vlan N`)


@dataclass(slots=True)
class MlagObserved:
    """An MLAG (EOS) / MCLAG (SONiC) domain as the files declare it."""

    domain: str = ""
    local_ip: str | None = None  # the peer-VLAN SVI address of this switch (no length)
    peer_ip: str | None = None
    peer_link: str | None = None  # port-channel name
    vlan: int | None = None  # the peer VLAN (EOS local-interface, SONiC the VLAN whose SVI holds source_ip)
    virtual_mac: str | None = None  # EOS `ip virtual-router mac-address`, SONiC SAG gateway_mac


@dataclass(slots=True)
class ObservedDevice:
    name: str
    platform: str
    files: dict[str, str] = field(default_factory=dict)  # role (config, bgp) → path shown in failures
    interfaces: dict[str, Interface] = field(default_factory=dict)
    vlans: dict[int, Vlan] = field(default_factory=dict)
    bgp: Bgp = field(default_factory=Bgp)
    mgmt: Management = field(default_factory=Management)
    loopbacks: list[str] = field(default_factory=list)
    mlag: MlagObserved | None = None
    # ECMP mode and selected hash fields (railfabric/verify/load_balancing.py Balancing); None: not read
    balancing: Balancing | None = None
    failures: list[Failure] = field(default_factory=list)  # what the reader itself found broken (leafrefs, parse)
    notes: list[str] = field(default_factory=list)

    def addresses(self) -> set[str]:
        """Every IPv4 address (without length) configured on the device: interfaces, SVIs, loopbacks."""
        out = {a.split("/")[0] for i in self.interfaces.values() for a in i.ipv4}
        out |= {a.split("/")[0] for v in self.vlans.values() for a in v.svi}
        out |= {a.split("/")[0] for a in self.loopbacks}
        return out
