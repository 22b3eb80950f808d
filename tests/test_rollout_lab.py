"""The rollout playbook end to end against the FRR lab (root + FRR + ansible-core: it fails, not skips, there).

The fabric: tests.helpers' mini inventory, 2 spines (p1-spine1, p1-spine2) and 2 single-rail switches
(p1-s1-rail0, p1-s1-rail1), each rail switch cabled to both spines (the BGP sessions of each switch are its rows of
generated/expected/bgp_sessions.csv, which the playbook itself verifies).
The lab (fabric lab --keep) runs one FRR per switch in its namespace; SONiC's own commands are the stand-in
tests/sonic_standin/standin.py (a CONFIG_DB file per switch, checkpoint / replace / rollback / dry run, every call
logged), and `vtysh` / `frr-reload.py` are the real ones for the switch's FRR (`-N rf<run>-<host>`), run through the
stand-in's `exec` so they are logged too. The playbook is generated/ansible/deploy.yml unchanged: only the
sonic_* command variables and a local connection differ, in a second inventory source.

Planned order (railfabric/outputs/rollout.py): rail switches, then spines: p1-s1-rail0 (wave 1, the canary),
p1-s1-rail1 (same segment: wave 2), p1-spine1 (cabled to both rails: wave 3), p1-spine2 (spines of one pod: wave 4).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from railfabric.lab.model import ns_name
from railfabric.lab.runs import new_run_id
from railfabric.pipeline import run
from tests.helpers import base_inventory
from tests.rollout_support import (
    FACTS,
    ansible_env,
    calls,
    lab_inventory,
    playbook,
    render,
    standin_state,
    standin_vars,
)

ORDER = ["p1-s1-rail0", "p1-s1-rail1", "p1-spine1", "p1-spine2"]
# the lab run's id, hence its namespaces and FRR pathspaces rf<RUN>-<host>: other labs on the machine run beside it
RUN = new_run_id()
TIMEOUT = 12  # rollout_verify_timeout of the broken run: how long verification waits before rolling back


def _need_lab() -> None:
    if os.geteuid() != 0:
        pytest.skip("the FRR lab needs root (network namespaces, FRR daemons); CI runs it as root")
    from railfabric.lab.daemons import check_frr

    why = check_frr()
    assert why is None, why  # root without FRR: make test installs it: tests/tools/install.sh
    assert Path("/usr/lib/frr/frr-reload.py").exists(), "frr-reload.py missing: apt-get install frr-pythontools"


def _lab_vars(state: Path, cfg_root: Path, host: str, **extra) -> dict:
    ns = _ns(host)
    v = standin_vars(state, host, **extra)
    prefix = v["sonic_config"].rsplit(" config", 1)[0]
    v["sonic_vtysh"] = f"{prefix} exec -- vtysh -N {ns} --config_dir {cfg_root}"
    v["sonic_frr_reload"] = (f"{prefix} exec -- /usr/lib/frr/frr-reload.py -N {ns} --confdir {cfg_root} "
                             "--bindir /usr/bin")
    v["sonic_frr_dir"] = v["sonic_frr_seen"] = str(cfg_root / ns)
    return v


def _ns(host: str) -> str:
    return ns_name(host, RUN)


def _vtysh(cfg_root: Path, host: str, *cmd: str) -> str:
    proc = subprocess.run(["vtysh", "-N", _ns(host), "--config_dir", str(cfg_root), *[x for c in cmd
                                                                                         for x in ("-c", c)]],
                          capture_output=True, text=True, timeout=30)
    return proc.stdout


def _established(cfg_root: Path, host: str) -> dict[str, str]:
    peers = json.loads(_vtysh(cfg_root, host, "show bgp summary json") or "{}").get("ipv4Unicast", {}).get("peers", {})
    return {ip: p["state"] for ip, p in peers.items()}


def _nexthops(cfg_root: Path, host: str, prefix: str) -> int:
    routes = json.loads(_vtysh(cfg_root, host, f"show ip route {prefix} json") or "{}").get(prefix, [])
    return sum(1 for r in routes if r.get("selected") for n in r.get("nexthops", []) if n.get("active"))


def _wait_nexthops(cfg_root: Path, host: str, prefix: str, want: int, timeout: float = 20) -> int:
    deadline = time.monotonic() + timeout
    while (got := _nexthops(cfg_root, host, prefix)) != want and time.monotonic() < deadline:
        time.sleep(0.5)
    return got


def _drain_moves_traffic(cfg_root: Path, frr: dict[str, str]) -> None:
    """Both drains the playbook applies (rf_drain, by host_vars rollout_drain) move traffic for real: p1-s1-rail0
    reaches p1-s1-rail1's loopback over both spines (2 ECMP next hops); with p1-spine1 drained only over p1-spine2
    (1 next hop); undrained, over both again. as-path-prepend: p1-spine1's ASN prepended 3 more times on everything
    it advertises; graceful-shutdown: `bgp graceful-shutdown` on p1-spine1, its routes carrying 65535:0, which
    p1-s1-rail0's rendered inbound route-map RM-GSHUT-IN turns into LOCAL_PREF 0."""
    from railfabric.outputs.ansible_filters import rf_drain, rf_undrain

    loopback = next(line.split()[-1] for line in frr["p1-s1-rail1"].splitlines()
                    if line.startswith(" bgp router-id")) + "/32"
    assert _wait_nexthops(cfg_root, "p1-s1-rail0", loopback, 2) == 2
    spine = frr["p1-spine1"]
    steps = [(rf_drain(spine, "sonic", 3, m), 1) if i == 0 else (rf_undrain(spine, "sonic", m), 2)
             for m in ("as-path-prepend", "graceful-shutdown") for i in (0, 1)]
    for lines, want in steps:
        path = cfg_root / _ns("p1-spine1") / "drain-test.conf"
        path.write_text(lines)
        proc = subprocess.run(["vtysh", "-N", _ns("p1-spine1"), "--config_dir", str(cfg_root), "-f", str(path)],
                              capture_output=True, text=True, timeout=30)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert _wait_nexthops(cfg_root, "p1-s1-rail0", loopback, want) == want, (lines, want)
        path.unlink()


def _changes(log: list[dict]) -> list[tuple[str, str]]:
    """(host, what) for the calls that change something, in order: drain / undrain (vtysh -f), checkpoint,
    replace, reload, rollback."""
    out = []
    for c in log:
        argv = c["argv"]
        text = " ".join(argv)
        if argv[0] == "exec" and "-f" in argv:
            out.append((c["host"], "drain" if text.endswith(".drain.conf") else "undrain"))
        elif argv[0] == "exec" and "--reload" in argv:
            out.append((c["host"], "reload"))
        elif argv[0] == "config" and argv[1] in ("checkpoint", "replace", "rollback") and "--dry-run" not in argv:
            out.append((c["host"], argv[1]))
    return out


def test_rollout_end_to_end_in_the_frr_lab(tmp_path: Path) -> None:
    _need_lab()
    from railfabric.lab import run_lab
    from railfabric.lab.runs import Registry
    from railfabric.lab.teardown import teardown_saved

    started = time.monotonic()
    data = base_inventory()
    gen = render(tmp_path, data)
    state = tmp_path / "state"
    standin_state(state, gen, ORDER)
    env = ansible_env(tmp_path / "ansible", real_collections=False)
    original_frr = {h: (gen / "configs" / h / "frr.conf").read_text() for h in ORDER}
    # a secret placeholder, as the system helper renders them: resolved from -e tacacs_key on the way out
    db = json.loads((gen / "configs" / ORDER[0] / "config_db.json").read_text())
    db["TACPLUS"] = {"global": {"auth_type": "login", "passkey": "%%vault.tacacs_key%%"}}
    (gen / "configs" / ORDER[0] / "config_db.json").write_text(json.dumps(db, indent=2, sort_keys=True))
    reg = None
    try:
        t0 = time.monotonic()
        lab = run_lab(run(tmp_path / "inventory"), keep=True, say=lambda _m: None, run_id=RUN)
        lab_s = time.monotonic() - t0
        reg = Registry.load(RUN)
        assert lab.ok, "the lab did not converge before the rollout"
        assert reg is not None
        cfg_root = Path(next(d for d in reg.dirs if "railfabric-lab-" in d))
        _drain_moves_traffic(cfg_root, original_frr)
        per_host = {h: _lab_vars(state, cfg_root, h) for h in ORDER}
        inv = lab_inventory(tmp_path / "lab.yml", per_host)
        common = ["-e", "tacacs_key=lab-Secret-1", "-e", "rollout_drain_settle=1", "-e", "rollout_verify_delay=1",
                  "-e", "rollout_verify_lldp=false"]

        # 1. the good rollout: every switch, one at a time, drained → replaced → verified → undrained
        t0 = time.monotonic()
        good = playbook(gen, env, *common, "-e", "rollout_id=good", "-e", "rollout_verify_timeout=90",
                        inventories=(inv,))
        good_s = time.monotonic() - t0
        assert good.returncode == 0, good.stdout[-4000:] + good.stderr[-2000:]
        log = calls(state)
        hosts_in_order = list(dict.fromkeys(c["host"] for c in log))
        assert hosts_in_order == ORDER
        # one at a time: each switch's calls form one block (no interleaving)
        blocks = [c["host"] for i, c in enumerate(log) if i == 0 or log[i - 1]["host"] != c["host"]]
        assert blocks == ORDER, blocks
        assert _changes(log) == [(h, step) for h in ORDER
                                 for step in ("drain", "checkpoint", "replace", "reload", "undrain")]
        for h in ORDER:
            db = json.loads((state / h / "config_db.json").read_text())
            rendered = json.loads((gen / "configs" / h / "config_db.json").read_text())
            # CONFIG_DB = the rendered file + the switch's own facts (kept, not wiped)
            assert db["DEVICE_METADATA"]["localhost"] == {**rendered["DEVICE_METADATA"]["localhost"], **FACTS}
            own = {"DEVICE_METADATA", "TACPLUS"}  # TACPLUS: its secret is resolved, checked below
            assert {k: v for k, v in db.items() if k not in own} == \
                {k: v for k, v in rendered.items() if k not in own}
            running = _vtysh(cfg_root, h, "show running-config")
            assert "RF-DRAIN" not in running and "bgp graceful-shutdown" not in running  # undrained
            # every planned session Established after the rollout. Each rail switch: 4 hosts × 1 NIC of its rail ×
            # 400G = 1.6T down → 2 × 800G up, one link to each of the 2 spines; each spine: one link to each of the
            # 2 rail switches → 2 sessions on every switch
            states = _established(cfg_root, h)
            assert len(states) == 2 and set(states.values()) == {"Established"}, (h, states)
        assert not list(state.glob("*/rf-good*"))  # temporary files removed from the "switch"
        pushed = json.loads((state / ORDER[0] / "config_db.json").read_text())
        assert pushed["TACPLUS"]["global"]["passkey"] == "lab-Secret-1"  # resolved in the file sent...
        assert "%%vault.tacacs_key%%" in (gen / "configs" / ORDER[0] / "config_db.json").read_text()  # ...only
        assert "lab-Secret-1" not in good.stdout + good.stderr  # never logged

        # 2. a broken config for the second switch: a wrong neighbour ASN in its frr.conf
        bad_host = ORDER[1]
        frr = gen / "configs" / bad_host / "frr.conf"
        good_asn = next(line.split()[-1] for line in original_frr[bad_host].splitlines()
                        if line.startswith(" neighbor SPINES remote-as"))
        frr.write_text(original_frr[bad_host].replace(f"neighbor SPINES remote-as {good_asn}",
                                                      f"neighbor SPINES remote-as {int(good_asn) + 1}"))
        (state / "calls.jsonl").write_text("")
        before_db = (state / bad_host / "config_db.json").read_text()
        t0 = time.monotonic()
        bad = playbook(gen, env, *common, "-e", "rollout_id=bad", "-e", f"rollout_verify_timeout={TIMEOUT}",
                       inventories=(inv,))
        bad_s = time.monotonic() - t0
        assert bad.returncode != 0
        assert f"{bad_host}: SONiC | verify failed" in bad.stdout.replace("\n", " ") or "rolled back" in bad.stdout
        assert "ROLLBACK FAILED" not in bad.stdout
        log = calls(state)
        assert list(dict.fromkeys(c["host"] for c in log)) == ORDER[:2]  # no later switch touched
        assert _changes(log) == [(ORDER[0], s) for s in ("drain", "checkpoint", "replace", "reload", "undrain")] + \
            [(bad_host, s) for s in ("drain", "checkpoint", "replace", "reload", "rollback", "reload")]
        # rolled back: CONFIG_DB equals the checkpoint, the FRR file and the running FRR config the previous ones
        assert (state / bad_host / "config_db.json").read_text() == \
            (state / bad_host / "checkpoints" / "rf-bad.json").read_text()
        assert json.loads((state / bad_host / "config_db.json").read_text()) == json.loads(before_db)
        assert (cfg_root / _ns(bad_host) / "frr.conf").read_text() == original_frr[bad_host]
        test = subprocess.run(["/usr/lib/frr/frr-reload.py", "-N", _ns(bad_host), "--confdir", str(cfg_root),
                               "--bindir", "/usr/bin", "--test", "--stdout",
                               str(cfg_root / _ns(bad_host) / "frr.conf")],
                              capture_output=True, text=True, timeout=60)
        assert test.returncode == 0, test.stdout + test.stderr
        assert f"remote-as {int(good_asn) + 1}" not in _vtysh(cfg_root, bad_host, "show running-config")
        assert "bgp graceful-shutdown" not in _vtysh(cfg_root, bad_host, "show running-config")  # undrained again
        deadline = time.monotonic() + 60
        while set(_established(cfg_root, bad_host).values()) != {"Established"} and time.monotonic() < deadline:
            time.sleep(1)
        assert set(_established(cfg_root, bad_host).values()) == {"Established"}
        # 3. the same broken config, and the rollback itself fails (`config rollback` refused): the switch is left
        # drained and the run says so loudly
        per_host[bad_host]["sonic_config"] = per_host[bad_host]["sonic_config"].replace(
            " config", " --fail rollback config")
        inv = lab_inventory(tmp_path / "lab.yml", per_host)
        (state / "calls.jsonl").write_text("")
        t0 = time.monotonic()
        worst = playbook(gen, env, *common, "-e", "rollout_id=worst", "-e", f"rollout_verify_timeout={TIMEOUT}",
                         "--limit", "rollout_wave_2", inventories=(inv,))
        worst_s = time.monotonic() - t0
        text = " ".join(worst.stdout.split())
        assert worst.returncode != 0
        assert f"ROLLBACK FAILED on {bad_host}" in text and "LEFT DRAINED" in text, text[-3000:]
        assert _changes(calls(state)) == [(bad_host, s) for s in ("drain", "checkpoint", "replace", "reload",
                                                                   "rollback")]
        # still drained: the mini fabric's drain is graceful shutdown (routing.drain auto, SONiC sends it)
        assert "bgp graceful-shutdown" in _vtysh(cfg_root, bad_host, "show running-config")
        print(f"rollout e2e: lab up {lab_s:.1f}s, good run {good_s:.1f}s (4 switches), broken run {bad_s:.1f}s, "
              f"failed rollback {worst_s:.1f}s (1 switch), total with lab {time.monotonic() - started:.1f}s")
    finally:
        teardown_saved(run=RUN)  # the kept lab, by its record: nothing of another run
        shutil.rmtree(state, ignore_errors=True)
