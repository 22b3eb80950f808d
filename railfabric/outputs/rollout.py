"""The rollout order: which switches may be changed together (a wave), and in which order, from the device model.

The playbook changes one switch at a time by default, in `order`. With `-e rollout_batch=N` it changes up to N
switches at once, but a batch never spans two waves, and no two switches of one wave conflict. Two switches
conflict when changing both at once could cut more than one path of the same kind:

- they are cabled to each other (each one's verification needs the other's sessions up; the link would flap from
  both ends at once);
- they are rail switches of the same rail group of a segment (the same pod and segment, a rail in common), or, our
  stricter call, any two rail switches of one segment: a segment's GPUs then lose at most one rail at a time, which
  PXN absorbs by moving that rail's traffic over NVLink to the other rails;
- they are spines of one pod (each rail switch of the pod would lose two of its ECMP uplinks);
- they are super-spines with a spine in common (the same plane; without planes every super-spine of the fabric):
  each spine would lose two of its uplinks.

Order: rail switches first (one switch's blast radius is one rail of one segment), then spines, then super-spines,
each in natural name order. Wave 1 is the first switch alone (a canary: a systematic error stops the rollout after
one switch, whatever the batch size); then each switch goes into the first wave of its role it does not conflict
with (a role's waves come after the previous role's, so the order holds with any batch size).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import cast

from railfabric.device import DeviceConfig

from ._common import natural_key

ROLE_ORDER = {"rail": 0, "spine": 1, "super-spine": 2}


@dataclass(frozen=True, slots=True)
class RolloutPlan:
    order: tuple[str, ...]  # every switch, wave after wave
    waves: tuple[tuple[str, ...], ...]

    @property
    def wave_of(self) -> dict[str, int]:
        """Each switch's wave (1-based), made afresh on every read: keep it rather than read it per switch."""
        return {name: i for i, wave in enumerate(self.waves, 1) for name in wave}

    @property
    def sizes(self) -> list[int]:
        return [len(w) for w in self.waves]


@dataclass(frozen=True, slots=True)
class RolloutSwitch:
    """What the rollout order reads of a switch: its identity, role, place and the switches cabled to it."""
    hostname: str
    role: str
    pod: int | None
    segment: int | None
    rails: tuple[int, ...]
    peers: tuple[str, ...]  # the switches cabled to it, sorted


def switch_peers(ports: Iterable[tuple], switches: Mapping[str, object]) -> tuple[str, ...]:
    """The switches among the peers of these interfaces (views.Port: the peer is the fifth field), sorted."""
    return tuple(sorted({p[4] for p in ports} & switches.keys()))


def rollout_view(devices: Mapping[str, DeviceConfig]) -> dict[str, RolloutSwitch]:
    """Every switch's RolloutSwitch (hosts never order the rollout)."""
    return {name: RolloutSwitch(dev.hostname, dev.role, dev.pod, dev.segment, dev.rails,
                                tuple(sorted({i.peer for i in dev.interfaces} & devices.keys())))
            for name, dev in devices.items()}


def _view(devices: Mapping[str, DeviceConfig] | Mapping[str, RolloutSwitch]) -> Mapping[str, RolloutSwitch]:
    if all(isinstance(d, RolloutSwitch) for d in devices.values()):
        return cast(Mapping[str, RolloutSwitch], devices)
    return rollout_view(cast(Mapping[str, DeviceConfig], devices))


def neighbours(devices: Mapping[str, DeviceConfig] | Mapping[str, RolloutSwitch]) -> dict[str, set[str]]:
    """Switch → the switches cabled to it (hosts are not switches)."""
    view = _view(devices)
    out: dict[str, set[str]] = {name: set() for name in view}
    for name, sw in view.items():
        for peer in sw.peers:
            if peer in view and peer != name:
                out[name].add(peer)
                out[peer].add(name)
    return out


def conflicts(a: DeviceConfig | RolloutSwitch, b: DeviceConfig | RolloutSwitch, near: Mapping[str, set[str]]) -> str:
    """Why `a` and `b` must not be changed at once, or ""."""
    if b.hostname in near[a.hostname]:
        return "cabled to each other"
    if a.role == b.role == "rail" and (a.pod, a.segment) == (b.pod, b.segment):
        return "same rail group of a segment" if set(a.rails) & set(b.rails) else "rail switches of one segment"
    if a.role == b.role == "spine" and a.pod == b.pod:
        return "spines of one pod"
    if a.role == b.role == "super-spine" and near[a.hostname] & near[b.hostname]:
        return "super-spines of one plane"
    return ""


def _keys(dev: RolloutSwitch, near: Mapping[str, set[str]]) -> set[tuple]:
    """What a switch holds while it changes: two switches with a key in common conflict (see `conflicts`)."""
    if dev.role == "rail":
        return {("segment", dev.pod, dev.segment)}
    if dev.role == "spine":
        return {("pod spines", dev.pod)}
    if dev.role == "super-spine":
        return {("spine uplinks", spine) for spine in near[dev.hostname]}
    return set()


def rollout_plan(devices: Mapping[str, DeviceConfig] | Mapping[str, RolloutSwitch]) -> RolloutPlan:
    """Waves by first fit: each switch joins the first wave of its role holding none of its keys and none of its
    neighbours, else opens a new one. Reads only each switch's RolloutSwitch. The waves a switch may not join are
    looked up (those holding one of its keys, those of its neighbours placed so far) rather than every wave tried."""
    view = _view(devices)
    names = sorted(view, key=lambda n: (ROLE_ORDER.get(view[n].role, 3), natural_key(n)))
    near = neighbours(view)
    waves: list[list[str]] = []
    wave_of: dict[str, int] = {}  # switch → its wave's index
    key_waves: dict[tuple, set[int]] = defaultdict(set)  # a key → the waves holding it
    tier_start, tier = 1, None  # a role's switches only join waves opened for that role (never the canary's)
    for name in names:
        if view[name].role != tier:
            tier, tier_start = view[name].role, max(1, len(waves))
        keys = _keys(view[name], near)
        blocked = {wave_of[n] for n in near[name] if n in wave_of}
        for key in keys:
            blocked |= key_waves[key]
        at = tier_start
        while at in blocked:
            at += 1
        if at < len(waves):
            waves[at].append(name)
        else:
            at = len(waves)
            waves.append([name])
        wave_of[name] = at
        for key in keys:
            key_waves[key].add(at)
    ordered = tuple(tuple(w) for w in waves)
    return RolloutPlan(tuple(n for w in ordered for n in w), ordered)
