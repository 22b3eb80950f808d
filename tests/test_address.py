"""railfabric.core.address: every helper against values worked out by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import pytest

from railfabric.core.address import (
    DOTTED_OCTETS,
    LAST,
    Dotted,
    Prefix,
    add,
    address_of,
    aton,
    bits_for,
    cidr_key,
    length_for,
    ntoa,
    ntoa_many,
    order_key,
    range_prefixes,
    size,
)


def test_ntoa_and_aton_are_inverse_at_the_edges() -> None:
    # 10.0.0.1 = 10·2^24 + 1 = 167772160 + 1
    assert ntoa(167772161) == "10.0.0.1"
    assert aton("10.0.0.1") == 167772161
    # 172.16.3.3 = 172·2^24 + 16·2^16 + 3·2^8 + 3 = 2885681152 + 1048576 + 768 + 3
    assert aton("172.16.3.3") == 2886730499
    assert ntoa(0) == "0.0.0.0"
    assert ntoa(LAST) == "255.255.255.255"  # 2^32 - 1 = 4294967295
    assert LAST == 4294967295
    assert aton("255.255.255.255") == LAST


@pytest.mark.parametrize("n", [LAST + 1, -1, 1 << 40])
def test_ntoa_refuses_what_is_not_an_ipv4_address(n: int) -> None:
    with pytest.raises(ValueError, match="not an IPv4 address"):
        ntoa(n)  # never a wrapped address: 2^32 would otherwise print as 0.0.0.0


def test_ntoa_many_is_ntoa_of_each() -> None:
    # the same values as above, in one call (a generator too); nothing gives nothing
    assert ntoa_many([167772161, 0, LAST]) == ["10.0.0.1", "0.0.0.0", "255.255.255.255"]
    assert ntoa_many(n for n in (2886730499,)) == ["172.16.3.3"]
    assert ntoa_many([]) == []


@pytest.mark.parametrize("n", [LAST + 1, -1])
def test_ntoa_many_refuses_what_ntoa_refuses(n: int) -> None:
    with pytest.raises(ValueError, match="not an IPv4 address"):
        ntoa_many([1, n])


@pytest.mark.parametrize("text", ["10.1", "010.0.0.1", "0x0a.0.0.1", "10.0.0.256", " 10.0.0.1", "10.0.0.1/31", ""])
def test_aton_takes_only_the_dotted_quad(text: str) -> None:
    with pytest.raises(ValueError, match="not an IPv4 address"):
        aton(text)


def test_order_key_sorts_as_the_numbers() -> None:
    # text order would put 10.0.0.10 before 10.0.0.9 and 9.255.255.255 after 10.0.0.0; the numbers do not
    texts = ["10.0.0.10", "9.255.255.255", "10.0.0.9", "255.0.0.1", "0.0.0.0", "10.0.1.0"]
    assert sorted(texts, key=order_key) == ["0.0.0.0", "9.255.255.255", "10.0.0.9", "10.0.0.10", "10.0.1.0",
                                            "255.0.0.1"]
    assert order_key("10.0.0.1") == bytes([10, 0, 0, 1])
    with pytest.raises(OSError):  # only the dotted quad (inet_pton), as aton
        order_key("10.1")


def test_address_of_drops_the_length() -> None:
    assert address_of("10.0.0.1/31") == 167772161
    assert address_of("10.0.0.1") == 167772161


def test_cidr_key_orders_a_prefix_before_its_addresses() -> None:
    # 10.0.0.0/24 and its first address 10.0.0.0/32 share the number; the shorter length sorts first
    keys = sorted(["10.0.0.1/32", "10.0.0.0/32", "9.255.255.255/32", "10.0.0.0/24"], key=cidr_key)
    assert keys == ["9.255.255.255/32", "10.0.0.0/24", "10.0.0.0/32", "10.0.0.1/32"]
    assert cidr_key("10.0.0.1") == (167772161, 32)


def test_size_of_a_prefix() -> None:
    assert size(32) == 1  # one host
    assert size(31) == 2  # a point-to-point pair (RFC 3021)
    assert size(24) == 256
    assert size(0) == 4294967296
    for bad in (-1, 33):
        with pytest.raises(ValueError, match="prefix length"):
            size(bad)


def test_bits_and_lengths_for_a_count() -> None:
    # ceil(log2 n): 1 → 0, 2 → 1, 3 → 2, 4 → 2, 256 → 8, 257 → 9
    assert [bits_for(n) for n in (1, 2, 3, 4, 256, 257)] == [0, 1, 2, 2, 8, 9]
    # the longest prefix holding n addresses: 1 → /32, 2 → /31, 3 → /30, 256 → /24, 257 → /23
    assert [length_for(n) for n in (1, 2, 3, 256, 257)] == [32, 31, 30, 24, 23]


def test_add_refuses_overflow() -> None:
    assert add(aton("10.0.0.255"), 1) == aton("10.0.1.0")  # carries into the third octet
    assert add(LAST - 1, 1) == LAST  # the last address is still one
    with pytest.raises(ValueError, match=r"255\.255\.255\.255 \+ 1 is outside IPv4"):
        add(LAST, 1)
    with pytest.raises(ValueError, match="outside IPv4"):
        add(0, -1)


def test_prefix_31_and_32() -> None:
    p31 = Prefix.parse("10.32.2.0/31")
    # 10.32.2.0 = 10·2^24 + 32·2^16 + 2·2^8 = 169869824; a /31 holds .0 and .1
    assert (p31.net, p31.length, p31.size, p31.last) == (169869824, 31, 2, 169869825)
    assert str(p31) == "10.32.2.0/31"
    assert 169869825 in p31 and 169869826 not in p31 and 169869823 not in p31
    p32 = Prefix.parse("10.0.0.40")  # no length: a host route
    assert (p32.net, p32.length, p32.size, p32.last) == (167772200, 32, 1, 167772200)
    assert str(p32) == "10.0.0.40/32"


def test_prefix_at_the_top_of_the_address_space() -> None:
    top = Prefix.parse("255.255.255.0/24")
    assert top.last == LAST  # 255.255.255.255 is the last address of the pool
    assert LAST in top
    assert str(Prefix(LAST, 32)) == "255.255.255.255/32"
    with pytest.raises(ValueError, match="not an IPv4 address"):
        str(Prefix(LAST + 1, 32))  # one past the end is refused, not printed as 0.0.0.0/32


def test_prefix_host_bits() -> None:
    with pytest.raises(ValueError, match="host bits"):
        Prefix.parse("10.0.0.1/31")
    # an interface address names its subnet: 10.0.0.1/31 → 10.0.0.0/31, 10.1.2.3/16 → 10.1.0.0/16
    assert Prefix.parse("10.0.0.1/31", strict=False) == Prefix.parse("10.0.0.0/31")
    assert str(Prefix.parse("10.1.2.3/16", strict=False)) == "10.1.0.0/16"
    with pytest.raises(ValueError, match="prefix length"):
        Prefix.parse("10.0.0.0/33")


def test_covers() -> None:
    agg = Prefix.parse("172.16.0.0/22")  # 172.16.0.0 - 172.16.3.255
    assert agg.covers(Prefix.parse("172.16.3.0/24"))
    assert agg.covers(agg)  # equal counts as inside
    assert not agg.covers(Prefix.parse("172.16.4.0/24"))  # the next /24 after the aggregate
    assert not agg.covers(Prefix.parse("172.16.0.0/21"))  # a shorter prefix is never inside
    assert Prefix.parse("0.0.0.0/0").covers(Prefix.parse("255.255.255.255"))


def test_of_takes_the_schema_network() -> None:
    import netaddr  # the inventory schema's type (railfabric/inventory/intent.py)

    assert Prefix.of(netaddr.IPNetwork("10.4.0.0/14")) == Prefix.parse("10.4.0.0/14")


def test_one_home_for_ipv4_arithmetic() -> None:
    # railfabric.core.address imports nothing of fabric and no other module of the generator converts addresses
    # by itself: no ipaddress, no inet_aton/inet_ntoa, no hand-written dotted-quad formatting
    import ast
    from pathlib import Path

    import railfabric.core.address

    home = Path(railfabric.core.address.__file__)
    tree = ast.parse(home.read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not {m for m in imported if m and m.startswith("railfabric")}
    verifier = home.parent / "verify"  # independent of the generator by design: it does its own (stdlib) arithmetic
    for path in home.parent.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path != home and verifier not in path.parents:
            assert "import ipaddress" not in text and "inet_aton" not in text and "inet_ntoa" not in text, path
            assert ">> 24 & 255" not in text, path


def test_range_prefixes() -> None:
    def cover(a: str, b: str) -> list[str]:
        return [str(p) for p in range_prefixes(aton(a), aton(b))]

    # 10.0.0.0 .. 10.0.2.255 (768 addresses): a /23 (512) aligned at .0.0, then a /24 at .2.0
    assert cover("10.0.0.0", "10.0.3.0") == ["10.0.0.0/23", "10.0.2.0/24"]
    # starting at 10.0.1.0 only a /24 is aligned there; then 10.0.2.0 takes a /23 up to 10.0.3.255
    assert cover("10.0.1.0", "10.0.4.0") == ["10.0.1.0/24", "10.0.2.0/23"]
    # one address; a /31; nothing
    assert cover("10.0.0.5", "10.0.0.6") == ["10.0.0.5/32"]
    assert cover("10.0.0.4", "10.0.0.6") == ["10.0.0.4/31"]
    assert cover("10.0.0.4", "10.0.0.4") == []
    # the whole space is one /0 (start 0 has every bit clear: the block is 2^32); the top /24 ends at 2^32
    assert [str(p) for p in range_prefixes(0, LAST + 1)] == ["0.0.0.0/0"]
    assert [str(p) for p in range_prefixes(aton("255.255.255.0"), LAST + 1)] == ["255.255.255.0/24"]
    with pytest.raises(ValueError, match="not a range"):
        range_prefixes(aton("255.255.255.0"), LAST + 2)


def test_a_plan_past_the_end_of_ipv4_is_not_shown(tmp_path) -> None:
    # loopbacks 255.255.255.248/29: offsets 0-7 are .248-.255; the example's switch slots run far past 7, so the
    # plan places loopbacks at 2^32 and beyond: POOL002, and `fabric show` refuses instead of printing a wrapped
    # address (before the address module it printed 0.0.1.143 for p3-s1-rail7, slot 407 = 2^32 - 8 + 407 mod 2^32)
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from railfabric.pipeline import run

    inv = tmp_path / "inv"
    shutil.copytree(Path(__file__).resolve().parents[1] / "inventory", inv)
    fabric_yml = inv / "fabric.yml"
    text = fabric_yml.read_text(encoding="utf-8")
    assert "  loopbacks: 10.0.0.0/20 " in text
    top = text.replace("  loopbacks: 10.0.0.0/20 ", "  loopbacks: 255.255.255.248/29 ")
    fabric_yml.write_text(top, encoding="utf-8")
    res = run(inv)
    assert res.plan is not None and res.plan.past_ipv4() == ["loopbacks"]
    assert "POOL002" in {f.code for f in res.findings}
    proc = subprocess.run([sys.executable, "-m", "railfabric.cli", "show", "p3-s1-rail7", str(inv)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "runs past 255.255.255.255 (loopbacks)" in proc.stderr
    assert "0.0.1.143" not in proc.stdout and "internal error" not in proc.stderr


def test_dotted_is_ntoa_by_its_24_and_last_octet() -> None:
    dotted = Dotted()
    # 10.1.2.7 = 10·2^24 + 1·2^16 + 2·2^8 + 7 = 167,838,215; its /24 is 167,838,215 >> 8 = 655,618
    n = 167_838_215
    assert dotted[n >> 8] + DOTTED_OCTETS[n & 255] == "10.1.2.7"
    assert dotted == {655_618: "10.1.2."}  # made once, kept
    # the edges: 0.0.0.0 and 255.255.255.255 (block 2^24 - 1 = 16,777,215, octet 255)
    assert dotted[0] + DOTTED_OCTETS[0] == "0.0.0.0"
    assert dotted[16_777_215] + DOTTED_OCTETS[255] == "255.255.255.255"


def test_dotted_refuses_a_block_past_ipv4() -> None:
    with pytest.raises(ValueError, match="is not an IPv4 address"):
        Dotted()[1 << 24]  # 2^24 << 8 = 2^32: one past 255.255.255.255
