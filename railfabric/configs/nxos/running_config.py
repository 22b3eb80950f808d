"""NX-OS running-config builder: the few decisions only NX-OS needs, made once here, then the Jinja partials of
templates/nxos/ format the DeviceConfig `d` and this view `n`.

Decided here (never in a template):
- features: which `feature` lines the config needs (bgp, bfd, interface-vlan, hsrp, lacp, lldp, nxapi, tacacs+,
  vpc);
- vPC (an MLAG pair): railfabric/configs/nxos/vpc.py;
- breakouts: `interface breakout module 1 port <p> map <speed>g-<lanes>x` per broken-out port;
- FEC per interface: `fec rs-fec` (RS-528, CL91) where the model asks for Reed-Solomon on 25G lanes; no line on
  PAM4 lanes (50G/100G per lane), where RS-544 is mandatory (IEEE 802.3cd/ck) and NX-OS's `fec` offers no mode
  for it;
- queuing: the eight fixed system classes of the 8-queue template (c-out-8q-q-default = queue 0, c-out-8q-q1..q7),
  strict priority for the CNP queue, DWRR weights as `bandwidth remaining percent` (NX-OS needs percentages that sum
  to at most 100: weights scaled to 100, the rounding remainder to the default queue), WRED-ECN on the RoCE queue
  in kbytes (1 kbyte = 1000 bytes, rounded up so the threshold never drops below the plan's);
- network-qos: every 8q class carries the platform MTU (NX-OS buffer carving follows it), the lossless ones `pause
  pfc-cos <p>`;
- PFC watchdog: the poll interval and the detection/restoration times as multiples of it (rounded up);
- BFD: NX-OS's BFD prerequisites ask for ICMP redirects off on BFD interfaces: `no ip redirects` on every routed
  port and L3 port-channel when BFD is on; NX-OS sets BFD timers per interface (`bfd interval <ms> min_rx <ms>
  multiplier <n>`, interval and min_rx 50-999 ms, multiplier 1-50: Cisco's nxos_bfd_global module documents these
  ranges; the interface form is Cisco's OpenConfig BFD example for NX-OS 9.3(5)+), so each routed interface,
  L3 port-channel and vPC peer SVI gets the timers of the session tier that runs over it (`bfd_timers`, by the
  interface's own address = the session's local address);
- AAA: the server groups of the login order (NX-OS falls back to local accounts when the groups do not answer:
  `aaa authentication login default fallback error local` is its default).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import jinja2

from railfabric.configs import jinja
from railfabric.configs.jinja import RenderError, environment, template_where
from railfabric.configs.nxos.vpc import Switchport, VpcView, build_vpc
from railfabric.platforms.nxos import breakout_map

if TYPE_CHECKING:  # the registry imports this module while railfabric.device is importing the registry
    from railfabric.device import DeviceConfig, Interface
    from railfabric.device.sessions import SessionTimers

ENTRY = "nxos/running-config.j2"
QOS_IN = "RF-QOS-IN"
NETWORK_QOS = "RF-NETWORK-QOS"
QUEUING_OUT = "RF-QUEUING-OUT"
BANNER_DELIMITER = "^"  # not a free-text character (railfabric/core/textsafe.py), so no banner line can end the banner


@dataclass(frozen=True, slots=True)
class QueueClass:
    queue: int
    name: str  # c-out-8q-q-default | c-out-8q-qN
    strict: bool
    percent: int  # bandwidth remaining percent (0 for strict and unused queues)
    ecn: tuple[int, int, int] | None  # (min kbytes, max kbytes, drop-probability) on the RoCE queue


@dataclass(frozen=True, slots=True)
class QosClass:
    name: str
    dscps: tuple[int, ...]
    group: int  # qos-group = traffic class = queue


@dataclass(frozen=True, slots=True)
class NetworkQosClass:
    name: str  # c-8q-nq-default | c-8q-nqN
    mtu: int
    pause_cos: int | None


@dataclass(frozen=True, slots=True)
class Watchdog:
    interval_ms: int
    shutdown_multiplier: int
    restore_multiplier: int


@dataclass(frozen=True, slots=True)
class NxosPort:
    """One physical interface as NX-OS writes it: the model's Interface `i` with what only NX-OS decides."""

    i: Interface
    fec: str | None  # the `fec` keyword; None: no fec line
    switchport: Switchport | None  # a vPC port-channel member's layer-2 side; None on every other port


@dataclass(frozen=True, slots=True)
class NxosView:
    features: tuple[str, ...]
    breakouts: tuple[tuple[int, str], ...]  # (port, map keyword)
    ports: tuple[NxosPort, ...]  # every interface of the model, in its order
    qos_classes: tuple[QosClass, ...]
    network_qos: tuple[NetworkQosClass, ...]
    queues: tuple[QueueClass, ...]
    watchdog: Watchdog | None
    login_groups: tuple[str, ...]
    no_redirects: bool  # `no ip redirects` on routed ports: NX-OS BFD needs ICMP redirects off (BFD prerequisites)
    vpc: VpcView | None = None  # vPC domain, HSRP and the L2 port-channels of an MLAG pair (nxos_vpc.py)
    # interface name → the BFD timers of the session over it (the tier's: railfabric/device/sessions.py)
    bfd_timers: Mapping[str, SessionTimers] = field(default_factory=dict)
    qos_in: str = QOS_IN
    network_qos_policy: str = NETWORK_QOS
    queuing_out: str = QUEUING_OUT
    banner_delimiter: str = BANNER_DELIMITER
    load_sharing: str = ""  # the `ip load-sharing` arguments of routing.ecmp.hash; "" = the switch's default hash


def queue_class(queue: int) -> str:
    return "c-out-8q-q-default" if queue == 0 else f"c-out-8q-q{queue}"


def network_qos_class(tc: int) -> str:
    return "c-8q-nq-default" if tc == 0 else f"c-8q-nq{tc}"


def percentages(weights: dict[int, int]) -> dict[int, int]:
    """DWRR weights → `bandwidth remaining percent` summing to exactly 100: each weight scaled down (floor), the
    remainder to the lowest queue (the default class)."""
    total = sum(weights.values())
    out = {q: w * 100 // total for q, w in weights.items()}
    lowest = min(out)
    out[lowest] += 100 - sum(out.values())
    return out


def kbytes(n: int) -> int:
    return math.ceil(n / 1000)


def fec_keyword(i: Interface) -> str | None:
    """`rs-fec` where the model asks for Reed-Solomon on 25G (NRZ) lanes; None (no line) elsewhere."""
    return "rs-fec" if i.fec == "rs" and i.lanes and i.speed / len(i.lanes) < 50 else None


def nxos_ports(d: DeviceConfig, vpc: VpcView | None) -> tuple[NxosPort, ...]:
    switchports = vpc.switchports if vpc is not None else {}
    return tuple(NxosPort(i, fec_keyword(i), switchports.get(i.name) if i.mode == "member" else None)
                 for i in d.interfaces)


def interface_bfd_timers(d: DeviceConfig, vpc: VpcView | None) -> dict[str, SessionTimers]:
    """Each routed interface's BFD timers: those of the peer group whose session runs from its address."""
    by_address = {n.local_ip: g.bfd_timers for g in d.bgp.peer_groups if g.bfd_timers is not None
                  for n in g.neighbors}
    named = [(i.name, i.ipv4) for i in d.interfaces] + [(pc.name, pc.ipv4) for pc in d.port_channels]
    if vpc is not None:
        named.append((f"Vlan{vpc.peer_vlan}", vpc.local_ip))
    return {name: by_address[ip.split("/")[0]] for name, ip in named
            if ip is not None and ip.split("/")[0] in by_address}


def build_view(d: DeviceConfig) -> NxosView:
    q = d.qos
    features = ["bgp"]
    if d.bfd:
        features.append("bfd")
    if d.vlans:
        features.append("interface-vlan")
    if d.mlag is not None:
        features.append("hsrp")
    if d.port_channels:
        features.append("lacp")
    features.append("lldp")
    if d.system.eapi:
        features.append("nxapi")
    if d.system.tacacs:
        features.append("tacacs+")
    if d.mlag is not None:
        features.append("vpc")
    lanes_of: dict[int, list[int]] = {}
    for i in d.interfaces:
        if i.lane:
            lanes_of.setdefault(i.port, []).append(i.speed)
    breakouts = tuple((port, breakout_map(len(speeds), speeds[0])) for port, speeds in sorted(lanes_of.items()))
    weights = dict(q.dwrr)
    pct = percentages(weights)
    roce_queue = q.tc_to_queue[q.roce_tc]
    queues = []
    for queue in range(8):
        ecn = None
        if q.ecn is not None and queue == roce_queue:
            ecn = (kbytes(q.ecn.min_bytes), kbytes(q.ecn.max_bytes), q.ecn.probability)
        queues.append(QueueClass(queue, queue_class(queue), queue in q.strict_queues, pct.get(queue, 0), ecn))
    qos_classes = tuple(QosClass(f"RF-TC{tc}", dscps, tc) for tc, dscps in q.tc_groups if tc != 0)
    network = tuple(NetworkQosClass(network_qos_class(tc), d.mtu, tc if tc in q.lossless else None)
                    for tc in (*range(1, 8), 0))
    wd = None
    if q.watchdog is not None:
        poll = q.watchdog.poll_ms
        wd = Watchdog(poll, q.watchdog.detection_polls, q.watchdog.restoration_polls)
    login_groups = tuple(m for m in d.system.login if m != "local")
    vpc = build_vpc(d)
    return NxosView(tuple(features), breakouts, nxos_ports(d, vpc), qos_classes, network, tuple(queues), wd,
                    login_groups, d.bfd, vpc, interface_bfd_timers(d, vpc), load_sharing=load_sharing(d))


def load_sharing(d: DeviceConfig) -> str:
    """`ip load-sharing` of routing.ecmp.hash (NX-API REST SDK guide, "Configuring ECMP Load Balancing", CLI
    equivalents): source and destination address, with both ports when the hash has them; the other field sets
    were refused (PLAT053/PLAT054). "" without a chosen hash."""
    fields = set(d.load_balancing.hash_fields)
    if not fields:
        return ""
    ports = " port source-destination" if {"l4_src_port", "l4_dst_port"} <= fields else ""
    return "address source-destination" + ports


def running_config(d: DeviceConfig) -> str:
    """The device's running-config.cfg (templates/nxos/running-config.j2 with `d` and its NX-OS view `n`)."""
    root = str(jinja.TEMPLATES)  # a module global: tests point it at a wheel's layout
    env = environment(root)
    try:
        return env.get_template(ENTRY).render(d=d, n=build_view(d))
    except jinja2.TemplateSyntaxError as exc:
        raise RenderError(d.hostname, exc.name or ENTRY, exc.lineno, exc.message or str(exc)) from None
    except (jinja2.TemplateError, TypeError, ValueError, KeyError, AttributeError) as exc:
        template, line = template_where(exc, root, ENTRY)  # the innermost template frame, relative to the templates
        raise RenderError(d.hostname, template, line, str(exc)) from None
