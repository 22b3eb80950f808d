"""Which files are the inventory, and reading them safely: the directory walk (hidden entries skipped, symlinks
kept inside the inventory directory, dangling ones reported), the size limits per file and for all files together
(checked from stat before anything is read), and a read that never follows a link swapped in since the walk.

Nothing outside the inventory directory is ever read, so no finding can quote it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from railfabric.core.finding import Finding
from railfabric.core.source_map import Location
from railfabric.core.textsafe import quote

MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_TOTAL_BYTES = 16 * 1024 * 1024  # all files together: checked before any file is parsed
YAML_SUFFIXES = (".yml", ".yaml")


def display_path(p: Path) -> str:
    """A path as users typed it: relative to the working directory when below it."""
    try:
        return os.path.relpath(p) if p.is_absolute() and Path.cwd() in p.parents else str(p)
    except ValueError:
        return str(p)


def scan(root: Path, findings: list[Finding]) -> list[Path]:
    """The inventory files: `root` itself when it is not a directory, else its .yml/.yaml files (hidden entries
    skipped) in path order. Symlinks must stay inside the inventory directory (LOAD012) and .yml symlinks must
    have a target (LOAD013); a symlinked directory inside it is not entered (its files load from where they are)."""
    if not root.is_dir():
        return [root]
    files: list[Path] = []
    _walk(root, Path(os.path.realpath(root)), files, findings)
    return files


def _walk(directory: Path, real_root: Path, files: list[Path], findings: list[Finding]) -> None:
    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        findings.append(Finding("LOAD008", f"cannot read directory: {exc.strerror}", Location(display_path(directory)),
                                fatal=True))
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = directory / entry.name
        is_yaml = path.suffix.lower() in YAML_SUFFIXES
        if entry.is_symlink():
            if _link_ok(path, real_root, is_yaml, findings) and is_yaml and path.is_file():
                files.append(path)
        elif entry.is_dir(follow_symlinks=False):
            _walk(path, real_root, files, findings)
        elif is_yaml:
            files.append(path)  # not a regular file (FIFO, device): refused when it is opened


def _link_ok(link: Path, real_root: Path, is_yaml: bool, findings: list[Finding]) -> bool:
    """Whether the symlink `link` may be followed; a finding at the link when it is an inventory entry that may not.
    The target is named (bounded) but never read."""
    target = Path(os.path.realpath(link))
    shown = quote(os.readlink(link), 80)
    if not target.exists():
        if is_yaml:
            findings.append(Finding("LOAD013", f"symlink to {shown}, which does not exist",
                                    Location(display_path(link)),
                                    "restore the target or delete the link: part of the inventory is missing",
                                    fatal=True))
        return False
    if target != real_root and real_root not in target.parents:
        if is_yaml or target.is_dir():
            findings.append(Finding("LOAD012", f"symlink to {shown}, outside the inventory directory",
                                    Location(display_path(link)),
                                    "copy the file into the inventory directory instead of linking to it",
                                    fatal=True))
        return False
    return True


def read_file(path: Path, name: str, findings: list[Finding]) -> bytes | None:
    """The file's bytes, read through its real path without following a symlink swapped in since the scan, and
    never more than MAX_FILE_BYTES + 1 of them; None (and a finding) when it cannot be used."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(os.path.realpath(path), flags)
    except OSError as exc:
        findings.append(Finding("LOAD008", f"cannot read file: {exc.strerror}", Location(name), fatal=True))
        return None
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            findings.append(Finding("LOAD014", "not a regular file (a FIFO, socket or device)", Location(name),
                                    "inventory files are plain YAML files", fatal=True))
            return None
        if info.st_size > MAX_FILE_BYTES:
            findings.append(_too_large(name, info.st_size))
            return None
        raw = fh.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        findings.append(_too_large(name, len(raw)))
        return None
    return raw


def _too_large(name: str, size: int) -> Finding:
    return Finding("LOAD011", f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}",
                   Location(name, 1, 1), "split the inventory into several files", fatal=True)


def over_budget(files: list[Path], root: Path) -> Finding | None:
    """LOAD015 when the files hold more than MAX_TOTAL_BYTES together (sizes from stat: nothing is read)."""
    total = 0
    for path in files:
        try:
            total += os.stat(path).st_size
        except OSError:
            continue  # reported when the file is read
    if total <= MAX_TOTAL_BYTES:
        return None
    return Finding("LOAD015", f"the {len(files)} inventory files hold {total:,} bytes together; the limit is "
                   f"{MAX_TOTAL_BYTES:,}", Location(display_path(root)),
                   "an inventory is a few files of patterns and overrides: check that this is the right directory",
                   fatal=True)
