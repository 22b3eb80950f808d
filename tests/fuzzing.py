"""A schema-agnostic, seeded mutator over the shipped inventory, and the invariants every mutant must keep.

It knows nothing of railfabric's schema: it walks the YAML trees of `inventory/*.yml` and changes them the ways
people and attackers do (wrong types, deleted and unknown keys, duplicated and swapped list items, injected
newlines, control characters, Jinja, spreadsheet formulas, path separators, huge and zero numbers, numbers at and
past 2^63/2^64 and .inf/.nan, integers of thousands of digits), sometimes in the raw text after dumping.
`tests/test_fuzz.py` runs a few hundred seeds by default; `make fuzz` runs thousands (FUZZ_CASES).

The invariants (`check_case`): validate exits 0, 1 or 2 and never prints an internal error; every error finding has
a file and a line; an inventory that validates clean renders; nothing injected reaches an output file (no control
characters, no line the injection started, no Jinja in the Ansible files, no spreadsheet formula in a CSV cell, no
path outside generated/).
"""

from __future__ import annotations

import contextlib
import copy
import csv
import io
import random
import re
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

MARK = "RFZ"  # every injected text carries it, so an output can be searched for it
PAYLOADS = [
    "{{ RFZ }}", "{% RFZ %}", "{# RFZ #}", "{{RFZ", "=RFZ()", "+RFZ", "-RFZ", "@RFZ", "\tRFZ", "x\nRFZ: 1",
    "x\r\nRFZ", "a\x00RFZ", "a\x1bRFZ", "a\u2028RFZ", "../../RFZ", "/etc/RFZ", "..\\RFZ", "a;RFZ", "a' RFZ",
    'a" RFZ', "RFZ" * 3000, "", " ", "{RFZ}", "${RFZ}", "<RFZ/>", "!RFZ", "#RFZ", "RFZ\x85x", "ＲＦＺ", "RFZ\u202e",
    "p1-s1-RFZ", "P1-S1-RAIL0",
]
NUMBERS: list[Any] = [0, -1, 1, 3, 65, 4095, 4096, 2**31, 2**64, 10**100, 0.5, -0.0, True, False]
# numbers at the limits of the machine and of JSON readers (issue 28): past 2^63 and 2^64 (orjson, SAI), past 2^53
# (doubles), the float specials YAML writes as .inf/-.inf/.nan, a float that overflows to inf, and the same as
# strings in a unit ('1e400G' would be inf if parsed as a float)
EDGE_NUMBERS: list[Any] = [2**63 - 1, 2**63, 2**63 + 1, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64, 2**64 + 1,
                           2**53 + 1, 10**30, -(10**30), float("inf"), float("-inf"), float("nan"), 1e308, -1e308,
                           2**32, 2**32 - 1, -1, 0]
EDGE_TEXT = ["1" + "0" * 400 + "G", "1e400G", f"{2**64}G", f"{2**63}T", "inf", "nan", ".inf", "-1G", "0.0000001T",
             f"1-{2**64}", f"{2**64}", "9" * 5000]
WRONG: list[Any] = [None, [], {}, ["RFZ"], {"RFZ": 1}, "RFZ", 1.5]
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


Tree = Any
Path_ = tuple[Any, ...]


def _paths(node: Tree, prefix: Path_ = ()) -> Iterator[Path_]:
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*prefix, i))


def _get(node: Tree, path: Path_) -> Tree:
    for step in path:
        node = node[step]
    return node


def _mutate_once(rnd: random.Random, tree: Tree) -> str:
    paths = [p for p in _paths(tree) if p]
    if not paths:
        return "nothing to mutate"
    texts = [p for p in paths if isinstance(_get(tree, p), str)]
    if texts and rnd.random() < 0.35:  # keep the value, add to it: free text that may pass validation
        path = rnd.choice(texts)
        parent = _get(tree, path[:-1])
        parent[path[-1]] += rnd.choice(PAYLOADS[:21])
        return f"append at {'/'.join(map(str, path))}"
    numeric = [p for p in paths if _is_number(_get(tree, p)) or _looks_numeric(_get(tree, p))]
    if numeric and rnd.random() < 0.1:  # a number (or a speed, a port range) set to one at the limits
        path = rnd.choice(numeric)
        parent = _get(tree, path[:-1])
        parent[path[-1]] = rnd.choice(EDGE_NUMBERS + EDGE_TEXT)
        return f"edge-number at {'/'.join(map(str, path))}"
    path = rnd.choice(paths)
    parent, key = _get(tree, path[:-1]), path[-1]
    value = parent[key]
    kind = rnd.choice(["payload", "number", "wrong-type", "delete", "unknown-key", "duplicate", "swap",
                       "rename-key", "payload"])
    if kind == "payload":
        parent[key] = rnd.choice(PAYLOADS)
    elif kind == "number":
        parent[key] = rnd.choice(NUMBERS)
    elif kind == "wrong-type":
        parent[key] = copy.deepcopy(rnd.choice(WRONG))
    elif kind == "delete":
        del parent[key]
    elif kind == "unknown-key" and isinstance(value, dict):
        value[rnd.choice(PAYLOADS[:20]) or "RFZ"] = rnd.choice(PAYLOADS + NUMBERS)
    elif kind == "duplicate" and isinstance(value, list) and value:
        value.insert(rnd.randrange(len(value) + 1), copy.deepcopy(rnd.choice(value)))
    elif kind == "swap" and isinstance(value, list) and len(value) > 1:
        i, j = rnd.sample(range(len(value)), 2)
        value[i], value[j] = value[j], value[i]
    elif kind == "rename-key" and isinstance(parent, dict):
        parent[rnd.choice(PAYLOADS[:24]) or "RFZ"] = parent.pop(key)
    else:
        parent[key] = rnd.choice(PAYLOADS)
        kind = "payload"
    return f"{kind} at {'/'.join(map(str, path))}"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _looks_numeric(value: Any) -> bool:
    """A speed ('400G', '2x400G') or a port range ('33-64') written as text."""
    return isinstance(value, str) and bool(re.fullmatch(r"[0-9][0-9.xX-]*[GgTt]?", value))


def _raw_mutation(rnd: random.Random, text: str) -> tuple[str, str]:
    """Change the dumped text itself: what no YAML dumper writes."""
    lines = text.splitlines(keepends=True)
    if not lines:
        return text, "empty"
    i = rnd.randrange(len(lines))
    kind = rnd.choice(["dup-line", "tab-indent", "nul", "cut", "payload-line", "bom", "deep", "huge-number"])
    if kind == "dup-line":
        lines.insert(i, lines[i])
    elif kind == "tab-indent":
        lines[i] = "\t" + lines[i]
    elif kind == "nul":
        lines[i] = lines[i][:3] + "\x00" + lines[i][3:]
    elif kind == "cut":
        return "".join(lines)[: rnd.randrange(len(text) + 1)], "cut"
    elif kind == "payload-line":
        lines.insert(i, f"{rnd.choice(PAYLOADS[:20])}: {rnd.choice(['RFZ', '{{ RFZ }}', '=RFZ', '[RFZ'])}\n")
    elif kind == "bom":
        lines[0] = "\ufeff" + lines[0]
    elif kind == "huge-number":  # the first number of a line from here on gets thousands of digits (YAML int)
        numbered = [n for n in range(i, len(lines)) if re.search(r": -?[0-9]+\s*$", lines[n])] or [i]
        i = numbered[0]
        lines[i] = re.sub(r": -?[0-9]+(\s*)$", lambda m: ": " + "9" * rnd.choice((19, 20, 400, 5000)) + m.group(1),
                          lines[i])
    else:
        lines.append("deep: " + "[" * 200 + "]" * 200 + "\n")
    return "".join(lines), f"raw {kind} at line {i + 1}"


@dataclass
class Mutant:
    seed: int
    files: dict[str, str]  # file name → text
    what: list[str]

    def write(self, directory: Path) -> None:
        for old in directory.glob("*.yml"):
            old.unlink()
        for name, text in self.files.items():
            (directory / name).write_text(text, encoding="utf-8", errors="surrogatepass")


def load_base(inventory: Path) -> dict[str, Tree]:
    return {f.name: yaml.safe_load(f.read_text()) for f in sorted(inventory.glob("*.yml"))}


def mutant(base: dict[str, Tree], seed: int) -> Mutant:
    rnd = random.Random(seed)
    trees = copy.deepcopy(base)
    what: list[str] = []
    for _ in range(rnd.choice((1, 1, 1, 2, 3))):
        name = rnd.choice(sorted(trees))
        what.append(f"{name}: {_mutate_once(rnd, trees[name])}")
    files = {name: yaml.safe_dump(tree, sort_keys=False, allow_unicode=True, width=10_000)
             for name, tree in trees.items()}
    if rnd.random() < 0.2:
        name = rnd.choice(sorted(files))
        files[name], how = _raw_mutation(rnd, files[name])
        what.append(f"{name}: {how}")
    return Mutant(seed, files, what)


# --------------------------------------------------------------------------- invariants


class Hang(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def expire(_sig, _frm):
        raise Hang(f"no answer after {seconds} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def output_problems(files: dict[str, bytes]) -> list[str]:
    """What an injection would leave in generated/: the checks every output must pass."""
    problems: list[str] = []
    for path, data in files.items():
        if path.startswith("/") or ".." in path.split("/") or "\\" in path:
            problems.append(f"{path}: path outside generated/")
        text = data.decode("utf-8", errors="replace")
        if _CONTROL.search(text) or "\r" in text:
            problems.append(f"{path}: control character")
        for n, line in enumerate(text.splitlines(), 1):
            if line.lstrip(" \"'").startswith(MARK):
                problems.append(f"{path}:{n}: a line starts with injected text: {line[:60]!r}")
                break
        if path.startswith("ansible/") and not _static_playbook(path):
            for token in ("{{", "{%", "{#"):
                if token in text:
                    problems.append(f"{path}: contains {token!r} (Ansible would evaluate it)")
        if path.endswith(".csv"):
            rows = csv.reader(io.StringIO(text))
            for row in rows:
                bad = [c for c in row if c[:1] in FORMULA_START and c]
                if bad:
                    problems.append(f"{path}: CSV cell starts a formula: {bad[0][:40]!r}")
                    break
    for path in filter(_static_playbook, files):
        if MARK.encode() in files[path]:
            problems.append(f"{path}: holds injected text")
    return problems


def _static_playbook(path: str) -> bool:
    """The playbook files copied verbatim from templates/ansible/ (Jinja by design, never inventory text)."""
    return path in ("ansible/deploy.yml", "ansible/hosts.yml") or path.startswith(("ansible/tasks/",
                                                                                   "ansible/filter_plugins/"))
