"""Arista EOS: running-config.cfg comes from templates/eos/ alone; the push plugin (ansible_plugin.py)."""

from collections.abc import Callable
from typing import Any

PLATFORM = "eos"
BUILDERS: dict[str, Callable[[Any], str]] = {}
FILTERS: dict[str, Callable[..., str]] = {}
