"""Render DeviceConfigs through the platform templates: one Jinja environment, StrictUndefined, compiled once.

Templates only format. A template error becomes a RenderError naming the template, its line and the device.
JSON outputs are parsed and re-serialised with sorted keys, so they are always valid and byte-stable.
"""

from __future__ import annotations

import os
import traceback
from functools import lru_cache
from pathlib import Path

import jinja2
import orjson

from fabric.device import DeviceConfig
from fabric.platforms import PLATFORMS

_JSON_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


class RenderError(Exception):
    def __init__(self, device: str, template: str, line: int | None, message: str) -> None:
        self.device, self.template, self.line, self.message = device, template, line, message
        where = f"templates/{template}" + (f":{line}" if line else "")
        super().__init__(f"{where} (device {device}): {message}")


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
    return env


def _where(exc: BaseException, root: str, entry: str) -> tuple[str, int | None]:
    """(template, line) of the innermost template frame of a rendering error (Jinja maps frames to templates),
    so an error inside a partial names the partial, not the include line."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        path = Path(frame.filename)
        if frame.filename.startswith(root) and path.suffix == ".j2":
            return path.relative_to(root).as_posix(), frame.lineno
    return entry, getattr(exc, "lineno", None)


def render_device(dev: DeviceConfig, root: str = str(TEMPLATES)) -> dict[str, str]:
    """File name → text for one device, per its platform's entry templates."""
    env = environment(root)
    out: dict[str, str] = {}
    for spec in PLATFORMS[dev.platform].files:
        entry, filename = spec.template, spec.name
        name = f"{dev.platform}/{entry}"
        try:
            text = spec.build_function()(dev) if spec.builder else env.get_template(name).render(d=dev)
        except jinja2.TemplateSyntaxError as exc:
            raise RenderError(dev.hostname, exc.name or name, exc.lineno, exc.message or str(exc)) from None
        except (jinja2.TemplateError, TypeError, ValueError, KeyError, AttributeError) as exc:
            template, line = _where(exc, root, name)
            raise RenderError(dev.hostname, template, line, str(exc)) from None
        if filename.endswith(".json"):
            try:
                text = orjson.dumps(orjson.loads(text), option=_JSON_OPTIONS).decode() + "\n"
            except orjson.JSONDecodeError as exc:
                raise RenderError(dev.hostname, name, None, f"template produced invalid JSON: {exc}") from None
        out[filename] = text
    return out
