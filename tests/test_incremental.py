"""Incremental rendering (issue 13): what a render reuses from generated/ and what it must render again.

Every case renders the shipped example (34 switches: 30 SONiC, 4 EOS, the p1-s2 rail switches) once into a
temporary output directory, changes one thing, renders again with that directory as the cache, and checks
(a) which devices and artifacts were produced afresh, counted by hand from inventory/, and (b) that the result is
byte-identical to a cold render (no cache) of the same inventory.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import fabric.digest as digest
from fabric import manifest
from fabric.cli import main
from fabric.emit import Kept, Tree, build_files, build_tree, payload, write_tree
from fabric.pipeline import run

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "inventory"
# inventory/pods.yml: pod 1 segment 2 is `platform: eos` with 4 dual-rail switches; every other switch is SONiC
EOS = {"p1-s2-rail0-4", "p1-s2-rail1-5", "p1-s2-rail2-6", "p1-s2-rail3-7"}
SWITCHES = 34  # 4 super-spines + pod 1 (4 spines, 8 + 4 rail) + pod 2 (4 spines, 2 rail) + pod 3 (8 rail)


@pytest.fixture(autouse=True)
def _fresh_digests() -> Iterator[None]:
    digest.platform_digest.cache_clear()
    yield
    digest.platform_digest.cache_clear()


def _render(inv: Path, out: Path) -> Tree:
    res = run(inv)
    tree = build_tree(res, cache=out)
    write_tree(out, tree.files)
    return tree


def _disk(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _assert_cold(inv: Path, tree: Tree, out: Path) -> None:
    cold = build_files(run(inv))
    assert {p: payload(c) for p, c in tree.files.items()} == cold
    assert _disk(out) == cold


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("base") / "generated"
    digest.platform_digest.cache_clear()
    tree = _render(EXAMPLE, out)
    assert len(tree.rendered) == SWITCHES and not any(isinstance(c, Kept) for c in tree.files.values())
    return out


@pytest.fixture
def out(baseline: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "generated"
    shutil.copytree(baseline, copy)
    return copy


def _inventory(tmp_path: Path, old: str, new: str, name: str = "devices.yml") -> Path:
    inv = tmp_path / "inventory"
    shutil.copytree(EXAMPLE, inv)
    text = (inv / name).read_text()
    assert text.count(old) == 1
    (inv / name).write_text(text.replace(old, new))
    return inv


def test_noop_renders_nothing(out: Path) -> None:
    before = {p: (out / p).stat().st_ino for p in _disk(out)}
    tree = _render(EXAMPLE, out)
    assert tree.rendered == () and tree.built == ()
    assert all(isinstance(c, Kept) for p, c in tree.files.items() if p != "manifest.json")
    assert {p: (out / p).stat().st_ino for p in _disk(out)} == before  # nothing rewritten
    _assert_cold(EXAMPLE, tree, out)


def test_manifest_records_devices_and_artifacts(baseline: Path) -> None:
    doc = json.loads((baseline / "manifest.json").read_text())
    assert len(doc["devices"]) == SWITCHES
    assert {h for h, e in doc["devices"].items() if e["platform"] == "eos"} == EOS
    assert doc["devices"]["p1-s1-rail0"]["files"] == ["configs/p1-s1-rail0/config_db.json",
                                                      "configs/p1-s1-rail0/frr.conf"]
    assert set(doc["platforms"]) == {"eos", "sonic"}
    assert set(doc["artifacts"]) == {"ansible", "cabling", "docs", "expected", "hosts", "ipplan", "railmap",
                                     "report", "state"}
    listed = {f for e in [*doc["devices"].values(), *doc["artifacts"].values()] for f in e["files"]}
    assert listed == set(doc["files"])  # every file has exactly one producer on record


def test_template_change_rerenders_that_platform_only(out: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    templates = tmp_path / "templates"
    shutil.copytree(digest.TEMPLATES, templates)
    monkeypatch.setattr(digest, "TEMPLATES", templates)
    (templates / "eos" / "_bgp.j2").write_text((templates / "eos" / "_bgp.j2").read_text() + "\n")
    tree = _render(EXAMPLE, out)
    assert set(tree.rendered) == EOS
    # the ansible artifact copies templates/ (its own copy is not the patched one, so its digest did not move)
    assert tree.built == ()
    _assert_cold(EXAMPLE, tree, out)


def test_version_change_is_a_full_render(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manifest, "__version__", "0.0.0-other")  # the manifest on disk is of another version
    tree = _render(EXAMPLE, out)
    assert len(tree.rendered) == SWITCHES and len(tree.built) == 9


def test_management_address_rerenders_that_device_only(out: Path, tmp_path: Path) -> None:
    # p1-s1-rail3's management address appears in its own config_db.json (MGMT_INTERFACE) and, outside the
    # configs, in the Ansible inventory / host_vars and the IP plan; no other switch's config names it
    inv = _inventory(tmp_path, "management: 192.168.15.3 ", "management: 192.168.15.99 ")
    tree = _render(inv, out)
    assert tree.rendered == ("p1-s1-rail3",)
    assert "hosts" not in tree.built and "ansible" in tree.built and "ipplan" in tree.built
    _assert_cold(inv, tree, out)


def test_platform_change_rerenders_device_and_its_peers(out: Path, tmp_path: Path) -> None:
    # p1-s1-rail0 (single-rail, pod 1 segment 1) has links_per_rail_switch 2 to each of the 4 pod-1 spines and
    # hosts below it: as EOS its links run at 9214, so the spines' ends of those links change too; the super-spines
    # (peers of the spines, not of rail0) and every other rail switch stay as they are: 1 + 4 devices
    inv = _inventory(tmp_path, "devices:\n", "devices:\n  p1-s1-rail0:\n    platform: eos\n")
    tree = _render(inv, out)
    assert set(tree.rendered) == {"p1-s1-rail0", "p1-spine1", "p1-spine2", "p1-spine3", "p1-spine4"}
    _assert_cold(inv, tree, out)
    assert not (out / "configs" / "p1-s1-rail0" / "frr.conf").exists()  # its SONiC files are gone


def test_hand_edited_file_is_caught_by_check(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = out / "configs" / "p1-spine2" / "frr.conf"
    path.write_text(path.read_text().replace("router bgp", "router  bgp", 1))
    assert main(["render", str(EXAMPLE), "--out", str(out), "--check"]) == 3
    text = capsys.readouterr().out
    assert "changed  configs/p1-spine2/frr.conf" in text and "1 changed, 0 missing, 0 extra" in text
    tree = _render(EXAMPLE, out)  # a render puts it back, rendering only that device
    assert tree.rendered == ("p1-spine2",)
    _assert_cold(EXAMPLE, tree, out)


def test_hand_edited_artifact_is_rebuilt(out: Path) -> None:
    (out / "cabling.csv").write_text("edited\n")
    tree = _render(EXAMPLE, out)
    assert tree.rendered == () and tree.built == ("cabling",)
    _assert_cold(EXAMPLE, tree, out)


def test_deleted_file_is_recreated(out: Path) -> None:
    (out / "configs" / "p1-s2-rail1-5" / "running-config.cfg").unlink()
    (out / "hosts" / "railmap.csv").unlink()
    tree = _render(EXAMPLE, out)
    assert tree.rendered == ("p1-s2-rail1-5",) and tree.built == ("railmap",)
    _assert_cold(EXAMPLE, tree, out)


@pytest.mark.parametrize("text", [
    "{",  # corrupt
    "[]",
    '{"tool": "railfabric", "files": {}}',  # an older layout: no version, no devices
    None,  # a valid manifest whose device and artifact entries have the wrong types
])
def test_unusable_manifest_is_a_full_render(out: Path, text: str | None) -> None:
    m = out / "manifest.json"
    if text is None:
        doc = json.loads(m.read_text())
        doc["devices"] = {h: {"model": 5, "files": "x"} for h in doc["devices"]}
        doc["artifacts"] = {a: ["inputs"] for a in doc["artifacts"]}
        text = json.dumps(doc)
    m.write_text(text)
    res = run(EXAMPLE)
    tree = build_tree(res, cache=out)
    assert len(tree.rendered) == SWITCHES and len(tree.built) == 9
    assert {p: payload(c) for p, c in tree.files.items()} == build_files(res)


def test_check_on_corrupt_manifest_names_it(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (out / "manifest.json").write_text("not json")
    assert main(["render", str(EXAMPLE), "--out", str(out), "--check"]) == 3
    assert "changed  manifest.json" in capsys.readouterr().out


def test_foreign_files_listed_in_manifest_are_not_reused(out: Path) -> None:
    """A manifest that claims a device's file with the right digest but a different sha256 than the file on disk
    (edited together with the manifest's device entry, or copied from elsewhere) is not trusted for that device."""
    doc = json.loads((out / "manifest.json").read_text())
    doc["files"]["configs/p3-s1-rail5/frr.conf"] = "0" * 64
    (out / "manifest.json").write_text(json.dumps(doc))
    tree = build_tree(run(EXAMPLE), cache=out)
    assert tree.rendered == ("p3-s1-rail5",)


def test_full_renders_everything_afresh(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--full` ignores the manifest's digests: every switch rendered, every artifact built, same output."""
    from fabric.cli import main

    out = tmp_path / "gen"
    assert main(["render", str(EXAMPLE), "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    assert main(["render", str(EXAMPLE), "--out", str(out), "--check", "-v"]) == 0
    assert "nothing to validate or render" in capsys.readouterr().err  # fabric.reuse: the whole run is unchanged
    cabling = (out / "cabling.csv").read_bytes()
    (out / "cabling.csv").write_text("edited\n")  # now the per-device path decides
    assert main(["render", str(EXAMPLE), "--out", str(out), "--check", "-v"]) == 3
    assert f"{SWITCHES} unchanged switches kept" in capsys.readouterr().err
    (out / "cabling.csv").write_bytes(cabling)
    assert main(["render", str(EXAMPLE), "--out", str(out), "--check", "--full", "-v"]) == 0
    err = capsys.readouterr().err
    assert "unchanged switches kept" not in err and "fabric-wide files kept" not in err
    assert f"switch configs (and the fabric-wide files meanwhile) ({SWITCHES})" in err


def test_manifest_does_not_depend_on_library_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    """generated/manifest.json is committed: another Jinja2 / orjson / Python on another machine must not change it
    (tests/test_wheel.py renders with the lowest allowed versions and compares byte for byte)."""
    import jinja2

    before = digest.tool_digest()
    monkeypatch.setattr(jinja2, "__version__", "9.9.9")
    assert digest.tool_digest() == before
