"""natural_order: the order of sorted(texts, key=natural_key), from padded keys built in bulk."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from railfabric.outputs._common import natural_key, natural_order, natural_order_by_heads


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


def _by_heads(texts: list[str], heads: list[str]) -> list[str]:
    return [texts[i] for i in natural_order_by_heads(texts, heads)]


def test_heads_and_tails_padded_apart() -> None:
    # link ids split at their lower device: 'p2-s1-gpu9' < 'p2-s1-gpu10' (9 < 10) and 'p2' < 'p10'; within one
    # device 'nic2' < 'nic10' and '#9' < '#10' in the tails; the host's ':' (0x3a) before the switch's '>' (0x3e)
    ids = ["p10-s1-gpu1:nic0p1", "p2-s1-gpu10:nic0p1", "p2-s1-gpu9:nic10p1", "p2-s1-gpu9:nic2p1",
           "p2-s1-rail0>p2-spine1#10", "p2-s1-rail0>p2-spine1#9"]
    heads = [i.split(":")[0].split(">")[0] for i in ids]
    assert _by_heads(ids, heads) == ["p2-s1-gpu9:nic2p1", "p2-s1-gpu9:nic10p1", "p2-s1-gpu10:nic0p1",
                                     "p2-s1-rail0>p2-spine1#9", "p2-s1-rail0>p2-spine1#10", "p10-s1-gpu1:nic0p1"]


def test_a_run_across_the_cut_or_a_text_without_its_head_takes_natural_order() -> None:
    # 'a12' cut as 'a1' + '2': padded apart it would be ('a', 1) then (2), before 'a3'; as one run 12 > 3
    assert _by_heads(["a12", "a3"], ["a1", "a"]) == ["a3", "a12"]
    # 'x10' does not begin with 'y': the heads are not used (x9 < x10)
    assert _by_heads(["x10", "x9"], ["y", "x"]) == ["x9", "x10"]
    # a head with a line break cannot be padded: natural_key ('a', 10, '\nb') vs ('a', 9, '\nc')
    assert _by_heads(["a10\nb", "a9\nc"], ["a10\n", "a9\n"]) == ["a9\nc", "a10\nb"]
    assert natural_order_by_heads([], []) == []


_PIECE = st.text(alphabet="ab-:>#019\n", max_size=5)


@given(st.lists(st.tuples(_PIECE, _PIECE, st.booleans()), max_size=30))
def test_heads_give_natural_order(pieces: list[tuple[str, str, bool]]) -> None:
    # each text a head and a tail; now and then the head given is not the text's own (a text without its head)
    texts = [h + t for h, t, _ in pieces]
    heads = [h if own else t for h, t, own in pieces]
    assert natural_order_by_heads(texts, heads) == sorted(range(len(texts)), key=lambda i: natural_key(texts[i]))
