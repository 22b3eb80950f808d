"""The emit stage: determinism, atomicity, no needless rewrites, drift check and plan."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from railfabric.cli import main
from railfabric.emit.build import build_files, compare, write_tree
from railfabric.pipeline import run
from tests.helpers import EXAMPLE, ROOT


@pytest.fixture(scope="module")
def example_files() -> dict[str, bytes]:
    return build_files(run(EXAMPLE))


def _snapshot(d: Path) -> dict[str, tuple[bytes, int, int]]:
    return {p.relative_to(d).as_posix(): (p.read_bytes(), p.stat().st_ino, p.stat().st_mtime_ns)
            for p in sorted(d.rglob("*")) if p.is_file()}


def _shuffled_copy(src: Path, dst: Path, seed: int) -> None:
    """The same inventory with every mapping's keys in a different order (comments dropped)."""
    rnd = random.Random(seed)

    def shuffle(node):
        if isinstance(node, dict):
            items = list(node.items())
            rnd.shuffle(items)
            return {k: shuffle(v) for k, v in items}
        if isinstance(node, list):
            return [shuffle(v) for v in node]
        return node

    dst.mkdir(parents=True)
    for f in sorted(src.glob("*.yml")):
        data = yaml.safe_load(f.read_text())
        (dst / f.name).write_text(yaml.safe_dump(shuffle(data), sort_keys=False))


def test_layout_and_manifest(example_files: dict[str, bytes]) -> None:
    assert "configs/p1-s1-rail3/config_db.json" in example_files
    assert "configs/p1-s1-rail3/frr.conf" in example_files
    assert "configs/core-ss1/frr.conf" in example_files
    hosts = {p.split("/")[1] for p in example_files if p.startswith("configs/")}
    assert len(hosts) == 34
    manifest = json.loads(example_files["manifest.json"])
    assert manifest["tool"] == "railfabric"
    assert len(manifest["input_sha256"]) == 64
    import hashlib

    for path, digest in manifest["files"].items():
        assert hashlib.sha256(example_files[path]).hexdigest() == digest
    assert set(manifest["files"]) == set(example_files) - {"manifest.json"}
    for path, data in example_files.items():
        if path.startswith("configs/"):
            assert b"2026" not in data and b"generated at" not in data  # no timestamps inside device files


def test_byte_identical_across_hash_seed_key_order_and_workers(tmp_path: Path) -> None:
    shuffled = tmp_path / "shuffled"
    _shuffled_copy(EXAMPLE, shuffled, seed=7)
    outs = []
    for seed, inv, workers in (("1", EXAMPLE, "1"), ("2", shuffled, "2")):
        out = tmp_path / f"out{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([sys.executable, "-m", "railfabric.cli", "render", str(inv), "--out", str(out),
                               "--workers", workers], capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        outs.append(out)
    a, b = (_snapshot(o) for o in outs)
    assert sorted(a) == sorted(b)
    different = [p for p in a if a[p][0] != b[p][0]]
    assert different == []


def test_write_is_a_noop_when_nothing_changed(tmp_path: Path, example_files: dict[str, bytes]) -> None:
    out = tmp_path / "generated"
    first = write_tree(out, example_files)
    assert len(first.added) == len(example_files)
    before = _snapshot(out)
    again = write_tree(out, example_files)
    assert again.clean
    assert _snapshot(out) == before  # same bytes, same inodes, same mtimes


def test_only_changed_files_are_rewritten(tmp_path: Path, example_files: dict[str, bytes]) -> None:
    out = tmp_path / "generated"
    write_tree(out, example_files)
    (out / ".gitkeep").write_text("")
    before = _snapshot(out)
    files = dict(example_files)
    files["configs/p1-s1-rail3/frr.conf"] += b"! changed\n"
    del files["configs/p1-s1-rail0/frr.conf"]
    files["extra/new.txt"] = b"new\n"
    diff = write_tree(out, files)
    assert diff.changed == ["configs/p1-s1-rail3/frr.conf"]
    assert diff.added == ["extra/new.txt"] and diff.removed == ["configs/p1-s1-rail0/frr.conf"]
    after = _snapshot(out)
    assert ".gitkeep" in after  # dot-files survive
    for path, (data, ino, mtime) in before.items():
        if path in ("configs/p1-s1-rail3/frr.conf", "configs/p1-s1-rail0/frr.conf"):
            continue
        assert after[path] == (data, ino, mtime), path
    assert "configs/p1-s1-rail0/frr.conf" not in after
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".generated")]  # no temp dirs left


def test_broken_inventory_leaves_generated_untouched(tmp_path: Path, capsys) -> None:
    out = tmp_path / "generated"
    assert main(["render", str(EXAMPLE), "--out", str(out), "--workers", "1"]) == 0
    before = _snapshot(out)
    broken = tmp_path / "broken"
    shutil.copytree(EXAMPLE, broken)
    pods = broken / "pods.yml"
    pods.write_text(pods.read_text().replace("rail_switch_model: 7060x6-dual", "rail_switch_model: nope"))
    assert main(["render", str(broken), "--out", str(out), "--workers", "1"]) == 1
    assert "REF001" in capsys.readouterr().out
    (broken / "pods.yml").write_text("pods: [\n")
    assert main(["render", str(broken), "--out", str(out)]) == 2
    assert _snapshot(out) == before


def test_render_error_leaves_generated_untouched(tmp_path: Path, monkeypatch, capsys) -> None:
    out = tmp_path / "generated"
    assert main(["render", str(EXAMPLE), "--out", str(out), "--workers", "1"]) == 0
    before = _snapshot(out)
    import railfabric.emit.build as emit
    import railfabric.emit.workers as workers
    from railfabric.configs.render import RenderError

    calls = {"n": 0}
    real = workers.render_device

    def failing(dev):
        calls["n"] += 1
        if calls["n"] == 20:
            raise RenderError(dev.hostname, "sonic/frr.conf.j2", 12, "'x' is undefined")
        return real(dev)

    monkeypatch.setattr(workers, "render_device", failing)
    monkeypatch.setattr(emit, "platform_digest", lambda p: f"another renderer of {p}")  # every device renders again
    assert main(["render", str(EXAMPLE), "--out", str(out), "--workers", "1", "--full"]) == 2
    err = capsys.readouterr().err
    assert "templates/sonic/frr.conf.j2:12" in err and "(device " in err
    assert _snapshot(out) == before


def test_check_and_plan(tmp_path: Path, capsys) -> None:
    out = tmp_path / "generated"
    assert main(["render", str(EXAMPLE), "--out", str(out), "--workers", "1"]) == 0
    assert main(["render", str(EXAMPLE), "--out", str(out), "--check"]) == 0
    assert "up to date" in capsys.readouterr().out
    assert main(["plan", str(EXAMPLE), "--out", str(out)]) == 0
    assert "No changes" in capsys.readouterr().out
    # grow the fabric: one more host in the rail-only pod 3 (its switches have free ports and no uplinks). Pod 1
    # segment 1 is no place for it: its next host port (p1-s1-rail3 9/1) holds the example's re-cabled host 15.
    grown = tmp_path / "grown"
    shutil.copytree(EXAMPLE, grown)
    pods = grown / "pods.yml"
    text = pods.read_text()
    assert text.count("- {model: hgx-h100, count: 8}\n") == 1
    pods.write_text(text.replace("- {model: hgx-h100, count: 8}\n", "- {model: hgx-h100, count: 9}\n"))
    snapshot = _snapshot(out)
    assert main(["render", str(grown), "--out", str(out), "--check"]) == 3
    text = capsys.readouterr().out
    assert "is stale" in text and "changed  configs/p3-s1-rail0/config_db.json" in text
    assert _snapshot(out) == snapshot  # --check writes nothing
    assert main(["plan", str(grown), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    # the new host lands on the 8 single-rail switches of p3-s1 only
    assert "Plan: 0 device(s) to add, 8 to change, 0 to remove" in text
    assert "~ p3-s1-rail0: config_db.json" in text and "~ p1-s1-rail0" not in text


def test_compare_reports_missing_and_extra(tmp_path: Path, example_files: dict[str, bytes]) -> None:
    out = tmp_path / "g"
    write_tree(out, example_files)
    (out / "stray.txt").write_text("x")
    (out / "manifest.json").unlink()
    diff = compare(out, example_files)
    assert diff.removed == ["stray.txt"] and diff.added == ["manifest.json"] and diff.changed == []


def test_render_error_names_the_partial_line_and_device(tmp_path: Path) -> None:
    from railfabric.configs.render import TEMPLATES, RenderError, render_device
    from railfabric.device import build_devices

    root = tmp_path / "templates"
    shutil.copytree(TEMPLATES, root)
    partial = root / "eos" / "_qos.j2"
    lines = partial.read_text().splitlines(keepends=True)
    lines.insert(4, "{{ d.qos.no_such_field }}\n")  # becomes line 5 of the partial (after the comment)
    partial.write_text("".join(lines))
    r = run(EXAMPLE)
    dev = build_devices(r.inventory, r.topology, r.plan)["p1-s2-rail1-5"]  # type: ignore[arg-type]  # EOS segment
    with pytest.raises(RenderError) as info:
        render_device(dev, str(root))
    assert (info.value.template, info.value.line, info.value.device) == ("eos/_qos.j2", 5, "p1-s2-rail1-5")
    assert "no_such_field" in str(info.value)


def test_fabric_docs_hold_the_solver_section(example_files: dict[str, bytes]) -> None:
    doc = example_files["docs/fabric.md"].decode()
    assert doc.startswith("# Fabric atlas\n")
    assert "| GPUs | 448 |" in doc and "| rail switches | 22 |" in doc
    assert "## Solver" in doc and "cross-pod  5 switch(es)    4,330 ns" in doc
    assert {"docs/fabric-at-a-glance.svg", "docs/rails/pod-3-segment-1.svg"} <= example_files.keys()  # its pictures
    report = json.loads(example_files["report.json"])
    assert report["capacity"]["tiers"]["rail"]["ratio"] == 1.0


def test_reordering_order_free_lists_is_not_drift(tmp_path: Path) -> None:
    """pods: and each pod's segments: reversed: every file, the manifest's input hash included, stays the same,
    so `render --check` against the example's rendering reports no drift (it reported the manifest before)."""
    out = tmp_path / "generated"
    assert main(["render", str(EXAMPLE), "--out", str(out), "--workers", "1"]) == 0
    moved = tmp_path / "moved"
    shutil.copytree(EXAMPLE, moved)
    pods_file = moved / "pods.yml"
    data = yaml.safe_load(pods_file.read_text())
    data["pods"].reverse()
    for pod in data["pods"]:
        pod["segments"].reverse()
    pods_file.write_text(yaml.safe_dump(data, sort_keys=False))
    assert main(["render", str(moved), "--out", str(out), "--check"]) == 0
