"""Digests that decide what an incremental render may reuse (railfabric/emit/build.py, recorded in
generated/manifest.json).

A device's files are a pure function of three things, each digested here:
- its vendor-neutral model (`model_digests`, railfabric/outputs/digest_model.py: sha256 of a typed, positional dump of
  the DeviceConfig dataclass tree, sections shared by several devices digested once; about 0.3 s for 5,632 switches);
- its platform's renderer (`platform_digest`): every file under templates/<platform>/, the Python source of the
  render code (railfabric/configs/render.py, the platform's modules railfabric/platforms/<platform>.py and
  <platform>_*.py and every railfabric module those import, followed statically) and the railfabric version;
- nothing else: templates see only the device (`d`), builders only the DeviceConfig.

The versions of the libraries that format output (Jinja2, orjson) and of Python are deliberately NOT digested:
generated/manifest.json is committed and must come out byte-identical on every machine whose output is identical
(a developer's Jinja2 3.1.4 and CI's 3.1.6 render the same bytes), or `render --check` would fail on files that do
not differ. That the output does not depend on them inside the supported ranges is tested
(tests/test_wheel.py renders the example with the lowest allowed versions and compares it byte for byte with
generated/). After upgrading a formatting library across a range boundary, render once with `--full`.

Code is digested by source, not by version alone, so a developer's edit of a builder or a template invalidates
exactly the platforms whose render reads it, even when the version string did not move.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

import orjson

from railfabric import __version__
from railfabric.configs.render import TEMPLATES as RENDER_TEMPLATES
from railfabric.outputs.digest_model import model_digest as model_digest
from railfabric.outputs.digest_model import model_digests as model_digests

FABRIC = Path(__file__).resolve().parent.parent  # railfabric/ (this file is railfabric/outputs/digest.py)
ROOT = FABRIC.parent
# where railfabric.configs.render reads the templates (a module global: tests point it elsewhere)
TEMPLATES = RENDER_TEMPLATES

_DUMP_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.+\w*(?:\.\w+)*|railfabric(?:\.\w+)*)[ \t]+import[ \t]+"
                     r"(?:\(([^)]*)\)|([\w \t,]+))|import[ \t]+(railfabric(?:\.\w+)*))", re.M)


def _unserialisable(value: object) -> object:
    """orjson's fallback for what it does not dump natively: sets (sorted) and frozensets; anything else is a bug
    in the model (refuse loudly rather than hash a repr that could hide a change)."""
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"cannot digest a {type(value).__name__}")


def value_digest(value: object) -> str:
    """sha256 of a canonical dump of a value built of dataclasses, tuples, lists, dicts, enums and scalars."""
    return hashlib.sha256(orjson.dumps(value, default=_unserialisable, option=_DUMP_OPTIONS)).hexdigest()


class ItemsDigest:
    """The digest of a sequence of (key, value) pairs, fed one at a time (a view is digested while it is built, each
    value still in the processor's cache): sha256 of a tag, a NUL, then each pair dumped as value_digest dumps the
    list [key, value]. Each dump is one complete JSON text (JSON holds no raw NUL), so the sequence of pairs is
    recovered from the hashed bytes: two sequences that differ in any key, value or order never hash alike."""

    __slots__ = ("_hash",)

    def __init__(self, tag: str) -> None:
        self._hash = hashlib.sha256(tag.encode() + b"\0")

    def add(self, key: object, value: object) -> None:
        self._hash.update(orjson.dumps([key, value], default=_unserialisable, option=_DUMP_OPTIONS))

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def combine(parts: Iterable[str]) -> str:
    """One digest of several (order matters): sha256 of each part followed by a NUL (hex digests and names hold no
    NUL), hashed as one text."""
    items = list(parts)
    return hashlib.sha256(("\0".join(items) + "\0").encode() if items else b"").hexdigest()


@cache
def _module_file(name: str) -> Path | None:
    """fabric.a.b → railfabric/a/b.py or railfabric/a/b/__init__.py; None when not railfabric's own source (memoised:
    the same names are asked for by every module that imports them, in every closure of a run)."""
    rel = Path(*name.split("."))
    for cand in (ROOT / rel.with_suffix(".py"), ROOT / rel / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


@cache
def _source(path: Path) -> tuple[bytes, frozenset[Path]]:
    """The sha256 of railfabric source file `path` and the railfabric modules it imports, read once per process:
    every code digest of a run (the platforms', each artifact's) walks overlapping closures of the same files."""
    data = path.read_bytes()
    return hashlib.sha256(data).digest(), frozenset(_imports(path, data.decode("utf-8")))


def _imports(path: Path, text: str) -> set[Path]:
    """railfabric modules `path` imports (absolute and relative; `from pkg import sub` counts sub when a module)."""
    own = _module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found: set[Path] = set()
    for m in _IMPORT.finditer(text):
        base, names, plain = m.group(1), m.group(2) or m.group(3) or "", m.group(4)
        if plain:
            targets = [plain]
        else:
            if base.startswith("."):
                dots = len(base) - len(base.lstrip("."))
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (dots - 1)] if dots > 1 else anchor
                base = ".".join([*anchor, base.lstrip(".")]).rstrip(".")
            targets = [base, *(f"{base}.{n.split()[0]}" for n in names.split(",") if n.split())]
        for t in targets:
            f = _module_file(t)
            if f is not None:
                found.add(f)
            # a package's parent packages run too (railfabric.device.x imports railfabric/device/__init__.py)
            parts = t.split(".")
            for i in range(1, len(parts)):
                parent = _module_file(".".join(parts[:i]))
                if parent is not None:
                    found.add(parent)
    return found


@cache
def code_closure(*roots: Path) -> tuple[Path, ...]:
    """`roots` and every railfabric module they import, transitively (read statically: imports inside functions
    count too), sorted."""
    seen: set[Path] = set()
    todo = [r.resolve() for r in roots]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        todo.extend(_source(p)[1] - seen)
    return tuple(sorted(seen))


def files_digest(paths: Iterable[Path], base: Path = ROOT, read: Callable[[Path], bytes] | None = None) -> str:
    """Digest of files by their path relative to `base` and their bytes; `read(path)` gives a file's sha256
    (default: read it now)."""
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.relative_to(base).as_posix().encode() + b"\0")
        h.update(read(p) if read is not None else hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def _code_files_digest(paths: Iterable[Path]) -> str:
    """files_digest of railfabric source files (from code_closure), each read and hashed once per process."""
    return files_digest(paths, ROOT, lambda p: _source(p)[0])


def tool_digest() -> str:
    """railfabric's version (not the libraries' or Python's: see the module docstring)."""
    return combine(["railfabric", __version__])


def tree_files(folder: Path) -> list[Path]:
    """The files of `folder` that ship: no dot files (templates/.gitkeep is not in the wheel), no bytecode."""
    if not folder.is_dir():
        return []
    return [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
            and not any(part.startswith(".") for part in p.relative_to(folder).parts)]


def data_digest(paths: Iterable[Path]) -> str:
    """Digest of data files or folders read verbatim (each by its own name and content)."""
    return combine(files_digest([p], p.parent) if p.is_file() else files_digest(tree_files(p), p.parent)
                   for p in paths)


@cache
def platform_digest(platform: str) -> str:
    """Digest of everything that turns one device model of `platform` into its files (see the module doc)."""
    modules = [FABRIC / "configs" / "render.py", *sorted((FABRIC / "platforms").glob(f"{platform}.py")),
               *sorted((FABRIC / "configs" / platform).glob("*.py"))]
    return combine([tool_digest(), files_digest(tree_files(TEMPLATES / platform), TEMPLATES),
                    _code_files_digest(code_closure(*modules))])


@cache
def code_digest(*modules: str) -> str:
    """Digest of the source of railfabric modules (dotted names) and everything they import, with tool_digest."""
    roots = [f for f in (_module_file(m) for m in modules) if f is not None]
    return combine([tool_digest(), _code_files_digest(code_closure(*roots))])
