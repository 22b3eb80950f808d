"""The Jinja environment every template renders in (StrictUndefined, compiled once per process and cached on disk
between runs), the filters and globals every platform's templates share, and RenderError, the one error a file that
cannot be rendered becomes (naming the template or builder source, its line and the device). Platform filters are
added by railfabric.configs.render, which knows the platforms; builders that render their own templates (NX-OS,
Junos) use `environment()` here directly.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import jinja2
import orjson

from railfabric.core.resources import PACKAGE, templates_dir

FABRIC = PACKAGE
TEMPLATES = templates_dir()  # templates/ of the checkout, or railfabric/_templates/ of an installed wheel


class RenderError(Exception):
    """A file that could not be rendered. `template` is the template (relative to templates/) or, for a builder,
    the source file (relative to the repository) where it failed, and `builder` the builder's module.function."""

    def __init__(self, device: str, template: str, line: int | None, message: str, builder: str = "") -> None:
        self.device, self.template, self.line, self.message = device, template, line, message
        self.builder = builder
        at = f":{line}" if line else ""
        if builder:
            where = f"{template}{at} (builder {builder}, device {device})" if template else \
                f"builder {builder} (device {device})"
        else:
            where = f"templates/{template}{at} (device {device})"
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> tuple[type[RenderError], tuple[str, str, int | None, str, str]]:
        """Picklable with its fields, so an error in a render worker process reaches the parent intact."""
        return RenderError, (self.device, self.template, self.line, self.message, self.builder)


def _dscp_list(values: tuple[int, ...] | list[int]) -> str:
    return " ".join(str(v) for v in values)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates persist between runs (keyed by the template source's checksum, so edits recompile):
    a no-op `make render` then skips compiling. Off when the cache directory cannot be written."""
    if os.environ.get("RAILFABRIC_NO_TEMPLATE_CACHE"):
        return None
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "railfabric" / "jinja"
    try:
        base.mkdir(parents=True, exist_ok=True)
        probe = base / ".probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(base))


def _tojson(value: object) -> str:
    """JSON text of a value (strings escaped), as Jinja's filter but without HTML escaping; orjson for speed."""
    return orjson.dumps(value).decode()


def _render_once(env: jinja2.Environment) -> Callable[..., str]:
    """The `render_once(template, **values)` global: a partial whose text depends only on `values` (hashable, e.g.
    the frozen Qos shared by every switch) is rendered once per distinct values and its text reused, instead of
    once per port. Same text as `{% include %}` of that partial with those names in scope."""
    texts: dict[tuple[str, tuple[tuple[str, object], ...]], str] = {}

    def render_once(template: str, **values: object) -> str:
        key = (template, tuple(sorted(values.items())))
        text = texts.get(key)
        if text is None:
            text = texts[key] = env.get_template(template).render(**values)
        return text
    return render_once


@lru_cache(maxsize=8)
def environment(root: str = str(TEMPLATES), filters: tuple[tuple[str, Callable[..., str]], ...] = ()
                ) -> jinja2.Environment:
    """The environment for templates under `root`, with the shared filters and `filters` (name, function) added."""
    env = jinja2.Environment(
        bytecode_cache=_bytecode_cache(),
        loader=jinja2.FileSystemLoader(root),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
        cache_size=-1,
    )
    env.filters["dscp_list"] = _dscp_list
    env.filters["tojson"] = _tojson
    env.globals["render_once"] = _render_once(env)
    if clash := sorted({name for name, _fn in filters} & set(env.filters)):
        raise ValueError(f"platform template filters {clash} would replace filters of the environment")
    env.filters.update(filters)
    return env


def template_where(exc: BaseException, root: str, entry: str) -> tuple[str, int | None]:
    """(template, line) of the innermost template frame of a rendering error (Jinja maps frames to templates),
    so an error inside a partial names the partial, not the include line."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        path = Path(frame.filename)
        if frame.filename.startswith(root) and path.suffix == ".j2":
            return path.relative_to(root).as_posix(), frame.lineno
    return entry, getattr(exc, "lineno", None)
