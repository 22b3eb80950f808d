"""The unit of incremental building: a Part (one independently cached piece of an artifact) and Once (a value
computed on first use and shared by the parts that need it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")


class Once(Generic[T]):
    """A value computed on first use and kept (shared by the parts that need it, only when one is rebuilt)."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make, self._value, self._done = make, cast(T, None), False

    def __call__(self) -> T:
        if not self._done:
            self._value, self._done = self._make(), True
        return self._value


@dataclass(frozen=True)
class Part:
    """One independently cached piece of an artifact: `build()` returns {path under generated/: text} and must read
    nothing that `digest` does not cover. `key` is unique across all artifacts (the manifest's entry name; a whole
    artifact is one part keyed by its name), `artifact` names the artifact it belongs to. `shares`: values computed
    on first use (Once) that `build` reads and other parts may read too: when the parts are split between processes
    (railfabric.emit.workers), one such value needed on both sides is computed before they part, not once in each."""
    key: str
    artifact: str
    digest: str
    build: Callable[[], Mapping[str, str]]
    shares: tuple[Once[Any], ...] = ()
