"""The IB lab's subnet-manager checks: the election (the planned master is MASTER, the others STANDBY) and the
takeover (the master killed, the standby with the highest priority becomes MASTER and the subnet stays up).

OpenSM 3.3.23 (`opensm -c` template): a standby polls the master's SMInfo every `sminfo_polling_timeout` ms
(default 10000) and declares it dead after `polling_retry_number` failed polls (default 4): 40 s. The LAB's own
copy of each opensm.conf (never the rendered one) appends LAB_POLLING (1000 ms x 2) so the takeover is seen in a
few seconds; a site keeps OpenSM's defaults. How a standby logs it (osm_sm_state_mgr.c, 3.3.23): "Entering MASTER
state" and then, once it has swept and programmed the subnet, "SUBNET UP".
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

from railfabric.infiniband.binding import Binding
from railfabric.infiniband.labresult import Check
from railfabric.infiniband.model import IbFabric, SubnetManager, Switch
from railfabric.infiniband.routes import check_routes, parse_dump_fts
from railfabric.infiniband.sim import Sim

LAB_POLLING = ("# lab only (railfabric/infiniband/lab_sm.py): a standby takes over after 2 polls of 1 s, not 4 x 10 s\n"
               "sminfo_polling_timeout 1000\npolling_retry_number 2\n")
_SMINFO = re.compile(r"sm guid 0x([0-9a-fA-F]+), activity count \d+ priority (\d+) state \d+ (\w+)")


def wait_log(log: Path, patterns: tuple[str, ...], proc: subprocess.Popen[bytes], timeout: float,
             since: int = 0) -> str:
    """The log (from character `since`) once it holds one of `patterns`, the daemon died, or `timeout` passed."""
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")[since:] if log.exists() else ""
        if any(p in text for p in patterns) or proc.poll() is not None:
            break
        time.sleep(0.05)
    return text


def sm_guid(fab: IbFabric, b: Binding, sm: SubnetManager) -> int | None:
    """What SMInfo names an SM by: its switch's node GUID (port 0), or its HCA's port GUID."""
    return b.node_guids.get(sm.node) if isinstance(fab.node(sm.node), Switch) else b.port_guids.get(sm.node)


def _sminfo(sim: Sim, node: str, timeout: float) -> tuple[int, int, str] | None:
    info = _SMINFO.search(sim.run(["sminfo"], node, timeout).stdout)
    return (int(info.group(1), 16), int(info.group(2)), info.group(3)) if info else None


def _master_seen(fab: IbFabric, b: Binding, sim: Sim, master: SubnetManager, timeout: float) -> str | None:
    """None when sminfo (asked from the master's node) reports `master` with its planned priority as MASTER."""
    guid = sm_guid(fab, b, master)
    seen = _sminfo(sim, master.node, timeout)
    if seen == (guid, master.priority, "SMINFO_MASTER"):
        return None
    planned = f"planned {master.node} {guid or 0:#x} priority {master.priority}"
    return (f"sminfo reports {seen[0]:#x} priority {seen[1]} {seen[2]} ({planned})" if seen else
            f"sminfo reports no master ({planned})")


def election(fab: IbFabric, order: list[SubnetManager], logs: dict[str, str], b: Binding, sim: Sim,
             timeout: float) -> Check:
    """The planned master is master and every other SM standby: each SM's log, and the master's SMInfo (sminfo
    from the master's node: its port GUID, priority and state)."""
    master, wrong = order[0], []
    states = {sm.node: ("MASTER" if "Entering MASTER state" in logs[sm.node] else
                        "STANDBY" if "Entering STANDBY state" in logs[sm.node] else "no state") for sm in order}
    wrong += [f"{sm.node} (priority {sm.priority}) is {states[sm.node]}, planned {want}"
              for sm, want in ((sm, "MASTER" if sm is master else "STANDBY") for sm in order)
              if states[sm.node] != want]
    seen = _master_seen(fab, b, sim, master, timeout)
    wrong += [seen] if seen else []
    shown = ", ".join(f"{sm.node} {states[sm.node].lower()} (priority {sm.priority})" for sm in order)
    return Check("sm-election", not wrong, shown + (f"; {'; '.join(wrong)}" if wrong else ""))


def takeover(fab: IbFabric, order: list[SubnetManager], procs: dict[str, subprocess.Popen[bytes]],
             logs: dict[str, Path], b: Binding, sim: Sim, timeout: float) -> Check:
    """Kill the master SM (SIGKILL: a crash, no handover); the standby with the highest priority must log
    "Entering MASTER state" and "SUBNET UP", sminfo (from its node) must report it MASTER with its priority, and
    dump_fts (from its node) must still route every HCA pair."""
    old = order[0]
    new = max(order[1:], key=lambda sm: sm.priority)
    since = len(logs[new.node].read_text(errors="replace")) if logs[new.node].exists() else 0
    os.killpg(procs[old.node].pid, signal.SIGKILL)
    procs[old.node].wait()
    text = wait_log(logs[new.node], ("SUBNET UP",), procs[new.node], timeout, since)
    wrong = []
    if "Entering MASTER state" not in text:
        wrong.append(f"{new.node} did not enter MASTER state within {timeout:g} s")
    elif "SUBNET UP" not in text:
        wrong.append(f"{new.node} became MASTER but reported no SUBNET UP within {timeout:g} s")
    if not wrong:
        seen = _master_seen(fab, b, sim, new, timeout)
        wrong += [seen] if seen else []
    fts = parse_dump_fts(sim.run(["dump_fts"], new.node, timeout).stdout)
    routed = next(c for c in check_routes(fab, b.node_guids, b.port_guids, fts) if c.name == "routable")
    if not routed.ok:
        wrong.append(f"after the takeover: {routed.detail}")
    shown = "; ".join(wrong) or f"{new.node} (priority {new.priority}) took over, SUBNET UP, {routed.detail}"
    return Check("sm-takeover", not wrong, f"{old.node} killed: {shown}")
