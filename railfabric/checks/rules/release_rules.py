"""PLAT040: a declared switch OS release must be one its platform renders (railfabric/platforms/<name>.py `releases`).

A release is declared fabric-wide (`fabric.releases.<platform>`), per switch model (`switch_models.<m>.releases.
<platform>`) or per device (`devices.<key>.release`); the most specific one applies (railfabric/device/release.py). A
platform with one form set (no `releases`) refuses any release: naming one would promise a choice railfabric does
not make. Each declaration is judged once, at its own line, against the platforms of the switches it reaches.
"""

from __future__ import annotations

from railfabric.core.finding import Finding
from railfabric.core.source_map import SourceMap
from railfabric.core.textsafe import quote
from railfabric.inventory.intent import Inventory
from railfabric.platforms import PLATFORMS
from railfabric.topology import Topology


def _problem(platform: str, release: str) -> tuple[str, str] | None:
    """(message tail, hint) when `platform` does not render `release`, else None."""
    traits = PLATFORMS[platform]
    if not traits.releases:
        return (f"railfabric renders one form set for {platform} and does not choose forms by release",
                f"remove the release: {platform}'s forms and their sources are listed in railfabric/platforms/"
                f"{platform}.py")
    if release not in traits.releases:
        return (f"{platform} is rendered for releases {', '.join(traits.releases)}",
                f"use one of {', '.join(traits.releases)} (default {traits.default_release})")
    return None


def check_releases(inv: Inventory, topo: Topology, src: SourceMap) -> list[Finding]:
    out: list[Finding] = []
    for platform, release in sorted(inv.fabric.releases.items()):
        bad = _problem(platform, release)
        if bad:
            out.append(Finding("PLAT040", f"fabric.releases: {platform} release {quote(release)}: {bad[0]}",
                               src.loc(("fabric", "releases", platform.value)), bad[1]))
    for name, model in sorted(inv.switch_models.items()):
        for platform, release in sorted(model.releases.items()):
            bad = _problem(platform, release)
            if bad:
                out.append(Finding("PLAT040", f"switch model {quote(name)}: {platform} release {quote(release)}: "
                                   f"{bad[0]}", src.loc(("switch_models", name, "releases", platform.value)),
                                   bad[1]))
    platform_of = {sw.key: sw.platform for sw in topo.switches.values()}
    for key, ov in sorted(inv.devices.items()):
        if ov.release is None or key not in platform_of:  # an unknown key is REF003's
            continue
        bad = _problem(platform_of[key], ov.release)
        if bad:
            out.append(Finding("PLAT040", f"device {quote(key)} ({platform_of[key]}): release {quote(ov.release)}: "
                               f"{bad[0]}", src.loc(("devices", key, "release")), bad[1]))
    return out
