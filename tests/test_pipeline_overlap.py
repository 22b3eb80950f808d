"""railfabric.pipeline.run_with: the checks of an allocated fabric run in a forked process while the caller builds on it
(issue 13). The findings, the report and what is built must be exactly those of the serial run; a build on a
fabric the checks reject is thrown away; nothing is lost when the checker process dies."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import railfabric.pipeline as pipeline
from railfabric.core.finding import Finding, Severity
from railfabric.core.formats import format_text
from railfabric.emit.build import build_files, build_models
from railfabric.pipeline import Result, run, run_with

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "inventory"
SWITCHES = 34  # inventory/: 4 super-spines + pod 1 (4 spines, 12 rail) + pod 2 (4 spines, 2 rail) + pod 3 (8 rail)


def _host_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make one of the checks (the host rules) report an error; forked checkers inherit the patch."""
    def failing(_inv: object, _src: object) -> list[Finding]:
        return [Finding("HOST999", "made up for the test", None, "none", Severity.ERROR)]
    monkeypatch.setattr(pipeline, "check_hosts", failing)


@pytest.mark.parametrize("fork", [True, False])
def test_same_findings_report_and_models_as_serial(fork: bool) -> None:
    serial = run(EXAMPLE)
    res, models = run_with(EXAMPLE, meanwhile=build_models, fork=fork)
    assert models is not None and len(models.devices) == SWITCHES
    assert format_text(res.findings) == format_text(serial.findings)
    assert res.report == serial.report and res.stage_reached == "done"
    assert build_files(res) == build_files(serial)


def test_the_check_runs_in_another_process(monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()
    seen: list[int] = []
    real = pipeline.check_hosts

    def where(inv: object, src: object) -> list[Finding]:
        seen.append(os.getpid())
        if os.getpid() == parent:
            raise AssertionError("checked in the parent")
        return real(inv, src)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "check_hosts", where)
    _res, models = run_with(EXAMPLE, meanwhile=build_models)
    assert models is not None and not seen  # the list was appended to in the child, not here


@pytest.mark.parametrize("fork", [True, False])
def test_errors_discard_what_was_built(monkeypatch: pytest.MonkeyPatch, fork: bool) -> None:
    _host_error(monkeypatch)
    calls: list[Result] = []

    def build(res: Result) -> str:
        calls.append(res)
        return "built"

    res, extra = run_with(EXAMPLE, meanwhile=build, fork=fork)
    assert extra is None and [f.code for f in res.findings if f.severity is Severity.ERROR] == ["HOST999"]
    assert len(calls) == (1 if fork else 0)  # serial: the checks come first and stop it


def test_an_exception_in_the_build_is_explained_by_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fabric the checks reject may break the model builder: the findings say why, not a traceback."""
    _host_error(monkeypatch)

    def breaks(_res: Result) -> str:
        raise KeyError("a port the broken fabric does not have")

    res, extra = run_with(EXAMPLE, meanwhile=breaks)
    assert extra is None and any(f.code == "HOST999" for f in res.findings)


def test_an_exception_on_a_clean_fabric_is_raised() -> None:
    def breaks(_res: Result) -> str:
        raise KeyError("a real bug")

    with pytest.raises(KeyError, match="a real bug"):
        run_with(EXAMPLE, meanwhile=breaks)


def _dies() -> None:
    os._exit(9)


def test_a_dead_checker_is_replaced_by_checking_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "_checks_forked", _dies)
    res, models = run_with(EXAMPLE, meanwhile=build_models)
    serial = run(EXAMPLE)
    assert models is not None and res.report == serial.report
    assert format_text(res.findings) == format_text(serial.findings)


def test_no_build_when_an_early_stage_stops(tmp_path: Path) -> None:
    inv = tmp_path / "inv"
    inv.mkdir()
    (inv / "fabric.yml").write_text("fabric: [unclosed\n")
    res, extra = run_with(inv, meanwhile=lambda _r: pytest.fail("built on an inventory that does not load"))
    assert extra is None and res.plan is None and res.findings
