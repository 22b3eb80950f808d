"""Running the simulated subnet: ibsim, and the unmodified OpenSM and infiniband-diags talking to it.

How it runs here (found by experiment on Debian 12, ibsim-utils 0.10, opensm 3.3.23, infiniband-diags 44.0):
- `ibsim -s NETFILE --no-console` starts the subnet at once and prints "Network simulator ready." It listens on
  abstract unix datagram sockets named `@<IBSIM_SOCKNAME>:ctl@` and `:out<N>@` (default name "ibsim0"), so one
  lab per socket name can run beside others; no root, no kernel module, no /sys or /dev emulation is needed.
- Clients load `libumad2sim.so` (Debian package libumad2sim0, a dependency of ibsim-utils:
  /usr/lib/<triplet>/umad2sim/libumad2sim.so) with LD_PRELOAD, with the same IBSIM_SOCKNAME; SIM_HOST=<nodeid>
  attaches the client to that node (a switch's port 0 or an HCA; names with spaces work), else to the file's
  first node. libumad2sim replaces /dev/infiniband and /sys/class/infiniband{,_mad} for the client.
- OpenSM needs OSM_TMP_DIR and OSM_CACHE_DIR (guid2lid and friends) and a log_file it can write: one directory
  per SM in the lab's scratch directory. `opensm -F CONF -o` sweeps once and exits; the lab runs each SM as a
  daemon instead (`opensm -F CONF`), so the standby sees the master, with `force_log_flush TRUE` so that the log
  shows "SUBNET UP" / "Entering STANDBY state" as it happens (OpenSM buffers its log otherwise).
- At most 10 clients attach at once (IBSIM_MAX_CLIENTS); a standby SM polls the master for
  sminfo_polling_timeout x polling_retry_number (10 s x 4 by default) before taking over, too slow for a test.
Every process is started in its own session and ended by its process group id; the scratch directory is removed.
ibsim and each daemon are handed to `record` as they start (railfabric/infiniband/labruns.py: a run killed before
its teardown is reaped by the next one).
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TOOLS = ("ibsim", "opensm", "ibnetdiscover", "dump_fts", "smpquery")
PACKAGES = "ibsim-utils opensm infiniband-diags"
READY = "Network simulator ready"
# ibsim serves at most 10 clients at once (IBSIM_MAX_CLIENTS, linux-rdma/ibsim include/ibsim.h); the running SMs
# take one each. Concurrent diag clients, measured on 2 cores for 256 HCAs: 1 -> 46 s, 4 -> 12 s, 8 -> 6 s.
MAX_CLIENTS = 10
JOBS = 8


class SimError(RuntimeError):
    pass


def umad2sim() -> str | None:
    found = sorted(glob.glob("/usr/lib/*/umad2sim/libumad2sim.so") + glob.glob("/usr/lib*/umad2sim/libumad2sim.so"))
    return found[0] if found else None


def missing() -> str | None:
    """Why the lab cannot run here, or None."""
    absent = [t for t in TOOLS if shutil.which(t) is None and not os.path.exists(f"/usr/sbin/{t}")]
    if umad2sim() is None:
        absent.append("libumad2sim.so")
    if absent:
        return f"the InfiniBand lab needs {', '.join(absent)}: apt-get install {PACKAGES} (Debian 12)"
    return None


def _tool(name: str) -> str:
    return shutil.which(name) or f"/usr/sbin/{name}"


class Sim:
    """One simulated subnet in `workdir`; use as a context manager so it is always torn down."""

    def __init__(self, workdir: Path, sockname: str, record: Callable[[int], None] | None = None) -> None:
        """`record`: called with the pid of ibsim and of each daemon as it starts (the lab's run record)."""
        self.workdir = workdir
        self.record = record
        self.sockname = sockname
        self.procs: list[subprocess.Popen[bytes] | subprocess.Popen[str]] = []
        self.preload = umad2sim() or ""
        self.daemons = 0

    def __enter__(self) -> Sim:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, netfile: Path, timeout: float = 15) -> None:
        log = self.workdir / "ibsim.log"
        with log.open("wb") as out:
            proc = subprocess.Popen([_tool("ibsim"), "-s", str(netfile), "--no-console"], cwd=self.workdir,
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    env={**os.environ, "IBSIM_SOCKNAME": self.sockname}, start_new_session=True)
        self.procs.append(proc)
        if self.record is not None:
            self.record(proc.pid)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = log.read_text(errors="replace")
            if READY in text:
                return
            if proc.poll() is not None:
                raise SimError(f"ibsim exited with {proc.returncode}: {text.strip()[-400:]}")
            time.sleep(0.05)
        raise SimError(f"ibsim did not report '{READY}' within {timeout:g} s")

    def _env(self, host: str, state: Path) -> dict[str, str]:
        return {**os.environ, "LD_PRELOAD": self.preload, "IBSIM_SOCKNAME": self.sockname, "SIM_HOST": host,
                "OSM_TMP_DIR": str(state), "OSM_CACHE_DIR": str(state)}

    def run(self, args: list[str], host: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """A libibumad program, preloaded, attached to node `host`, run to its end."""
        proc = subprocess.Popen([_tool(args[0]), *args[1:]], cwd=self.workdir, env=self._env(host, self.workdir),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        self.procs.append(proc)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired as e:
            _end(proc)
            raise SimError(f"{args[0]} did not finish within {timeout:g} s") from e
        return subprocess.CompletedProcess(args, proc.returncode, out, err)

    def spawn(self, args: list[str], host: str, state: Path, output: Path) -> subprocess.Popen[bytes]:
        """A daemon (OpenSM) attached to `host`, its OSM_CACHE_DIR/OSM_TMP_DIR in `state`, its output in `output`;
        it holds one of ibsim's client slots until the lab ends."""
        state.mkdir(parents=True, exist_ok=True)
        with output.open("wb") as out:
            proc = subprocess.Popen([_tool(args[0]), *args[1:]], cwd=state, env=self._env(host, state),
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        self.procs.append(proc)
        if self.record is not None:
            self.record(proc.pid)
        self.daemons += 1
        return proc

    def run_many(self, commands: list[list[str]], host: str,
                 timeout: float = 60) -> list[subprocess.CompletedProcess[str]]:
        """Several short queries at once, in order, leaving one of ibsim's client slots free."""
        jobs = max(1, min(JOBS, MAX_CLIENTS - 1 - self.daemons))
        pool = ThreadPoolExecutor(max_workers=jobs)
        try:
            return list(pool.map(lambda args: self.run(args, host, timeout), commands))
        finally:  # interrupted (a signal, an error): the queries not started yet are dropped, not run first
            pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        for proc in reversed(self.procs):
            _end(proc)
        self.procs.clear()


def _end(proc: subprocess.Popen[bytes] | subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
        except ProcessLookupError:
            pass
    else:
        proc.wait()
