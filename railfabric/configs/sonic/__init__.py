"""SONiC: config_db.json built as data (config_db and its table modules), the frr.conf template's filters (frr),
the push plugin (ansible_plugin.py, copied into generated/ansible/filter_plugins/)."""

from railfabric.configs.sonic.config_db import config_db, managed_tables, raw_tables
from railfabric.configs.sonic.frr import neighbor_lines

PLATFORM = "sonic"
BUILDERS = {"config_db.json": config_db}
FILTERS = {"frr_neighbors": neighbor_lines}
# raw data blocks (railfabric/configs/raw_overrides.py): the managed data of a switch, a block's data as merged
RAW_DATA = (managed_tables, raw_tables)
