"""Where railfabric finds the files it ships beside its code: the one place that knows the two layouts.

`templates/` at the repository's top level is the source of truth (Jinja templates, each platform's Ansible push
tasks, the shared playbook). A wheel carries the same tree as the data directory `railfabric/_templates/`
(pyproject.toml maps the package `fabric._templates` onto `templates/`), so:

- installed from a wheel (`pip install railfabric` or `pip install .`): `<site-packages>/railfabric/_templates/`;
- a checkout or an editable install (`pip install -e .`, what `make` does): `<checkout>/templates/`, the
  `railfabric/` package's sibling; nothing is copied, an edited template is used at once.

The shipped tree wins when both exist. Every reader of templates goes through `templates_dir()`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent  # railfabric/ (this file is railfabric/core/resources.py)
SHIPPED = PACKAGE / "_templates"  # inside an installed wheel
CHECKOUT = PACKAGE.parent / "templates"  # beside the package in the repository


class ResourceMissing(FileNotFoundError):
    """Neither layout holds the templates: a broken installation."""


@cache
def templates_dir() -> Path:
    """The directory holding `<platform>/` template folders and `ansible/` (absolute, resolved)."""
    for candidate in (SHIPPED, CHECKOUT):
        if candidate.is_dir():
            return candidate
    raise ResourceMissing(f"railfabric's templates are missing: neither {SHIPPED} nor {CHECKOUT} exists "
                          "(reinstall railfabric)")
