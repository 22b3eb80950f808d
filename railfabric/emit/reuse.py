"""What an incremental render may take from an earlier one (the output directory and its manifest.json).

Two levels, both keyed on digests so that nothing stale is ever served:
- per device and per artifact part (railfabric/emit/build.py): a device's files are reused when its model digest and its
  platform's renderer digest match the manifest (railfabric.outputs.digest), an artifact part's when its input digest
  does;
- the whole run (`Reuse.unchanged`): when the inventory's canonical digest, railfabric's whole source and templates
  (`code_sha256`) and the version all match the manifest, and every file it wrote is intact with nothing added, the
  output is already what this render would write. Validation and the device models are then skipped too: they are
  pure functions of the same inputs, so they would find the same and build the same models. When the earlier render
  had findings (warnings, notes), their text is printed again as recorded, which needs the inventory's files to be
  byte for byte the ones it read, under the same names (`Loaded.source_sha256`): a comment added above a warning
  moves its line without changing the inventory's meaning. Any difference (one byte of inventory meaning, one
  edited source file, a finding's text that could differ) takes the incremental path instead, which is always
  correct on its own.
In both cases a file is reused only when it still hashes to the sha256 the manifest recorded (railfabric.emit.intact).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from railfabric.emit import manifest
from railfabric.emit.intact import Listing, Verification
from railfabric.emit.outdir import MANIFEST
from railfabric.emit.staging import OnDisk
from railfabric.inventory.load import Loaded
from railfabric.outputs import digest
from railfabric.outputs.digest import FABRIC, code_closure, combine, data_digest, files_digest, tool_digest, tree_files


@dataclass(frozen=True, slots=True)
class Kept(OnDisk):
    """A file the last render wrote and this one would write byte for byte (its producer's digest matched the
    manifest and the file on disk still has the recorded sha256)."""


@cache
def code_sha256() -> str:
    """Digest of everything a render runs: railfabric's version, every template, and the source of the pipeline and
    the emit stage with every railfabric module they import (followed statically,
    railfabric.outputs.digest.code_closure), plus every platform module (the registry imports those by name), and the
    files artifacts copy verbatim (Ansible filter plugins). Computed once per process. The lab, the CLI and the other
    commands are not part of it: editing them does not invalidate an output."""
    from railfabric.outputs.parts import DATA_FILES

    roots = [FABRIC / "pipeline.py", FABRIC / "emit" / "build.py", *sorted((FABRIC / "platforms").glob("*.py")),
             *sorted((FABRIC / "configs").rglob("*.py"))]
    return combine([tool_digest(), files_digest(code_closure(*roots)),
                    files_digest(tree_files(digest.TEMPLATES), digest.TEMPLATES),
                    data_digest(DATA_FILES)])


class Reuse:
    """An earlier render in `out` (None: a full render, nothing reused): its manifest, and the hashing of its files,
    started at once in the background (railfabric.emit.intact)."""

    def __init__(self, out: Path | None, background: bool = True) -> None:
        self.out = out
        self.seen = manifest.identity(out) if out is not None else None  # before reading it: see write_tree's `since`
        self.previous = manifest.load(out)
        self.verification = Verification.start(out, self.previous.files, background)
        self.loaded: Loaded | None = None  # the inventory, when `unchanged` loaded it (the pipeline need not again)

    def kept(self, paths: Iterable[str]) -> dict[str, Kept] | None:
        """Every one of `paths` as Kept when all are intact, else None."""
        if self.out is None:
            return None
        intact = self.verification.result()
        base = os.path.realpath(self.out)  # as railfabric.emit.intact.listing and the writer name them
        found: dict[str, Kept] = {}
        for path in paths:
            size = intact.get(path)
            if size is None:
                return None
            found[path] = Kept(self.previous.files[path], size, os.path.join(base, path))
        return found

    def unchanged(self, inventory: Path) -> dict[str, Kept] | None:
        """Every file of the earlier render (the manifest included) when this run would write exactly them (see the
        module docstring), else None."""
        prev = self.previous
        if self.out is None or prev.findings is None or not prev.inputs or prev.code != code_sha256():
            return None
        if prev.findings and not (prev.findings_text and prev.source):  # findings it cannot show again
            return None
        if self._inventory_digest(inventory) != prev.inputs:
            return None
        if prev.findings and (self.loaded is None or self.loaded.source_sha256 != prev.source):
            return None
        listed = self.listing()
        if listed.links or set(listed.files) != {*prev.files, MANIFEST}:  # a link is never "as recorded"
            return None
        files = self.kept(prev.files)
        if files is None:
            return None
        own = self.out / MANIFEST
        try:
            size = own.stat().st_size
        except OSError:
            return None
        files[MANIFEST] = Kept("", size, os.path.join(os.path.realpath(self.out), MANIFEST))
        return dict(sorted(files.items()))

    def findings_text(self) -> str:
        """What the earlier render printed of its findings ("" when it had none): `unchanged` took it only when
        this inventory's files are the ones it read, byte for byte, so validating again would print the same."""
        return self.previous.findings_text if self.previous.findings else ""

    def listing(self) -> Listing:
        """The files and links of the earlier render's directory (railfabric.emit.intact.listing, taken by the
        background hashing when it ran; empty without one)."""
        return self.verification.listing() if self.out is not None else Listing()

    def _inventory_digest(self, inventory: Path) -> str | None:
        """The canonical digest of an inventory that loads and passes the schema without a single finding, else
        None (the full pipeline then says what is wrong)."""
        from railfabric.inventory.canonical import inventory_digest
        from railfabric.inventory.load import load_inventory
        from railfabric.inventory.schema_check import validate

        self.loaded = load_inventory(inventory)
        if self.loaded.findings:
            return None
        inv, _errors = validate(self.loaded.data)
        return inventory_digest(inv) if inv is not None else None

    def close(self) -> None:
        self.verification.cancel()


