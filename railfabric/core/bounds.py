"""The ranges of the inventory's numbers: every number has a lower and a finite upper bound a switch can hold.

One place for the ranges the schema (railfabric/inventory/intent.py, railfabric/inventory/intent_system.py) shares, each
with where it comes from. A number outside its range is a schema finding (SCH003) at its line whose hint names the range
(railfabric/inventory/schema_check.py reads it back from the field with `number_range`). Floats are finite everywhere
(`allow_inf_nan=False` in railfabric/inventory/intent_types.StrictModel): YAML's `.inf`, `-.inf` and `.nan` are refused.

Why bounds at all: Python's integers have no limit, but every consumer downstream does. orjson (the plan digests)
refuses integers past 64 bits, a float infinity has no integer ratio (the buffer arithmetic uses Fraction), a SAI
attribute or a YANG leaf holds 32 or 64 bits, and a JSON reader that parses numbers as IEEE doubles (JavaScript,
jq) is exact only up to 2^53. So each bound is what the device's own field can hold, or the largest real value times
a margin where the field is wider than anything real; all stay below 2^53, so every number the inventory accepts is
exact in every output.

Sources of the bounds:
- UINT32_MAX (2^32 - 1): SAI's WRED thresholds are `sai_uint32_t` (SAI inc/saiwred.h SAI_WRED_ATTR_GREEN_MIN/
  MAX_THRESHOLD; NVIDIA's SAI implementation mlnx_sai_wred.c types them SAI_ATTR_VAL_TYPE_U32), so an ECN
  threshold in bytes must fit 32 bits; an IPv4 address has 32 bits (RFC 791), which bounds an offset into a prefix.
- BUFFER_BYTES_MAX (2^37 = 128 GiB): SAI's buffer pool and profile sizes are `sai_uint64_t` (SAI inc/saibuffer.h,
  SAI 1.7 and later), wider than any switch. The largest on-chip packet buffers are about 160 MB (Spectrum-4:
  mmu_size 158,229,504 in inventory/hardware.yml, from sonic-buildimage ACS-SN5600); deep-buffer ASICs (Jericho)
  add HBM, at most 64 GB per stack under JEDEC JESD238 (HBM3), so two stacks, 128 GiB, bound every buffer fact.
- SPEED_GBPS_MAX (10,000 Gbit/s, "10T"): IEEE 802.3dj defines 1.6 Tb/s, the fastest Ethernet port rate; the
  margin takes the next two doublings (3.2T, 6.4T) and a typo's extra zero (8000G for 800G), which the rules then
  name precisely (HW002, HOST005: a speed no model runs). SONiC's PORT speed in Mb/s (10,000,000) stays inside its
  32 bits.
- PORTS_MAX (1024): front-panel ports of one switch model (no switch has more; SwitchModel.ports), so every port
  number written in a port list or an explicit cable is 1..1024.
- LANES_MAX (64): the NICs of a host and the rails of a segment (HostModel.nics, Segment.rails): indexes 0..63.
- LATENCY_NS_MAX (100,000 ns = 100 µs): a port-to-port latency (SwitchModel.latency_ns), and so any delay inside
  the ASIC (tile_delay_ns), is far below it on every switch (cut-through ASICs are well under 1 µs, deep-buffer
  ones a few µs unloaded).
- ASN: 1..4294967294, 4-byte ASNs (RFC 6793); 0 is reserved (RFC 7607), 4294967295 too (RFC 7300).
- VLAN: 2..4094 (IEEE 802.1Q VID is 12 bits, 0 and 4095 are reserved; 1 is the default VLAN).
- MTU: 1500..9216 switch ports (SONiC sonic-port.yang caps `mtu` at 9216), 1280..9216 hosts (IPv6 minimum, RFC
  8200).
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any

import annotated_types
from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

UINT32_MAX = 2**32 - 1
BUFFER_BYTES_MAX = 2**37
SPEED_GBPS_MAX = 10_000
PORTS_MAX = 1024
LANES_MAX = 64
LATENCY_NS_MAX = 100_000
ASN_MIN, ASN_MAX = 1, 4294967294
VLAN_MIN, VLAN_MAX = 2, 4094
SPEED_HINT = ("allowed: a whole number of Gbit/s from 1G to 10T (IEEE 802.3dj's 1.6T, with margin), e.g. '400G', "
              "'1.6T'")
PORTS_HINT = f"allowed: port numbers 1 to {PORTS_MAX:,}, e.g. [1, 4, 7] or '33-64'"
# the largest exact integer of an IEEE double: every bound above must stay below it (tests/test_bounds.py)
DOUBLE_EXACT_MAX = 2**53


@dataclass(frozen=True)
class Why:
    """Annotated metadata: why a number has its range (the hint of an out-of-range finding). pydantic ignores it."""

    text: str


# --------------------------------------------------------------------------- the shared number types

Asn = Annotated[int, Field(ge=ASN_MIN, le=ASN_MAX), Why("4-byte ASNs (RFC 6793); 0 and 4294967295 are reserved")]
Vlan = Annotated[int, Field(ge=VLAN_MIN, le=VLAN_MAX), Why("IEEE 802.1Q VLAN IDs; 0, 1 and 4095 are taken")]
SwitchMtu = Annotated[int, Field(ge=1500, le=9216), Why("SONiC's port MTU tops out at 9216 (sonic-port.yang)")]
HostMtu = Annotated[int, Field(ge=1280, le=9216), Why("IPv6's minimum MTU (RFC 8200) to the switches' 9216")]
EcnBytes = Annotated[int, Field(ge=1, le=UINT32_MAX), Why("SAI's WRED thresholds are 32-bit byte counts")]
# buffer facts: a size (at least one byte) or an amount that may be 0
BufferSize = Annotated[int, Field(ge=1, le=BUFFER_BYTES_MAX),
                       Why("128 GiB: twice the largest HBM stack of a deep-buffer switch ASIC")]
BufferBytes = Annotated[int, Field(ge=0, le=BUFFER_BYTES_MAX),
                        Why("128 GiB: twice the largest HBM stack of a deep-buffer switch ASIC")]
BufferBytesFloat = Annotated[float, Field(ge=0, le=BUFFER_BYTES_MAX),
                             Why("128 GiB: twice the largest HBM stack of a deep-buffer switch ASIC")]
AsicDelayNs = Annotated[int, Field(ge=0, le=LATENCY_NS_MAX),
                        Why("an in-ASIC delay is part of a port-to-port latency (at most 100 µs)")]
AddressOffset = Annotated[int, Field(ge=1, le=UINT32_MAX), Why("an IPv4 address has 32 bits")]
PortNumber = Annotated[int, Field(ge=1, le=PORTS_MAX), Why("front-panel ports of a switch are numbered from 1")]
NicIndex = Annotated[int, Field(ge=0, le=LANES_MAX - 1), Why("a host has at most 64 NICs, indexed from 0")]
RailIndex = Annotated[int, Field(ge=0, le=LANES_MAX - 1), Why("a segment has at most 64 rails, indexed from 0")]


# --------------------------------------------------------------------------- reading a field's range back


@dataclass(frozen=True)
class Range:
    lo: float | None
    hi: float | None
    why: str = ""

    def hint(self) -> str:
        if self.lo is None and self.hi is None:
            return ""
        span = f"{_num(self.lo)} to {_num(self.hi)}" if self.lo is not None and self.hi is not None else (
            f"at least {_num(self.lo)}" if self.lo is not None else f"at most {_num(self.hi)}")
        return f"allowed: {span}" + (f" ({self.why})" if self.why else "")


def _num(x: object) -> str:
    if isinstance(x, float) and x.is_integer():
        return _num(int(x))
    return f"{x:,}" if isinstance(x, int) and abs(x) >= 10_000 else str(x)


def _metadata_range(metadata: list[Any]) -> Range | None:
    lo = hi = None
    why = ""
    for m in metadata:
        if isinstance(m, FieldInfo):
            inner = _metadata_range(m.metadata)
            if inner is not None:
                lo, hi, why = inner.lo if inner.lo is not None else lo, inner.hi if inner.hi is not None else hi, \
                    inner.why or why
        elif isinstance(m, annotated_types.Ge | annotated_types.Gt):
            lo = m.ge if isinstance(m, annotated_types.Ge) else m.gt  # type: ignore[assignment]
        elif isinstance(m, annotated_types.Le | annotated_types.Lt):
            hi = m.le if isinstance(m, annotated_types.Le) else m.lt  # type: ignore[assignment]
        elif isinstance(m, Why):
            why = m.text
    if lo is None and hi is None:
        return None
    return Range(lo, hi, why)


def _annotated_range(tp: Any) -> Range | None:
    """The range on a (possibly Optional) Annotated number type."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        args = typing.get_args(tp)
        return _metadata_range(list(args[1:]))
    if origin in (typing.Union, types.UnionType):
        for a in typing.get_args(tp):
            found = _annotated_range(a)
            if found is not None:
                return found
    return None


def _step(tp: Any, el: Any) -> Any:
    """The annotation one path element below `tp` (a model's field, a list's item, a dict's value)."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _step(typing.get_args(tp)[0], el)
    if origin in (typing.Union, types.UnionType):
        for a in typing.get_args(tp):
            nxt = _step(a, el)
            if nxt is not None:
                return nxt
        return None
    if isinstance(tp, type) and issubclass(tp, BaseModel) and isinstance(el, str) and el in tp.model_fields:
        return tp.model_fields[el]
    if origin in (list, tuple) and isinstance(el, int):
        return typing.get_args(tp)[0]
    if origin is dict:
        return typing.get_args(tp)[1]
    return None


def number_range(root: type[BaseModel], path: tuple[Any, ...]) -> Range | None:
    """The range of the number at `path` under `root` (a model's field or a list item of one), or None when the
    path names no bounded number."""
    tp: Any = root
    for i, el in enumerate(path):
        nxt = _step(tp, el)
        if nxt is None:
            return None
        if isinstance(nxt, FieldInfo):
            found = _metadata_range(nxt.metadata)
            if found is not None and i == len(path) - 1:
                return found
            nxt = nxt.annotation
        tp = nxt
    return _annotated_range(tp)
