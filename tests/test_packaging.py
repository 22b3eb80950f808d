"""Packaging facts that need no build (the wheel itself: tests/test_wheel.py).

- railfabric/core/resources.py finds the templates in both layouts: `railfabric/_templates/` of an installed wheel
  first, else `templates/` beside the package (a checkout, an editable install), else a clear error.
- pyproject.toml lists every package under railfabric/ (a mapped package cannot be discovered, so the list is
  explicit: a forgotten sub-package would be missing from the wheel) plus `fabric._templates` mapped onto
  templates/; the version has one source, railfabric.__version__; the licence file is the Apache-2.0 text.
- tests/constraints-min.txt pins every runtime dependency at its range's lower bound, no more and no fewer.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import railfabric
from railfabric.core import resources
from tests.helpers import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CONSTRAINTS = ROOT / "tests" / "constraints-min.txt"


def test_the_checkout_finds_its_top_level_templates() -> None:
    # this suite runs from the checkout (editable install): there is no railfabric/_templates/ in the repository
    assert not (ROOT / "railfabric" / "_templates").exists()
    assert resources.templates_dir() == ROOT / "templates"
    assert (resources.templates_dir() / "sonic" / "frr.conf.j2").is_file()


@pytest.fixture
def layouts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    shipped, checkout = tmp_path / "site" / "railfabric" / "_templates", tmp_path / "repo" / "templates"
    monkeypatch.setattr(resources, "SHIPPED", shipped)
    monkeypatch.setattr(resources, "CHECKOUT", checkout)
    resources.templates_dir.cache_clear()
    yield shipped, checkout
    resources.templates_dir.cache_clear()


def test_the_shipped_templates_win_then_the_checkout_then_an_error(layouts: tuple[Path, Path]) -> None:
    shipped, checkout = layouts
    with pytest.raises(resources.ResourceMissing, match="templates are missing"):
        resources.templates_dir()
    checkout.mkdir(parents=True)
    resources.templates_dir.cache_clear()
    assert resources.templates_dir() == checkout
    shipped.mkdir(parents=True)
    resources.templates_dir.cache_clear()
    assert resources.templates_dir() == shipped


def test_every_package_under_fabric_is_listed_and_templates_are_mapped() -> None:
    tool = PYPROJECT["tool"]["setuptools"]
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "railfabric").rglob("__init__.py")}
    assert set(tool["packages"]) == on_disk | {"railfabric._templates"}
    assert len(tool["packages"]) == len(set(tool["packages"]))
    assert tool["package-dir"] == {"railfabric._templates": "templates"}
    assert tool["package-data"]["railfabric._templates"] == ["**/*"]


def test_one_version_source() -> None:
    assert PYPROJECT["project"]["dynamic"] == ["version"] and "version" not in PYPROJECT["project"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "railfabric.__version__"}
    out = subprocess.run([sys.executable, "-m", "railfabric.cli", "--version"], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out == f"railfabric {railfabric.__version__}\n"


def test_licence_file_is_the_apache_2_text() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    # the canonical text: its title, its 9 numbered sections, its closing and the appendix's notice
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "9. Accepting Warranty or Additional Liability." in text and "END OF TERMS AND CONDITIONS" in text
    assert 'Licensed under the Apache License, Version 2.0 (the "License");' in text


def test_classifiers_name_the_supported_pythons() -> None:
    project = PYPROJECT["project"]
    assert project["requires-python"] == ">=3.11"
    pythons = {c.rsplit(" :: ", 1)[1] for c in project["classifiers"]
               if c.startswith("Programming Language :: Python :: 3.")}
    assert pythons == {"3.11", "3.12", "3.13"}
    assert "Typing :: Typed" in project["classifiers"] and (ROOT / "railfabric" / "py.typed").is_file()
    assert not any(c.startswith("License ::") for c in project["classifiers"])  # PEP 639: the expression only


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", line
            pins[req.name.lower().replace("_", "-")] = Version(spec.version)
    return pins


def test_min_constraints_pin_every_runtime_dependency_at_its_lower_bound() -> None:
    lower: dict[str, Version] = {}
    for text in PYPROJECT["project"]["dependencies"]:
        req = Requirement(text)
        bounds = [Version(s.version) for s in req.specifier if s.operator in (">=", "==")]
        assert len(bounds) == 1, f"{text}: a tested range needs one lower bound (>= or an exact ==)"
        lower[req.name.lower().replace("_", "-")] = bounds[0]
    assert _pins() == lower


def test_a_template_error_is_named_relative_to_the_templates_wherever_they_live(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """NX-OS renders through its own builder (railfabric/configs/nxos/running_config.py): its error names the partial
    relative to the templates directory also when that is a wheel's railfabric/_templates/ (no "/templates/" in it)."""
    from railfabric.configs import jinja
    from railfabric.configs.nxos.running_config import running_config
    from railfabric.device import build_devices
    from railfabric.inventory.intent import Platform
    from railfabric.pipeline import run
    from railfabric.plan.allocate import allocate
    from railfabric.topology import expand
    from tests.helpers import EXAMPLE

    root = tmp_path / "site" / "railfabric" / "_templates"
    shutil.copytree(ROOT / "templates", root)
    partial = root / "nxos" / "_vlans.j2"
    partial.write_text("{{ d.no_such_field }}\n" + partial.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(jinja, "TEMPLATES", root)
    r = run(EXAMPLE)
    assert r.inventory is not None
    inv = r.inventory.model_copy(
        update={"fabric": r.inventory.fabric.model_copy(update={"platform": Platform("nxos")})})
    topo = expand(inv)
    dev = build_devices(inv, topo, allocate(inv, topo))["p1-s1-rail3"]  # NX-OS once the fabric's platform is
    with pytest.raises(jinja.RenderError) as info:
        running_config(dev)
    assert (info.value.template, info.value.line, info.value.device) == ("nxos/_vlans.j2", 1, "p1-s1-rail3")
