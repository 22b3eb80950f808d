"""Ending processes a lab started: SIGTERM, a grace period, then SIGKILL, waiting until each is gone (reaped when it
is our own child, or a zombie / no longer in /proc). Shared by the FRR lab's teardown (railfabric/lab/teardown.py)
and the InfiniBand lab's reaper (railfabric/infiniband/labruns.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path


def gone(pid: int) -> bool:
    """True when `pid` has ended: reaped here if it is our child, else absent from /proc or a zombie."""
    with contextlib.suppress(ChildProcessError, OSError):
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def terminate(pids: Iterable[int], grace: float = 3.0) -> None:
    """SIGTERM each, SIGKILL what is left after `grace` seconds, then wait up to 2 s for each to be gone. A process
    that is already gone or not ours to signal (PermissionError) is skipped."""
    pending = list(dict.fromkeys(pids))
    for pid in pending:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while pending and time.monotonic() < deadline:
        pending = [p for p in pending if not gone(p)]
        if pending:
            time.sleep(0.05)
    for pid in pending:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    for pid in pending:
        for _ in range(100):
            if gone(pid):
                break
            time.sleep(0.02)
