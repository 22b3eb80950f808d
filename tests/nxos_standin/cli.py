"""The NX-OS commands the rollout play and the cisco.nxos modules send, answered by one stand-in switch.

`Switch` holds what a switch keeps (running-config tree, startup-config, bootflash files, a pending `configure
replace` and its commit timer); `Session` is one CLI session (its mode) and answers one command line at a time.
Operational state comes from a JSON file the test writes, read at each `show`:
  {"bgp_down": [neighbour, ...],               # sessions never Established
   "bgp_down_after_replace": [neighbour, ...], # sessions a `configure replace` breaks until a rollback undoes it
   "lldp": [{"local": "Eth1/33", "name": "p1-spine1", "port": "Eth1/1"}, ...]}
BGP neighbours are those of the running-config's `router bgp` (remote AS from `remote-as` or the inherited
`template peer`), so a replace that drops a neighbour drops its session. Every command is logged (JSON lines, one
file for all switches) with the switch's name, so a test sees the order within and across switches.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from pathlib import Path
from typing import Any

from tests.nxos_standin import config
from tests.nxos_standin.config import Node

INVALID = "% Invalid command at '^' marker."
HEADER = "\n!Command: show running-config\n!Time: Tue Nov 24 00:00:00 2026\n\n"
BOOTFLASH_TOTAL = 53_687_091_200  # 50 GiB, a Nexus 9300's bootflash order of size


class Switch:
    def __init__(self, name: str, running: str, state: Path, log: Path, log_lock: threading.Lock) -> None:
        self.name = name
        self.running = config.parse(running)
        self.startup = running
        self.bootflash: dict[str, bytes] = {}
        self.state = state
        self.log_path = log
        self.log_lock = log_lock
        self.lock = threading.RLock()
        self.before_replace: Node | None = None  # set while a replace waits for `configure replace commit`
        self.timer: threading.Timer | None = None
        self.replaced = False  # a replace is in effect (not rolled back): bgp_down_after_replace applies
        self.replace_targets: list[str] = []  # the files `configure replace` applied, in order

    def log(self, entry: dict[str, Any]) -> None:
        with self.log_lock, open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"t": time.time(), "host": self.name, **entry}) + "\n")

    def world(self) -> dict[str, Any]:
        return json.loads(self.state.read_text()) if self.state.exists() else {}

    def running_text(self) -> str:
        return config.text(self.running)

    def scp_server(self) -> bool:
        """Whether SCP to this switch works: `feature scp-server` (cisco.nxos nxos_file_copy: pushing a file needs
        it)."""
        with self.lock:
            return self.running.child("feature scp-server") is not None

    def cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer = None
        self.before_replace = None

    def _timer_expired(self) -> None:
        with self.lock:
            if self.before_replace is not None:  # NX-OS rolls back to the configuration before the replace
                self.running, self.replaced = self.before_replace, False
                self.log({"event": "commit-timeout expired: rolled back"})
            self.before_replace, self.timer = None, None

    # operational state
    def bgp_json(self) -> dict[str, Any]:
        world = self.world()
        down = set(world.get("bgp_down", []))
        if self.replaced:
            down |= set(world.get("bgp_down_after_replace", []))
        bgp = next((c for c in self.running.children if c.text.startswith("router bgp ")), None)
        rows = []
        if bgp is not None:
            remote = {c.text.split()[2]: _leaf(c, "remote-as") for c in bgp.children
                      if c.text.startswith("template peer ")}
            for n in bgp.children:
                if not n.text.startswith("neighbor "):
                    continue
                peer = n.text.split()[1]
                inherit = _leaf(n, "inherit peer")
                asn = _leaf(n, "remote-as") or remote.get(inherit or "", "")
                rows.append({"neighborid": peer, "neighborversion": 4, "neighboras": asn,
                             "state": "Idle" if peer in down else "Established",
                             "prefixreceived": 0 if peer in down else 2})
        saf = {"safi": 1, "af-name": "IPv4 Unicast", "TABLE_neighbor": {"ROW_neighbor": rows}}
        af = {"af-id": 1, "TABLE_saf": {"ROW_saf": saf}}
        vrf = {"vrf-name-out": "default", "vrf-local-as": bgp.text.split()[2] if bgp else "",
               "TABLE_af": {"ROW_af": af}}
        return {"TABLE_vrf": {"ROW_vrf": vrf}}

    def lldp_json(self) -> dict[str, Any]:
        rows = [{"chassis_id": "0c42.a100.0001", "port_id": n["port"], "l_port_id": n["local"],
                 "sys_name": n["name"], "ttl": 120}
                for n in self.world().get("lldp", [])]
        return {"TABLE_nbor_detail": {"ROW_nbor_detail": rows}}


def _leaf(node: Node, keyword: str) -> str | None:
    """The value of `keyword VALUE` among the node's lines."""
    return next((c.text[len(keyword) + 1:] for c in node.children if c.text.startswith(keyword + " ")), None)


def _bootflash_name(path: str) -> str:
    return re.sub(r"^bootflash:/*", "", path)


class Session:
    """One CLI session: exec mode or a stack of configuration modes."""

    def __init__(self, switch: Switch) -> None:
        self.switch = switch
        self.modes: list[Node] | None = None  # None: exec mode

    def prompt(self) -> str:
        host = config.hostname(self.switch.running)
        if self.modes is None:
            return f"{host}# "
        return f"{host}({self.modes[-1].kind if len(self.modes) > 1 else 'config'})# "

    def run(self, line: str) -> str | None:
        """The output of one command line (None: close the session)."""
        line = line.strip()
        if not line:
            return ""
        with self.switch.lock:
            self.switch.log({"command": line, "mode": "exec" if self.modes is None else "config"})
            if self.modes is not None:
                return self._config(line)
            return self._exec(line)

    def _config(self, line: str) -> str:
        assert self.modes is not None
        if line == "end":
            self.modes = None
            return ""
        if line == "exit":
            self.modes = self.modes[:-1] if len(self.modes) > 1 else None
            return ""
        if line.startswith("no "):
            target = line[3:]
            for depth in range(len(self.modes) - 1, -1, -1):
                if self.modes[depth].remove(target):
                    self.modes = self.modes[:depth + 1]
                    break
            return ""
        for depth in range(len(self.modes) - 1, -1, -1):  # a mode command: here or in a parent mode
            kind = config.sub_mode(self.modes[depth].kind, line)
            if kind is not None:
                self.modes = [*self.modes[:depth + 1], self.modes[depth].add(line, kind)]
                return ""
        self.modes[-1].add(line)
        return ""

    def _exec(self, line: str) -> str | None:
        sw = self.switch
        if line in ("exit", "logout"):
            return None
        if line in ("configure terminal", "config t"):
            self.modes = [sw.running]
            return "Enter configuration commands, one per line. End with CNTL/Z."
        if re.fullmatch(r"terminal (length \d+|width \d+|dont-ask)", line):
            return ""
        if line == "show version":
            return _show_version(sw.name)
        if line == "show inventory":
            return ('NAME: "Chassis",  DESCR: "Nexus9000 C9364D-GX2A Chassis"\n'
                    "PID: N9K-C9364D-GX2A     ,  VID: V01  ,  SN: FDO00000000\n")
        if line == "show running-config":
            return HEADER + sw.running_text()
        if line == "show bgp ipv4 unicast summary | json":
            return json.dumps(sw.bgp_json())
        if line == "show lldp neighbors detail | json":
            return json.dumps(sw.lldp_json())
        if m := re.fullmatch(r"dir (bootflash:\S*)", line):
            return self._dir(_bootflash_name(m.group(1)))
        if m := re.fullmatch(r"show file (bootflash:\S+) md5sum", line):
            data = sw.bootflash.get(_bootflash_name(m.group(1)))
            return hashlib.md5(data).hexdigest() if data is not None else "No such file or directory"
        if m := re.fullmatch(r"delete (bootflash:\S+) no-prompt", line):
            return "" if sw.bootflash.pop(_bootflash_name(m.group(1)), None) is not None else \
                "No such file or directory"
        if m := re.fullmatch(r"checkpoint file (\S+)", line):
            sw.bootflash[_bootflash_name(m.group(1))] = sw.running_text().encode()
            return "Done"
        if m := re.fullmatch(r"rollback running-config file (\S+)", line):
            data = sw.bootflash.get(_bootflash_name(m.group(1)))
            if data is None:
                return "% Error: checkpoint file does not exist"
            sw.cancel_timer()
            sw.running, sw.replaced = config.parse(data.decode()), False
            return "Rollback completed successfully."
        if m := re.fullmatch(r"configure replace (bootflash:\S+) commit-timeout (\d+)", line):
            return self._replace(_bootflash_name(m.group(1)), int(m.group(2)))
        if line == "configure replace commit":
            if sw.before_replace is None:
                return "% Error: there is no configure replace waiting for its commit"
            sw.cancel_timer()
            return "Configure replace committed."
        if line == "copy running-config startup-config":
            sw.startup = sw.running_text()
            return "[########################################] 100%\nCopy complete."
        return INVALID

    def _dir(self, name: str) -> str:
        files = self.switch.bootflash
        if name and name not in files:
            return "No such file or directory"
        shown = [name] if name else sorted(files)
        used = sum(len(v) for v in files.values())
        return "".join(f"{len(files[f]):>12}    Nov 24 00:00:00 2026  {f}\n" for f in shown) + (
            f"\nUsage for bootflash://sup-local\n {used} bytes used\n {BOOTFLASH_TOTAL - used} bytes free\n"
            f" {BOOTFLASH_TOTAL} bytes total\n")

    def _replace(self, name: str, timeout: int) -> str:
        sw = self.switch
        data = sw.bootflash.get(name)
        if data is None:
            return f"% Error: bootflash:{name} does not exist"
        if not 30 <= timeout <= 3600:  # NX-OS's range for the commit timer (System Management guide)
            return "% Invalid number, range is (30:3600) at '^' marker."
        if sw.before_replace is not None:
            return "% Error: a configure replace is waiting for its commit"
        sw.before_replace, sw.running, sw.replaced = sw.running, config.parse(data.decode()), True
        sw.replace_targets.append(data.decode())
        sw.timer = threading.Timer(timeout, sw._timer_expired)
        sw.timer.daemon = True
        sw.timer.start()
        # the first and last lines as NX-OS 9.3 prints them (a public transcript); the commit-timer line is the
        # stand-in's own wording
        return ("Version match between user file and running configuration.\nPre-check for User config PASSED\n"
                "Collecting Running-Config\nGenerating Rollback Patch\nExecuting Rollback Patch\n\n"
                f"Commit timer started: 'configure replace commit' within {timeout} seconds.\n"
                "Configure replace completed successfully. Please run 'show config-replace log exec' to see if "
                "there is any configuration that requires reload to take effect.")


def _show_version(name: str) -> str:
    return ("Cisco Nexus Operating System (NX-OS) Software\n\nSoftware\n  BIOS: version 01.10\n"
            "  NXOS: version 10.4(3)\n  NXOS image file is: bootflash:///nxos64-cs.10.4.3.F.bin\n\n"
            "Hardware\n  cisco Nexus9000 C9364D-GX2A Chassis\n\n"
            f"  Device name: {name}\n  bootflash:   53687091 kB\n")
