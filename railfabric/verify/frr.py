"""FRR reader: frr.conf parsed as a tree by indentation (FRR writes one space per level; `!`, `exit` and
`exit-address-family` only close blocks), then the BGP facts the checks need. Where FRR is installed, FRR's own
parser (`vtysh -C -f FILE`) also reads every file, as an extra check.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from railfabric.verify.bgp_statements import neighbors
from railfabric.verify.inputs import read_text
from railfabric.verify.model import Bgp

CLOSERS = {"!", "exit", "exit-address-family", "exit-vrf", "end"}
PROBLEM = re.compile(r"%|unknown|error|fail|can't|cannot|denied|warning", re.I)
VTYSH_ONLY = ("service integrated-vtysh-config",)  # what the daemons' parser does not know, by design


@dataclass(slots=True)
class Node:
    text: str
    line: int
    children: list[Node] = field(default_factory=list)


def parse_tree(text: str) -> list[Node]:
    roots: list[Node] = []
    stack: list[tuple[int, Node]] = []  # (indent, node)
    for no, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped in CLOSERS or stripped.startswith("!"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        node = Node(stripped, no)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        (stack[-1][1].children if stack else roots).append(node)
        stack.append((indent, node))
    return roots


def walk(nodes: list[Node]) -> list[Node]:
    out: list[Node] = []
    for n in nodes:
        out.append(n)
        out += walk(n.children)
    return out


def bgp_from_tree(roots: list[Node]) -> Bgp:
    bgp = Bgp()
    router = next((n for n in roots if re.fullmatch(r"router bgp \d+", n.text)), None)
    if router is None:
        return bgp
    bgp.asn = int(router.text.split()[2])
    statements = [n.text.split() for n in walk(router.children)]
    for words in statements:
        if words[:2] == ["bgp", "router-id"] and len(words) == 3:
            bgp.router_id = words[2]
    bgp.neighbors.update(neighbors(statements, bfd_profiles(roots)))
    return bgp


def bfd_profiles(roots: list[Node]) -> dict[str, tuple[int, int, int]]:
    """The `bfd` section's profiles: name → (transmit-interval, receive-interval, detect-multiplier), FRR's defaults
    (300, 300, 3) for what a profile leaves out."""
    out: dict[str, tuple[int, int, int]] = {}
    for top in roots:
        if top.text != "bfd":
            continue
        for prof in top.children:
            words = prof.text.split()
            if words[:1] != ["profile"] or len(words) != 2:
                continue
            values = {w[0]: w[1] for w in (c.text.split() for c in prof.children) if len(w) == 2 and w[1].isdigit()}
            out[words[1]] = (int(values.get("transmit-interval", 300)), int(values.get("receive-interval", 300)),
                             int(values.get("detect-multiplier", 3)))
    return out


def read_frr(path: Path, root: Path) -> Bgp:
    return bgp_from_tree(parse_tree(read_text(path, root)))


def have_vtysh() -> bool:
    return shutil.which("vtysh") is not None


def vtysh_problems(paths: list[Path], workers: int = 4) -> dict[Path, list[str]]:
    """FRR's own parser on each file (`vtysh -C -f`), a few at a time; every output line that reports a problem
    counts (vtysh can exit 0 after an error). {} for clean files."""
    out: dict[Path, list[str]] = {}
    for start in range(0, len(paths), workers):
        batch = paths[start:start + workers]
        procs = [(p, subprocess.Popen(["vtysh", "-C", "-f", str(p)], stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True)) for p in batch]
        for p, proc in procs:
            try:
                text, _ = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
                out[p] = ["vtysh -C did not finish in 60 s"]
                continue
            bad = [ln.strip() for ln in text.splitlines() if ln.strip() and PROBLEM.search(ln)
                   and not ln.rstrip().endswith(VTYSH_ONLY)]
            if proc.returncode != 0:
                bad.append(f"vtysh -C exit status {proc.returncode}")
            if bad:
                out[p] = bad
    return out
