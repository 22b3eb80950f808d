"""The pre-commit hooks (.pre-commit-hooks.yaml) run through the real pre-commit on a temporary git repository that
holds a copy of the example inventory and its generated/, as a team adopting railfabric would have it: the hooks
pass on the clean copy, `railfabric-validate` fails with the rule code after the inventory is broken, and
`railfabric-render-check` fails after a generated file is edited by hand.

pre-commit installs this repository at HEAD (git rev-parse HEAD: commit a change to the hooks before running this)
into a virtual environment of its own with pip, once for the module (about a minute on 2 shared cores); the time
is printed with -s.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import EXAMPLE, ROOT

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
HOOKS = ("railfabric-validate", "railfabric-render-check")


def _head() -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                             check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("railfabric is not a git checkout here: pre-commit installs hooks from a git repository")
    return out.stdout.strip()


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    assert PRE_COMMIT.exists(), "pre-commit is missing: pip install -e '.[test]'"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    # one hook environment for the whole module: pre-commit keys it by (repository, rev)
    clean["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    clean["PRE_COMMIT_COLOR"] = "never"
    return clean


def _user_repo(root: Path, head: str) -> Path:
    shutil.copytree(EXAMPLE, root / "inventory")
    shutil.copytree(ROOT / "generated", root / "generated")
    (root / "README.md").write_text("a fabric\n", encoding="utf-8")
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {ROOT}\n"
        f"    rev: {head}\n"
        "    hooks:\n" + "".join(f"      - id: {hook}\n" for hook in HOOKS),
        encoding="utf-8")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "fabric"], check=True)
    return root


def _run(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    start = time.monotonic()
    res = subprocess.run([str(PRE_COMMIT), "run", *args], cwd=repo, env=env, capture_output=True, text=True,
                         timeout=900)
    print(f"pre-commit run {' '.join(args)}: {time.monotonic() - start:.1f} s")
    return res


def _status(out: str) -> dict[str, str]:
    # pre-commit prints one line per hook: "<name>....<Passed|Failed|Skipped>"
    found = dict(re.findall(r"^(railfabric [a-z -]+?)\.*(?:\(no files to check\))?(Passed|Failed|Skipped)$", out,
                            re.MULTILINE))
    return found


@pytest.fixture(scope="module")
def head() -> str:
    return _head()


def test_hooks_pass_on_the_clean_example(tmp_path: Path, env: dict[str, str], head: str) -> None:
    repo = _user_repo(tmp_path / "fabric", head)
    res = _run(repo, env, "--all-files")  # the first run builds the hook environment
    assert _status(res.stdout) == {"railfabric validate": "Passed", "railfabric render --check": "Passed"}, \
        res.stdout + res.stderr
    assert res.returncode == 0


def test_a_broken_inventory_fails_validate_with_the_rule_code(tmp_path: Path, env: dict[str, str],
                                                              head: str) -> None:
    repo = _user_repo(tmp_path / "fabric", head)
    pods = repo / "inventory" / "pods.yml"
    text = pods.read_text(encoding="utf-8")
    assert text.count("        rail_switch_model: sn5600\n") >= 1
    pods.write_text(text.replace("        rail_switch_model: sn5600\n", "        rail_switch_model: sn5060\n", 1),
                    encoding="utf-8")
    res = _run(repo, env, "--files", "inventory/pods.yml")
    assert res.returncode == 1
    # the typo'd model: REF001 at its value (pods.yml line 27 with the yaml-language-server first line)
    assert re.search(r"^inventory/pods\.yml:\d+:\d+: error REF001: switch model 'sn5060' is not defined",
                     res.stdout, re.MULTILINE), res.stdout
    assert _status(res.stdout) == {"railfabric validate": "Failed", "railfabric render --check": "Failed"}


def test_a_hand_edited_generated_file_fails_the_render_check(tmp_path: Path, env: dict[str, str],
                                                             head: str) -> None:
    repo = _user_repo(tmp_path / "fabric", head)
    cabling = repo / "generated" / "cabling.csv"
    cabling.write_text(cabling.read_text(encoding="utf-8") + "hand,edit\n", encoding="utf-8")
    res = _run(repo, env, "--files", "generated/cabling.csv")
    assert res.returncode == 1
    # validate does not run (no inventory file changed); the render check names the stale file
    assert _status(res.stdout) == {"railfabric validate": "Skipped", "railfabric render --check": "Failed"}
    assert "cabling.csv" in res.stdout


def test_a_commit_that_touches_no_fabric_file_skips_both(tmp_path: Path, env: dict[str, str], head: str) -> None:
    repo = _user_repo(tmp_path / "fabric", head)
    res = _run(repo, env, "--files", "README.md")
    assert res.returncode == 0
    assert _status(res.stdout) == {"railfabric validate": "Skipped", "railfabric render --check": "Skipped"}
