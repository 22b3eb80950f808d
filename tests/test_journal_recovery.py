"""A render killed at every file-system step of its in-place update (railfabric/emit/journal.py), and what the next
commands say and do: the tree is never anything but old files and new ones, `render --check` and `plan` name an update
that is pending (exit 3) without touching anything, the next `render` completes it, says so and ends exactly at its own
inventory's tree (the new one, or the old one again), exit 0.

The fabric is tests/helpers.base_inventory (one pod, 2 spines, 2 rail switches) with its 4 hosts in two groups:
OLD has hosts 1-3 and host 4 (group 2, first: 4); NEW moves group 2 to host 5 (first: 5). By hand, that changes the
two rail switches (their host ports now face gpu005: config_db.json and expected state each), removes host 4's
files (hosts/p1-s1-gpu004/, hosts/_groups/p1-s1-h4/) and adds host 5's: files changed, added and removed, and
directories made and emptied. The render is killed with the journal's test hook (RAILFABRIC_FAULT_AT, read as
`journal._FAULT_AT`) in a forked child, so nothing of it runs after the kill (os._exit(137): no cleanup, no undo).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.emit import journal, write
from tests.helpers import base_inventory, dump, write_files

ROOT = Path(__file__).resolve().parents[1]


def _inventories(root: Path) -> tuple[Path, Path]:
    old = base_inventory()
    old["pods"][0]["segments"][0]["host_groups"] = [{"model": "h2", "count": 3, "first": 1},
                                                    {"model": "h2", "count": 1, "first": 4}]
    new = copy.deepcopy(old)
    new["pods"][0]["segments"][0]["host_groups"][1]["first"] = 5
    return (write_files(root / "old", {"fabric.yml": dump(old)}),
            write_files(root / "new", {"fabric.yml": dump(new)}))


def _snapshot(root: Path) -> dict[str, str]:
    """Every entry under `root`: a file's sha256, 'dir' for a directory (so an empty directory left behind counts),
    'link' for a symbolic link."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[rel] = "link"
        elif path.is_dir():
            found[rel] = "dir"
        else:
            found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _beside(out: Path) -> list[str]:
    """What lies beside `out` that a render made (its stages and temporary trees)."""
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def _fabric(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`fabric ARGV` in this process: (exit code, stdout, stderr)."""
    capsys.readouterr()
    rc = main([*argv, "--workers", "1"])  # one process: no checker forked beside each of these small runs
    got = capsys.readouterr()
    return rc, got.out, got.err


def _killed_render(inventory: Path, out: Path, at: int | None) -> int:
    """`fabric render INVENTORY --out OUT` in a forked child whose journal hook ends it at step `at` (None: no hook):
    its exit code, 137 when it was killed. The child updates in place whatever the share of files that differ
    (write.IN_PLACE_SHARE = 1: the small fabric's change is a third of its files, a swap below the 1-in-4 rule)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        rc = 70
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            journal._FAULT_AT, journal._done = at, 0
            write.IN_PLACE_SHARE = 1
            rc = main(["render", str(inventory), "--out", str(out), "-q", "--workers", "1"])
        finally:
            os._exit(rc)
    _pid, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@dataclass(frozen=True)
class Fabrics:
    old_inv: Path
    new_inv: Path
    template: Path  # OLD rendered (copied afresh for each kill)
    old: dict[str, str]
    new: dict[str, str]


@pytest.fixture(scope="module")
def fabrics(tmp_path_factory: pytest.TempPathFactory) -> Fabrics:
    root = tmp_path_factory.mktemp("recovery")
    old_inv, new_inv = _inventories(root)
    template, cold_new = root / "template" / "generated", root / "cold-new" / "generated"
    assert main(["render", str(old_inv), "--out", str(template), "-q", "--workers", "1"]) == 0
    assert main(["render", str(new_inv), "--out", str(cold_new), "-q", "--workers", "1"]) == 0
    return Fabrics(old_inv, new_inv, template, _snapshot(template), _snapshot(cold_new))


def _fresh(fx: Fabrics, where: Path) -> Path:
    out = where / "generated"
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    shutil.copytree(fx.template, out, copy_function=shutil.copy2)
    return out


def _stage_journal(out: Path) -> Path | None:
    journals = [p / journal.JOURNAL for p in out.parent.iterdir()
                if p.name.startswith(f".{out.name}.stage-") and (p / journal.JOURNAL).exists()]
    assert len(journals) <= 1
    return journals[0] if journals else None


def test_the_change_adds_changes_and_removes(fabrics: Fabrics) -> None:
    """The derivation above, checked on the two cold renders: host 4's files go, host 5's come, both rail switches'
    configs change (and a file of each kind, at least, is kept)."""
    old, new = fabrics.old, fabrics.new
    gone = {p for p in old if p not in new and old[p] != "dir"}
    came = {p for p in new if p not in old and new[p] != "dir"}
    assert "hosts/p1-s1-gpu004/netplan.yaml" in gone and "hosts/_groups/p1-s1-h4/roce.sh" in gone
    assert "hosts/p1-s1-gpu005/netplan.yaml" in came and "hosts/_groups/p1-s1-h5/roce.sh" in came
    assert {"hosts/p1-s1-gpu004", "hosts/_groups/p1-s1-h4"} <= set(old) - set(new)  # directories emptied
    for switch in ("p1-s1-rail0", "p1-s1-rail1"):
        assert old[f"configs/{switch}/config_db.json"] != new[f"configs/{switch}/config_db.json"]
    assert old["configs/p1-spine1/config_db.json"] == new["configs/p1-spine1/config_db.json"]


def _check_pending(out: Path, capsys: pytest.CaptureFixture[str], inventory: Path, pending: bool,
                   tree: dict[str, str], plan: bool = True) -> None:
    """`render --check` and `plan` of `inventory` (which renders to `tree`): exit 3 naming the pending update when
    there is one (else the check's 0 or 3 as the files are), and neither touches anything (the tree, the stage and
    its journal)."""
    before, beside = _snapshot(out), _beside(out)
    rc, said, _err = _fabric(capsys, "render", "--check", str(inventory), "--out", str(out))
    assert rc == (3 if pending or before != tree else 0)
    assert ("has an unfinished update" in said and "`fabric render` completes it" in said) == pending
    if plan:
        rc, said, _err = _fabric(capsys, "plan", str(inventory), "--out", str(out))
        assert ("has an unfinished update" in said) == pending
        assert rc == (3 if pending else 0)
    assert _snapshot(out) == before and _beside(out) == beside
    assert (_stage_journal(out) is not None) == pending


def _render_ends_at(out: Path, capsys: pytest.CaptureFixture[str], inventory: Path, tree: dict[str, str],
                    pending: bool, check: bool = True, fx: Fabrics | None = None) -> None:
    """The next render of `inventory`: exit 0, the recovery said on stderr when an update was pending (and nothing
    said otherwise), exactly `tree`, nothing left beside it, and its check clean. With `fx`, the counts the
    recovery says are those of the files of the OLD → NEW update still to do in the tree it found."""
    if fx is not None and pending:
        found = _snapshot(out)
        places = [p for p in fx.new if fx.new[p] != "dir" and fx.new[p] != fx.old.get(p)]
        removals = [p for p in fx.old if fx.old[p] != "dir" and p not in fx.new]
        assert len(places) + len(removals) == 21  # 13 changed + 4 added, 4 removed (see the test below)
        to_move = sum(1 for p in places if found.get(p) != fx.new[p])
        to_remove = sum(1 for p in removals if p in found)
        said = (f"{to_move} file(s) moved in and {to_remove} removed now (it had moved or removed "
                f"{21 - to_move - to_remove} of its 21 before it stopped)")
    rc, _out, err = _fabric(capsys, "render", str(inventory), "--out", str(out), "-q")
    assert rc == 0, err
    if fx is not None and pending:
        assert said in err, err
    assert ("completed the update of" in err) == pending, err
    assert pending or err == "", err  # a stage without a journal is removed without a word
    assert "EBUSY" not in err and "ignored" not in err and "without applying" not in err
    assert _snapshot(out) == tree
    assert _beside(out) == []
    if check:
        rc, said, _err = _fabric(capsys, "render", "--check", str(inventory), "--out", str(out))
        assert rc == 0 and "is up to date" in said


def test_a_render_killed_at_every_step(fabrics: Fabrics, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """For every step N of the update (until a render with the hook at N finishes): killed at N, the tree holds
    only old and new files (exactly the old tree while nothing is decided); the checks name a pending update; the
    next render of NEW ends exactly at NEW, and (from the same kill) the next render of OLD exactly at OLD."""
    fx = fabrics
    kinds: dict[str, int] = {"undecided": 0, "pending": 0}
    steps = 0
    while True:
        out = _fresh(fx, tmp_path / f"at-{steps}")
        rc = _killed_render(fx.new_inv, out, steps)
        if rc == 0:
            break
        assert rc == 137, f"step {steps}: exit {rc}"
        tree = _snapshot(out)
        pending = _stage_journal(out) is not None
        kinds["pending" if pending else "undecided"] += 1
        if not pending:
            assert tree == fx.old, f"step {steps}: killed before deciding, the tree must be the old one"
        else:
            assert all(tree[p] in (fx.old.get(p), fx.new.get(p)) for p in tree if tree[p] != "dir"), steps
        _check_pending(out, capsys, fx.new_inv, pending, fx.new)
        _render_ends_at(out, capsys, fx.new_inv, fx.new, pending, fx=fx)

        out = _fresh(fx, tmp_path / f"back-{steps}")
        assert _killed_render(fx.new_inv, out, steps) == 137
        _check_pending(out, capsys, fx.old_inv, pending, fx.old, plan=False)
        _render_ends_at(out, capsys, fx.old_inv, fx.old, pending, check=False)
        steps += 1
    assert _snapshot(out) == fx.new and _beside(out) == []  # the render the hook never reached
    # by hand: 13 files replaced and 4 removed are linked aside, into 11 directories of .railfabric-old (17 links +
    # 11 mkdirs); the journal is 2 steps (.part, rename); 4 removals, 2 directories pruned (+2 rmdir attempts that
    # find a non-empty parent); 4 new files need 2 new directories; 17 moves; the journal's removal: see the assert
    print(f"kill-at-every-step: {steps} steps, {kinds}")
    assert kinds["undecided"] == 30 and kinds["pending"] == steps - 30


def test_a_recovery_killed_at_every_step(fabrics: Fabrics, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The render that recovers can be killed too: killed at each step of completing the update, the update is
    still pending, and the render after it completes what is left and ends exactly at NEW."""
    fx = fabrics
    decided = 30  # the first step after the journal (see the test above): decided, nothing moved yet
    step = 0
    while True:
        out = _fresh(fx, tmp_path / f"r-{step}")
        assert _killed_render(fx.new_inv, out, decided) == 137
        rc = _killed_render(fx.new_inv, out, step)  # the next render, killed while it recovers
        if rc == 0:
            break
        assert rc == 137 and _stage_journal(out) is not None
        _render_ends_at(out, capsys, fx.new_inv, fx.new, pending=True)
        step += 1
    assert _snapshot(out) == fx.new
    print(f"recovery killed at each of {step} steps")
    assert step > 20


def _subprocess_render(fx: Fabrics, out: Path, fault: str) -> subprocess.CompletedProcess[str]:
    code = ("import sys\nimport railfabric.emit.write as w\nw.IN_PLACE_SHARE = 1\nfrom railfabric.cli import main\n"
            f"sys.exit(main(['render', {str(fx.new_inv)!r}, '--out', {str(out)!r}, '-q', '--workers', '1']))")
    env = {**os.environ, journal.FAULT_ENV: fault}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def test_the_hook_is_the_environment_variable_and_nothing_else(fabrics: Fabrics, tmp_path: Path) -> None:
    """A real process with RAILFABRIC_FAULT_AT=30 dies (137) with its update decided and nothing moved; one with a
    value that is not a non-negative integer renders as if it were unset."""
    out = _fresh(fabrics, tmp_path / "env")
    done = _subprocess_render(fabrics, out, "30")
    assert done.returncode == 137, done.stderr
    found = _stage_journal(out)
    assert found is not None and _snapshot(out) == fabrics.old
    assert set(json.loads(found.read_text())) == {"place", "remove"}
    for value in ("x", "-1", "", "3.5"):
        out = _fresh(fabrics, tmp_path / f"env-{value or 'empty'}")
        done = _subprocess_render(fabrics, out, value)
        assert done.returncode == 0, (value, done.stderr)
        assert _snapshot(out) == fabrics.new


def test_the_hook_reads_only_integers() -> None:
    assert journal._fault_at("12") == 12 and journal._fault_at("0") == 0
    assert [journal._fault_at(v) for v in (None, "", "x", "-3", "1e3", "2.0")] == [None] * 6


# --------------------------------------------------------------------------- journals railfabric did not write


@contextlib.contextmanager
def _leftover(out: Path, doc: object, staged: dict[str, str]) -> Iterator[Path]:
    """A stage beside `out` holding a journal `doc` (JSON; a str is written as it is) and the files `staged`."""
    stage = out.parent / f".{out.name}.stage-hostile"
    write_files(stage, dict(staged))
    (stage / journal.JOURNAL).write_text(doc if isinstance(doc, str) else json.dumps(doc))
    yield stage


@pytest.mark.parametrize("doc", [
    {"place": ["../victim/owned"], "remove": []},
    {"place": [], "remove": ["../victim/keep"]},
    {"place": ["/etc/owned"], "remove": []},
    {"place": [".railfabric-old/x"], "remove": []},
    {"place": "configs", "remove": []},
    {"place": [["a"]], "remove": []},
    [1, 2],
    '{"place": [' * 5000,
])
def test_a_hostile_journal_is_never_applied(fabrics: Fabrics, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            doc: object) -> None:
    """A stage committed by a stranger (e.g. `git add -f .generated.stage-x/`) whose journal names paths outside the
    output directory, dot names or wrong types: nothing outside is touched, the check does not name it as pending,
    the render removes it with a note and ends at its own tree."""
    out = _fresh(fabrics, tmp_path / "w")
    victim = tmp_path / "w" / "victim"
    write_files(victim, {"keep": "mine\n"})
    with _leftover(out, doc, {"x": "x\n"}):
        rc, said, _err = _fabric(capsys, "render", "--check", str(fabrics.old_inv), "--out", str(out))
        assert rc == 0 and "unfinished" not in said
        rc, _said, err = _fabric(capsys, "render", str(fabrics.old_inv), "--out", str(out), "-q")
    assert rc == 0 and "without applying it" in err and "not a journal railfabric writes" in err
    assert _snapshot(victim) == {"keep": hashlib.sha256(b"mine\n").hexdigest()}
    assert _snapshot(out) == fabrics.old and _beside(out) == []


def test_a_journal_moving_a_link_or_through_one_is_not_applied(fabrics: Fabrics, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A well-formed journal whose staged file is a symbolic link (to a secret outside), or whose path in the output
    directory runs through a directory link (to a victim directory): not applied, nothing outside read or written."""
    out = _fresh(fabrics, tmp_path / "w")
    victim = tmp_path / "w" / "victim"
    write_files(victim, {"keep": "mine\n"})
    with _leftover(out, {"place": ["report.json"], "remove": []}, {}) as stage:
        (stage / "report.json").symlink_to(victim / "keep")
        rc, _said, err = _fabric(capsys, "render", str(fabrics.old_inv), "--out", str(out), "-q")
    assert rc == 0 and "not a regular file, or through a symbolic link" in err
    assert (victim / "keep").read_text() == "mine\n" and _snapshot(out) == fabrics.old

    (out / "linked").symlink_to(victim, target_is_directory=True)
    with _leftover(out, {"place": ["linked/owned"], "remove": ["linked/keep"]}, {"linked/owned": "x\n"}):
        assert journal.recover(out, out.parent / f".{out.name}.stage-hostile") == journal.Recovered(
            journal.read(out.parent / f".{out.name}.stage-hostile").at,  # type: ignore[union-attr]
            0, 0, 2, "its journal would move a file that is not a regular file, or through a symbolic link")
    assert _snapshot(victim) == {"keep": hashlib.sha256(b"mine\n").hexdigest()}


def test_a_recovery_that_fails_keeps_its_journal(fabrics: Fabrics, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The update cannot be completed (a move into the output directory fails: a read-only file system, as root
    sees it too): the render says so and exits 2 with the journal kept and nothing rendered; once moves work again
    the next render completes it and ends at its tree."""
    import errno

    out = _fresh(fabrics, tmp_path / "ro")
    assert _killed_render(fabrics.new_inv, out, 30) == 137
    real = os.replace

    def read_only(src: str, dst: str) -> None:
        if str(dst).startswith(str(out) + "/"):
            raise OSError(errno.EROFS, "Read-only file system", dst)
        real(src, dst)
    monkeypatch.setattr(os, "replace", read_only)  # the os module journal uses
    rc, _said, err = _fabric(capsys, "render", str(fabrics.new_inv), "--out", str(out), "-q")
    monkeypatch.undo()
    assert rc == 2 and "could not complete the update an interrupted render had decided (Read-only" in err, err
    assert _stage_journal(out) is not None
    _render_ends_at(out, capsys, fabrics.new_inv, fabrics.new, pending=True)


def test_a_journal_older_than_the_files_is_not_applied(fabrics: Fabrics, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """An update decided over files that another render replaced since (report.json is no longer the file, nor the
    bytes, the journal's way back holds): the check does not call it pending, the render does not apply it (it
    would move in files decided over another tree) and ends at its own tree. The same bytes in another file are
    still what it was decided over (a file system without hard links keeps copies)."""
    out = _fresh(fabrics, tmp_path / "stale")
    assert _killed_render(fabrics.new_inv, out, 30) == 137  # decided, nothing moved
    report = out / "report.json"
    other = out / "report.json.tmp"
    other.write_bytes(report.read_bytes())
    other.replace(report)
    assert journal.unfinished(out, [_stage_journal(out).parent])  # type: ignore[union-attr]
    other.write_bytes(b"{}\n")
    other.replace(report)  # as another render that rewrote it would leave it
    rc, said, _err = _fabric(capsys, "render", "--check", str(fabrics.old_inv), "--out", str(out))
    assert rc == 3 and "unfinished" not in said and "changed  report.json" in said
    rc, _said, err = _fabric(capsys, "render", str(fabrics.old_inv), "--out", str(out), "-q")
    assert rc == 0 and "changed since it was decided" in err and "completed" not in err
    assert _snapshot(out) == fabrics.old and _beside(out) == []


def test_the_pending_update_is_named_when_the_inventory_has_errors(fabrics: Fabrics, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`render --check` and `plan` of an inventory that does not validate still name the pending update (and keep
    the validation's exit code, 1); nothing is touched."""
    out = _fresh(fabrics, tmp_path / "bad")
    assert _killed_render(fabrics.new_inv, out, 30) == 137
    bad = write_files(tmp_path / "bad-inv", {"fabric.yml": (fabrics.old_inv / "fabric.yml").read_text()
                                             .replace("spines:\n    count: 2", "spines:\n    count: 0")})
    before = _snapshot(out)
    for argv in (["render", "--check"], ["plan"]):
        rc, said, _err = _fabric(capsys, *argv, str(bad), "--out", str(out))
        assert rc == 1 and "has an unfinished update" in said, said
    assert _snapshot(out) == before and _stage_journal(out) is not None
