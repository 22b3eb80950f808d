"""Check 6: the references between tables of one config_db.json resolve (what SONiC's YANG leafrefs enforce when
the Generic Config Updater validates a `config replace`): maps, schedulers, WRED and buffer profiles and pools exist,
and every key that names a port, port-channel or VLAN names one that is defined. VLAN_MEMBER keys are checked
with the VLANs of every platform (checks_l2.py), so a missing member port is reported once."""

from __future__ import annotations

from typing import Any

from railfabric.verify.model import Failure
from railfabric.verify.sonic_tables import key_ports, ref_name, split_key, table

QOS_MAP_FIELDS = {"dscp_to_tc_map": "DSCP_TO_TC_MAP", "tc_to_queue_map": "TC_TO_QUEUE_MAP",
                  "tc_to_pg_map": "TC_TO_PRIORITY_GROUP_MAP", "pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE",
                  "dot1p_to_tc_map": "DOT1P_TO_TC_MAP", "pfc_to_pg_map": "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"}
PORT_KEYED = ("PORT_QOS_MAP", "PFC_WD", "BREAKOUT_CFG", "BUFFER_PORT_INGRESS_PROFILE_LIST",
              "BUFFER_PORT_EGRESS_PROFILE_LIST")


class _Refs:
    def __init__(self, device: str, file: str, db: dict[str, Any]) -> None:
        self.device, self.file, self.db = device, file, db
        self.failures: list[Failure] = []
        self.ports = set(table(db, "PORT"))
        self.channels = set(table(db, "PORTCHANNEL"))
        self.dynamic = table(db, "DEVICE_METADATA").get("localhost", {}).get("buffer_model") == "dynamic"

    def need(self, where: str, what: str, name: str, target: str) -> None:
        if name not in table(self.db, target):
            self.failures.append(Failure("leafref", self.device, where, f"{what} {name} defined in {target}",
                                         "no such entry", self.file))

    def need_port(self, where: str, name: str, channels: bool = True) -> None:
        if name not in self.ports and not (channels and name in self.channels):
            target = "PORT or PORTCHANNEL" if channels else "PORT"
            self.failures.append(Failure("leafref", self.device, where, f"port {name} defined in {target}",
                                         "no such port", self.file))


def check_references(device: str, file: str, db: dict[str, Any]) -> list[Failure]:
    r = _Refs(device, file, db)
    for name in PORT_KEYED:
        for key in table(db, name):
            if not (name == "PFC_WD" and key == "GLOBAL"):
                r.need_port(f"{name}|{key}", key, channels=name != "BREAKOUT_CFG")
    for key, entry in table(db, "PORT_QOS_MAP").items():
        for field, target in QOS_MAP_FIELDS.items():
            if field in entry:
                r.need(f"PORT_QOS_MAP|{key}", field, ref_name(entry[field]), target)
    _queues(r)
    _buffers(r)
    _interfaces(r)
    return r.failures


def _queues(r: _Refs) -> None:
    for key, entry in table(r.db, "QUEUE").items():
        for port in key_ports(key):
            r.need_port(f"QUEUE|{key}", port)
        if "scheduler" in entry:
            r.need(f"QUEUE|{key}", "scheduler", ref_name(entry["scheduler"]), "SCHEDULER")
        if "wred_profile" in entry:
            r.need(f"QUEUE|{key}", "wred_profile", ref_name(entry["wred_profile"]), "WRED_PROFILE")


def _buffers(r: _Refs) -> None:
    for key, entry in table(r.db, "BUFFER_PROFILE").items():
        if "pool" in entry:
            r.need(f"BUFFER_PROFILE|{key}", "pool", ref_name(entry["pool"]), "BUFFER_POOL")
    for name in ("BUFFER_PG", "BUFFER_QUEUE"):
        for key, entry in table(r.db, name).items():
            for port in key_ports(key):
                r.need_port(f"{name}|{key}", port)
            profile = ref_name(entry.get("profile", ""))
            if not (r.dynamic and profile == "NULL"):  # dynamic model: NULL = headroom computed by the switch
                r.need(f"{name}|{key}", "profile", profile, "BUFFER_PROFILE")
    for name in ("BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"):
        for key, entry in table(r.db, name).items():
            for profile in str(entry.get("profile_list", "")).split(","):
                if profile.strip():
                    r.need(f"{name}|{key}", "profile", ref_name(profile.strip()), "BUFFER_PROFILE")
    for cable_table, entry in table(r.db, "CABLE_LENGTH").items():
        for port in entry if isinstance(entry, dict) else {}:
            r.need_port(f"CABLE_LENGTH|{cable_table}", port, channels=False)


def _interfaces(r: _Refs) -> None:
    for key in table(r.db, "VLAN_INTERFACE"):
        r.need(f"VLAN_INTERFACE|{key}", "VLAN", split_key(key)[0], "VLAN")
    for key in table(r.db, "PORTCHANNEL_MEMBER"):
        channel, port = split_key(key)
        r.need(f"PORTCHANNEL_MEMBER|{key}", "port-channel", channel, "PORTCHANNEL")
        r.need_port(f"PORTCHANNEL_MEMBER|{key}", port, channels=False)
    for key in table(r.db, "INTERFACE"):
        r.need_port(f"INTERFACE|{key}", split_key(key)[0], channels=False)
    for key, entry in table(r.db, "VLAN_MEMBER").items():
        if entry.get("tagging_mode") == "tagged":  # untagged members: checks_control.py, with every platform's
            r.need_port(f"VLAN_MEMBER|{key}", split_key(key)[1])
    for key in table(r.db, "PORTCHANNEL_INTERFACE"):
        r.need(f"PORTCHANNEL_INTERFACE|{key}", "port-channel", split_key(key)[0], "PORTCHANNEL")
