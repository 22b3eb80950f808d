"""Writing one file the user names (outside generated/: e.g. `fabric impact --emit-waves FILE`): all or nothing,
through a temporary file in the same directory renamed over the target, so a reader never sees half a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_one(path: Path, text: str) -> None:
    """Write `text` (UTF-8) to `path` atomically; OSError when the directory is not writable (nothing written)."""
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
