"""What keeps `railfabric.verify.verify` fast when it is called as a function (tests/test_render_all_clean.py calls
it for every clean inventory of the suite; docs/testing-time.md): each NVUE startup.yaml parsed once, and the cyclic
garbage collector paused while the files are read and checked.

The fabric is the mini fabric of tests/helpers.py (one pod, one segment of 2 rail switches p1-s1-rail0/1 under 2
spines p1-spine1/2: 4 switches) on NVUE, so 4 startup.yaml files, each read by the NVUE reader and by the check
against NVIDIA's schema of its release.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

import railfabric.verify.run as verify_run
from railfabric.emit.build import build_files
from railfabric.pipeline import run
from railfabric.verify import nvue_schema, verify
from tests.helpers import base_inventory, dump, with_system, write_files

SWITCHES = ["p1-s1-rail0", "p1-s1-rail1", "p1-spine1", "p1-spine2"]


@pytest.fixture(scope="module")
def nvue_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = with_system(base_inventory())
    data["fabric"]["platform"] = "nvue"
    tmp = tmp_path_factory.mktemp("nvue")
    res = run(write_files(tmp / "inv", {"fabric.yml": dump(data)}))
    assert res.topology is not None and sorted(res.topology.switches) == SWITCHES
    return write_files(tmp / "gen", build_files(res))


def test_each_startup_yaml_is_parsed_once(nvue_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    real = nvue_schema.safe_yaml.load

    def counting(text: str | bytes) -> Any:
        parsed.append(str(text))
        return real(text)

    monkeypatch.setattr(nvue_schema.safe_yaml, "load", counting)
    nvue_schema.document.cache_clear()  # an earlier test may have parsed the same text
    result = verify(nvue_tree, frr_parser=False)
    assert not result.failures, [str(f) for f in result.failures[:5]]
    # both readers of each file ran: the NVUE reader (4 devices) and the schema check (4 files checked)
    assert result.counts["devices"] == 4 and result.counts["nvue"] == 4
    assert any(n.endswith(": 4 file(s) checked against the vendor's schema of their release") for n in result.notes)
    starts = [t for t in parsed if t.startswith("- set:")]  # a startup.yaml is one `- set:` item
    expected = sorted((nvue_tree / "configs" / name / "startup.yaml").read_text(encoding="utf-8")
                      for name in SWITCHES)
    assert sorted(starts) == expected  # each file once (twice before: once per reader)


def test_the_collector_is_paused_while_verifying(nvue_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    real = verify_run.READERS["nvue"]

    def reading(name: str, root: Path) -> Any:
        seen.append(gc.isenabled())
        return real(name, root)

    monkeypatch.setitem(verify_run.READERS, "nvue", reading)
    assert gc.isenabled()
    assert not verify(nvue_tree, frr_parser=False).failures
    assert seen == [False] * 4 and gc.isenabled()  # paused for each of the 4 reads, enabled again after
    gc.disable()
    try:
        verify(nvue_tree, frr_parser=False)
        assert not gc.isenabled()  # a caller's own pause is left as it was
    finally:
        gc.enable()


def test_the_collector_runs_again_when_verify_raises(tmp_path: Path) -> None:
    from railfabric.verify.model import VerifyInputError

    with pytest.raises(VerifyInputError):
        verify(tmp_path / "absent", frr_parser=False)
    assert gc.isenabled()
