"""The rollout playbook with the real ansible-playbook, no lab needed (the end-to-end run: test_rollout_lab.py).

- every generated playbook and task file passes `ansible-playbook --syntax-check` with the real arista.eos and
  ansible.netcommon collections (task files through a static import, so each module and its arguments resolve);
- each pre-flight refusal stops the rollout before anything is sent: the SONiC stand-in (tests/sonic_standin/)
  records every command the playbook runs on a switch, and the record stays empty;
- --check sends no change: SONiC runs only the read and the dry runs, CONFIG_DB stays as it was;
- EOS: a rendered config without the management API is refused before any connection; with it, --check gets past
  the pre-flight to arista.eos.eos_config (which then finds no switch at 127.0.0.1:1).

The fabric: tests.helpers' mini inventory (p1-s1-rail0, p1-s1-rail1, p1-spine1, p1-spine2; one switch per wave).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.helpers import base_inventory, with_system
from tests.rollout_support import (
    ansible_bin,
    ansible_env,
    calls,
    config_db,
    lab_inventory,
    playbook,
    render,
    standin_state,
    standin_vars,
)

ORDER = ["p1-s1-rail0", "p1-s1-rail1", "p1-spine1", "p1-spine2"]
SECRET = "s3cr3t-Passkey"


@pytest.fixture(scope="module")
def mini_generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini fabric rendered once for the module (every `sonic` test starts from the same render)."""
    return render(tmp_path_factory.mktemp("mini"), base_inventory())


@pytest.fixture
def sonic(tmp_path: Path, mini_generated: Path):
    """A rendered mini fabric (a fresh copy of the module's render: the tests edit it), a stand-in CONFIG_DB per
    switch, the per-host stand-in variables, an environment whose temporary directory (where the controller's
    private directory goes) is watched."""
    gen = Path(shutil.copytree(mini_generated, tmp_path / "generated", symlinks=True))
    state = tmp_path / "state"
    standin_state(state, gen, ORDER)  # the switches run the render without TACPLUS
    # a secret placeholder, as the system helper renders them (TACACS+ passkey: SONiC's TACPLUS|global.passkey)
    db = config_db(gen, "p1-s1-rail0")
    db["TACPLUS"] = {"global": {"auth_type": "login", "passkey": "%%vault.tacacs_key%%"}}
    (gen / "configs" / "p1-s1-rail0" / "config_db.json").write_text(json.dumps(db, indent=2, sort_keys=True))
    env = ansible_env(tmp_path / "ansible", real_collections=False)
    ctl = tmp_path / "controller-tmp"
    ctl.mkdir()
    env["TMPDIR"] = str(ctl)
    return gen, state, env, ctl


def _run(gen: Path, state: Path, env: dict, *args: str, overrides: dict | None = None):
    per_host = {h: standin_vars(state, h, **(overrides or {}).get(h, {})) for h in ORDER}
    inv = lab_inventory(state.parent / "standin.yml", per_host)
    return playbook(gen, env, "-e", "rollout_drain_settle=0", *args, inventories=(inv,), timeout=300)


def _dbs(state: Path) -> dict[str, str]:
    return {h: (state / h / "config_db.json").read_text() for h in ORDER}


def test_refused_when_a_vault_variable_is_undefined(sonic) -> None:
    gen, state, env, ctl = sonic
    before = _dbs(state)
    out = _run(gen, state, env)
    assert out.returncode != 0
    assert "p1-s1-rail0: refused before sending anything: config_db.json needs the undefined vault variable(s) " \
           "tacacs_key" in " ".join(out.stdout.split())
    assert calls(state) == [] and _dbs(state) == before  # nothing sent, to this switch or any later one
    assert list(ctl.iterdir()) == []


@pytest.mark.parametrize("what, override, edit, problem", [
    ("the address Ansible connects to", {"ansible_host": "192.168.99.9"}, None,
     "MGMT_INTERFACE has no eth0 entry with 192.168.99.9, the address Ansible connects to"),
    ("eth0 shut", {}, lambda db: db["MGMT_PORT"]["eth0"].update(admin_status="down"),
     "MGMT_PORT|eth0 admin_status is 'down', not up"),
    ("no MGMT_PORT", {}, lambda db: db.pop("MGMT_PORT"), "no MGMT_PORT|eth0 (MGMT_INTERFACE refers to it)"),
])
def test_refused_when_the_push_would_cut_itself_off(sonic, what: str, override: dict, edit, problem: str) -> None:
    gen, state, env, ctl = sonic
    if edit:
        db = config_db(gen, "p1-s1-rail0")
        edit(db)
        (gen / "configs" / "p1-s1-rail0" / "config_db.json").write_text(json.dumps(db))
    before = _dbs(state)
    out = _run(gen, state, env, "-e", f"tacacs_key={SECRET}", overrides={"p1-s1-rail0": override})
    text = " ".join(out.stdout.split())
    assert out.returncode != 0, what
    assert "p1-s1-rail0: refused before sending anything, the rendered configuration would cut this push off: " \
           + problem in text, text[-2000:]
    assert calls(state) == [] and _dbs(state) == before
    assert SECRET not in out.stdout + out.stderr
    assert list(ctl.iterdir()) == []  # the resolved files were removed from the controller


def test_refused_routing_mode(sonic) -> None:
    gen, state, env, _ = sonic
    db = config_db(gen, "p1-s1-rail0")
    db["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] = "unified"
    (gen / "configs" / "p1-s1-rail0" / "config_db.json").write_text(json.dumps(db))
    out = _run(gen, state, env, "-e", f"tacacs_key={SECRET}")
    assert out.returncode != 0 and "docker_routing_config_mode 'unified'" in out.stdout
    assert calls(state) == []


def test_check_mode_sends_no_change(sonic) -> None:
    gen, state, env, ctl = sonic
    before = _dbs(state)
    out = _run(gen, state, env, "--check", "-e", f"tacacs_key={SECRET}", "-e", "rollout_id=chk",
               "--limit", "rollout_wave_1,rollout_wave_2")
    assert out.returncode == 0, out.stdout[-3000:]
    log = calls(state)
    # per switch, in the planned order: read DEVICE_METADATA, then the two dry runs; nothing else
    assert [(c["host"], c["argv"][:2]) for c in log] == [
        (h, step) for h in ORDER[:2] for step in (["sonic-cfggen", "-d"], ["config", "replace"], ["exec", "true"])]
    assert all("--dry-run" in c["argv"] for c in log if c["argv"][:2] == ["config", "replace"])
    assert _dbs(state) == before
    # the dry run shows what would change: the port description set before the rollout, the new TACPLUS table
    assert "~ PORT|Ethernet0" in out.stdout and "+ TACPLUS|global" in out.stdout
    assert SECRET not in out.stdout + out.stderr
    assert list(ctl.iterdir()) == [] and not list(state.glob("*/rf-chk*"))  # temporary files removed


def test_every_playbook_passes_syntax_check(tmp_path: Path) -> None:
    """deploy.yml as is; each task file imported statically into a one-task play (include_tasks is dynamic, so
    deploy.yml's syntax check alone does not read them)."""
    data = with_system(base_inventory())  # EOS needs its push account (MGMT001)
    data["devices"] = {"p1-spine1": {"platform": "eos"}, "p1-spine2": {"platform": "nxos"}}  # three platforms
    gen = render(tmp_path, data)
    env = ansible_env(tmp_path / "ansible")
    ans = gen / "ansible"
    files = sorted(p.relative_to(ans).as_posix() for p in ans.rglob("*.yml") if p.parent.name == "tasks")
    assert files == ["tasks/eos.yml", "tasks/junos.yml", "tasks/nvue.yml", "tasks/nxos.yml",
                     "tasks/preflight.yml", "tasks/sonic.yml",
                     "tasks/sonic_push.yml", "tasks/sonic_rollback.yml", "tasks/sonic_verify.yml"]
    wrappers = []
    for f in files:
        w = ans / f"syntax-{Path(f).stem}.yml"
        w.write_text(yaml.safe_dump([{"hosts": "rollout", "gather_facts": False,
                                      "tasks": [{"ansible.builtin.import_tasks": f}]}]))
        wrappers.append(w)
    for book in [ans / "deploy.yml", *wrappers]:
        out = subprocess.run([ansible_bin("ansible-playbook"), "-i", str(ans / "inventory.yml"), str(book),
                              "--syntax-check"], env=env, cwd=ans, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, (book.name, out.stdout + out.stderr)
        assert "WARNING" not in out.stderr.upper() or "reserved" not in out.stderr, out.stderr


def test_eos_preflight_and_check_mode(tmp_path: Path) -> None:
    data = with_system(base_inventory())  # push account netops (tests/helpers.py MINIMAL_SYSTEM)
    data["fabric"]["platform"] = "eos"
    gen = render(tmp_path, data)
    env = ansible_env(tmp_path / "ansible")
    eos_host = {"ansible_host": "127.0.0.1", "ansible_port": 1, "ansible_user": "netops",
                "ansible_command_timeout": 5, "ansible_connect_timeout": 5}
    inv = lab_inventory(tmp_path / "eos.yml", {h: eos_host for h in ORDER})
    common = ("-e", "rollout_drain_settle=0", "-e", "netops_password_hash=$6$rounds=5000$abc")

    # the render with its management API removed by hand: refused, no connection attempted
    rendered = {h: (gen / "configs" / h / "running-config.cfg").read_text() for h in ORDER}
    for h, text in rendered.items():
        start = text.index("management api http-commands\n")
        end = text.index("\n!\n", start) + 1
        (gen / "configs" / h / "running-config.cfg").write_text(text[:start] + text[end + 2:])
    out = playbook(gen, env, *common, "--check", inventories=(inv,), timeout=300)
    text = " ".join(out.stdout.split())
    assert out.returncode != 0
    assert "p1-s1-rail0: refused before sending anything, the rendered configuration would cut this push off: " \
           "no `management api http-commands`" in text, text[-2000:]
    assert "UNREACHABLE" not in out.stdout and "unable to connect" not in text.lower()

    # as rendered (eAPI and SSH in VRF MGMT, the push account netops): the pre-flight passes and check mode reaches
    # the switch through arista.eos.eos_config (session diff + abort), which finds nothing listening at 127.0.0.1:1
    for h, text in rendered.items():
        (gen / "configs" / h / "running-config.cfg").write_text(text)
    out = playbook(gen, env, *common, "--check", inventories=(inv,), timeout=300)
    text = " ".join(out.stdout.split())
    assert out.returncode != 0
    assert "refused before sending anything" not in text
    assert "TASK [EOS | check mode - the session diff against the running-config, then abort" in out.stdout
    assert "fatal: [p1-s1-rail0]" in out.stdout and "p1-s1-rail1" not in out.stdout.split("PLAY RECAP")[0]
    assert "$6$rounds" not in out.stdout + out.stderr

    # a commit timer that could end before verification does (2 × 300 s + 120 s > 5 min): refused before sending
    out = playbook(gen, env, *common, "-e", "eos_commit_timer=00:05:00", inventories=(inv,), timeout=300)
    text = " ".join(out.stdout.split())
    assert out.returncode != 0
    assert "eos_commit_timer 00:05:00 (300 s) must exceed twice rollout_verify_timeout" in text, text[-1500:]
    assert "EOS | copy the resolved configuration to flash" not in out.stdout


def test_nxos_preflight_and_check_mode(tmp_path: Path) -> None:
    """NX-OS: the push account's role edited away is refused before any connection; as rendered, --check passes the
    pre-flight and reaches the switch (cisco.nxos.nxos_command reading the running-config, which finds no switch);
    a commit timeout shorter than the verification is refused before anything is copied to bootflash."""
    data = with_system(base_inventory())
    data["fabric"]["platform"] = "nxos"
    gen = render(tmp_path, data)
    env = ansible_env(tmp_path / "ansible")
    rendered = {h: (gen / "configs" / h / "running-config.cfg").read_text() for h in ORDER}
    # the check keeps the address Ansible connects to on mgmt0: each switch's own (nothing listens on port 1)
    mgmt = {h: text.split("interface mgmt0\n  vrf member management\n  ip address ", 1)[1].split("/")[0]
            for h, text in rendered.items()}
    hosts = {h: {"ansible_host": mgmt[h], "ansible_port": 1, "ansible_user": "netops",
                 "ansible_command_timeout": 5, "ansible_connect_timeout": 5} for h in ORDER}
    inv = lab_inventory(tmp_path / "nxos.yml", hosts)
    common = ("-e", "rollout_drain_settle=0", "-e", "netops_password_hash=$6$rounds=5000$abc")
    line = "username netops password 5 %%vault.netops_password_hash%% role network-admin\n"
    for h, text in rendered.items():
        assert text.count(line) == 1
        (gen / "configs" / h / "running-config.cfg").write_text(text.replace(line, line.replace("admin", "operator")))
    out = playbook(gen, env, *common, "--check", inventories=(inv,), timeout=300)
    text = " ".join(out.stdout.split())
    assert out.returncode != 0
    assert "p1-s1-rail0: refused before sending anything, the rendered configuration would cut this push off: " \
           "no `username netops ... role network-admin`" in text, text[-2000:]
    assert "UNREACHABLE" not in out.stdout and "unable to connect" not in text.lower()

    for h, text in rendered.items():
        (gen / "configs" / h / "running-config.cfg").write_text(text)
    out = playbook(gen, env, *common, "--check", inventories=(inv,), timeout=300)
    text = " ".join(out.stdout.split())
    assert out.returncode != 0
    assert "refused before sending anything" not in text
    # the first task that reaches the switch reads its running-config (read-only, also in check mode)
    assert "TASK [NX-OS | the running-config (its blocks railfabric does not own go into the replace target" \
        in out.stdout
    assert "fatal: [p1-s1-rail0]" in out.stdout and "p1-s1-rail1" not in out.stdout.split("PLAY RECAP")[0]
    assert "$6$rounds" not in out.stdout + out.stderr

    out = playbook(gen, env, *common, "-e", "nxos_commit_timeout=600", inventories=(inv,), timeout=300)
    text = " ".join(out.stdout.split())
    assert out.returncode != 0
    assert "nxos_commit_timeout 600 s must exceed twice rollout_verify_timeout" in text, text[-1500:]
    assert "NX-OS | copy the drained target to bootflash" not in out.stdout


def test_a_batch_never_spans_two_waves(tmp_path: Path) -> None:
    """The example's waves are [1, 4, 4, ...] (test_rollout_plan.py). With rollout_batch=4 and a --limit that
    leaves p1-s1-rail1 alone in the 1-switch batch, the next batch would hold p1-s2-rail0-4 (wave 2) with
    p1-s1-rail2 (wave 3): refused before anything runs."""
    import sys

    from tests.helpers import EXAMPLE, ROOT

    gen = tmp_path / "generated"
    proc = subprocess.run([sys.executable, "-m", "railfabric.cli", "render", str(EXAMPLE), "--out", str(gen)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    env = ansible_env(tmp_path / "ansible")  # the example has EOS switches: network_cli must resolve
    # --tags plan: only the batch listing and the wave check run (nothing is sent to any switch)
    out = playbook(gen, env, "--tags", "plan", "-e", "rollout_batch=4", "--limit",
                   "p1-s1-rail1,p1-s2-rail0-4,p1-s1-rail2")
    text = " ".join(out.stdout.split())
    assert out.returncode != 0
    assert '"msg": "p1-s1-rail1"' in text  # the first batch: one switch (the canary's batch size)
    assert "batch p1-s2-rail0-4, p1-s1-rail2 spans waves 2, 3" in text, text[-1500:]
    # whole waves: batches of up to 4 inside each wave
    out = playbook(gen, env, "--tags", "plan", "-e", "rollout_batch=4", "--limit", "rollout_wave_1,rollout_wave_2")
    text = " ".join(out.stdout.split())
    assert out.returncode == 0, text[-1500:]
    assert '"msg": "p1-s1-rail0"' in text
    assert '"msg": "p1-s1-rail1, p1-s2-rail0-4, p2-s1-rail0-1-2-3, p3-s1-rail0"' in text
