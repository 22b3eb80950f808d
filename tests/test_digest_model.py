"""Digests of device models (railfabric/outputs/digest_model.py): every value counts, shared sections are digested once
and stand as markers, equal values digest alike whether shared or not, and nothing can pass for a marker."""

from __future__ import annotations

import copy
import dataclasses
import enum
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest

from railfabric.device import DeviceConfig, build_devices
from railfabric.outputs.digest import model_digest, model_digests
from railfabric.pipeline import run
from tests.helpers import EXAMPLE

# inventory/: 34 switches (see tests/test_incremental.py), one fabric-wide QoS profile: build_devices builds one Qos
# object and every device holds it.
SWITCHES = 34


@pytest.fixture(scope="module")
def built() -> dict[str, DeviceConfig]:
    r = run(EXAMPLE)
    return build_devices(r.inventory, r.topology, r.plan)  # type: ignore[arg-type]


@pytest.fixture
def devices(built: dict[str, DeviceConfig]) -> dict[str, DeviceConfig]:
    """A private copy (tests change objects in place)."""
    return copy.deepcopy(built)


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)  # frozen dataclasses too: this is a test of what a change does


def test_one_device_agrees_with_many(devices: dict[str, DeviceConfig]) -> None:
    many = model_digests(devices)
    assert len(many) == SWITCHES and len(set(many.values())) == SWITCHES  # hostnames differ, so every digest does
    assert all(model_digest(d) == many[h] for h, d in devices.items())


def test_change_in_shared_section_changes_exactly_its_holders(devices: dict[str, DeviceConfig]) -> None:
    qos = devices["p1-s1-rail0"].qos
    assert all(d.qos is qos for d in devices.values())  # one object, held by all 34
    # p1-s1-rail1 gets an equal but distinct copy: its digest must not move when the shared object changes
    devices["p1-s1-rail1"] = replace(devices["p1-s1-rail1"], qos=copy.deepcopy(qos))
    before = model_digests(devices)
    _set(qos, "roce_dscp", qos.roce_dscp + 1)
    after = model_digests(devices)
    changed = {h for h in devices if before[h] != after[h]}
    assert changed == set(devices) - {"p1-s1-rail1"} and len(changed) == SWITCHES - 1


def test_change_deep_inside_shared_section(devices: dict[str, DeviceConfig]) -> None:
    qos = devices["p1-s1-rail0"].qos
    assert qos.ecn is not None
    before = model_digests(devices)
    _set(qos.ecn, "max_bytes", qos.ecn.max_bytes + 1)  # Qos.ecn: a section within the section
    after = model_digests(devices)
    assert all(before[h] != after[h] for h in devices)


def test_equal_but_distinct_sections_digest_alike(devices: dict[str, DeviceConfig]) -> None:
    d = devices["p1-s1-rail3"]
    assert d.buffers is not None
    before = model_digest(d)
    alone = replace(d, qos=copy.deepcopy(d.qos), buffers=copy.deepcopy(d.buffers), bgp=copy.deepcopy(d.bgp),
                    interfaces=copy.deepcopy(d.interfaces))
    assert alone.qos is not d.qos and alone.buffers is not d.buffers
    assert model_digest(alone) == before
    assert model_digests({"a": d, "b": alone}) == {"a": before, "b": before}


def _leaves(obj: object, path: str = "") -> Iterator[tuple[object, str, str]]:
    """(holder, field, path) of every field of every dataclass reachable from `obj` through fields and tuples."""
    if dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            yield obj, f.name, f"{path}.{f.name}"
            yield from _leaves(getattr(obj, f.name), f"{path}.{f.name}")
    elif isinstance(obj, tuple):
        for i, v in enumerate(obj[:2]):  # the first two of each tuple: enough to reach every field of every record
            yield from _leaves(v, f"{path}[{i}]")


def _other(value: object) -> object:
    """A different value of the same kind."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, tuple):
        return value[:-1] if value else ("x",)
    if value is None:
        return 0  # where a record is declared, refused (see below)
    return None  # a record: drop it


@pytest.mark.parametrize("host", ["p1-s1-rail3", "p1-s2-rail0-4", "p1-spine1", "core-ss1"])
def test_every_value_counts(devices: dict[str, DeviceConfig], host: str) -> None:
    """Change each field of each record of one device (SONiC rail, EOS rail, spine, super-spine), one at a time: the
    digest moves every time, and comes back when the value is put back."""
    d = devices[host]
    base = model_digest(d)
    seen = 0
    for holder, name, path in list(_leaves(d)):
        old = getattr(holder, name)
        _set(holder, name, _other(old))
        try:
            assert model_digest(d) != base, path
        except TypeError:
            # 0 in place of an absent record (Mlag, Ecn, ...), "x" in an empty tuple of records: refused, not ignored
            assert old is None or old == (), path
        _set(holder, name, old)
        seen += 1
    assert model_digest(d) == base
    assert seen > 100  # DeviceConfig alone has 28 fields; interfaces, BGP, QoS and system add many more


@dataclass(frozen=True)
class Inner:
    x: int


@dataclass(frozen=True)
class Other:
    y: int


@dataclass(frozen=True)
class Holder:
    name: str
    extra: object = None  # the annotation says nothing: encoded by runtime type
    tags: frozenset[str] = frozenset()


def test_nothing_passes_for_a_marker() -> None:
    inner = Inner(1)
    marker_hex = model_digest(inner)
    as_ref = model_digest(Holder("a", inner))
    as_dict = model_digest(Holder("a", {"$digest": marker_hex}))
    as_text = model_digest(Holder("a", f'{{"$digest":"{marker_hex}"}}'))
    as_list = model_digest(Holder("a", ["$digest", marker_hex]))
    assert len({as_ref, as_dict, as_text, as_list}) == 4
    # nor a string field holding a marker's text, in place of a record
    assert model_digest(Holder(f'{{"$digest":"{marker_hex}"}}')) != model_digest(Holder("a"))


def test_layout_is_part_of_the_digest() -> None:
    assert model_digest(Inner(1)) != model_digest(Other(1))  # same values, another class (field name)
    assert model_digest(Holder("a", Inner(1))) != model_digest(Holder("a", Other(1)))


def test_sets_are_sorted() -> None:
    ab, ba = frozenset(["a", "b"]), frozenset(["b", "a"])
    assert model_digest(Holder("a", tags=ba)) == model_digest(Holder("a", tags=ab))
    assert model_digest(Holder("a", tags=frozenset(["a"]))) != model_digest(Holder("a", tags=frozenset(["a", "b"])))
    assert model_digest(Holder("a", {3, 1, 2})) == model_digest(Holder("a", {2, 3, 1}))


class Colour(enum.Enum):
    RED = "red"


@pytest.mark.parametrize("bad", [object(), b"bytes", Colour, lambda: 1])
def test_unknown_types_are_refused(bad: Any) -> None:
    with pytest.raises(TypeError):
        model_digest(Holder("a", bad))


def test_wrong_kinds_are_refused(devices: dict[str, DeviceConfig]) -> None:
    d = devices["p1-s1-rail3"]
    with pytest.raises(TypeError):  # a record where the annotation promises a string
        model_digest(replace(d, hostname=Inner(1)))  # type: ignore[arg-type]
    with pytest.raises(TypeError):  # a set where it promises a tuple of ints
        model_digest(replace(d, rails={3}))  # type: ignore[arg-type]
    with pytest.raises(TypeError):  # another record where it promises a Qos
        model_digest(replace(d, qos=Inner(1)))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Tree:
    label: str
    leaves: tuple[Leaf, ...] = ()


@dataclass(frozen=True)
class Leaf:
    weight: int
    subtrees: tuple[Tree, ...] = ()  # Tree and Leaf hold each other inline


def test_schema_does_not_depend_on_the_order_classes_are_met(monkeypatch: pytest.MonkeyPatch) -> None:
    import railfabric.outputs.digest_model as dm

    value = Tree("t", (Leaf(1, (Tree("u"),)),))
    tree_first = model_digest(value), model_digest(Leaf(2))
    for name in ("_PLANS", "_SCHEMAS", "_SHAPES"):  # as a fresh process that meets Leaf first
        monkeypatch.setattr(dm, name, {})
    leaf = model_digest(Leaf(2))
    assert (model_digest(value), leaf) == tree_first
    assert model_digest(Tree("t", (Leaf(1, (Tree("v"),)),))) != tree_first[0]  # deep inside the recursion counts


def test_values_getter() -> None:
    """The compiled getter of a record's field values: the values in the order given, only for field names."""
    import railfabric.outputs.digest_model as dm

    get = dm._values_getter(["y", "x"])
    assert get(_XY(1, 2)) == (2, 1)  # y, then x
    with pytest.raises(ValueError):
        dm._values_getter(["x"])  # one field is a plain attribute read, not a tuple
    with pytest.raises(ValueError):
        dm._values_getter(["x", "y) or (0"])  # never code: only identifiers
    with pytest.raises(ValueError):
        dm._values_getter(["x", "class"])


@dataclass(slots=True)
class _XY:
    x: int
    y: int


def test_records_of_another_class_are_refused(devices: dict[str, DeviceConfig]) -> None:
    """A tuple of records is dumped positionally, as the declared class's fields: an element of any other class
    (even a subclass with the same fields, or one that lacks them) is refused, never dumped in its place."""
    d = devices["p1-s1-rail3"]
    last = d.interfaces[-1]

    @dataclass(slots=True)
    class Lookalike(type(last)):  # type: ignore[misc]
        pass

    same = Lookalike(**{f.name: getattr(last, f.name) for f in dataclasses.fields(last)})
    for stranger in (same, Inner(1)):
        with pytest.raises(TypeError):
            model_digest(replace(d, interfaces=(*d.interfaces[:-1], stranger)))  # type: ignore[arg-type]
    assert model_digest(replace(d, interfaces=(*d.interfaces[:-1], copy.copy(last)))) == model_digest(d)
