"""The platform registry: every module of this package that defines `PLATFORM` is a platform, by its name.

Adding a platform is its module here (fabric/platforms/<name>.py) plus its templates (templates/<name>/) and its
tests; nothing else in railfabric lists platforms.
"""

from __future__ import annotations

import pkgutil
from importlib import import_module

from fabric.platforms.base import OutputFile, Platform, fec_for


def _discover() -> dict[str, Platform]:
    found: dict[str, Platform] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name == "base":
            continue
        platform = getattr(import_module(f"{__name__}.{info.name}"), "PLATFORM", None)
        if isinstance(platform, Platform):
            found[platform.name] = platform
    return found


PLATFORMS: dict[str, Platform] = _discover()
PLATFORM_NAMES: tuple[str, ...] = tuple(PLATFORMS)

__all__ = ["PLATFORMS", "PLATFORM_NAMES", "OutputFile", "Platform", "fec_for"]
