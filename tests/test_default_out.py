"""`fabric render` / `plan` without --out: generated/ beside the inventory directory, so rendering
examples/infiniband/inventory from the repository's root never replaces the main example's generated/."""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.cli import main
from railfabric.cli.render import default_out
from tests.helpers import base_inventory, dump


def test_the_default_is_beside_the_inventory_directory(tmp_path: Path) -> None:
    inv = tmp_path / "examples" / "ib" / "inventory"
    inv.mkdir(parents=True)
    assert default_out(None, str(inv)) == str(tmp_path / "examples" / "ib" / "generated")
    assert default_out(None, "inventory") == "generated"  # the README's `make render` is unchanged
    assert default_out("elsewhere", str(inv)) == "elsewhere"
    assert default_out(None, str(inv / "fabric.yml")) == "generated"  # one file: the old default, ./generated


def test_render_writes_beside_the_inventory_and_leaves_cwd_alone(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    (site / "inventory").mkdir(parents=True)
    (site / "inventory" / "fabric.yml").write_text(dump(base_inventory()))
    cwd = tmp_path / "cwd"
    (cwd / "generated").mkdir(parents=True)
    (cwd / "generated" / "keep.txt").write_text("the main example's output\n")
    monkeypatch.chdir(cwd)
    assert main(["render", "-q", str(site / "inventory")]) == 0
    assert (site / "generated" / "manifest.json").is_file()
    assert (cwd / "generated" / "keep.txt").read_text() == "the main example's output\n"
    assert sorted(p.name for p in (cwd / "generated").iterdir()) == ["keep.txt"]
    assert main(["render", "-q", "--check", str(site / "inventory")]) == 0
    assert main(["plan", "-q", str(site / "inventory")]) == 0
