"""The work of a render: device configs and artifact parts, made by this process and forked helpers together.

Two kinds of job: a chunk of devices renders their configs (railfabric.configs.render.render_device), a chunk of
artifact parts builds their files (railfabric.outputs.Part.build). With a stage (railfabric.emit.staging) whoever makes
a file writes it there and keeps only where it is (Staged), so the texts of a whole fabric never gather in one process;
without one the text is kept. The jobs are shared through a crew (railfabric.emit.crew): with N workers, N - 1 forked
helpers and this process take them as they are free. This process takes the whole-fabric files first (they read the
whole fabric, which a forked helper would have to copy page by page), the helpers the per-device jobs. For a fabric of
fewer than SERIAL_BELOW switches (its whole-fabric files are small), with one worker or where fork is unavailable,
everything runs in this process. The output does not depend on the worker count or on who ran what.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from railfabric.configs.render import render_device
from railfabric.core.cpus import available_cpus, can_fork
from railfabric.device import DeviceConfig
from railfabric.emit.crew import Crew
from railfabric.emit.staging import Stage, Staged
from railfabric.outputs import Part

T = TypeVar("T")
Rendered = dict[str, "str | Staged"]  # file name (or path, for parts) → its text, or where it was written

SERIAL_BELOW = 64  # a fabric of fewer switches than this renders in this process: a helper costs more than it saves
PART_CHUNK = 64  # parts of a many-part artifact (one per device or host group) per job
# the crew's lists, and who takes which first: this process the whole-fabric parts, the helpers the rest
DEVICES, WHOLE, MANY = "devices", "whole-fabric parts", "per-device parts"
HERE_ORDER = (WHOLE, MANY, DEVICES)
HELPER_ORDER = (MANY, DEVICES, WHOLE)


def bounded_workers(requested: int, devices: int) -> int:
    """Render processes actually used: at least 1, at most the CPUs available and the devices to render."""
    return max(1, min(requested, available_cpus(), devices))


def _put(stage: Stage | None, path: str, text: str) -> str | Staged:
    return stage.put(path, text.encode()) if stage is not None else text


def _device_job(devices: Sequence[DeviceConfig], stage: Stage | None, lo: int, hi: int) -> list[tuple[str, Rendered]]:
    return [(d.hostname, {name: _put(stage, f"configs/{d.hostname}/{name}", text)
                          for name, text in render_device(d).items()}) for d in devices[lo:hi]]


def _part_job(parts: Sequence[Part], stage: Stage | None, lo: int, hi: int) -> list[tuple[int, Rendered]]:
    return [(i, {p: _put(stage, p, t) for p, t in parts[i].build().items()}) for i in range(lo, hi)]


@dataclass
class Produced:
    """What the workers made: each device's files by hostname, each part's files (aligned with the parts given)."""
    configs: dict[str, Rendered] = field(default_factory=dict)
    parts: list[Rendered] = field(default_factory=list)


def _device_chunks(devices: int, workers: int) -> list[tuple[int, int]]:
    """The device jobs, as index ranges: about an eighth of a worker's share each (at least 16 devices), so the
    workers stay busy to the end."""
    step = max(16, devices // (workers * 8))
    return [(lo, min(lo + step, devices)) for lo in range(0, devices, step)]


def _part_chunks(parts: Sequence[Part]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(the whole-fabric jobs: each part of a few-part artifact alone, the long ones; the per-device jobs:
    consecutive parts of a many-part artifact, PART_CHUNK at a time), as index ranges into `parts`."""
    per_artifact: dict[str, int] = {}
    for p in parts:
        per_artifact[p.artifact] = per_artifact.get(p.artifact, 0) + 1
    whole = [(i, i + 1) for i, p in enumerate(parts) if per_artifact[p.artifact] < PART_CHUNK]
    many = [i for i, p in enumerate(parts) if per_artifact[p.artifact] >= PART_CHUNK]
    chunks: list[tuple[int, int]] = []
    start = 0
    while start < len(many):  # consecutive indices of many-part artifacts, PART_CHUNK at a time
        end = start
        while end < len(many) and end - start < PART_CHUNK and many[end] == many[start] + (end - start):
            end += 1
        chunks.append((many[start], many[end - 1] + 1))
        start = end
    return whole, chunks


def _add_devices(crew: Crew, devices: Sequence[DeviceConfig], stage: Stage | None, workers: int,
                 done: Callable[[int], object] | None) -> None:
    chunks = _device_chunks(len(devices), workers)
    crew.add(DEVICES, len(chunks), lambda i: _device_job(devices, stage, *chunks[i]),
             None if done is None else lambda i: done(chunks[i][1] - chunks[i][0]))


def _share(parts: Sequence[Part], whole: list[tuple[int, int]], many: list[tuple[int, int]]) -> None:
    """Compute now the shared values (Part.shares) that parts of both lists read: the helpers then inherit them
    instead of each process computing its own (the fabric index of the state files and expected/, 0.6 s at 131K)."""
    def needed(chunks: list[tuple[int, int]]) -> dict[int, Callable[[], object]]:
        return {id(s): s for lo, hi in chunks for i in range(lo, hi) for s in parts[i].shares}
    there = needed(many)
    for key, value in needed(whole).items():
        if key in there:
            value()


def _add_parts(crew: Crew, parts: Sequence[Part], stage: Stage | None, helpers: int) -> None:
    whole, many = _part_chunks(parts)
    if helpers:
        _share(parts, whole, many)
    crew.add(WHOLE, len(whole), lambda i: _part_job(parts, stage, *whole[i]))
    crew.add(MANY, len(many), lambda i: _part_job(parts, stage, *many[i]))


def _gather(crew: Crew, parts: int) -> Produced:
    made = Produced(parts=[{} for _ in range(parts)])
    for result in crew.results(DEVICES).values():
        made.configs.update(result)
    for name in (WHOLE, MANY):
        for result in crew.results(name).values():
            for i, files in result:
                made.parts[i] = files
    return made


def produce(devices: list[DeviceConfig], parts: Sequence[Part] = (), workers: int = 1,
            done: Callable[[int], object] | None = None, stage: Stage | None = None,
            meanwhile: Callable[[], T] | None = None, fabric: int | None = None,
            early: Early | None = None) -> tuple[Produced, T | None]:
    """Render `devices` and build `parts`, with forked helpers when it pays; `meanwhile()` runs in this process
    once the helpers have started, before it takes jobs itself. `fabric`: how many switches the whole fabric has
    (default: the devices given), which says how heavy its whole-fabric parts are: one changed switch of a large
    fabric still rebuilds its IP plan. `early`: the configs of every device, started already (Early); `devices`
    must then be empty. `done(n)`: n more devices rendered (from a reader thread when a helper rendered them)."""
    if early is not None and devices:
        raise ValueError("devices are rendered early already")
    size = len(devices) if fabric is None else fabric
    helpers = bounded_workers(workers, len(devices) + len(parts)) - 1
    if size < SERIAL_BELOW or len(devices) + len(parts) < 2 or not can_fork():
        helpers = 0
    started = early.crew if early is not None else None
    crew = started or Crew()
    try:
        if started is None:
            _add_devices(crew, devices, stage, helpers + 1, done)
        _add_parts(crew, parts, stage, helpers)
        crew.hire(helpers, HELPER_ORDER)
        extra = meanwhile() if meanwhile else None
        crew.work(HERE_ORDER)
        return _gather(crew, len(parts)), extra
    finally:
        crew.close()
        if early is not None:
            early.crew = None


class Early:
    """The device configs of a render that keeps no device (no earlier render to reuse: a cold one), started by
    forked helpers as soon as the device models exist, while this process digests the models and the artifact
    parts (which decide nothing then: every device is rendered). `start` says whether it started (not for a small
    fabric, one worker or where fork is unavailable: the configs are then rendered with the parts, as usual);
    `produce(..., early=)` adds the parts to its crew and gathers everything; `close` stops the helpers when the
    run ends otherwise (the checks found errors)."""

    def __init__(self, workers: int, stage: Stage | None) -> None:
        self.workers, self.stage = workers, stage
        self.crew: Crew | None = None
        self._lock = threading.Lock()
        self._finished = 0
        self._done: Callable[[int], object] | None = None

    @property
    def started(self) -> bool:
        return self.crew is not None

    def start(self, devices: list[DeviceConfig]) -> bool:
        helpers = bounded_workers(self.workers, len(devices)) - 1
        if helpers < 1 or len(devices) < SERIAL_BELOW or not can_fork():
            return False
        crew = Crew()
        _add_devices(crew, devices, self.stage, helpers + 1, self._finish)
        if crew.hire(helpers, (DEVICES,)) == 0:  # no process to spare: render with the parts instead
            crew.close()
            return False
        self.crew = crew
        return True

    def _finish(self, devices: int) -> None:  # from the crew's reader thread, or this one
        with self._lock:
            self._finished += devices
            done = self._done
        if done is not None:
            done(devices)

    def report_to(self, done: Callable[[int], object]) -> None:
        """Tell `done` the devices rendered so far, and each chunk from now on."""
        with self._lock:
            self._done, finished = done, self._finished
        if finished:
            done(finished)

    def close(self) -> None:
        if self.crew is not None:
            crew, self.crew = self.crew, None
            crew.close()


def render_all(devices: list[DeviceConfig], workers: int = 1, meanwhile: Callable[[], T] | None = None,
               done: Callable[[int], object] | None = None, stage: Stage | None = None) \
        -> tuple[dict[str, Rendered], T | None]:
    """hostname → {file name: text, or Staged with a stage}, and the result of `meanwhile()` (see `produce`)."""
    made, extra = produce(devices, (), workers, done, stage, meanwhile)
    return made.configs, extra
