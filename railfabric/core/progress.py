"""Progress of a long run (render at scale, the lab's bring-up), told to the person waiting or to a CI log.

The stages (railfabric.pipeline, railfabric.emit.build, railfabric.lab) see only the `Progress` protocol below: `stage`
starts a named step (with the number of units it has, when counted), `advance`/`update` count them, `note` is a line
worth keeping. Three implementations:

- `SilentProgress`: nothing (`-q`, and the default when stderr is not a terminal, so CI logs and captured output
  hold only what the command prints);
- `PlainProgress`: one plain line per stage, with the time since the start, and a line at each quarter of a
  counted stage that has many units: no escape codes, no carriage returns (`-v`, for logs);
- a rich progress bar on a terminal (railfabric/core/progress_rich.py: the only module that imports rich).

`for_cli` picks one from the command's -q/-v flags and whether stderr is a terminal.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Protocol, TextIO


class Progress(Protocol):
    def stage(self, text: str, total: int | None = None) -> None:
        """Start a step (the previous one ends); `total`: its units of work when they are counted."""

    def advance(self, n: int = 1) -> None:
        """`n` more units of the current step done (callable from any thread)."""

    def update(self, completed: int) -> None:
        """The current step has `completed` units done (a count that can also go down, e.g. BGP sessions up)."""

    def note(self, text: str) -> None:
        """A line to keep (e.g. 'waiting for another render')."""

    def close(self) -> None:
        """The run is over: remove a bar, print nothing more."""


class SilentProgress:
    """Tells nothing."""

    def stage(self, text: str, total: int | None = None) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def update(self, completed: int) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


SILENT = SilentProgress()

QUARTERS_FROM = 100  # a counted step of at least this many units also logs each quarter done


class PlainProgress:
    """`[  1.23s] text` lines on `stream`: a line per stage and per note; a counted stage of QUARTERS_FROM units
    or more also gets a line at 25, 50 and 75 % done. Thread-safe."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._start = time.perf_counter()
        self._lock = threading.Lock()
        self._text = ""
        self._total: int | None = None
        self._done = 0
        self._quarter = 0  # quarters of the current stage already logged

    def _line(self, text: str) -> None:
        self._stream.write(f"[{time.perf_counter() - self._start:6.2f}s] {text}\n")
        self._stream.flush()

    def stage(self, text: str, total: int | None = None) -> None:
        with self._lock:
            self._text, self._total, self._done, self._quarter = text, total, 0, 0
            self._line(text if total is None else f"{text} ({total:,})")

    def advance(self, n: int = 1) -> None:
        with self._lock:
            self._count(self._done + n)

    def update(self, completed: int) -> None:
        with self._lock:
            self._count(completed)

    def _count(self, done: int) -> None:
        self._done = done
        total = self._total
        if total is None or total < QUARTERS_FROM:
            return
        quarter = min(3, 4 * done // total)
        if quarter > self._quarter:
            self._quarter = quarter
            self._line(f"  {self._text}: {done:,} of {total:,}")

    def note(self, text: str) -> None:
        with self._lock:
            self._line(text)

    def close(self) -> None:
        pass


def is_terminal(stream: TextIO) -> bool:
    """A terminal that can draw a bar: a tty, and TERM is not 'dumb'."""
    try:
        return stream.isatty() and os.environ.get("TERM", "") != "dumb"
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


def for_cli(quiet: bool = False, verbose: bool = False, stream: TextIO | None = None) -> Progress:
    """-v: plain stage lines (wins over -q, which then only trims what goes to stdout); -q: nothing; otherwise a
    bar when `stream` (stderr) is a terminal, nothing when it is not."""
    err = stream if stream is not None else sys.stderr
    if verbose:
        return PlainProgress(err)
    if quiet or not is_terminal(err):
        return SILENT
    from railfabric.core.progress_rich import RichProgress

    return RichProgress(err, redirect_stdout=is_terminal(sys.stdout))
