"""The vendor-schema check of rendered files held in memory (path under generated/ → bytes), for tests that build
files without writing them: each switch's files on a platform with a vendor schema (PLATFORMS[p].schema_check)
against the schema of the release its host_vars name (fabric verify does the same on a written tree)."""

from __future__ import annotations

from pathlib import Path

from railfabric.core import safe_yaml
from railfabric.platforms import PLATFORMS
from railfabric.verify.run import schema_check


def vendor_schema_problems(files: dict[str, bytes]) -> list[str]:
    """'<file>: <violation>' for every violation; [] when every checkable file passes."""
    out: list[str] = []
    for path, body in sorted(files.items()):
        if not path.startswith("ansible/host_vars/"):
            continue
        hv = safe_yaml.load(body)
        check = schema_check(hv["platform"])
        if check is None:
            continue
        release = hv.get("release") or PLATFORMS[hv["platform"]].default_release
        for name in hv["config_files"]:
            rel = f"configs/{Path(path).stem}/{name}"
            out += [f"{rel} ({release}): {p}" for p in check(files[rel].decode("utf-8"), release)]
    return out
