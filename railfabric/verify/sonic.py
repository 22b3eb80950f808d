"""SONiC reader: configs/<device>/config_db.json (JSON) + frr.conf (railfabric/verify/frr.py) → ObservedDevice.

Field meanings follow sonic-buildimage's YANG models: PORT admin_status defaults to down, speed is in Mb/s, mtu is
the L3 MTU (see model.py); PORT_QOS_MAP binds the DSCP→TC, TC→queue, TC→PG and PFC-priority→queue maps and
lists the PFC priorities (pfc_enable); QUEUE binds a scheduler and a WRED/ECN profile per port queue; BUFFER_PG
and BUFFER_QUEUE bind buffer profiles per port PG/queue (`port|3`, `port|3-4`).
A tagged VLAN_MEMBER makes the port (the MLAG peer link) a trunk of those VLANs; MCLAG tables: sonic_mclag.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from railfabric.verify.frr import read_frr
from railfabric.verify.inputs import read_text
from railfabric.verify.load_balancing import from_sonic
from railfabric.verify.model import Buffers, Interface, ObservedDevice, Qos, VerifyInputError, Vlan
from railfabric.verify.sonic_mclag import check_mclag, read_mclag, read_svis
from railfabric.verify.sonic_refs import check_references
from railfabric.verify.sonic_tables import int_list, int_map, key_indexes, key_ports, ref_name, split_key, table


def load_config_db(path: Path, root: Path) -> dict[str, Any]:
    where = path.relative_to(root).as_posix()
    try:
        db = json.loads(read_text(path, root))
    except json.JSONDecodeError as e:
        raise VerifyInputError(f"{where}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}") from None
    if not isinstance(db, dict) or not all(isinstance(v, dict) for v in db.values()):
        raise VerifyInputError(f"{where}: not a config_db (an object of tables)")
    for name, entries in db.items():
        bad = next((k for k, v in entries.items() if not isinstance(v, dict)), None)
        if bad is not None:
            raise VerifyInputError(f"{where}: {name}|{bad} is not an object of fields")
    return db


def _int(value: Any) -> int | None:
    return int(value) if str(value).isdigit() else None


def read_sonic(name: str, root: Path) -> ObservedDevice:
    cfg = root / "configs" / name / "config_db.json"
    db = load_config_db(cfg, root)
    file = cfg.relative_to(root).as_posix()
    dev = ObservedDevice(name, "sonic", files={"config": file})
    for port, entry in table(db, "PORT").items():
        dev.interfaces[port] = Interface(port, entry.get("admin_status") == "up", _int(entry.get("speed")),
                                         _int(entry.get("mtu")))
    for pc, entry in table(db, "PORTCHANNEL").items():
        dev.interfaces[pc] = Interface(pc, entry.get("admin_status") == "up", None, _int(entry.get("mtu")))
    for key in table(db, "PORTCHANNEL_MEMBER"):
        pc, port = split_key(key)
        if port in dev.interfaces:
            dev.interfaces[port].channel, dev.interfaces[port].mode = pc, "member"
    for name_ in ("INTERFACE", "PORTCHANNEL_INTERFACE"):
        for key in table(db, name_):
            ifname, addr = split_key(key)
            if ifname in dev.interfaces:
                dev.interfaces[ifname].mode = "routed"
                if addr:
                    dev.interfaces[ifname].ipv4.append(addr)
    _vlans(db, dev)
    dev.loopbacks = [split_key(k)[1] for k in table(db, "LOOPBACK_INTERFACE") if split_key(k)[1]]
    read_mclag(db, dev)
    read_svis(db, dev)
    _management(db, dev)
    _qos(db, dev)
    dev.balancing = from_sonic(db)
    dev.failures += check_references(name, file, db)
    dev.failures += check_mclag(db, dev, file)
    frr = root / "configs" / name / "frr.conf"
    dev.files["bgp"] = frr.relative_to(root).as_posix()
    dev.bgp = read_frr(frr, root)
    return dev


def _vlans(db: dict[str, Any], dev: ObservedDevice) -> None:
    for key, entry in table(db, "VLAN").items():
        vid = _int(entry.get("vlanid")) or _int(key.removeprefix("Vlan"))
        if vid is not None:
            dev.vlans[vid] = Vlan(vid, mtu=_int(entry.get("mtu")))
    for key in table(db, "VLAN_INTERFACE"):
        vlan, addr = split_key(key)
        vid = _int(vlan.removeprefix("Vlan"))
        if vid in dev.vlans and addr:
            dev.vlans[vid].svi.append(addr)
    for key, entry in table(db, "VLAN_MEMBER").items():
        vlan, port = split_key(key)
        vid = _int(vlan.removeprefix("Vlan"))
        if vid is None:
            continue
        vlan_ = dev.vlans.setdefault(vid, Vlan(vid, declared=False))
        intf = dev.interfaces.get(port)
        if entry.get("tagging_mode", "untagged") == "tagged":  # an MLAG peer link: a trunk of its VLANs
            vlan_.tagged.append(port)
            if intf is not None and intf.mode != "member":
                intf.mode, intf.trunk_vlans = "trunk", intf.trunk_vlans | {vid}
            continue
        vlan_.members.append(port)
        if intf is not None:
            intf.mode, intf.vlan = "access", vid


def _management(db: dict[str, Any], dev: ObservedDevice) -> None:
    m = dev.mgmt
    for key in table(db, "MGMT_INTERFACE"):
        port, addr = split_key(key)
        if port == "eth0" and "." in addr:
            m.address = addr
    m.mgmt_port = "eth0" in table(db, "MGMT_PORT")
    vrf = table(db, "MGMT_VRF_CONFIG").get("vrf_global", {})
    m.vrf = "mgmt" if str(vrf.get("mgmtVrfEnabled")) == "true" else None
    m.users = {k: str(v.get("role", "")) for k, v in table(db, "USER").items()} if "USER" in db else {}


def _qos(db: dict[str, Any], dev: ObservedDevice) -> None:
    wred = table(db, "WRED_PROFILE")
    sched = table(db, "SCHEDULER")
    queues: dict[str, dict[int, dict[str, Any]]] = {}
    for key, entry in table(db, "QUEUE").items():
        for port in key_ports(key):
            for q in key_indexes(key):
                queues.setdefault(port, {})[q] = entry
    dynamic = table(db, "DEVICE_METADATA").get("localhost", {}).get("buffer_model") == "dynamic"
    maps: dict[tuple[str, str], dict[int, int]] = {}  # (table, name) → map, parsed once per device

    def lookup(name: str, field_: str, entry: dict[str, Any]) -> dict[int, int]:
        key = (name, ref_name(entry.get(field_, "")))
        if key not in maps:
            maps[key] = int_map(table(db, name).get(key[1]))
        return maps[key]

    by_port: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]] = {}  # (table, port) → its keyed entries
    for name in ("BUFFER_PG", "BUFFER_QUEUE"):
        for key, entry in table(db, name).items():
            for port in key_ports(key):
                by_port.setdefault((name, port), []).append((key, entry))
    for port, entry in table(db, "PORT_QOS_MAP").items():
        if port not in dev.interfaces:
            continue  # a dangling key: the reference check reports it
        dscp_map = ref_name(entry.get("dscp_to_tc_map", ""))
        port_queues = queues.get(port, {})
        qos = Qos(
            dscp_trust=dscp_map in table(db, "DSCP_TO_TC_MAP"),
            dscp_to_tc=lookup("DSCP_TO_TC_MAP", "dscp_to_tc_map", entry),
            tc_to_queue=lookup("TC_TO_QUEUE_MAP", "tc_to_queue_map", entry),
            tc_to_pg=lookup("TC_TO_PRIORITY_GROUP_MAP", "tc_to_pg_map", entry),
            pfc_priorities=int_list(entry.get("pfc_enable", "")),
            ecn_queues=frozenset(q for q, e in port_queues.items()
                                 if wred.get(ref_name(e.get("wred_profile", "")), {}).get("ecn", "ecn_none")
                                 not in ("ecn_none", "")),
            strict_queues=frozenset(q for q, e in port_queues.items()
                                    if sched.get(ref_name(e.get("scheduler", "")), {}).get("type") == "STRICT"),
            watchdog=port in table(db, "PFC_WD"))
        dev.interfaces[port].qos = qos
        dev.interfaces[port].buffers = _buffers(db, port, dynamic, by_port)


def _buffers(db: dict[str, Any], port: str, dynamic: bool,
             by_port: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]]) -> Buffers:
    profiles = table(db, "BUFFER_PROFILE")
    out = Buffers()
    for name, target in (("BUFFER_PG", out.lossless_pgs), ("BUFFER_QUEUE", out.queues)):
        for key, entry in by_port.get((name, port), []):
            profile = ref_name(entry.get("profile", ""))
            exists = profile in profiles or (dynamic and profile == "NULL")
            lossless = (dynamic and profile == "NULL") or "xoff" in profiles.get(profile, {})
            if not exists:
                out.problems.append(f"{name}|{key} profile {profile} not in BUFFER_PROFILE")
            elif name == "BUFFER_QUEUE" or lossless:
                for i in key_indexes(key):
                    target[i] = profile
    return out

PLATFORM = "sonic"  # the registry entry (railfabric/verify/readers.py)
READ = read_sonic
