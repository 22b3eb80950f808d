"""IPv6 arithmetic for the dual-stack plan (routing.address_families with ipv6): an address is an int in [0, 2**128),
a prefix is `Prefix6(net, length)`, as railfabric/core/address.py does for IPv4.

Text goes out through `ntoa6`, the RFC 5952 canonical form (lower case, the longest run of zero groups as `::`), which
is what every platform railfabric renders prints back and what `ipaddress` writes. Nothing here knows pools or strides:
that is allocation (railfabric/plan/allocate_v6.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv6Address

BITS6 = 128
LAST6 = (1 << BITS6) - 1


def ntoa6(n: int) -> str:
    """0x20010db8 << 96 | 1 → '2001:db8::1' (RFC 5952). ValueError outside IPv6."""
    if not 0 <= n <= LAST6:
        raise ValueError(f"{n} is not an IPv6 address")
    return IPv6Address(n).compressed


def aton6(text: str) -> int:
    """'2001:db8::1' → its int. ValueError for anything else (an IPv4 address included)."""
    return int(IPv6Address(text))


def size6(length: int) -> int:
    if not 0 <= length <= BITS6:
        raise ValueError(f"/{length} is not an IPv6 prefix length (0 .. {BITS6})")
    return 1 << (BITS6 - length)


@dataclass(slots=True, frozen=True)
class Prefix6:
    """An IPv6 prefix: network address `net` (host bits zero) and `length`."""

    net: int
    length: int

    @property
    def size(self) -> int:
        return size6(self.length)

    @property
    def last(self) -> int:
        return self.net + self.size - 1

    def __contains__(self, address: int) -> bool:
        return self.net <= address <= self.last

    def covers(self, other: Prefix6) -> bool:
        """`other` lies inside this prefix (equal included)."""
        return other.length >= self.length and other.net >> (BITS6 - self.length) == self.net >> (BITS6 - self.length)

    @classmethod
    def parse(cls, text: str) -> Prefix6:
        """'2001:db8::1/64' → 2001:db8::/64 (host bits cleared, as for an interface address); no '/len': a /128."""
        address, _, length_text = text.partition("/")
        length = int(length_text) if length_text else BITS6
        return cls(aton6(address) & ~(size6(length) - 1), length)

    def __str__(self) -> str:
        return f"{ntoa6(self.net)}/{self.length}"


def range_prefixes6(start: int, end: int) -> list[Prefix6]:
    """The fewest IPv6 prefixes that cover the addresses start .. end-1 exactly, in order."""
    if not 0 <= start <= end <= LAST6 + 1:
        raise ValueError(f"{start} .. {end} is not a range of IPv6 addresses")
    out: list[Prefix6] = []
    while start < end:
        step = start & -start if start else 1 << BITS6
        while step > end - start:
            step >>= 1
        out.append(Prefix6(start, BITS6 + 1 - step.bit_length()))
        start += step
    return out
