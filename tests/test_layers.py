"""The package's layers: every module of railfabric/ imports only from its own layer or the layers below it, no two
modules import each other in a circle, and no railfabric module is imported by a name in a string. Imports are
read from the source (every `import` and `from ... import`, also inside functions and under TYPE_CHECKING), so a
late import cannot hide an upward arrow. The layers, bottom first, are the stages docs/architecture.md names.

Also the four places of a platform agree: its facts record (railfabric/platforms/<name>.py), its config builders
(railfabric/configs/<name>/), its parse-back reader (railfabric/verify/<name>.py) and its templates.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

from railfabric.configs.registry import BUILDERS, FILTERS, PACKAGES
from railfabric.platforms import PLATFORMS
from railfabric.verify.readers import READERS, SCHEMA_CHECKS
from tests.helpers import ROOT

PACKAGE = ROOT / "railfabric"
# bottom first; a module's layer is its first name below railfabric (a subpackage or a top-level module)
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__init__", "core"),  # shared records and utilities: findings, codes, text, units, addresses, progress
    ("platforms",),  # platform facts: what each switch OS can express and how it names things
    ("infiniband",),  # InfiniBand subnets: model, OpenSM's files, GUID binding, the ibsim lab (the inventory's
    # subnet is built by topology/infiniband.py, rendered by outputs/infiniband.py)
    ("inventory",),  # load, schema, intent
    ("topology",),  # the concrete switches, hosts and links
    ("plan",),  # allocation, MTU, buffers, sizing
    ("checks",),  # rules and the solver
    ("impact",),  # failure impact in GPUs, hosts and jobs, and maintenance waves (on the solver's model)
    ("device",),  # the vendor-neutral device model
    ("hosts",),  # the GPU servers' plan (their RoCE settings follow the switches' QoS model)
    ("configs",),  # each platform's config builders and the Jinja render
    ("outputs",),  # the fabric-wide files
    ("pipeline",),  # validate: load → intent → topology → allocation → checks
    ("emit",),  # the only writer
    ("verify",),  # reads rendered files back (below it: facts only, never the generator)
    ("lab",),  # runs the rendered configs in FRR
    ("cli", "__main__"),  # the `fabric` command
)
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}
# dynamic imports that are not railfabric modules: the vendor's schema models per release, and the Ansible filter
# plugin loading its sibling plugin files as Ansible does
DYNAMIC = {"railfabric/verify/nvue_schema.py", "railfabric/outputs/ansible_filters.py"}
# the verifier must not share the generator's logic: below it only facts, records and utilities
VERIFY_MAY_USE = ("core", "platforms", "__init__", "verify")


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The railfabric modules `name` imports (a `from X import y` of a submodule y counts as X.y)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, *([base] if base else [])])
            subs = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES}
            out |= subs
            if len(subs) < len(node.names):  # a name of the module (or package face) itself, not only submodules
                out.add(base)
    return {m for m in out if m in MODULES and m != name}


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYER["__init__" if len(parts) == 1 else parts[1]]


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def test_every_module_has_a_layer() -> None:
    assert sorted(m for m in MODULES if [*m.split("."), "__init__"][1] not in LAYER) == []


def _upward(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{m} ({LAYERS[_layer(m)][0]}) imports {t} ({LAYERS[_layer(t)][0]})"
                  for m, targets in graph.items() for t in targets if _layer(t) > _layer(m))


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Cycles of two modules or more (`from pkg import submodule` is no edge to the face: see _imports)."""
    return [c for c in nx.simple_cycles(nx.DiGraph([(m, t) for m, ts in graph.items() for t in ts])) if len(c) > 1]


def test_no_import_runs_up_a_layer() -> None:
    assert _upward(GRAPH) == []


def test_no_import_cycle() -> None:
    assert _cycles(GRAPH) == []


def test_the_verifier_never_imports_the_generator() -> None:
    bad = sorted(f"{m} imports {t}" for m, targets in GRAPH.items() if m.startswith("railfabric.verify.")
                 for t in targets if t.split(".")[1] not in VERIFY_MAY_USE)
    assert bad == []


def test_no_railfabric_module_is_imported_by_name() -> None:
    found = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        if ("import_module(" in text or "__import__(" in text or "spec_from_file_location(" in text) \
                and rel not in DYNAMIC:
            found.append(rel)
    assert found == []


def test_the_checks_bite() -> None:
    """The same checks on the real graph with one made-up upward import (core importing the CLI) and one made-up
    cycle (finding <-> causes, as it was before this layering)."""
    assert _layer("railfabric.cli.parser") > _layer("railfabric.emit.build") > _layer("railfabric.core.finding")
    bad = {**GRAPH, "railfabric.core.text": GRAPH["railfabric.core.text"] | {"railfabric.cli.parser"}}
    assert _upward(bad) == ["railfabric.core.text (__init__) imports railfabric.cli.parser (cli)"]
    looped = {**GRAPH, "railfabric.core.finding": GRAPH["railfabric.core.finding"] | {"railfabric.core.causes"}}
    assert sorted(map(sorted, _cycles(looped))) == [["railfabric.core.causes", "railfabric.core.finding"]]


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_a_platform_is_its_four_places(platform: str) -> None:
    record = PLATFORMS[platform]
    assert platform in {p.PLATFORM for p in PACKAGES}, f"railfabric/configs/{platform}/ is not in the registry"
    assert platform in READERS, f"railfabric/verify/{platform}.py has no READ"
    built = {name for (p, name) in BUILDERS if p == platform}
    assert built == {f.name for f in record.files if not f.template}  # every builder's file is the record's
    for f in record.files:
        if f.template:
            assert (ROOT / "templates" / platform / f.template).is_file()
    assert (ROOT / "railfabric" / "configs" / platform / record.ansible_plugin).is_file()
    assert set(SCHEMA_CHECKS) <= set(PLATFORMS)
    # SONiC's frr.conf neighbour lines; EOS's TCP-AO secret lifetimes (railfabric/configs/eos/keys.py)
    assert set(FILTERS) == {"frr_neighbors", "eos_transmit_lifetime", "eos_next_transmit_lifetime"}
