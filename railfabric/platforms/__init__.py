"""The platform registry: the facts record (`PLATFORM`) of every platform module of this package, by its name.

A platform is its facts module here (railfabric/platforms/<name>.py, listed in MODULES), its templates
(templates/<name>/), its config builders (railfabric/configs/<name>/) and its parse-back reader
(railfabric/verify/<name>.py); tests/test_layers.py checks that the four agree.
"""

from __future__ import annotations

from types import ModuleType

from railfabric.platforms import eos, junos, nvue, nxos, sonic
from railfabric.platforms.base import OutputFile, Platform, fec_for

MODULES: tuple[ModuleType, ...] = (eos, junos, nvue, nxos, sonic)
PLATFORMS: dict[str, Platform] = {m.PLATFORM.name: m.PLATFORM for m in MODULES}
PLATFORM_NAMES: tuple[str, ...] = tuple(PLATFORMS)

__all__ = ["PLATFORMS", "PLATFORM_NAMES", "OutputFile", "Platform", "fec_for"]
