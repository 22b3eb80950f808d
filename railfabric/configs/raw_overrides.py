"""RAW009: a raw value that replaces a value railfabric manages, seen where the platform's structure shows it.

For each switch a raw block applies to, the file railfabric renders without the raw blocks is compared with each
block:
- text (EOS, NX-OS, FRR, Junos): both parsed into their hierarchy (railfabric/core/config_tree.py); a raw statement
  under the same parents as a managed one, with the same command words but another value (or `no` of a managed
  statement) replaces it;
- data (SONiC config_db.json, NVUE startup.yaml): a raw leaf whose path holds another managed value.

One finding per block and raw line or path (a fabric-wide block overriding a value on many switches is one finding
naming how many), as a warning: the override may be intended, but railfabric's checks, expected state and verify
describe the managed value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from railfabric.configs.registry import RAW_DATA
from railfabric.configs.render import render_file
from railfabric.core.config_tree import data_overrides, merge, overrides, statements
from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.device import DeviceConfig, build_devices
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_raw import blocks_for
from railfabric.inventory.intent_system import PLACEHOLDER_RE
from railfabric.plan.allocate import Plan
from railfabric.platforms import PLATFORMS
from railfabric.topology import Topology

# (block index, "text"|"data", raw line or data path) → (message about the first switch, switches)
_Seen = dict[tuple[int, str, object], tuple[str, list[str]]]


def raw_overrides(inv: Inventory, topo: Topology, plan: Plan, src: SourceMap) -> list[Finding]:
    names = [n for n, sw in topo.switches.items()
             if blocks_for(inv.raw, sw.platform, sw.role.value, sw.pod, sw.segment, (sw.key, sw.name))]
    if not names:
        return []
    seen: _Seen = {}
    for dev in build_devices(inv, topo, plan, only=set(names)).values():
        for key, text in device_overrides(dev):
            _first, switches = seen.setdefault(key, (text, []))
            switches.append(dev.hostname)
    out = []
    for (index, form, at), (text, switches) in sorted(seen.items(), key=lambda kv: (kv[0][0], kv[0][1],
                                                                                   str(kv[0][2]))):
        path = ("raw", index, form, *(at if isinstance(at, tuple) else ()))
        more = f" (and on {len(switches) - 1} more switch(es))" if len(switches) > 1 else ""
        out.append(Finding("RAW009", f"raw block {inv.raw[index].name!r} {text} on {switches[0]}{more}",
                           src.loc(path), "remove the raw line if railfabric's value is right, or model the "
                           "setting in the inventory; railfabric's checks and expected state assume its own value",
                           severity=Severity.WARNING))
    return out


def device_overrides(dev: DeviceConfig) -> Iterator[tuple[tuple[int, str, object], str]]:
    """((block index, form, raw line or data path), what it overrides) for each raw value of `dev` that replaces a
    managed one."""
    traits = PLATFORMS[dev.platform]
    managed_dev = replace(dev, raw=())
    if any(b.text for b in dev.raw):
        managed = statements(render_file(managed_dev, traits.raw_text_file), traits.raw_syntax)
        for block in dev.raw:
            if block.text:
                for line, raw, was in overrides(managed, statements(block.text, traits.raw_syntax)):
                    yield (block.index, "text", line), f"line {line} `{raw}` replaces the managed `{was}`"
    if any(b.data for b in dev.raw):
        managed_of, merged = RAW_DATA[dev.platform]
        data = managed_of(managed_dev)
        for block in dev.raw:
            if block.data:
                for path, raw, was in data_overrides(data, merged(block.tree())):
                    yield (block.index, "data", path), f"sets {'.'.join(path)} to {raw!r} where " \
                                                       f"{traits.raw_data_file} has {was!r}"


def merged_raw_data(dev: DeviceConfig) -> dict[str, Any]:
    """The data of the switch's raw data blocks merged in merge order, as its file holds them (SONiC values as
    CONFIG_DB text): what the host_vars record for `fabric verify` to find in the file."""
    if not any(b.data for b in dev.raw):
        return {}
    _managed_of, merged = RAW_DATA[dev.platform]
    out: dict[str, Any] = {}
    for block in dev.raw:
        if block.data:
            merge(out, merged(block.tree()))
    return out


def raw_vault_names(dev: DeviceConfig) -> set[str]:
    """The vault variables the switch's raw blocks refer to (`%%vault.NAME%%` in their text or data): the push
    resolves them like every other placeholder."""
    return {m.group(1) for b in dev.raw for m in PLACEHOLDER_RE.finditer(b.text or b.data)}
