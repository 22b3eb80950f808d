"""The non-config artifacts under generated/: pure functions from the model to {relative path: text}.

Nothing here writes files. Paths are relative to generated/; the rendered device configs themselves live at
configs/<hostname>/<file> (written elsewhere) and are only referenced here (by the Ansible host variables).
Every text is byte-deterministic: sorted rows, no timestamps, '\\n' line endings.
"""

from __future__ import annotations

from collections.abc import Mapping

from fabric.allocate import Plan
from fabric.device import DeviceConfig
from fabric.hosts import build_hosts
from fabric.intent import Inventory
from fabric.topology import Topology

from .ansible import ansible_files
from .cabling import cabling_csv
from .expected import expected_files
from .hosts import gpu_inventory, hosts_files
from .ipplan import ipplan_csv
from .railmap import railmap_csv
from .state import state_files

__all__ = ["ansible_files", "artifacts", "cabling_csv", "expected_files", "ipplan_csv", "railmap_csv"]


def artifacts(inv: Inventory, topo: Topology, plan: Plan, devices: Mapping[str, DeviceConfig]) -> dict[str, str]:
    """Every artifact: relative path under generated/ → text, sorted by path."""
    out: dict[str, str] = {}
    hosts = build_hosts(inv, topo, plan)
    for part in (ansible_files(devices, gpu_inventory(hosts)), hosts_files(hosts), cabling_csv(topo, devices),
                 ipplan_csv(inv, topo, plan, devices),
                 railmap_csv(inv, topo, plan, devices), expected_files(devices),
                 state_files(devices)):
        clash = out.keys() & part.keys()
        if clash:
            raise ValueError(f"two artifacts claim {sorted(clash)}")
        out.update(part)
    return dict(sorted(out.items()))
