"""The lab's ARP table sizing (railfabric/lab/neigh.py): the machine-wide limits are raised to what the lab needs,
recorded first, and put back only where they still hold the lab's value. Runs on a stand-in sysctl directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.lab import neigh


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


@pytest.fixture
def shared(sysctl_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The stand-in sysctl directory as the machine's, a private shared-claims file and run directory, 100 entries
    in the table before the first claim."""
    from railfabric.lab import runs

    monkeypatch.setattr(neigh, "SYSCTL_DIR", sysctl_dir)
    monkeypatch.setattr(neigh, "NEIGH_STATE", tmp_path / "state" / "neigh.json")
    monkeypatch.setattr(runs, "RUNS_DIR", tmp_path / "state" / "runs")
    monkeypatch.setattr(neigh, "current_entries", lambda: 100)
    return sysctl_dir


def _limits(d: Path) -> list[int | None]:
    return [neigh.read_limit(n, d) for n in ("gc_thresh1", "gc_thresh2", "gc_thresh3")]


def test_the_record_survives_a_killed_lab(shared: Path) -> None:
    """The run's claim is in its record before the limits are raised, so `fabric lab --teardown` (teardown of the
    loaded record) releases it and, being the last claim, puts the limits back."""
    from railfabric.lab import teardown as td
    from railfabric.lab.runs import Registry

    reg = Registry("abc123")
    reg.add_neigh()
    need, changed = neigh.claim("abc123", 3000)
    # 3,000 claimed + 100 found in the table + HEADROOM 1,024 = 4,124, above both 512 and 1,024
    assert need == 4124 and _limits(shared) == [128, 4124, 4124] and len(changed) == 2
    loaded = Registry.load("abc123")
    assert loaded is not None and loaded.neigh and not loaded.empty()
    removed = td.teardown(loaded)
    assert removed["sysctls"] == 2 and not loaded.path.exists() and not neigh.NEIGH_STATE.exists()
    assert _limits(shared) == [128, 512, 1024]


def test_two_labs_share_the_limits(shared: Path) -> None:
    """Two runs at once: the limits cover both claims, stay up while either runs, and come back to what the machine
    had only when the last one ends. Need = claims + 100 found + 1,024 headroom."""
    assert neigh.claim("aaaaaa", 2000)[0] == 2000 + 100 + 1024  # 3,124
    assert _limits(shared) == [128, 3124, 3124]
    assert neigh.claim("bbbbbb", 3000)[0] == 5000 + 100 + 1024  # 6,124: both labs' entries
    assert _limits(shared) == [128, 6124, 6124]
    assert neigh.release("aaaaaa") == 0 and _limits(shared) == [128, 6124, 6124]  # b still runs: never lowered
    assert neigh.release("aaaaaa") == 0  # twice: nothing
    assert neigh.release("bbbbbb") == 2 and _limits(shared) == [128, 512, 1024]  # the machine's values, not 3,124
    # a small lab after a big one raised nothing of its own: its end still puts back what the big one found
    assert neigh.claim("cccccc", 5000)[0] == 6124 and neigh.claim("dddddd", 10)[0] == 6134
    assert neigh.release("cccccc") == 0 and neigh.release("dddddd") == 2 and _limits(shared) == [128, 512, 1024]


def test_a_shared_limit_changed_by_someone_else_is_left_alone(shared: Path) -> None:
    neigh.claim("aaaaaa", 3000)
    (shared / "gc_thresh3").write_text("9999\n")  # an operator meanwhile
    assert neigh.release("aaaaaa") == 1 and _limits(shared) == [128, 512, 9999]


def test_need_counts_pairs_on_each_rail_svi(tmp_path: Path) -> None:
    """The mini fabric of tests.helpers with a second segment (test_lab_hosts._mini2): 2 segments × 4 hosts, each
    host 2 NICs on rails 0 and 1 → 4 rail SVIs with 4 host NICs each. Per SVI the 4 NICs and the switch may each
    learn the other 4: 5 × 4 = 20 → 80; 2 ends per routed link: the lab's spine links. All hosts built."""
    from railfabric.lab.spec import build_spec
    from tests.test_lab_hosts import _mini2, _standin_netplan

    res = _mini2(tmp_path)
    spec = build_spec(res, hosts="all", host_files=_standin_netplan(res))
    assert len(spec.hosts) == 8
    assert neigh.needed_entries(spec) == 80 + 2 * len(spec.links)
    assert neigh.needed_entries(build_spec(res, hosts=0, host_files=_standin_netplan(res))) == 2 * len(spec.links)


def test_size_table_records_before_it_applies(shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []

    class Rec:
        run = "abc123"

        def add_neigh(self) -> None:
            order.append("record")
            assert not neigh.NEIGH_STATE.exists() and neigh.read_limit("gc_thresh3", shared) == 1024  # not yet

    monkeypatch.setattr(neigh, "needed_entries", lambda _spec: 5000)
    said: list[str] = []
    need = neigh.size_table(object(), Rec(), said.append)  # type: ignore[arg-type]
    assert need == 5000 + 100 + neigh.HEADROOM and order == ["record"]
    assert neigh.read_limit("gc_thresh3", shared) == need == 6124
    assert said == ["  neighbour table: gc_thresh2 512, gc_thresh3 1,024 raised to 6,124 for the lab "
                    "(machine-wide; put back at teardown of the last lab running)"]
    assert neigh.release("abc123") == 2
