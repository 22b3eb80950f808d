"""generated/manifest.json as an attack surface (issue 28, item 5): whoever can commit to generated/ (a fork's pull
request) writes it. Text read back from it (the findings text a render prints again), and from the files and names
under generated/ (a diff, an extra file's name), is data, not output: no control character and no line a CI runner
takes for a command reaches the log. A damaged or hostile manifest is a warning and a full render, never an internal
error, and never a refusal of railfabric's own directory; a directory that is clearly someone else's is still
refused.

GitHub Actions' runner (actions/runner src/Runner.Common/ActionCommand.cs) takes a line for a command when its first
non-blank characters are `::` (TryParseV2, after TrimStart) or when it holds `##[` anywhere (TryParse, IndexOf): the
output checks below look for both.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import orjson
import pytest

from railfabric import __version__
from railfabric.cli import main
from railfabric.core.textsafe import log_line, log_text, quote
from railfabric.emit import manifest
from railfabric.emit.build import build_files
from railfabric.pipeline import run
from tests.helpers import EXAMPLE
from tests.test_incremental import _inventory

FILES = 241  # generated/ of the example: the count `make render` reports


@pytest.fixture(scope="module")
def want() -> dict[str, bytes]:
    return build_files(run(EXAMPLE))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("base") / "generated"
    assert main(["render", str(EXAMPLE), "--out", str(out), "-q", "--workers", "1"]) == 0
    return out


@pytest.fixture
def out(rendered: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "generated"
    shutil.copytree(rendered, copy)
    (copy / ".gitkeep").write_text("")  # dot files are not railfabric's and do not make the directory foreign
    return copy


def _disk(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def assert_log_safe(text: str) -> None:
    """No control character but newline and tab, no `##[` anywhere, no line whose first non-blank characters are
    `::` (see the module docstring)."""
    assert not _CONTROL.search(text), repr(_CONTROL.search(text))
    assert "##[" not in text
    for line in text.split("\n"):
        assert not line.lstrip().startswith("::"), line


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main([*argv, "--workers", "1"])
    cap = capsys.readouterr()
    assert_log_safe(cap.out + cap.err)
    assert "internal error" not in cap.err
    return rc, cap.out, cap.err


# --------------------------------------------------------------------------- damaged and hostile manifests


def _canonical(doc: object) -> bytes:
    """As railfabric writes a manifest (railfabric.emit.manifest.document): the form `load` trusts."""
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode()


def _retyped(real: bytes, path: tuple[str, ...], value: object) -> bytes:
    """The real manifest with the field at `path` ("*": the first key there) set to `value`, encoded as railfabric
    encodes it (so that only the type gives it away)."""
    doc = json.loads(real)
    node = doc
    for key in path[:-1]:
        node = node[next(iter(node)) if key == "*" else key]
    node[next(iter(node)) if path[-1] == "*" else path[-1]] = value
    return _canonical(doc)


# (name, how to spoil the real manifest's bytes, the warning's words); every one is rendered afresh
DAMAGED = [
    ("deep-list", lambda real: b"[" * 100_000 + b"]" * 100_000, "depth limit exceeded"),
    ("deep-object", lambda real: b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "depth limit exceeded"),
    ("truncated", lambda real: real[: len(real) // 2], "is not valid JSON"),
    ("invalid-utf8", lambda real: real.replace(b'"railfabric"', b'"railfabric\xff"', 1), "not valid UTF-8"),
    ("nan", lambda real: real.replace(b'"findings": 0', b'"findings": NaN', 1), "is not valid JSON"),
    ("infinity", lambda real: real.replace(b'"findings": 0', b'"findings": 1e999', 1), "infinity"),
    # orjson reads an integer past 2^64 as a float: not a count
    ("huge-int", lambda real: real.replace(b'"findings": 0', b'"findings": 18446744073709551616', 1), "'findings'"),
    ("duplicate-key", lambda real: real.replace(b'{\n', b'{\n  "code_sha256": "0",\n', 1),
     "not as railfabric writes it"),
    ("not-a-mapping", lambda real: b"[]\n", "does not name the tool that wrote it"),
    ("tool-not-a-string", lambda real: b'{"tool": 5}\n', "does not name the tool that wrote it"),
    ("files-a-list", lambda real: _retyped(real, ("files",), []), "'files'"),
    ("file-sha-a-number", lambda real: _retyped(real, ("files", "*"), 5), "'files'"),
    ("device-a-list", lambda real: _retyped(real, ("devices", "*"), []), "'devices'"),
    ("device-files-a-string", lambda real: _retyped(real, ("devices", "*", "files"), "x"), "'devices'"),
    ("artifact-inputs-null", lambda real: _retyped(real, ("artifacts", "*", "inputs"), None), "'artifacts'"),
    ("findings-a-bool", lambda real: _retyped(real, ("findings",), True), "'findings'"),
    ("findings-text-a-list", lambda real: _retyped(real, ("findings_text",), ["::error::x"]), "'findings_text'"),
    ("code-missing", lambda real: _canonical({k: v for k, v in json.loads(real).items() if k != "code_sha256"}),
     "'code_sha256'"),
]


@pytest.mark.parametrize(("spoil", "words"), [d[1:] for d in DAMAGED], ids=[d[0] for d in DAMAGED])
def test_damaged_manifest_is_a_warning_and_a_full_render(out: Path, want: dict[str, bytes], spoil, words: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    m = out / "manifest.json"
    m.write_bytes(spoil(m.read_bytes()))
    for argv in (["render", "--check"], ["plan"]):
        rc, text, err = _run(capsys, *argv, str(EXAMPLE), "--out", str(out))
        assert rc == (3 if argv[-1] == "--check" else 0)
        assert "manifest.json" in text  # the record differs: it is rewritten by the render
        assert f"fabric: warning: {out}/manifest.json" in err and words in err
        assert "everything is rendered afresh" in err
    rc, text, err = _run(capsys, "render", str(EXAMPLE), "--out", str(out))
    assert rc == 0 and text == f"{out}/ updated: 1 changed, 0 added, 0 removed ({FILES} files)\n"
    assert _disk(out) == want and (out / ".gitkeep").exists()
    assert _run(capsys, "render", "--check", str(EXAMPLE), "--out", str(out))[0] == 0


def test_manifest_over_64_mib_is_not_read(out: Path, want: dict[str, bytes],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    m = out / "manifest.json"
    with open(m, "r+b") as fh:
        fh.truncate(manifest.MAX_BYTES + 1)  # sparse: 64 MiB + 1 byte of zeros, not written
    rc, _text, err = _run(capsys, "render", "--check", str(EXAMPLE), "--out", str(out))
    assert rc == 3 and "is larger than 64 MiB (67,108,865 bytes): not read" in err
    assert _run(capsys, "render", str(EXAMPLE), "--out", str(out))[0] == 0
    assert _disk(out) == want


@pytest.mark.parametrize("kind", ["fifo", "symlink-to-dev-zero"])
def test_manifest_that_is_not_a_file_is_never_opened_for_reading(out: Path, want: dict[str, bytes], kind: str,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A FIFO would block a plain open() forever, /dev/zero would be read to the size limit: neither is read. A FIFO
    is a damaged marker (a warning, a full render); a manifest.json that is a symbolic link makes the directory not
    known to be railfabric's (tests/test_outdir_links.py): refused, exit 2, nothing written."""
    m = out / "manifest.json"
    m.unlink()
    if kind == "fifo":
        os.mkfifo(m)
        rc, _text, err = _run(capsys, "render", "--check", str(EXAMPLE), "--out", str(out))
        assert rc == 3 and "is not a regular file" in err
        assert _run(capsys, "render", str(EXAMPLE), "--out", str(out))[0] == 0
        assert _disk(out) == want and not m.is_symlink()
        return
    m.symlink_to("/dev/zero")
    for args in (("render", "--check"), ("render",)):
        rc, _text, err = _run(capsys, *args, str(EXAMPLE), "--out", str(out))
        assert rc == 2 and "holds manifest.json as a symbolic link (-> '/dev/zero')" in err
    assert m.is_symlink()  # untouched


def test_a_damaged_manifest_does_not_make_a_foreign_directory_railfabrics(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Only a directory holding nothing but what a render writes (configs/ among it) is taken with a damaged
    manifest; the user's file beside one, or a lone broken manifest.json, is refused and left as it was."""
    for name, entries in (("notes", {"manifest.json": b"not json", "configs/a/frr.conf": b"x", "notes.txt": b"mine"}),
                          ("lone", {"manifest.json": b"not json"}),
                          ("other-tool", {"manifest.json": b'{"tool": "webpack"}', "configs/a/x": b"x"})):
        d = tmp_path / name
        for rel, data in entries.items():
            (d / rel).parent.mkdir(parents=True, exist_ok=True)
            (d / rel).write_bytes(data)
        rc = main(["render", str(EXAMPLE), "--out", str(d), "--workers", "1"])
        assert rc == 2 and "not a railfabric output directory" in capsys.readouterr().err
        assert _disk(d) == entries


def test_output_roots_cover_what_the_example_writes(want: dict[str, bytes]) -> None:
    assert {p.split("/")[0] for p in want} == manifest.OUTPUT_ROOTS


# --------------------------------------------------------------------------- replayed text


HOSTILE = ("\x1b]0;owned\x07\x1b[2J" "inventory/fabric.yml:1:1: warning X: a\n"
           "::add-mask::secret\n"
           "   ::error file=x,line=1::fake annotation\n"
           "\t::set-output name=a::b\n"
           "see ##[error]old-style command\n"
           "##[group]folded\r::warning::after a carriage return\n"
           "a\u2028::error::after a unicode line separator\x85\x9b31m\n")


def _hostile_record(gen: Path) -> None:
    """The manifest of a render with findings, its findings text replaced (in railfabric's own encoding, so that
    nothing else gives it away)."""
    m = gen / "manifest.json"
    doc = orjson.loads(m.read_bytes())
    assert doc["findings"] == 1 and doc["version"] == __version__
    doc["findings_text"] = HOSTILE
    m.write_bytes(_canonical(doc))
    assert manifest.load(gen).findings_text == log_text(HOSTILE)  # trusted, and replayed through log_text


@pytest.mark.parametrize("argv", [["render", "--check"], ["render"], ["plan"]], ids=" ".join)
def test_replayed_findings_are_re_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
                                          ) -> None:
    # the example with super_spine ASN 100: ASN001 warns, the render records the warning and its text
    inv = _inventory(tmp_path, "super_spine: 4200000000", "super_spine: 100", "fabric.yml")
    gen = tmp_path / "gen"
    assert main(["render", str(inv), "--out", str(gen), "-q", "--workers", "1"]) == 0
    capsys.readouterr()
    _hostile_record(gen)
    rc, text, _err = _run(capsys, *argv, str(inv), "--out", str(gen), "-v")
    assert rc == 0
    assert text.startswith(log_text(HOSTILE))  # replayed (the shortcut was taken), escaped
    assert "\\x1b]0;owned\\x07\\x1b[2J" in text and "\\::add-mask::secret" in text and "##\\[error]" in text


def test_diff_lines_and_names_read_back_from_the_output_are_escaped(out: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """render --check and plan show a diff of a changed file (its old side read from --out) and the names of extra
    files and gone devices (read from --out's listing): all of it is escaped."""
    frr = out / "configs" / "p1-s1-rail0" / "frr.conf"
    frr.write_text(frr.read_text().replace("router bgp", "::error::x\x1b[31m\n##[add-mask]y\nrouter bgp", 1))
    (out / "configs" / "::error::gone\x1b[2J").mkdir()
    (out / "configs" / "::error::gone\x1b[2J" / "frr.conf").write_text("x\n")
    (out / "##[warning]extra\x07.txt").write_text("x\n")
    for argv in (["render", "--check"], ["plan"]):
        rc, text, _err = _run(capsys, *argv, str(EXAMPLE), "--out", str(out))
        assert rc == (3 if argv[-1] == "--check" else 0)
        assert "    -::error::x\\x1b[31m" in text and "    -##\\[add-mask]y" in text  # the old side, removed
        assert "::error::gone\\x1b[2J" in text


# --------------------------------------------------------------------------- the escapers themselves


def test_log_line_escapes_exactly_what_a_terminal_or_runner_acts_on() -> None:
    assert log_line("p1-s1-rail0 frr.conf (+1 -1)") == "p1-s1-rail0 frr.conf (+1 -1)"  # ordinary text: unchanged
    assert log_line("\tmtu 9216 …") == "\tmtu 9216 …"  # a tab and printable non-ASCII stay
    assert log_line("\x1b[2J") == "\\x1b[2J"  # ESC escaped as repr writes it
    assert log_line("  ::error::x") == "  \\::error::x"  # indentation alone would not disarm it (TrimStart)
    assert log_line("a ::error::x") == "a ::error::x"  # not at the start: no command
    assert log_line("x ##[add-mask]y") == "x ##\\[add-mask]y"  # anywhere in the line
    assert log_line("\r::error::x") == "\\r::error::x"
    assert log_line("\u00a0::error::x") == "\\xa0::error::x"  # a no-break space is not printable: escaped
    assert log_text("a\nb\x0bc\n") == "a\nb\\x0bc\n"  # only \n splits lines; \v is escaped


def test_quote_disarms_old_style_runner_commands() -> None:
    # an unknown key 'k##[add-mask]v' quoted in a finding printed by `fabric validate` in a CI log
    assert quote("k##[add-mask]v") == "'k##\\[add-mask]v'"
