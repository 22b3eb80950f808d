"""stdout and stderr whose reader went away (`fabric validate | head -1`, a CI log that stops reading).

A write to a pipe whose reader has closed fails with EPIPE (Python ignores SIGPIPE, so it is a BrokenPipeError).
Left to itself that exception ends the command where it was writing, and whatever exit code it would have had is
lost: `set -o pipefail; fabric render --check | head -1` would exit 0 on a stale tree, and a CI gate written that
way passes everything. So the streams are wrapped (`guard`): the first EPIPE points the stream's file descriptor at
/dev/null (what is still buffered, and every later write, goes nowhere, and the interpreter's last flush at exit
cannot fail: no "Exception ignored ... BrokenPipeError"), and the command runs to its end and exits with the code
it would have had on an open pipe. Nothing more is printed once the reader is gone.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO


class Guarded:
    """A text stream (`sys.stdout`, `sys.stderr`) whose write and flush never raise BrokenPipeError; everything
    else is the wrapped stream's (isatty, fileno, encoding, buffer, ...)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.broken = False  # the reader went away: nothing more is written

    def write(self, text: str) -> int:
        if self.broken:
            return len(text)
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._silence()
            return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.broken:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._silence()

    def _silence(self) -> None:
        """The reader is gone: the descriptor now writes to /dev/null, so the stream's buffer (still holding what
        the failed write could not pass on) drains there instead of failing again at every flush."""
        self.broken = True
        try:
            fd = self._stream.fileno()
            null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
            try:
                os.dup2(null, fd)
            finally:
                os.close(null)
            self._stream.flush()
        except (OSError, ValueError):  # no descriptor (an in-memory stream), or closed: nothing to drain
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _fill_closed_descriptors() -> None:
    """A command started with stdin, stdout or stderr closed (`fabric validate >&-`) gets /dev/null there: else the
    first file it opens would take descriptor 1 and everything printed, by it or a child process, would land in
    that file. Python starts such a process with sys.stdout (or stdin, stderr) None: it becomes /dev/null too."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: this one
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        if getattr(sys, name) is None:
            setattr(sys, name, open(fd, "r" if fd == 0 else "w", encoding="utf-8", closefd=False))  # noqa: SIM115


def guard() -> None:
    """Wrap sys.stdout and sys.stderr (once) so that a closed reader never changes what the command does or how
    it exits; a descriptor closed from the start is /dev/null."""
    _fill_closed_descriptors()
    if not isinstance(sys.stdout, Guarded) and sys.stdout is not None:
        sys.stdout = Guarded(sys.stdout)
    if not isinstance(sys.stderr, Guarded) and sys.stderr is not None:
        sys.stderr = Guarded(sys.stderr)
