"""Scalar types and the strict base model shared by the inventory schema modules (railfabric/inventory/intent.py,
railfabric/inventory/intent_system.py). Moved here unchanged from railfabric/inventory/intent.py so that both modules
can use them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import netaddr
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, WithJsonSchema
from pydantic_core import PydanticCustomError

from railfabric.core.textsafe import FREE_TEXT_HINT, free_text_problem, quote


class StrictModel(BaseModel):
    """Unknown keys refused, values immutable, numbers finite (YAML's .inf, -.inf and .nan are refused: every number
    has a finite range, railfabric/core/bounds.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True, allow_inf_nan=False)


def _address(v: Any) -> netaddr.IPAddress:
    if isinstance(v, netaddr.IPAddress):
        return v
    if not isinstance(v, str) or "/" in v:
        raise ValueError("must be an IPv4 address such as '192.168.0.10'")
    try:
        addr = netaddr.IPAddress(v, flags=netaddr.INET_PTON)
    except (netaddr.AddrFormatError, ValueError):
        raise ValueError(f"{quote(v)} is not an IPv4 address") from None
    if addr.version != 4:
        raise ValueError(f"{quote(v)} is not an IPv4 address")
    return addr


IPv4Addr = Annotated[
    netaddr.IPAddress,
    BeforeValidator(_address),
    PlainSerializer(str),
    WithJsonSchema({"type": "string", "description": "IPv4 address, e.g. '192.168.0.10'"}),
]


def _free_text(v: str) -> str:
    problem = free_text_problem(v)
    if problem:
        raise PydanticCustomError("SEC004", "free text {text} {problem}",
                                  {"text": quote(v), "problem": problem, "hint": FREE_TEXT_HINT})
    return v


# Descriptive text (rack, ...): the character rules of railfabric/core/textsafe.py, so no output format can be injected.
FreeText = Annotated[str, Field(max_length=200), AfterValidator(_free_text)]


def _release(v: Any) -> Any:
    if isinstance(v, int | float) and not isinstance(v, bool):
        raise PydanticCustomError(
            "release_as_number", "release {value} was read as a number (YAML reads 5.10 as 5.1): write it in quotes "
            "as the vendor does, e.g. '5.10'", {"value": v})
    return v


# A switch OS release as its vendor writes it ('5.14', '4.32.2F', '10.4(3)F', '23.4R2-EVO'); which ones a platform
# renders is its record's `releases` (railfabric/platforms/base.py), checked by
# railfabric/checks/rules/release_rules.py.
Release = Annotated[str, BeforeValidator(_release), Field(pattern=r"^[0-9][0-9A-Za-z.()-]{0,31}$")]


def prefix_parser(version: int, example: str) -> Callable[[Any], netaddr.IPNetwork]:
    """The validator of an IPv`version` prefix with its length and no host bits (`example` is shown in errors):
    the IPv4 pools and the IPv6 pools of a dual-stack fabric read prefixes the same way."""

    def parse(v: Any) -> netaddr.IPNetwork:
        if isinstance(v, netaddr.IPNetwork):
            return v
        if not isinstance(v, str):
            raise ValueError(f"must be an IPv{version} prefix such as '{example}'")
        try:
            net = netaddr.IPNetwork(v)
        except (netaddr.AddrFormatError, ValueError, TypeError):
            raise ValueError(f"{quote(v)} is not an IPv{version} prefix such as '{example}'") from None
        if net.version != version or "/" not in v:
            raise ValueError(f"{quote(v)} must be an IPv{version} prefix with a length, such as '{example}'")
        if net.ip != net.network:
            raise ValueError(f"{quote(v)} has host bits set; did you mean '{net.cidr}'?")
        return net

    return parse
