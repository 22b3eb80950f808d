"""`fabric sonic-yang`: validate every configs/*/config_db.json of a generated/ tree against SONiC's YANG models.

One line per problem, `DEVICE: CODE TABLE/KEY/FIELD: message`; exit 0 when every file passes, 1 on any problem,
2 when the models, yanglint or the configs are missing (with how to get them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from railfabric.core.text import one_line
from railfabric.verify.sonic_yang import models as model_source
from railfabric.verify.sonic_yang.schema import SchemaError, load
from railfabric.verify.sonic_yang.translate import Problem, Translation, translate
from railfabric.verify.sonic_yang.yanglint import Linter

MAX_LINE = 600


@dataclass(frozen=True, slots=True)
class DeviceProblem:
    device: str
    problem: Problem

    def __str__(self) -> str:
        where = self.problem.where
        text = f"{self.device}: {self.problem.code} {where + ': ' if where else ''}{self.problem.message}"
        return one_line(text, MAX_LINE)


class Unavailable(Exception):
    """The check cannot run here (exit 2): no models, no yanglint, no configs."""


def config_files(generated: Path) -> dict[str, Path]:
    """device -> its config_db.json, for every device of a generated/ tree."""
    files = {p.parent.name: p for p in sorted(generated.glob("configs/*/config_db.json")) if p.is_file()}
    if not files:
        raise Unavailable(f"{generated}: no configs/*/config_db.json (render first: `fabric render`)")
    return files


def check_configs(configs: dict[str, object], models: Path, yanglint: str = "yanglint") -> list[DeviceProblem]:
    """Every problem of the config_db documents `configs` (device -> parsed JSON), in device order."""
    schema = load(models, yanglint)
    translations: dict[str, Translation] = {}
    for device, config in configs.items():
        translations[device] = translate(config, schema)
    lint = Linter(schema, models, yanglint).check_many(translations)
    out: list[DeviceProblem] = []
    for device in sorted(configs):
        for problem in [*translations[device].problems, *lint[device]]:
            out.append(DeviceProblem(device, problem))
    return out


def check_generated(generated: Path, models: Path | None) -> list[DeviceProblem]:
    for why in (model_source.yanglint_problem(), model_source.models_dir_problem(models)):
        if why:
            raise Unavailable(why)
    assert models is not None
    configs: dict[str, object] = {}
    bad: list[DeviceProblem] = []
    for device, path in config_files(generated).items():
        try:
            configs[device] = json.loads(path.read_bytes())
        except (ValueError, UnicodeDecodeError) as exc:
            bad.append(DeviceProblem(device, Problem("YANG004", (), f"config_db.json is not JSON: {exc}")))
    try:
        found = check_configs(configs, models, model_source.yanglint_path() or "yanglint")
    except SchemaError as exc:
        raise Unavailable(str(exc)) from exc
    return sorted([*bad, *found], key=lambda p: p.device)


def cmd_sonic_yang(args: argparse.Namespace) -> int:
    models = args.models or os.environ.get(model_source.ENV_MODELS)
    try:
        problems = check_generated(Path(args.generated), Path(models) if models else None)
    except Unavailable as exc:
        print(f"fabric sonic-yang: {exc}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    devices = len(config_files(Path(args.generated)))
    failing = len({p.device for p in problems})
    print(f"{len(problems)} problem(s) in {failing} of {devices} config_db.json file(s)",
          file=sys.stderr if not problems else sys.stdout)
    return 1 if problems else 0
