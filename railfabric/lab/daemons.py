"""One FRR instance (zebra, bfdd, bgpd) per switch namespace, loaded with the generated frr.conf verbatim.

Each instance has its own FRR pathspace, its namespace's name (`-N rf<run>-<host>`, unique per lab run): vty sockets,
pid files and zserv.api under /var/run/frr/rf<run>-<host>/, bfdd's control socket there too (--bfdctl), daemons run as
frr:frr, each under `unshare --uts` with the switch's hostname. Order matters on FRR 8.4: zebra first (a client that
finds no zserv.api retries only after 10 s), then bfdd and bgpd; `vtysh -b` only once `show daemons` lists all three (a
daemon whose socket exists but does not answer yet is silently skipped). The config is then checked as loaded (the
`router bgp` line and every neighbour are in the running config), and the lab overlays in OVERLAYS are applied on top.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from railfabric.lab.model import LabError, LabNode
from railfabric.lab.runs import Registry

FRR = Path("/usr/lib/frr")
RUN = Path("/var/run/frr")
DAEMONS = ("zebra", "bfdd", "bgpd")

# The only changes the lab makes to the generated configuration, applied after it is loaded verbatim. Each
# `{group}` line is repeated for every peer group of the switch's frr.conf.
OVERLAYS: tuple[tuple[str, str], ...] = (
    ("bgp route-map delay-timer 0",
     "bgpd holds every peer until its route-map timer (5 s) fires after a config load; release at once"),
    ("router bgp {asn}", "(context for the lines below: the ASN as loaded)"),
    (" neighbor {group} timers connect 1",
     "retry a refused connection after 1 s instead of 10 s (frr defaults datacenter): bring-up speed only"),
    ("exit", ""),
)


def overlay_text(conf: str) -> str:
    asn = re.search(r"^router bgp (\d+)$", conf, re.M)
    if asn is None:
        return ""
    groups = re.findall(r"^ neighbor (\S+) peer-group$", conf, re.M)
    lines = []
    for template, _why in OVERLAYS:
        if "{group}" in template:
            lines += [template.format(group=g) for g in groups]
        else:
            lines.append(template.format(asn=asn.group(1)))
    return "\n".join(lines) + "\n"


def check_frr() -> str | None:
    """Why FRR cannot run here, or None."""
    missing = [str(FRR / d) for d in DAEMONS if not (FRR / d).exists()]
    if missing or shutil.which("vtysh") is None:
        return "FRR is not installed (apt-get install frr): missing " + ", ".join(missing or ["vtysh"])
    try:
        import pwd

        pwd.getpwnam("frr")
    except KeyError:
        return "the frr user does not exist (install the frr package)"
    return None


class Instances:
    def __init__(self, nodes: list[LabNode], reg: Registry, cfg_root: Path) -> None:
        self.nodes = nodes
        self.reg = reg
        self.cfg_root = cfg_root
        self.procs: dict[tuple[str, str], subprocess.Popen] = {}
        self.load_errors: dict[str, str] = {}  # node → vtysh output when loading was not clean

    def run_dir(self, node: LabNode) -> Path:
        return RUN / node.ns

    def vtysh(self, node: LabNode, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run(["vtysh", "-N", node.ns, "--config_dir", str(self.cfg_root), *args],
                              capture_output=True, text=True, timeout=timeout)

    def prepare(self) -> None:
        import pwd

        frr = pwd.getpwnam("frr")
        for node in self.nodes:
            run = self.run_dir(node)
            self.reg.add_dir(run)
            run.mkdir(parents=True, exist_ok=True)
            os.chown(run, frr.pw_uid, frr.pw_gid)
            cfg = self.cfg_root / node.ns
            cfg.mkdir(parents=True, exist_ok=True)
            (cfg / "frr.conf").write_text(node.frr_conf, encoding="utf-8")
            (cfg / "vtysh.conf").write_text("", encoding="utf-8")
            (cfg / "lab-overlay.conf").write_text(overlay_text(node.frr_conf), encoding="utf-8")

    def _start(self, node: LabNode, daemon: str) -> None:
        run = self.run_dir(node)
        extra = {"zebra": ["-s", "90000000"], "bfdd": ["--bfdctl", str(run / "bfdd.sock")]}.get(daemon, [])
        argv = ["ip", "netns", "exec", node.ns, "unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"',
                node.name, str(FRR / daemon), "-N", node.ns, "-u", "frr", "-g", "frr", "-P", "0",
                "--log", f"file:{run / (daemon + '.log')}", *extra]
        with open(run / f"{daemon}.out", "wb") as out:
            # ip netns exec, unshare and `sh -c exec` all exec in place: the pid is the daemon's
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        self.procs[(node.name, daemon)] = proc
        self.reg.add_pid(proc.pid, node.ns, daemon)

    def _wait(self, what: str, ok: Callable[[LabNode], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        pending = list(self.nodes)
        while pending:
            self.check_alive()
            pending = [n for n in pending if not ok(n)]
            if not pending:
                return
            if time.monotonic() > deadline:
                raise LabError(f"FRR did not come up: {what} missing for {', '.join(n.name for n in pending[:5])}")
            time.sleep(0.02)

    def check_alive(self) -> None:
        for (name, daemon), proc in self.procs.items():
            if proc.poll() is not None:
                node = next(n for n in self.nodes if n.name == name)
                out = (self.run_dir(node) / f"{daemon}.out").read_text(errors="replace").strip()
                raise LabError(f"{daemon} of {name} exited with {proc.returncode}: {out[-400:]}")

    def start(self) -> None:
        for node in self.nodes:
            self._start(node, "zebra")
        self._wait("zserv.api", lambda n: (self.run_dir(n) / "zserv.api").exists(), 20)
        for node in self.nodes:
            self._start(node, "bfdd")
            self._start(node, "bgpd")

        def ready(node: LabNode) -> bool:
            out = self.vtysh(node, "-c", "show daemons").stdout.split()
            return all(d in out for d in DAEMONS)

        with ThreadPoolExecutor(8) as pool:
            deadline = time.monotonic() + 30
            pending = list(self.nodes)
            while pending:
                self.check_alive()
                pending = [n for n, up in zip(pending, pool.map(ready, pending), strict=True) if not up]
                if pending and time.monotonic() > deadline:
                    raise LabError(f"FRR vty not answering for {', '.join(n.name for n in pending[:5])}")

    def load(self) -> None:
        """`vtysh -b` of the verbatim frr.conf, checked as loaded, then the overlays; in parallel."""
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(self._load_one, self.nodes))

    def _load_one(self, node: LabNode) -> None:
        asn = re.search(r"^router bgp (\d+)$", node.frr_conf, re.M)
        want = len(re.findall(r"^ neighbor \S+ peer-group \S+$", node.frr_conf, re.M))
        problems = ""
        for _attempt in range(3):
            proc = self.vtysh(node, "-b")
            out = (proc.stdout + proc.stderr).strip()
            if out or proc.returncode != 0:
                problems = f"vtysh -b exit {proc.returncode}: {out[:600]}"
            running = self.vtysh(node, "-c", "show running-config").stdout
            got = len(re.findall(r"^ neighbor \S+ peer-group \S+$", running, re.M))
            if (asn is None or f"router bgp {asn.group(1)}" in running) and got == want:
                break
            time.sleep(0.2)
        else:
            problems = problems or f"running config has {got} of {want} neighbours after 3 loads"
        if problems:
            self.load_errors[node.name] = problems
        overlay = self.cfg_root / node.ns / "lab-overlay.conf"
        if overlay.read_text():
            proc = self.vtysh(node, "-f", str(overlay))
            out = (proc.stdout + proc.stderr).strip()
            if proc.returncode != 0 or out:
                self.load_errors[node.name] = (self.load_errors.get(node.name, "") + f" overlay: {out[:300]}").strip()
