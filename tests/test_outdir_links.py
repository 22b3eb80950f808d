"""The output directory as an attack surface (issue 28, item 1 and two smaller items): whoever controls generated/
(a pull request from a fork) may commit symbolic links in it. railfabric never follows one: `render --check` and
`plan` name every link (and where it points, escaped) as a difference, `render` replaces each by its own files, and
nothing outside the output directory is ever written, read into a diff, or changed. A link on the output directory
itself, or on a directory above it inside the current directory, is refused (exit 2, nothing written). Also: a check
or plan of a directory that is not railfabric's (`--out /`) is refused before it is walked, and `plan --out DIR`
names DIR."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.emit import intact
from railfabric.emit.intact import NoFollow, hash_files, listing
from tests.helpers import EXAMPLE

SWITCH = "p1-s1-rail0"  # a SONiC switch of the example: configs/<switch>/{config_db.json,frr.conf}
OTHER = "p1-s1-rail1"
SECRET = "SECRET-VICTIM-CONTENT"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example rendered once; each test copies it (links kept as links)."""
    out = tmp_path_factory.mktemp("rendered") / "gen"
    assert main(["render", str(EXAMPLE), "--out", str(out), "--workers", "1", "-q"]) == 0
    return out


@pytest.fixture
def gen(rendered: Path, tmp_path: Path) -> Path:
    out = tmp_path / "gen"
    shutil.copytree(rendered, out, symlinks=True)
    return out


@pytest.fixture
def victim(tmp_path: Path, rendered: Path) -> Path:
    """A directory outside the output directory, holding the names a render writes (one with the very content the
    render would write: a link to it must still be reported and replaced) and a secret."""
    v = tmp_path / "victim"
    (v / "sub").mkdir(parents=True)
    (v / "frr.conf").write_bytes((rendered / "configs" / SWITCH / "frr.conf").read_bytes())  # the right content
    (v / "config_db.json").write_text(f"{SECRET}\n")
    (v / "secret.txt").write_text(f"{SECRET}\n")
    (v / "sub" / "deep.txt").write_text(f"{SECRET} deep\n")
    os.chmod(v / "secret.txt", 0o600)
    return v


def _state(root: Path) -> dict[str, tuple[str, str, int]]:
    """Every entry under `root` (and root itself): its kind, the sha256 of its bytes or its link text, its mode."""
    seen: dict[str, tuple[str, str, int]] = {}
    for folder, dirs, names in os.walk(root):
        for name in [*dirs, *names, *([""] if folder == str(root) else [])]:
            p = Path(folder, name) if name else Path(folder)
            st = p.lstat()
            if p.is_symlink():
                seen[str(p)] = ("link", os.readlink(p), st.st_mode)
            elif p.is_dir():
                seen[str(p)] = ("dir", "", st.st_mode)
            else:
                seen[str(p)] = ("file", hashlib.sha256(p.read_bytes()).hexdigest(), st.st_mode)
    return seen


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _render(gen: Path, *extra: str) -> list[str]:
    return [*extra[:1], str(EXAMPLE), "--out", str(gen), "--workers", "1", *extra[1:]]


def _place(gen: Path, victim: Path, case: str) -> tuple[str, str]:
    """Make the link of `case` in `gen`: (its path relative to gen, its text)."""
    sw, other = gen / "configs" / SWITCH, gen / "configs" / OTHER
    if case == "root child":  # the output root's child: every switch's directory behind one link
        shutil.rmtree(gen / "configs")
        return "configs", _link(victim, gen / "configs")
    if case == "switch directory":
        shutil.rmtree(sw)
        return f"configs/{SWITCH}", _link(victim, sw)
    if case == "deepest directory":  # depth 3: hosts/_groups/<group>/
        group = sorted((gen / "hosts" / "_groups").iterdir())[0]
        shutil.rmtree(group)
        return f"hosts/_groups/{group.name}", _link(victim / "sub", group)
    if case == "file with the right content":
        (sw / "frr.conf").unlink()
        return f"configs/{SWITCH}/frr.conf", _link(victim / "frr.conf", sw / "frr.conf")
    if case == "file to a secret":
        (sw / "config_db.json").unlink()
        return f"configs/{SWITCH}/config_db.json", _link(victim / "secret.txt", sw / "config_db.json")
    if case == "file inside the output":  # another switch's file: never changed through the link
        (sw / "frr.conf").unlink()
        return f"configs/{SWITCH}/frr.conf", _link(Path("..") / OTHER / "frr.conf", sw / "frr.conf")
    if case == "dangling":  # writing through it would create victim/new.conf
        (sw / "frr.conf").unlink()
        return f"configs/{SWITCH}/frr.conf", _link(victim / "new.conf", sw / "frr.conf")
    if case == "loop":
        shutil.rmtree(sw)
        os.symlink(sw, other / "loop-b")  # configs/<switch> -> configs/<other>/loop-b -> configs/<switch>
        return f"configs/{SWITCH}", _link(other / "loop-b", sw)
    if case == "dot name":  # a dot entry is the user's to keep, but a link is never kept
        return ".cache", _link(victim, gen / ".cache")
    raise AssertionError(case)


def _link(target: Path, at: Path) -> str:
    os.symlink(target, at)
    return str(target)


CASES = ["root child", "switch directory", "deepest directory", "file with the right content", "file to a secret",
         "file inside the output", "dangling", "loop", "dot name"]


@pytest.mark.parametrize("case", CASES)
def test_a_link_is_reported_by_check_and_plan_and_never_followed(gen: Path, victim: Path, case: str,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path, text = _place(gen, victim, case)
    # the second link of the loop is reported too
    extra = {f"configs/{OTHER}/loop-b": str(gen / "configs" / SWITCH)} if case == "loop" else {}
    victim_before = _state(victim)

    rc, out, err = _run(capsys, *_render(gen, "render", "--check"))
    assert rc == 3, (out, err)
    assert f"  link     {path} -> {text!r}\n" in out
    for more, more_text in extra.items():
        assert f"  link     {more} -> {more_text!r}\n" in out
    assert f"{1 + len(extra)} symbolic link(s)" in out.splitlines()[0]
    assert SECRET not in out  # no diff of a file behind a link

    rc, out, err = _run(capsys, *_render(gen, "plan"))
    assert rc == 0, err
    assert f"  link     {path} -> {text!r}\n" in out and SECRET not in out
    assert f"{1 + len(extra)} symbolic link(s) to replace" in out
    assert _state(victim) == victim_before


@pytest.mark.parametrize("case", CASES)
def test_render_replaces_a_link_and_writes_nothing_outside(gen: Path, victim: Path, case: str, rendered: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    path, text = _place(gen, victim, case)
    victim_before = _state(victim)
    other_file = (rendered / "configs" / OTHER / "frr.conf").read_bytes()

    rc, out, err = _run(capsys, *_render(gen, "render"))
    assert rc == 0, err
    assert f"  replaced link {path} -> {text!r}\n" in out
    assert _state(victim) == victim_before  # byte for byte, mode for mode, nothing added (not even new.conf)
    assert not any(p.is_symlink() for p in gen.rglob("*")) and not (gen / ".cache").exists()
    if case != "dot name":
        assert (gen / path).exists() and not (gen / path).is_symlink()
    assert (gen / "configs" / OTHER / "frr.conf").read_bytes() == other_file
    rc, out, _err = _run(capsys, *_render(gen, "render", "--check"))
    assert rc == 0 and "is up to date" in out


def test_link_text_and_names_are_escaped(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A link's text and a file's name are chosen by whoever made them: one printable line each, never a CI
    workflow command or a terminal escape at the start of a line."""
    evil = "x\n::error::pwned\x1b[31m"
    os.symlink(evil, gen / "configs" / SWITCH / "evil")
    (gen / f"extra\n::add-mask::{SECRET}").write_text("x")
    rc, out, _err = _run(capsys, *_render(gen, "render", "--check"))
    assert rc == 3
    assert not any(line.startswith("::") for line in out.splitlines()) and "\x1b" not in out
    assert f"  link     configs/{SWITCH}/evil -> {evil!r}\n" in out  # repr: \n and \x1b escaped, quoted
    assert f"  extra    extra\\n::add-mask::{SECRET}\n" in out


# --------------------------------------------------------------------------- links on the way to the output


def test_a_linked_manifest_is_no_marker(gen: Path, victim: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The marker that makes a directory railfabric's must be its own file: a link to a manifest (railfabric's own,
    elsewhere) proves nothing, so render, check and plan refuse the directory (exit 2), read nothing through it."""
    shutil.copy(gen / "manifest.json", victim / "manifest.json")
    (gen / "manifest.json").unlink()
    os.symlink(victim / "manifest.json", gen / "manifest.json")
    (gen / "configs" / SWITCH / "frr.conf").write_text("stale\n")
    before, victim_before = _state(gen), _state(victim)
    for argv in (_render(gen, "render"), _render(gen, "render", "--check"), _render(gen, "plan")):
        rc, out, err = _run(capsys, *argv)
        assert rc == 2 and out == ""
        assert f"--out {gen} holds manifest.json as a symbolic link (-> {str(victim / 'manifest.json')!r})" in err
    assert _state(gen) == before and _state(victim) == victim_before



def test_an_output_directory_that_is_a_link_is_refused(tmp_path: Path, rendered: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """`generated -> /etc` committed in a pull request: refused for render, check and plan, nothing written."""
    target = tmp_path / "elsewhere"
    shutil.copytree(rendered, target)  # even railfabric's own output behind the link
    (target / "configs" / SWITCH / "frr.conf").write_text("stale\n")  # so a render would write
    link = tmp_path / "gen"
    os.symlink(target, link)
    before = _state(target)
    for argv in (_render(link, "render"), _render(link, "render", "--check"), _render(link, "plan")):
        rc, out, err = _run(capsys, *argv)
        assert rc == 2 and out == ""
        assert f"--out {link} is a symbolic link (-> {str(target)!r}); railfabric never writes through one" in err
    assert _state(target) == before
    os.unlink(link)
    os.symlink(tmp_path / "nowhere", link)  # dangling
    rc, _out, err = _run(capsys, *_render(link, "render"))
    assert rc == 2 and "is a symbolic link" in err and not (tmp_path / "nowhere").exists()


def test_a_link_above_the_output_inside_the_current_directory_is_refused(
        tmp_path: Path, rendered: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    work, victim = tmp_path / "work", tmp_path / "victim"
    work.mkdir()
    victim.mkdir()
    shutil.copytree(rendered, victim / "gen")
    (victim / "gen" / "configs" / SWITCH / "frr.conf").write_text("stale\n")
    os.symlink(victim, work / "build")
    monkeypatch.chdir(work)
    before = _state(victim)
    for out in ("build/gen", "build/../build/gen"):
        rc, _out, err = _run(capsys, "render", str(EXAMPLE), "--out", out, "--workers", "1")
        assert rc == 2
        assert f"--out {out} lies under the symbolic link build (-> {str(victim)!r})" in err
    assert _state(victim) == before
    # the same directory by its real path is railfabric's own: rendered
    rc, _out, err = _run(capsys, "render", str(EXAMPLE), "--out", str(victim / "gen"), "--workers", "1")
    assert rc == 0, err


def test_a_link_above_the_output_inside_a_git_work_tree_is_refused(
        tmp_path: Path, rendered: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Run from outside the checkout: the link is still the work tree's content (a pull request's), so refused; a
    link above the work tree (the machine's own, like /home -> /usr/home) is followed as before."""
    repo, victim = tmp_path / "repo", tmp_path / "victim"
    (repo / ".git").mkdir(parents=True)  # a work tree's root, as _git_root finds it
    shutil.copytree(rendered, victim / "gen")
    os.symlink(victim, repo / "build")
    monkeypatch.chdir(tmp_path / "victim")  # not below the link
    before = _state(victim)
    out = repo / "build" / "gen"
    rc, _out, err = _run(capsys, "render", str(EXAMPLE), "--out", str(out), "--workers", "1")
    assert rc == 2 and f"--out {out} lies under the symbolic link {repo / 'build'} (-> {str(victim)!r})" in err
    assert _state(victim) == before
    os.symlink(victim, tmp_path / "machine")  # above any work tree: not the repository's to have made
    rc, _out, err = _run(capsys, "render", str(EXAMPLE), "--out", str(tmp_path / "machine" / "gen"), "--workers", "1")
    assert rc == 0, err


# --------------------------------------------------------------------------- reading never follows a link


def test_reading_never_follows_a_link_nor_leaves_the_directory(gen: Path, victim: Path) -> None:
    secret_sha = hashlib.sha256(f"{SECRET}\n".encode()).hexdigest()
    (gen / "configs" / SWITCH / "config_db.json").unlink()
    os.symlink(victim / "secret.txt", gen / "configs" / SWITCH / "config_db.json")
    os.symlink(victim, gen / "configs" / "behind")
    os.mkfifo(gen / "configs" / "fifo")  # opened without O_NONBLOCK, this would block forever
    want = {f"configs/{SWITCH}/config_db.json": secret_sha,  # a file link: not a file
            "configs/behind/secret.txt": secret_sha,  # through a directory link
            "../victim/secret.txt": secret_sha,  # a manifest naming a path out of the directory
            str(victim / "secret.txt"): secret_sha,
            "configs/fifo": secret_sha}
    assert hash_files(gen, want) == {}
    frr = f"configs/{SWITCH}/frr.conf"
    assert hash_files(gen, {frr: hashlib.sha256((gen / frr).read_bytes()).hexdigest()}) == \
        {frr: (gen / frr).stat().st_size}
    found = listing(gen)
    assert f"configs/{SWITCH}/config_db.json" not in found.files and "configs/fifo" not in found.files
    assert found.links == {f"configs/{SWITCH}/config_db.json": str(victim / "secret.txt"),
                           "configs/behind": str(victim)}
    with NoFollow(gen) as reader:
        assert reader.read("configs/behind/secret.txt") is None
        assert reader.read(frr) == (gen / frr).read_bytes()
        assert reader.read(f"configs/{OTHER}/frr.conf") == (gen / "configs" / OTHER / "frr.conf").read_bytes()


# --------------------------------------------------------------------------- a check of what is not railfabric's


def _no_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    def walked(out: Path) -> None:
        raise AssertionError(f"{out} was walked")

    monkeypatch.setattr(intact, "listing", walked)
    monkeypatch.setattr("railfabric.emit.compare.listing", walked)


@pytest.mark.parametrize("command", [["render", "--check"], ["plan"]])
def test_check_of_a_foreign_tree_is_refused_before_walking_it(tmp_path: Path, command: list[str],
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big"
    for i in range(200):
        (big / f"d{i}" / "x" / "y").mkdir(parents=True)
        for j in range(10):
            (big / f"d{i}" / "x" / "y" / f"f{j}").write_text("not railfabric's")
    _no_walk(monkeypatch)
    rc, out, err = _run(capsys, command[0], *command[1:], str(EXAMPLE), "--out", str(big), "--workers", "1")
    assert rc == 2 and out == ""
    assert f"--out {big} exists and is not a railfabric output directory (no manifest.json in it): " in err
    rc, out, err = _run(capsys, command[0], *command[1:], str(EXAMPLE), "--out", "/", "--workers", "1")
    assert rc == 2 and out == ""
    assert "--out / is the file system root" in err


def test_plan_names_the_output_directory_it_compared(gen: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _err = _run(capsys, *_render(gen, "plan"))
    assert rc == 0
    assert out == f"No changes. {gen}/ matches the inventory.\n"


def test_a_committed_journal_cannot_write_through_a_link(tmp_path: Path) -> None:
    """The attack both issue-28 fixes meet at (symlinks, journal recovery): a pull request commits beside the output
    directory a stage `.gen.stage-x/` whose journal places `evil/passwd`, and inside the output a link `evil` to a
    victim directory. The next render must not write the victim's passwd (the journal is refused: a link on its
    way), and renders its own tree."""
    import json

    from railfabric.cli import main
    from tests.helpers import EXAMPLE

    gen = tmp_path / "gen"
    assert main(["render", str(EXAMPLE), "--out", str(gen), "-q"]) == 0
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "passwd").write_text("root:x:0:0\n")
    (gen / "evil").symlink_to(victim)
    stage = tmp_path / ".gen.stage-x"
    (stage / "evil").mkdir(parents=True)
    (stage / "evil" / "passwd").write_text("pwned\n")
    (stage / ".railfabric-journal.json").write_text(json.dumps({"place": ["evil/passwd"], "remove": []}))
    main(["render", str(EXAMPLE), "--out", str(gen), "-q"])
    assert (victim / "passwd").read_text() == "root:x:0:0\n"
    assert not (gen / "evil").is_symlink()
    assert main(["render", "--check", str(EXAMPLE), "--out", str(gen), "-q"]) == 0
