"""railfabric.core.heap: the command's malloc keeps freed memory, so a big buffer allocated again faults no page in."""

from __future__ import annotations

import subprocess
import sys

import pytest

from railfabric.core.heap import glibc, keep_freed_memory

# A child allocates a 64 MiB buffer, frees it, and counts the minor page faults of allocating and touching a second
# one. 64 MiB is 16,384 pages of 4 KiB: by default glibc mmap()s a block that big and unmaps it when freed, so the
# second buffer faults in all 16,384 pages again; with the heap kept the second buffer reuses the first's pages.
CHILD = """
import resource, sys
from railfabric.core.heap import keep_freed_memory
if sys.argv[1] == "keep":
    assert keep_freed_memory()
size = 64 << 20
first = bytearray(size)
del first
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
second = bytearray(size)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True, check=True)
    return int(out.stdout)


@pytest.mark.skipif(not glibc(), reason="mallopt is glibc's")
def test_a_freed_buffer_is_reused_without_faults() -> None:
    default, kept = _faults("default"), _faults("keep")
    assert default >= 16_384 * 9 // 10  # every page of the second buffer faulted in (huge pages aside)
    assert kept < 1_000  # the heap's pages are reused: no page of 64 MiB faults again


def test_elsewhere_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("railfabric.core.heap.glibc", lambda: False)
    assert keep_freed_memory() is False
