"""The digests of device models (railfabric.outputs.digest.model_digests): any change of any value of a model changes
its digest, at a fraction of the cost of dumping every model whole.

Two things make it cheap at 5,632 switches (339 MB of keyed JSON before):
- **Typed, positional form.** A dataclass is dumped as the list of its field values in field order, without the
  field names; its class's schema (module, name, every field's name and resolved annotation, for the class and
  every class whose instances it holds inline, transitively) is digested once per class and prefixed to every
  digest, so the same values under another layout never digest alike. Fields whose annotation holds only scalars
  (str, int, float, bool, None, enums and tuples of them) are handed to orjson as they are (one compiled getter per
  object); the other fields are encoded by a plan made once per class from its annotations.
- **Sections by reference.** A dataclass held directly in a field (DeviceConfig.qos, .buffers, .bgp, .system, ...;
  within them Qos.ecn, System.tacacs, ...) is digested on its own and stands in its holder's dump as
  {"$digest": hex}. The same object (qos and buffers are one object per fabric or per shape) is digested once per
  call: memoised by identity, which is safe because the memo holds each object for the whole call (ids cannot be
  reused). Whether a value stands by reference depends on where it is (the annotation), never on whether it is
  shared, so equal values digest alike whether shared or not, and model_digest(d) == model_digests({h: d})[h].

Unambiguous: a position typed as a dataclass only ever holds a marker or null (another type there is refused);
tuples of dataclasses are lists of lists; where the annotation says nothing useful (Any, object, dict, set, unions
of dataclasses with other types) values are encoded by their runtime type, and there every JSON object is a
tagged wrapper ({"$digest"}, {"$dict"}, {"$set"}), so a real dict or string can never pass for a marker. Anything
else (a value of a type this does not know, a dataclass or set where the annotation promises scalars) is refused.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import keyword
import threading
import types
import typing
from collections.abc import Callable, Mapping

import orjson

_Encoded = object
_Enc = Callable[[typing.Any, "_Digester"], _Encoded]
_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _refuse(value: object) -> object:
    """orjson's fallback: every value orjson would otherwise dump by itself (dataclasses, sets) in a position whose
    annotation promises scalars is a bug in the model; refuse it rather than digest something unplanned."""
    raise TypeError(f"cannot digest a {type(value).__name__} here")


class _Digester:
    """One call's memo: id(object) → (the object, kept alive for the call; its digest)."""

    __slots__ = ("memo",)

    def __init__(self) -> None:
        self.memo: dict[int, tuple[object, str]] = {}

    def digest(self, obj: object) -> str:
        hit = self.memo.get(id(obj))
        if hit is not None:
            return hit[1]
        cls = type(obj)
        known = _READY.get(cls)
        if known is None:
            known = _READY[cls] = (_schema(cls), _class_plan(cls)[0])
        text = orjson.dumps([known[0], known[1](obj, self)], default=_refuse, option=_OPTIONS)
        hexdigest = hashlib.sha256(text).hexdigest()
        self.memo[id(obj)] = (obj, hexdigest)
        return hexdigest


def model_digests(devices: Mapping[str, object]) -> dict[str, str]:
    """The digest of each device's model (a DeviceConfig), by hostname; sub-values shared by several devices are
    digested once (see the module doc)."""
    dg = _Digester()
    return {host: dg.digest(device) for host, device in devices.items()}


def model_digest(device: object) -> str:
    """The digest of one device's model: the same as model_digests gives it among others."""
    return _Digester().digest(device)


# --- the plans: how each annotation's values are encoded (None: as they are, by orjson) ---------------------------

def _is_dataclass_type(tp: object) -> typing.TypeGuard[type]:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


def _by_reference(classes: tuple[type, ...]) -> _Enc:
    """A position typed as a dataclass (or one of several, or None): the value's own digest as a marker."""
    allowed = frozenset(classes)

    def encode(value: object, dg: _Digester) -> _Encoded:
        if value is None:
            return None
        if type(value) not in allowed:
            raise TypeError(f"cannot digest a {type(value).__name__} where {sorted(c.__name__ for c in allowed)} is "
                            "declared")
        return {"$digest": dg.digest(value)}
    return encode


def _generic(value: object, dg: _Digester) -> _Encoded:
    """Encoding by runtime type, where the annotation does not say enough; every object it returns is tagged."""
    t = type(value)
    if t in _SCALARS or isinstance(value, enum.Enum):
        return value
    if t is tuple or t is list:
        return [_generic(v, dg) for v in typing.cast(tuple, value)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"$digest": dg.digest(value)}
    if t is dict:
        items = [(_generic(k, dg), _generic(v, dg)) for k, v in typing.cast(dict, value).items()]
        return {"$dict": sorted(([k, v] for k, v in items), key=lambda kv: orjson.dumps(kv[0], option=_OPTIONS))}
    if t is set or t is frozenset:
        members = [_generic(v, dg) for v in typing.cast(set, value)]
        return {"$set": sorted(members, key=lambda m: orjson.dumps(m, option=_OPTIONS))}
    raise TypeError(f"cannot digest a {t.__name__}")


def _inline_elements(elem: object) -> tuple[_Enc | None, list[type]]:
    """The plan for the elements of a homogeneous tuple or list, as a plan for the whole sequence: dataclass
    elements inline (each as its field list: one compiled comprehension over the sequence when all its fields are
    scalars), other elements as a field of that annotation would be; with the classes held inline (their schemas
    bind the holder's)."""
    if _is_dataclass_type(elem):
        encode, get = _class_plan(elem)
        only = {elem}

        def refuse(seq: tuple) -> TypeError:
            return TypeError(f"cannot digest {sorted({type(v).__name__ for v in seq})} as {elem.__name__}s")

        if get is not None:  # every field as it is: one compiled comprehension over the sequence
            values_of = _records_getter([f.name for f in dataclasses.fields(elem)])

            def scalar_records(seq: tuple, dg: _Digester) -> _Encoded:
                # the positional form is of `elem` only: checked first, in one C-level pass (a third of the cost
                # of a test per element inside the comprehension)
                if seq and set(map(type, seq)) != only:
                    raise refuse(seq)
                return values_of(seq)
            return scalar_records, [elem]

        def records(seq: tuple, dg: _Digester) -> _Encoded:
            if seq and set(map(type, seq)) != only:  # one C-level pass: the positional form is of `elem` only
                raise refuse(seq)
            return [encode(v, dg) for v in seq]
        return records, [elem]
    each, inline = _plan(elem)
    if each is None:
        return None, []
    return (lambda seq, dg: [each(v, dg) for v in seq]), inline


def _plan(ann: object) -> tuple[_Enc | None, list[type]]:
    """How values of annotation `ann` are encoded, and the dataclasses they hold inline."""
    if ann in _SCALARS or (isinstance(ann, type) and issubclass(ann, enum.Enum)):
        return None, []
    if _is_dataclass_type(ann):
        return _by_reference((ann,)), []
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is types.UnionType or origin is typing.Union:
        alternatives = [a for a in args if a is not type(None)]
        if all(_plan(a) == (None, []) for a in alternatives):
            return None, []
        if all(_is_dataclass_type(a) for a in alternatives):
            return _by_reference(tuple(alternatives)), []
        return _generic, []
    homogeneous = (origin is tuple and len(args) == 2 and args[1] is Ellipsis) or (origin is list and len(args) == 1)
    if homogeneous:
        return _inline_elements(args[0])
    if origin is tuple and all(_plan(a) == (None, []) for a in args):
        return None, []
    return _generic, []


_Plan = tuple[_Enc, Callable[[typing.Any], tuple] | None]
_PLANS: dict[type, _Plan] = {}
_SCHEMAS: dict[type, str] = {}
_SHAPES: dict[type, tuple[list[object], list[type]]] = {}  # class → (its own layout, the classes it holds inline)
_PLANNING: set[type] = set()
_READY: dict[type, tuple[str, _Enc]] = {}  # class → (its schema, its encoder): both made, read in one lookup
_LOCK = threading.RLock()  # plans are made once per class and process; a thread finds them made or waits


def _class_plan(cls: type) -> _Plan:
    """(the encoder of `cls`'s instances as the list of their field values, and when every field is dumped as it
    is and there are several: the getter that gives that list as a tuple)."""
    plan = _PLANS.get(cls)
    if plan is not None:
        return plan
    with _LOCK:
        plan = _PLANS.get(cls)
        if plan is not None:
            return plan
        if not _is_dataclass_type(cls):
            raise TypeError(f"cannot digest a {cls.__name__}: not a dataclass")
        if cls in _PLANNING:  # a class holding its own kind inline, met while its plan is being made: ask later
            return lambda obj, dg: _class_plan(cls)[0](obj, dg), None
        _PLANNING.add(cls)
        try:
            hints = typing.get_type_hints(cls)
            fields = dataclasses.fields(cls)
            layout: list[object] = [cls.__module__, cls.__qualname__]
            inline: list[type] = []
            deep: list[tuple[int, _Enc]] = []
            for i, f in enumerate(fields):
                encode, held = _plan(hints[f.name])
                layout.append([f.name, repr(hints[f.name])])
                inline.extend(held)
                if encode is not None:
                    deep.append((i, encode))
            _SHAPES[cls] = layout, inline
        finally:
            _PLANNING.discard(cls)
        names = [f.name for f in fields]
        plan = _fields_encoder(names, deep), _values_getter(names) if len(names) > 1 and not deep else None
        _PLANS[cls] = plan
        return plan


def _schema(cls: type) -> str:
    """The digest of the layouts of `cls` and of every class it holds inline, transitively (each class once,
    sorted: the same whatever order the classes were first met in)."""
    known = _SCHEMAS.get(cls)
    if known is not None:
        return known
    _class_plan(cls)  # plans cls and, through its annotations, every class it holds inline
    seen: dict[str, list[object]] = {}
    todo = [cls]
    while todo:
        c = todo.pop()
        layout, inline = _SHAPES[c]
        key = f"{c.__module__}.{c.__qualname__}"
        if key not in seen:
            seen[key] = layout
            todo.extend(inline)
    schema = _SCHEMAS[cls] = hashlib.sha256(orjson.dumps([seen[k] for k in sorted(seen)])).hexdigest()
    return schema


def _check_names(names: list[str]) -> None:
    """The compiled getters read two or more attributes, named by identifiers only (they are spliced into code)."""
    if len(names) < 2 or not all(n.isidentifier() and not keyword.iskeyword(n) for n in names):
        raise ValueError(f"not a getter's field names: {names}")


def _values_getter(names: list[str]) -> Callable[[typing.Any], tuple]:
    """A function giving the tuple of an object's attributes `names` (two or more), as attrgetter(*names) does but
    in half its time on slotted records: its attribute loads are specialised by the interpreter (compiled here,
    as dataclasses compiles __init__; the names are a dataclass's field names, so identifiers)."""
    _check_names(names)
    scope: dict[str, typing.Any] = {}
    exec(f"def values(o):\n    return ({', '.join(f'o.{n}' for n in names)})", scope)
    values: Callable[[typing.Any], tuple] = scope["values"]
    return values


def _records_getter(names: list[str]) -> Callable[[typing.Any], list[tuple]]:
    """A function giving, for a sequence of instances of one class (the caller checks their type), the tuple of
    their attributes `names` (two or more): one comprehension, no call per element."""
    _check_names(names)
    scope: dict[str, typing.Any] = {}
    exec(f"def values_of(seq):\n    return [({', '.join(f'o.{n}' for n in names)}) for o in seq]", scope)
    values_of: Callable[[typing.Any], list[tuple]] = scope["values_of"]
    return values_of


def _fields_encoder(names: list[str], deep: list[tuple[int, _Enc]]) -> _Enc:
    """An instance as the tuple of its field values, the `deep` ones (index, plan) encoded by their plan."""
    if not names:
        return lambda obj, dg: ()
    if len(names) == 1:
        name = names[0]
        single: _Enc = (lambda obj, dg: [deep[0][1](getattr(obj, name), dg)]) if deep else \
            (lambda obj, dg: [getattr(obj, name)])
        return single
    get = _values_getter(names)
    if not deep:
        return lambda obj, dg: get(obj)

    def encode(obj: object, dg: _Digester) -> _Encoded:
        values = list(get(obj))
        for i, plan in deep:
            values[i] = plan(values[i], dg)
        return values
    return encode
