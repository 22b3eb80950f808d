"""ECMP load balancing as each switch's files say it (lb30), and the check that the fabric balances one way.

The verifier's own reading of the vendor forms (railfabric/platforms/<name>.py cites them), independent of the
renderers: the mode (flow hashing, flowlet DLB, per-packet) and, where the file selects them, the hash fields in
railfabric's neutral names. A file that selects no fields leaves the switch's default hash (`fields` None), which
differs per platform and is not compared.

Check `load-balancing`: every switch of the fabric runs the same mode, and every switch that selects hash fields
selects the same ones (railfabric renders routing.ecmp fabric-wide; a difference is a hand edit or a raw block).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from railfabric.verify.junos_tree import Node
from railfabric.verify.model import Balancing, Failure, ObservedDevice

FIVE_TUPLE = frozenset({"src_ip", "dst_ip", "ip_protocol", "l4_src_port", "l4_dst_port"})
# SONiC generic hash HLD field names (sonic-hash.yang hash-field)
SONIC_FIELDS = {"SRC_IP": "src_ip", "DST_IP": "dst_ip", "IP_PROTOCOL": "ip_protocol", "L4_SRC_PORT": "l4_src_port",
                "L4_DST_PORT": "l4_dst_port", "IPV6_FLOW_LABEL": "ipv6_flow_label", "IN_PORT": "ingress_port"}
# NVUE `system forwarding ecmp-hash` leaves (NVUE reference, System Forwarding)
NVUE_LEAVES = {"source-ip": "src_ip", "destination-ip": "dst_ip", "ip-protocol": "ip_protocol",
               "source-port": "l4_src_port", "destination-port": "l4_dst_port", "ipv6-label": "ipv6_flow_label",
               "ingress-interface": "ingress_port"}
# Junos `enhanced-hash-key family inet` exclusions of its five-tuple default
JUNOS_EXCLUDES = {"no-ipv4-source-address": "src_ip", "no-ipv4-destination-address": "dst_ip",
                  "no-protocol": "ip_protocol", "no-l4-source-port": "l4_src_port",
                  "no-l4-destination-port": "l4_dst_port"}
EOS_DYNAMIC = "ip hardware fib load-balance distribution dynamic"
NXOS_SHARING = {"ip load-sharing address source-destination": frozenset({"src_ip", "dst_ip"}),
                "ip load-sharing address source-destination port source-destination":
                    frozenset({"src_ip", "dst_ip", "l4_src_port", "l4_dst_port"})}
ON = ("on", "enabled")


def from_sonic(db: dict[str, Any]) -> Balancing:
    row = db.get("SWITCH_HASH", {}).get("GLOBAL", {})
    names = row.get("ecmp_hash") if isinstance(row, dict) else None
    if not isinstance(names, list):
        return Balancing()
    return Balancing(fields=frozenset(SONIC_FIELDS.get(str(n), str(n)) for n in names))


def from_nvue(tree: dict[str, Any]) -> Balancing:
    ar = (tree.get("router") or {}).get("adaptive-routing") or {}
    on = isinstance(ar, dict) and (ar.get("enable") in ON or ar.get("state") in ON)
    leaves = ((tree.get("system") or {}).get("forwarding") or {}).get("ecmp-hash")
    fields = frozenset(NVUE_LEAVES.get(str(k), str(k)) for k, v in leaves.items() if v in ON) \
        if isinstance(leaves, dict) and leaves else None
    return Balancing("packet" if on else "flow", fields)


def from_cli(platform: str, lines: Iterable[str]) -> Balancing:
    """EOS and NX-OS: their top-level lines."""
    mode, fields = "flow", None
    for line in lines:
        if platform == "eos" and line == EOS_DYNAMIC:
            mode = "flowlet"
        elif platform == "nxos" and line in NXOS_SHARING:
            fields = NXOS_SHARING[line]
    return Balancing(mode, fields)


def from_junos(tree: Node) -> Balancing:
    key = tree.find("forwarding-options", "enhanced-hash-key")
    if key is None:
        return Balancing()
    dlb = key.find("ecmp-dlb")
    mode = "flow"
    if dlb is not None:
        mode = "packet" if dlb.has("per-packet") else "flowlet" if dlb.find("flowlet") is not None else "flow"
    inet = key.find("family inet")
    gone = {JUNOS_EXCLUDES[c.key] for c in inet.children if c.key in JUNOS_EXCLUDES} if inet is not None else set()
    return Balancing(mode, FIVE_TUPLE - gone if gone else None)


def check_uniform(devices: dict[str, ObservedDevice]) -> list[Failure]:
    """Each switch whose mode, or selected fields, differ from what most switches of the fabric run."""
    seen = {n: d.balancing for n, d in devices.items() if d.balancing is not None}
    if not seen:
        return []
    mode = Counter(b.mode for b in seen.values()).most_common(1)[0][0]
    chosen = [b.fields for b in seen.values() if b.fields is not None]
    fields = Counter(chosen).most_common(1)[0][0] if chosen else None
    out: list[Failure] = []
    for name, b in sorted(seen.items()):
        dev = devices[name]
        if b.mode != mode:
            out.append(Failure("load-balancing", name, "ecmp mode", f"{mode} as most of the fabric", b.mode,
                               dev.files.get("config", "config")))
        if b.fields is not None and b.fields != fields:
            want = ", ".join(sorted(fields or ()))
            out.append(Failure("load-balancing", name, "ecmp hash", f"{want} as most of the fabric",
                               ", ".join(sorted(b.fields)), dev.files.get("config", "config")))
    return out
