"""How the `fabric` command's process keeps the memory it frees (glibc's malloc only).

A render builds big transient buffers: a whole-fabric CSV is a list of rows, then their joined text, then its
bytes, tens of MB each at 131,072 GPUs. By default glibc gives every big block (over 128 KiB, a threshold that adapts
upwards to 32 MiB as such blocks are freed) a mapping of its own and unmaps it when it is freed, and it trims the top
of its heap once more than 128 KiB there is free; so the next buffer of that size faults every page in again:
1.4 µs per 4 KiB page on the bench machine, 2.3 µs once a forked helper shares the page. `keep_freed_memory` tells
malloc to serve every block from its heap and never trim it, so freed buffers are reused as they are. At 131,072 GPUs
that took the main process from about 1.16M to 0.90M page faults and its system time from about 3 s to 2.1 s; its
peak RSS grew by about 40-60 MiB (blocks that would have been unmapped stay in the heap until the process ends).

Only for the command: a library caller's process lives on and keeps its malloc as it chose. Elsewhere (musl, macOS,
a glibc without mallopt) nothing changes.
"""

from __future__ import annotations

import os

M_TRIM_THRESHOLD = -1  # glibc malloc.h: free memory at the top of the heap kept up to this many bytes
M_MMAP_MAX = -4  # glibc malloc.h: how many blocks may be mmap()ed apart from the heap (0: none)
KEEP_BYTES = 1 << 30  # more than a render ever frees at once at 131,072 GPUs; the process ends soon after


def glibc() -> bool:
    """Is this process's C library glibc (whose mallopt takes the parameters above)?"""
    try:
        return os.confstr("CS_GNU_LIBC_VERSION") is not None
    except (ValueError, OSError, AttributeError):
        return False


def keep_freed_memory() -> bool:
    """Ask glibc's malloc to keep freed memory for reuse (see the module docstring). True when it agreed to both."""
    if not glibc():
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_TRIM_THRESHOLD, KEEP_BYTES)) & bool(mallopt(M_MMAP_MAX, 0))
