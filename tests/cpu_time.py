"""CPU seconds per test phase (a pytest plugin loaded by tests/conftest.py), next to pytest's wall-clock
--durations: on CI's 2 shared cores the wall time of a test depends on what the other three suite processes do at
the same moment, its CPU time does not (much). Counted per setup / call / teardown: this process's user + system
time plus that of the child processes it waited for (ansible-playbook, pip, frr-reload.py, vtysh, ...); daemons
that detach (FRR's) are not counted, as with /usr/bin/time.

    --cpu-durations=N   print the N phases that took the most CPU, and the session's CPU total
    --cpu-log=PATH      write every phase as "cpu_seconds<TAB>wall_seconds<TAB>phase<TAB>nodeid" lines (sorted by CPU)
"""

from __future__ import annotations

import os
import time
from collections.abc import Generator
from pathlib import Path

import pytest

_KEY = pytest.StashKey[list[tuple[float, float, str, str]]]()


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cpu-time")
    group.addoption("--cpu-durations", type=int, default=None, metavar="N",
                    help="print the N test phases that used the most CPU (with waited-for children)")
    group.addoption("--cpu-log", default=None, metavar="PATH", help="write the CPU seconds of every test phase")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_KEY] = []


def _measure(item: pytest.Item, phase: str) -> Generator[None, None, None]:
    cpu, wall = _cpu(), time.monotonic()
    yield
    item.config.stash[_KEY].append((_cpu() - cpu, time.monotonic() - wall, phase, item.nodeid))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    yield from _measure(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    yield from _measure(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    yield from _measure(item, "teardown")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    rows = sorted(config.stash[_KEY], key=lambda r: (-r[0], r[3], r[2]))
    log = config.getoption("--cpu-log")
    if log:
        Path(log).write_text("".join(f"{c:.2f}\t{w:.2f}\t{p}\t{n}\n" for c, w, p, n in rows), encoding="utf-8")
    count = config.getoption("--cpu-durations")
    if count is None:
        return
    terminalreporter.write_sep("=", f"most CPU {count} (seconds, with waited-for children)")
    for cpu, wall, phase, nodeid in rows[:count]:
        terminalreporter.write_line(f"{cpu:7.2f}s cpu {wall:7.2f}s wall  {phase:8} {nodeid}")
    terminalreporter.write_line(f"session CPU {_cpu():.1f}s (this process and the children it waited for)")
