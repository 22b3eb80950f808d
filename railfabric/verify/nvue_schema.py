"""NVUE startup.yaml files against NVIDIA's own NVUE object model for their Cumulus Linux release.

NVIDIA publishes the NVUE object model as an OpenAPI specification per release. The `nvueschema` package (PyPI,
MIT) carries Pydantic v2 models generated from those specifications for Cumulus Linux 5.0-5.18, one module per
release (`nvueschema.models.v5_14`, root `NvueConfig`, the tree under `- set:`). Its models ignore unknown keys;
`nv config replace` refuses them, so here every model of the release is made to forbid them before validating. The
package is young and third-party: where its models and NVIDIA's documents disagree, railfabric/platforms/nvue_release.py
says which was followed.

Offline only: the package's optional Go validator downloads NVIDIA's specification, which this does not use.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import import_module
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from railfabric.core import safe_yaml


class SchemaUnavailable(Exception):
    """No model of that release is installed."""


@dataclass(frozen=True, slots=True)
class Violation:
    path: str  # the NVUE path, e.g. system.aaa.authentication-order.10
    message: str

    def __str__(self) -> str:
        return f"{self.path or '/'}: {self.message}"


def module_name(release: str) -> str:
    major, _, minor = release.partition(".")
    return f"nvueschema.models.v{major}_{minor.split('.')[0]}"


@cache
def root_model(release: str) -> type[BaseModel]:
    """The strict root model of `release` ('5.14'): every class of its module rebuilt with unknown keys forbidden.
    A class's name extends its parent's (NvueConfigSystem → NvueConfigSystemAaa), so rebuilding the longest names
    first gives each parent the strict schemas of its children in one pass."""
    try:
        module = import_module(module_name(release))
    except ImportError as exc:
        raise SchemaUnavailable(f"no NVUE schema for Cumulus Linux {release} ({exc})") from None
    classes = [c for _, c in inspect.getmembers(module, inspect.isclass)
               if issubclass(c, BaseModel) and c.__module__ == module.__name__]
    for cls in classes:
        cls.model_config["extra"] = "forbid"
    for cls in sorted(classes, key=lambda c: (-len(c.__name__), c.__name__)):
        cls.model_rebuild(force=True)
    return module.NvueConfig


def _path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) for p in loc)


def violations(document: Any, release: str) -> list[Violation]:
    """What NVIDIA's schema of `release` refuses in a startup.yaml document (the YAML list `- set: {...}`)."""
    if not (isinstance(document, list) and len(document) == 1 and isinstance(document[0], dict)
            and set(document[0]) == {"set"} and isinstance(document[0]["set"], dict)):
        return [Violation("", "not an NVUE startup.yaml: one list item `- set:` holding a mapping")]
    try:
        root_model(release).model_validate(document[0]["set"])
    except ValidationError as exc:
        return [Violation(_path(e["loc"]), e["msg"]) for e in exc.errors(include_url=False)]
    return []


@lru_cache(maxsize=2)
def document(text: str) -> Any:
    """A startup.yaml's text parsed, read-only: `fabric verify` reads each file twice, with the NVUE reader
    (railfabric.verify.nvue) and then with check_text right after (railfabric.verify.run.VendorSchemas), and the
    parse is most of the NVUE reader's time, so the second read takes the first's document. Neither changes it."""
    return safe_yaml.load(text)


def check_text(text: str, release: str) -> list[str]:
    """What NVIDIA's schema of `release` refuses in a startup.yaml's text, one line per violation."""
    try:
        document_ = document(text)
    except yaml.YAMLError as exc:
        return [f"not YAML: {exc}"]
    return [str(v) for v in violations(document_, release)]
