"""Arista EOS: running-config.cfg comes from templates/eos/ alone; the push plugin (ansible_plugin.py)."""

from collections.abc import Callable
from typing import Any

from railfabric.configs.eos.keys import next_transmit_lifetime, transmit_lifetime

PLATFORM = "eos"
BUILDERS: dict[str, Callable[[Any], str]] = {}
# the TCP-AO shared secrets' transmit lifetimes (railfabric/configs/eos/keys.py)
FILTERS: dict[str, Callable[..., str]] = {"eos_transmit_lifetime": transmit_lifetime,
                                          "eos_next_transmit_lifetime": next_transmit_lifetime}
