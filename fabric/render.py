"""Render DeviceConfigs into their platform's files: text configurations through Jinja templates (one environment,
StrictUndefined, compiled once), files built as data through the platform's builder functions (SONiC
config_db.json: fabric/platforms/sonic_config_db.py), each imported once per process.

Templates only format. A template error becomes a RenderError naming the template, its line and the device; a
builder error names the builder, the source line where it failed and the device.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable
from functools import cache, lru_cache
from importlib import import_module
from pathlib import Path

import jinja2
import orjson

from fabric.device import DeviceConfig
from fabric.platforms import PLATFORMS, OutputFile
from fabric.resources import PACKAGE, templates_dir

FABRIC = PACKAGE
TEMPLATES = templates_dir()  # templates/ of the checkout, or fabric/_templates/ of an installed wheel


class RenderError(Exception):
    """A file that could not be rendered. `template` is the template (relative to templates/) or, for a builder,
    the source file (relative to the repository) where it failed, and `builder` the builder's "module:function"."""

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


@lru_cache(maxsize=4)
def environment(root: str = str(TEMPLATES)) -> jinja2.Environment:
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
    filters = platform_filters()
    if clash := sorted(set(filters) & set(env.filters)):
        raise ValueError(f"platform template filters {clash} would replace filters of the environment")
    env.filters.update(filters)
    return env


def platform_filters() -> dict[str, Callable[..., str]]:
    """Every platform's template filters (Platform.filters), imported; two platforms may not name the same one."""
    out: dict[str, Callable[..., str]] = {}
    for platform in PLATFORMS.values():
        for name, spec in platform.filters:
            if name in out:
                raise ValueError(f"template filter {name!r} of platform {platform.name} is already defined")
            module, _, function = spec.partition(":")
            out[name] = getattr(import_module(module), function)
    return out


def _where(exc: BaseException, root: str, entry: str) -> tuple[str, int | None]:
    """(template, line) of the innermost template frame of a rendering error (Jinja maps frames to templates),
    so an error inside a partial names the partial, not the include line."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        path = Path(frame.filename)
        if frame.filename.startswith(root) and path.suffix == ".j2":
            return path.relative_to(root).as_posix(), frame.lineno
    return entry, getattr(exc, "lineno", None)


@cache
def builder_function(spec: OutputFile) -> Callable[[DeviceConfig], str]:
    """The function that builds `spec`'s file, imported once per process."""
    return spec.build_function()


def _builder_where(exc: BaseException) -> tuple[str, int | None]:
    """(source file relative to the repository, line) of the innermost railfabric frame of a builder's error."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        path = Path(frame.filename)
        if path.is_relative_to(FABRIC):
            return path.relative_to(FABRIC.parent).as_posix(), frame.lineno
    return "", None


def _build(dev: DeviceConfig, spec: OutputFile) -> str:
    try:
        return builder_function(spec)(dev)
    except (ImportError, TypeError, ValueError, LookupError, AttributeError) as exc:
        source, line = _builder_where(exc)
        raise RenderError(dev.hostname, source, line, f"{type(exc).__name__}: {exc}",
                          builder=spec.builder) from None


def _render_template(dev: DeviceConfig, spec: OutputFile, env: jinja2.Environment, root: str) -> str:
    name = f"{dev.platform}/{spec.template}"
    try:
        return env.get_template(name).render(d=dev)
    except jinja2.TemplateSyntaxError as exc:
        raise RenderError(dev.hostname, exc.name or name, exc.lineno, exc.message or str(exc)) from None
    except (jinja2.TemplateError, TypeError, ValueError, KeyError, AttributeError) as exc:
        template, line = _where(exc, root, name)
        raise RenderError(dev.hostname, template, line, str(exc)) from None


def render_device(dev: DeviceConfig, root: str = str(TEMPLATES)) -> dict[str, str]:
    """File name → text for one device, per its platform's files: each from its builder or its entry template."""
    env = environment(root)
    return {spec.name: _build(dev, spec) if spec.builder else _render_template(dev, spec, env, root)
            for spec in PLATFORMS[dev.platform].files}
