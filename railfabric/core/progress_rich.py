"""The progress bar on a terminal (rich): one line that names the current step, its bar and count when counted,
the step's time and the run's. The only module that imports rich; railfabric.core.progress chooses it for a terminal."""

from __future__ import annotations

import time
from typing import TextIO

from rich.console import Console, RenderableType
from rich.progress import BarColumn, Progress, ProgressColumn, SpinnerColumn, Task, TaskID, TextColumn
from rich.text import Text


class _Spinner(SpinnerColumn):
    """Spins until the step ends, also once its count is full (the fabric-wide files may still be in the works)."""

    def render(self, task: Task) -> RenderableType:
        return self.spinner.render(task.get_time())


class _Count(ProgressColumn):
    """'1,234/5,632' for a counted step, nothing otherwise."""

    def render(self, task: Task) -> Text:
        if task.total is None:
            return Text("")
        return Text(f"{int(task.completed):,}/{int(task.total):,}", style="progress.download")


class _Times(ProgressColumn):
    """The step's time and, once it differs, the run's: '0:07 (run 0:21)'."""

    def __init__(self, start: float) -> None:
        super().__init__()
        self._start = start

    def render(self, task: Task) -> Text:
        step = task.elapsed or 0.0
        run = time.monotonic() - self._start
        text = _clock(step) + (f" (run {_clock(run)})" if run - step >= 1 else "")
        return Text(text, style="progress.elapsed")


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}"


class RichProgress:
    """A transient bar on `stream` (it is gone when the run ends, leaving only what the command prints). With
    `redirect_stdout` (stdout is the same terminal) lines printed to stdout meanwhile appear above the bar."""

    def __init__(self, stream: TextIO, redirect_stdout: bool = False) -> None:
        self._start = time.monotonic()
        self._bar = Progress(_Spinner(), TextColumn("{task.description}"), BarColumn(bar_width=32), _Count(),
                             _Times(self._start), console=Console(file=stream), transient=True,
                             redirect_stdout=redirect_stdout, redirect_stderr=False, get_time=time.monotonic)
        self._task: TaskID | None = None
        self._started = False

    def stage(self, text: str, total: int | None = None) -> None:
        if not self._started:
            self._bar.start()
            self._started = True
        if self._task is not None:
            self._bar.remove_task(self._task)
        self._task = self._bar.add_task(text, total=total)

    def advance(self, n: int = 1) -> None:
        if self._task is not None:
            self._bar.advance(self._task, n)

    def update(self, completed: int) -> None:
        if self._task is not None:
            self._bar.update(self._task, completed=completed)

    def note(self, text: str) -> None:
        self._bar.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def close(self) -> None:
        if self._started:
            self._bar.stop()
            self._started = False
