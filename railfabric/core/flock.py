"""Whether another process holds an flock(2) lock on a file or directory, asked without waiting and without keeping
a lock: the render's staging directories (railfabric.emit.staging) and the lab's run locks (railfabric.lab.runs)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def held_elsewhere(path: Path, flags: int = os.O_RDONLY) -> bool:
    """Does some other open file hold an exclusive-conflicting lock on `path`? False when it cannot be opened or
    can be locked here (the probe's own lock goes with its descriptor)."""
    try:
        fd = os.open(path, flags | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops the lock the probe may have taken
    return False
