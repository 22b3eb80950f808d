"""Helpers for the rollout tests: render a fabric to a directory, an isolated Ansible environment with the real
collections, a per-switch stand-in for SONiC's commands (tests/sonic_standin/standin.py), and running the playbook."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.ansible_collections_setup import collections_path
from tests.helpers import ROOT, dump

STANDIN = ROOT / "tests" / "sonic_standin" / "standin.py"
FACTS = {"mac": "0c:42:a1:00:00:01", "platform": "x86_64-nvidia_sn5600-r0"}  # what a real switch would report


def ansible_bin(name: str) -> str:
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    if not found:
        pytest.skip(f"{name} not found next to {sys.executable} nor on PATH: pip install 'ansible-core>=2.16,<3'")
    return found


def ansible_env(tmp: Path, real_collections: bool = True) -> dict[str, str]:
    """Everything Ansible writes goes under tmp; no ansible.cfg from the machine; the real collections (EOS)."""
    for d in ("home", "local_tmp", "remote_tmp"):
        (tmp / d).mkdir(parents=True, exist_ok=True)
    (tmp / "ansible.cfg").write_text("")
    env = {**os.environ, "HOME": str(tmp / "home"), "ANSIBLE_HOME": str(tmp / "home" / ".ansible"),
           "ANSIBLE_CONFIG": str(tmp / "ansible.cfg"), "ANSIBLE_LOCAL_TEMP": str(tmp / "local_tmp"),
           "ANSIBLE_REMOTE_TEMP": str(tmp / "remote_tmp"), "ANSIBLE_NOCOLOR": "1",
           "ANSIBLE_RETRY_FILES_ENABLED": "0", "ANSIBLE_HOST_KEY_CHECKING": "0", "LC_ALL": "C.UTF-8",
           "ANSIBLE_PYTHON_INTERPRETER": sys.executable}
    if real_collections:
        path = collections_path()
        if path is None:
            pytest.skip("the arista.eos / ansible.netcommon collections are not available (python -m "
                        "tests.ansible_collections_setup needs pip access to the `ansible` package)")
        env["ANSIBLE_COLLECTIONS_PATH"] = str(path)
    return env


def render(tmp: Path, data: dict[str, Any]) -> Path:
    """`fabric render` of an inventory (data) into tmp/generated; returns that directory."""
    inv = tmp / "inventory"
    inv.mkdir(parents=True, exist_ok=True)
    (inv / "fabric.yml").write_text(dump(data))
    out = tmp / "generated"
    proc = subprocess.run([sys.executable, "-m", "railfabric.cli", "render", str(inv), "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def config_db(gen: Path, host: str) -> dict[str, Any]:
    return json.loads((gen / "configs" / host / "config_db.json").read_text())


def standin_state(state: Path, gen: Path, hosts: list[str]) -> None:
    """Each switch's running CONFIG_DB before the rollout: the rendered one with the switch's own platform facts,
    and one port description that the rollout will change (so each replace has something to apply)."""
    state.mkdir(parents=True, exist_ok=True)
    (state / "calls.jsonl").write_text("")
    for host in hosts:
        db = config_db(gen, host)
        db["DEVICE_METADATA"]["localhost"].update(FACTS)
        first = sorted(db["PORT"])[0]
        db["PORT"][first]["description"] = "before the rollout"
        (state / host).mkdir(exist_ok=True)
        (state / host / "config_db.json").write_text(json.dumps(db, indent=2, sort_keys=True) + "\n")


def standin_vars(state: Path, host: str, **extra: Any) -> dict[str, Any]:
    """Host variables that point the SONiC tasks at the stand-in (local connection, no become)."""
    base = f"{sys.executable} {STANDIN} --state {state} --host {host}"
    return {"ansible_connection": "local", "ansible_become": False, "ansible_python_interpreter": sys.executable,
            "sonic_config": f"{base} config", "sonic_cfggen": f"{base} sonic-cfggen",
            "sonic_vtysh": f"{base} exec -- true", "sonic_frr_reload": f"{base} exec -- true",
            "sonic_frr_dir": str(state / host), "sonic_frr_seen": str(state / host), "sonic_tmp": str(state / host),
            "sonic_frr_file": "frr.conf", **extra}


def lab_inventory(path: Path, per_host: dict[str, dict[str, Any]]) -> Path:
    """A second inventory source with per-host overrides (host variables beat the platform group's)."""
    path.write_text(yaml.safe_dump({"all": {"hosts": per_host}}, sort_keys=True))
    return path


def calls(state: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (state / "calls.jsonl").read_text().splitlines() if line]


def playbook(gen: Path, env: dict[str, str], *args: str, inventories: tuple[Path, ...] = (),
             timeout: float = 600) -> subprocess.CompletedProcess:
    cmd = [ansible_bin("ansible-playbook"), "-i", str(gen / "ansible" / "inventory.yml")]
    for extra in inventories:
        cmd += ["-i", str(extra)]
    cmd += [str(gen / "ansible" / "deploy.yml"), *args]
    return subprocess.run(cmd, env=env, cwd=gen / "ansible", capture_output=True, text=True, timeout=timeout)
