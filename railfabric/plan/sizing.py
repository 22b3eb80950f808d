"""Sizing: the smallest rail-optimized fabric for N GPUs (`fabric size`). Pure functions, no I/O.

The model (every count is a link at the hosts' NIC speed; fabric links run at that speed too, on breakouts):

- Rails: one rail per NIC; NIC r of every host lands on rail r. A rail switch (leaf) serves one rail.
- Radix R = physical ports × lanes at the NIC speed (QM9700: 64 × 400G → 64; SN5600 64 × 800G with 2x400G → 128).
- Rail switch: d host links down and u uplinks, d + u ≤ R. Non-blocking: d = u = R/2. With oversubscription r
  (host Gbps : uplink Gbps at the rail switches; spines and super-spines stay non-blocking): d = ⌊R·r/(r+1)⌋,
  u = ⌈d/r⌉ (lowered until d + u ≤ R).
- Segment (NVIDIA's scalable unit, SU): as many hosts as one rail switch takes (d), and one rail switch per rail, so
  rail switches per segment = rails. Segments fill in order; a partial last segment keeps the uplinks of a full one
  (NVIDIA: "design the fabric to support the full SU, including leaf switches and leaf-spine cables"), so it fills
  up without touching the spines.
- Even spreading: railfabric wires every rail switch to every spine of its pod with the same number of links
  (spines.links_per_rail_switch). So the spine count S is the smallest one for which l = ⌈u/S⌉ links to each spine
  fit the rail switch (d + S·l ≤ R) and every spine takes its L rail switches (L·l ≤ spine down ports). That is
  more than the arithmetic ⌈L·u / R⌉ when u does not split evenly: NVIDIA's H100 3-SU fabric has 24 leaves ×
  32 uplinks = 768 = 12 × 64, but 32 uplinks over 12 spines would need 3 links each (36 ports on a leaf with 32
  free), so 16 spines (2 links each), as in NVIDIA's table. When u = R/2 is a power of two the result is a power of
  two; with Q3400's 72 uplinks it is 18 at 4 SU (72 = 18 × 4), also as in NVIDIA's table.
- 2 tiers (one pod, spines use all R ports down) while that fits: at most R rail switches (l = 1), i.e.
  R·d NIC ports (R²/2 non-blocking). Otherwise 3 tiers.
- 3 tiers: pods of at most ⌊R/2⌋ rail switches (whole segments; spines give half their ports down, half up, the
  default port layout of a spine). Every pod gets the spine count of the first, full pod so that spine i exists in
  every pod. Spine uplinks = spine downlinks used (non-blocking). Super-spines come in planes (spine i of every pod
  meets only the super-spines of plane ((i-1) mod N)+1, railfabric's super_spines.planes): the smallest total
  N·C with N dividing the spines per pod, m = ⌈spine uplinks / C⌉ links to each super-spine of its plane, and
  pods × (spines per pod / N) × m ≤ R ports on each super-spine. At most R pods: R·(R/2 rail switches)·d NIC ports
  (R³/4 non-blocking, the k-ary fat-tree: k³/4 hosts, 5k²/4 switches for single-NIC hosts).
- Cables: host ↔ rail switch = hosts × NICs; rail switch ↔ spine = rail switches × u; spine ↔ super-spine =
  spines × spine uplinks (all links at the NIC speed; a 2x400G breakout cable carries two).
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, TypeVar

from railfabric.core.address import Prefix, bits_for, length_for
from railfabric.core.address import size as prefix_size
from railfabric.core.units import format_speed, lanes_at
from railfabric.plan.buffers import SN5600_BUFFERS
from railfabric.platforms import PLATFORMS

# --------------------------------------------------------------------------- specs and presets


@dataclass(frozen=True)
class HostSpec:
    """A GPU server: GPUs, NICs (one rail each) and the NIC speed in Gbit/s."""

    gpus: int
    nics: int
    nic_speed_gbps: int
    name: str = "gpu-host"


@dataclass(frozen=True)
class SwitchSpec:
    """A switch model: physical ports, native speed (Gbit/s) and breakouts as (lanes, lane speed)."""

    name: str
    ports: int
    speed_gbps: int
    breakouts: tuple[tuple[int, int], ...] = ()
    buffers: tuple[tuple[str, int | float], ...] = ()  # SONiC buffer facts (switch_models.<m>.buffers), if known
    platform: str = "sonic"  # the switch OS an `--inventory` skeleton renders it with
    asic: str = ""  # the ASIC family (switch_models.<m>.asic, railfabric/platforms/asic.py), if known

    def __post_init__(self) -> None:
        object.__setattr__(self, "breakouts", tuple((int(a), int(b)) for a, b in self.breakouts))

    def lanes_at(self, speed_gbps: int) -> int:
        """Logical ports per physical port at `speed_gbps` (1 = native, 0 = not offered)."""
        return lanes_at(self.speed_gbps, self.breakouts, speed_gbps)

    def radix(self, speed_gbps: int) -> int:
        return self.ports * self.lanes_at(speed_gbps)


@dataclass(frozen=True)
class Presets:
    hosts: dict[str, HostSpec]
    switches: dict[str, SwitchSpec]


def presets() -> Presets:
    """Named host and switch models the CLI accepts (`--host-model dgx-h100 --switch-model qm9700`)."""
    hosts = {
        "dgx-h100": HostSpec(8, 8, 400, "dgx-h100"),  # 8 × ConnectX-7 NDR 400G
        "dgx-b200": HostSpec(8, 8, 400, "dgx-b200"),  # 8 × ConnectX-7 NDR 400G
        "dgx-b300": HostSpec(8, 8, 800, "dgx-b300"),  # 8 × ConnectX-8 800G
    }
    switches = {
        "qm9700": SwitchSpec("qm9700", 64, 400),  # Quantum-2 NDR: 32 OSFP cages × 2 = 64 × 400G, radix 64
        # Spectrum-4: 64 × 800G, 128 × 400G; the buffer facts SONiC's lossless config needs (railfabric/plan/buffers.py)
        "sn5600": SwitchSpec("sn5600", 64, 800, ((2, 400), (4, 200)), tuple(SN5600_BUFFERS.items()),
                             asic="spectrum-4"),
        "q3400": SwitchSpec("q3400", 144, 800),  # Quantum-X800 XDR: 144 × 800G, radix 144
        # Cisco Nexus 9000 on NX-OS (port counts and breakouts per the platform brief; the Cisco data sheets
        # were not in the library, so the breakout lists are UNVERIFIED): N9K-C9364D-GX2A 64 × 400G QSFP-DD with
        # 4x100G / 2x200G; N9K-C9364E-SG2 64 × 800G (OSFP or QSFP-DD) with 2x400G / 4x200G
        "n9364d-gx2a": SwitchSpec("n9364d-gx2a", 64, 400, ((2, 200), (4, 100)), platform="nxos"),
        "n9364e-sg2": SwitchSpec("n9364e-sg2", 64, 800, ((2, 400), (4, 200)), platform="nxos"),
        # Juniper QFX5240-64OD (Junos OS Evolved): 64 × 800G OSFP, ports 0-63; OSFP800 breakouts 2x400G, 4x200G,
        # 8x100G (Juniper hardware docs: QFX5241-64OD ports panel, QFX5140 OSFP800 ports)
        "qfx5240-64od": SwitchSpec("qfx5240-64od", 64, 800, ((2, 400), (4, 200), (8, 100)), platform="junos"),
    }
    return Presets(hosts, switches)

_T = TypeVar("_T")


def _lookup(kind: str, name: str, table: Mapping[str, _T]) -> _T:
    if name in table:
        return table[name]
    close = difflib.get_close_matches(name, list(table), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"unknown {kind} preset {name!r}{hint} (known: {', '.join(sorted(table))})")


def host_preset(name: str) -> HostSpec:
    return _lookup("host model", name, presets().hosts)


def switch_preset(name: str) -> SwitchSpec:
    return _lookup("switch model", name, presets().switches)


# --------------------------------------------------------------------------- the result


@dataclass(frozen=True)
class Sizing:
    gpus: int
    host: HostSpec
    switch: SwitchSpec
    oversubscription: float  # requested, at the rail switches
    tiers: int  # 2 or 3
    link_speed_gbps: int  # every link runs at the NIC speed
    lanes: int  # logical ports per physical switch port at that speed
    radix: int  # R = ports × lanes
    hosts: int
    rails: int
    hosts_per_segment: int  # capacity of a segment = host links per rail switch
    segment_hosts: tuple[int, ...]  # hosts of each segment, in order
    leaf_downlinks: int  # host links on the fullest rail switch
    uplinks_needed: int  # ⌈leaf_downlinks / oversubscription⌉
    leaf_uplinks: int  # = spines_per_pod × links_per_spine (≥ uplinks_needed: even spreading may round up)
    links_per_spine: int  # from each rail switch to each spine of its pod
    pod_segments: tuple[int, ...]  # segments of each pod, in order
    segments_per_pod: int  # capacity of a pod
    spines_per_pod: int
    spine_downlinks: int  # used on a spine of the fullest pod
    spine_uplinks: int  # 0 in 2 tiers
    planes: int  # super-spine planes (1: every spine meets every super-spine)
    super_spines_per_plane: int
    links_per_super_spine: int  # from each spine to each super-spine of its plane
    min_spines_per_pod: int  # arithmetic lower bound ⌈L·u / spine down ports⌉, before even spreading
    max_gpus: int  # the most GPUs this tier count holds with these models
    notes: tuple[str, ...] = field(default=())

    @property
    def segments(self) -> int:
        return len(self.segment_hosts)

    @property
    def pods(self) -> int:
        return len(self.pod_segments)

    @property
    def rail_switches(self) -> int:
        return self.segments * self.rails

    @property
    def spines(self) -> int:
        return self.pods * self.spines_per_pod

    @property
    def super_spines(self) -> int:
        return self.planes * self.super_spines_per_plane if self.tiers == 3 else 0

    @property
    def switches(self) -> int:
        return self.rail_switches + self.spines + self.super_spines

    @property
    def host_links(self) -> int:
        return self.hosts * self.host.nics

    @property
    def fabric_links(self) -> int:
        return self.rail_switches * self.leaf_uplinks

    @property
    def core_links(self) -> int:
        return self.spines * self.spine_uplinks

    @property
    def leaf_ratio(self) -> Fraction:
        """Host links : uplinks on the fullest rail switch."""
        return Fraction(self.leaf_downlinks, self.leaf_uplinks)


# --------------------------------------------------------------------------- the model


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _ratio(value: float) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"oversubscription must be a number such as 1 or 3, got {value!r}")
    if value < 1:
        raise ValueError(f"oversubscription {value:g} is below 1; 1 means non-blocking, 3 means 3:1 at the rail "
                         "switches")
    if value > 64:
        raise ValueError(f"oversubscription {value:g} is above 64")
    return Fraction(value).limit_denominator(1000)


def _leaf_hosts(radix: int, r: Fraction) -> int:
    """Most host links a rail switch of `radix` takes at oversubscription r: d = ⌊R·r/(r+1)⌋, d + ⌈d/r⌉ ≤ R."""
    d = math.floor(radix * r / (r + 1))
    while d > 0 and d + math.ceil(d / r) > radix:
        d -= 1
    return d


def _spread(leaves: int, down: int, up_needed: int, radix: int, spine_down: int) -> tuple[int, int] | None:
    """(spines, links per spine): the fewest spines with l = ⌈u/S⌉ links from every rail switch to every spine,
    d + S·l ≤ R on the rail switch and leaves·l ≤ spine_down on the spine; None if no count works."""
    for spines in range(1, radix - down + 1):
        links = _ceil_div(up_needed, spines)
        if down + spines * links <= radix and leaves * links <= spine_down:
            return spines, links
    return None


def _planes(pods: int, spines: int, down: int, radix: int, up_budget: int) -> tuple[int, int, int] | None:
    """(planes N, super-spines per plane C, links per super-spine m) with the fewest super-spines N·C (then the
    fewest planes): N divides the spines per pod, m = ⌈down/C⌉, C·m ≤ up_budget on a spine and
    pods · (spines/N) · m ≤ R on a super-spine."""
    best: tuple[int, int, int, int] | None = None
    for n in (d for d in range(1, spines + 1) if spines % d == 0):
        for c in range(1, up_budget + 1):
            m = _ceil_div(down, c)
            if c * m <= up_budget and pods * (spines // n) * m <= radix:
                if best is None or (n * c, n) < best[:2]:
                    best = (n * c, n, c, m)
                break
    return None if best is None else best[1:]


def size_fabric(gpus: int, host: HostSpec, switch: SwitchSpec, tiers: int | None = None,
                oversubscription: float = 1.0) -> Sizing:
    """The smallest rail-optimized fabric for `gpus` GPUs (see the module docstring for the model)."""
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus <= 0:
        raise ValueError(f"the number of GPUs must be a positive whole number, got {gpus!r}")
    if host.gpus <= 0 or host.nics <= 0 or host.nic_speed_gbps <= 0:
        raise ValueError(f"host model {host.name!r} needs at least 1 GPU, 1 NIC and a NIC speed "
                         f"(got {host.gpus} GPUs, {host.nics} NICs, {host.nic_speed_gbps}G)")
    if switch.ports <= 0 or switch.speed_gbps <= 0:
        raise ValueError(f"switch model {switch.name!r} needs ports and a speed")
    if gpus % host.gpus:
        lo, hi = gpus - gpus % host.gpus, gpus - gpus % host.gpus + host.gpus
        raise ValueError(f"{gpus:,} GPUs is not a multiple of the {host.gpus} GPUs of a {host.name!r} host; "
                         f"use {lo:,} or {hi:,}" if lo else
                         f"{gpus:,} GPUs is fewer than the {host.gpus} GPUs of one {host.name!r} host; use {hi:,}")
    if tiers not in (None, 2, 3):
        raise ValueError(f"tiers must be 2 or 3 (or left out to pick the smallest), got {tiers!r}")
    r = _ratio(oversubscription)
    speed = host.nic_speed_gbps
    lanes = switch.lanes_at(speed)
    if not lanes:
        modes = [f"{switch.speed_gbps}G"] + [f"{n}x{s}G" for n, s in switch.breakouts]
        raise ValueError(f"switch model {switch.name!r} ({switch.ports} × {switch.speed_gbps}G) cannot run ports "
                         f"at the {speed}G of the host NICs; it offers {', '.join(modes)}")
    radix = switch.ports * lanes
    half_down = (switch.ports // 2) * lanes  # a spine under super-spines: lower half of the ports down
    half_up = radix - half_down
    rails = host.nics
    hosts = gpus // host.gpus
    d_max = _leaf_hosts(radix, r)
    if d_max < 1:
        raise ValueError(f"a radix-{radix} switch has no room for hosts and uplinks")

    per_seg = min(d_max, hosts)
    n_seg = _ceil_div(hosts, per_seg)
    leaves = n_seg * rails
    max2 = (radix // rails) * d_max * host.gpus
    seg_per_pod = half_down // rails
    max3 = radix * seg_per_pod * d_max * host.gpus
    too_many_for_2 = (f"{gpus:,} GPUs need {hosts * rails:,} NIC ports in {leaves:,} rail switches; a 2-tier fabric "
                      f"of radix-{radix} switches holds at most {radix} rail switches ({max2:,} GPUs of this host "
                      f"model at {_fmt_ratio(r)}); use 3 tiers")
    no_room_for_3 = (f"a segment has {rails} rail switches but a spine under super-spines has only {half_down} ports "
                     f"down (radix {radix}); use a larger switch or fewer NICs per host")
    too_many_for_3 = (f"{gpus:,} GPUs need {_ceil_div(n_seg, max(seg_per_pod, 1)):,} pods of {seg_per_pod} segments; "
                      f"a 3-tier fabric of radix-{radix} switches joins at most {radix} pods ({max3:,} GPUs of this "
                      f"host model at {_fmt_ratio(r)})")
    if gpus > max(max2, max3):  # no fabric holds them: refused before the per-segment tuples (10^23 GPUs) are built
        raise ValueError(too_many_for_2 if tiers == 2 else no_room_for_3 if seg_per_pod < 1 else too_many_for_3)
    seg_hosts = (per_seg,) * (n_seg - 1) + (hosts - per_seg * (n_seg - 1),)
    up_needed = math.ceil(per_seg / r)
    common: dict[str, Any] = dict(  # the fields both Sizing(...) below share (of several types)
        gpus=gpus, host=host, switch=switch, oversubscription=float(oversubscription), link_speed_gbps=speed,
        lanes=lanes, radix=radix, hosts=hosts, rails=rails, hosts_per_segment=d_max, segment_hosts=seg_hosts,
        leaf_downlinks=per_seg, uplinks_needed=up_needed)

    two = _spread(leaves, per_seg, up_needed, radix, radix) if tiers in (None, 2) else None
    if tiers == 2 and two is None:
        raise ValueError(too_many_for_2)
    if two is not None:
        spines, links = two
        return _finish(Sizing(
            **common, tiers=2, pod_segments=(n_seg,), segments_per_pod=n_seg, spines_per_pod=spines,
            leaf_uplinks=spines * links, links_per_spine=links, spine_downlinks=leaves * links, spine_uplinks=0,
            planes=1, super_spines_per_plane=0, links_per_super_spine=0,
            min_spines_per_pod=_ceil_div(leaves * up_needed, radix), max_gpus=max2))

    if seg_per_pod < 1:
        raise ValueError(no_room_for_3)
    pods = _ceil_div(n_seg, seg_per_pod)
    pod_segs = (seg_per_pod,) * (pods - 1) + (n_seg - seg_per_pod * (pods - 1),)
    first = pod_segs[0] * rails
    spread = _spread(first, per_seg, up_needed, radix, half_down)
    assert spread is not None  # S = u, l = 1 always fits: first ≤ half_down, d + u ≤ R
    spines, links = spread
    spine_down = first * links
    planes = _planes(pods, spines, spine_down, radix, half_up)
    if planes is None:
        raise ValueError(too_many_for_3)
    n, c, m = planes
    return _finish(Sizing(
        **common, tiers=3, pod_segments=pod_segs, segments_per_pod=seg_per_pod, spines_per_pod=spines,
        leaf_uplinks=spines * links, links_per_spine=links, spine_downlinks=spine_down, spine_uplinks=c * m,
        planes=n, super_spines_per_plane=c, links_per_super_spine=m,
        min_spines_per_pod=_ceil_div(first * up_needed, half_down), max_gpus=max3))


def _fmt_ratio(r: Fraction) -> str:
    return "non-blocking" if r == 1 else f"{float(r):g}:1 oversubscription"


def _finish(s: Sizing) -> Sizing:
    """Attach the explanations a reader of `fabric size` needs."""
    notes: list[str] = []
    leaves = s.pod_segments[0] * s.rails
    if s.spines_per_pod > s.min_spines_per_pod:
        need = s.uplinks_needed
        per = _ceil_div(need, s.min_spines_per_pod)
        notes.append(
            f"{s.spines_per_pod} spines per pod, not the arithmetic {s.min_spines_per_pod} "
            f"({leaves} rail switches × {need} uplinks / {_spine_down_ports(s)} spine ports): every rail switch "
            f"needs the same number of links to every spine, and {need} uplinks over {s.min_spines_per_pod} spines "
            f"would take {per} links each ({s.leaf_downlinks + s.min_spines_per_pod * per} of {s.radix} rail switch "
            f"ports, {leaves * per} of {_spine_down_ports(s)} spine ports); {s.spines_per_pod} spines take "
            f"{s.links_per_spine} each")
    if s.tiers == 3:
        min_ss = _ceil_div(s.spines * s.spine_downlinks, s.radix)
        per_pod = (s.spines_per_pod // s.planes) * s.links_per_super_spine
        if s.super_spines > min_ss:
            notes.append(
                f"{s.super_spines} super-spines, not the arithmetic {min_ss} ({s.spines} spines × "
                f"{s.spine_downlinks} uplinks / {s.radix} ports): every spine needs the same number of links to "
                f"every super-spine of its plane; each super-spine takes {per_pod} links per pod, room for "
                f"{s.radix // per_pod} pods")
    if s.segments > 1 and s.segment_hosts[-1] < s.segment_hosts[0]:
        notes.append(f"the last segment holds {s.segment_hosts[-1]} of {s.hosts_per_segment} hosts; it is cabled "
                     "like a full one, so it fills up without touching the spines")
    if s.pods > 1 and s.pod_segments[-1] < s.pod_segments[0]:
        notes.append(f"the last pod holds {s.pod_segments[-1]} of {s.segments_per_pod} segments; it gets all "
                     f"{s.spines_per_pod} spines so that spine i exists in every pod (plane wiring)")
    if s.spines_per_pod == 1:
        notes.append("a single spine per pod: no redundancy at the spine tier")
    if s.leaf_uplinks > s.uplinks_needed:
        notes.append(f"rail switches have {s.leaf_uplinks} uplinks where {s.uplinks_needed} would do: "
                     f"{s.uplinks_needed} links do not split evenly over {s.spines_per_pod} spines")
    return replace(s, notes=tuple(notes))


def _spine_down_ports(s: Sizing) -> int:
    return s.radix if s.tiers == 2 else (s.switch.ports // 2) * s.lanes


# --------------------------------------------------------------------------- text


def format_text(s: Sizing) -> str:
    h, sw, link = s.host, s.switch, format_speed(s.link_speed_gbps)
    ratio = "non-blocking (1:1)" if s.oversubscription == 1 else (
        f"{s.oversubscription:g}:1 at the rail switches (actual {float(s.leaf_ratio):g}:1)")
    lines = [
        f"{s.gpus:,} GPUs = {s.hosts:,} × {h.name} ({h.gpus} GPUs, {h.nics} × {format_speed(h.nic_speed_gbps)} NICs) "
        f"on {sw.name} ({sw.ports} × {format_speed(sw.speed_gbps)}; radix {s.radix} at {link})",
        f"design: {s.tiers} tiers, rail-optimized, {s.rails} rail(s), {ratio}; "
        f"{s.tiers} tiers of {sw.name} hold up to {s.max_gpus:,} GPUs of {h.name}",
        "",
        f"  segments (SU)   {s.segments:>7,}  × up to {s.hosts_per_segment} hosts"
        + (f" (last: {s.segment_hosts[-1]})" if s.segment_hosts[-1] != s.segment_hosts[0] else ""),
        f"  rail switches   {s.rail_switches:>7,}  {s.rails} per segment; {s.leaf_downlinks} host links down, "
        f"{s.leaf_uplinks} up ({s.links_per_spine} to each of {s.spines_per_pod} spines)",
        f"  spines          {s.spines:>7,}  {s.spines_per_pod} per pod × {s.pods} pod(s); "
        f"{s.spine_downlinks} of {_spine_down_ports(s)} down ports used"
        + (f", {s.spine_uplinks} up" if s.tiers == 3 else ""),
    ]
    if s.tiers == 3:
        plane = (f"{s.planes} planes × {s.super_spines_per_plane}" if s.planes > 1 else "one plane")
        per_ss = s.pods * (s.spines_per_pod // s.planes) * s.links_per_super_spine
        lines.append(f"  super-spines    {s.super_spines:>7,}  {plane}; {s.links_per_super_spine} link(s) from each "
                     f"spine of the plane, {per_ss} of {s.radix} ports used")
    lines += [
        f"  switches        {s.switches:>7,}",
        "",
        f"cables (links at {link}; a {s.lanes}x breakout cable carries {s.lanes})" if s.lanes > 1 else
        f"cables ({link})",
        f"  host - rail switch      {s.host_links:>9,}",
        f"  rail switch - spine     {s.fabric_links:>9,}",
        f"  spine - super-spine     {s.core_links:>9,}",
    ]
    if s.notes:
        lines += ["", "notes:"] + [f"  - {n}" for n in s.notes]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- inventory skeleton

_IDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")


def _pow2(n: int, cap: int) -> int:
    return min(cap, 1 << bits_for(max(n, 1)))


def _pools(needs: dict[str, int]) -> dict[str, str]:
    """Disjoint, aligned prefixes inside 10.0.0.0/8 (largest first); management in 192.168.0.0/16 if it fits."""
    out: dict[str, str] = {}
    lengths = {k: min(24, length_for(v)) for k, v in needs.items()}
    if lengths["management"] >= 16:
        out["management"] = f"192.168.0.0/{lengths['management']}"
    base, cursor = 10 << 24, 0
    for name in sorted((k for k in lengths if k not in out), key=lambda k: (lengths[k], k)):
        size = prefix_size(lengths[name])
        cursor = _ceil_div(cursor, size) * size
        if cursor + size > 1 << 24:
            raise ValueError("the address pools of this fabric do not fit in 10.0.0.0/8; edit the skeleton's pools")
        out[name] = str(Prefix(base + cursor, lengths[name]))
        cursor += size
    return out


class _Flow(dict):
    """A mapping written in flow style ({a: 1, b: 2}) in the skeleton."""


class _FlowList(list):
    """A list written in flow style ([a, b]) in the skeleton."""


def _dump(doc: dict) -> str:
    import yaml

    class Dumper(yaml.SafeDumper):
        def ignore_aliases(self, data: object) -> bool:  # no &id001 anchors: every value written out
            return True

    Dumper.add_representer(_Flow, lambda d, v: d.represent_mapping("tag:yaml.org,2002:map", list(v.items()),
                                                                   flow_style=True))
    Dumper.add_representer(_FlowList, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v,
                                                                        flow_style=True))
    return yaml.dump(doc, Dumper=Dumper, sort_keys=False, default_flow_style=False, width=120, allow_unicode=True)


def inventory_skeleton(s: Sizing, name: str = "sized", platform: str | None = None) -> str:
    """The sized fabric as one inventory file (YAML text) that `fabric validate` accepts as it is; `platform`
    defaults to the switch preset's (SONiC for NVIDIA models, NX-OS for Nexus)."""
    platform = platform or s.switch.platform
    if not _LABEL.match(name):
        raise ValueError(f"fabric name {name!r} must be an RFC 1123 label (letters, digits, inner hyphens)")
    if platform not in PLATFORMS:
        raise ValueError(f"platform must be one of {', '.join(PLATFORMS)}, got {platform!r}")
    for what, ident in (("switch", s.switch.name), ("host", s.host.name)):
        if not _IDENT.match(ident):
            raise ValueError(f"{what} model name {ident!r} is not a valid inventory key (letters, digits, _.-)")
    if s.tiers == 3 and s.planes > 64:
        raise ValueError(f"{s.planes} super-spine planes exceed the inventory's 64")
    sw, h = s.switch, s.host
    speed = format_speed(s.link_speed_gbps)

    # port layout: the default (host ports in the lower half, uplinks in the upper half) unless the rail switch
    # needs more than half its ports for hosts or uplinks; then a '-leaf' model with explicit blocks
    half_phys = sw.ports // 2
    leaf_model = sw.name
    base_model = {"ports": sw.ports, "speed": format_speed(sw.speed_gbps)}
    if sw.breakouts:
        base_model["breakouts"] = _FlowList(f"{n}x{format_speed(v)}" for n, v in sw.breakouts)
    if sw.buffers:
        base_model["buffers"] = _Flow(sw.buffers)
    if sw.asic:
        base_model["asic"] = sw.asic
    switch_models: dict = {sw.name: _Flow(base_model)}
    host_ports = _ceil_div(s.leaf_downlinks, s.lanes)
    up_ports = _ceil_div(s.leaf_uplinks, s.lanes)
    if host_ports > half_phys or up_ports > sw.ports - half_phys:
        leaf_model = f"{sw.name}-leaf"[:64]
        switch_models[leaf_model] = {**base_model, "port_blocks": _Flow(
            rails=_FlowList([f"1-{host_ports}"]), uplinks=f"{host_ports + 1}-{sw.ports}")}

    host_model = _Flow({"gpus": h.gpus, "nics": h.nics, "nic_speed": format_speed(h.nic_speed_gbps)})
    if h.nics < h.gpus:
        host_model["gpu_to_nic"] = _FlowList(g * h.nics // h.gpus for g in range(h.gpus))

    # limits: this design's geometry rounded up to powers of two (room to grow a pod without renumbering)
    pods = s.pods
    limits = {
        "pods": _pow2(pods, 4096),
        "segments_per_pod": _pow2(s.segments_per_pod, 4096),
        "rail_switches_per_segment": _pow2(s.rails, 256),
        "spines_per_pod": _pow2(s.spines_per_pod, 1024),
        "super_spines": _pow2(max(s.super_spines, 1), 1024),
        "uplinks_per_rail_switch": _pow2(s.leaf_uplinks, 1024),
        "uplinks_per_spine": _pow2(max(s.spine_uplinks, 1), 1024),
    }
    top = s.hosts_per_segment
    prefix_len = 24 if top <= 253 else length_for(top + 3)
    block = length_for(s.rails * prefix_size(prefix_len))
    limits["segment_rail_block"] = block
    L = limits
    slots = L["super_spines"] + L["pods"] * L["spines_per_pod"] + \
        L["pods"] * L["segments_per_pod"] * L["rail_switches_per_segment"]
    links = 2 * (L["pods"] * L["segments_per_pod"] * L["rail_switches_per_segment"] * L["uplinks_per_rail_switch"]
                 + L["pods"] * L["spines_per_pod"] * L["uplinks_per_spine"])
    pools = _pools({"loopbacks": slots, "fabric_links": links, "management": 16 + slots + 1,
                    "rail_subnets": L["pods"] * L["segments_per_pod"] * prefix_size(block)})

    spines: dict = {"count": s.spines_per_pod, "model": sw.name, "link_speed": speed,
                    "links_per_rail_switch": s.links_per_spine, "ports_per_segment": s.rails * s.links_per_spine}
    if s.tiers == 3:
        spines["links_per_super_spine"] = s.links_per_super_spine
    doc: dict = {
        "fabric": _Flow(name=name, platform=platform),
        "routing": {"ecmp": _Flow(mode="flow", width=min(512, max(64, s.leaf_uplinks, s.spine_uplinks)))},
        "pools": {"loopbacks": pools["loopbacks"], "fabric_links": pools["fabric_links"],
                  "rail_subnets": pools["rail_subnets"], "management": _Flow(prefix=pools["management"])},
        "limits": limits,
    }
    if PLATFORMS[platform].replaces_users:  # a full-replace push: the push account must be in it (MGMT001)
        doc["system"] = {"users": {"netops": _Flow(role="network-admin", password=_Flow(vault="netops_password_hash"))},
                         "push_user": "netops"}
    if s.oversubscription != 1:  # declared, or the solver reports the rail tier's ratio as CAP001
        doc["solver"] = {"oversubscription": _Flow(rail=float(s.oversubscription))}
    doc["switch_models"] = switch_models
    doc["host_models"] = {h.name: host_model}
    if s.tiers == 3:
        ss: dict = {"count": s.super_spines, "model": sw.name}
        if s.planes > 1:
            ss["planes"] = s.planes
        ss["ports_per_pod"] = (s.spines_per_pod // s.planes) * s.links_per_super_spine
        doc["super_spines"] = ss
    pod_list = []
    seg_index = 0
    for p, count in enumerate(s.pod_segments, start=1):
        segments = []
        for sid in range(1, count + 1):
            segments.append({"id": sid, "rail_design": "single-rail", "rails": s.rails,
                             "rail_prefix_len": prefix_len, "rail_switch_model": leaf_model,
                             "host_groups": [_Flow(model=h.name, count=s.segment_hosts[seg_index])]})
            seg_index += 1
        pod_list.append({"id": p, "spines": dict(spines), "segments": segments})
    doc["pods"] = pod_list

    ratio = "non-blocking" if s.oversubscription == 1 else f"{s.oversubscription:g}:1 at the rail switches"
    header = [
        f"# railfabric inventory skeleton written by `fabric size`: {s.gpus:,} GPUs = {s.hosts:,} × {h.name},",
        f"# {s.tiers} tiers, {ratio}: {s.rail_switches:,} rail switches, {s.spines:,} spines, "
        f"{s.super_spines:,} super-spines ({sw.name}, radix {s.radix} at {speed}).",
        f"# Cables at {speed}: host {s.host_links:,}, rail switch-spine {s.fabric_links:,}, "
        f"spine-super-spine {s.core_links:,}.",
        "# Pools and limits are sized for this design (limits rounded up to powers of two); changing a limit",
        "# later renumbers on purpose. Review names, pools, platform and QoS before rendering.",
        "",
    ]
    return "\n".join(header) + _dump(doc)


__all__ = ["HostSpec", "Presets", "Sizing", "SwitchSpec", "format_text", "host_preset", "inventory_skeleton",
           "presets", "size_fabric", "switch_preset"]
