"""Static checks of a rendered frr.conf: FRR's own parsers (vtysh -C, a throwaway bgpd -C) and the references
those parsers accept without complaint (a peer-group, route-map or prefix-list that is used but never defined).

Exit codes are not enough: vtysh and bgpd can exit 0 after printing an error (bgpd -C exits 0 even when it cannot
read the file), so every line of their output counts.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

BGPD = Path("/usr/lib/frr/bgpd")
ERROR_WORDS = re.compile(r"%|unknown|error|fail|can't|cannot|denied|warning", re.I)
# commands only vtysh knows: a daemon reading the integrated file alone says "No such command" for them
VTYSH_ONLY = ("service integrated-vtysh-config",)


def output_problems(returncode: int, output: str) -> list[str]:
    """Lines of a checker's output that report a problem, plus a non-zero exit; [] when clean."""
    bad = [ln.strip() for ln in output.splitlines() if ln.strip() and ERROR_WORDS.search(ln)
           and not any(ln.rstrip().endswith(cmd) for cmd in VTYSH_ONLY)]
    if returncode != 0:
        bad.append(f"exit status {returncode}")
    return bad


def vtysh_check(path: Path) -> list[str]:
    """`vtysh -C -f path`: FRR's full parser, every daemon's commands."""
    proc = subprocess.run(["vtysh", "-C", "-f", str(path)], capture_output=True, text=True, timeout=60)
    return output_problems(proc.returncode, proc.stdout + proc.stderr)


def bgpd_check(path: Path) -> list[str]:
    """Load the file into a throwaway bgpd (`bgpd -C`: every command runs against a real BGP instance, then it
    exits): catches what the parser accepts but bgpd refuses, such as a neighbor joining an undefined peer-group."""
    proc = subprocess.run([str(BGPD), "-C", "-S", "--log", "stdout", "--log-level", "warnings", "-f",
                           str(Path(path).resolve())], capture_output=True, text=True, timeout=60)
    out = "\n".join(ln for ln in (proc.stdout + proc.stderr).splitlines()
                    if "crashlog" not in ln and "/var/tmp/frr" not in ln)  # no crash-log dir as non-root: harmless
    return output_problems(proc.returncode, out)


def have_vtysh() -> bool:
    return shutil.which("vtysh") is not None


def have_bgpd() -> bool:
    return BGPD.exists()


_IP = re.compile(r"^\d+\.\d+\.\d+\.\d+$|:")


def reference_problems(text: str) -> list[str]:
    """Every peer-group, route-map and prefix-list used is defined (groups before use, as FRR requires), every
    neighbor has a remote-as (its own or its group's), and policies are defined somewhere in the file."""
    problems: list[str] = []
    groups: dict[str, bool] = {}  # group → has remote-as
    neighbors: dict[str, bool] = {}  # neighbor address → has remote-as
    route_maps = set(re.findall(r"^route-map (\S+) (?:permit|deny) \d+$", text, re.M))
    prefix_lists = set(re.findall(r"^ip prefix-list (\S+) ", text, re.M))
    used_maps: list[tuple[int, str]] = []
    used_lists: list[tuple[int, str]] = []
    for no, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if m := re.match(r"neighbor (\S+) peer-group$", s):
            groups[m.group(1)] = False
        elif m := re.match(r"neighbor (\S+) interface peer-group (\S+)$", s):  # an unnumbered neighbor: its interface
            ifname, group = m.groups()
            if group not in groups:
                problems.append(f"line {no}: neighbor {ifname} joins peer-group {group}, which is not defined before")
            neighbors[ifname] = groups.get(group, False)
        elif m := re.match(r"neighbor (\S+) remote-as \S+$", s):
            name = m.group(1)
            if _IP.search(name) or name in neighbors:
                neighbors[name] = True
            elif name in groups:
                groups[name] = True
            else:
                problems.append(f"line {no}: remote-as for undefined peer-group {name}")
        elif m := re.match(r"neighbor (\S+) peer-group (\S+)$", s):
            ip, group = m.groups()
            if group not in groups:
                problems.append(f"line {no}: neighbor {ip} joins peer-group {group}, which is not defined before")
            elif not neighbors.get(ip) and not groups[group]:
                problems.append(f"line {no}: neighbor {ip} has no remote-as (neither its own nor {group}'s)")
            neighbors[ip] = neighbors.get(ip, False) or groups.get(group, False)
        elif m := re.match(r"neighbor (\S+) ", s):
            name = m.group(1)
            if not _IP.search(name) and name not in groups and name not in neighbors:
                problems.append(f"line {no}: `{s}` names undefined peer-group {name}")
            elif _IP.search(name) and name not in neighbors:
                problems.append(f"line {no}: `{s}` names neighbor {name} before it is defined")
        for rm in re.findall(r"\broute-map (\S+)(?: (?:in|out))?$", s):
            if not s.startswith("route-map "):
                used_maps.append((no, rm))
        for pl in re.findall(r"\bprefix-list (\S+)(?: (?:in|out))?$", s):
            if not s.startswith("ip prefix-list "):
                used_lists.append((no, pl))
        if m := re.match(r"table-map (\S+)$", s):
            used_maps.append((no, m.group(1)))
    problems += [f"line {no}: route-map {rm} is used but not defined" for no, rm in used_maps if rm not in route_maps]
    problems += [f"line {no}: prefix-list {pl} is used but not defined" for no, pl in used_lists
                 if pl not in prefix_lists]
    return problems
