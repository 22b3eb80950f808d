"""A crew: lists of jobs worked by this process and by forked helpers together, each taking the next job as it is free.

Why not a process pool: a pool's workers do all the work while this process waits, and each worker forked from a
process holding a large fabric (1.3 GB at 131,072 GPUs) pays a copy-on-write fault for every page it touches (its
reference counts are written even when it only reads). At 131K that was about 10 s of system time over four
workers. A crew of N processes forks N - 1 helpers and lets this process work too, and each process takes first the
jobs that suit it: this one the whole-fabric files (which read everything: no copy for it), a helper the
per-device jobs (which touch little of the heap).

- `add(name, size, run, done)`: a list of `size` jobs; `run(i)` does job i in whichever process takes it and returns
  a picklable result; `done(i)` (optional) is called in this process when job i is finished (a helper announces
  each job as it finishes and sends all its results at the end: a result sent at once would wait in a full pipe
  until this process, busy with its own jobs, read it; at 131K a helper lost 1.5 s that way). A list is seen by
  the helpers hired after it was added: the jobs and what they read are inherited by fork, never pickled.
- `hire(n, order)`: fork n helpers, each working through the lists named in `order` (earlier names first).
- `work(order)`: this process takes jobs the same way until every job of those lists is taken.
- `results(name)`: wait for every job of a list; the first error of any job (or a helper that died) is raised here.
- `close()`: stop the helpers still running (after an error, or when the run ends otherwise) and reap them.

Which process ran which job never changes a result: each job is a pure function of what it reads.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any


class HelperDied(RuntimeError):
    """A helper process ended without finishing the jobs it took (killed, or out of memory)."""


@dataclass
class _List:
    name: str
    size: int
    run: Callable[[int], Any]
    next: Any  # multiprocessing.Value: the index of the next job nobody took yet (shared by every process)
    done: Callable[[int], object] | None = None
    results: dict[int, Any] = field(default_factory=dict)

    def take(self) -> int | None:
        with self.next.get_lock():
            i = self.next.value
            if i >= self.size:
                return None
            self.next.value = i + 1
            return i


class Crew:
    """Jobs shared by this process and its forked helpers (see the module's docstring)."""

    def __init__(self) -> None:
        self._ctx = multiprocessing.get_context("fork")
        self._lists: dict[str, _List] = {}
        self._helpers: list[tuple[Any, Connection, threading.Thread]] = []
        self._cond = threading.Condition()
        self._error: BaseException | None = None

    def add(self, name: str, size: int, run: Callable[[int], Any], done: Callable[[int], object] | None = None) -> None:
        if name in self._lists:
            raise ValueError(f"the crew has a list named {name!r} already")
        self._lists[name] = _List(name, size, run, self._ctx.Value("q", 0), done)

    def hire(self, count: int, order: Sequence[str]) -> int:
        """Fork up to `count` helpers working the lists `order` names (those added so far); how many started (fewer
        when the system has no process to spare: this process then does their share)."""
        lists = [self._lists[n] for n in order if n in self._lists]
        started = 0
        for _ in range(count):
            mine, theirs = self._ctx.Pipe(duplex=False)
            proc = self._ctx.Process(target=_helper, args=(lists, theirs), daemon=True)
            try:
                proc.start()
            except OSError:
                mine.close()
                theirs.close()
                break
            theirs.close()
            reader = threading.Thread(target=self._read, args=(proc, mine), daemon=True)
            reader.start()
            self._helpers.append((proc, mine, reader))
            started += 1
        return started

    def work(self, order: Sequence[str]) -> None:
        """Take jobs from the lists `order` names until none is left; stops early when a helper's job failed."""
        for name in order:
            lst = self._lists.get(name)
            while lst is not None and self._error is None and (i := lst.take()) is not None:
                result = lst.run(i)  # an error here propagates as is: the caller closes the crew
                with self._cond:
                    lst.results[i] = result
                if lst.done is not None:
                    lst.done(i)

    def results(self, name: str) -> dict[int, Any]:
        """Every job's result of list `name` by job index, once all are in (run `work` first: a job nobody took is
        reported as lost once every helper has ended). Raises the first failure of any job."""
        lst = self._lists[name]
        with self._cond:
            while self._error is None and len(lst.results) < lst.size:
                if not any(proc.is_alive() or reader.is_alive() for proc, _c, reader in self._helpers):
                    self._error = HelperDied(f"{lst.size - len(lst.results)} {name} jobs were taken by a render "
                                             "worker that ended without finishing them")
                    break
                self._cond.wait(0.5)
            if self._error is not None:
                raise self._error
            return lst.results

    def close(self) -> None:
        """Stop every helper still running and reap them all (idempotent)."""
        for proc, conn, reader in self._helpers:
            if proc.is_alive():
                proc.terminate()
            proc.join()
            conn.close()
            reader.join()
        self._helpers = []

    def _read(self, proc: Any, conn: Connection) -> None:
        """A helper's messages, in a thread of this process: each job finished, then all its results; or an
        error."""
        while True:
            try:
                kind, name, i, value = conn.recv()
            except (EOFError, OSError):
                proc.join()
                with self._cond:
                    if self._error is None and proc.exitcode not in (0, None, -signal.SIGTERM):  # ours: close()
                        self._error = HelperDied(f"a render worker ended with exit code {proc.exitcode}")
                    self._cond.notify_all()
                return
            if kind == "finished":
                done = self._lists[name].done
                if done is not None:
                    done(i)
            elif kind == "results":
                with self._cond:
                    for list_name, results in value.items():
                        self._lists[list_name].results.update(results)
                    self._cond.notify_all()
            elif kind == "error":
                with self._cond:
                    if self._error is None:
                        self._error = value
                    self._cond.notify_all()


def _helper(lists: list[_List], conn: Connection) -> None:
    """A helper's life: the jobs of `lists`, in order. Each finished job is announced at once (a few bytes: the
    pipe never fills, so the helper never waits for the parent, which reads between its own jobs), and every
    result is sent at the end in one message."""
    results: dict[str, dict[int, Any]] = {}
    try:
        for lst in lists:
            mine = results.setdefault(lst.name, {})
            while (i := lst.take()) is not None:
                try:
                    mine[i] = lst.run(i)
                except BaseException as exc:  # every failure is the parent's to report
                    conn.send(("error", lst.name, i, _portable(exc)))
                    return
                conn.send(("finished", lst.name, i, None))
        conn.send(("results", "", 0, results))
    finally:
        conn.close()


def _portable(exc: BaseException) -> BaseException:
    """`exc` as it can cross to the parent: with the helper's traceback as a note (shown with --debug); an error
    that cannot be pickled becomes a RuntimeError with its text."""
    import pickle

    note = "in a render worker:\n" + "".join(traceback.format_exception(exc))
    try:
        pickle.dumps(exc)
    except Exception:  # not picklable
        exc = RuntimeError(f"{type(exc).__name__}: {exc}")
    exc.add_note(note)
    return exc
