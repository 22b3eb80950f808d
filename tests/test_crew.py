"""The crew (railfabric/emit/crew.py): jobs shared by this process and forked helpers, each job done once, results by
index, failures raised in this process, and no helper left behind."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest

from railfabric.core.cpus import can_fork
from railfabric.emit.crew import Crew, HelperDied

pytestmark = pytest.mark.skipif(not can_fork(), reason="no fork here")


def _square(i: int) -> tuple[int, int]:
    return i * i, os.getpid()


def _slow_square(i: int) -> tuple[int, int]:
    time.sleep(0.002)
    return _square(i)


def test_every_job_is_done_once_by_someone() -> None:
    crew = Crew()
    seen: list[int] = []
    crew.add("a", 200, _slow_square, seen.append)
    crew.add("b", 50, lambda i: (-i, os.getpid()))
    try:
        assert crew.hire(2, ("a", "b")) == 2
        crew.work(("b", "a"))
        a, b = crew.results("a"), crew.results("b")
    finally:
        crew.close()
    assert {i: v for i, (v, _pid) in a.items()} == {i: i * i for i in range(200)}
    assert {i: v for i, (v, _pid) in b.items()} == {i: -i for i in range(50)}
    assert sorted(seen) == list(range(200))  # done(i) once per job, whoever did it
    pids = {pid for _v, pid in [*a.values(), *b.values()]}
    assert os.getpid() in pids  # this process worked too ...
    assert len(pids) >= 2  # ... and so did a helper (200 jobs of 2 ms: they cannot all be taken before it starts)
    assert multiprocessing.active_children() == []


def test_a_list_added_after_the_helpers_is_done_here() -> None:
    crew = Crew()
    crew.add("early", 20, _slow_square)
    try:
        crew.hire(1, ("early",))
        crew.add("late", 30, _square)  # the helper was forked before it: it cannot see it
        crew.work(("late", "early"))
        late = crew.results("late")
        crew.results("early")
    finally:
        crew.close()
    assert {pid for _v, pid in late.values()} == {os.getpid()}


def _fails_at_7(i: int) -> int:
    if i == 7:
        raise ValueError("job 7 went wrong")
    return i


def test_a_helpers_failure_is_raised_here_with_its_traceback() -> None:
    crew = Crew()
    crew.add("jobs", 8, _fails_at_7)
    try:
        crew.hire(1, ("jobs",))  # this process takes nothing: the helper meets job 7
        with pytest.raises(ValueError, match="job 7 went wrong") as err:
            crew.results("jobs")
    finally:
        crew.close()
    assert any("in a render worker" in n and "_fails_at_7" in n for n in err.value.__notes__)
    assert multiprocessing.active_children() == []


def _killed_at_3(i: int) -> int:
    if i == 3:
        os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer would
    return i


def test_a_helper_that_dies_is_an_error_not_a_hang() -> None:
    crew = Crew()
    crew.add("jobs", 6, _killed_at_3)
    try:
        crew.hire(1, ("jobs",))
        with pytest.raises(HelperDied, match="exit code -9"):
            crew.results("jobs")
    finally:
        crew.close()
    assert multiprocessing.active_children() == []


def _forever(_i: int) -> int:
    time.sleep(600)
    return 0


def test_close_stops_helpers_at_work() -> None:
    """A run that ends otherwise (this process's own job failed, the checks found errors, Ctrl-C) closes the crew
    while a helper is busy: the helper is stopped at once, not waited for."""
    crew = Crew()
    crew.add("long", 1, _forever)
    crew.hire(1, ("long",))
    deadline = time.monotonic() + 10
    while crew._lists["long"].next.value == 0 and time.monotonic() < deadline:  # the helper took the long job
        time.sleep(0.01)
    start = time.monotonic()
    crew.close()
    assert time.monotonic() - start < 5
    assert multiprocessing.active_children() == []


def test_no_process_to_spare_means_this_process_does_it_all(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork(self: object) -> None:
        raise OSError(11, "Resource temporarily unavailable")
    crew = Crew()
    monkeypatch.setattr(crew._ctx.Process, "start", no_fork)
    crew.add("jobs", 10, _square)
    try:
        assert crew.hire(2, ("jobs",)) == 0
        crew.work(("jobs",))
        assert {v for v, _pid in crew.results("jobs").values()} == {i * i for i in range(10)}
    finally:
        crew.close()


def test_a_list_name_is_used_once() -> None:
    crew = Crew()
    crew.add("jobs", 1, _square)
    with pytest.raises(ValueError, match="'jobs'"):
        crew.add("jobs", 1, _square)
