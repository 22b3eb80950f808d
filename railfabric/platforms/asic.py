"""Switch ASIC families (`switch_models.<name>.asic`) and what a platform writes differently per family.

A family is named only where a public document ties an Arista, NVIDIA or other switch model to it:
- spectrum-4: NVIDIA SN5600 (sonic-buildimage @086b03bd device/mellanox/x86_64-nvidia_sn5600-r0 with
  platform/mellanox/asic_table.j2 MELLANOX-SPECTRUM-4, as cited in inventory/hardware.yml).
- tomahawk-3, tomahawk-4: the Arista DCS-7060DX4-32 and DCS-7060PX5-64E, whose RoCE examples (Intel Habana,
  "Arista Switch L2/L3 Configuration Example", docs.habana.ai) use the Trident/Tomahawk forms of EOS. The
  mapping of those two models to Tomahawk 3 and Tomahawk 4 is Arista's product naming (7060X4 / 7060X5 series):
  NOT verified against a data sheet here.
- tomahawk-5: the Arista 7060X6-64PE (the 7060X6 series); NOT verified against a data sheet here (the stored
  pages name the 7060XE7 series as Tomahawk 6 and Tomahawk 5 as 64 x 800G, not the 7060X6 model).
- jericho-2: the Arista 7280R3 series ("Arista 7280R3 Switch Architecture" white paper: "based on Broadcom
  Jericho2 silicon"); EOS calls this line "Sand".
Trident 4, Jericho2C+, Jericho3 and the Spectrum generations other than 4 are left out: no document tying a switch
model to a per-family form was found. Add a family here with its source, then its forms on each platform.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class AsicFamily(StrEnum):
    SPECTRUM_4 = "spectrum-4"
    TOMAHAWK_3 = "tomahawk-3"
    TOMAHAWK_4 = "tomahawk-4"
    TOMAHAWK_5 = "tomahawk-5"
    JERICHO_2 = "jericho-2"


@dataclass(frozen=True, slots=True)
class MmuProfile:
    """A platform-wide buffer (MMU) profile for the lossless priorities: its name, the ingress dynamic threshold
    (alpha) and the per-port ingress headroom in bytes (None: the switch's default headroom stays)."""

    name: str
    threshold: str
    headroom_bytes: int | None


@dataclass(frozen=True, slots=True)
class QueueForm:
    """How a platform writes per-queue QoS on one ASIC family: the egress queue keyword (EOS `uc-tx-queue` on
    Trident/Tomahawk, `tx-queue` on Sand) and the MMU profile its lossless priorities need, if any."""

    family: str
    queue: str
    mmu: MmuProfile | None = None
