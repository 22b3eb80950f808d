"""SONiC config_db.json built as data: the CONFIG_DB (table → key → fields) of one switch, serialised once.

Every value comes from the vendor-neutral DeviceConfig; each table family is a small pure function in a sibling
module (ports and interfaces, MCLAG, QoS, buffers, management plane) returning only the tables it has rows for,
in the shapes of sonic-buildimage src/sonic-yang-models. CONFIG_DB values are strings ("9216", "400000"), so
numbers are written as text. The document is written with sorted keys and two-space indentation, plus a trailing
newline: byte-stable whatever order the rows were built in.

The file is for docker_routing_config_mode "split": BGP lives in frr.conf (templates/sonic/frr.conf.j2).

Verification: every table and field written here is modelled in sonic-buildimage src/sonic-yang-models
(@086b03bd), and the example's, the MLAG fabric's and the full management plane's files pass yanglint against those
models (tests/test_sonic_yang.py, test_mlag_sonic.py, test_system_render.py). Not verified from a vendor document:
how a given SONiC release applies a value at run time (e.g. whether `create_only_config_db_buffers` is honoured by
releases before the SN5600 SKU file that sets it, how the banner service prints a multi-line `login`); the tables are
unchanged from the templates this module replaced.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import orjson

from railfabric.configs.sonic.config_db_buffers import BUFFER_TABLES, buffer_tables
from railfabric.configs.sonic.config_db_mclag import MCLAG_ROWS, MCLAG_TABLES, mclag_tables
from railfabric.configs.sonic.config_db_ports import PORT_TABLES, port_tables
from railfabric.configs.sonic.config_db_qos import QOS_TABLES, ports_qos_tables, qos_tables, roce_ports
from railfabric.configs.sonic.config_db_system import SYSTEM_TABLES, system_tables
from railfabric.core.config_tree import merge
from railfabric.platforms.sonic import PLATFORM

if TYPE_CHECKING:  # types only: the platform registry imports this module before railfabric.device exists
    from railfabric.device import DeviceConfig, Qos
    from railfabric.plan.buffers import Buffers

Tables = dict[str, dict[str, Any]]
Member = tuple[str, str]  # (table name, its `  "NAME": {...}` text inside the document)

_JSON_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS

# DEVICE_METADATA type per railfabric role (sonic-device_metadata.yang `type`): rail switches are leaves, both spine
# tiers are spines. A decision, not formatting: it belongs in the device model (listed for the lead to move).
SONIC_TYPE = {"rail": "LeafRouter", "spine": "SpineRouter", "super-spine": "SpineRouter"}

IDENTITY_TABLES = frozenset({"DEVICE_METADATA", "LOOPBACK_INTERFACE"})
HASH_TABLES = frozenset({"SWITCH_HASH"})

# routing.ecmp.hash field → the generic hash HLD's field name (sonic-net/SONiC doc/hash/hash-design.md; the
# hash-field enum of sonic-buildimage sonic-hash.yang)
SONIC_HASH_FIELD = {"src_ip": "SRC_IP", "dst_ip": "DST_IP", "ip_protocol": "IP_PROTOCOL", "l4_src_port": "L4_SRC_PORT",
                    "l4_dst_port": "L4_DST_PORT", "ipv6_flow_label": "IPV6_FLOW_LABEL", "ingress_port": "IN_PORT"}

# Every table config_db() can write (sonic_ansible.OWNED_TABLES must cover them: tests/test_rollout_filters.py).
TABLES = IDENTITY_TABLES | HASH_TABLES | PORT_TABLES | MCLAG_TABLES | QOS_TABLES | BUFFER_TABLES | SYSTEM_TABLES
# Tables of the switch's in which config_db() writes rows (sonic_ansible.ROW_TABLES: merged row by row by the push).
ROWS = MCLAG_ROWS


def sonic_type(role: str) -> str:
    return SONIC_TYPE[role]


def identity_tables(dev: DeviceConfig) -> Tables:
    """DEVICE_METADATA|localhost and the loopback (its address is the BGP router id, in frr.conf)."""
    meta: dict[str, str] = {
        "hostname": dev.hostname,
        "bgp_asn": str(dev.asn),
        "type": sonic_type(dev.role),
        "docker_routing_config_mode": "split",
        "default_pfcwd_status": "enable" if dev.qos.watchdog else "disable",
        "buffer_model": "traditional",
    }
    if dev.hwsku:
        meta["hwsku"] = dev.hwsku
    if dev.buffers and dev.buffers.create_only:
        meta["create_only_config_db_buffers"] = "true"
    loopback = PLATFORM.loopback_interface
    lo: dict[str, dict[str, str]] = {loopback: {}, f"{loopback}|{dev.loopback}": {}}
    if dev.loopback_v6:  # dual-stack: the /128 beside the /32 (sonic-loopback-interface.yang ip-prefix, either family)
        lo[f"{loopback}|{dev.loopback_v6}"] = {}
    return {"DEVICE_METADATA": {"localhost": meta}, "LOOPBACK_INTERFACE": lo}


def hash_tables(dev: DeviceConfig) -> Tables:
    """SWITCH_HASH|GLOBAL ecmp_hash: the ECMP hash fields in the inventory's order (the leaf-list is ordered-by
    user); no table without routing.ecmp.hash (the switch's default hash stays)."""
    fields = dev.load_balancing.hash_fields
    return {"SWITCH_HASH": {"GLOBAL": {"ecmp_hash": [SONIC_HASH_FIELD[f] for f in fields]}}} if fields else {}


def managed_tables(dev: DeviceConfig) -> Tables:
    """The CONFIG_DB railfabric decides for one switch (without its raw blocks), as data."""
    db = own_tables(dev)
    db.update(qos_tables(dev.qos, dev.interfaces))
    if dev.buffers:
        db.update(buffer_tables(dev.buffers))
    return db


def config_db_tables(dev: DeviceConfig) -> Tables:
    """The whole CONFIG_DB of one switch, as data: the managed tables with the switch's raw data blocks merged in,
    in merge order (field by field: a raw block can add a table, a row, or set one field of a managed row)."""
    db = managed_tables(dev)
    for block in dev.raw:
        if block.data:
            merge(db, raw_tables(block.tree()))
    return db


def _field_value(value: Any) -> Any:
    """A raw field's value as CONFIG_DB holds it: text ("true"/"false" for booleans, digits for integers); a list
    (a YANG leaf-list) of such."""
    if isinstance(value, list):
        return [_field_value(v) for v in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def raw_tables(data: dict[str, Any]) -> Tables:
    """A raw data block (TABLE → key → field → value, checked by RAW006) with its values as CONFIG_DB text."""
    return {table: {key: {f: _field_value(v) for f, v in row.items()} for key, row in rows.items()}
            for table, rows in data.items()}


def dumps(db: Tables) -> str:
    """The file's text: sorted keys, two-space indent, a final newline."""
    return orjson.dumps(db, option=_JSON_OPTIONS).decode() + "\n"


# The document is assembled from its tables' texts (members), so that the tables every switch of a shape shares
# (QoS and buffers: about three quarters of the bytes) are serialised once, not once per switch. A member is the
# text orjson writes for that table inside the whole document: the table alone as a one-key object, indented as at
# depth 1, without the enclosing braces. Joined in table order with ",\n" inside "{\n" ... "\n}\n", the members give
# exactly dumps() of the whole document (tests/test_render_shared_text.py compares the two for every SONiC switch
# of the example, and that a switch differing in one value a shared text reads gets its own text).


def members(tables: Tables) -> list[Member]:
    """Each table of `tables` as its member text."""
    return [(name, orjson.dumps({name: rows}, option=_JSON_OPTIONS)[2:-2].decode()) for name, rows in tables.items()]


def document(parts: Iterable[Member]) -> str:
    """The file's text from the members of all its tables (each table once): as dumps() of the whole."""
    texts = ["{\n"]
    for _, text in sorted(parts, key=_name):
        texts += (text, ",\n")
    texts[-1] = "\n}\n"
    return "".join(texts)  # the whole file's text made in one piece (a large buffer costs page faults)


def _name(member: Member) -> str:
    return member[0]


@lru_cache(maxsize=64)
def qos_members(q: Qos, ports: tuple[str, ...]) -> tuple[Member, ...]:
    """The QoS tables of a switch whose RoCE ports are `ports`, serialised once per (Qos, ports): every switch of a
    shape has the same ports, and one Qos serves the whole fabric. Keyed on exactly what ports_qos_tables reads."""
    return tuple(members(ports_qos_tables(q, ports)))


# Switches of one shape share one Buffers object (railfabric/device/buffers.py; frozen, so its value never changes):
# its tables are serialised once per object. Keyed by identity (hashing a Buffers walks every port's assignment),
# holding the Buffers so that the id cannot be reused by another object while the entry lives.
_BUFFER_MEMBERS: dict[int, tuple[Buffers, tuple[Member, ...]]] = {}
_BUFFER_MEMBERS_MAX = 256


def buffer_members(b: Buffers) -> tuple[Member, ...]:
    hit = _BUFFER_MEMBERS.get(id(b))
    if hit is not None and hit[0] is b:
        return hit[1]
    if len(_BUFFER_MEMBERS) >= _BUFFER_MEMBERS_MAX:
        _BUFFER_MEMBERS.clear()
    made = tuple(members(buffer_tables(b)))
    _BUFFER_MEMBERS[id(b)] = (b, made)
    return made


def own_tables(dev: DeviceConfig) -> Tables:
    """The tables that differ from switch to switch: identity, ports and interfaces, MCLAG, management."""
    db = identity_tables(dev)
    db.update(port_tables(dev))
    if dev.mlag is not None:
        db.update(mclag_tables(dev.mlag))
    db.update(system_tables(dev.system, dev.management, dev.management_gateway))
    db.update(hash_tables(dev))
    return db


def config_db(dev: DeviceConfig) -> str:
    """config_db.json of one SONiC switch (the platform's builder: railfabric/platforms/sonic.py): the text of
    dumps(config_db_tables(dev)), with the shared tables' members made once."""
    if any(block.data for block in dev.raw):  # raw data may change any table, the shared ones too
        return dumps(config_db_tables(dev))
    parts = members(own_tables(dev))
    parts.extend(qos_members(dev.qos, roce_ports(dev.interfaces)))
    if dev.buffers:
        parts.extend(buffer_members(dev.buffers))
    return document(parts)
