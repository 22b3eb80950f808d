"""The released package: built as a release is (sdist, then the wheel from the sdist, with `python -m build`),
installed into fresh virtual environments, run from a directory outside the checkout.

- The wheel holds every template (`git ls-files templates`, under railfabric/_templates/), the licence, and no tests/,
  generated/ or inventory/; the sdist holds the templates and the licence too.
- Installed with the newest dependencies the ranges allow, the wheel's `fabric render` of the shipped example is
  byte-identical to generated/ (every file, same set), and `fabric --version` is the wheel's version.
- Installed with tests/constraints-min.txt (every runtime dependency at its lowest allowed version), it renders the
  same bytes, `fabric verify` keeps every promise, and its bash completion still completes.

Dependencies come from the package registry through pip (its cache is reused). About 30-60 s on this machine:
`make test` runs this file in its "push" process (tests/tools/suite.sh).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.helpers import EXAMPLE, ROOT
from tests.test_completion import bash_complete

CONSTRAINTS = ROOT / "tests" / "constraints-min.txt"


def _env() -> dict[str, str]:
    """The environment of the installed tool: nothing pointing back into the checkout or its venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PYTHONNOUSERSITE"] = "1"
    env["RAILFABRIC_NO_TEMPLATE_CACHE"] = "1"  # no compiled templates shared with the checkout's runs
    return env


def _run(argv: list[str | Path], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    r = subprocess.run([str(a) for a in argv], cwd=cwd, env=_env(), capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, f"{' '.join(map(str, argv))} exited {r.returncode}:\n{r.stdout[-3000:]}\n" \
                              f"{r.stderr[-3000:]}"
    return r


def _tracked(prefix: str) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z", prefix], cwd=ROOT, capture_output=True, check=True).stdout
    return sorted(p for p in out.decode().split("\0") if p)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """sdist and wheel built from the checkout's tracked files (as they are in the work tree)."""
    base = tmp_path_factory.mktemp("dist")
    src = base / "src"
    for name in _tracked("."):
        if not name.startswith("generated/") and (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    _run([sys.executable, "-m", "build", "--outdir", base / "out", src], cwd=base)
    (wheel,), (sdist,) = sorted((base / "out").glob("*.whl")), sorted((base / "out").glob("*.tar.gz"))
    return {"wheel": wheel, "sdist": sdist}


def _install(tmp: Path, wheel: Path, *pip_args: str | Path) -> Path:
    """A fresh venv with the wheel installed; its bin directory."""
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", venv], cwd=tmp)
    _run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel,
          *pip_args], cwd=tmp)
    return venv / "bin"


def _render(bin_dir: Path, tmp: Path) -> Path:
    """The example copied outside the checkout, rendered there by the installed `fabric`; the output tree."""
    work = tmp / "work"
    shutil.copytree(EXAMPLE, work / "inventory")
    _run([bin_dir / "fabric", "render", "-q"], cwd=work)  # the defaults: inventory/ → generated/
    return work / "generated"


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _assert_same_as_committed(out: Path) -> None:
    committed = {k: v for k, v in _tree(ROOT / "generated").items() if k != ".gitkeep"}
    rendered = _tree(out)
    assert sorted(rendered) == sorted(committed)
    differ = [name for name in committed if rendered[name] != committed[name]]
    assert differ == [], f"{len(differ)} file(s) differ from generated/, e.g. {differ[:5]}"


def _wheel_version(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        return next(line.split(": ", 1)[1] for line in z.read(meta).decode().splitlines()
                    if line.startswith("Version: "))


def test_the_wheel_holds_every_template_and_nothing_of_the_checkout(dist: dict[str, Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as z:
        names = set(z.namelist())
    templates = [t for t in _tracked("templates") if not Path(t).name.startswith(".")]  # not templates/.gitkeep
    assert len(templates) > 50  # 58 when written: 5 platforms' templates and Ansible tasks, the shared playbook
    shipped = {n.removeprefix("railfabric/_templates/") for n in names if n.startswith("railfabric/_templates/")}
    assert shipped == {t.removeprefix("templates/") for t in templates}
    assert not any(n.split("/", 1)[0] in ("tests", "generated", "inventory", "templates", "bench") for n in names)
    assert {"railfabric/py.typed", "railfabric/core/resources.py", "railfabric/outputs/ansible_filters.py"} <= names
    version = _wheel_version(dist["wheel"])
    assert f"railfabric-{version}.dist-info/licenses/LICENSE" in names
    with tarfile.open(dist["sdist"]) as t:
        members = {m.name.split("/", 1)[1] for m in t.getmembers() if "/" in m.name}
    assert {"LICENSE", "pyproject.toml", *templates} <= members


def test_installed_wheel_renders_the_example_like_the_checkout(dist: dict[str, Path], tmp_path: Path) -> None:
    bin_dir = _install(tmp_path, dist["wheel"])
    where = _run([bin_dir / "python", "-c", "import railfabric.core.resources as r; print(r.templates_dir())"],
                 cwd=tmp_path)
    assert Path(where.stdout.strip()).parts[-2:] == ("railfabric", "_templates")
    assert not Path(where.stdout.strip()).is_relative_to(ROOT)
    version = _run([bin_dir / "fabric", "--version"], cwd=tmp_path).stdout
    assert version == f"railfabric {_wheel_version(dist['wheel'])}\n"
    _assert_same_as_committed(_render(bin_dir, tmp_path))


def test_lowest_dependency_versions_render_the_same(dist: dict[str, Path], tmp_path: Path) -> None:
    bin_dir = _install(tmp_path, dist["wheel"], "--constraint", CONSTRAINTS)
    listed = json.loads(_run([bin_dir / "python", "-m", "pip", "list", "--format", "json"], cwd=tmp_path).stdout)
    installed = {p["name"].lower().replace("_", "-"): p["version"] for p in listed}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            assert installed[name.lower().replace("_", "-")] == version, name
    out = _render(bin_dir, tmp_path)
    _assert_same_as_committed(out)
    _run([bin_dir / "fabric", "verify", out, "--no-frr"], cwd=tmp_path)
    script = tmp_path / "fabric.bash"
    script.write_text(_run([bin_dir / "fabric", "completion", "bash"], cwd=tmp_path).stdout, encoding="utf-8")
    assert bash_complete(script, ["fabric", "re"], tmp_path) == {"render", "report"}
