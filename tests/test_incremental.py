"""Incremental rendering (issue 13): what a render reuses from generated/ and what it must render again.

Every case renders the shipped example (34 switches: 30 SONiC, 4 EOS, the p1-s2 rail switches) once into a
temporary output directory, changes one thing, renders again with that directory as the cache, and checks
(a) which devices and artifacts were produced afresh, counted by hand from inventory/, and (b) that the result is
byte-identical to a cold render (no cache) of the same inventory.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path

import pytest

import railfabric.outputs.digest as digest
from railfabric.cli import main
from railfabric.emit import manifest
from railfabric.emit.build import Kept, Tree, build_files, build_tree, payload, write_tree
from railfabric.pipeline import run

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
    # the artifacts' parts (railfabric/outputs/parts.py): per switch its host_vars ("ansible:<switch>") and its expected
    # state with, on EOS, its ANTA catalog ("state:<switch>"); per host group (inventory/pods.yml: p1-s1 one group,
    # p1-s2 two (first hosts 1 and 9), p2-s1 one, p3-s1 one) its host files; the rest one part each
    switches = set(doc["devices"])
    groups = {"p1-s1-h1", "p1-s2-h1", "p1-s2-h9", "p2-s1-h1", "p3-s1-h1"}
    assert set(doc["artifacts"]) == {"ansible", "ansible:playbook", "cabling", "docs", "docs:pictures", "expected",
                                     "ipplan", "railmap", "report", "state:anta",
                                     *(f"ansible:{s}" for s in switches), *(f"state:{s}" for s in switches),
                                     *(f"hosts:{g}" for g in groups)}
    assert len(doc["artifacts"]) == 10 + 2 * SWITCHES + 5
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
    # an SN5600 (spectrum-4) has no EOS queue form (HW007): the model becomes a Tomahawk 5 of the same layout, which
    # changes no SONiC switch (they have one queue form for every family)
    inv = _inventory(tmp_path, "devices:\n", "devices:\n  p1-s1-rail0:\n    platform: eos\n")
    hardware = inv / "hardware.yml"
    text = hardware.read_text()
    assert text.count("    asic: spectrum-4 ") == 1
    hardware.write_text(text.replace("    asic: spectrum-4 ", "    asic: tomahawk-5 "))
    assert [f for f in run(inv).findings if f.severity.value == "error"] == []
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
    assert len(tree.rendered) == SWITCHES and len(tree.built) == 9  # every artifact has a part rebuilt
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
    # in railfabric's own encoding (railfabric.emit.manifest trusts nothing else): only the file's sha256 gives it away
    (out / "manifest.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    tree = build_tree(run(EXAMPLE), cache=out)
    assert tree.rendered == ("p3-s1-rail5",)


def test_full_renders_everything_afresh(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--full` ignores the manifest's digests: every switch rendered, every artifact built, same output."""
    from railfabric.cli import main

    out = tmp_path / "gen"
    assert main(["render", str(EXAMPLE), "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    assert main(["render", str(EXAMPLE), "--out", str(out), "--check", "-v"]) == 0
    # railfabric.emit.reuse: the whole run is unchanged
    assert "nothing to validate or render" in capsys.readouterr().err
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


# --------------------------------------------------------------------------- artifact parts


def _render_parts(inv: Path, out: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Tree, set[str]]:
    """_render, and the keys of the artifact parts it built afresh (the others were reused from `out`)."""
    import railfabric.emit.build as emit
    from railfabric.outputs import Part, Sources

    built: set[str] = set()
    parts = emit.artifact_parts

    def spy(src: Sources) -> Iterator[Part]:
        for part in parts(src):
            def build(part: Part = part) -> Mapping[str, str]:
                built.add(part.key)
                return part.build()
            yield replace(part, build=build)

    monkeypatch.setattr(emit, "artifact_parts", spy)
    return _render(inv, out), built


def test_noop_builds_no_part(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree, built = _render_parts(EXAMPLE, out, monkeypatch)
    assert built == set() and tree.built == ()


def test_management_address_rebuilds_only_the_parts_that_show_it(out: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # p1-s1-rail3 (SONiC) is pinned at 192.168.15.3 (inventory/devices.yml); pinned at .99 instead, the management
    # pool's use is unchanged (pinned addresses are not taken from it: railfabric/plan/allocate.py), so
    # docs/fabric.md stays.
    # Outside its configs the address shows in ansible/inventory.yml (ansible_host), its host_vars (management),
    # ipplan.csv and its expected state; not in the cabling plan, the rail map, the expected BGP/LLDP files, the
    # host files, the pictures or any other switch's state (a management address is no routed address)
    inv = _inventory(tmp_path, "management: 192.168.15.3 ", "management: 192.168.15.99 ")
    tree, built = _render_parts(inv, out, monkeypatch)
    assert built == {"ansible", "ansible:p1-s1-rail3", "ipplan", "state:p1-s1-rail3"}
    _assert_cold(inv, tree, out)


def test_eos_management_address_rebuilds_its_anta_inventory(out: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # p1-s2-rail0-4 (EOS) has an allocated management address; pinned, it also shows in expected/anta/inventory.yml
    # ("state:anta"), and the management pool hands out one address fewer: fabric.md's pool table changes ("docs";
    # the pictures do not show pools). Its ANTA catalog is in its own state part
    inv = _inventory(tmp_path, "devices:\n", "devices:\n  p1-s2-rail0-4:\n    management: 192.168.15.200\n")
    tree, built = _render_parts(inv, out, monkeypatch)
    assert built == {"ansible", "ansible:p1-s2-rail0-4", "ipplan", "state:p1-s2-rail0-4", "state:anta", "docs"}
    _assert_cold(inv, tree, out)


def test_host_cable_change_rebuilds_that_host_group_and_the_csvs(out: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # without its explicit cable, p1-s1-gpu016's NIC 3 (its port 8 is disabled) has no link: its netplan file
    # loses rail 3 (part of host group p1-s1-h1), its `ip rule` leaves ansible/inventory.yml, port 9 lane 2 of
    # p1-s1-rail3 goes unused (its state; its host_vars show nothing of it), and the cable leaves the cabling plan,
    # the rail map, the IP plan (its address) and the expected LLDP neighbours; the report's capacity and the docs
    # (tables and the segment's rail diagram) count one host link fewer. No routed address or BGP session moves,
    # so no other switch's state is rebuilt
    inv = _inventory(tmp_path, "  - {host: p1-s1-gpu016, nic: 3, switch: p1-s1-rail3, port: 9, lane: 2}\n", "")
    tree, built = _render_parts(inv, out, monkeypatch)
    assert tree.rendered == ("p1-s1-rail3",)
    assert built == {"hosts:p1-s1-h1", "ansible", "state:p1-s1-rail3", "cabling", "railmap", "ipplan", "expected",
                     "report", "docs", "docs:pictures"}
    _assert_cold(inv, tree, out)


def test_eos_switch_model_change_rebuilds_its_state_only(out: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # time servers of p1-s2-rail1-5 (EOS) alone: its device model changes (system), so its config and its state
    # part (expected/state/p1-s2-rail1-5.json and its ANTA catalog) are rebuilt; no other part reads its system
    # settings (its host_vars show the push account and vault names, which do not change)
    inv = _inventory(tmp_path, "devices:\n",
                     "devices:\n  p1-s2-rail1-5:\n    system:\n      ntp: {servers: [192.0.2.9]}\n")
    tree, built = _render_parts(inv, out, monkeypatch)
    assert tree.rendered == ("p1-s2-rail1-5",)
    assert built == {"state:p1-s2-rail1-5"}
    _assert_cold(inv, tree, out)


def test_part_digests_cover_every_field_of_what_they_hand_over() -> None:
    """A builder handed whole Links or the docs' Topology reads nothing undigested: every field of a Link is in
    views.link_values, every field of a Topology in views.topology_values or the links."""
    from dataclasses import fields

    from railfabric.outputs.views import LINK_FIELDS, link_values, topology_values
    from railfabric.topology import Link, Topology
    from railfabric.topology.model import End, LinkRole

    link = Link("h:nic0p1", LinkRole.HOST, End("h", 1, 0, 400), End("s", 2, 1, 400), 3, 4, 5, "b", 6, 7)
    # ends flattened in place (End: device, port, lane, speed)
    assert link_values([link]) == [("h:nic0p1", "host", "h", 1, 0, 400, "s", 2, 1, 400, 3, 4, 5, "b", 6, 7)]
    assert LINK_FIELDS == ("id", "role", "a", "z", "rail", "nic", "host_number", "bundle", "net_slot", "channel")
    assert End._fields == ("device", "port", "lane", "speed")
    # links and peer_links are digested as links; the other eight fields one by one
    assert len(topology_values(Topology())) == len(fields(Topology)) - 2
