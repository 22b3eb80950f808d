"""Export SONiC's YANG models from a sonic-buildimage checkout or git directory into a plain directory.

The models live in sonic-buildimage under `src/sonic-yang-models/yang-models/*.yang`, plus four Jinja templates in
`src/sonic-yang-models/yang-templates/*.yang.j2` that SONiC's build renders (its setup.py: a jinja2 Environment with
`trim_blocks=True`, rendered with `yang_model_type="py"` for the models sonic-yang-mgmt loads; "cvl" is the other
flavour, for the management framework). No package registry ships them and railfabric does not commit them: this
module copies them out of a checkout at test or make time.

    python -m railfabric.verify.sonic_yang.models SONIC_BUILDIMAGE DEST
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import jinja2

from railfabric.verify.sonic_yang import ENV_MODELS as ENV_MODELS

MODELS_SUBDIR = "src/sonic-yang-models/yang-models"
TEMPLATES_SUBDIR = "src/sonic-yang-models/yang-templates"
# What SONiC's build passes when it renders the templates (sonic-yang-models/setup.py, build_py).
TEMPLATE_VARIABLES = {"yang_model_type": "py"}
# Where the `fetch` tool leaves a bare copy of sonic-buildimage on the development machine.
MIRROR = Path("/work/.mirror/sonic-net+sonic-buildimage/repo")


class ExportError(Exception):
    """The source holds no SONiC YANG models (or git could not read them)."""


def _is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def _git_files(git_dir: Path, subdir: str, suffix: str, rev: str) -> dict[str, bytes]:
    """name -> content of the files directly under `subdir` ending in `suffix`, read from a git directory."""
    listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-z", "--name-only", f"{rev}:{subdir}"],
                             capture_output=True, check=False)
    if listing.returncode != 0:
        raise ExportError(f"{git_dir}: no {subdir} at {rev}: {listing.stderr.decode(errors='replace').strip()}")
    out: dict[str, bytes] = {}
    for name in sorted(n for n in listing.stdout.decode().split("\0") if n.endswith(suffix)):
        blob = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{rev}:{subdir}/{name}"],
                              capture_output=True, check=False)
        if blob.returncode != 0:
            raise ExportError(f"{git_dir}: cannot read {subdir}/{name}: {blob.stderr.decode(errors='replace').strip()}")
        out[name] = blob.stdout
    return out


def _dir_files(root: Path, subdir: str, suffix: str) -> dict[str, bytes]:
    folder = root / subdir
    if not folder.is_dir():
        raise ExportError(f"{root}: no {subdir} (expected a sonic-buildimage checkout or git directory)")
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name.endswith(suffix) and p.is_file()}


def render_template(text: str) -> str:
    """One .yang.j2 template rendered as SONiC's build renders it."""
    env = jinja2.Environment(trim_blocks=True, autoescape=False, undefined=jinja2.StrictUndefined)
    return env.from_string(text).render(**TEMPLATE_VARIABLES)


def export(source: Path, dest: Path, rev: str = "HEAD") -> list[str]:
    """Write every model of `source` (a checkout or a bare git dir) into `dest`; return the module file names."""
    source = Path(source)
    if _is_git_dir(source) or (_is_git_dir(source / ".git") and not (source / MODELS_SUBDIR).is_dir()):
        git_dir = source if _is_git_dir(source) else source / ".git"
        models = _git_files(git_dir, MODELS_SUBDIR, ".yang", rev)
        templates = _git_files(git_dir, TEMPLATES_SUBDIR, ".yang.j2", rev)
    else:
        models = _dir_files(source, MODELS_SUBDIR, ".yang")
        templates = _dir_files(source, TEMPLATES_SUBDIR, ".yang.j2")
    if not models:
        raise ExportError(f"{source}: no .yang files under {MODELS_SUBDIR}")
    dest.mkdir(parents=True, exist_ok=True)
    for name, data in models.items():
        (dest / name).write_bytes(data)
    for name, data in templates.items():
        (dest / name.removesuffix(".j2")).write_text(render_template(data.decode()), encoding="utf-8")
    return sorted([*models, *(n.removesuffix(".j2") for n in templates)])


def yanglint_path() -> str | None:
    return shutil.which("yanglint")


def models_dir_problem(models: Path | None) -> str | None:
    """Why the models directory cannot be used (None when it can)."""
    how = (f"export them from a sonic-buildimage checkout: `python -m railfabric.verify.sonic_yang.models "
           f"<sonic-buildimage> <dir>` (or `make sonic-yang SONIC_BUILDIMAGE=<path>`), then pass --models <dir> "
           f"or set {ENV_MODELS}")
    if models is None:
        return f"no SONiC YANG models given; {how}"
    if not models.is_dir():
        return f"{models}: not a directory of SONiC YANG models; {how}"
    if not (models / "sonic-types.yang").is_file() or not (models / "sonic-port.yang").is_file():
        return f"{models}: no sonic-types.yang/sonic-port.yang in it; {how}"
    return None


def yanglint_problem() -> str | None:
    if yanglint_path() is None:
        return ("yanglint not found: install libyang's tools (Debian/Ubuntu: `apt-get install libyang2-tools`, "
                "libyang 2.1)")
    return None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m railfabric.verify.sonic_yang.models SONIC_BUILDIMAGE DEST", file=sys.stderr)
        return 2
    try:
        names = export(Path(args[0]), Path(args[1]), rev=os.environ.get("SONIC_BUILDIMAGE_REV", "HEAD"))
    except (ExportError, OSError, jinja2.TemplateError) as exc:
        print(f"sonic-yang models: {exc}", file=sys.stderr)
        return 2
    print(f"{len(names)} SONiC YANG modules written to {args[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
