"""ASIC family rules (HW006, HW007): a switch whose platform writes per-queue QoS differently per family
(Platform.queue_forms: EOS) needs its model's `asic`, and a family that platform has a form for. One finding per
(model, platform), at the model's key, naming the first switch in topology order that needs it."""

from __future__ import annotations

from railfabric.core.finding import Finding
from railfabric.core.source_map import SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.platforms import PLATFORMS
from railfabric.topology import Topology


def check_asic(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    first: dict[tuple[str, str], str] = {}  # (model, platform) → first switch of that pair that needs a family
    for sw in topo.switches.values():
        if PLATFORMS[sw.platform].queue_forms:
            first.setdefault((sw.model, sw.platform), sw.name)
    out: list[Finding] = []
    for (model, platform), switch in sorted(first.items()):
        forms = PLATFORMS[platform].queue_forms
        offered = ", ".join(sorted(forms))
        asic = inv.switch_models[model].asic
        title = PLATFORMS[platform].title
        if asic is None:
            out.append(Finding(
                "HW006", f"switch model {model!r} has no asic family, and its {title} switches (e.g. {switch}) "
                "write per-queue QoS in a form that depends on it", src.key_loc(("switch_models", model)),
                f"add `asic: <family>` to the model, one of {offered}"))
        elif asic not in forms:
            out.append(Finding(
                "HW007", f"switch model {model!r} is {asic.value}, a family {title} has no per-queue QoS form for "
                f"(its switches, e.g. {switch}, run {platform})", src.key_loc(("switch_models", model, "asic")),
                f"run these switches on another platform, or correct the family: {title} families are {offered}"))
    return out
