"""The forked workers of a render: device configs and artifact parts, produced in parallel.

Two kinds of job: a chunk of devices renders their configs (fabric.render.render_device), a chunk of artifact parts
builds their files (fabric.outputs.Part.build). With a stage (fabric.staging) each worker writes what it produces
there itself and sends back only where it is (Staged), so the texts of a whole fabric never gather in one process;
without one it sends back the text. The work is inherited by fork (module globals, set before the pool starts),
never pickled. For a fabric of fewer than SERIAL_BELOW switches (its whole-fabric files are small), for a single job,
with one worker or where fork is unavailable, everything runs in this process.
The output does not depend on the worker count or on which worker ran what.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

from fabric.cpus import available_cpus, can_fork
from fabric.device import DeviceConfig
from fabric.outputs import Part
from fabric.render import render_device
from fabric.staging import Stage, Staged

T = TypeVar("T")
Rendered = dict[str, "str | Staged"]  # file name (or path, for parts) → its text, or where it was written

_DEVICES: list[DeviceConfig] = []
_PARTS: list[Part] = []
_STAGE: list[Stage] = []  # where workers write (empty: they return the text)
SERIAL_BELOW = 64  # a fabric of fewer switches than this renders in this process: a pool costs more than it saves
PART_CHUNK = 64  # parts of a many-part artifact (one per device or host group) per job


def bounded_workers(requested: int, devices: int) -> int:
    """Render processes actually used: at least 1, at most the CPUs available and the devices to render."""
    return max(1, min(requested, available_cpus(), devices))


def _put(path: str, text: str) -> str | Staged:
    return _STAGE[0].put(path, text.encode()) if _STAGE else text


def _render_one(device: DeviceConfig) -> Rendered:
    return {name: _put(f"configs/{device.hostname}/{name}", text) for name, text in render_device(device).items()}


def _device_job(lo: int, hi: int) -> list[tuple[str, Rendered]]:
    return [(d.hostname, _render_one(d)) for d in _DEVICES[lo:hi]]


def _part_job(lo: int, hi: int) -> list[tuple[int, Rendered]]:
    return [(i, {p: _put(p, t) for p, t in _PARTS[i].build().items()}) for i in range(lo, hi)]


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


def _jobs(devices: int, parts: Sequence[Part], workers: int) -> list[tuple[str, int, int]]:
    """Part jobs of few-part artifacts first (whole-fabric files: the long ones), then the device chunks, then the
    parts of many-part artifacts in chunks: big jobs first keeps both workers busy to the end."""
    per_artifact: dict[str, int] = {}
    for p in parts:
        per_artifact[p.artifact] = per_artifact.get(p.artifact, 0) + 1
    whole = [("part", i, i + 1) for i, p in enumerate(parts) if per_artifact[p.artifact] < PART_CHUNK]
    many = [i for i, p in enumerate(parts) if per_artifact[p.artifact] >= PART_CHUNK]
    jobs = whole + [("device", lo, hi) for lo, hi in _device_chunks(devices, workers)]
    start = 0
    while start < len(many):  # consecutive indices of many-part artifacts, PART_CHUNK at a time
        end = start
        while end < len(many) and end - start < PART_CHUNK and many[end] == many[start] + (end - start):
            end += 1
        jobs.append(("part", many[start], many[end - 1] + 1))
        start = end
    return jobs


def _job_done(done: Callable[[int], object], devices: int, _future: Future[object]) -> None:
    done(devices)


def produce(devices: list[DeviceConfig], parts: Sequence[Part] = (), workers: int = 1,
            done: Callable[[int], object] | None = None, stage: Stage | None = None,
            meanwhile: Callable[[], T] | None = None, fabric: int | None = None) -> tuple[Produced, T | None]:
    """Render `devices` and build `parts`, in forked workers when it pays; `meanwhile()` runs in this process
    while they work. `fabric`: how many switches the whole fabric has (default: the devices given), which says
    how heavy its whole-fabric parts are: one changed switch of a large fabric still rebuilds its IP plan.
    `done(n)`: n more devices rendered (from a pool thread when workers render)."""
    global _DEVICES, _PARTS
    workers = bounded_workers(workers, len(devices) + len(parts))
    _STAGE[:] = [stage] if stage is not None else []
    try:
        size = len(devices) if fabric is None else fabric
        if workers <= 1 or size < SERIAL_BELOW or len(devices) + len(parts) < 2 or not can_fork():
            made = Produced()
            for d in devices:
                made.configs[d.hostname] = _render_one(d)
                if done is not None:
                    done(1)
            extra = meanwhile() if meanwhile else None
            made.parts = [{p: _put(p, t) for p, t in part.build().items()} for part in parts]
            return made, extra
        return _forked(devices, parts, workers, done, meanwhile)
    finally:
        _DEVICES, _PARTS = [], []
        _STAGE[:] = []


def _forked(devices: list[DeviceConfig], parts: Sequence[Part], workers: int,
            done: Callable[[int], object] | None, meanwhile: Callable[[], T] | None) -> tuple[Produced, T | None]:
    global _DEVICES, _PARTS
    import multiprocessing

    _DEVICES, _PARTS = devices, list(parts)
    made = Produced(parts=[{} for _ in parts])
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        futures: list[tuple[str, Future[list]]] = []
        for kind, lo, hi in _jobs(len(devices), parts, workers):
            fut: Future[list] = pool.submit(_device_job if kind == "device" else _part_job, lo, hi)
            if kind == "device" and done is not None:
                fut.add_done_callback(partial(_job_done, done, hi - lo))
            futures.append((kind, fut))
        extra = meanwhile() if meanwhile else None
        for kind, fut in futures:
            if kind == "device":
                made.configs.update(fut.result())
            else:
                for i, files in fut.result():
                    made.parts[i] = files
    return made, extra


class Early:
    """The device configs of a render that keeps no device (no earlier render to reuse: a cold one), started in
    forked workers as soon as the device models exist, while this process digests the models and the artifact parts
    (which decide nothing then: every device is rendered). `start` says whether it started (not for a small fabric,
    one worker or where fork is unavailable: the configs are then rendered with the parts, as usual); `collect`
    waits for the configs; `close` stops the workers when the run ends otherwise (the checks found errors)."""

    def __init__(self, workers: int, stage: Stage | None) -> None:
        self.workers, self.stage = workers, stage
        self._pool: ProcessPoolExecutor | None = None
        self._futures: list[Future[list]] = []
        self._lock = threading.Lock()
        self._finished = 0
        self._done: Callable[[int], object] | None = None

    @property
    def started(self) -> bool:
        return self._pool is not None

    def start(self, devices: list[DeviceConfig]) -> bool:
        global _DEVICES
        import multiprocessing

        workers = bounded_workers(self.workers, len(devices))
        if workers <= 1 or len(devices) < SERIAL_BELOW or not can_fork():
            return False
        _DEVICES, _STAGE[:] = devices, [self.stage] if self.stage is not None else []
        try:
            self._pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
            for lo, hi in _device_chunks(len(devices), workers):
                fut: Future[list] = self._pool.submit(_device_job, lo, hi)  # every worker forks here, at once
                fut.add_done_callback(partial(self._finish, hi - lo))
                self._futures.append(fut)
        except OSError:  # no process to spare: render with the parts instead
            self.close()
            return False
        finally:
            _DEVICES, _STAGE[:] = [], []
        return True

    def _finish(self, devices: int, _future: Future[object]) -> None:
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

    def collect(self) -> dict[str, Rendered]:
        configs: dict[str, Rendered] = {}
        try:
            for fut in self._futures:
                configs.update(fut.result())
        finally:
            self.close()
        return configs

    def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            if any(not f.done() for f in self._futures):  # stop the work nobody will collect
                for proc in list((getattr(pool, "_processes", None) or {}).values()):
                    proc.terminate()
            pool.shutdown(wait=True, cancel_futures=True)


def render_all(devices: list[DeviceConfig], workers: int = 1, meanwhile: Callable[[], T] | None = None,
               done: Callable[[int], object] | None = None, stage: Stage | None = None) \
        -> tuple[dict[str, Rendered], T | None]:
    """hostname → {file name: text, or Staged with a stage}, and the result of `meanwhile()` (see `produce`)."""
    made, extra = produce(devices, (), workers, done, stage, meanwhile)
    return made.configs, extra
