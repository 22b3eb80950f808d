"""Schema stage: the loaded tree → an Inventory, with pydantic errors turned into located Findings."""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from railfabric.core.bounds import number_range
from railfabric.core.codes import CODES
from railfabric.core.finding import MAX_FINDINGS, Finding, overflow_note
from railfabric.core.source_map import SourceMap
from railfabric.core.textsafe import did_you_mean, quote
from railfabric.inventory.intent import Inventory

_PLAIN = re.compile(r"^[A-Za-z0-9_.-]+$")
# pydantic's error types about a number's value: their findings name the field's range (railfabric/core/bounds.py)
_NUMBER_ERRORS = frozenset({"less_than_equal", "greater_than_equal", "less_than", "greater_than", "finite_number",
                            "int_from_float", "int_type", "int_parsing", "int_parsing_size", "float_type",
                            "float_parsing"})


def dotted(path: tuple[Any, ...]) -> str:
    """pods[0].segments[1].rails; odd keys are quoted (textsafe.quote) so a message stays on one short line."""
    out = ""
    for p in path:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            text = str(p) if _PLAIN.match(str(p)) and len(str(p)) <= 64 else quote(str(p))
            out += ("." if out else "") + text
    return out or "<top>"


def _data_path(data: Any, loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """Keep the elements of pydantic's `loc` that index into the data (drop union/validator tags)."""
    path: list[Any] = []
    node = data
    for el in loc:
        in_dict = isinstance(node, dict) and el in node
        in_list = isinstance(node, list) and isinstance(el, int) and 0 <= el < len(node)
        if in_dict or in_list:
            path.append(el)
            node = node[el]
        elif isinstance(node, dict) and isinstance(el, str) and el == loc[-1] and el != "[key]":
            path.append(el)  # a missing or unknown key: keep it, the caller decides
            node = None
    return tuple(path)


def _unwrap(tp: Any) -> list[Any]:
    """The concrete types inside Annotated/Optional/list/dict annotations."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        out: list[Any] = []
        for a in typing.get_args(tp):
            out += _unwrap(a)
        return out
    return [tp]


def _model_at(path: tuple[Any, ...]) -> type[BaseModel] | None:
    """The pydantic model class that describes the mapping at `path`."""
    tp: Any = Inventory
    for el in path:
        candidates = _unwrap(tp)
        nxt = None
        for c in candidates:
            origin = typing.get_origin(c)
            if isinstance(c, type) and issubclass(c, BaseModel) and isinstance(el, str) and el in c.model_fields:
                nxt = c.model_fields[el].annotation
            elif origin is list and isinstance(el, int):
                nxt = typing.get_args(c)[0]
            elif origin is dict:
                nxt = typing.get_args(c)[1]
            if nxt is not None:
                break
        if nxt is None:
            return None
        tp = nxt
    for c in _unwrap(tp):
        if isinstance(c, type) and issubclass(c, BaseModel):
            return c
    return None


def _clean_msg(msg: str) -> str:
    """pydantic's message without its prefix (validators quote user text themselves, through textsafe.quote)."""
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            return msg[len(prefix):]
    return msg


def validate(data: dict[str, Any]) -> tuple[Inventory | None, list[ErrorDetails]]:
    """The Inventory, or None and pydantic's errors (validated once: findings and error paths both read them)."""
    try:
        return Inventory.model_validate(data), []
    except ValidationError as exc:
        return None, exc.errors(include_url=False)


def check_schema(data: dict[str, Any], source: SourceMap) -> tuple[Inventory | None, list[Finding]]:
    inv, errors = validate(data)
    return inv, schema_findings(data, errors, source)


def schema_findings(data: dict[str, Any], errors: list[ErrorDetails], source: SourceMap,
                    subject_of: Callable[[tuple[Any, ...]], tuple[Any, ...]] | None = None) -> list[Finding]:
    """A finding per schema error, at the file:line:col of the data it is about. `subject_of`: the inventory object
    an error's data path faults (the item the pipeline leaves out for it), for root cause first."""
    out: list[Finding] = []
    findings = _schema_findings(data, errors, source)
    if subject_of is None:
        return findings
    for f, err in zip(findings[len(findings) - min(len(errors), MAX_FINDINGS):], errors, strict=False):
        out.append(replace(f, subject=subject_of(_data_path(data, tuple(err["loc"])))))
    return findings[:len(findings) - len(out)] + out


def _schema_findings(data: dict[str, Any], errors: list[ErrorDetails], source: SourceMap) -> list[Finding]:
    findings: list[Finding] = []
    if len(errors) > MAX_FINDINGS:  # the finding budget: the rest are counted, not described
        findings.append(overflow_note(len(errors) - MAX_FINDINGS))
        errors = errors[:MAX_FINDINGS]
    for err in errors:
        loc = tuple(err["loc"])
        path = _data_path(data, loc)
        kind = err["type"]
        where = dotted(path)
        if loc and loc[-1] == "[key]":
            key = path[-1] if path else "?"
            findings.append(Finding("SCH003", f"{dotted(path[:-1])}: key {quote(str(key))} is not a valid name: "
                                    f"{_clean_msg(err['msg'])}", source.key_loc(path),
                                    "names are letters, digits, '.', '_' and '-', starting with a letter or digit"))
        elif kind == "extra_forbidden":
            key = path[-1] if path else loc[-1]
            model = _model_at(path[:-1])
            allowed = sorted(model.model_fields) if model else []
            close = did_you_mean(key, allowed)
            if close:
                hint = f"did you mean {quote(close)}?"
            else:
                hint = f"allowed keys here: {', '.join(allowed)}" if allowed else ""
            parent = dotted(path[:-1])
            findings.append(Finding("SCH001", f"unknown key {quote(key)} in {parent}", source.key_loc(path), hint))
        elif kind == "missing":
            key = loc[-1]
            parent_path = path[:-1] if path and path[-1] == key else path
            model = _model_at(parent_path)
            field = model.model_fields.get(str(key)) if model else None
            desc = f" ({field.description})" if field is not None and field.description else ""
            findings.append(Finding("SCH002", f"{dotted(parent_path)} is missing required key {key!r}{desc}",
                                    source.loc(parent_path), f"add `{key}:` here (see `fabric schema`)"))
        else:
            value = err.get("input")
            shown = quote(value) if isinstance(value, str | int | float | bool) or value is None else ""
            if kind == "SEC005":
                shown = ""  # a refused secret is never echoed
            msg = _clean_msg(err["msg"])
            code = kind if kind in CODES else "SEC003" if msg.startswith("name pattern") else "SCH003"
            hint = str((err.get("ctx") or {}).get("hint", ""))  # a validator's own hint (PydanticCustomError)
            if "; did you mean" in msg:
                hint = "did you mean" + msg.split("; did you mean", 1)[1]
            if not hint and kind in _NUMBER_ERRORS:
                bounded = number_range(Inventory, path)
                hint = bounded.hint() if bounded is not None else ""
            findings.append(Finding(code, f"{where}: {msg}" + (f" (got {shown})" if shown and shown not in msg
                                                                   else ""),
                                    source.loc(path), hint))
    return findings


def error_paths(data: dict[str, Any], errors: list[ErrorDetails]) -> list[tuple[Any, ...]]:
    """The data path of every schema error (what the pipeline prunes to check the rest)."""
    return [_data_path(data, tuple(err["loc"])) for err in errors]
