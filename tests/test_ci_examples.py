"""The example CI files (examples/ci/): the GitHub Actions workflow passes actionlint (with shellcheck on its run:
scripts) and the GitHub workflow JSON Schema, the GitLab file passes GitLab's CI JSON Schema (both schemas as vendored
by check-jsonschema), both have the jobs, permissions and pins the README promises, and the plan steps of both run
here, as bash would run them on the CI runner, against a real git origin. Also the GitLab code quality report
(`fabric validate --format codequality`) that the GitLab example uploads.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from railfabric.cli import main
from railfabric.core.finding import Finding, Severity
from railfabric.core.formats import format_codequality
from railfabric.core.source_map import Location
from tests.helpers import EXAMPLE, ROOT

BIN = Path(sys.executable).parent
GITHUB = ROOT / "examples" / "ci" / "github" / "railfabric.yml"
GITLAB = ROOT / "examples" / "ci" / "gitlab-ci.yml"


def _tool(name: str) -> str:
    path = BIN / name
    assert path.exists(), f"{name} is missing: pip install -e '.[test]'"
    return str(path)


def _load(path: Path) -> dict[Any, Any]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


# --------------------------------------------------------------------------- GitHub Actions


def test_the_workflow_passes_actionlint_with_shellcheck() -> None:
    res = subprocess.run([_tool("actionlint"), "-no-color", "-oneline", "-shellcheck", _tool("shellcheck"),
                          "-pyflakes", "", str(GITHUB)], capture_output=True, text=True)
    assert (res.returncode, res.stdout, res.stderr) == (0, "", "")


def test_actionlint_bites() -> None:
    # the same linter on a damaged copy: an undefined context property in an expression and an unquoted variable
    # in a script. (actionlint checks action inputs only for actions pinned to a tag it knows, not to a SHA: the
    # inputs used here were read from each action's action.yml at the pinned commit.)
    bad = GITHUB.read_text(encoding="utf-8").replace("${{ env.PYTHON_VERSION }}", "${{ envs.PYTHON_VERSION }}", 1)
    bad = bad.replace('run: fabric render "$INVENTORY" --check', "run: fabric render $INVENTORY --check", 1)
    res = subprocess.run([_tool("actionlint"), "-no-color", "-oneline", "-shellcheck", _tool("shellcheck"),
                          "-pyflakes", "", "-"], input=bad, capture_output=True, text=True)
    assert res.returncode == 1
    assert 'undefined variable "envs"' in res.stdout
    assert "SC2086" in res.stdout


def test_the_workflow_passes_the_github_workflow_schema() -> None:
    res = subprocess.run([_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", str(GITHUB)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_the_workflow_jobs_permissions_and_pins() -> None:
    wf = _load(GITHUB)
    assert set(wf["jobs"]) == {"validate", "render-check", "plan"}
    assert wf["permissions"] == {}  # nothing by default; each job asks for what it needs
    assert {name: job["permissions"] for name, job in wf["jobs"].items()} == {
        "validate": {"contents": "read", "security-events": "write", "actions": "read"},
        "render-check": {"contents": "read"},
        "plan": {"contents": "read", "pull-requests": "write"},
    }
    uses = re.findall(r"uses: (\S+)@(\S+)  # (v\d+\.\d+\.\d+)$", GITHUB.read_text(encoding="utf-8"), re.MULTILINE)
    all_uses = re.findall(r"uses: \S+", GITHUB.read_text(encoding="utf-8"))
    assert len(uses) == len(all_uses) == 8  # 3 checkouts, 3 setup-python, upload-sarif, the sticky comment
    assert all(re.fullmatch(r"[0-9a-f]{40}", sha) for _, sha, _ in uses)
    assert {action for action, _, _ in uses} == {"actions/checkout", "actions/setup-python",
                                                 "github/codeql-action/upload-sarif",
                                                 "marocchino/sticky-pull-request-comment"}
    steps = {s.get("name", s.get("uses")): s for s in wf["jobs"]["validate"]["steps"]}
    assert "--format sarif > railfabric.sarif" in steps["Validate (SARIF)"]["run"]
    upload = steps["Upload to code scanning"]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"] == {"sarif_file": "railfabric.sarif", "category": "railfabric"}
    assert "!cancelled()" in upload["if"]  # uploaded also when validation failed: that is when it matters
    check = wf["jobs"]["render-check"]["steps"][-1]
    assert check["run"] == 'fabric render "$INVENTORY" --check ${FULL:+--full}'
    # forks and the default branch render afresh: a fork could rewrite a file and its sha256 in the manifest
    assert " ".join(check["env"]["FULL"].split()) == (
        "${{ (github.event_name != 'pull_request' || github.event.pull_request.head.repo.full_name != "
        "github.repository) && 'yes' || '' }}")
    comment = wf["jobs"]["plan"]["steps"][-1]
    assert comment["uses"].startswith("marocchino/sticky-pull-request-comment@")
    assert comment["with"] == {"header": "railfabric-plan", "path": "plan.md"}  # one comment, updated in place


# --------------------------------------------------------------------------- GitLab CI


def test_the_gitlab_file_passes_gitlabs_ci_schema() -> None:
    res = subprocess.run([_tool("check-jsonschema"), "--builtin-schema", "vendor.gitlab-ci", str(GITLAB)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_the_gitlab_schema_bites(tmp_path: Path) -> None:
    doc = _load(GITLAB)
    doc["validate"]["artifacts"]["reports"]["codequality"] = {"path": "x.json"}  # must be a path or a list
    doc["render-check"]["stage"] = ["validate"]
    bad = tmp_path / "bad.yml"
    bad.write_text(yaml.safe_dump(doc), encoding="utf-8")
    res = subprocess.run([_tool("check-jsonschema"), "--builtin-schema", "vendor.gitlab-ci", str(bad)],
                         capture_output=True, text=True)
    assert res.returncode == 1


def test_the_gitlab_jobs_stages_and_reports() -> None:
    doc = _load(GITLAB)
    assert doc["stages"] == ["validate", "review"]
    jobs = {k: v for k, v in doc.items() if isinstance(v, dict) and "script" in v}
    assert {name: job["stage"] for name, job in jobs.items()} == {
        "validate": "validate", "render-check": "validate", "plan": "review"}
    assert doc["validate"]["artifacts"]["reports"] == {"codequality": "gl-code-quality-report.json"}
    assert doc["validate"]["artifacts"]["when"] == "always"
    assert 'fabric validate "$INVENTORY" --format codequality > gl-code-quality-report.json || true' in \
        doc["validate"]["script"]
    assert doc["validate"]["script"][-1] == 'fabric validate "$INVENTORY"'  # the step that fails the job
    assert len(doc["render-check"]["script"]) == 1 and doc["render-check"]["script"][0].endswith(
        'fabric render "$INVENTORY" --check $full\n')
    assert doc["plan"]["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert doc["plan"]["artifacts"]["expose_as"] == "railfabric plan"


def test_the_gitlab_note_script_is_valid_python() -> None:
    script = _load(GITLAB)["plan"]["script"][-1]
    body = re.search(r"<<'PY'\n(.*?)\nPY\n", script, re.DOTALL)
    assert body is not None
    compile(body.group(1), "gitlab-ci.yml plan note", "exec")
    assert "<!-- railfabric-plan -->" in body.group(1)  # the marker of the note it updates instead of adding one


# --------------------------------------------------------------------------- the plan steps, run for real


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def change(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone whose branch `change` moves p1-s1-rail3's management address (devices.yml) and re-renders, on top
    of `main` (the example as shipped), both pushed to a bare origin: what a CI runner checks out for a pull
    request. The plan against main must name p1-s1-rail3 as the one device changed."""
    root = tmp_path_factory.mktemp("ci")
    _git(root, "init", "-q", "--bare", "-b", "main", "origin.git")
    work = root / "work"
    _git(root, "clone", "-q", str(root / "origin.git"), str(work))
    shutil.copytree(EXAMPLE, work / "inventory")
    shutil.copytree(ROOT / "generated", work / "generated")
    _git(work, "checkout", "-q", "-b", "main")
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "base")
    _git(work, "push", "-q", "origin", "main")
    _git(work, "checkout", "-q", "-b", "change")
    devices = work / "inventory" / "devices.yml"
    text = devices.read_text(encoding="utf-8")
    assert text.count("management: 192.168.15.3 ") == 1
    devices.write_text(text.replace("management: 192.168.15.3 ", "management: 192.168.15.4 "), encoding="utf-8")
    assert main(["render", str(work / "inventory"), "--out", str(work / "generated")]) == 0
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "change")
    _git(work, "push", "-q", "origin", "change")
    return work


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    # GitHub runs `bash --noprofile --norc -eo pipefail`; GitLab's runner also stops at the first failing line
    full = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "INVENTORY": "inventory", **env}
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=300)


def _assert_plan(plan: str) -> None:
    assert "Plan: 0 device(s) to add, 1 to change, 0 to remove;" in plan
    assert re.search(r"^  ~ p1-s1-rail3\b", plan, re.MULTILINE), plan


def test_the_github_plan_steps_run(change: Path, tmp_path: Path) -> None:
    wf = _load(GITHUB)
    steps = {s.get("name"): s for s in wf["jobs"]["plan"]["steps"]}
    base = _git(change, "rev-parse", "main").strip()
    env = {"BASE_SHA": base, "RUNNER_TEMP": str(tmp_path), "GITHUB_BASE_REF": "main",
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    assert steps["Check out the target branch's generated/ beside it"]["env"] == {
        "BASE_SHA": "${{ github.event.pull_request.base.sha }}"}
    for name in ("Check out the target branch's generated/ beside it", "Plan against the target branch"):
        res = _bash(steps[name]["run"], change, env)
        assert res.returncode == 0, res.stdout + res.stderr
    plan = (change / "plan.md").read_text(encoding="utf-8")
    assert plan.startswith("### railfabric plan\n\nWhat this pull request changes in `generated/` compared with "
                           "`main`:\n\n~~~text\nPlan: ")
    assert plan.endswith("~~~\n")
    _assert_plan(plan)
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == plan
    _git(change, "worktree", "remove", "--force", str(tmp_path / "base"))


def test_the_gitlab_plan_script_runs(change: Path, tmp_path: Path) -> None:
    script = "\n".join(_load(GITLAB)["plan"]["script"])
    env = {"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main", "CI_BUILDS_DIR": str(tmp_path)}  # no note token
    res = _bash(script, change, env)
    assert res.returncode == 0, res.stdout + res.stderr
    plan = (change / "plan.md").read_text(encoding="utf-8")
    assert plan.startswith("<!-- railfabric-plan -->\n### railfabric plan\n")
    _assert_plan(plan)
    _assert_plan(res.stdout)  # the plan is also in the job log
    _git(change, "worktree", "remove", "--force", str(tmp_path / "railfabric-base"))


# --------------------------------------------------------------------------- GitLab code quality report


def test_codequality_fields() -> None:
    # GitLab's code quality format: description, check_name, fingerprint, severity (info|minor|major|critical|
    # blocker), location.path, location.lines.begin
    findings = [
        Finding("SCH001", "unknown key 'host_mu' in fabric", Location("inventory/fabric.yml", 12, 3),
                hint="did you mean 'host_mtu'?"),
        Finding("MTU002", "host MTU 4000 is too small for RoCE", Location("inventory/fabric.yml", 11, 0),
                severity=Severity.WARNING),
        Finding("POOL002", "pool loopbacks is 90% used", None, severity=Severity.INFO),
    ]
    issues = json.loads(format_codequality(findings, "inventory"))
    assert [{k: v for k, v in i.items() if k != "fingerprint"} for i in issues] == [
        {"description": "SCH001: unknown key 'host_mu' in fabric (hint: did you mean 'host_mtu'?)",
         "check_name": "SCH001", "severity": "critical",
         "location": {"path": "inventory/fabric.yml", "lines": {"begin": 12}}},
        {"description": "MTU002: host MTU 4000 is too small for RoCE", "check_name": "MTU002", "severity": "minor",
         "location": {"path": "inventory/fabric.yml", "lines": {"begin": 11}}},
        {"description": "POOL002: pool loopbacks is 90% used", "check_name": "POOL002", "severity": "info",
         "location": {"path": "inventory", "lines": {"begin": 1}}},  # no location: the inventory, line 1
    ]
    assert all(re.fullmatch(r"[0-9a-f]{32}", i["fingerprint"]) for i in issues)
    assert len({i["fingerprint"] for i in issues}) == 3


def test_codequality_fingerprints_survive_a_line_shift_and_tell_twins_apart() -> None:
    one = Finding("REF001", "switch model 'x' is not defined", Location("inventory/pods.yml", 10, 5))
    moved = Finding("REF001", "switch model 'x' is not defined", Location("inventory/pods.yml", 11, 5))
    [a] = json.loads(format_codequality([one], "inventory"))
    [b] = json.loads(format_codequality([moved], "inventory"))
    assert a["fingerprint"] == b["fingerprint"]
    twins = json.loads(format_codequality([one, moved], "inventory"))
    assert twins[0]["fingerprint"] == a["fingerprint"] != twins[1]["fingerprint"]


def test_codequality_of_a_broken_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(EXAMPLE, tmp_path / "inventory")
    pods = tmp_path / "inventory" / "pods.yml"
    text = pods.read_text(encoding="utf-8")
    # pods.yml line 35 (counting the yaml-language-server first line): segment 2's model, value at column 28
    assert text.splitlines()[34] == "        rail_switch_model: 7060x6-dual"
    pods.write_text(text.replace("rail_switch_model: 7060x6-dual", "rail_switch_model: 7060x6-duo", 1),
                    encoding="utf-8")
    assert main(["validate", "inventory", "--format", "codequality"]) == 1
    issues = json.loads(capsys.readouterr().out)
    ref = [i for i in issues if i["check_name"] == "REF001"]
    assert [(i["location"], i["severity"]) for i in ref] == [
        ({"path": "inventory/pods.yml", "lines": {"begin": 35}}, "critical")]


# --------------------------------------------------------------------------- render-check: when it renders afresh


def _fake_fabric(tmp_path: Path) -> dict[str, str]:
    """A PATH whose `fabric` prints its arguments, one per line."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "fabric"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do echo "$a"; done\n')
    fake.chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}", "INVENTORY": "inventory"}


@pytest.mark.parametrize(("source", "branch", "full"), [
    ("42", "", True),            # a merge request from a fork (another source project)
    ("7", "", False),            # a merge request from a branch of this project
    ("", "main", True),          # the default branch
    ("", "feature", False),      # another branch of this project
])
def test_the_gitlab_render_check_renders_forks_afresh(tmp_path: Path, source: str, branch: str, full: bool) -> None:
    script = _load(GITLAB)["render-check"]["script"][0]
    env = {**_fake_fabric(tmp_path), "CI_PROJECT_ID": "7", "CI_DEFAULT_BRANCH": "main"}
    if source:
        env["CI_MERGE_REQUEST_SOURCE_PROJECT_ID"] = source
    if branch:
        env["CI_COMMIT_BRANCH"] = branch
    res = subprocess.run(["sh", "-eu", "-c", script], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["render", "inventory", "--check", *(["--full"] if full else [])]


@pytest.mark.parametrize(("value", "full"), [("yes", True), ("", False)])
def test_the_github_render_check_passes_full_when_asked(tmp_path: Path, value: str, full: bool) -> None:
    run = _load(GITHUB)["jobs"]["render-check"]["steps"][-1]["run"]
    env = {**_fake_fabric(tmp_path), "FULL": value}
    res = subprocess.run(["bash", "-eu", "-c", run], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["render", "inventory", "--check", *(["--full"] if full else [])]


# --------------------------------------------------------------------------- where railfabric is installed from

def _source_copy(repo: Path) -> None:
    """./railfabric in the user's repository: the railfabric source tree (as a submodule checkout would hold it)."""
    shutil.copytree(ROOT, repo / "railfabric", ignore=shutil.ignore_patterns(
        ".git", ".venv", ".cache", "generated", "tests", "bench", "*.egg-info", "build", "dist", ".hypothesis",
        "__pycache__", ".mypy_cache", ".ruff_cache"))


def _github_install() -> tuple[dict[str, str], str]:
    doc = _load(GITHUB)
    runs = {step["run"] for job in doc["jobs"].values() for step in job["steps"]
            if step.get("name") == "Install railfabric"}
    assert len(runs) == 1 and len(doc["jobs"]) == 3  # the same step in all three jobs
    env = doc["env"]
    assert env["RAILFABRIC"] == "${{ vars.RAILFABRIC || './railfabric' }}"  # the repository variable, else the path
    for job in doc["jobs"].values():  # the path may be a submodule: every checkout fetches submodules
        checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@"))
        assert checkout["with"]["submodules"] is True
    return {"RAILFABRIC": "./railfabric", "RAILFABRIC_MISSING": env["RAILFABRIC_MISSING"]}, runs.pop()


def _run_step(script: str, repo: Path, env: dict[str, str], site: Path) -> subprocess.CompletedProcess[str]:
    """The step's script as the runner runs it (bash -e), `python` being this environment's; pip installs into
    `site` without dependencies (they are this environment's own), building railfabric as any pip install does."""
    run_env = {**os.environ, **env, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "PIP_NO_DEPS": "1",
               "PIP_TARGET": str(site), "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_QUIET": "1"}
    return subprocess.run(["bash", "-e", "-c", script], cwd=repo, env=run_env, capture_output=True, text=True,
                          timeout=600)


def test_the_github_install_step_runs_as_written(tmp_path: Path) -> None:
    env, script = _github_install()
    repo = tmp_path / "repo"
    repo.mkdir()
    # without ./railfabric and without the variable: the step fails with what to do, as a workflow annotation
    res = _run_step(script, repo, env, tmp_path / "none")
    assert res.returncode == 1
    assert res.stdout.startswith("::error::railfabric could not be installed from RAILFABRIC. Add it as "
                                 "./railfabric (git submodule add URL railfabric,")
    # with the source at ./railfabric: installed, the `fabric` command included
    _source_copy(repo)
    res = _run_step(script, repo, env, tmp_path / "site")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "site" / "railfabric" / "__init__.py").is_file()
    assert (tmp_path / "site" / "bin" / "fabric").is_file()


def test_the_gitlab_install_runs_as_written(tmp_path: Path) -> None:
    doc = _load(GITLAB)
    assert doc["variables"]["RAILFABRIC"] == "./railfabric"
    assert doc["variables"]["GIT_SUBMODULE_STRATEGY"] == "recursive"
    (script,) = doc["default"]["before_script"]
    repo = tmp_path / "repo"
    repo.mkdir()
    res = _run_step(script, repo, {"RAILFABRIC": "./railfabric"}, tmp_path / "none")
    assert res.returncode == 1
    assert "railfabric could not be installed from RAILFABRIC=./railfabric. Add it as ./railfabric" in res.stderr
