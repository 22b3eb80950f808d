"""The `fabric` command: `main` (parse, dispatch, turn errors into messages and exit codes). The parser is in
railfabric/cli/parser.py, render and plan in railfabric/cli/render.py, the other commands in railfabric/cli/commands.py;
their names are exported here too (`railfabric.cli.build_parser`, `railfabric.cli.cmd_validate`, ...)."""

from __future__ import annotations

import gc
import os
import sys
import traceback

from railfabric.cli import render as cli_render
from railfabric.cli.commands import (
    cmd_explain,
    cmd_lab,
    cmd_report,
    cmd_schema,
    cmd_show,
    cmd_size,
    cmd_validate,
    cmd_verify,
)
from railfabric.cli.parser import EPILOG, build_parser
from railfabric.cli.render import cmd_plan, cmd_render
from railfabric.core.heap import keep_freed_memory
from railfabric.core.streams import guard
from railfabric.core.textsafe import log_line
from railfabric.emit.outdir import OutputRefused

__all__ = ["EPILOG", "build_parser", "cmd_explain", "cmd_lab", "cmd_plan", "cmd_render", "cmd_report", "cmd_schema",
           "cmd_show", "cmd_size", "cmd_validate", "cmd_verify", "main", "os_error_text"]


def os_error_text(exc: OSError) -> str:
    """One line: the path(s), the errno text and its symbolic name."""
    import errno

    name = errno.errorcode.get(exc.errno or 0, "")
    what = exc.strerror or str(exc)
    paths = " -> ".join(str(p) for p in (exc.filename, exc.filename2) if p is not None)
    return f"{paths + ': ' if paths else ''}{what}{f' ({name})' if name else ''}"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except OutputRefused as exc:
        print(f"fabric: refused: {exc}; nothing was written", file=sys.stderr)
        return 2
    except OSError as exc:  # the environment (read-only, disk full, permission denied), not a bug
        if args.debug:
            traceback.print_exc()
        print(f"fabric: {log_line(os_error_text(exc))}", file=sys.stderr)  # a path may be a name read from --out
        return 2
    except Exception as exc:  # an internal error must still be a clear message, never a bare traceback
        if args.debug:
            traceback.print_exc()
        print(log_line(f"fabric: internal error: {type(exc).__name__}: {exc} (rerun with --debug and report it)"),
              file=sys.stderr)
        return 2


def run() -> None:
    """The `fabric` console script (and `python -m railfabric.cli`): main(), then leave at once. After a render of a
    large fabric the process holds millions of objects; freeing them one by one at exit decides nothing (every file
    is closed, every worker joined and the staging directory gone by then) and costs about 0.2 s at 65,536 GPUs, so
    once the output is flushed the process ends with os._exit; for the same reason a render keeps what it built
    until then (railfabric.cli.render.UNTIL_EXIT) instead of freeing it as it returns. Not under a profiler, tracer or
    coverage tool: those write their results at exit.

    The cyclic garbage collector is off for the whole command. A render builds millions of small objects without
    reference cycles, and the library pauses the collector while it builds them; once it is enabled again, the first
    young-generation pass walks every one of them (0.4 s at 65,536 GPUs) and frees nothing. A command is one short
    process whose objects die with it, so reference counting alone frees what it must.

    For the same short life, malloc keeps what is freed for reuse instead of handing it back to the kernel
    (railfabric.core.heap: a quarter fewer page faults in a render at 131,072 GPUs).

    stdout and stderr are guarded first (railfabric.core.streams): a reader that goes away (`| head -1`) silences the
    command, never changes its exit code."""
    guard()
    gc.disable()
    keep_freed_memory()
    cli_render.UNTIL_EXIT = []  # nothing a render built is freed before the process ends (below)
    rc = main()
    if _instrumented():
        sys.exit(rc)
    try:
        sys.stdout.flush()  # guarded: a closed pipe is silenced, not raised
        sys.stderr.flush()
    except OSError:  # another failure (EIO, ENOSPC on a redirect): nothing more can be said
        pass
    os._exit(rc)


def _instrumented() -> bool:
    """Is a profiler, tracer or coverage tool (sys.monitoring, Python 3.12+) watching this process?"""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)
    return monitoring is not None and any(monitoring.get_tool(tool) is not None for tool in range(6))


if __name__ == "__main__":
    run()
