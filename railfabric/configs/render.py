"""Render DeviceConfigs into their platform's files: text configurations through Jinja templates (the environment of
railfabric.configs.jinja with every platform's filters), files built as data through the platform's builder
functions (railfabric.configs.registry: e.g. SONiC's config_db.json, railfabric/configs/sonic/config_db.py).

Templates only format. A template error becomes a RenderError naming the template, its line and the device; a
builder error names the builder, the source line where it failed and the device.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path

import jinja2

from railfabric.configs import jinja
from railfabric.configs.jinja import FABRIC, TEMPLATES, RenderError, template_where
from railfabric.configs.registry import BUILDERS, FILTERS
from railfabric.device import DeviceConfig
from railfabric.platforms import PLATFORMS, OutputFile

__all__ = ["TEMPLATES", "RenderError", "builder_for", "environment", "platform_filters", "render_device",
           "render_file"]


def platform_filters() -> dict[str, Callable[..., str]]:
    """Every platform's template filters (railfabric.configs.registry.FILTERS)."""
    return dict(FILTERS)


def environment(root: str = str(TEMPLATES)) -> jinja2.Environment:
    """The environment for templates under `root` with every platform's filters."""
    return jinja.environment(root, tuple(sorted(FILTERS.items())))


def builder_for(platform: str, spec: OutputFile) -> Callable[[DeviceConfig], str]:
    """The function that builds `spec`'s file on `platform` (a file of the platform's record without a template)."""
    return BUILDERS[platform, spec.name]


def _builder_where(exc: BaseException) -> tuple[str, int | None]:
    """(source file relative to the repository, line) of the innermost railfabric frame of a builder's error."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        path = Path(frame.filename)
        if path.is_relative_to(FABRIC):
            return path.relative_to(FABRIC.parent).as_posix(), frame.lineno
    return "", None


def _build(dev: DeviceConfig, spec: OutputFile) -> str:
    build = builder_for(dev.platform, spec)
    try:
        return build(dev)
    except (ImportError, TypeError, ValueError, LookupError, AttributeError) as exc:
        source, line = _builder_where(exc)
        raise RenderError(dev.hostname, source, line, f"{type(exc).__name__}: {exc}",
                          builder=f"{build.__module__}.{build.__qualname__}") from None


def _render_template(dev: DeviceConfig, spec: OutputFile, env: jinja2.Environment, root: str) -> str:
    name = f"{dev.platform}/{spec.template}"
    try:
        return env.get_template(name).render(d=dev)
    except jinja2.TemplateSyntaxError as exc:
        raise RenderError(dev.hostname, exc.name or name, exc.lineno, exc.message or str(exc)) from None
    except (jinja2.TemplateError, TypeError, ValueError, KeyError, AttributeError) as exc:
        template, line = template_where(exc, root, name)
        raise RenderError(dev.hostname, template, line, str(exc)) from None


def render_device(dev: DeviceConfig, root: str = str(TEMPLATES)) -> dict[str, str]:
    """File name → text for one device, per its platform's files: each from its builder or its entry template."""
    env = environment(root)
    return {spec.name: _render_template(dev, spec, env, root) if spec.template else _build(dev, spec)
            for spec in PLATFORMS[dev.platform].files}


def render_file(dev: DeviceConfig, name: str, root: str = str(TEMPLATES)) -> str:
    """The text of one of the device's files (`name`, one of its platform's files), rendered as render_device does."""
    spec = next(f for f in PLATFORMS[dev.platform].files if f.name == name)
    return _render_template(dev, spec, environment(root), root) if spec.template else _build(dev, spec)
