"""Cisco NX-OS: running-config.cfg from its view (running_config, vpc) through templates/nxos/; the push plugin
(ansible_plugin.py)."""

from collections.abc import Callable

from railfabric.configs.nxos.running_config import running_config

PLATFORM = "nxos"
BUILDERS = {"running-config.cfg": running_config}
FILTERS: dict[str, Callable[..., str]] = {}
