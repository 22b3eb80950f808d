"""Session-wide test plumbing: every inventory the suite validates clean is recorded, so that
tests/test_render_all_clean.py can render them all at the end ("anything that validates clean must render").

`railfabric.pipeline.run` is wrapped once, here, before any test module imports it: a run whose result has an
inventory, a topology and a plan and no error is recorded as a snapshot of its files (bytes, deduplicated by
content), so later changes to a test's temporary directory or to the result objects do not matter.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import railfabric.pipeline as pipeline
from railfabric.core.finding import has_errors
from railfabric.core.progress import SILENT, Progress

pytest_plugins = ["tests.cpu_time"]  # --cpu-durations / --cpu-log: CPU seconds per test phase

REAL_RUN = pipeline.run
CLEAN: dict[str, dict[str, bytes]] = {}  # content digest → {path relative to the inventory root: bytes}
LAST = "tests/test_render_all_clean.py::test_every_inventory_the_suite_validates_clean_renders"


def record(path: Path, res: pipeline.Result) -> None:
    if res.inventory is None or res.topology is None or res.plan is None or has_errors(res.findings):
        return
    root = path if path.is_dir() else path.parent
    files = {_relative(Path(f), root): Path(f).read_bytes() for f in res.loaded.files}
    digest = hashlib.sha256(b"".join(k.encode() + b"\0" + v + b"\0" for k, v in sorted(files.items()))).hexdigest()
    CLEAN.setdefault(digest, files)


def _relative(file: Path, root: Path) -> str:
    try:
        return file.relative_to(root).as_posix()
    except ValueError:
        return file.name


def _recording_run(path: Path, progress: Progress = SILENT) -> pipeline.Result:
    res = REAL_RUN(path, progress)
    record(Path(path), res)
    return res


pipeline.run = _recording_run  # type: ignore[assignment]


# Test files that run real tools or whole-fabric renders (FRR, ansible-playbook, pip, stand-in switches, every
# option or platform rendered): `make test-fast` (-m "not slow") leaves them out for the edit loop; `make test` runs
# everything. Measured with --durations on 2 cores: each of these takes seconds; the rest together well under a
# minute.
SLOW = frozenset({
    "test_lab.py", "test_lab_hosts.py", "test_rollout_lab.py", "test_rollout_nvue.py", "test_rollout_nxos.py",
    "test_rollout_junos.py", "test_rollout_playbook.py", "test_rollout_first_fit.py", "test_rollout_plan.py",
    "test_wheel.py", "test_make_render.py", "test_precommit.py", "test_ci_examples.py", "test_completion.py",
    "test_render_all_clean.py", "test_option_walk.py", "test_option_walk_junos.py", "test_nvue_schema.py",
    "test_stability.py", "test_nxos_collection.py", "test_render_nvue.py", "test_render_nxos.py",
    "test_render_sonic.py", "test_render_junos.py", "test_fuzz.py", "test_reuse.py", "test_progress.py",
    "test_hosts_growth.py", "test_outputs.py", "test_mlag_nvue.py", "test_mlag_eos.py", "test_schema_per_file.py",
    "test_staging.py", "test_verify.py", "test_verify_hosts.py", "test_incremental.py", "test_frr_syntax.py",
    "test_emit.py", "test_nvue_yaml.py", "test_docs_pictures.py", "test_outdir.py", "test_hosts_tools.py",
    "test_sizing.py", "test_journal_recovery.py", "test_spraying.py", "test_mlag_junos.py", "test_bounds.py",
    "test_junos_verify.py", "test_all_platforms.py", "test_anta_catalog.py", "test_lab_neigh.py", "test_journal.py",
    "test_early_render.py", "test_pins_render.py", "test_lab_pins.py", "test_lab_unnumbered.py", "test_lab_raw.py",
    "test_lab_sessions.py", "test_unnumbered.py", "test_lab_ib.py",
    "test_lab_down.py", "test_lab_down_routes.py", "test_ib_render_opensm.py",
    "test_lab_ib_inventory.py", "test_lab_ib_reap.py", "test_lab_ib_vlarb.py",
})


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: runs real tools or whole-fabric renders (left out by make test-fast)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The render-everything test runs last, after every other test has recorded its inventories; the files of
    SLOW are marked slow."""
    last = [i for i in items if i.nodeid.endswith(LAST)]
    items[:] = [i for i in items if not i.nodeid.endswith(LAST)] + last
    for item in items:
        if item.path.name in SLOW:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def yang_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SONiC's YANG models for yanglint (tests/test_sonic_yang.py, tests/test_mlag_sonic.py): the directory named by
    models.ENV_MODELS, else exported from the sonic-buildimage mirror; skipped where neither exists (CI)."""
    import os
    import shutil

    from railfabric.verify.sonic_yang import models as model_source

    if shutil.which("yanglint") is None:
        pytest.skip("yanglint not installed (apt-get install libyang2-tools)")
    given = os.environ.get(model_source.ENV_MODELS)
    if given:
        return Path(given)
    if not model_source.MIRROR.is_dir():
        pytest.skip(f"no SONiC YANG models: set {model_source.ENV_MODELS} or provide {model_source.MIRROR}")
    dest = tmp_path_factory.mktemp("sonic-yang-models")
    model_source.export(model_source.MIRROR, dest)
    return dest
