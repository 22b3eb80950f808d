"""The vendor-schema check of rendered files held in memory (path under generated/ → bytes), for tests that build
files without writing them: each switch's files on a platform with a vendor schema (PLATFORMS[p].schema_check)
against the schema of the release its host_vars name (fabric verify does the same on a written tree)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import yaml

from fabric.platforms import PLATFORMS
from fabric.verify.run import schema_check


def vendor_schema_problems(files: dict[str, bytes]) -> list[str]:
    """'<file>: <violation>' for every violation; [] when every checkable file passes."""
    out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for path, body in sorted(files.items()):
            if not path.startswith("ansible/host_vars/"):
                continue
            hv = yaml.safe_load(body)
            check = schema_check(hv["platform"])
            if check is None:
                continue
            release = hv.get("release") or PLATFORMS[hv["platform"]].default_release
            for name in hv["config_files"]:
                rel = f"configs/{Path(path).stem}/{name}"
                file = Path(tmp) / rel
                file.parent.mkdir(parents=True, exist_ok=True)
                file.write_bytes(files[rel])
                out += [f"{rel} ({release}): {p}" for p in check(file, release)]
    return out
