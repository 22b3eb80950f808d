"""How the NVUE play reaches the stand-in: the play runs bare `nv`, `vtysh` and `lldpctl` (as on a switch), so each
switch gets a directory of small wrapper executables with those names that exec standin.py with its host name, and
Ansible's per-host `ansible_python_interpreter` is a wrapper that puts that directory first on PATH before it
starts Python. Every module of the play (command, shell, copy, file) runs under that interpreter with the local
connection, so its commands find the switch's own `nv`; nothing in the play changes, and the host name travels in
the inventory alone (one wrapper directory per host: no environment variable the play would have to pass on)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

STANDIN = Path(__file__).resolve().parent / "standin.py"
COMMANDS = ("nv", "vtysh", "lldpctl")


def _script(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def wrappers(state: Path, host: str, fail: str = "") -> Path:
    """state/bin/<host>/{nv,vtysh,lldpctl,python}; returns the python wrapper (the host's interpreter)."""
    d = state / "bin" / host
    d.mkdir(parents=True, exist_ok=True)
    base = [sys.executable, str(STANDIN), "--state", str(state), "--host", host] + (["--fail", fail] if fail else [])
    for name in COMMANDS:
        _script(d / name, f'exec {shlex.join([*base, name])} "$@"')
    _script(d / "python", f'PATH={shlex.quote(str(d))}:"$PATH"; export PATH\nexec {shlex.quote(sys.executable)} "$@"')
    return d / "python"


def host_vars(state: Path, host: str, fail: str = "", **extra: Any) -> dict[str, Any]:
    """Host variables that run one switch's tasks locally against the stand-in (no become, no SSH); the copied
    configuration file goes to the switch's state directory (nvue_tmp_dir)."""
    return {"ansible_connection": "local", "ansible_become": False,
            "ansible_python_interpreter": str(wrappers(state, host, fail)),
            "nvue_tmp_dir": str(state / host), **extra}
