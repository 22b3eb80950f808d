"""rollout_plan (railfabric/outputs/rollout.py) looks up the waves a switch may not join; these tests hold it to the
plain first fit it must equal (every wave of the role tried in order), on random fabrics, and to the hand-derived
waves of a small one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from railfabric.outputs._common import natural_key
from railfabric.outputs.rollout import ROLE_ORDER, RolloutSwitch, _keys, neighbours, rollout_plan


def _first_fit(view: dict[str, RolloutSwitch]) -> tuple[tuple[str, ...], ...]:
    """The specification: each switch, in role then natural name order, joins the first wave opened for its role
    that holds none of its keys and none of its neighbours (wave 1, the canary, is never joined)."""
    names = sorted(view, key=lambda n: (ROLE_ORDER.get(view[n].role, 3), natural_key(n)))
    near = neighbours(view)
    waves: list[tuple[list[str], set[tuple]]] = []
    tier, start = None, 1
    for name in names:
        if view[name].role != tier:
            tier, start = view[name].role, max(1, len(waves))
        keys = _keys(view[name], near)
        for members, taken in waves[start:]:
            if not keys & taken and not near[name] & set(members):
                members.append(name)
                taken |= keys
                break
        else:
            waves.append(([name], set(keys)))
    return tuple(tuple(m) for m, _ in waves)


@st.composite
def _fabrics(draw: st.DrawFn) -> dict[str, RolloutSwitch]:
    roles = draw(st.lists(st.sampled_from(["rail", "spine", "super-spine"]), min_size=1, max_size=24))
    names = [f"{r}{i}" for i, r in enumerate(roles)]
    out: dict[str, RolloutSwitch] = {}
    for name, role in zip(names, roles, strict=True):
        pod = draw(st.integers(1, 2)) if role != "super-spine" else None
        seg = draw(st.integers(1, 2)) if role == "rail" else None
        peers = draw(st.lists(st.sampled_from(names), max_size=4, unique=True))  # cables seen from one end too
        out[name] = RolloutSwitch(name, role, pod, seg, (0,), tuple(sorted(peers)))
    return out


@settings(max_examples=300, deadline=None)
@given(_fabrics())
def test_equals_first_fit(view: dict[str, RolloutSwitch]) -> None:
    plan = rollout_plan(view)
    assert plan.waves == _first_fit(view)
    assert sorted(plan.order) == sorted(view)


def test_small_fabric_by_hand() -> None:
    # rails a1, a2 (segment 1) and b1 (segment 2) cabled to spines s1 and s2 of pod 1; super-spines x1, x2 both
    # cabled to s1 (one plane), x3 to s2.
    # a1: the canary, wave 1. a2: segment 1 is held by wave 1 only, but wave 1 is never joined → wave 2; b1: wave 2
    # (other segment, not cabled to a2). Spines open their own waves: s1 wave 3, s2 (same pod) wave 4. x1 wave 5;
    # x2 shares s1 with x1 → wave 6; x3 (spine s2 only) joins wave 5.
    def sw(name: str, role: str, seg: int | None, peers: tuple[str, ...]) -> RolloutSwitch:
        return RolloutSwitch(name, role, 1 if role != "super-spine" else None, seg, (0,), peers)

    view = {"a1": sw("a1", "rail", 1, ("s1", "s2")), "a2": sw("a2", "rail", 1, ("s1", "s2")),
            "b1": sw("b1", "rail", 2, ("s1", "s2")), "s1": sw("s1", "spine", None, ()),
            "s2": sw("s2", "spine", None, ()), "x1": sw("x1", "super-spine", None, ("s1",)),
            "x2": sw("x2", "super-spine", None, ("s1",)), "x3": sw("x3", "super-spine", None, ("s2",))}
    assert rollout_plan(view).waves == (("a1",), ("a2", "b1"), ("s1",), ("s2",), ("x1", "x3"), ("x2",))
