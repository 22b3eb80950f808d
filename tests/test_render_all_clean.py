"""Anything that validates clean must render.

tests/conftest.py records every inventory that `railfabric.pipeline.run` validates without errors anywhere in the
suite; the first test here runs last (conftest reorders it) and renders each of them in memory with
`railfabric.emit.build.build_files` (never into generated/). The property test does the same for random valid fabrics of
the stability generator, written as YAML and run through the real pipeline.

`make test` runs this test at the end of both render processes (tests/tools/suite.sh), whose recorded inventories
overlap (the example, the mini fabric and its variants are in both halves). suite.sh names a fresh directory in
RAILFABRIC_RENDER_CLAIMS: right before rendering an inventory, a process claims its content digest there (a file
created exclusively), so each inventory of the run is rendered once, by whichever process reaches it first (the two
share the common ones while both run), and that process reports it if it fails. The digest covers every file's
path and bytes: an inventory skipped here is byte for byte one the other process renders. Without the variable
(the test run alone), every recorded inventory is rendered.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings

from railfabric.core.finding import has_errors
from railfabric.emit.build import build_files
from railfabric.verify import verify
from tests import conftest
from tests.helpers import EXAMPLE, base_inventory, dump, write_files
from tests.test_stability import inventories


def render_clean(directory: Path, verify_in: Path | None = None) -> dict[str, bytes]:
    """Validate `directory` (it must be clean) and render it in memory; every switch gets its configs. With
    `verify_in` (and no raw blocks), the files are written there and the independent parse-back verifier must find
    every promise kept (`fabric verify`: link ends agree, host ports ready for RoCE, reverse BGP sessions, push
    account...)."""
    res = conftest.REAL_RUN(directory)
    errors = [f"{f.code}: {f.message}" for f in res.findings if f.severity == "error"]
    assert not errors, errors
    assert res.topology is not None
    files = build_files(res)
    configs = {path.split("/")[1] for path in files if path.startswith("configs/")}
    assert configs == set(res.topology.switches), sorted(configs ^ set(res.topology.switches))[:5]
    assert json.loads(files["manifest.json"])
    # raw configuration (`raw:`) is the operator's text: it may override what railfabric manages (RAW009, a warning)
    # or add keys NVIDIA's schema refuses, and `fabric verify` then reports the difference (docs/underlay.md): the
    # promise checked here is railfabric's own, so an inventory with raw blocks must render, not verify clean
    if verify_in is not None and res.inventory is not None and not res.inventory.raw:
        result = verify(write_files(verify_in, files), frr_parser=False)  # type: ignore[arg-type]
        assert not result.failures, [str(f) for f in result.failures[:5]]
    return files


def _render_one(job: tuple[str, Path, Path]) -> str | None:
    """render_clean in a worker process, once this process has claimed the inventory (claimed_here): "" when it
    renders, otherwise why not (collected: one report names every failing inventory); None when the other render
    process of the suite run claimed it first (it renders and reports it)."""
    digest, directory, verify_in = job
    if not claimed_here(digest):
        return None
    try:
        render_clean(directory, verify_in)
    except (AssertionError, Exception) as exc:
        return f"{type(exc).__name__}: {exc}"
    return ""


def claimed_here(digest: str, claims: str | None = os.environ.get("RAILFABRIC_RENDER_CLAIMS")) -> bool:
    """True when this process is to render the inventory of `digest`: no claims directory, or this process created
    its claim first; False when another process of the same suite run already claimed it."""
    if not claims:
        return True
    try:
        fd = os.open(Path(claims) / digest, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    os.write(fd, f"{os.getpid()}\n".encode())
    os.close(fd)
    return True


def test_every_inventory_the_suite_validates_clean_renders(tmp_path: Path) -> None:
    conftest.record(EXAMPLE, conftest.REAL_RUN(EXAMPLE))  # so the test means something when run alone
    mini = write_files(tmp_path / "mini", {"fabric.yml": dump(base_inventory())})
    conftest.record(mini, conftest.REAL_RUN(mini))
    assert len(conftest.CLEAN) >= 2
    jobs = [(digest, sorted(files), write_files(tmp_path / f"inv{i}", dict(files)), tmp_path / f"gen{i}")
            for i, (digest, files) in enumerate(sorted(conftest.CLEAN.items()))]
    # one process per core (the inventories are independent; this test runs last, when nothing else does)
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1, mp_context=get_context("fork")) as pool:
        outcomes = list(pool.map(_render_one, [(digest, d, v) for digest, _, d, v in jobs], chunksize=4))
    rendered = sum(1 for why in outcomes if why is not None)
    print(f"{rendered} of {len(jobs)} clean inventories rendered here (the rest claimed by the other render process)")
    failures = [f"{digest[:12]} ({', '.join(names)}): {why}"[:400]
                for (digest, names, _, _), why in zip(jobs, outcomes, strict=True) if why]
    assert not failures, f"{len(failures)} of {len(conftest.CLEAN)} clean inventories do not render:\n" + "\n".join(
        failures)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=inventories())
def test_random_valid_fabrics_render(tmp_path: Path, data: dict[str, Any]) -> None:
    d = tmp_path / "inv"
    if d.exists():
        for f in d.iterdir():
            f.unlink()
    # the generator is built for the address plan: accept any ratio so that the solver's capacity verdicts do not
    # hide the fabric; whatever else is not clean is skipped (that is not what this test is about)
    data["solver"] = {"oversubscription": {"rail": 64, "spine": 64}}
    d = write_files(d, {"fabric.yml": dump(data)})
    assume(not has_errors(conftest.REAL_RUN(d).findings))
    render_clean(d)


def test_each_inventory_is_claimed_by_one_process(tmp_path: Path) -> None:
    """The claims of tests/tools/suite.sh's two render processes: the first claim of a digest wins, a second is
    refused (the other process renders it), another digest is free; with no directory everything renders here."""
    claims = str(tmp_path)
    assert claimed_here("a" * 64, claims) is True
    assert claimed_here("a" * 64, claims) is False
    assert claimed_here("b" * 64, claims) is True
    assert claimed_here("a" * 64, None) is True
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a" * 64, "b" * 64]
