"""The shortcuts that keep validation fast at 100K GPUs say exactly what the long way says.

- railfabric/checks/solver/rails.py `_fits`: the port-clash check skips `_clash` for ports whose cables sit on distinct
  lanes of one breakout mode; it must never skip a port that `_clash` would report.
- railfabric/topology/ports.py `Ports.at`: positions within the candidate ports come from a shared table; they must be
  the positions the arithmetic gives (port q of the candidates, lane r + 1 of a breakout, 0 natively), and positions
  past the list still get numbers above the model's port count.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from railfabric.checks.solver.rails import _clash, _fits, _Use
from railfabric.topology.ports import Ports

# one cable on a port: (link id, lane, lanes of its breakout mode, speed)
_use = st.tuples(st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 4), st.integers(0, 4),
                 st.sampled_from([200, 400, 800]))


@given(st.lists(_use, min_size=2, max_size=5))
def test_a_port_that_fits_is_never_a_clash(uses: list[tuple[str, int, int, int]]) -> None:
    if _fits(uses):
        assert _clash(7, [_Use(*u) for u in uses]) == ""


def test_fits_by_hand() -> None:
    # lanes 1 and 2 of a 2x400G port: the ordinary broken-out port
    assert _fits([("a", 1, 2, 400), ("b", 2, 2, 400)])
    assert _fits([("a", 3, 4, 200), ("b", 1, 4, 200), ("c", 2, 4, 200)])
    # lane 1 twice: _clash must look, and says so
    twice = [("a", 1, 2, 400), ("b", 1, 2, 400)]
    assert not _fits(twice)
    assert _clash(5, [_Use(*u) for u in twice]) == "5/1 carries 2 cables: a, b"
    # a native cable (lane 0) beside a lane, and two lanes at different breakout modes: not skipped
    assert not _fits([("a", 0, 1, 800), ("b", 1, 2, 400)])
    assert not _fits([("a", 1, 2, 400), ("b", 2, 4, 200)])


def test_ports_at_by_hand() -> None:
    # candidates 33, 34, 35 at 2 lanes: position p is port 33 + p // 2, lane p % 2 + 1; past the 6 positions the
    # ports continue above the model's 64: position 6 → port 65 lane 1, 7 → 65/2, 8 → 66/1
    ports = Ports((33, 34, 35), frozenset(), 2, 64)
    assert [ports.at(p) for p in range(9)] == [(33, 1), (33, 2), (34, 1), (34, 2), (35, 1), (35, 2),
                                               (65, 1), (65, 2), (66, 1)]
    # natively (1 lane, lane 0): position p is the p-th candidate, then 65, 66
    native = Ports([1, 2], frozenset({2}), 1, 64)
    assert [native.at(p) for p in range(4)] == [(1, 0), (2, 0), (65, 0), (66, 0)]
    # lanes 0 (no mode runs the speed) counts as 1 lane, not broken out
    assert Ports((9,), frozenset(), 0, 64).at(0) == (9, 0)
