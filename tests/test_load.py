"""The loader: every kind of bad input gives its finding code at the exact file, line and column.

Every test runs with the working directory set to tmp_path and loads the relative path "inv", so file names in
findings read "inv/<name>". Lines and columns are 1-based and were counted by hand from the YAML written here.
"""

from __future__ import annotations

import itertools
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from railfabric.core.finding import Finding, exit_code
from railfabric.core.formats import format_text
from railfabric.core.source_map import Location
from railfabric.inventory.files import MAX_FILE_BYTES
from railfabric.inventory.load import Loaded, load_inventory
from railfabric.pipeline import run
from tests.helpers import ROOT, SONIC_BUFFERS_FLOW, base_inventory, dump, write_files


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def load(tmp_path: Path, files: dict[str, str | bytes]) -> Loaded:
    write_files(tmp_path / "inv", files)
    return load_inventory(Path("inv"))


def only(loaded: Loaded, code: str) -> Finding:
    """The single finding of the load; it must carry `code`."""
    assert [f.code for f in loaded.findings] == [code], loaded.findings
    return loaded.findings[0]


# --------------------------------------------------------------------------- LOAD001 syntax errors


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [
        # line 3 is "  platform: sonic: eos"; the second ':' is character 18 of that line
        ("fabric:\n  name: mini\n  platform: sonic: eos\n", 3, 18),
        # a tab cannot start a token: the tab is the first character of line 2
        ("fabric:\n\tname: mini\n", 2, 1),
        # an unterminated quoted string: the parser gives up at the end of the stream, line 2 column 1
        ('name: "mini\n', 2, 1),
    ],
    ids=["mapping-in-scalar", "tab-indent", "unterminated-quote"],
)
def test_yaml_syntax_error_is_fatal_and_located(tmp_path: Path, text: str, line: int, col: int) -> None:
    loaded = load(tmp_path, {"a.yml": text})
    f = only(loaded, "LOAD001")
    assert f.location == Location("inv/a.yml", line, col)
    assert f.fatal is True
    assert f.message.startswith("YAML syntax error: ")
    assert f.hint
    assert loaded.data == {}
    assert exit_code(loaded.findings) == 2


def test_yaml_syntax_error_stops_the_pipeline_with_exit_2(tmp_path: Path) -> None:
    write_files(tmp_path / "inv", {"a.yml": "fabric:\n  name: mini\n  platform: sonic: eos\n"})
    res = run(Path("inv"))
    assert [(f.code, f.location) for f in res.findings] == [("LOAD001", Location("inv/a.yml", 3, 18))]
    assert res.stage_reached == "load"
    assert res.inventory is None
    assert exit_code(res.findings) == 2


def test_syntax_error_in_one_file_does_not_hide_the_others(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yml": "fabric:\n  name: mini\n", "b.yml": "pods: [1, 2\n"})
    f = only(loaded, "LOAD001")
    assert f.location is not None and f.location.file == "inv/b.yml"
    assert loaded.data == {"fabric": {"name": "mini"}}


def test_raw_control_character_in_file_is_refused(tmp_path: Path) -> None:
    # A raw ESC byte (not an escape sequence) is not allowed in a YAML stream at all.
    loaded = load(tmp_path, {"a.yml": "fabric:\n  name: mi\x1bni\n"})
    assert len(loaded.findings) == 1
    assert loaded.findings[0].fatal is True
    assert exit_code(loaded.findings) == 2


def test_raw_control_character_is_located_on_its_line(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yml": "fabric:\n  name: mi\x1bni\n"})
    f = loaded.findings[0]
    assert f.location is not None
    assert f.location.line == 2  # the ESC byte is on line 2
    assert "\n" not in f.message


def test_deeply_nested_file_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    depth = 200_000  # 400 KB of brackets: far below the 8 MiB file limit
    write_files(tmp_path / "inv", {"a.yml": "a: " + "[" * depth + "]" * depth + "\n"})
    hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
    stack = 8 << 20 if hard == resource.RLIM_INFINITY else min(8 << 20, hard)

    def usual_stack() -> None:  # the common 8 MiB default, so the outcome does not depend on the shell's ulimit
        resource.setrlimit(resource.RLIMIT_STACK, (stack, hard))

    proc = subprocess.run([sys.executable, "-m", "railfabric.cli", "validate", "inv", "--format", "json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, preexec_fn=usual_stack,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2
    assert '"code": "LOAD001"' in proc.stdout


# --------------------------------------------------------------------------- LOAD002 duplicate keys


@pytest.mark.parametrize(
    ("text", "key", "first", "second", "path", "kept"),
    [
        # top level: 'fabric' at 1:1 and again at 4:1
        ("fabric:\n  name: a\npods: []\nfabric:\n  name: b\n", "fabric", (1, 1), (4, 1), ("fabric",), {"name": "a"}),
        # nested mapping: 'name' at 2:3 and 4:3
        ("fabric:\n  name: a\n  mtu: 9216\n  name: b\n", "name", (2, 3), (4, 3), ("fabric", "name"), "a"),
        # inside a list item: "  - id: 1" puts the key at column 5, "    id: 2" too
        ("pods:\n  - id: 1\n    segments: []\n    id: 2\n", "id", (2, 5), (4, 5), ("pods", 0, "id"), 1),
    ],
    ids=["top-level", "nested", "in-list-item"],
)
def test_duplicate_key_in_one_mapping(tmp_path: Path, text: str, key: str, first: tuple[int, int],
                                      second: tuple[int, int], path: tuple, kept: object) -> None:
    loaded = load(tmp_path, {"a.yml": text})
    f = only(loaded, "LOAD002")
    assert f.location == Location("inv/a.yml", *second)
    assert f.related == (Location("inv/a.yml", *first),)
    assert repr(key) in f.message
    assert f"line {first[0]}" in f.message
    assert f.fatal is False
    assert exit_code(loaded.findings) == 1
    node: object = loaded.data
    for p in path:
        node = node[p]  # type: ignore[index]
    assert node == kept  # the first definition stays


def test_duplicate_key_text_output_names_both_lines(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yml": "fabric:\n  name: a\n  mtu: 9216\n  name: b\n"})
    text = format_text(loaded.findings)
    assert text.splitlines()[0].startswith("inv/a.yml:4:3: error LOAD002: key 'name' is defined twice")
    assert "first at line 2" in text.splitlines()[0]
    assert "    see also inv/a.yml:2:3" in text.splitlines()


# --------------------------------------------------------------------------- LOAD003 keys across files


def test_key_defined_in_two_files(tmp_path: Path) -> None:
    loaded = load(tmp_path, {
        "a.yml": "fabric:\n  name: one\n",              # fabric.name at 2:3
        "b.yml": "# second file\nfabric:\n  name: two\n",  # fabric.name at 3:3
    })
    f = only(loaded, "LOAD003")
    assert f.location == Location("inv/b.yml", 3, 3)
    assert f.related == (Location("inv/a.yml", 2, 3),)
    assert "'fabric.name'" in f.message
    assert "inv/a.yml:2:3" in f.message
    assert f.fatal is False
    assert loaded.data == {"fabric": {"name": "one"}}


def test_list_defined_in_two_files(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yml": "pods: []\n", "b.yml": "\n\npods: [1]\n"})
    f = only(loaded, "LOAD003")
    assert f.location == Location("inv/b.yml", 3, 1)
    assert f.related == (Location("inv/a.yml", 1, 1),)
    assert loaded.data == {"pods": []}


def test_distinct_keys_of_one_mapping_merge_across_files(tmp_path: Path) -> None:
    loaded = load(tmp_path, {
        "a.yml": "switch_models:\n  m1:\n    ports: 64\n",
        "b.yml": "switch_models:\n  m2:\n    ports: 32\n",
    })
    assert loaded.findings == []
    assert loaded.data == {"switch_models": {"m1": {"ports": 64}, "m2": {"ports": 32}}}
    assert loaded.source.key_loc(("switch_models", "m1")) == Location("inv/a.yml", 2, 3)
    assert loaded.source.key_loc(("switch_models", "m2")) == Location("inv/b.yml", 2, 3)
    assert loaded.source.loc(("switch_models", "m2", "ports")) == Location("inv/b.yml", 3, 12)


def test_switch_models_split_across_files_validate_clean(tmp_path: Path) -> None:
    base = base_inventory()
    del base["switch_models"]
    write_files(tmp_path / "inv", {
        "base.yml": dump(base),
        "hw-a.yml": "switch_models:\n  sw64: {ports: 64, speed: 800G, breakouts: [2x400G], "
                    f"buffers: {SONIC_BUFFERS_FLOW}}}\n",
        "hw-b.yml": "switch_models:\n  sw32: {ports: 32, speed: 400G}\n",
    })
    res = run(Path("inv"))
    assert res.findings == []
    assert res.stage_reached == "done"
    assert res.inventory is not None
    assert sorted(res.inventory.switch_models) == ["sw32", "sw64"]


# --------------------------------------------------------------------------- LOAD004 / LOAD005


@pytest.mark.parametrize("text", ["", "# only a comment\n# and another\n", "\n\n   \n"],
                         ids=["empty", "comments", "blank-lines"])
def test_empty_file(tmp_path: Path, text: str) -> None:
    loaded = load(tmp_path, {"fabric.yml": "fabric:\n  name: x\n", "empty.yml": text})
    f = only(loaded, "LOAD004")
    assert f.location == Location("inv/empty.yml", 1, 1)
    assert f.fatal is True
    assert exit_code(loaded.findings) == 2


def test_document_marker_with_only_comments_is_empty(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yml": "---\n# nothing here yet\n"})
    f = only(loaded, "LOAD004")
    assert f.location == Location("inv/a.yml", 1, 1)


@pytest.mark.parametrize(
    ("text", "line", "kind"),
    [
        ("# hosts\n- a\n- b\n", 2, "a list"),
        ("\n\njust some words\n", 3, "a scalar ('just some words')"),
        ("42\n", 1, "a scalar ('42')"),
    ],
    ids=["list", "string", "number"],
)
def test_top_level_not_a_mapping(tmp_path: Path, text: str, line: int, kind: str) -> None:
    loaded = load(tmp_path, {"a.yml": text})
    f = only(loaded, "LOAD005")
    assert f.location == Location("inv/a.yml", line, 1)
    assert f"top level of the file is {kind}, not a mapping" == f.message
    assert f.fatal is True


# --------------------------------------------------------------------------- LOAD006 binary / encoding


def test_nul_bytes(tmp_path: Path) -> None:
    # "fabric:\n" is 8 bytes, "  name: x\n" 10 more, then two spaces: the NUL is byte 20, on line 3
    loaded = load(tmp_path, {"a.yml": b"fabric:\n  name: x\n  \x00\x01\x02\xff\n"})
    f = only(loaded, "LOAD006")
    assert f.location == Location("inv/a.yml", 3, 1)
    assert "at byte 20" in f.message
    assert f.fatal is True
    assert exit_code(loaded.findings) == 2


def test_invalid_utf8(tmp_path: Path) -> None:
    # Latin-1 'é' (0xe9) on line 2: 8 bytes of "fabric:\n" + 11 of "  name: caf" = offset 19
    loaded = load(tmp_path, {"a.yml": b"fabric:\n  name: caf\xe9\n"})
    f = only(loaded, "LOAD006")
    assert f.location == Location("inv/a.yml", 2, 1)
    assert "0xe9" in f.message
    assert "offset 19" in f.message
    assert f.fatal is True


def test_utf8_bom_is_accepted_and_does_not_shift_columns(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yml": b"\xef\xbb\xbffabric:\n  name: x\n"})
    assert loaded.findings == []
    assert loaded.data == {"fabric": {"name": "x"}}
    assert loaded.source.key_loc(("fabric",)) == Location("inv/a.yml", 1, 1)
    assert loaded.source.loc(("fabric", "name")) == Location("inv/a.yml", 2, 9)


def test_file_over_the_size_limit(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"big.yml": b"#" * (MAX_FILE_BYTES + 1)})
    f = only(loaded, "LOAD011")
    assert f.location == Location("inv/big.yml", 1, 1)
    assert f.fatal is True


# --------------------------------------------------------------------------- LOAD007 alias bombs


def _billion_laughs() -> str:
    # 9 levels: 'a' holds 10 strings, every next level holds 10 aliases of the previous one (10**9 strings)
    lines = ["a: &a [" + ", ".join(['"lol"'] * 10) + "]"]
    names = "abcdefghi"
    for prev, name in itertools.pairwise(names):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def test_billion_laughs(tmp_path: Path) -> None:
    text = _billion_laughs()
    assert text.count("\n") == 9
    loaded = load(tmp_path, {"a.yml": text})
    f = only(loaded, "LOAD007")
    assert f.location is not None and f.location.file == "inv/a.yml"
    assert 1 <= f.location.line <= 9
    assert "100,000" in f.message
    assert f.fatal is True
    assert loaded.data == {}
    assert exit_code(loaded.findings) == 2


@pytest.mark.parametrize("text", ["a: &a [*a]\n", "a: &a {b: *a}\n"], ids=["list", "mapping"])
def test_recursive_alias(tmp_path: Path, text: str) -> None:
    loaded = load(tmp_path, {"a.yml": text})
    f = only(loaded, "LOAD007")
    assert f.location == Location("inv/a.yml", 1, 4)  # the anchored node starts at its anchor '&a'
    assert "recursive" in f.message
    assert f.fatal is True


def test_a_few_aliases_are_fine(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yml": "speeds: &s [400G, 800G]\nx: *s\ny: *s\n"})
    assert loaded.findings == []
    assert loaded.data == {"speeds": ["400G", "800G"], "x": ["400G", "800G"], "y": ["400G", "800G"]}


# --------------------------------------------------------------------------- LOAD009 / LOAD008 / LOAD010


def test_multi_document_file(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yml": "fabric:\n  name: one\n---\nfabric:\n  name: two\n"})
    f = only(loaded, "LOAD009")
    assert f.location == Location("inv/a.yml", 4, 1)  # where the second document's content starts
    assert "2 YAML documents" in f.message
    assert f.fatal is True
    assert loaded.data == {}


def test_missing_inventory_path(tmp_path: Path) -> None:
    loaded = load_inventory(Path("nope"))
    f = only(loaded, "LOAD008")
    assert f.location == Location("nope")
    assert "'nope' does not exist" in f.message
    assert f.fatal is True
    assert loaded.files == []


def test_directory_without_yaml_files(tmp_path: Path) -> None:
    write_files(tmp_path / "inv", {"README.md": "fabric: x\n", "notes.txt": "a: 1\n", ".hidden.yml": "a: 1\n"})
    loaded = load_inventory(Path("inv"))
    f = only(loaded, "LOAD008")
    assert f.location == Location("inv")
    assert "no .yml or .yaml files in 'inv'" in f.message
    assert f.fatal is True
    assert exit_code(run(Path("inv")).findings) == 2


def test_collection_as_mapping_key(tmp_path: Path) -> None:
    # complex key "? [a, b]": the key node (the flow sequence) starts at line 2 column 3
    loaded = load(tmp_path, {"a.yml": "x: 1\n? [a, b]\n: 2\n"})
    f = only(loaded, "LOAD010")
    assert f.location == Location("inv/a.yml", 2, 3)
    assert f.fatal is True


def test_single_file_as_inventory(tmp_path: Path) -> None:
    write_files(tmp_path / "inv", {"one.yml": "fabric:\n  name: x\n"})
    loaded = load_inventory(Path("inv/one.yml"))
    assert loaded.findings == []
    assert loaded.data == {"fabric": {"name": "x"}}
    assert loaded.files == [Path("inv/one.yml")]


# --------------------------------------------------------------------------- tags: no Python objects


def test_python_tag_on_scalar_is_refused(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yml": "ok: 1\nx: !!python/name:os.system ''\n"})
    f = only(loaded, "SCH003")
    assert f.location == Location("inv/a.yml", 2, 4)  # the tagged node starts at its tag
    assert "python/name:os.system" in f.message
    assert loaded.data == {"ok": 1, "x": None}


def test_python_object_apply_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    load(tmp_path, {"a.yml": f"x: !!python/object/apply:os.system ['touch {marker}']\n"
                             f"y: !!python/object/new:os.system ['touch {marker}']\n"})
    assert not marker.exists()


@pytest.mark.parametrize("text", ["x: !!python/object/apply:os.system ['echo hi']\n",
                                  "x: !!python/object:os.system {a: 1}\n"], ids=["sequence", "mapping"])
def test_python_tag_on_collection_is_refused(tmp_path: Path, text: str) -> None:
    loaded = load(tmp_path, {"a.yml": text})
    assert [(f.code, f.location) for f in loaded.findings] == [("SCH003", Location("inv/a.yml", 1, 4))]


# --------------------------------------------------------------------------- SEC001 control characters


@pytest.mark.parametrize(
    ("text", "char"),
    [
        ('ok: 1\nbad: "one\\ntwo"\n', "U+000A"),        # escaped newline
        ('ok: 1\nbad: "one\\rtwo"\n', "U+000D"),        # carriage return
        ('ok: 1\nbad: "one\\ttwo"\n', "U+0009"),        # tab
        ('ok: 1\nbad: "one\\etwo"\n', "U+001B"),        # ESC (terminal escape sequences)
        ('ok: 1\nbad: "one\\u2028two"\n', "U+2028"),    # LINE SEPARATOR, escaped
        ('ok: 1\nbad: "one\\Ltwo"\n', "U+2028"),        # LINE SEPARATOR, YAML's \L escape
        ('ok: 1\nbad: "one\u2028two"\n', "U+2028"),     # LINE SEPARATOR, raw inside double quotes
        ('ok: 1\nbad: "one\\x85two"\n', "U+0085"),      # NEL (C1 control)
        ("ok: 1\nbad: |\n  one\n  two\n", "U+000A"),    # literal block scalar
    ],
    ids=["lf", "cr", "tab", "esc", "u2028", "yaml-L", "raw-u2028", "nel", "block"],
)
def test_control_character_in_value(tmp_path: Path, text: str, char: str) -> None:
    # "bad: " is five characters: the value scalar (quote or '|') starts at line 2 column 6
    loaded = load(tmp_path, {"a.yml": text})
    f = only(loaded, "SEC001")
    assert f.location == Location("inv/a.yml", 2, 6)
    assert char in f.message
    assert f.fatal is False
    assert exit_code(loaded.findings) == 1


@pytest.mark.parametrize(
    ("text", "char"),
    [
        ('ok: 1\n"k\\nk": 1\n', "U+000A"),
        ('ok: 1\n"k\\u2028k": 1\n', "U+2028"),
        ('ok: 1\n"k\\tk": 1\n', "U+0009"),
    ],
    ids=["lf", "u2028", "tab"],
)
def test_control_character_in_key(tmp_path: Path, text: str, char: str) -> None:
    loaded = load(tmp_path, {"a.yml": text})
    f = only(loaded, "SEC001")
    assert f.location == Location("inv/a.yml", 2, 1)  # the quoted key starts the line
    assert char in f.message


def test_control_character_nested_in_lists(tmp_path: Path) -> None:
    # line 3 is '      - "ok"', line 4 '      - "x\ty"': the item scalar starts at column 9
    loaded = load(tmp_path, {"a.yml": 'pods:\n  - tags:\n      - "ok"\n      - "x\\ty"\n'})
    f = only(loaded, "SEC001")
    assert f.location == Location("inv/a.yml", 4, 9)


def test_control_character_in_a_device_field_through_the_pipeline(tmp_path: Path) -> None:
    write_files(tmp_path / "inv", {
        "base.yml": dump(base_inventory()),
        # "    rack: " is ten characters: the value starts at line 3 column 11
        "devices.yml": 'devices:\n  p1-s1-rail0:\n    rack: "R07\\nshutdown"\n',
    })
    res = run(Path("inv"))
    assert [(f.code, f.location) for f in res.findings] == [("SEC001", Location("inv/devices.yml", 3, 11))]
    assert exit_code(res.findings) == 1


def test_plain_unicode_is_fine(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yml": "rack: Zürich-Ω\n"})
    assert loaded.findings == []
    assert loaded.data == {"rack": "Zürich-Ω"}


# --------------------------------------------------------------------------- YAML merge keys


MERGE_TEXT = (
    "defaults: &d\n"        # 1
    "  ports: 64\n"         # 2
    "  speed: 800G\n"       # 3  value at column 10
    "  latency_ns: 600\n"   # 4
    "models:\n"             # 5
    "  big:\n"              # 6
    "    <<: *d\n"          # 7
    "    ports: 128\n"      # 8  key at column 5
)


def test_merge_key_fills_in_and_explicit_keys_win(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yml": MERGE_TEXT})
    assert loaded.findings == []
    assert loaded.data["models"]["big"] == {"ports": 128, "speed": "800G", "latency_ns": 600}
    assert loaded.data["defaults"] == {"ports": 64, "speed": "800G", "latency_ns": 600}
    assert loaded.source.key_loc(("models", "big", "ports")) == Location("inv/a.yml", 8, 5)
    assert loaded.source.loc(("models", "big", "speed")) == Location("inv/a.yml", 3, 10)


def test_merge_key_list_earlier_mapping_wins(tmp_path: Path) -> None:
    text = "a: &a {x: 1, y: 2}\nb: &b {y: 9, z: 3}\nm:\n  <<: [*a, *b]\n  x: 5\n"
    loaded = load(tmp_path, {"a.yml": text})
    assert loaded.findings == []
    assert loaded.data["m"] == {"x": 5, "y": 2, "z": 3}


def test_merge_key_with_a_scalar_is_refused(tmp_path: Path) -> None:
    loaded = load(tmp_path, {"a.yml": "s: &s 5\nm:\n  <<: *s\n  x: 1\n"})
    f = only(loaded, "LOAD010")
    assert f.location == Location("inv/a.yml", 1, 4)  # the aliased scalar is the anchored node '&s 5'


def test_merge_keys_in_a_real_inventory(tmp_path: Path) -> None:
    base = base_inventory()
    del base["switch_models"]
    write_files(tmp_path / "inv", {
        "base.yml": dump(base),
        # the anchor lives inside switch_models, so nothing unknown is left at the top level
        "hw.yml": "switch_models:\n"
                  "  sw64: &sw\n"
                  "    ports: 64\n"
                  "    speed: 800G\n"
                  "    breakouts: [2x400G]\n"
                  f"    buffers: {SONIC_BUFFERS_FLOW}\n"
                  "  sw32:\n"
                  "    <<: *sw\n"
                  "    ports: 32\n",
    })
    res = run(Path("inv"))
    assert res.findings == []
    assert res.inventory is not None
    assert res.inventory.switch_models["sw32"].ports == 32
    assert res.inventory.switch_models["sw32"].speed == 800
    assert res.inventory.switch_models["sw32"].breakouts == [(2, 400)]


# --------------------------------------------------------------------------- which files, in what order


def test_hidden_and_non_yaml_files_are_ignored(tmp_path: Path) -> None:
    loaded = load(tmp_path, {
        "a.yml": "a: 1\n",
        "sub/b.yaml": "b: 2\n",
        ".hidden.yml": ": : : not yaml [\n",
        ".git/config.yml": "[[[\n",
        "README.md": "# [[[ not yaml\n",
        "notes.txt": "a: 99\n",
        "backup.yml~": "a: 99\n",
    })
    assert loaded.findings == []
    assert loaded.data == {"a": 1, "b": 2}
    assert loaded.files == [Path("inv/a.yml"), Path("inv/sub/b.yaml")]


def test_files_are_read_in_sorted_order(tmp_path: Path) -> None:
    # Created z first, then a: the merged result and the LOAD003 location follow the names, not creation order.
    def make(root: str, order: list[str]) -> Loaded:
        contents = {"z.yml": "fabric:\n  name: zed\nz: 1\n", "a.yml": "fabric:\n  name: ay\na: 1\n"}
        write_files(tmp_path / root, {n: contents[n] for n in order})
        return load_inventory(Path(root))

    one = make("one", ["z.yml", "a.yml"])
    two = make("two", ["a.yml", "z.yml"])
    for loaded, root in ((one, "one"), (two, "two")):
        assert loaded.files == [Path(root, "a.yml"), Path(root, "z.yml")]
        assert loaded.data == {"fabric": {"name": "ay"}, "a": 1, "z": 1}
        assert list(loaded.data) == ["fabric", "a", "z"]
        f = only(loaded, "LOAD003")
        assert f.location == Location(f"{root}/z.yml", 2, 3)
        assert f.related == (Location(f"{root}/a.yml", 2, 3),)


def test_absolute_paths_outside_the_working_directory_stay_absolute(tmp_path: Path,
                                                                    tmp_path_factory: pytest.TempPathFactory
                                                                    ) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    write_files(elsewhere, {"a.yml": "x: 1\nx: 2\n"})
    loaded = load_inventory(elsewhere)
    f = only(loaded, "LOAD002")
    assert f.location == Location(str(elsewhere / "a.yml"), 2, 1)


def test_absolute_paths_below_the_working_directory_are_shown_relative(tmp_path: Path) -> None:
    write_files(tmp_path / "inv", {"a.yml": "x: 1\nx: 2\n"})
    loaded = load_inventory(tmp_path / "inv")
    f = only(loaded, "LOAD002")
    assert f.location == Location("inv/a.yml", 2, 1)
