"""IPv4 arithmetic, written once. An address is an int in [0, 2**32); a prefix is `Prefix(net, length)`.

Text comes in through `aton` (a dotted quad), `address_of` (an address with or without '/len') and `Prefix.parse`,
and goes out through `ntoa` and `str(prefix)`; in between everything is integer arithmetic. Ints, not netaddr or
ipaddress objects: the allocator hands out one address per loopback, NIC and /31 (hundreds of thousands at 65K GPUs)
and `ntoa`/`aton` here take a third to a half of the time of netaddr's and ipaddress's conversions.

Nothing here knows pools, strides or which address a device gets: that is allocation (railfabric/plan/allocate.py). So
the module is a pure utility of the bottom layer, importing nothing of fabric; the verifier, which must not share the
generator's logic, may use it too. The inventory schema (railfabric/inventory/intent.py) parses prefixes with netaddr at
the boundary; `Prefix.of` takes such a network (anything with `.network` and `.prefixlen`) into this representation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import repeat
from socket import AF_INET, inet_ntoa, inet_pton
from typing import Protocol, SupportsInt

BITS = 32
LAST = (1 << BITS) - 1  # 255.255.255.255


def ntoa(n: int) -> str:
    """4278190081 → '255.0.0.1'. ValueError outside 0 .. 255.255.255.255 (never a wrapped address)."""
    try:
        return inet_ntoa(n.to_bytes(4, "big"))
    except OverflowError:
        raise ValueError(f"{n} is not an IPv4 address (0 .. {LAST})") from None


class Dotted(dict[int, str]):
    """ntoa at the link walk's rate: the text "a.b.c." of each /24 (by address >> 8), made by ntoa when first met,
    so an address's text is its /24's text and its last octet's (DOTTED_OCTETS). A fabric's /31s fill a few
    thousand /24s, met hundreds of thousands of times (the device link walk); the same text as ntoa, and ntoa's
    error out of range."""

    def __missing__(self, block: int) -> str:
        text = self[block] = ntoa(block << 8)[:-1]  # "a.b.c.0" → "a.b.c."
        return text


DOTTED_OCTETS = tuple(map(str, range(256)))


def ntoa_many(ns: Iterable[int]) -> list[str]:
    """ntoa of each address, in C-level passes (hundreds of thousands per table of a large fabric)."""
    ns = ns if isinstance(ns, list) else list(ns)
    try:
        return list(map(inet_ntoa, map(int.to_bytes, ns, repeat(4), repeat("big"))))  # type: ignore[arg-type]
    except OverflowError:
        return [ntoa(n) for n in ns]  # raises ntoa's error for the first address out of range


def aton(text: str) -> int:
    """'10.0.0.1' → 167772161. Only the dotted quad: no '10.1', octal or hex parts, no spaces (ValueError)."""
    try:
        return int.from_bytes(inet_pton(AF_INET, text), "big")
    except OSError:
        raise ValueError(f"{text!r} is not an IPv4 address") from None


def order_key(text: str) -> bytes:
    """'10.0.0.1' → its 4 bytes, big-endian: they compare as the numbers do (a sort key, cheaper than aton for the
    hundreds of thousands of neighbour addresses sorted per render; only for addresses railfabric wrote itself)."""
    return inet_pton(AF_INET, text)


def address_of(text: str) -> int:
    """'10.0.0.1' or '10.0.0.1/31' (an interface address as configs write it) → the address."""
    return aton(text.partition("/")[0])


def cidr_key(text: str) -> tuple[int, int]:
    """'a.b.c.d/len' → (address, length): numeric order, a containing prefix before the addresses inside it."""
    address, _, length = text.partition("/")
    return aton(address), int(length) if length else BITS


def size(length: int) -> int:
    """Addresses in a prefix of `length`: /31 → 2, /32 → 1, /0 → 2**32."""
    if not 0 <= length <= BITS:
        raise ValueError(f"/{length} is not an IPv4 prefix length (0 .. {BITS})")
    return 1 << (BITS - length)


def bits_for(count: int) -> int:
    """Address bits needed to number `count` things: 1 → 0, 2 → 1, 3 → 2, 256 → 8, 257 → 9."""
    return max(0, (count - 1).bit_length())


def length_for(count: int) -> int:
    """The longest prefix length that holds `count` addresses: 2 → /31, 3 → /30, 256 → /24."""
    return BITS - bits_for(count)


def add(address: int, offset: int) -> int:
    """`address` + `offset`, refusing to run past 255.255.255.255 or below 0.0.0.0 (ValueError)."""
    out = address + offset
    if not 0 <= out <= LAST:
        raise ValueError(f"{ntoa(address)} + {offset} is outside IPv4")
    return out


class _Network(Protocol):  # netaddr.IPNetwork as the inventory schema parses it
    @property
    def network(self) -> SupportsInt: ...

    @property
    def prefixlen(self) -> int: ...


@dataclass(slots=True, frozen=True)
class Prefix:
    """An IPv4 prefix: network address `net` (host bits zero) and `length`."""

    net: int
    length: int

    @classmethod
    def parse(cls, text: str, strict: bool = True) -> Prefix:
        """'10.0.0.0/24' → Prefix; without '/len' a /32. Host bits set: ValueError, or (strict=False) cleared, as
        for an interface address: '10.0.0.1/31' → 10.0.0.0/31."""
        address, _, length_text = text.partition("/")
        length = int(length_text) if length_text else BITS
        net, host = _split(aton(address), length)
        if host and strict:
            raise ValueError(f"{text!r} has host bits set")
        return cls(net, length)

    @classmethod
    def of(cls, network: _Network) -> Prefix:
        """A netaddr.IPNetwork (of the inventory schema) as a Prefix."""
        return cls(int(network.network), network.prefixlen)

    @property
    def size(self) -> int:
        return 1 << (BITS - self.length)

    @property
    def last(self) -> int:
        """The highest address inside (the broadcast address of a LAN)."""
        return self.net + self.size - 1

    def __contains__(self, address: int) -> bool:
        return self.net <= address <= self.last

    def covers(self, other: Prefix) -> bool:
        """`other` lies inside this prefix (equal included)."""
        return other.length >= self.length and other.net >> (BITS - self.length) == self.net >> (BITS - self.length)

    def __str__(self) -> str:
        return f"{ntoa(self.net)}/{self.length}"


def range_prefixes(start: int, end: int) -> list[Prefix]:
    """The fewest prefixes that cover the addresses start .. end-1 exactly, in order (each the largest block that
    is aligned where the last one ended and still fits)."""
    if not 0 <= start <= end <= LAST + 1:
        raise ValueError(f"{start} .. {end} is not a range of IPv4 addresses")
    out: list[Prefix] = []
    while start < end:
        step = start & -start if start else 1 << BITS  # the lowest set bit: the largest block aligned at start
        while step > end - start:
            step >>= 1
        out.append(Prefix(start, BITS + 1 - step.bit_length()))
        start += step
    return out


def _split(address: int, length: int) -> tuple[int, int]:
    """(network part, host part) of `address` under a prefix of `length`."""
    host_mask = size(length) - 1
    return address & ~host_mask, address & host_mask
