"""How many CPUs this process may use, and whether it may fork (the render workers, the checker and the hashing
processes)."""

from __future__ import annotations

import multiprocessing
import os
import sys


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask, which containers and taskset narrow)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    """Can work be handed to forked processes here (not on Windows, which has no fork)?"""
    return sys.platform != "win32" and "fork" in multiprocessing.get_all_start_methods()
