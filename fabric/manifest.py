"""generated/manifest.json: what railfabric wrote and, for the next render, what it may reuse.

    {"tool": "railfabric", "version": ..., "input_sha256": ...,
     "code_sha256": ...,                                        # railfabric's whole source and templates
     "findings": n,                                             # validation findings of that render (warnings, notes)
     "findings_text": ..., "source_sha256": ...,                # only with findings: their text as printed, and the
                                                                # digest of the inventory files it was found in
     "files": {path: sha256},                                   # every file but the manifest itself
     "platforms": {platform: renderer digest},                  # fabric.digest.platform_digest
     "devices": {hostname: {"model": digest, "platform": name, "files": [path, ...]}},
     "artifacts": {name: {"inputs": digest, "files": [path, ...]}}}

Reading is forgiving by design: a manifest that is missing, corrupt, foreign or of an older layout gives an empty
Previous (nothing reusable: a full render), never an error.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from fabric import __version__
from fabric.outdir import MANIFEST

_MAX = 1 << 28  # a manifest larger than this is not ours


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
    code: str = ""  # fabric.reuse.code_sha256 of the railfabric that rendered it
    findings: int | None = None  # how many findings validation reported then (None: not recorded)
    findings_text: str = ""  # with findings: what the render printed of them (fabric.findings.format_text)
    source: str = ""  # with findings: fabric.load.Loaded.source_sha256 of the inventory they were found in


def _strs(value: object) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _entries(raw: object, key: str) -> dict[str, Entry]:
    out: dict[str, Entry] = {}
    if not isinstance(raw, dict):
        return out
    for name, e in raw.items():
        if not isinstance(e, dict):
            continue
        digest, files, platform = e.get(key), _strs(e.get("files")), e.get("platform", "")
        if isinstance(digest, str) and files is not None and isinstance(platform, str):
            out[str(name)] = Entry(digest, files, platform)
    return out


def parse(data: Any) -> Previous:
    """A Previous from a decoded manifest; anything unexpected is dropped, not trusted."""
    if not isinstance(data, dict) or data.get("tool") != "railfabric" or data.get("version") != __version__:
        return Previous()
    files = data.get("files")
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return Previous()
    platforms = data.get("platforms")
    inputs, code, findings = data.get("input_sha256"), data.get("code_sha256"), data.get("findings")
    text, source = data.get("findings_text"), data.get("source_sha256")
    return Previous(inputs=inputs if isinstance(inputs, str) else "", code=code if isinstance(code, str) else "",
                    findings=findings if isinstance(findings, int) and not isinstance(findings, bool) else None,
                    findings_text=text if isinstance(text, str) else "",
                    source=source if isinstance(source, str) else "",
                    files=dict(files),
                    platforms={k: v for k, v in platforms.items() if isinstance(v, str)}
                    if isinstance(platforms, dict) else {},
                    devices=_entries(data.get("devices"), "model"),
                    artifacts=_entries(data.get("artifacts"), "inputs"))


Identity = tuple[int, int, int, int] | None  # the manifest file's (device, inode, mtime ns, size); None: no manifest


def identity(out: Path) -> Identity:
    """Which manifest file `out` holds now: every render that changes anything replaces it (a new inode), so a
    different identity means another render wrote `out` in the meantime."""
    try:
        st = os.stat(out / MANIFEST)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size


def load(out: Path | None) -> Previous:
    """The manifest under `out`, or an empty Previous when there is none worth trusting."""
    if out is None:
        return Previous()
    try:
        with open(out / MANIFEST, "rb") as fh:
            data = orjson.loads(fh.read(_MAX))
    except (OSError, ValueError, RecursionError):
        return Previous()
    return parse(data)


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
    fast = orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
    if fast.isascii():  # the same bytes as json.dumps(indent=2, sort_keys=True), 18x faster (7.6 MB at 65K GPUs)
        return fast
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode()  # json escapes non-ASCII, orjson does not


