"""The non-config artifacts under generated/: pure functions from the model to {relative path: text}.

Nothing here writes files. Paths are relative to generated/; the rendered device configs themselves live at
configs/<hostname>/<file> (written elsewhere) and are only referenced here (by the Ansible host variables).
Every text is byte-deterministic: sorted rows, no timestamps, '\\n' line endings.

Each artifact is registered in ARTIFACTS (railfabric/outputs/parts.py) as a generator of Parts: independently cached
pieces, each with the digest of exactly the values its build function is handed (narrow projections built once per
render by Sources, railfabric/outputs/views.py) and of the code that builds it, so railfabric/emit/build.py rebuilds a
part only when what it shows or its code changed (the digest is recorded in generated/manifest.json). Whole-fabric files
are one part; per-device and per-host-group files (expected state and ANTA catalogs, host files) one part each.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from railfabric.device import DeviceConfig
from railfabric.inventory.intent import Inventory
from railfabric.plan.allocate import Plan
from railfabric.topology import Topology

from .ansible import ansible_files
from .cabling import cabling_csv
from .expected import expected_files
from .ipplan import ipplan_csv
from .part import Once, Part
from .parts import ARTIFACTS, Artifact
from .railmap import railmap_csv
from .sources import Sources

__all__ = ["ARTIFACTS", "Artifact", "Once", "Part", "Sources", "ansible_files", "artifact_parts", "artifacts",
           "cabling_csv", "expected_files", "ipplan_csv", "railmap_csv"]


def artifact_parts(src: Sources) -> Iterator[Part]:
    """Every part of every registered artifact, in a fixed order."""
    for art in ARTIFACTS:
        yield from art.parts(src)


def artifacts(inv: Inventory, topo: Topology, plan: Plan, devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    """Every artifact but the report's (report.json, docs/): relative path under generated/ → text, sorted."""
    src = Sources(inv, topo, plan, devices)
    out: dict[str, str] = {}
    for part in artifact_parts(src):
        files = part.build()
        clash = out.keys() & files.keys()
        if clash:
            raise ValueError(f"two artifacts claim {sorted(clash)}")
        out.update(files)
    return dict(sorted(out.items()))
