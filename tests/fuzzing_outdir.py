"""Fuzz classes for the output directory and the process's stdout (issue 28): what a hostile pull request can commit
into generated/ and how a CI gate runs the tool. Seeded like tests/fuzzing.py; tests/test_fuzz.py runs them.

- symlinks: an entry of the output directory (a file or a directory, at any depth) or a new name beside them is
  replaced by a symlink to a victim outside it (a directory holding a copy of what was there plus a sentinel, or a
  file with the right content). Invariants: the victim is byte-identical afterwards whatever `render` and
  `render --check` do, `--check` never calls such a tree up to date, no internal error.
- manifests: generated/manifest.json replaced by deep nesting, wrong types, garbage bytes, a huge file, or the real
  manifest with warning text that speaks (terminal escapes, CI workflow commands on their own lines). Invariants: no
  internal error, no control character and no line starting a workflow command (`::`) in anything printed, and
  `render` renders into its own directory (exit 0, then `--check` clean).
- closed stdout: a command's exit status is the same whether its stdout is a terminal-less file, a closed
  descriptor, a pipe whose reader is gone, or `| head -1` under pipefail.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from railfabric.cli import main

# what a printed line must not hold: C0 controls but newline and tab, DEL, C1, the Unicode line separators
PRINTED_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
WORKFLOW_COMMAND = re.compile(r"^\s*::[a-z-]+")


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under `root` (not following links): a file's bytes, a link's target, a directory's marker."""
    out: dict[str, bytes | str] = {}
    if not root.exists() and not root.is_symlink():
        return out
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = "link:" + os.readlink(p)
            elif p.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = p.read_bytes()
    return out


def run_cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(args)
    return rc, out.getvalue(), err.getvalue()


def printed_problems(text: str, what: str) -> list[str]:
    problems = []
    if "internal error" in text or "Traceback" in text:
        problems.append(f"{what}: internal error: {text.strip()[-300:]}")
    bad = PRINTED_CONTROL.search(text)
    if bad:
        problems.append(f"{what}: prints control character U+{ord(bad.group()):04X}")
    for line in text.splitlines():
        if WORKFLOW_COMMAND.match(line):
            problems.append(f"{what}: prints a line that starts a CI workflow command: {line[:60]!r}")
            break
    return problems


# --------------------------------------------------------------------------- symlinks into a victim


def plant_symlink(rnd: random.Random, out: Path, victim: Path) -> str:
    """Replace one entry of `out` (or add a name) by a symlink into `victim`; returns what was done."""
    entries = sorted(p for p in out.rglob("*") if not p.is_symlink())
    target = rnd.choice(entries)
    how = rnd.choice(["replace", "replace", "beside"])
    victim.mkdir(parents=True)
    (victim / "sentinel.txt").write_text("the victim's own file\n")
    if how == "beside":  # a new name inside an existing directory
        parent = target if target.is_dir() else target.parent
        link = parent / "rfz-link"
        link.symlink_to(victim, target_is_directory=True)
        return f"new link {link.relative_to(out)} -> victim dir"
    rel = target.relative_to(out)
    if target.is_dir():
        shutil.copytree(target, victim / "copy")
        shutil.rmtree(target)
        target.symlink_to(victim / "copy", target_is_directory=True)
        return f"directory {rel} -> victim copy (depth {len(rel.parts)})"
    (victim / "copy").write_bytes(target.read_bytes())  # the right content: --check must still not pass it
    target.unlink()
    target.symlink_to(victim / "copy")
    return f"file {rel} -> victim file with the right content (depth {len(rel.parts)})"


# --------------------------------------------------------------------------- hostile manifests


def hostile_manifest(rnd: random.Random, real: dict, source_sha256: str) -> tuple[bytes, str]:
    """manifest.json bytes that are deep, wrong, garbage, huge or speak; and what they are."""
    kind = rnd.choice(["deep", "wrong-type", "wrong-leaf", "garbage", "huge", "speaks", "speaks"])
    if kind == "deep":
        depth = rnd.choice((1000, 100_000))
        opener, closer = rnd.choice((("[", "]"), ('{"a":', "}")))
        return (opener * depth + "1" + closer * depth).encode(), f"deep {depth}"
    if kind == "wrong-type":
        value = rnd.choice([[], "x", None, 5, 1e308, True, {"files": 5}, {"files": {"a": 1}, "devices": []},
                            {"files": None, "artifacts": "x", "findings": "many"}, {"version": {"a": []}}])
        return json.dumps(value).encode(), f"wrong type {json.dumps(value)[:40]}"
    if kind == "wrong-leaf":
        doc = json.loads(json.dumps(real))
        section = rnd.choice(sorted(k for k in doc if isinstance(doc[k], dict) and doc[k]))
        key = rnd.choice(sorted(doc[section]))
        doc[section][key] = rnd.choice([None, 5, [], {"x": 1}, "../../etc/passwd", "\x1b[2J", -1, 2**70])
        return json.dumps(doc).encode(), f"wrong leaf {section}.{key}"
    if kind == "garbage":
        raw = bytes(rnd.randrange(256) for _ in range(rnd.choice((1, 64, 4096))))
        return raw, "garbage bytes"
    if kind == "huge":
        return b"{" + b" " * (8 * 1024 * 1024) + b"}", "huge (8 MiB)"
    payload = rnd.choice([
        "\x1b[2J\x1b[31mRFZ\x1b[0m", "ok\n::error::RFZ", "x\n::add-mask::RFZ\n", "\x1b]0;RFZ\x07", "a\rRFZ",
        "::warning file=x::RFZ", "\u2028::error::RFZ", "\x9b31mRFZ", "line\n  ::set-output name=x::RFZ"])
    doc = json.loads(json.dumps(real))
    doc.update(findings=1, findings_text=payload, source_sha256=source_sha256)
    return json.dumps(doc).encode(), f"speaks {payload!r}"


# --------------------------------------------------------------------------- closed stdout


def fabric_argv() -> list[str]:
    return [sys.executable, "-m", "railfabric.cli"]


def exit_codes_with_stdout_gone(args: list[str], cwd: Path) -> dict[str, int]:
    """The exit status of `fabric ARGS` with stdout a file, closed, a pipe without reader, and `| head -1`."""
    cmd = fabric_argv() + args
    codes: dict[str, int] = {}
    with open(os.devnull, "wb") as devnull:
        codes["file"] = subprocess.run(cmd, cwd=cwd, stdout=devnull, stderr=subprocess.DEVNULL,
                                       timeout=120).returncode
    codes["closed"] = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     timeout=120, preexec_fn=lambda: os.close(1)).returncode
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first write: every write is EPIPE
    try:
        codes["no-reader"] = subprocess.run(cmd, cwd=cwd, stdout=w, stderr=subprocess.DEVNULL,
                                            timeout=120).returncode
    finally:
        os.close(w)
    quoted = " ".join(_sh(a) for a in cmd)
    codes["head"] = subprocess.run(["bash", "-c", f"set -o pipefail; {quoted} 2>/dev/null | head -1 >/dev/null"],
                                   cwd=cwd, timeout=120).returncode
    return codes


def _sh(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"
