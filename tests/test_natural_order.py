"""natural_order: the order of sorted(texts, key=natural_key), from padded keys built in bulk."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fabric.outputs._common import natural_key, natural_order


def _sorted(texts: list[str]) -> list[str]:
    return [texts[i] for i in natural_order(texts)]


def test_runs_compare_as_numbers_and_text_as_text() -> None:
    # 9 < 10 < 100 as numbers (a string sort puts '10' first); p2 < p10 although 'p2-' has a shorter run
    assert _sorted(["x#10", "x#9", "x#100", "x#2"]) == ["x#2", "x#9", "x#10", "x#100"]
    assert _sorted(["p10-s1", "p2-s1", "p1-s10", "p1-s9"]) == ["p1-s9", "p1-s10", "p2-s1", "p10-s1"]
    # a text that ends where the other goes on comes first: 'a' < 'a-' (natural_key ('a', 1, '') < ('a-', 1, '')),
    # although '-' (0x2d) sorts below the digit '1' (0x31) in a plain string sort, which puts 'a-1' first
    assert _sorted(["a-1", "a1"]) == ["a1", "a-1"]
    # 'a' < 'a1' < 'a1b': a prefix first, then ('a', 1, '') < ('a', 1, 'b')
    assert _sorted(["a1b", "a1", "a"]) == ["a", "a1", "a1b"]


def test_leading_zeros_tie_and_ties_keep_their_order() -> None:
    # gpu001 and gpu1 are both ('gpu', 1, ''): equal keys keep their input order (a stable sort), either way round
    assert _sorted(["gpu010", "gpu1", "gpu001", "gpu2"]) == ["gpu1", "gpu001", "gpu2", "gpu010"]
    assert _sorted(["gpu001", "gpu1"]) == ["gpu001", "gpu1"]
    # zero runs: 'n0' = ('n', 0, '') = 'n000' < 'n1'
    assert _sorted(["n1", "n000", "n0"]) == ["n000", "n0", "n1"]


def test_link_ids_of_several_shapes() -> None:
    ids = ["p10-s1-gpu001:nic0p1", "p1-s1-rail0>p1-spine1#1", "p1-s1-gpu002:nic0p1", "p1-spine1>ss10#1",
           "p1-s1-gpu001:nic10p1", "p1-s1-gpu001:nic2p1", "p1-spine1>ss9#1", "a=b#1", ""]
    # '' first (the empty tuple key ('',)); 'a=b#1' before every 'p...'; within p1: 'p1-s1-gpu' < 'p1-s1-rail' <
    # 'p1-spine' ('-s', 1 ... vs '-spine': '-s' is a prefix of '-spine'); nic2 < nic10; ss9 < ss10; p10 last
    assert _sorted(ids) == ["", "a=b#1", "p1-s1-gpu001:nic2p1", "p1-s1-gpu001:nic10p1", "p1-s1-gpu002:nic0p1",
                            "p1-s1-rail0>p1-spine1#1", "p1-spine1>ss9#1", "p1-spine1>ss10#1",
                            "p10-s1-gpu001:nic0p1"]


def test_texts_it_cannot_pad_take_natural_key() -> None:
    # a Unicode digit (natural_key's \d reads '٣' as 3), a line break and a control character
    for texts in (["x٣", "x2", "x10"], ["a\nb", "a1"], ["a\x10", "a1", "a"]):
        assert _sorted(texts) == sorted(texts, key=natural_key), texts
    assert natural_order([]) == []


@given(st.lists(st.text(alphabet="ab-:0123456789", max_size=8), max_size=30))
def test_the_same_order_as_natural_key(texts: list[str]) -> None:
    assert natural_order(texts) == sorted(range(len(texts)), key=lambda i: natural_key(texts[i]))
