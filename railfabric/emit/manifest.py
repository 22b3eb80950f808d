"""generated/manifest.json: what railfabric wrote and, for the next render, what it may reuse.

    {"tool": "railfabric", "version": ..., "input_sha256": ...,
     "code_sha256": ...,                                        # railfabric's whole source and templates
     "findings": n,                                             # validation findings of that render (warnings, notes)
     "findings_text": ..., "source_sha256": ...,                # only with findings: their text as printed, and the
                                                                # digest of the inventory files it was found in
     "files": {path: sha256},                                   # every file but the manifest itself
     "platforms": {platform: renderer digest},                  # railfabric.outputs.digest.platform_digest
     "devices": {hostname: {"model": digest, "platform": name, "files": [path, ...]}},
     "artifacts": {name: {"inputs": digest, "files": [path, ...]}}}

Reading is forgiving by design: a manifest that is missing, corrupt, foreign or of an older layout gives an empty
Previous (nothing reusable: a full render), never an error. Whoever can commit to generated/ (a fork's pull request)
writes this file, so it is read as hostile data:
- it is opened without following a symbolic link and without blocking (a FIFO), read only when it is a regular file
  of at most MAX_BYTES (64 MiB; the manifest of a 65,536-GPU fabric is 7.6 MB), and decoded by orjson, which refuses
  invalid UTF-8, NaN and Infinity, and nesting deeper than 1,024 levels (an error, not a RecursionError);
- a manifest of this version is trusted only as railfabric writes it: byte for byte its own canonical encoding (so a
  key defined twice, a number out of range or a hand edit is not trusted) with every field of its type;
- the findings text it holds is printed again by render, render --check and plan (railfabric.emit.reuse): it goes
  through railfabric.core.textsafe.log_text first, so it can hold no control character and no line a CI runner reads as
  a command.
A manifest of this version that fails any of these gives an empty Previous whose `problem` says why: the commands
print it as a warning and render everything afresh.

`marks_owner` decides whether a directory is railfabric's to replace (railfabric.emit.outdir.owned): a readable manifest
that says `"tool": "railfabric"`, or a damaged one (unreadable, not JSON, not a mapping, no tool named) in a directory
that holds nothing but what a render writes at its top (OUTPUT_ROOTS, `configs/` among them; dot files aside): a corrupt
manifest must not lock railfabric out of its own directory. A manifest naming another tool is someone else's.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from railfabric import __version__
from railfabric.core.text import one_line
from railfabric.core.textsafe import log_text

MANIFEST = "manifest.json"  # the record of a render, at the top of its output directory

MAX_BYTES = 64 << 20  # a manifest larger than this is not read (a render's is 7.6 MB at 65,536 GPUs)
# What a render writes at the top of its directory (railfabric.outputs; tests/test_manifest_hostile.py checks the
# example)
OUTPUT_ROOTS = frozenset({"ansible", "cabling.csv", "configs", "docs", "expected", "hosts", "ipplan.csv", MANIFEST,
                          "report.json"})


@dataclass(frozen=True, slots=True)
class Entry:
    """What produced a group of files (a device or an artifact): its digest and the files it wrote."""
    digest: str
    files: tuple[str, ...]
    platform: str = ""


@dataclass(slots=True)
class Previous:
    """The last render's manifest, as far as it can be trusted."""
    files: dict[str, str] = field(default_factory=dict)
    platforms: dict[str, str] = field(default_factory=dict)
    devices: dict[str, Entry] = field(default_factory=dict)
    artifacts: dict[str, Entry] = field(default_factory=dict)
    inputs: str = ""  # the inventory's canonical digest
    code: str = ""  # railfabric.emit.reuse.code_sha256 of the railfabric that rendered it
    findings: int | None = None  # how many findings validation reported then (None: not recorded)
    findings_text: str = ""  # with findings: what the render printed of them (railfabric.core.formats.format_text)
    # with findings: railfabric.inventory.load.Loaded.source_sha256 of the inventory they were found in
    source: str = ""
    problem: str = ""  # why a manifest of this version is not trusted ("" when it is, or there is none)


def _strs(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _str_map(value: object) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _entries_ok(value: object, key: str) -> bool:
    return isinstance(value, dict) and all(
        isinstance(e, dict) and isinstance(e.get(key), str) and _strs(e.get("files"))
        and isinstance(e.get("platform", ""), str) for e in value.values())


def _wrong_field(data: dict[str, Any]) -> str | None:
    """The first field of a manifest of this version that is missing or not of its type, or None."""
    checks: list[tuple[str, bool]] = [
        ("input_sha256", isinstance(data.get("input_sha256"), str)),
        ("code_sha256", isinstance(data.get("code_sha256"), str)),
        ("findings", isinstance(data.get("findings"), int) and not isinstance(data.get("findings"), bool)),
        ("findings_text", isinstance(data.get("findings_text", ""), str)),
        ("source_sha256", isinstance(data.get("source_sha256", ""), str)),
        ("files", _str_map(data.get("files"))),
        ("platforms", _str_map(data.get("platforms"))),
        ("devices", _entries_ok(data.get("devices"), "model")),
        ("artifacts", _entries_ok(data.get("artifacts"), "inputs")),
    ]
    return next((name for name, ok in checks if not ok), None)


def _entries(raw: dict[str, Any], key: str) -> dict[str, Entry]:
    return {name: Entry(e[key], tuple(e["files"]), e.get("platform", "")) for name, e in raw.items()}


def parse(data: Any) -> Previous:
    """A Previous from a decoded manifest: empty for a foreign one or one of another version; empty with a
    `problem` for one of this version with a field missing or of the wrong type."""
    if not isinstance(data, dict) or data.get("tool") != "railfabric" or data.get("version") != __version__:
        return Previous()
    wrong = _wrong_field(data)
    if wrong is not None:
        return Previous(problem=f"has no valid {wrong!r} field")
    return Previous(inputs=data["input_sha256"], code=data["code_sha256"], findings=data["findings"],
                    findings_text=log_text(data.get("findings_text", "")), source=data.get("source_sha256", ""),
                    files=dict(data["files"]), platforms=dict(data["platforms"]),
                    devices=_entries(data["devices"], "model"), artifacts=_entries(data["artifacts"], "inputs"))


Identity = tuple[int, int, int, int] | None  # the manifest file's (device, inode, mtime ns, size); None: no manifest


def identity(out: Path) -> Identity:
    """Which manifest file `out` holds now: every render that changes anything replaces it (a new inode), so a
    different identity means another render wrote `out` in the meantime."""
    try:
        st = os.stat(out / MANIFEST)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size


def read(out: Path) -> tuple[Any, bytes, str]:
    """The manifest under `out` as (decoded document, its bytes, problem): (None, b"", "") when there is none,
    (None, bytes, why) when it cannot be read or decoded (see the module docstring)."""
    try:
        fd = os.open(out / MANIFEST, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None, b"", ""
    except OSError as exc:
        why = "is a symbolic link" if exc.errno == errno.ELOOP else f"cannot be read ({exc.strerror})"
        return None, b"", why
    with open(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, b"", "is not a regular file"
        if st.st_size > MAX_BYTES:
            return None, b"", f"is larger than {MAX_BYTES >> 20} MiB ({st.st_size:,} bytes): not read"
        try:
            raw = fh.read(MAX_BYTES + 1)
        except OSError as exc:
            return None, b"", f"cannot be read ({exc.strerror})"
    if len(raw) > MAX_BYTES:
        return None, b"", f"is larger than {MAX_BYTES >> 20} MiB: not read"
    try:
        return orjson.loads(raw), raw, ""
    except orjson.JSONDecodeError as exc:
        return None, raw, f"is not valid JSON ({one_line(str(exc), 200)})"


def load(out: Path | None) -> Previous:
    """The manifest under `out`, or an empty Previous when there is none worth trusting (with the reason in its
    `problem` when it is damaged or of this version but not as railfabric writes it)."""
    if out is None:
        return Previous()
    data, raw, problem = read(out)
    if problem:
        return Previous(problem=problem)
    if data is not None and not (isinstance(data, dict) and isinstance(data.get("tool"), str)):
        return Previous(problem="does not name the tool that wrote it")
    previous = parse(data)
    if previous.inputs and _encode(data) != raw:
        return Previous(problem="is not as railfabric writes it (edited by hand, a key written twice, or a number "
                                "out of range)")
    return previous


def marks_owner(out: Path) -> bool:
    """Is `out` railfabric's output directory (see the module docstring)?"""
    data, _raw, problem = read(out)
    if isinstance(data, dict) and data.get("tool") == "railfabric":
        return True
    if not problem and (data is None or (isinstance(data, dict) and isinstance(data.get("tool"), str))):
        return False  # no manifest, or another tool's
    return _only_outputs(out)


def _only_outputs(out: Path) -> bool:
    """Does `out` hold nothing but what a render writes at its top, `configs/` (a real directory) among it? Dot
    files are not looked at: a render keeps them as they are (.gitkeep, .gitattributes: railfabric.emit.write)."""
    try:
        with os.scandir(out) as it:
            entries = {e.name: e for e in it if not e.name.startswith(".")}
        configs = entries.get("configs")
        return set(entries) <= OUTPUT_ROOTS and configs is not None and configs.is_dir(follow_symlinks=False)
    except OSError:
        return False


def document(version_fields: dict[str, object], files: dict[str, str], platforms: dict[str, str],
             devices: dict[str, Entry], artifacts: dict[str, Entry]) -> bytes:
    """The manifest's bytes (sorted keys, one trailing newline: byte-identical for the same render)."""
    doc: dict[str, Any] = {
        **version_fields,
        "files": dict(sorted(files.items())),
        "platforms": dict(sorted(platforms.items())),
        "devices": {h: {"model": e.digest, "platform": e.platform, "files": list(e.files)}
                    for h, e in sorted(devices.items())},
        "artifacts": {n: {"inputs": e.digest, "files": list(e.files)} for n, e in sorted(artifacts.items())},
    }
    return _encode(doc)


def _encode(doc: object) -> bytes:
    """A manifest's canonical bytes: what `document` writes, and what `load` trusts."""
    try:
        fast = orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
    except orjson.JSONEncodeError:  # a decoded manifest holds nothing orjson cannot encode; never trusted if it did
        return b""
    if fast.isascii():  # the same bytes as json.dumps(indent=2, sort_keys=True), 18x faster (7.6 MB at 65K GPUs)
        return fast
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode()  # json escapes non-ASCII, orjson does not


