"""Each platform's parse-back reader of its rendered files and, where the vendor publishes one that runs offline, its
schema check of one file (text, release) -> what the schema refuses; from the platform's own module
railfabric/verify/<platform>.py (its PLATFORM, READ and optional SCHEMA_CHECK). A new platform adds its module to
MODULES; tests/test_layers.py checks every platform of the registry has a reader."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from railfabric.verify import eos, junos, nvue, nxos, sonic
from railfabric.verify.model import ObservedDevice

MODULES: tuple[ModuleType, ...] = (eos, junos, nvue, nxos, sonic)
READERS: dict[str, Callable[[str, Path], ObservedDevice]] = {m.PLATFORM: m.READ for m in MODULES}
SCHEMA_CHECKS: dict[str, Callable[[str, str], list[str]]] = {
    m.PLATFORM: m.SCHEMA_CHECK for m in MODULES if hasattr(m, "SCHEMA_CHECK")}
