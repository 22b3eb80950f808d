"""The emit stage: everything generated/ should hold, built from the pipeline's result.

`build_tree` renders the device configs and builds the artifacts, reusing what an earlier render in the output
directory still holds when its digests match (railfabric.emit.reuse), and records it all in the manifest; `build_files`
is the same as bytes in memory (a cold render). Writing is railfabric/emit/write.py's (`write_tree`, re-exported here),
the comparison railfabric/emit/compare.py's (`compare`, `unified`).
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from railfabric import __version__
from railfabric.configs.render import RenderError
from railfabric.core.formats import format_text
from railfabric.core.progress import SILENT, Progress
from railfabric.device import DeviceConfig, build_devices
from railfabric.emit import manifest
from railfabric.emit.compare import Content, Diff, compare, payload, unified
from railfabric.emit.outdir import MANIFEST, OutputRefused
from railfabric.emit.reuse import Kept, Reuse, code_sha256
from railfabric.emit.staging import Stage, Staged
from railfabric.emit.workers import Early, bounded_workers, produce, render_all
from railfabric.emit.write import write_tree
from railfabric.inventory.canonical import inventory_digest
from railfabric.outputs import ARTIFACTS, Part, Sources, artifact_parts
from railfabric.outputs.digest import combine, model_digests, platform_digest
from railfabric.pipeline import Result
from railfabric.platforms import PLATFORMS

T = TypeVar("T")

# --------------------------------------------------------------------------- building (in memory)

def input_digest(res: Result) -> str:
    """Hash of the inventory's meaning (see railfabric.inventory.canonical): reordering YAML keys, or a list whose order
    has no meaning (pods, segments, ...), does not change it."""
    assert res.inventory is not None
    return inventory_digest(res.inventory)


@dataclass
class Tree:
    """What generated/ should hold: path → bytes (rendered now) or Kept (reused from the output directory), and
    which devices and artifacts were produced afresh."""
    files: dict[str, Content]
    rendered: tuple[str, ...] = ()
    built: tuple[str, ...] = ()


def build_files(res: Result, workers: int = 1, progress: Progress = SILENT) -> dict[str, bytes]:
    """Everything generated/ should hold, as bytes, keyed by POSIX path relative to generated/ (a cold render)."""
    tree = build_tree(res, workers, progress)
    return {p: payload(c) for p, c in tree.files.items()}


def build_tree(res: Result, workers: int = 1, progress: Progress = SILENT, cache: Path | None = None,
               reuse: Reuse | None = None, stage: Stage | None = None, models: Models | None = None,
               keep: list[object] | None = None) -> Tree:
    """Everything generated/ should hold. With `cache` (an earlier render's output directory) or `reuse` (one
    already opened, see railfabric.emit.reuse), devices and artifact parts whose digests match its manifest and whose
    files there are intact are not rendered again. With `stage` (railfabric.emit.staging) every file produced afresh is
    written there as it is made and stands in the tree as Staged, not as bytes. `models`: the device models already
    built (build_models, e.g. while the fabric was being checked). Each step is told to `progress`. The
    cyclic GC is paused meanwhile (millions of short-lived acyclic objects; it only costs time). `keep`: a list the
    views, parts and rendered results are appended to instead of being freed on return (for a process that ends
    without freeing anything: railfabric.cli.run)."""
    enabled = gc.isenabled()
    gc.disable()
    own = reuse is None
    opened = Reuse(cache) if reuse is None else reuse
    try:
        return _build_tree(res, workers, progress, opened, stage, models, keep)
    finally:
        if own:
            opened.close()
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class Models:
    """Every switch's device model (by hostname, in topology order) and its digest (railfabric.outputs.digest_model)."""
    devices: dict[str, DeviceConfig]
    digests: dict[str, str]
    early: Early | None = None  # their configs, being rendered already (a render that keeps no device)


def build_models(res: Result, progress: Progress = SILENT, early: Early | None = None) -> Models:
    """The device models of an allocated fabric and their digests (the first step of a render; the CLI runs it while
    the pipeline's checks run in a second process: railfabric.pipeline.run_with). With `early` (only for a render that
    will keep no device: nothing earlier to reuse) the configs start rendering in its workers as soon as the models
    exist, before they are digested; the caller closes it if the run ends otherwise."""
    assert res.inventory is not None and res.topology is not None
    if res.inventory.is_infiniband:  # no switch configs: the subnet manager's files (_ib_tree)
        return Models({}, {})
    assert res.plan is not None
    enabled = gc.isenabled()
    gc.disable()
    try:
        progress.stage("building the switches' device models", total=len(res.topology.switches))
        devices = build_devices(res.inventory, res.topology, res.plan, done=progress.advance)
        started = early is not None and early.start(list(devices.values()))
        return Models(devices, model_digests(devices), early if started else None)
    finally:
        if enabled:
            gc.enable()


def _reusable(reuse: Reuse, name: str, digest: str, entries: dict[str, manifest.Entry],
              platform: str = "") -> dict[str, Kept] | None:
    """The files of `name` kept from the earlier render when its digest matches the manifest and they are intact,
    else None."""
    old = entries.get(name)
    if old is None or old.digest != digest or old.platform != platform:
        return None
    return reuse.kept(old.files)


def _build_tree(res: Result, workers: int, progress: Progress, reuse: Reuse, stage: Stage | None,
                models: Models | None, keep: list[object] | None) -> Tree:
    if res.inventory is not None and res.inventory.is_infiniband:
        return _ib_tree(res, progress)
    assert res.inventory is not None and res.topology is not None and res.plan is not None
    inv, topo, plan = res.inventory, res.topology, res.plan
    previous = reuse.previous
    have = models if models is not None else build_models(res, progress)
    devices, digests = have.devices, have.digests
    platforms = {p: platform_digest(p) for p in sorted({d.platform for d in devices.values()})}
    files: dict[str, Content] = {}
    device_entries: dict[str, manifest.Entry] = {}
    todo: list[DeviceConfig] = []
    for host, dev in devices.items():
        digest = combine([digests[host], platforms[dev.platform]])
        kept = _reusable(reuse, host, digest, previous.devices, dev.platform)
        if kept is None:
            todo.append(dev)
        else:
            files.update(kept)
        device_entries[host] = manifest.Entry(digest, tuple(sorted(f"configs/{host}/{spec.name}" for spec in
                                                                   PLATFORMS[dev.platform].files)), dev.platform)
    unchanged = len(devices) - len(todo)
    src = Sources(inv, topo, plan, devices, res.report, res.summary() if res.report is not None else None, digests)
    arts, art_entries, parts = _reused_parts(src, reuse)
    progress.stage("rendering the switch configs (and the fabric-wide files meanwhile)"
                   + (f"; {unchanged:,} unchanged switches kept" if unchanged else ""), total=len(todo))
    if have.early is not None:  # every device is being rendered already (started before anything was digested)
        if len(todo) != len(devices):
            raise AssertionError("configs rendered early for a render that keeps devices")
        have.early.report_to(progress.advance)
        made, _ = produce([], parts, workers, stage=stage, fabric=len(devices), early=have.early)
    else:
        made, _ = produce(todo, parts, workers, done=progress.advance, stage=stage, fabric=len(devices))
    if keep is not None:
        keep.extend((have, src, parts, made))
    for part, part_files in zip(parts, made.parts, strict=True):
        new = {p: m if isinstance(m, Staged) else m.encode() for p, m in part_files.items()}
        _claim(arts, new)
        art_entries[part.key] = manifest.Entry(part.digest, tuple(sorted(new)))
    built = tuple(dict.fromkeys(p.artifact for p in parts))
    reused = [a.name for a in ARTIFACTS if a.name not in built]
    progress.stage(f"assembling {sum(len(v) for v in made.configs.values()):,} config files and the manifest"
                   + (f" (fabric-wide files kept: {', '.join(reused)})" if reused else ""))
    for host in sorted(made.configs):
        for name, made_file in sorted(made.configs[host].items()):
            files[f"configs/{host}/{name}"] = made_file if isinstance(made_file, Staged) else made_file.encode()
    files.update(arts)
    shas = {p: hashlib.sha256(c).hexdigest() if isinstance(c, bytes) else c.sha256 for p, c in files.items()}
    files[MANIFEST] = manifest.document(_version_fields(res), shas, platforms, device_entries,
                                        dict(sorted(art_entries.items())))
    return Tree(dict(sorted(files.items())), tuple(sorted(made.configs)), built)


def _ib_tree(res: Result, progress: Progress) -> Tree:
    """An InfiniBand fabric's files (railfabric.outputs.infiniband: IB_OUTPUTS) and the manifest: no device entries;
    one artifact entry per output, its digest that of its files (they are small: always built afresh)."""
    from railfabric.outputs.infiniband import IbSources, ib_files
    from railfabric.topology.infiniband import ib_fabric

    assert res.inventory is not None and res.topology is not None
    progress.stage("building the subnet manager's files")
    made = ib_files(ib_fabric(res.inventory, res.topology), IbSources(res.topology, res.report))
    files: dict[str, Content] = {}
    entries: dict[str, manifest.Entry] = {}
    for name, texts in made.items():
        encoded = {p: t.encode() for p, t in sorted(texts.items())}
        digest = hashlib.sha256(b"".join(p.encode() + b"\0" + c for p, c in encoded.items())).hexdigest()
        entries[f"infiniband-{name}"] = manifest.Entry(digest, tuple(encoded))
        files.update(encoded)
    shas = {p: hashlib.sha256(c).hexdigest() for p, c in files.items() if isinstance(c, bytes)}
    files[MANIFEST] = manifest.document(_version_fields(res), shas, {}, {}, dict(sorted(entries.items())))
    built = tuple(sorted(entries))
    return Tree(dict(sorted(files.items())), (), built)


def _version_fields(res: Result) -> dict[str, object]:
    """The manifest's record of what this render was made from; with findings (warnings, notes) also their text as
    printed and the digest of the inventory files they were found in, so that a later run over the same bytes with
    the same railfabric can show them without validating again (railfabric.emit.reuse)."""
    fields: dict[str, object] = {"tool": "railfabric", "version": __version__, "input_sha256": input_digest(res),
                                 "code_sha256": code_sha256(), "findings": len(res.findings)}
    if res.findings:
        fields["findings_text"] = format_text(res.findings)
        fields["source_sha256"] = res.loaded.source_sha256
    return fields


def _claim(have: dict[str, Content], new: Mapping[str, Content]) -> None:
    clash = have.keys() & new.keys()
    if clash:
        raise ValueError(f"two artifacts claim {sorted(clash)}")
    have.update(new)


def _reused_parts(src: Sources, reuse: Reuse) -> tuple[dict[str, Content], dict[str, manifest.Entry], list[Part]]:
    """Every part of every registered artifact (railfabric.outputs.artifact_parts) whose digest matches the manifest's
    and whose files are intact is kept: (their files, their manifest entries by part key, the parts to build)."""
    kept_files: dict[str, Content] = {}
    entries: dict[str, manifest.Entry] = {}
    todo: list[Part] = []
    keys: set[str] = set()
    for part in artifact_parts(src):
        if part.key in keys:
            raise ValueError(f"two artifact parts are keyed {part.key!r}")
        keys.add(part.key)
        kept = _reusable(reuse, part.key, part.digest, reuse.previous.artifacts)
        if kept is None:
            todo.append(part)
            continue
        _claim(kept_files, kept)
        entries[part.key] = manifest.Entry(part.digest, tuple(sorted(kept)))
    return kept_files, entries, todo


__all__ = ["Content", "Diff", "Kept", "OutputRefused", "RenderError", "Tree", "bounded_workers", "build_files",
           "build_tree", "compare", "payload", "render_all", "unified", "write_tree"]
