"""Cumulus Linux NVUE: startup.yaml built as data (startup, with system, mlag and yaml_dump); the push plugin
(ansible_plugin.py)."""

from collections.abc import Callable

from railfabric.configs.nvue.startup import startup_yaml

PLATFORM = "nvue"
BUILDERS = {"startup.yaml": startup_yaml}
FILTERS: dict[str, Callable[..., str]] = {}
