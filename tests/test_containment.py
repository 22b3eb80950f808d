"""Input containment: symlinks out of the inventory, the input and finding budgets, bounded suggestions, and names
that differ only in case.

Every test runs in tmp_path and loads the relative path "inv", so findings read "inv/<name>".
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import railfabric.inventory.files
from railfabric.cli import main
from railfabric.core.finding import MAX_FINDINGS, exit_code
from railfabric.core.formats import format_json, format_text
from railfabric.core.source_map import Location
from railfabric.core.textsafe import SUGGEST_MAX_WORD, did_you_mean
from railfabric.inventory.load import load_inventory
from railfabric.pipeline import run
from tests.helpers import base_inventory, dump, write_files

SECRET = "root:$6$saltsalt$SECRETHASHVALUE:19000:0:99999:7:::"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _inventory(tmp_path: Path) -> Path:
    return write_files(tmp_path / "inv", {"fabric.yml": dump(base_inventory())})


def _outside_secret(tmp_path: Path) -> Path:
    """A file outside the inventory that parses as YAML (one key per line), like /etc/shadow does."""
    secret = tmp_path / "outside" / "shadow"
    secret.parent.mkdir()
    secret.write_text(SECRET + "\n")
    return secret


# --------------------------------------------------------------------------- symlinks


def test_symlink_to_a_file_outside_is_refused_at_the_link_and_never_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # before: the link was followed and the "password hash" came back as an SCH001 unknown key
    _inventory(tmp_path)
    os.symlink(_outside_secret(tmp_path), tmp_path / "inv" / "x.yml")
    res = run(Path("inv"))
    assert [(f.code, f.location, f.fatal) for f in res.findings] == [("LOAD012", Location("inv/x.yml"), True)]
    assert exit_code(res.findings) == 2
    for text in (format_text(res.findings), format_json(res.findings)):
        assert "SECRETHASH" not in text and "saltsalt" not in text
    assert main(["validate", "inv"]) == 2
    out = capsys.readouterr()
    assert "SECRETHASH" not in out.out + out.err


def test_dangling_yaml_symlink_is_a_finding(tmp_path: Path) -> None:
    # before: Path.is_file() is False for a dangling link, so the file was skipped without a word
    _inventory(tmp_path)
    os.symlink(tmp_path / "gone.yml", tmp_path / "inv" / "pods.yml")
    res = run(Path("inv"))
    assert [(f.code, f.location) for f in res.findings] == [("LOAD013", Location("inv/pods.yml"))]
    assert "gone.yml" in res.findings[0].message


def test_symlinked_directory_outside_is_refused(tmp_path: Path) -> None:
    _inventory(tmp_path)
    outside = tmp_path / "elsewhere"
    write_files(outside, {"more.yml": "secret_key: 1\n"})
    os.symlink(outside, tmp_path / "inv" / "site")
    res = run(Path("inv"))
    assert [(f.code, f.location) for f in res.findings] == [("LOAD012", Location("inv/site"))]
    assert "secret_key" not in format_text(res.findings)


def test_symlink_inside_the_inventory_stays_allowed(tmp_path: Path) -> None:
    data = base_inventory()
    pods = {"pods": data.pop("pods")}
    write_files(tmp_path / "inv", {"fabric.yml": dump(data), "parts/pods.yml": dump(pods)})
    os.symlink("parts", tmp_path / "inv" / "current")  # a directory link inside: not entered (no double load)
    os.symlink(tmp_path / "inv" / "README", tmp_path / "inv" / "notes.txt")  # dangling, not YAML: ignored
    assert run(Path("inv")).findings == []


def test_fifo_named_yml_is_refused_without_blocking(tmp_path: Path) -> None:
    # before: skipped silently (not is_file()); reading it would block forever
    _inventory(tmp_path)
    os.mkfifo(tmp_path / "inv" / "pipe.yml")
    loaded = load_inventory(Path("inv"))
    assert [(f.code, f.location) for f in loaded.findings] == [("LOAD014", Location("inv/pipe.yml"))]


# --------------------------------------------------------------------------- budgets


def test_total_input_budget_refuses_before_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Three files of 400 bytes against a budget of 1,000: refused from their sizes, none of them parsed (the
    # unparsable one would otherwise be a LOAD001).
    monkeypatch.setattr(railfabric.inventory.files, "MAX_TOTAL_BYTES", 1000)
    write_files(tmp_path / "inv", {"a.yml": "a: " + "x" * 396 + "\n", "b.yml": "b: " + "y" * 396 + "\n",
                                   "c.yml": "c: [" + "z" * 395 + "\n"})
    loaded = load_inventory(Path("inv"))
    assert [(f.code, f.location, f.fatal) for f in loaded.findings] == [("LOAD015", Location("inv"), True)]
    assert "1,200 bytes" in loaded.findings[0].message
    assert loaded.data == {}


def test_finding_budget_says_how_many_more(tmp_path: Path) -> None:
    # MAX_FINDINGS + 234 unknown top-level keys: the first MAX_FINDINGS shown, then one LOAD016 with the rest
    extra = "".join(f"junk_{i:05d}: 1\n" for i in range(MAX_FINDINGS + 234))
    write_files(tmp_path / "inv", {"fabric.yml": dump(base_inventory()), "junk.yml": extra})
    res = run(Path("inv"))
    assert len(res.findings) == MAX_FINDINGS + 1
    assert {f.code for f in res.findings[:-1]} == {"SCH001"}
    last = res.findings[-1]
    assert last.code == "LOAD016"
    # it sits after the last finding shown (junk_00999 on line 1000), so every error has a file and a line
    assert last.location is not None and (Path(last.location.file).name, last.location.line) == ("junk.yml", 1000)
    assert last.message.startswith("234 more findings not shown")


def test_loader_findings_are_budgeted_too(tmp_path: Path) -> None:
    # MAX_FINDINGS + 5 duplicate keys in one mapping: LOAD002 each, the last 5 only counted
    text = "a: 1\n" + "".join("a: 2\n" for _ in range(MAX_FINDINGS + 5))
    write_files(tmp_path / "inv", {"x.yml": text})
    loaded = load_inventory(Path("inv"))
    assert [f.code for f in loaded.findings].count("LOAD002") == MAX_FINDINGS
    assert loaded.findings[-1].code == "LOAD016"
    assert loaded.findings[-1].message.startswith("5 more findings not shown")


def test_did_you_mean_is_bounded() -> None:
    assert did_you_mean("host_mtuu", ["host_mtu", "mtu"]) == "host_mtu"
    assert did_you_mean("h" * (SUGGEST_MAX_WORD + 1), ["h" * (SUGGEST_MAX_WORD + 1)]) is None
    assert did_you_mean("key1", [f"key{i}" for i in range(100_000)]) is None  # too many options: no quadratic scan


def test_suggestions_only_for_the_findings_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: 200,000 unknown device names in one 8 MB file took 147 s, a suggestion computed for each though
    only MAX_FINDINGS findings are shown. Now one per finding that can be shown, each of those still gets its own."""
    import railfabric.core.textsafe

    calls: list[str] = []
    real = railfabric.core.textsafe.did_you_mean

    def counted(word: object, options, cutoff: float = 0.6) -> str | None:  # type: ignore[no-untyped-def]
        calls.append(str(word))
        return real(word, options, cutoff)

    monkeypatch.setattr(railfabric.core.textsafe, "did_you_mean", counted)
    # the base fabric's rail switches are p1-s1-rail0 and p1-s1-rail1; 1,500 overrides name p1-s1-rail0x<i>
    # (11 of their 13-16 characters match either rail switch: a ratio over difflib's 0.6), in file order 0, 1, 2,
    # ...: REF003 each
    unknown = 1500
    devices = "devices:\n" + "".join(f"  p1-s1-rail0x{i}:\n    rack: R1\n" for i in range(unknown))
    write_files(tmp_path / "inv", {"fabric.yml": dump(base_inventory()), "devices.yml": devices})
    res = run(Path("inv"))
    ref = [f for f in res.findings if f.code == "REF003"]
    assert len(calls) == MAX_FINDINGS  # not 1,500
    assert calls == [f"p1-s1-rail0x{i}" for i in range(MAX_FINDINGS)]  # the first in file order: the ones shown
    assert len(ref) == MAX_FINDINGS and all(f.hint.startswith("did you mean 'p1-s1-rail") for f in ref)
    assert res.findings[-1].code == "LOAD016" and res.findings[-1].message.startswith("500 more findings")


# --------------------------------------------------------------------------- names that differ only in case


def test_hostname_override_differing_only_in_case_is_a_finding(tmp_path: Path) -> None:
    # the base fabric has rail switches p1-s1-rail0 and p1-s1-rail1; rail0 is renamed P1-S1-Rail1
    data = base_inventory()
    write_files(tmp_path / "inv", {
        "fabric.yml": dump(data),
        # "    hostname: " is 14 characters: the value starts at line 3 column 15
        "devices.yml": "devices:\n  p1-s1-rail0:\n    hostname: P1-S1-Rail1\n",
    })
    res = run(Path("inv"))
    found = [f for f in res.findings if f.code == "ID006"]
    assert len(found) == 1, res.findings
    f = found[0]
    places = {f.location, *f.related}
    assert Location("inv/devices.yml", 3, 15) in places
    # the other device is declared by the segment (pods[0].segments[0]: line of "- id: 1" under segments)
    assert any(p.file == "inv/fabric.yml" for p in places)
    assert "'P1-S1-Rail1'" in f.message and "'p1-s1-rail1'" in f.message


def test_host_pattern_colliding_in_case_with_a_switch_is_one_finding(tmp_path: Path) -> None:
    # hosts P1-S1-RAIL1 .. P1-S1-RAIL4 against switches p1-s1-rail0/1: one pair of names, one finding
    data = base_inventory()
    data["pods"][0]["segments"][0]["host_groups"][0]["name"] = "P{pod}-S{segment}-RAIL{host}"
    res = run(write_files(tmp_path / "inv", {"fabric.yml": dump(data)}).relative_to(tmp_path))
    found = [f for f in res.findings if f.code == "ID006"]
    assert [f.message for f in found] == [
        "host name 'P1-S1-RAIL1' differs only in case from switch name 'p1-s1-rail1'"
        f" (declared at {found[0].related[0]})"]
