"""SONiC: config_db.json built as data (config_db and its table modules), the frr.conf template's filters (frr),
the push plugin (ansible_plugin.py, copied into generated/ansible/filter_plugins/)."""

from railfabric.configs.sonic.config_db import config_db
from railfabric.configs.sonic.frr import neighbor_lines

PLATFORM = "sonic"
BUILDERS = {"config_db.json": config_db}
FILTERS = {"frr_neighbors": neighbor_lines}
