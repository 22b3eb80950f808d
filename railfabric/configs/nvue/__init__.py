"""Cumulus Linux NVUE: startup.yaml built as data (startup, with system, mlag and yaml_dump); the push plugin
(ansible_plugin.py)."""

from collections.abc import Callable

from railfabric.configs.nvue.startup import managed_tree, startup_yaml

PLATFORM = "nvue"
BUILDERS = {"startup.yaml": startup_yaml}
FILTERS: dict[str, Callable[..., str]] = {}
# raw data blocks (railfabric/configs/raw_overrides.py): the managed `set` tree of a switch, a block's data as merged
RAW_DATA = (managed_tree, dict)
