"""GPU hosts in the lab: which hosts, how they are cabled (the rail map: the physical plan) and how they are
configured (their RENDERED netplan file, read back through `netplan generate`, never the device model).

Per segment whose rail switches are all in the lab: the first and the last host by default, N spread evenly, or all.
Each NIC port is a veth pair, one per port however many GPUs share the NIC (`gpu_to_nic`: the rail map has a row per
GPU, ports_by_host keeps each port once): the host end in the run's `rf<run>-<host>` named as the host file names the
NIC, the switch end in the rail switch's namespace named as the switch port (`switch_interface` of the rail map) and
enslaved to the rail SVI's bridge `Vlan<vlan>`, at the switch port's MTU. A host-file NIC is tied to its rail-map
row by the planned address it carries: the cabling is the plan's, the configuration the host file's.
"""

from __future__ import annotations

import csv
import io
import re
from collections import defaultdict
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from railfabric.core import safe_yaml
from railfabric.lab.model import IFNAMSIZ, Fault, LabError, LabSpec, ns_name
from railfabric.lab.networkd import HostNetwork, Network, NetworkdError, netplan_generate
from railfabric.pipeline import Result
from railfabric.verify.hosts import group_scripts

# What the lab sets in every host namespace for a host with several NICs (ARP flux, reverse-path filtering): the
# values IBM documents for multi-NIC RDMA hosts (arp_ignore=1, arp_announce=2, loose rp_filter=2), used until the
# rendered host files carry sysctls of their own (a substitution, see model.SUBSTITUTIONS).
HOST_SYSCTLS: tuple[tuple[str, str], ...] = (  # (path under /proc/sys, value)
    ("net/ipv4/conf/all/arp_ignore", "1"),
    ("net/ipv4/conf/all/arp_announce", "2"),
    ("net/ipv4/conf/all/rp_filter", "2"),
)
_HOST_FILE = re.compile(r"^hosts/([^/]+)/[^/]+\.ya?ml$")
_YAML = re.compile(r"\.ya?ml$")


@dataclass(frozen=True, slots=True)
class HostPort:
    """One rail-map row: a NIC port of a host and the switch port it is cabled to."""

    host: str
    nic: int
    port: int
    rail: int
    switch: str
    switch_if: str
    vlan: int
    address: str  # a.b.c.d/len
    gateway: str
    mtu: int  # the host MTU
    bond: str

    @property
    def ip(self) -> str:
        return self.address.split("/")[0]


@dataclass(frozen=True, slots=True)
class HostNic:
    """A built NIC port: the plan's row, the name the host file gives it, and what the host file configures."""

    plan: HostPort
    ifname: str  # host end of the veth (the host file's name, shortened if it is longer than 15 characters)
    file_name: str  # the name in the host file
    network: Network
    switch_mtu: int


@dataclass
class LabHost:
    name: str
    ns: str
    pod: int
    segment: int
    ports: tuple[HostPort, ...]  # the plan
    files: dict[str, str] = field(default_factory=dict)  # rendered netplan file(s): name → text
    net: HostNetwork | None = None
    nics: list[HostNic] = field(default_factory=list)
    sysctls: list[tuple[str, str]] = field(default_factory=list)  # (path under /proc/sys, value) applied
    sysctls_rendered: bool = False  # from the host's rendered script (else the lab's HOST_SYSCTLS)


def railmap_rows(res: Result) -> list[HostPort]:
    """The rail map as `fabric render` writes it (hosts/railmap.csv), read back as rows."""
    from railfabric.device import build_devices
    from railfabric.outputs import railmap_csv

    assert res.inventory is not None and res.topology is not None and res.plan is not None
    devices = build_devices(res.inventory, res.topology, res.plan)
    text = railmap_csv(res.inventory, res.topology, res.plan, devices)["hosts/railmap.csv"]
    body = io.StringIO(text.split("\n", 1)[1])  # the first line is the `# title`
    return [HostPort(r["host"], int(r["nic"]), int(r["nic_port"]), int(r["rail"]), r["switch"], r["switch_interface"],
                     int(r["vlan"]), r["address"], r["gateway"], int(r["mtu"]), r["bond"])
            for r in csv.DictReader(body)]


def rendered_host_files(res: Result) -> dict[str, dict[str, str]]:
    """host → {file name: text}: the netplan files the render writes under hosts/<host>/ (every *.yaml there), and
    the boot script of the host's group (`roce_script` of its gpu_hosts group in ansible/inventory.yml), whose
    per-interface sysctls the lab applies (host_sysctls)."""
    from railfabric.emit.build import build_files

    rendered = build_files(res)
    out: dict[str, dict[str, str]] = defaultdict(dict)
    for path, data in rendered.items():
        m = _HOST_FILE.match(path)
        if m:
            out[m.group(1)][path.rsplit("/", 1)[1]] = data.decode()
    for host, script in _group_scripts(rendered).items():
        if host in out and script in rendered:
            out[host][script.rsplit("/", 1)[1]] = rendered[script].decode()
    return dict(out)


def _group_scripts(rendered: Mapping[str, bytes]) -> dict[str, str]:
    """host → path (under generated/) of its group's boot script, from the gpu_hosts group of the inventory."""
    import yaml

    try:
        inv = safe_yaml.load(rendered.get("ansible/inventory.yml", b"{}"))
    except yaml.YAMLError:
        return {}
    return group_scripts(inv)


_SYSCTL = re.compile(r"^\s*put\s+/proc/sys/net/ipv4/conf/(\S+)/(arp_ignore|arp_announce|rp_filter)\s+(\d+)\s*$", re.M)


def host_sysctls(files: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """(interface, key, value) for the ARP / reverse-path sysctls a rendered host script sets (`put
    /proc/sys/net/ipv4/conf/<if>/<key> <value>` lines of its *.sh files); empty when it sets none."""
    return [(m[1], m[2], m[3]) for name, text in sorted(files.items()) if name.endswith(".sh")
            for m in _SYSCTL.finditer(text)]


def ports_by_host(rows: list[HostPort]) -> dict[str, list[HostPort]]:
    """host → its NIC ports, each once. The rail map has one row per GPU and NIC port: GPUs that share a NIC
    (`gpu_to_nic`) repeat that NIC's port, which is still one cable and one interface (one veth in the lab)."""
    by_host: dict[str, dict[tuple[int, int], HostPort]] = defaultdict(dict)
    for r in rows:
        by_host[r.host].setdefault((r.nic, r.port), r)
    return {host: list(ports.values()) for host, ports in by_host.items()}


def pick(count: int, how: int | str) -> list[int]:
    """Indices of the hosts to build among `count`: all, or `how` spread evenly from the first to the last."""
    if how == "all" or int(how) >= count:
        return list(range(count))
    n = int(how)
    if n <= 0:
        return []
    if n == 1:
        return [0]
    return sorted({round(i * (count - 1) / (n - 1)) for i in range(n)})


def short_name(name: str, taken: set[str]) -> str:
    """The host file's NIC name, or, when longer than Linux allows (15), its first 12 characters and a counter."""
    if len(name) <= IFNAMSIZ and name not in taken:
        return name
    for i in range(1000):
        cand = f"{name[:IFNAMSIZ - 3]}{i:03d}"
        if cand not in taken:
            return cand
    raise LabError(f"cannot shorten interface name {name!r}")


def add_hosts(spec: LabSpec, res: Result, how: int | str,
              files: Mapping[str, Mapping[str, str]] | None = None) -> list[str]:
    """Select, wire and read back the hosts; fills spec.hosts. Returns notes for the intro (segments left out).
    `how`: hosts per segment (N), "all", or "auto" (2 when the render has host files, none otherwise)."""
    if how == 0 or how == "0":
        return []
    assert res.topology is not None
    by_host = ports_by_host(railmap_rows(res))
    groups: dict[tuple[int, int], list[str]] = defaultdict(list)
    notes: list[str] = []
    left_out: dict[tuple[int, int], str] = {}
    for name in by_host:  # rail-map order: hosts by natural name
        h = res.topology.hosts[name]
        outside = sorted({r.switch for r in by_host[name] if r.switch not in spec.nodes})
        if outside:
            left_out.setdefault((h.pod, h.segment), outside[0])
            continue
        groups[(h.pod, h.segment)].append(name)
    for (pod, seg), sw in sorted(left_out.items()):
        if (pod, seg) not in groups and (spec.pod is None or spec.pod == pod):
            notes.append(f"pod {pod} segment {seg}: no hosts (rail switch {sw} is not in the lab)")
    if how == "auto":  # the CLI's default: 2 per segment when the render has host files, else none
        files = rendered_host_files(res) if files is None else files
        if not files:
            return [*notes, "no GPU hosts: the render has no host netplan files (hosts/<host>/*.yaml)"]
        how = 2
    chosen = [groups[g][i] for g in sorted(groups) for i in pick(len(groups[g]), how)]
    if not chosen:
        return notes
    if files is None:
        files = rendered_host_files(res)
    missing = [h for h in chosen if not files.get(h)]
    if missing:
        raise LabError(f"no rendered netplan file (hosts/<host>/*.yaml) for {len(missing)} host(s), e.g. "
                       f"{missing[0]}: render a fabric with host files, or run with --hosts 0")
    hosts = []
    for name in chosen:
        h = res.topology.hosts[name]
        hosts.append(LabHost(name, ns_name(name, spec.run), h.pod, h.segment, tuple(by_host[name]), dict(files[name])))

    def read(host: LabHost) -> None:
        try:
            host.net = netplan_generate({k: v for k, v in host.files.items() if _YAML.search(k)})
        except NetworkdError as exc:
            raise LabError(f"{host.name}: {exc}") from None
        _wire(spec, host)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(read, hosts))
    clash = {h.ns for h in hosts} & {n.ns for n in spec.nodes.values()}
    if clash:
        raise LabError(f"host and switch namespaces clash: {sorted(clash)[:3]}")
    spec.hosts = {h.name: h for h in hosts}
    return notes


def _wire(spec: LabSpec, host: LabHost) -> None:
    """Tie each planned NIC port to the host file's interface carrying its planned address."""
    assert host.net is not None
    taken: set[str] = set()
    for p in host.ports:
        if p.bond:
            raise LabError(f"{host.name}: {p.bond} is a bond (dual_homing: mlag); the lab builds no host bonds and "
                           "leaves MLAG pairs outside")
        net = host.net.with_address(p.address)
        name = host.net.interface_name(net) if net else None
        if net is None or name is None:
            raise LabError(f"{host.name}: no interface in its netplan file carries the planned address {p.address} "
                           f"(NIC {p.nic} port {p.port}, rail {p.rail})")
        other = next((n for n in host.nics if n.file_name == name), None)
        if other is not None:
            raise LabError(f"{host.name}: NIC {p.nic} port {p.port} and NIC {other.plan.nic} port "
                           f"{other.plan.port} of the rail map are both {name!r} in its netplan file ({p.address}, "
                           f"{other.plan.address}); the lab builds one interface per NIC port")
        ifname = short_name(name, taken)
        taken.add(ifname)
        dev = spec.devices[p.switch]
        sw_if = next((i for i in dev.interfaces if i.name == p.switch_if), None)
        if sw_if is None:
            raise LabError(f"{p.switch}: no interface {p.switch_if} in the device model (rail map row of {host.name})")
        host.nics.append(HostNic(p, ifname, name, net, sw_if.mtu))
    renamed = {n.file_name: n.ifname for n in host.nics}
    rendered = [(f"net/ipv4/conf/{renamed[i]}/{k}", v) for i, k, v in host_sysctls(host.files) if i in renamed]
    host.sysctls_rendered = bool(rendered)
    host.sysctls = rendered or list(HOST_SYSCTLS)


def host_commands(host: LabHost) -> list[str]:
    """`ip -batch` lines that give the host namespace what its networkd files say (after the veths exist)."""
    cmds = ["link set lo up"]
    for nic in host.nics:
        n = nic.network
        cmds.append(f"link set {nic.ifname}" + (f" mtu {n.mtu}" if n.mtu else "") + " up")
        cmds += [f"addr add {a} dev {nic.ifname}" for a in n.addresses]
    for nic in host.nics:
        for r in nic.network.routes:
            cmds.append(f"route add {r.destination}" + (f" via {r.gateway}" if r.gateway else "")
                        + (" onlink" if r.onlink else "") + f" dev {nic.ifname}"
                        + (f" metric {r.metric}" if r.metric is not None else "")
                        + (f" table {r.table}" if r.table is not None else ""))
    for nic in host.nics:
        for rule in nic.network.rules:
            if rule.from_ and ":" in rule.from_:  # an IPv6 rule (dual-stack): host_rules_v6, under `ip -6`
                continue
            cmds.append("rule add" + (f" from {rule.from_}" if rule.from_ else "")
                        + (f" to {rule.to}" if rule.to else "")
                        + (f" table {rule.table}" if rule.table is not None else " table main")
                        + (f" priority {rule.priority}" if rule.priority is not None else ""))
    return cmds


def host_rules_v6(host: LabHost) -> list[str]:
    """The IPv6 policy rules of the host's networkd files (dual-stack), as `ip -6 -batch` lines: `ip rule` takes an
    IPv4 rule unless told -6."""
    return ["rule add" + f" from {rule.from_}" + (f" table {rule.table}" if rule.table is not None else " table main")
            + (f" priority {rule.priority}" if rule.priority is not None else "")
            for nic in host.nics for rule in nic.network.rules if rule.from_ and ":" in rule.from_]


def inject_host_policy(spec: LabSpec) -> Fault:
    """Fault host-policy: delete the policy rule of the first built host's first NIC that has one."""
    if not spec.hosts:
        raise LabError("fault host-policy: no GPU host in the lab (run with --hosts)")
    for host in spec.hosts.values():
        for nic in host.nics:
            rule = next((r for r in nic.network.rules if r.from_ and r.from_.split("/")[0] == nic.plan.ip), None)
            if rule is None:
                continue
            line = "rule del from " + rule.from_ + (f" table {rule.table}" if rule.table is not None else "") + (
                f" priority {rule.priority}" if rule.priority is not None else "")
            return Fault("host-policy", host.name, f"`ip {line}` in {host.ns} ({nic.ifname}, rail {nic.plan.rail})",
                         (host.name,), line)
    raise LabError("fault host-policy: no built host has a policy rule from a NIC address")
