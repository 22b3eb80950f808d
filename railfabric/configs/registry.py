"""Every platform's config builders and template filters, from its subpackage railfabric/configs/<platform>/: its
`BUILDERS` (file name -> function of a DeviceConfig returning the file's text, for the files its facts record,
railfabric/platforms/<platform>.py, lists without a template) and `FILTERS` (Jinja filter name -> function). A new
platform adds its subpackage to PACKAGES; tests/test_layers.py checks that every platform of the registry has one and
that builders and records agree.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from railfabric.configs import eos, junos, nvue, nxos, sonic

PACKAGES: tuple[ModuleType, ...] = (eos, junos, nvue, nxos, sonic)


def _builders() -> dict[tuple[str, str], Callable[[Any], str]]:
    return {(p.PLATFORM, name): fn for p in PACKAGES for name, fn in p.BUILDERS.items()}


def _filters() -> dict[str, Callable[..., str]]:
    out: dict[str, Callable[..., str]] = {}
    for p in PACKAGES:
        for name, fn in p.FILTERS.items():
            if name in out:
                raise ValueError(f"template filter {name!r} of platform {p.PLATFORM} is already defined")
            out[name] = fn
    return out


BUILDERS = _builders()
FILTERS = _filters()


def _raw_data() -> dict[str, tuple[Callable[[Any], dict], Callable[[dict], dict]]]:
    """Per platform that takes raw data blocks: (the managed data of a DeviceConfig, a block's data as it is merged)."""
    return {p.PLATFORM: p.RAW_DATA for p in PACKAGES if hasattr(p, "RAW_DATA")}


RAW_DATA = _raw_data()
