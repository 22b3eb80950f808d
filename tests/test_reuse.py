"""The whole-run reuse (railfabric.emit.reuse), the background hashing of an earlier render (railfabric.emit.intact) and
the fast unified diff of `render --check` (issue 13).

The example inventory validates without a single finding, so after a render into a temporary directory a second
`render --check` with the same inventory and the same railfabric has nothing to validate or render: every file is
taken from the manifest's record once it hashes right. Every case below changes one input of that decision and
checks that the shortcut is NOT taken (the full path then decides), or that it is, and that the result is what a
cold render gives.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import railfabric.emit.intact as intact
import railfabric.outputs.digest as digest
import railfabric.pipeline as pipeline
from railfabric.cli import main
from railfabric.emit import reuse
from railfabric.emit.build import build_files, unified, write_tree
from railfabric.inventory.load import load_inventory
from railfabric.pipeline import run
from tests.test_incremental import _inventory

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "inventory"
SHORTCUT = "nothing to validate or render"
FILES = 241  # generated/ of the example: the count `make render` reports (configs, artifacts, manifest)


@pytest.fixture(autouse=True)
def _fresh_digests() -> Iterator[None]:
    digest.platform_digest.cache_clear()
    reuse.code_sha256.cache_clear()
    yield
    digest.platform_digest.cache_clear()
    reuse.code_sha256.cache_clear()


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("base") / "generated"
    assert main(["render", str(EXAMPLE), "--out", str(out), "-q"]) == 0
    return out


@pytest.fixture
def out(rendered: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "generated"
    shutil.copytree(rendered, copy)
    return copy


def _check(inv: Path, out: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    rc = main(["render", str(inv), "--out", str(out), "--check", "-v", *extra])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _no_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("validation ran although nothing changed")
    monkeypatch.setattr(pipeline, "run", refuse)


def test_noop_check_skips_validation(out: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _no_pipeline(monkeypatch)
    rc, text, err = _check(EXAMPLE, out, capsys)
    assert rc == 0 and SHORTCUT in err
    assert text == f"{out}/ is up to date ({FILES} files)\n"


def test_noop_plan_and_render_skip_validation(out: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    before = {p: os.stat(out / p).st_ino for p in intact.listing(out).files}
    _no_pipeline(monkeypatch)
    assert main(["plan", str(EXAMPLE), "--out", str(out)]) == 0
    assert "No changes." in capsys.readouterr().out
    assert main(["render", str(EXAMPLE), "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"{out}/ unchanged ({FILES} files)\n"
    assert {p: os.stat(out / p).st_ino for p in intact.listing(out).files} == before  # nothing rewritten


def test_cosmetic_inventory_edit_still_skips(out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a comment changes the file's bytes, not the inventory's meaning (its canonical digest)
    inv = _inventory(tmp_path, "  bfd: true\n", "  bfd: true   # reviewed\n", "fabric.yml")
    rc, _text, err = _check(inv, out, capsys)
    assert rc == 0 and SHORTCUT in err


def test_meaning_change_takes_the_full_path(out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv = _inventory(tmp_path, "management: 192.168.15.3 ", "management: 192.168.15.99 ")
    rc, text, err = _check(inv, out, capsys)
    assert rc == 3 and SHORTCUT not in err
    # p1-s1-rail3's management address: its config_db.json, its Ansible host_vars and inventory, the IP plan and
    # the manifest (the other outputs do not show management addresses)
    assert "changed  configs/p1-s1-rail3/config_db.json" in text
    assert "changed  ipplan.csv" in text


def test_hand_edited_file_takes_the_full_path(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = out / "configs" / "p1-spine2" / "frr.conf"
    path.write_text(path.read_text().replace("router bgp", "router  bgp", 1))
    rc, text, err = _check(EXAMPLE, out, capsys)
    assert rc == 3 and SHORTCUT not in err
    assert "1 changed, 0 missing, 0 extra" in text and "changed  configs/p1-spine2/frr.conf" in text


def test_same_size_edit_is_caught(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The size of a file is no proof: a one-character swap keeps it, and only its hash tells."""
    path = out / "ipplan.csv"
    text = path.read_text()
    assert "loopback" in text
    path.write_text(text.replace("loopback", "loopbacK", 1))
    rc, out_text, err = _check(EXAMPLE, out, capsys)
    assert rc == 3 and SHORTCUT not in err and "changed  ipplan.csv" in out_text


@pytest.mark.parametrize("where", ["extra.txt", "configs/p1-spine2/extra.cfg"])
def test_extra_file_takes_the_full_path(out: Path, capsys: pytest.CaptureFixture[str], where: str) -> None:
    (out / where).write_text("x\n")
    rc, text, err = _check(EXAMPLE, out, capsys)
    assert rc == 3 and SHORTCUT not in err and f"extra    {where}" in text


def test_dot_files_are_not_ours(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Dot files and dot directories are neither compared nor dropped: a render keeps them."""
    (out / ".gitattributes").write_text("* -diff\n")
    (out / ".cache").mkdir()
    (out / ".cache" / "notes").write_text("mine\n")
    rc, _text, err = _check(EXAMPLE, out, capsys)
    assert rc == 0 and SHORTCUT in err
    (out / "cabling.csv").unlink()  # a render must now run, and rebuild the tree
    assert main(["render", str(EXAMPLE), "--out", str(out), "-q"]) == 0
    assert (out / ".cache" / "notes").read_text() == "mine\n" and (out / ".gitattributes").is_file()
    assert (out / "cabling.csv").is_file()


def test_deleted_file_takes_the_full_path(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (out / "hosts" / "railmap.csv").unlink()
    rc, text, err = _check(EXAMPLE, out, capsys)
    assert rc == 3 and SHORTCUT not in err and "missing  hosts/railmap.csv" in text


def test_source_change_takes_the_full_path(out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    before = reuse.code_sha256()
    templates = tmp_path / "templates"
    shutil.copytree(digest.TEMPLATES, templates)
    (templates / "README.txt").write_text("a file under templates/ changes code_sha256\n")
    monkeypatch.setattr(digest, "TEMPLATES", templates)
    reuse.code_sha256.cache_clear()
    assert reuse.code_sha256() != before
    rc, text, err = _check(EXAMPLE, out, capsys)
    # the renderers read the copied templates (same bytes), so only the manifest's code_sha256 moved
    assert SHORTCUT not in err and rc == 3
    assert "1 changed, 0 missing, 0 extra" in text and "changed  manifest.json" in text


def _warned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """The example with super_spine ASN 100 (public: ASN001 warns, RFC 6996), rendered once (-q): the render goes
    on and records the finding and its text in the manifest."""
    inv = _inventory(tmp_path, "super_spine: 4200000000", "super_spine: 100", "fabric.yml")
    gen = tmp_path / "gen"
    assert main(["render", str(inv), "--out", str(gen), "-q"]) == 0
    capsys.readouterr()
    return inv, gen


def _asn001(inv: Path, line: int) -> str:
    # fabric.yml line 18 is "    super_spine: 100": the value starts after 4 spaces and "super_spine: " (13
    # characters), at column 18; the tmp path is not under the working directory, so it is shown absolute
    return (f"{inv}/fabric.yml:{line}:18: warning ASN001: super-spine ASNs 100-100 are not all private (RFC 6996)\n"
            "    hint: use 4200000000-4294967294 unless these ASNs are really yours\n"
            "0 error(s), 1 warning(s), 0 info\n")


def test_earlier_warnings_are_shown_again_without_validating(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    inv, gen = _warned(tmp_path, capsys)
    _no_pipeline(monkeypatch)
    rc, text, err = _check(inv, gen, capsys)
    assert rc == 0 and SHORTCUT in err
    assert text == _asn001(inv, 18) + f"{gen}/ is up to date ({FILES} files)\n"


def test_earlier_warnings_stay_quiet_with_q(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    inv, gen = _warned(tmp_path, capsys)
    _no_pipeline(monkeypatch)
    assert main(["render", str(inv), "--out", str(gen), "--check", "-q"]) == 0
    assert capsys.readouterr().out == f"{gen}/ is up to date ({FILES} files)\n"  # the result only


def test_moved_warning_takes_the_full_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a comment line on top keeps the inventory's meaning (input_sha256) but moves the warning to line 19: the
    # recorded text would be wrong, so the check validates again and shows the new line
    inv, gen = _warned(tmp_path, capsys)
    fabric_yml = inv / "fabric.yml"
    fabric_yml.write_text("# a comment moves every line down by one\n" + fabric_yml.read_text())
    rc, text, err = _check(inv, gen, capsys)
    assert SHORTCUT not in err and text.startswith(_asn001(inv, 19))
    assert rc == 3 and "changed  manifest.json" in text  # the recorded text and source digest moved; no config did


def test_renamed_inventory_takes_the_full_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the same bytes under another directory name: the warning names the file as given, so it must be made again
    inv, gen = _warned(tmp_path, capsys)
    other = inv.rename(tmp_path / "renamed")
    rc, text, err = _check(other, gen, capsys)
    assert SHORTCUT not in err and text.startswith(_asn001(other, 18)) and rc == 3


def test_earlier_findings_without_their_text_take_the_full_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                                ) -> None:
    # a manifest that counts findings but does not hold their text (as railfabric wrote it before it recorded
    # them) cannot show them: validate again
    inv, gen = _warned(tmp_path, capsys)
    record = gen / "manifest.json"
    data = json.loads(record.read_text())
    del data["findings_text"]
    record.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    rc, text, err = _check(inv, gen, capsys)
    assert SHORTCUT not in err and text.startswith(_asn001(inv, 18))
    assert rc == 3 and "changed  manifest.json" in text  # the text goes back into the record; nothing else moved


def test_manifest_records_findings_only_when_there_are_some(rendered: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    clean = json.loads((rendered / "manifest.json").read_text())
    assert clean["findings"] == 0 and "findings_text" not in clean and "source_sha256" not in clean
    inv, gen = _warned(tmp_path, capsys)
    warned = json.loads((gen / "manifest.json").read_text())
    assert warned["findings"] == 1 and warned["findings_text"] == _asn001(inv, 18)
    assert warned["source_sha256"] == load_inventory(inv).source_sha256


def test_source_digest_covers_names_and_bytes(tmp_path: Path) -> None:
    one = tmp_path / "one"
    one.mkdir()
    (one / "fabric.yml").write_text("a: 1\n")
    first = load_inventory(one).source_sha256
    assert load_inventory(one).source_sha256 == first  # the same files: the same digest
    (one / "fabric.yml").write_text("a: 1  # a comment\n")  # the same meaning, other bytes
    assert load_inventory(one).source_sha256 != first
    (one / "fabric.yml").write_text("a: 1\n")
    (one / "fabric.yml").rename(one / "other.yml")  # the same bytes, another name
    assert load_inventory(one).source_sha256 not in ("", first)
    # the same name and bytes in another directory: findings name the file with its directory
    two, three = tmp_path / "two", tmp_path / "three"
    two.mkdir()
    three.mkdir()
    (two / "x.yml").write_text("k: v\n")
    (three / "x.yml").write_text("k: v\n")
    assert load_inventory(two).source_sha256 != load_inventory(three).source_sha256


def test_full_skips_the_shortcut(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _text, err = _check(EXAMPLE, out, capsys, "--full")
    assert rc == 0 and SHORTCUT not in err


def test_shortcut_result_equals_cold_render(out: Path) -> None:
    files = reuse.Reuse(out).unchanged(EXAMPLE)
    assert files is not None
    cold = build_files(run(EXAMPLE))
    assert {p: k.read() for p, k in files.items()} == cold


# --------------------------------------------------------------------------- background hashing


def test_background_hashing_names_only_intact_files(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intact, "BACKGROUND_MIN", 1)
    # edited and removed before the hashing starts: edited after, the forked hasher may or may not have read them
    # already (a race the test must not depend on)
    (out / "cabling.csv").write_text("edited\n")
    (out / "report.json").unlink()
    job = reuse.Reuse(out)
    assert job.verification._future is not None  # hashing in a forked process
    want = job.previous.files
    found = job.verification.result()
    assert set(want) - set(found) == {"cabling.csv", "report.json"}
    assert found["ipplan.csv"] == (out / "ipplan.csv").stat().st_size


def test_dead_hashing_process_is_done_here(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hashing process that dies (killed, out of memory) costs time, never a wrong answer."""
    parent = os.getpid()
    real = intact.hash_files

    def dies_in_child(base: Path, want: dict[str, str]) -> dict[str, int]:
        if os.getpid() != parent:
            os._exit(9)
        return real(base, want)

    monkeypatch.setattr(intact, "hash_files", dies_in_child)
    monkeypatch.setattr(intact, "BACKGROUND_MIN", 1)
    files = reuse.Reuse(out).previous.files
    job = intact.Verification.start(out, files)
    assert job._future is not None  # it did start in the background
    assert job.result() == real(out, files) and len(job.result()) == FILES - 1  # every file but the manifest


def test_in_process_hashing_agrees(out: Path) -> None:
    files = reuse.Reuse(out).previous.files
    assert intact.Verification.start(out, files, background=False).result() == intact.hash_files(out, files)


def test_listing_skips_dot_entries_and_descends(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c.txt").write_text("1")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "d.txt").write_text("2")
    (tmp_path / "a" / ".keep").write_text("")
    (tmp_path / "e").write_text("3")
    found = intact.listing(tmp_path)
    assert found.files == {"a/b/c.txt": str(tmp_path / "a" / "b" / "c.txt"), "e": str(tmp_path / "e")}
    assert found.links == {}


# --------------------------------------------------------------------------- the diff render --check prints


def _apply(old: list[str], diff: list[str]) -> list[str]:
    """Apply a unified diff (as `patch` would, hunk by hunk at the line numbers it names) to `old`."""
    out: list[str] = []
    pos = 0
    for line in diff[2:]:
        if line.startswith("@@"):
            start, _, count = line.split()[1][1:].partition(",")
            first = int(start) - 1 if count != "0" else int(start)  # an empty range names the line before it
            out += old[pos:first]
            pos = first
        elif line.startswith(" "):
            assert old[pos] == line[1:]
            out.append(line[1:])
            pos += 1
        elif line.startswith("-"):
            assert old[pos] == line[1:]
            pos += 1
        else:
            out.append(line[1:])
    return out + old[pos:]


@settings(max_examples=300, deadline=None)
@given(old=st.lists(st.sampled_from("abcde"), max_size=40), edits=st.lists(
    st.tuples(st.sampled_from("idc"), st.integers(0, 40), st.sampled_from("xyz")), max_size=4),
    context=st.integers(0, 3))
def test_unified_diff_applies_back(tmp_path_factory: pytest.TempPathFactory, old: list[str],
                                   edits: list[tuple[str, int, str]], context: int) -> None:
    new = list(old)
    for op, at, text in edits:
        k = min(at, len(new))
        if op == "i":
            new.insert(k, text)
        elif k < len(new):
            if op == "d":
                del new[k]
            else:
                new[k] = text
    base = tmp_path_factory.mktemp("diff")
    (base / "f").write_text("".join(f"{x}\n" for x in old))
    got = unified(base, "f", "".join(f"{x}\n" for x in new).encode(), context)
    assert _apply(old, got) == new
    if old == new:
        assert got == []


def test_unified_diff_numbers_a_change_deep_in_a_long_file(tmp_path: Path) -> None:
    old = [f"row {i}" for i in range(100_000)]
    new = list(old)
    new[70_000] = "row 70000 changed"
    (tmp_path / "f.csv").write_text("".join(f"{x}\n" for x in old))
    got = unified(tmp_path, "f.csv", "".join(f"{x}\n" for x in new).encode(), 2)
    # line 70,001 (1-based) changed; 2 lines of context on each side: lines 69,999-70,003 in both files
    assert got[2:] == ["@@ -69999,5 +69999,5 @@", " row 69998", " row 69999", "-row 70000", "+row 70000 changed",
                       " row 70001", " row 70002"]
    assert got == list(difflib.unified_diff(old, new, "a/f.csv", "b/f.csv", n=2, lineterm=""))


def test_write_tree_keeps_files_in_dot_directories(tmp_path: Path) -> None:
    out = tmp_path / "gen"
    write_tree(out, {"manifest.json": b'{"tool": "railfabric", "files": {}}\n', "a.txt": b"1\n"})
    (out / ".tool").mkdir()
    (out / ".tool" / "state").write_text("keep me\n")
    write_tree(out, {"manifest.json": b'{"tool": "railfabric", "files": {}}\n', "a.txt": b"2\n"})
    assert (out / ".tool" / "state").read_text() == "keep me\n" and (out / "a.txt").read_text() == "2\n"


def test_the_inventory_is_loaded_once(out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole-run reuse loads the inventory to digest it; when the inventory did change, the pipeline goes on
    with that load instead of reading every file again."""
    import railfabric.inventory.load as load

    calls: list[Path] = []
    real = load.load_inventory

    def counted(path: Path) -> object:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(load, "load_inventory", counted)
    monkeypatch.setattr(pipeline, "load_inventory", counted)
    inv = _inventory(tmp_path, "management: 192.168.15.3 ", "management: 192.168.15.99 ")
    rc, _text, _err = _check(inv, out, capsys)
    assert rc == 3 and calls == [inv]
