"""`fabric render` and `fabric plan`: validate, render (reusing what --out still holds), stage, then write or compare
and print the difference. Commands only: every decision lives in the pipeline modules."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from railfabric.cli.commands import progress_for
from railfabric.core.finding import exit_code
from railfabric.core.formats import format_text
from railfabric.core.textsafe import log_line
from railfabric.emit.outdir import MANIFEST

if TYPE_CHECKING:
    from railfabric.core.progress import Progress
    from railfabric.emit.build import Content
    from railfabric.emit.compare import Diff
    from railfabric.emit.intact import Listing
    from railfabric.emit.reuse import Reuse
    from railfabric.emit.staging import Stage
    from railfabric.inventory.load import Loaded
    from railfabric.pipeline import Result

T = TypeVar("T")


def _validated(args: argparse.Namespace, progress: Progress, meanwhile: Callable[[Result], T] | None = None,
               loaded: Loaded | None = None) -> tuple[Result | None, int, T | None]:
    """Run the pipeline (with `meanwhile` on the allocated fabric while it is checked: railfabric.pipeline.run_with);
    print findings when there are errors. Returns (result or None, exit code, what meanwhile returned)."""
    from railfabric.core.finding import has_errors
    from railfabric.pipeline import run_with

    # the checks run in a second process beside `meanwhile` unless one process was asked for (--workers 1)
    res, extra = run_with(Path(args.inventory), progress, meanwhile, fork=getattr(args, "workers", 1) > 1,
                          loaded=loaded)
    if has_errors(res.findings) or res.stage_reached != "done":  # (an InfiniBand fabric has no plan)
        progress.close()
        sys.stdout.write(format_text(res.findings))
        print("nothing rendered: fix the errors above (generated/ is unchanged)", file=sys.stderr)
        return None, exit_code(res.findings) or 1, None
    if res.findings and not getattr(args, "quiet", False):
        sys.stdout.write(format_text(res.findings))
    return res, 0, extra


# Set by railfabric.cli.run, which ends the process with os._exit: what a render computed (the fabric, its models, views
# and parts) is kept here instead of being freed object by object as the functions holding it return, which cost
# about 0.35 s at 131,072 GPUs on the render's critical path and decides nothing. None (free as usual) otherwise.
UNTIL_EXIT: list[object] | None = None


def _rendered(args: argparse.Namespace, progress: Progress, stage: Stage, results: list[Result] | None = None) \
        -> tuple[dict[str, Content] | None, int, Listing | None, Reuse]:
    """Validate and render: (files, 0, --out's listing, the reuse), or (None, exit code, None, the reuse) after
    printing why. The listing (railfabric.emit.intact.listing, None with --full) was taken at the start, beside the
    hashing of --out's files: a check or a plan compares with it; writing checks that no other render replaced what the
    reuse read (write_tree's `since`). Files made afresh are written to
    `stage` as they are made (railfabric.emit.staging). Devices and artifacts whose digests match --out's manifest (and
    whose files there are intact) are reused, not rendered again; when nothing railfabric reads changed since that
    render, nothing is validated or rendered (railfabric.emit.reuse). `results`: the pipeline's result is appended
    to it when the inventory was validated (`fabric plan` shows the raw blocks from it)."""
    from railfabric.emit.build import RenderError, build_models, build_tree
    from railfabric.emit.reuse import Reuse
    from railfabric.emit.workers import Early

    reuse = Reuse(None if getattr(args, "full", False) else Path(args.out))
    if reuse.previous.problem:  # a damaged or edited manifest: nothing in it is used (railfabric.emit.manifest)
        print(f"fabric: warning: {args.out}/{MANIFEST} {reuse.previous.problem}; nothing in it is trusted: "
              "everything is rendered afresh", file=sys.stderr)
    early: Early | None = None
    try:
        same = reuse.unchanged(Path(args.inventory))
        if same is not None:
            progress.stage("the inventory and railfabric are unchanged since the last render and its files are intact:"
                           " nothing to validate or render (--full does it all)")
            shown = reuse.findings_text()
            if shown and not getattr(args, "quiet", False):  # as _validated prints them (through log_text)
                sys.stdout.write(shown)
            return dict(same), 0, reuse.listing(), reuse
        # nothing earlier to reuse (a cold render): the configs start rendering as soon as the models exist
        early = Early(args.workers, stage) if not reuse.previous.devices else None
        res, rc, models = _validated(args, progress, lambda r: build_models(r, progress, early), reuse.loaded)
        if res is None:
            return None, rc, None, reuse
        if results is not None:
            results.append(res)
        try:
            files = build_tree(res, workers=args.workers, progress=progress, reuse=reuse, stage=stage,
                               models=models, keep=UNTIL_EXIT).files
            if UNTIL_EXIT is not None:
                UNTIL_EXIT.append(res)
        except RenderError as exc:
            progress.close()
            print(f"fabric: render error: {exc}", file=sys.stderr)
            return None, 2, None, reuse
        return files, 0, reuse.listing() if reuse.out is not None else None, reuse
    finally:
        if early is not None:
            early.close()
        reuse.close()


# manifest.json is railfabric's own record: its diff (digests) tells a reviewer nothing and costs a difflib run over
# megabytes at 65K GPUs, so it is named, not shown
RECORD = "railfabric's record of this render: the digests of its inputs and of every file"


def _plus_minus(lines: list[str]) -> str:
    """'+N -M' for a unified diff (its two header lines skipped)."""
    plus = sum(1 for ln in lines[2:] if ln.startswith("+"))
    minus = sum(1 for ln in lines[2:] if ln.startswith("-"))
    return f"+{plus} -{minus}"


def _print_diff(lines: list[str], limit: int) -> None:
    """The first `limit` lines of a unified diff (its two header lines skipped); the old side is read back from
    --out, so every line is printed through textsafe.log_line."""
    for line in lines[2:2 + limit]:
        print(f"    {log_line(line)}")
    if len(lines) > 2 + limit:
        print(f"    ... ({len(lines) - 2 - limit} more diff lines)")


@contextlib.contextmanager
def _session(args: argparse.Namespace) -> Iterator[tuple[Progress, Stage]]:
    """The progress display and the staging directory of one render or plan, both closed at the end."""
    from railfabric.emit.staging import Stage

    progress = progress_for(args)
    try:
        with Stage(Path(args.out)) as stage:
            yield progress, stage
    finally:
        progress.close()


def _say(text: str) -> None:
    print(f"fabric: {text}", file=sys.stderr, flush=True)


def cmd_render(args: argparse.Namespace) -> int:
    """`render` and `render --check`. The output directory must be railfabric's
    (railfabric.emit.outdir.check_output_dir), refused before anything is read or rendered (a check of `--out /` would
    walk the whole file system). A render holds the output's lock from before it reads the earlier render until it has
    written: a second render waits for the first (up to railfabric.emit.outdir.LOCK_WAIT_S, saying so), then renders
    against what the first wrote."""
    from railfabric.emit.outdir import check_output_dir, render_lock

    target = check_output_dir(Path(args.out), Path(args.inventory), comparing=args.check)
    if args.check or not target.parent.is_dir():  # nothing to lock yet: write_tree makes it and locks then
        with _session(args) as (progress, stage):
            return _render(args, progress, stage)
    with render_lock(target, _say), _session(args) as (progress, stage):
        return _render(args, progress, stage)


def _compared(args: argparse.Namespace, progress: Progress, stage: Stage, results: list[Result] | None = None) \
        -> tuple[dict[str, Content], Diff] | int:
    """`render --check` and `plan`: validate and render, then compare with --out (with the listing taken at the
    start, see _rendered): (files, what differs), or the exit code after printing why nothing was rendered."""
    from railfabric.emit.build import compare

    files, rc, listed, _reuse = _rendered(args, progress, stage, results)
    if files is None:
        return rc
    progress.stage(f"comparing with {args.out}/")
    diff = compare(Path(args.out), files, listed)
    progress.close()
    return files, diff


def _check(args: argparse.Namespace, progress: Progress, stage: Stage) -> int:
    """`render --check`: 0 when --out is up to date, else 3 with what differs."""
    from railfabric.emit.build import unified

    out = Path(args.out)
    compared = _compared(args, progress, stage)
    if isinstance(compared, int):
        _say_pending(out)  # named even when the inventory does not render (its exit code is not 0 either)
        return compared
    files, diff = compared
    pending = _say_pending(out)
    if diff.clean and not pending:
        print(f"{out}/ is up to date ({len(files):,} files)")
        return 0
    if diff.clean:
        print(f"{out}/ holds what the inventory renders to, as its files are now ({len(files):,} files)")
        return 3
    print(f"{out}/ is stale: {len(diff.changed)} changed, {len(diff.added)} missing, "
          f"{len(diff.removed)} extra file(s)" + (f", {len(diff.links)} symbolic link(s)" if diff.links else "")
          + "; run `make render` and commit")
    _print_links(out, diff)
    # the names come from --out's listing too (an extra file's name is whatever was committed there): log_line
    for path in diff.changed[:20]:
        print(f"  changed  {log_line(path)}")
        if path == MANIFEST:
            print(f"    ({RECORD})")
        else:
            _print_diff(unified(out, path, files[path]), 8)
    for path in diff.added[:20]:
        print(f"  missing  {log_line(path)}")
    for path in diff.removed[:20]:
        print(f"  extra    {log_line(path)}")
    return 3


def _print_links(out: Path, diff: Diff, limit: int = 20) -> None:
    """The symbolic links under `out` (each a difference: railfabric never follows one, a render replaces it)."""
    from railfabric.emit.compare import link_text

    if not diff.links:
        return
    print(f"  {len(diff.links)} symbolic link(s) in {out}/: railfabric never follows one; `fabric render` replaces "
          "each by its own files")
    for path, text in list(diff.links.items())[:limit]:
        print(f"  link     {link_text(path, text)}")
    if len(diff.links) > limit:
        print(f"  ... and {len(diff.links) - limit} more link(s)")


def _render(args: argparse.Namespace, progress: Progress, stage: Stage) -> int:
    from railfabric.emit.build import write_tree
    from railfabric.emit.compare import link_text

    if args.check:
        return _check(args, progress, stage)
    out = Path(args.out)
    _settle(out)  # before anything is read from --out
    files, rc, _listed, reuse = _rendered(args, progress, stage)
    if files is None:
        return rc
    progress.stage(f"writing {out}/ ({len(files):,} files)")
    diff = write_tree(out, files, inventory=Path(args.inventory), say=progress.note, stage=stage, since=reuse)
    progress.close()
    if diff.clean:
        print(f"{out}/ unchanged ({len(files):,} files)")
    else:
        print(f"{out}/ updated: {len(diff.changed)} changed, {len(diff.added)} added, {len(diff.removed)} removed "
              f"({len(files):,} files)" + (f"; {len(diff.links)} symbolic link(s) replaced, none followed:"
                                          if diff.links else ""))
        for path, text in list(diff.links.items())[:20]:
            print(f"  replaced link {link_text(path, text)}")
    return 0


def _settle(out: Path) -> None:
    """Complete the update an interrupted render of `out` had decided, and clear what killed renders left, under the
    output's lock (railfabric.emit.outdir.render_lock, railfabric.emit.journal), BEFORE this render reads anything from
    `out`: it then surveys the tree as the recovery left it, so nothing read before the recovery is reused. What the
    recovery did is said on stderr, -q or not."""
    from railfabric.emit.outdir import render_lock

    target = out.resolve()
    if target.parent.is_dir():
        with render_lock(target, lambda text: print(f"fabric: {text}", file=sys.stderr)):
            pass


def _say_pending(out: Path) -> bool:
    """Name each update of `out` that an interrupted render decided and did not finish (railfabric.emit.journal): the
    next render completes it first. True when there is one. Reads only."""
    from railfabric.emit.journal import unfinished
    from railfabric.emit.outdir import leftovers

    target = out.resolve()
    decided = unfinished(target, leftovers(target))
    for update in decided:
        print(update.describe(out))
    return bool(decided)


def _print_raw(results: list[Result]) -> None:
    """Which raw blocks apply to which switches, into which file (when the inventory was validated: a render that
    found nothing changed since the last one has nothing new to say of them)."""
    from railfabric.cli.raw_view import placement_lines

    for res in results:
        if res.inventory is not None and res.topology is not None:
            for line in placement_lines(res.inventory, res.topology):
                print(log_line(line))


def cmd_plan(args: argparse.Namespace) -> int:
    from railfabric.emit.outdir import check_output_dir

    check_output_dir(Path(args.out), Path(args.inventory), comparing=True)  # never a walk of a foreign tree
    with _session(args) as (progress, stage):
        return _plan(args, progress, stage)


def _plan(args: argparse.Namespace, progress: Progress, stage: Stage) -> int:
    from railfabric.emit.build import unified

    results: list[Result] = []
    compared = _compared(args, progress, stage, results)
    out = Path(args.out)
    if isinstance(compared, int):
        _say_pending(out)
        return compared
    files, diff = compared
    pending = _say_pending(out)
    _print_raw(results)
    if diff.clean and not pending:
        print(f"No changes. {out}/ matches the inventory.")
        return 0
    if diff.clean:
        print("Its files as they are now match the inventory: the render that completes the update above writes "
              "them back.")
        return 3

    def device_of(path: str) -> str | None:
        parts = path.split("/")
        return parts[1] if len(parts) > 2 and parts[0] == "configs" else None

    groups: dict[str, dict[str, list[str]]] = {}
    for kind, paths in (("added", diff.added), ("removed", diff.removed), ("changed", diff.changed)):
        for path in paths:
            dev = device_of(path) or ""
            groups.setdefault(dev, {}).setdefault(kind, []).append(path)
    devs = {d: g for d, g in groups.items() if d}
    new_devs = sorted(d for d, g in devs.items() if set(g) == {"added"})
    gone_devs = sorted(d for d, g in devs.items() if set(g) == {"removed"})
    changed_devs = sorted(set(devs) - set(new_devs) - set(gone_devs))
    print(f"Plan: {len(new_devs)} device(s) to add, {len(changed_devs)} to change, {len(gone_devs)} to remove; "
          f"{len(diff.changed) + len(diff.added) + len(diff.removed)} file(s) differ"
          + (f", {len(diff.links)} symbolic link(s) to replace." if diff.links else "."))
    _print_links(out, diff)
    for dev in new_devs:
        print(f"  + {log_line(dev)}")
    for dev in gone_devs:  # names read from --out's listing: log_line, as every name and diff line below
        print(f"  - {log_line(dev)}")
    for dev in changed_devs[: args.limit]:
        for path in sorted(p for ps in devs[dev].values() for p in ps):
            lines = unified(out, path, files.get(path))
            print(log_line(f"  ~ {dev}: {path.split('/', 2)[2]} ({_plus_minus(lines)})"))
            _print_diff(lines, 6)
    if len(changed_devs) > args.limit:
        print(f"  ... and {len(changed_devs) - args.limit} more changed device(s)")
    for path in sorted(p for ps in groups.get("", {}).values() for p in ps):
        what = RECORD if path == MANIFEST else _plus_minus(unified(out, path, files.get(path)))
        print(log_line(f"  ~ {path} ({what})"))
    return 3 if pending else 0


