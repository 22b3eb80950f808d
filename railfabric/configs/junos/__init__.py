"""Juniper Junos: junos.conf from its view (conf, cos, system) through templates/junos/; the push plugin
(ansible_plugin.py)."""

from collections.abc import Callable

from railfabric.configs.junos.conf import render_junos

PLATFORM = "junos"
BUILDERS = {"junos.conf": render_junos}
FILTERS: dict[str, Callable[..., str]] = {}
