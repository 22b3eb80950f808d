"""Validate rendered SONiC config_db.json files against SONiC's own YANG models.

A SONiC switch validates a whole config_db.json against its YANG models when it is pushed through the Generic
Config Updater (`config replace`, `config apply-patch`): every table must be modelled and the whole target must
validate, references between tables included. This package reproduces that check off the switch:

- `models`: export the models from a sonic-buildimage checkout or git directory (rendering its .yang.j2 templates
  the way its build does) into a plain directory; the models are never committed here.
- `schema`: the models' data tree (tables, lists, keys, leaves), read from `yanglint -f tree`.
- `translate`: one config_db.json into a YANG instance document (XML), with the table-to-model mapping rules of
  SONiC's sonic-yang-mgmt, and the problems found while mapping (unmodelled tables, unknown fields, ...).
- `yanglint`: validate the instance document with libyang's `yanglint` and read its errors back.
- `check`: every configs/*/config_db.json of a generated/ tree, one line per problem (`fabric sonic-yang`).
"""

ENV_MODELS = "SONIC_YANG_MODELS"  # where the exported SONiC YANG models are, when --models is not given
