"""`make render` on a fresh clone: it creates its own virtual environment with railfabric and its runtime
dependencies only (not the test tool chain: pytest, ruff, mypy, ansible-core, anta, ... come with `make test`), and
renders the example byte-identical to the committed generated/.

The clone is the checkout's tracked files (as they are in the work tree) in a temporary directory, with no .venv
and no generated/; dependencies come from the package registry through pip (its cache is reused). About 30-90 s:
`make test` runs this file in its "push" process (tests/tools/suite.sh).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.helpers import ROOT

# what the `test` extra of pyproject.toml adds and `make render` must not install (import names)
TEST_ONLY = ("pytest", "ruff", "mypy", "ansible", "anta", "hypothesis", "jsonschema", "paramiko", "build")


def _clone(dest: Path) -> None:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in (p for p in out.decode().split("\0") if p):
        if rel.startswith("generated/") or not (ROOT / rel).exists():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest / rel, follow_symlinks=False)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_make_render_on_a_fresh_clone(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    _clone(clone)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "MAKEFLAGS", "MAKELEVEL")}
    env["RAILFABRIC_NO_TEMPLATE_CACHE"] = "1"
    r = subprocess.run(["make", "render"], cwd=clone, env=env, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    committed = {k: v for k, v in _tree(ROOT / "generated").items() if k != ".gitkeep"}  # git's placeholder
    assert _tree(clone / "generated") == committed
    python = clone / ".venv" / "bin" / "python"
    probe = "import importlib.util as u, sys; print(' '.join(m for m in sys.argv[1:] if u.find_spec(m)))"
    found = subprocess.run([python, "-c", probe, *TEST_ONLY], capture_output=True, text=True, check=True).stdout
    assert found.split() == [], "make render installed test tools"
    assert (clone / ".venv" / ".installed").exists() and not (clone / ".venv" / ".installed-test").exists()
