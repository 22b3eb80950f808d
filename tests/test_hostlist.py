"""Slurm host lists (railfabric/core/hostlist.py): the size cap that keeps a hostile list from taking the memory.
The forms themselves are tested in tests/test_impact_jobs.py."""

from __future__ import annotations

import pytest

from railfabric.core.hostlist import MAX_NAMES, expand_hostlist


def test_a_list_at_the_cap_expands() -> None:
    names = expand_hostlist("h[000-999]x[000-999]")  # 1,000 × 1,000 = 1,000,000 = MAX_NAMES
    assert len(names) == MAX_NAMES
    assert names[0] == "h000x000" and names[-1] == "h999x999"


@pytest.mark.parametrize("text", ["a[0-999999]b[0-999999]", "h[000-999]x[000-999],extra", "a[1-2]b[0-999999]"])
def test_a_list_past_the_cap_is_refused_before_expanding(text: str) -> None:
    with pytest.raises(ValueError, match="expands to more than 1,000,000 names"):
        expand_hostlist(text)
