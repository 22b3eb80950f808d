"""The lab's ARP table sizing (fabric/lab/neigh.py): the machine-wide limits are raised to what the lab needs,
recorded first, and put back only where they still hold the lab's value. Runs on a stand-in sysctl directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabric.lab import neigh
from fabric.lab.teardown import Registry


@pytest.fixture
def sysctl_dir(tmp_path: Path) -> Path:
    for name, value in (("gc_thresh1", 128), ("gc_thresh2", 512), ("gc_thresh3", 1024)):
        (tmp_path / name).write_text(f"{value}\n")
    return tmp_path


def test_raise_only_what_is_below_the_need(sysctl_dir: Path) -> None:
    changed = neigh.raise_limits(800, sysctl_dir)
    # 800 > 512 (gc_thresh2) but < 1,024 (gc_thresh3); gc_thresh1 is never touched
    assert changed == {str(sysctl_dir / "gc_thresh2"): (512, 800)}
    assert neigh.raise_limits(400, sysctl_dir) == {}
    changed = neigh.raise_limits(4096, sysctl_dir)
    assert changed == {str(sysctl_dir / "gc_thresh2"): (512, 4096), str(sysctl_dir / "gc_thresh3"): (1024, 4096)}
    assert (sysctl_dir / "gc_thresh3").read_text() == "1024\n"  # deciding writes nothing
    neigh.apply(changed)
    assert [neigh.read_limit(n, sysctl_dir) for n in ("gc_thresh1", "gc_thresh2", "gc_thresh3")] == [128, 4096, 4096]
    assert neigh.restore_limits(changed) == 2
    assert [neigh.read_limit(n, sysctl_dir) for n in ("gc_thresh1", "gc_thresh2", "gc_thresh3")] == [128, 512, 1024]


def test_a_limit_changed_by_someone_else_is_left_alone(sysctl_dir: Path) -> None:
    changed = neigh.raise_limits(4096, sysctl_dir)
    neigh.apply(changed)
    (sysctl_dir / "gc_thresh3").write_text("8192\n")  # an operator raised it further meanwhile
    assert neigh.restore_limits(changed) == 1
    assert neigh.read_limit("gc_thresh2", sysctl_dir) == 512 and neigh.read_limit("gc_thresh3", sysctl_dir) == 8192


def test_missing_or_unreadable_limits_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "gc_thresh2").write_text("garbage\n")
    assert neigh.raise_limits(4096, tmp_path) == {}
    assert neigh.restore_limits({str(tmp_path / "gone"): (1, 2)}) == 0


def test_the_record_survives_a_killed_lab(sysctl_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the lab raised is in its state file before it is applied, so `fabric lab --teardown` puts it back."""
    from fabric.lab import teardown as td

    state = tmp_path / "state" / "state.json"
    monkeypatch.setattr(td, "STATE_DIR", state.parent)
    monkeypatch.setattr(td, "STATE", state)
    reg = Registry()
    changed = neigh.raise_limits(3000, sysctl_dir)
    reg.add_sysctls(changed)
    neigh.apply(changed)
    loaded = Registry.load()
    assert loaded is not None and loaded.sysctls == changed and not loaded.empty()
    removed = td.teardown(loaded)
    assert removed["sysctls"] == 2 and not state.exists()
    assert neigh.read_limit("gc_thresh2", sysctl_dir) == 512 and neigh.read_limit("gc_thresh3", sysctl_dir) == 1024


def test_need_counts_pairs_on_each_rail_svi(tmp_path: Path) -> None:
    """The mini fabric of tests.helpers with a second segment (test_lab_hosts._mini2): 2 segments × 4 hosts, each
    host 2 NICs on rails 0 and 1 → 4 rail SVIs with 4 host NICs each. Per SVI the 4 NICs and the switch may each
    learn the other 4: 5 × 4 = 20 → 80; 2 ends per routed link: the lab's spine links. All hosts built."""
    from fabric.lab.model import build_spec
    from tests.test_lab_hosts import _mini2, _standin_netplan

    res = _mini2(tmp_path)
    spec = build_spec(res, hosts="all", host_files=_standin_netplan(res))
    assert len(spec.hosts) == 8
    assert neigh.needed_entries(spec) == 80 + 2 * len(spec.links)
    assert neigh.needed_entries(build_spec(res, hosts=0, host_files=_standin_netplan(res))) == 2 * len(spec.links)


def test_size_table_records_before_it_applies(sysctl_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []

    class Rec:
        def add_sysctls(self, changed: dict[str, tuple[int, int]]) -> None:
            order.append("record")
            assert neigh.read_limit("gc_thresh3", sysctl_dir) == 1024  # not yet applied

    monkeypatch.setattr(neigh, "SYSCTL_DIR", sysctl_dir)
    monkeypatch.setattr(neigh, "current_entries", lambda: 100)
    monkeypatch.setattr(neigh, "needed_entries", lambda _spec: 5000)
    monkeypatch.setattr(neigh, "raise_limits", lambda need: {
        str(sysctl_dir / n): (v, need) for n, v in (("gc_thresh2", 512), ("gc_thresh3", 1024))})
    said: list[str] = []
    need = neigh.size_table(object(), Rec(), said.append)  # type: ignore[arg-type]
    assert need == 5000 + 100 + neigh.HEADROOM and order == ["record"]
    assert neigh.read_limit("gc_thresh3", sysctl_dir) == need
    assert said == [f"  neighbour table: gc_thresh2 512, gc_thresh3 1,024 raised to {need:,} for the lab "
                    "(machine-wide; put back at teardown)"]
