"""`fabric completion bash|zsh|fish`: the scripts are loaded by the real shells and asked for completions.

bash: the script is sourced by `bash --norc`, which then runs the completion function it registered for `fabric`
(read back from `complete -p fabric`) with COMP_WORDS/COMP_CWORD set as readline sets them; COMPREPLY is what the
user is offered. fish: `complete -C "LINE"` prints fish's own completions of a command line. zsh: the script is
parsed (`zsh -n`) and registered by compinit from fpath (zsh's completion widgets need a terminal to be driven).

Expected values, derived by hand from railfabric/cli/__init__.py's parser:
- commands: validate render plan report size schema explain show lab verify sonic-yang completion; those
  starting with "re": render, report.
- render's long options: --out --check --workers --quiet --verbose (its own), --help (argparse), --debug (added
  to every command): 7.
- value lists: `explain CAP` → the one CAP code, CAP001 (README); `size --switch-model sn` → sn5600 (of the presets
  qm9700, sn5600, q3400, n9364d-gx2a, n9364e-sg2, qfx5240-64od); `lab --fault` → asn, summary, mtu, host-policy.
- paths: --out takes a directory, the inventory a directory or a file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

RENDER_LONG = {"--out", "--check", "--full", "--workers", "--quiet", "--verbose", "--help", "--debug"}


def _script(shell: str) -> str:
    return subprocess.run([sys.executable, "-m", "railfabric.cli", "completion", shell], capture_output=True, text=True,
                          check=True, cwd=ROOT).stdout


def _need(tool: str) -> str:
    """The tool's path; without it the test skips unless we are root (`make test` installs it:
    tests/tools/install.sh), then it fails."""
    path = shutil.which(tool)
    if path is None:
        if os.geteuid() == 0:
            pytest.fail(f"{tool} is not installed (apt-get install {tool})")
        pytest.skip(f"{tool} is not installed and we are not root to install it")
    return path


def bash_complete(script: Path, words: list[str], cwd: Path) -> set[str]:
    """What bash offers for the command line `words` (the last one being completed), with `script` loaded."""
    driver = r'''
source "$1"; shift
spec=$(complete -p fabric) || exit 3
func=${spec#*-F }; func=${func%% *}
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
"$func" fabric "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
'''
    out = subprocess.run([_need("bash"), "--norc", "--noprofile", "-c", driver, "bash", str(script), *words],
                         capture_output=True, text=True, check=True, cwd=cwd, timeout=30).stdout
    return {line.rstrip("/") for line in out.splitlines() if line}


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bash") / "fabric.bash"
    path.write_text(_script("bash"), encoding="utf-8")
    return path


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "inventory").mkdir()
    (tmp_path / "generated").mkdir()
    (tmp_path / "fabric.yml").write_text("fabric: {}\n")
    return tmp_path


def test_bash_completes_commands(bash_script: Path, workdir: Path) -> None:
    assert bash_complete(bash_script, ["fabric", "re"], workdir) == {"render", "report"}
    assert bash_complete(bash_script, ["fabric", "comp"], workdir) == {"completion"}
    assert bash_complete(bash_script, ["fabric", "completion", ""], workdir) == {"bash", "zsh", "fish"}


def test_bash_completes_render_options(bash_script: Path, workdir: Path) -> None:
    assert bash_complete(bash_script, ["fabric", "render", "--"], workdir) == RENDER_LONG
    assert bash_complete(bash_script, ["fabric", "render", "--ch"], workdir) == {"--check"}


def test_bash_completes_paths_by_kind(bash_script: Path, workdir: Path) -> None:
    assert bash_complete(bash_script, ["fabric", "render", "--out", ""], workdir) == {"inventory", "generated"}
    assert bash_complete(bash_script, ["fabric", "validate", ""], workdir) == {"inventory", "generated",
                                                                               "fabric.yml"}
    assert bash_complete(bash_script, ["fabric", "verify", "g"], workdir) == {"generated"}


def test_bash_completes_listed_values(bash_script: Path, workdir: Path) -> None:
    assert bash_complete(bash_script, ["fabric", "explain", "CAP"], workdir) == {"CAP001"}
    assert bash_complete(bash_script, ["fabric", "size", "--switch-model", "sn"], workdir) == {"sn5600"}
    assert bash_complete(bash_script, ["fabric", "lab", "--fault", ""], workdir) == {"asn", "summary", "mtu",
                                                                                      "host-policy", "auth"}


def _rendered(workdir: Path) -> Path:
    """A generated/ tree as `fabric render` leaves it: switch hostnames under configs/, GPU servers and the host
    groups' `_groups` under hosts/, files beside them."""
    for d in ("configs/p1-s1-rail0", "configs/p1-s1-rail1", "configs/p1-spine1", "hosts/p1-s1-gpu001",
              "hosts/_groups/p1-s1-h1"):
        (workdir / "generated" / d).mkdir(parents=True)
    (workdir / "generated" / "hosts" / "railmap.csv").write_text("")
    (workdir / "generated" / "configs" / "README").write_text("")
    return workdir


def test_bash_completes_device_names(bash_script: Path, workdir: Path) -> None:
    """`fabric show` completes the switch and host names of the render in the working directory (directories
    only, `_groups` left out), nothing outside a rendered checkout."""
    assert bash_complete(bash_script, ["fabric", "show", "p"], workdir) == set()  # generated/ is empty
    _rendered(workdir)
    assert bash_complete(bash_script, ["fabric", "show", "p1-s1-r"], workdir) == {"p1-s1-rail0", "p1-s1-rail1"}
    assert bash_complete(bash_script, ["fabric", "show", ""], workdir) == {"p1-s1-rail0", "p1-s1-rail1",
                                                                           "p1-spine1", "p1-s1-gpu001"}


def test_fish_completes_device_names(tmp_path: Path, workdir: Path) -> None:
    fish = _need("fish")
    script = tmp_path / "fabric.fish"
    script.write_text(_script("fish"), encoding="utf-8")
    _rendered(workdir)
    out = subprocess.run([fish, "--no-config", "-c", f"source {script}; complete -C 'fabric show p1-'"],
                         capture_output=True, text=True, check=True, timeout=30, cwd=workdir).stdout
    assert {row.split("\t", 1)[0] for row in out.splitlines() if row} == {"p1-s1-rail0", "p1-s1-rail1",
                                                                         "p1-spine1", "p1-s1-gpu001"}


def test_fish_completes_commands_and_options(tmp_path: Path) -> None:
    fish = _need("fish")
    script = tmp_path / "fabric.fish"
    script.write_text(_script("fish"), encoding="utf-8")

    def offered(line: str) -> set[str]:
        out = subprocess.run([fish, "--no-config", "-c", f"source {script}; complete -C '{line}'"],
                             capture_output=True, text=True, check=True, timeout=30).stdout
        return {row.split("\t", 1)[0] for row in out.splitlines() if row}

    assert offered("fabric re") == {"render", "report"}
    assert offered("fabric render --") == RENDER_LONG
    assert offered("fabric explain CAP") == {"CAP001"}


def test_zsh_script_parses_and_registers(tmp_path: Path) -> None:
    zsh = _need("zsh")
    (tmp_path / "_fabric").write_text(_script("zsh"), encoding="utf-8")
    subprocess.run([zsh, "-f", "-n", str(tmp_path / "_fabric")], check=True, timeout=30)
    # the device-name function runs on its own: defined by the script, it lists a rendered tree's names
    work = _rendered(tmp_path / "work")
    listed = subprocess.run([zsh, "-f", "-c", "compadd() { print -l -- ${(P)${@[-1]}} }; "
                             f"eval \"$(sed -n '/^_railfabric_devices()/p' {tmp_path / '_fabric'})\"; "
                             "_railfabric_devices"], capture_output=True, text=True, check=True, timeout=30,
                            cwd=work).stdout
    assert sorted(listed.split()) == ["p1-s1-gpu001", "p1-s1-rail0", "p1-s1-rail1", "p1-spine1"]
    out = subprocess.run([zsh, "-f", "-c", f"fpath=({tmp_path} $fpath); autoload -Uz compinit; "
                                           "compinit -u -D; print -r -- $_comps[fabric]"],
                         capture_output=True, text=True, check=True, timeout=30).stdout
    assert out == "_fabric\n"


def test_unknown_shell_is_a_usage_error() -> None:
    r = subprocess.run([sys.executable, "-m", "railfabric.cli", "completion", "tcsh"], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.returncode == 2 and "invalid choice: 'tcsh'" in r.stderr
