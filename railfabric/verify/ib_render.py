"""Is a rendered tree an InfiniBand fabric's? `fabric verify` and `fabric sonic-yang` read switch configs back;
an InfiniBand render (railfabric/outputs/infiniband.py writes its files under infiniband/) has none: each command
then refuses with one line saying so instead of naming the first Ethernet file it misses."""

from __future__ import annotations

from pathlib import Path


def infiniband_refusal(root: Path, command: str) -> str | None:
    """The one-line refusal of `command` on an InfiniBand render at `root`, None when `root` is not one (an
    infiniband/ directory and no configs/)."""
    if (root / "infiniband").is_dir() and not (root / "configs").exists():
        return (f"fabric {command}: {root} is an InfiniBand render: no switch configs to read back (the subnet "
                f"manager programs InfiniBand switches; check its files with `fabric lab` on the inventory and the "
                f"cabled fabric with `fabric ib bind`)")
    return None
