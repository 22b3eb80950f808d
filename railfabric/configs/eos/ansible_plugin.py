"""Arista EOS's filters for the rollout playbook (copied to generated/ansible/filter_plugins/railfabric_eos.py).

A standalone Ansible filter plugin: standard library only, no railfabric import, no import of a sibling plugin. The
shared plugin (railfabric/outputs/ansible_filters.py → railfabric.py) loads this file and calls its hooks:
- access_problems(directory, host, user, connection): rf_eos_access_problems on the resolved running-config.cfg;
- drain(text, count, method) / undrain(text, method): the lines that drain the switch and undo it, for a configure
  session. method graceful-shutdown (host_vars rollout_drain): EOS maintenance mode, `maintenance` / `unit System` /
  `quiesce` (EOS 4.15.2F+, Arista EOS User Manual "Maintenance Mode": every BGP peer under maintenance gets the
  GRACEFUL_SHUTDOWN community on what the switch sends, RFC 8326); undone by `no quiesce`. as-path-prepend: route-map
  RF-DRAIN prepending its own ASN on every peer group, outbound;
- bgp_peers(show): `show ip bgp summary | json` → {neighbour: (state, remote ASN)};
- lldp_seen(show): `show lldp neighbors | json` → {local interface: (neighbour system name, neighbour port)}.
Filter: rf_eos_access_problems(text, user, connection).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

DRAIN_MAP = "RF-DRAIN"


class FilterError(ValueError):
    """Raised to fail the task (Ansible reports the message of any exception a filter raises). Its own class: a
    standalone plugin cannot import the shared one."""


def _eos_blocks(text: str) -> dict[str, list[str]]:
    """Top-level EOS configuration line → its indented lines (stripped, nested levels kept with their indent)."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("!"):
            continue
        if raw[0] not in " \t":
            current = blocks.setdefault(raw.strip(), [])
        elif current is not None:
            current.append(raw.rstrip())
    return blocks


def _sub_block(lines: list[str], header: str) -> list[str] | None:
    """The lines under `header` (the first indent level) of a block's lines, or None when it is absent."""
    out: list[str] | None = None
    level = None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if level is None:
            level = indent
        if indent == level:
            if out is not None:
                break
            if line.strip() == header:
                out = []
        elif out is not None:
            out.append(line.strip())
    return out


def _top(lines: list[str]) -> list[str]:
    level = min((len(x) - len(x.lstrip()) for x in lines), default=0)
    return [x.strip() for x in lines if len(x) - len(x.lstrip()) == level]


def _eos_service_problems(blocks: dict[str, list[str]], header: str, vrf: str, shut_by_default: bool) -> list[str]:
    body = blocks.get(header)
    if body is None:
        return [f"no `{header}`"] if shut_by_default or vrf != "default" else []
    top = _top(body)
    problems = []
    if "shutdown" in top or (shut_by_default and "no shutdown" not in top):
        problems.append(f"`{header}` is shut down")
    if vrf != "default":
        sub = _sub_block(body, f"vrf {vrf}")
        if sub is None or "no shutdown" not in sub:
            problems.append(f"`{header}` is not enabled in VRF {vrf} (`vrf {vrf}` / `no shutdown`), the VRF of "
                            "Management1")
    return problems


def rf_eos_access_problems(text: str, user: str | None, connection: str = "") -> list[str]:
    """Why pushing this EOS running-config would cut the push off: the management API (eAPI, and SSH when the push
    uses the CLI) must stay enabled in the VRF of Management1, and the push account must keep network-admin."""
    blocks = _eos_blocks(text)
    vrf = "default"
    for line in blocks.get("interface Management1", []):
        m = re.fullmatch(r"vrf (?:forwarding )?(\S+)", line.strip())
        if m:
            vrf = m.group(1)
    problems = _eos_service_problems(blocks, "management api http-commands", vrf, shut_by_default=True)
    if "network_cli" in (connection or ""):
        problems += _eos_service_problems(blocks, "management ssh", vrf, shut_by_default=False)
    if not user:
        problems.append("ansible_user is not set: the push account cannot be checked")
    else:
        pattern = re.compile(rf"username {re.escape(user)} (?:.* )?(?:role network-admin|privilege 15)(?: .*)?")
        if not any(pattern.fullmatch(line) for line in blocks):
            problems.append(f"no `username {user} ... role network-admin` (or privilege 15): the push account "
                            "would lose its access")
    return problems


def access_problems(directory: Path, host: str, user: str, connection: str) -> list[str]:
    """The pre-flight's check of the resolved files in `directory`."""
    return rf_eos_access_problems((directory / "running-config.cfg").read_text(encoding="utf-8"), user, connection)


def _bgp_parts(text: str) -> tuple[str, list[str]]:
    """The ASN and the peer groups of an EOS running-config; refused when it already applies an outbound
    route-map."""
    asn = re.search(r"^router bgp (\d+)\s*$", text, re.M)
    if asn is None:
        raise FilterError("no `router bgp` in the configuration: nothing to drain")
    if re.search(r"^\s+neighbor \S+ route-map \S+ out\s*$", text, re.M):
        raise FilterError("the configuration already applies an outbound route-map: the drain would replace it")
    groups = re.findall(r"^\s+neighbor (\S+) peer group\s*$", text, re.M)
    if not groups:
        raise FilterError("no BGP peer group in the configuration: nothing to drain")
    return asn.group(1), groups


GSHUT = "graceful-shutdown"
PREPEND = "as-path-prepend"


def _graceful(text: str, method: str) -> bool:
    """True for graceful-shutdown (the configuration must run BGP), False for as-path-prepend; anything else
    refused (never drained blind)."""
    if method not in (GSHUT, PREPEND):
        raise FilterError(f"unknown drain method {method!r}: graceful-shutdown or as-path-prepend")
    if method == GSHUT and not re.search(r"^router bgp \d+\s*$", text, re.M):
        raise FilterError("no `router bgp` in the configuration: nothing to drain")
    return method == GSHUT


def _quiesce(word: str) -> str:
    return "\n".join(["maintenance", "   unit System", f"      {word}", "   exit", "exit"]) + "\n"


def drain(text: str, count: int | str = 3, method: str = PREPEND) -> str:
    """Lines that drain the switch: every route it advertises leaves with its own ASN prepended `count` more times,
    so every eBGP neighbour (in another AS, RFC 7938) prefers the same prefix through any other switch. With method
    graceful-shutdown: the System unit quiesced (maintenance mode) instead."""
    if _graceful(text, method):
        return _quiesce("quiesce")
    asn, groups = _bgp_parts(text)
    prepend = " ".join([asn] * int(count))
    return "\n".join([f"route-map {DRAIN_MAP} permit 10", f"   set as-path prepend {prepend}", "exit",
                      f"router bgp {asn}", *[f"   neighbor {g} route-map {DRAIN_MAP} out" for g in groups],
                      "exit"]) + "\n"


def undrain(text: str, method: str = PREPEND) -> str:
    if _graceful(text, method):
        return _quiesce("no quiesce")
    asn, groups = _bgp_parts(text)
    return "\n".join([f"router bgp {asn}", *[f"   no neighbor {g} route-map {DRAIN_MAP} out" for g in groups],
                      "exit", f"no route-map {DRAIN_MAP}"]) + "\n"


# EOS's short interface names in a link-local peer's scope (`fe80::2%Et1`), as ANTA 1.10 shows such peers
# (anta/tests/routing/bgp.py examples), and the names railfabric plans
_SHORT = (("Et", "Ethernet"), ("Po", "Port-Channel"))


def _peer_key(peer: str) -> str:
    """A neighbour's key: its address, or for a link-local peer of an interface neighbour (unnumbered,
    `fe80::...%Et33/1`) its interface by the planned name (Ethernet33/1), as the plan keys unnumbered sessions."""
    _addr, scoped, ifname = peer.partition("%")
    if not scoped:
        return peer
    for short, full in _SHORT:
        if ifname.startswith(short) and not ifname.startswith(full):
            return full + ifname[len(short):]
    return ifname


def bgp_peers(show: Any) -> dict[str, tuple[str, str]]:
    """neighbour address (an unnumbered session's: its interface, _peer_key) → (state, remote ASN) from `show ip bgp
    summary | json` (parsed), VRF default. NOT verified: that the summary keys a link-local peer as
    `<address>%<short interface>` (seen in ANTA's examples of `show bgp neighbors` peers, not in the summary)."""
    return {_peer_key(ip): (str(p.get("peerState", "")), str(p.get("asn", "")))
            for ip, p in (((show.get("vrfs") or {}).get("default") or {}).get("peers") or {}).items()}


def lldp_seen(show: Any) -> dict[str, tuple[str, str]]:
    """local interface → (neighbour system name, neighbour port) from `show lldp neighbors | json` (parsed)."""
    return {n.get("port", ""): (n.get("neighborDevice", ""), n.get("neighborPort", ""))
            for n in show.get("lldpNeighbors") or []}


class FilterModule:
    def filters(self) -> dict[str, Any]:
        return {name: fn for name, fn in globals().items() if name.startswith("rf_") and callable(fn)}
