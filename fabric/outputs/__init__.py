"""The non-config artifacts under generated/: pure functions from the model to {relative path: text}.

Nothing here writes files. Paths are relative to generated/; the rendered device configs themselves live at
configs/<hostname>/<file> (written elsewhere) and are only referenced here (by the Ansible host variables).
Every text is byte-deterministic: sorted rows, no timestamps, '\\n' line endings.

Each artifact is registered in ARTIFACTS with the inputs it reads (names of Sources' values) and the modules that
build it; `Artifact.digest` combines them, so fabric/emit.py rebuilds an artifact only when its inputs or its code
changed (the digest is recorded in generated/manifest.json). A new output plugs in by appending an Artifact.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from fabric.allocate import Plan
from fabric.canonical import inventory_digest
from fabric.device import DeviceConfig
from fabric.digest import FABRIC, code_digest, combine, data_digest, model_digests, value_digest
from fabric.hosts import HostsPlan, build_hosts
from fabric.intent import Inventory
from fabric.platforms import PLATFORMS
from fabric.render import TEMPLATES
from fabric.topology import Topology

from .ansible import ansible_files
from .cabling import cabling_csv
from .docs import docs_files
from .expected import expected_files
from .hosts import gpu_inventory, hosts_files
from .ipplan import ipplan_csv
from .railmap import railmap_csv
from .state import state_files

__all__ = ["ARTIFACTS", "Artifact", "Part", "Sources", "ansible_files", "artifact_parts", "artifacts", "cabling_csv",
           "expected_files", "ipplan_csv", "railmap_csv"]


class Sources:
    """What artifacts are built from, each derived value built at most once, and a digest per input name:
    - inventory: the validated inventory and what the pipeline derives from it alone (topology, plan, summary):
      its canonical digest (fabric.canonical) with the pipeline's source;
    - devices: every DeviceConfig (the digests of their models, by hostname);
    - hosts: the host-side plan (fabric.hosts), digested as data;
    - report: the solver's report and summary, digested as data."""

    def __init__(self, inv: Inventory, topo: Topology, plan: Plan, devices: Mapping[str, DeviceConfig],
                 report: dict | None = None, summary: dict | None = None,
                 model_digests: Mapping[str, str] | None = None) -> None:
        self.inv, self.topo, self.plan, self.devices = inv, topo, plan, devices
        self.report, self.summary = report, summary
        self._model_digests = model_digests
        self._digests: dict[str, str] = {}

    @cached_property
    def hosts(self) -> HostsPlan:
        return build_hosts(self.inv, self.topo, self.plan)

    def _digest_inventory(self) -> str:
        return combine([inventory_digest(self.inv), code_digest("fabric.pipeline")])

    def _digest_devices(self) -> str:
        return combine(f"{h}={d}" for h, d in sorted(self.model_digests.items()))

    def _digest_hosts(self) -> str:
        return combine([value_digest(self.hosts), code_digest("fabric.hosts")])

    def _digest_report(self) -> str:
        return value_digest([self.report, self.summary])

    @cached_property
    def model_digests(self) -> Mapping[str, str]:
        if self._model_digests is not None:
            return self._model_digests
        return model_digests(self.devices)

    def digest(self, name: str) -> str:
        """The digest of input `name` (inventory, devices, hosts or report), computed once."""
        if name not in self._digests:
            self._digests[name] = getattr(self, f"_digest_{name}")()
        return self._digests[name]


@dataclass(frozen=True)
class Artifact:
    """One whole-fabric output: `build` returns {path under generated/: text}; `inputs` names what of Sources it
    reads, `code` the railfabric modules that build it (their imports are followed), `data` the files or folders
    it copies or reads verbatim."""
    name: str
    inputs: tuple[str, ...]
    build: Callable[[Sources], Mapping[str, str]]
    code: tuple[str, ...]
    data: tuple[Path, ...] = ()

    def digest(self, src: Sources) -> str:
        return combine([self.name, code_digest(*self.code), data_digest(self.data),
                        *(f"{i}={src.digest(i)}" for i in self.inputs)])


@dataclass(frozen=True)
class Part:
    """One independently cached piece of an artifact: `build()` returns {path under generated/: text} and must read
    nothing that `digest` does not cover. `key` is unique across all artifacts (the manifest's entry name; a whole
    artifact is one part keyed by its name), `artifact` names the artifact it belongs to."""
    key: str
    artifact: str
    digest: str
    build: Callable[[], Mapping[str, str]]


def artifact_parts(src: Sources) -> Iterator[Part]:
    """Every part of every registered artifact, in a fixed order."""
    for art in ARTIFACTS:
        yield Part(art.name, art.name, art.digest(src), lambda art=art: art.build(src))  # type: ignore[misc]


def _report(src: Sources) -> dict[str, str]:
    return {} if src.report is None else {"report.json": json.dumps(src.report, indent=2, sort_keys=True) + "\n"}


def _docs(src: Sources) -> dict[str, str]:
    if src.report is None or src.summary is None:
        return {}
    return docs_files(src.inv, src.topo, src.report, src.summary)  # fabric.md and its pictures


ARTIFACTS: tuple[Artifact, ...] = (
    Artifact("ansible", ("devices", "hosts"), lambda s: ansible_files(s.devices, gpu_inventory(s.hosts)),
             ("fabric.outputs.ansible", "fabric.outputs.hosts"),
             (TEMPLATES / "ansible", *(TEMPLATES / name / "ansible" for name in sorted(PLATFORMS)),
              FABRIC / "outputs" / "ansible_filters.py",
              *(FABRIC / "platforms" / p.ansible_plugin for _n, p in sorted(PLATFORMS.items()) if p.ansible_plugin))),
    Artifact("hosts", ("hosts",), lambda s: hosts_files(s.hosts), ("fabric.outputs.hosts",)),
    Artifact("cabling", ("inventory", "devices"), lambda s: cabling_csv(s.topo, s.devices),
             ("fabric.outputs.cabling",)),
    Artifact("ipplan", ("inventory", "devices"), lambda s: ipplan_csv(s.inv, s.topo, s.plan, s.devices),
             ("fabric.outputs.ipplan",)),
    Artifact("railmap", ("inventory", "devices"), lambda s: railmap_csv(s.inv, s.topo, s.plan, s.devices),
             ("fabric.outputs.railmap",)),
    Artifact("expected", ("devices",), lambda s: expected_files(s.devices), ("fabric.outputs.expected",)),
    # per-device state and ANTA catalogs: a rail switch's routes depend on its pod's other switches, so all devices
    Artifact("state", ("devices",), lambda s: state_files(s.devices), ("fabric.outputs.state", "fabric.outputs.anta")),
    Artifact("report", ("report",), _report, ("fabric.outputs",)),
    Artifact("docs", ("inventory", "report"), _docs, ("fabric.outputs.docs",)),
)


def artifacts(inv: Inventory, topo: Topology, plan: Plan, devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    """Every artifact but the report's (report.json, docs/): relative path under generated/ → text, sorted."""
    src = Sources(inv, topo, plan, devices)
    out: dict[str, str] = {}
    for art in ARTIFACTS:
        part = art.build(src)
        clash = out.keys() & part.keys()
        if clash:
            raise ValueError(f"two artifacts claim {sorted(clash)}")
        out.update(part)
    return dict(sorted(out.items()))

