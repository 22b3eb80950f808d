"""`fabric ib bind`: a discovered fabric (a file of `ibnetdiscover` output) bound to the plan, and the files OpenSM
then reads, named as the rendered opensm.conf names them under /etc/opensm/ (railfabric.infiniband.opensm_conf
Paths): root-guids.conf, cn-guids.conf and the GUID-bound partitions.conf.

`bind_discovered` reads and binds, `bound_files` makes the texts (the existing writers: Binding.root_file /
cn_file, partitions.partitions_conf), `write_files` writes them into a directory: every file first to a temporary
name in that directory, then each renamed over its destination (rename(2) within one directory is atomic: a reader
sees the old file or the new one); nothing else in the directory is touched, and a failure before the renames
leaves the directory as it was.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from railfabric.infiniband.binding import Binding, bind
from railfabric.infiniband.discovery import ParseError, parse
from railfabric.infiniband.model import IbFabric
from railfabric.infiniband.partitions import partitions_conf

ROOT_FILE, CN_FILE, PARTITIONS_FILE = "root-guids.conf", "cn-guids.conf", "partitions.conf"
MAX_BYTES = 256 * 1024 * 1024  # ibnetdiscover of a 10,000-node fabric is a few MB; more is not its output


class BindInputError(ValueError):
    """The discovered file cannot be read or is not ibnetdiscover output (exit 2)."""


@dataclass(frozen=True, slots=True)
class Bound:
    binding: Binding | None  # None: the discovered fabric differs from the plan
    differences: tuple[str, ...]
    switches: int  # discovered
    hcas: int


def bind_discovered(fab: IbFabric, path: Path) -> Bound:
    """Read `path` (ibnetdiscover's output) and bind it to `fab`."""
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise BindInputError(f"{path} is not a file")
        if size > MAX_BYTES:
            raise BindInputError(f"{path} is {size} bytes: not ibnetdiscover output (at most {MAX_BYTES})")
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise BindInputError(f"{path} is not text (byte {e.start} is not UTF-8): not ibnetdiscover output") from e
    except OSError as e:
        raise BindInputError(f"cannot read {path}: {e.strerror or e}") from e
    try:
        disc = parse(text)
    except ParseError as e:
        raise BindInputError(f"{path}: not consistent ibnetdiscover output: {e}") from e
    if not disc.nodes:
        raise BindInputError(f"{path} holds no node ('Switch', 'Ca' or 'Rt' header line with a GUID and a node "
                             "description): is it the output of `ibnetdiscover` (no options)?")
    res = bind(fab, disc)
    kinds = [n.kind for n in disc.nodes.values()]
    return Bound(res.binding, res.differences, kinds.count("Switch"), kinds.count("Ca"))


def bound_files(fab: IbFabric, b: Binding) -> dict[str, str]:
    """File name → text: the root and compute-node GUID files and the GUID-bound partitions.conf."""
    return {ROOT_FILE: b.root_file(fab), CN_FILE: b.cn_file(fab), PARTITIONS_FILE: partitions_conf(fab, b.port_guids)}


def write_files(out: Path, files: dict[str, str]) -> list[Path]:
    """Write `files` into `out` (created if missing) atomically; returns the paths written. Raises OSError with
    nothing renamed when a temporary file cannot be written."""
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{out} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    temps: dict[str, Path] = {}
    try:
        for name, text in sorted(files.items()):
            tmp = out / f".{name}.railfabric-{os.getpid()}.tmp"
            temps[name] = tmp
            with open(tmp, "x", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
    except OSError:
        for tmp in temps.values():
            with contextlib.suppress(OSError):
                tmp.unlink()
        raise
    for name, tmp in temps.items():
        os.replace(tmp, out / name)
    return [out / name for name in temps]
