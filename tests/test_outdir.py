"""The output directory: railfabric replaces only a directory it owns, keeps the user's mode, cleans the leftovers
of a killed render under its lock, and reports environment errors in one line (exit 2), touching nothing."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.emit import outdir
from railfabric.emit.build import bounded_workers, build_files, write_tree
from railfabric.emit.outdir import OutputRefused, check_output_dir
from railfabric.pipeline import run
from tests.helpers import EXAMPLE, ROOT

ROOT_USER = os.geteuid() == 0


@pytest.fixture(scope="module")
def example_files() -> dict[str, bytes]:
    return build_files(run(EXAMPLE))


def _tree(d: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every entry under d (files, dirs, .git included) with its content and inode: 'as it was' means equal."""
    out: dict[str, tuple[bytes | None, int]] = {}
    for p in sorted(d.rglob("*")):
        st = p.lstat()
        out[p.relative_to(d).as_posix()] = (p.read_bytes() if p.is_file() and not p.is_symlink() else None,
                                            st.st_ino)
    return out


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git checkout holding a copy of the example inventory and a README; the current directory."""
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copytree(EXAMPLE, repo / "inventory")
    (repo / "README.md").write_text("mine\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    return repo


@pytest.mark.parametrize(("out", "why"), [
    (".", "git work tree's root"),
    ("inventory", "is the inventory"),
    ("inventory/sub", "lies inside the inventory"),
    ("README.md", "is a file"),
    ("..", "contains the current directory"),
])
def test_render_refuses_what_it_does_not_own(checkout: Path, capsys, out: str, why: str) -> None:
    """Each of these deleted or clobbered the user's files before (`--out .` deleted the checkout, .git included)."""
    parent_before = _tree(checkout.parent)
    assert main(["render", "inventory", "--out", out, "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert why in err and "nothing was written" in err
    assert _tree(checkout.parent) == parent_before  # every file as it was, nothing created


def test_render_refuses_a_foreign_directory_and_accepts_empty_and_own(checkout: Path, capsys) -> None:
    foreign = checkout / "docs"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me\n")
    assert main(["render", "inventory", "--out", "docs", "--workers", "1"]) == 2
    assert "not a railfabric output directory" in capsys.readouterr().err
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]

    (checkout / "empty").mkdir()
    assert main(["render", "inventory", "--out", "empty", "--workers", "1"]) == 0
    assert (checkout / "empty" / "manifest.json").is_file()
    # now it carries the marker: rendering into it again is allowed
    assert main(["render", "inventory", "--out", "empty", "--workers", "1"]) == 0
    # a manifest that is not railfabric's is no marker
    (foreign / "manifest.json").write_text('{"tool": "other", "files": {}}')
    assert main(["render", "inventory", "--out", "docs", "--workers", "1"]) == 2


def test_special_directories_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`/` and the home directory are refused whatever they hold (checked without rendering into them)."""
    home = tmp_path / "home"
    home.mkdir()  # empty: only the home rule can refuse it
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputRefused, match="is your home directory"):
        check_output_dir(home)
    with pytest.raises(OutputRefused, match="is the file system root"):
        check_output_dir(Path("/"))
    inv = tmp_path / "inv.yml"
    inv.write_text("fabric: {}\n")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    with pytest.raises(OutputRefused, match="contains"):
        check_output_dir(tmp_path, inventory=inv)  # holds the home dir, the inventory file and the cwd
    assert check_output_dir(tmp_path / "new", inventory=inv) == (tmp_path / "new").resolve()


def test_write_tree_itself_refuses(tmp_path: Path, example_files: dict[str, bytes]) -> None:
    """The guard sits in the writer, not only in the command line."""
    d = tmp_path / "data"
    d.mkdir()
    (d / "precious").write_text("x")
    with pytest.raises(OutputRefused):
        write_tree(d, example_files)
    assert [p.name for p in d.iterdir()] == ["precious"]


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002])
def test_new_output_directory_mode_follows_the_umask(tmp_path: Path, example_files, mask: int) -> None:
    old = os.umask(mask)
    try:
        write_tree(tmp_path / "gen", example_files)
    finally:
        os.umask(old)
    assert (tmp_path / "gen").stat().st_mode & 0o777 == 0o777 & ~mask  # was 0700 from mkdtemp


def test_replaced_directory_keeps_its_mode(tmp_path: Path, example_files: dict[str, bytes]) -> None:
    out = tmp_path / "gen"
    write_tree(out, example_files)
    os.chmod(out, 0o750)
    changed = dict(example_files)
    changed["configs/p1-s1-rail3/frr.conf"] += b"! changed\n"
    assert write_tree(out, changed).changed
    assert out.stat().st_mode & 0o777 == 0o750


def test_leftovers_of_a_killed_render_are_removed_and_ignored_by_git(tmp_path: Path, example_files) -> None:
    out = tmp_path / "generated"
    write_tree(out, example_files)
    for name in (".generated.new-k1l2", ".generated.old-x9"):
        (tmp_path / name / "configs").mkdir(parents=True)
        (tmp_path / name / "configs" / "half.txt").write_text("half-written")
    other = tmp_path / ".something.new-1"  # not ours: another name
    other.mkdir()
    assert write_tree(out, example_files).clean  # nothing to change, but the leftovers go
    assert sorted(p.name for p in tmp_path.iterdir()) == [".something.new-1", "generated"]
    ignored = subprocess.run(["git", "check-ignore", "--no-index", ".generated.new-k1l2/configs/half.txt",
                              ".generated.old-x9/configs/half.txt"], cwd=ROOT, capture_output=True, text=True)
    assert ignored.returncode == 0, "the project's .gitignore must ignore a killed render's leftovers"


def test_a_second_writer_waits_for_the_lock(tmp_path: Path, example_files, monkeypatch) -> None:
    out = tmp_path / "generated"
    monkeypatch.setattr(outdir, "LOCK_WAIT_S", 0.3)
    with outdir.render_lock(out.resolve()):
        errors: list[BaseException] = []
        t = threading.Thread(target=lambda: _catch(errors, lambda: write_tree(out, example_files)))
        t.start()
        t.join()
    assert len(errors) == 1 and isinstance(errors[0], OSError) and errors[0].errno == errno.EWOULDBLOCK
    assert not out.exists()
    assert write_tree(out, example_files).added  # free again


def _catch(errors: list[BaseException], fn) -> None:
    try:
        fn()
    except BaseException as exc:
        errors.append(exc)


def test_environment_error_is_one_line_with_path_and_errno(tmp_path: Path, capsys, monkeypatch) -> None:
    """An OSError while writing is the environment's, not railfabric's: no 'internal error, report it'."""
    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "gen"))

    monkeypatch.setattr("railfabric.emit.write._fill", full)
    assert main(["render", str(EXAMPLE), "--out", str(tmp_path / "gen"), "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"fabric: {tmp_path / 'gen'}: No space left on device (ENOSPC)"
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no output, no temp dir


@pytest.fixture
def tmpfs(tmp_path: Path):
    if not ROOT_USER:
        pytest.skip("mounting a small tmpfs needs root")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)]).returncode != 0:
        pytest.skip("cannot mount tmpfs here")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)])


def test_disk_full_for_real(tmpfs: Path, capsys) -> None:
    """The example (2 MB) into a 256 KB file system: one line, exit 2, nothing left behind."""
    assert main(["render", str(EXAMPLE), "--out", str(tmpfs / "gen"), "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"fabric: {tmpfs / 'gen'}: No space left on device (ENOSPC)"]
    assert list(tmpfs.iterdir()) == []


def test_read_only_target_for_real(tmpfs: Path, capsys, example_files: dict[str, bytes]) -> None:
    small = {"manifest.json": b'{"files": {}, "tool": "railfabric"}\n', "a.txt": b"a\n"}
    write_tree(tmpfs / "gen", small)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    before = _tree(tmpfs)
    assert main(["render", str(EXAMPLE), "--out", str(tmpfs / "gen"), "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"fabric: {tmpfs / 'gen'}: Read-only file system (EROFS)"]
    assert _tree(tmpfs) == before


def test_workers_are_bounded(capsys) -> None:
    cpus = len(os.sched_getaffinity(0))
    assert bounded_workers(1000, 10_000) == cpus
    assert bounded_workers(8, 3) == min(3, cpus)
    assert bounded_workers(4, 0) == 1
    with pytest.raises(SystemExit) as exc:
        main(["render", "--workers", "0"])
    assert exc.value.code == 2
    assert "must be at least 1" in capsys.readouterr().err


def test_debug_after_the_command(capsys, tmp_path: Path, monkeypatch) -> None:
    def boom(*_a, **_k):
        raise RuntimeError("kaboom")

    monkeypatch.setattr("railfabric.cli.cmd_validate", boom)
    from railfabric.cli import build_parser

    for argv in (["--debug", "validate"], ["validate", "--debug"]):
        assert build_parser().parse_args(argv).debug is True
    assert build_parser().parse_args(["validate"]).debug is False
    monkeypatch.setattr("railfabric.cli.build_parser", _parser_with(boom))
    assert main(["validate", str(EXAMPLE), "--debug"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: kaboom" in err


def _parser_with(fn):
    from railfabric.cli import build_parser as real

    def build():
        p = real()
        p._subparsers._group_actions[0].choices["validate"].set_defaults(func=fn)  # type: ignore[union-attr]
        return p

    return build
