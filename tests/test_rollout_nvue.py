"""The NVUE (Cumulus Linux) push play end to end: the generated deploy.yml, unchanged, with the real
ansible-playbook, against the stand-in tests/nvue_standin/standin.py (applied / pending revisions, the confirm
timer, FRR's and lldpd's JSON; every call logged). How a switch's tasks reach it: tests/nvue_standin/support.py.

The fabric: tests.helpers' mini inventory on NVUE (with the minimal `system:`: push account netops, system-admin,
its hash from the vault variable netops_password_hash). Derived by hand from tests/helpers.py _BASE:
- rollout order (railfabric/outputs/rollout.py): p1-s1-rail0 (canary), p1-s1-rail1 (same segment), p1-spine1 (cabled
  to both rails), p1-spine2 (spines of one pod): one switch per wave;
- ASNs: rail switch slot s → 4200100000 + s; pod 1 spines 4200001001;
- fabric links 10.32.0.0/11, 16 uplinks per rail switch: rail slot s, uplink u (u=0 → p1-spine1, u=1 →
  p1-spine2) is /31 number 16·s + u = 10.32.0.(32·s + 2·u)/31, spine even, rail odd; the rail end is swp(33 + u)
  (ports 1-32 are downlinks), the spine end swp(s + 1);
- hosts: 4 hosts × 2 NICs of 400G on 2x400G breakouts: host h on swp⌈h/2⌉s((h-1) mod 2), NIC r on rail r,
  neighbour port nic<r>p1;
- the drain: routing.drain is auto and NVUE sends GRACEFUL_SHUTDOWN (Platform.graceful_shutdown), so host_vars say
  rollout_drain: graceful-shutdown and the drain is `nv set router bgp graceful-shutdown on` (the default release
  5.14 spells it on; 5.15+ enabled), the undrain `nv unset router bgp graceful-shutdown`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import base_inventory, with_system
from tests.nvue_standin.standin import document_tree, init_switch
from tests.nvue_standin.standin import main as standin_main
from tests.nvue_standin.support import host_vars
from tests.rollout_support import ansible_env, calls, lab_inventory, playbook, render

ORDER = ["p1-s1-rail0", "p1-s1-rail1", "p1-spine1", "p1-spine2"]
SPINE_ASN = 4200001001
SECRET = "$6$rounds=5000$nvue"  # the value of the vault variable netops_password_hash


def _asn(host: str) -> int:
    return SPINE_ASN if "spine" in host else 4200100000 + int(host[-1])


def _bgp(host: str) -> dict[str, dict[str, Any]]:
    """The planned sessions, Established (the derivation in the module docstring)."""
    if "spine" in host:
        k = int(host[-1])  # spine k is uplink u = k - 1 of every rail switch; its address is the even one
        return {f"10.32.0.{32 * s + 2 * (k - 1) + 1}": {"remoteAs": 4200100000 + s, "state": "Established"}
                for s in (0, 1)}
    s = int(host[-1])
    return {f"10.32.0.{32 * s + 2 * u}": {"remoteAs": SPINE_ASN, "state": "Established"} for u in (0, 1)}


def _lldp(host: str) -> dict[str, list[str]]:
    if "spine" in host:
        k = int(host[-1])
        return {f"swp{s + 1}": [f"p1-s1-rail{s}", f"swp{32 + k}"] for s in (0, 1)}
    s = int(host[-1])
    seen = {f"swp{(h + 1) // 2}s{(h - 1) % 2}": [f"p1-s1-gpu00{h}", f"nic{s}p1"] for h in (1, 2, 3, 4)}
    seen |= {f"swp{33 + u}": [f"p1-spine{u + 1}", f"swp{s + 1}"] for u in (0, 1)}
    return seen


def _rendered(gen: Path, host: str) -> dict[str, Any]:
    """The rendered startup.yaml as the switch gets it (the vault placeholder resolved), as an object tree."""
    text = (gen / "configs" / host / "startup.yaml").read_text()
    assert text.count("%%vault.netops_password_hash%%") == 1
    return document_tree(yaml.safe_load(text.replace("%%vault.netops_password_hash%%", SECRET)))


def _original(gen: Path, host: str) -> dict[str, Any]:
    """What the switch runs before the push: the render with one uplink description of its own and the push
    account's previous password hash (the vault value was rotated since: the push changes it)."""
    tree = _rendered(gen, host)
    port = "swp1" if "spine" in host else "swp33"
    tree["interface"][port]["description"] = "before the rollout"
    tree["system"]["aaa"]["user"]["netops"]["hashed-password"] = "$6$rounds=5000$old"
    return tree


def _drain(host: str) -> list[list[str]]:
    return [["nv", "set", "router", "bgp", "graceful-shutdown", "on"]]


def _undrain(host: str) -> list[list[str]]:
    return [["nv", "unset", "router", "bgp", "graceful-shutdown"]]


APPLY = ["nv", "config", "apply", "--assume-yes"]
BGP = ["vtysh", "-c", "show bgp summary json"]


def _push_start(state: Path, host: str, rid: str) -> list[list[str]]:
    """The play up to the confirm timer: the sessions before, drain + apply, replace, drain again, diff, apply
    with the timer (the copy of the file is Ansible's own module, not a switch command)."""
    return [BGP, *_drain(host), APPLY, ["nv", "config", "replace", str(state / host / f"rf-{rid}.yaml")],
            *_drain(host), ["nv", "config", "diff", "-o", "commands"], [*APPLY, "--confirm", "15m"]]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("nvue-render")
    return render(tmp, with_system(base_inventory() | {"fabric": {"name": "mini", "platform": "nvue"}}))


@pytest.fixture
def fabric(tmp_path: Path, rendered: Path):
    """A copy of the render (a test may edit it), a stand-in state per switch, an Ansible environment."""
    gen = tmp_path / "generated"
    shutil.copytree(rendered, gen)
    state = tmp_path / "state"
    for host in ORDER:
        init_switch(state, host, _original(gen, host), {"peers": _bgp(host)}, _lldp(host))
    env = ansible_env(tmp_path / "ansible", real_collections=False)
    env["ANSIBLE_PIPELINING"] = "1"  # each module through the interpreter's stdin: no temporary files, faster
    return gen, state, env


def _run(gen: Path, state: Path, env: dict, *args: str, per_host: dict[str, dict] | None = None):
    hosts = {}
    for h in ORDER:
        extra = {"ansible_user": "netops", **(per_host or {}).get(h, {})}
        hosts[h] = host_vars(state, h, fail=extra.pop("fail", ""), **extra)
    inv = lab_inventory(state.parent / "standin.yml", hosts)
    return playbook(gen, env, "-e", "rollout_drain_settle=0", "-e", "rollout_verify_timeout=2", "-e",
                    "rollout_verify_delay=1", *args, inventories=(inv,), timeout=300)


def _applied(state: Path, host: str) -> dict[str, Any]:
    return json.loads((state / host / "applied.json").read_text())


def _by_host(state: Path) -> dict[str, list[list[str]]]:
    out: dict[str, list[list[str]]] = {}
    for c in calls(state):
        out.setdefault(c["host"], []).append(c["argv"])
    return out


def test_happy_path(fabric) -> None:
    gen, state, env = fabric
    out = _run(gen, state, env, "-e", f"netops_password_hash={SECRET}", "-e", "rollout_id=ok")
    assert out.returncode == 0, out.stdout[-3000:]
    # the switches in the planned order, one after the other
    hosts = [c["host"] for c in calls(state)]
    assert [h for i, h in enumerate(hosts) if i == 0 or hosts[i - 1] != h] == ORDER
    for host in ORDER:
        assert _by_host(state)[host] == [
            *_push_start(state, host, "ok"), BGP, ["lldpctl", "-f", "json"],
            ["nv", "config", "apply", "--confirm-yes"], *_undrain(host), APPLY], host
        # the applied revision is the rendered startup.yaml, undrained; nothing pending, no timer running
        assert _applied(state, host) == {"tree": _rendered(gen, host), "pushed": True}, host
        assert sorted(p.name for p in (state / host).iterdir()) == ["applied.json", "bgp.json", "lldp.json"]
    assert SECRET not in out.stdout + out.stderr


def test_fault_on_the_second_switch_rolls_back_and_stops(fabric) -> None:
    gen, state, env = fabric
    # the pushed configuration breaks p1-s1-rail1's session to p1-spine2 (10.32.0.34: slot 1, uplink 1)
    (state / "p1-s1-rail1" / "bgp.json").write_text(json.dumps({"peers": _bgp("p1-s1-rail1"),
                                                               "down_when_pushed": ["10.32.0.34"]}))
    out = _run(gen, state, env, "-e", f"netops_password_hash={SECRET}", "-e", "rollout_id=bad")
    text = " ".join(out.stdout.split())
    assert out.returncode != 0
    assert "p1-s1-rail1: the change failed; the applied revision was rejected (rolled back) and the switch " \
           "undrained. Rollout stopped." in text, text[-3000:]
    log = _by_host(state)
    assert set(log) == {"p1-s1-rail0", "p1-s1-rail1"}  # the spines are untouched
    # verification: rollout_verify_timeout 2 // rollout_verify_delay 1 = 2 retries, 3 reads in all; then detach
    # (nothing pending: a no-op), --confirm-no (back to the drained revision before the push), undrain, the
    # sessions up before are up again
    assert log["p1-s1-rail1"] == [*_push_start(state, "p1-s1-rail1", "bad"), BGP, BGP, BGP,
                                  ["nv", "config", "detach"], ["nv", "config", "apply", "--confirm-no"],
                                  *_undrain("p1-s1-rail1"), APPLY, BGP]
    assert _applied(state, "p1-s1-rail1") == {"tree": _original(gen, "p1-s1-rail1"), "pushed": False}
    assert sorted(p.name for p in (state / "p1-s1-rail1").iterdir()) == ["applied.json", "bgp.json", "lldp.json"]
    assert _applied(state, "p1-s1-rail0")["tree"] == _rendered(gen, "p1-s1-rail0")  # the canary keeps its push
    assert "rolled back" in text and "ROLLBACK FAILED" not in text


def test_check_mode_loads_shows_and_detaches(fabric) -> None:
    gen, state, env = fabric
    out = _run(gen, state, env, "--check", "-e", f"netops_password_hash={SECRET}", "-e", "rollout_id=chk",
               "--limit", "rollout_wave_1,rollout_wave_2")
    assert out.returncode == 0, out.stdout[-3000:]
    assert set(_by_host(state)) == {"p1-s1-rail0", "p1-s1-rail1"}
    for host in ORDER[:2]:
        assert _by_host(state)[host] == [["nv", "config", "replace", str(state / host / "rf-chk.yaml")],
                                         ["nv", "config", "diff", "-o", "commands"], ["nv", "config", "detach"]]
        assert _applied(state, host) == {"tree": _original(gen, host), "pushed": False}
        # nothing pending, and the copied file (it holds the resolved password hash) is removed
        assert sorted(p.name for p in (state / host).iterdir()) == ["applied.json", "bgp.json", "lldp.json"]
    # the diff shows the two changes, the new password hash masked: never a vault value in Ansible's output
    assert '"nv set interface swp33 description \\"p1-spine1 swp1\\""' in out.stdout
    assert '"nv set system aaa user netops hashed-password ********"' in out.stdout
    assert SECRET not in out.stdout + out.stderr


@pytest.mark.parametrize("fail, after", [
    # `nv config replace` refused (say NVUE's schema refuses a value): nothing applied with a timer, so nothing to
    # reject; the pending revision is dropped and the drain undone
    ("replace", [["nv", "config", "replace", "FILE"]]),
    # the apply with the timer fails: rejected anyway, in case a timer runs (the stand-in refuses --confirm-no
    # when none does, and the play goes on)
    ("confirm", [["nv", "config", "replace", "FILE"], *_drain("p1-s1-rail0"),
                 ["nv", "config", "diff", "-o", "commands"], [*APPLY, "--confirm", "15m"]]),
])
def test_a_failure_before_the_timer_runs_undrains(fabric, fail: str, after: list[list[str]]) -> None:
    gen, state, env = fabric
    out = _run(gen, state, env, "-e", f"netops_password_hash={SECRET}", "-e", "rollout_id=f",
               per_host={"p1-s1-rail0": {"fail": fail}})
    text = " ".join(out.stdout.split())
    assert out.returncode != 0
    assert "ROLLBACK FAILED" not in text, text[-3000:]
    assert "p1-s1-rail0: the change failed" in text and "the switch undrained. Rollout stopped." in text
    file = str(state / "p1-s1-rail0" / "rf-f.yaml")
    reject = [["nv", "config", "apply", "--confirm-no"]] if fail == "confirm" else []
    assert _by_host(state) == {"p1-s1-rail0": [
        BGP, *_drain("p1-s1-rail0"), APPLY, *[[file if a == "FILE" else a for a in c] for c in after],
        ["nv", "config", "detach"], *reject, *_undrain("p1-s1-rail0"), APPLY, BGP]}
    # the switch runs what it ran before, undrained; nothing pending, no timer, the file removed
    assert _applied(state, "p1-s1-rail0") == {"tree": _original(gen, "p1-s1-rail0"), "pushed": False}
    assert sorted(p.name for p in (state / "p1-s1-rail0").iterdir()) == ["applied.json", "bgp.json", "lldp.json"]
    assert SECRET not in out.stdout + out.stderr


@pytest.mark.parametrize("what, args, per_host, message", [
    ("a confirm timer shorter than the verification", ("-e", "nvue_confirm_timer=4m"), {},
     "nvue_confirm_timer 4m (240 s) must exceed twice rollout_verify_timeout"),
    ("the push account is not a system-admin of the file", (), {"ansible_user": "ops"},
     "no `system aaa user ops role system-admin`: the push account would lose its access"),
    # the prepend drain's refusal (graceful shutdown sets no peer-group policy): asked for with -e
    ("a peer group with an outbound policy of its own (the drain would replace it)",
     ("-e", "rollout_drain=as-path-prepend"), {},
     "peer group SPINES already has an outbound ipv4-unicast policy: the drain would replace it"),
])
def test_preflight_refusals_send_nothing(fabric, what: str, args: tuple, per_host: dict, message: str) -> None:
    """(The access check's other refusals: tests/test_render_nvue.py, on the filter itself.)"""
    gen, state, env = fabric
    if "peer group" in what:
        path = gen / "configs" / "p1-s1-rail0" / "startup.yaml"
        doc = yaml.safe_load(path.read_text())
        group = doc[0]["set"]["vrf"]["default"]["router"]["bgp"]["peer-group"]["SPINES"]
        group["address-family"]["ipv4-unicast"]["policy"] = {"outbound": {"route-map": "RM-OWN"}}
        path.write_text(yaml.safe_dump(doc))
    out = _run(gen, state, env, "-e", f"netops_password_hash={SECRET}", "-e", "rollout_verify_timeout=60", *args,
               per_host={"p1-s1-rail0": per_host})
    text = " ".join(out.stdout.split())
    assert out.returncode != 0, what
    assert message in text, text[-2000:]
    assert calls(state) == [], what
    assert not list(state.glob("*/rf-*")), what


# --------------------------------------------------------------------------- the stand-in on its own (no Ansible)


def _nv(state: Path, *argv: str) -> int:
    return standin_main(["--state", str(state), "--host", "sw", *argv])


def test_standin_refuses_a_file_that_is_not_an_nvue_document(tmp_path: Path, capsys) -> None:
    tree = {"system": {"hostname": "sw"}}
    init_switch(tmp_path, "sw", tree, {}, {})
    for text in ("set:\n  system: {hostname: x}\n",  # a mapping, not a list
                 "- set:\n    system: {hostname: x}\n- sett: {}\n",  # an item that is neither set nor unset
                 "- set: [system]\n"):  # set: is not an object
        (tmp_path / "f.yaml").write_text(text)
        assert _nv(tmp_path, "nv", "config", "replace", str(tmp_path / "f.yaml")) == 1, text
        assert "not an NVUE configuration" in capsys.readouterr().err
        assert not (tmp_path / "sw" / "pending.json").exists()
    (tmp_path / "f.yaml").write_text("- set:\n    system: {hostname: x, timezone: UTC}\n- unset:\n    system:\n"
                                     "      timezone: {}\n")
    assert _nv(tmp_path, "nv", "config", "replace", str(tmp_path / "f.yaml")) == 0
    assert _nv(tmp_path, "nv", "config", "diff", "-o", "commands") == 0
    assert capsys.readouterr().out == "nv set system hostname x\n"
    assert _applied(tmp_path, "sw") == {"tree": tree, "pushed": False}  # pending only, until applied


def test_standin_drain_confirm_and_the_timer(tmp_path: Path, capsys) -> None:
    tree = {"router": {"bgp": {"autonomous-system": 65001}}}
    init_switch(tmp_path, "sw", tree, {}, {})
    drain = ["router", "policy", "route-map", "RF-DRAIN", "rule", "10"]
    assert _nv(tmp_path, "nv", "set", *drain, "action", "permit") == 0
    assert _nv(tmp_path, "nv", "set", *drain, "set", "as-path-prepend", "as", "65001,65001") == 0
    drained = {"router": {"bgp": {"autonomous-system": 65001}, "policy": {"route-map": {"RF-DRAIN": {"rule": {
        "10": {"action": {"permit": {}}, "set": {"as-path-prepend": {"as": "65001,65001"}}}}}}}}}
    assert json.loads((tmp_path / "sw" / "pending.json").read_text())["tree"] == drained
    assert _nv(tmp_path, "nv", "config", "apply", "--assume-yes", "--confirm", "15m") == 0
    assert _applied(tmp_path, "sw")["tree"] == drained
    assert _nv(tmp_path, "nv", "config", "apply", "--assume-yes") == 1  # a confirm is pending
    assert _nv(tmp_path, "nv", "config", "apply", "--confirm-no") == 0
    assert _applied(tmp_path, "sw") == {"tree": tree, "pushed": False}
    assert _nv(tmp_path, "nv", "config", "apply", "--confirm-no") == 1  # nothing to reject
    # unconfirmed past its timer: the next command finds the switch rolled back by itself
    assert _nv(tmp_path, "nv", "set", *drain, "action", "permit") == 0
    assert _nv(tmp_path, "nv", "config", "apply", "--confirm", "1s") == 0
    timer = json.loads((tmp_path / "sw" / "confirm.json").read_text())
    (tmp_path / "sw" / "confirm.json").write_text(json.dumps(timer | {"started": timer["started"] - 2}))
    assert _nv(tmp_path, "nv", "config", "apply", "--confirm-yes") == 1
    assert _applied(tmp_path, "sw") == {"tree": tree, "pushed": False}
    # unset removes the subtree and the parents it empties: the undrained tree is the one before
    assert _nv(tmp_path, "nv", "set", *drain, "action", "permit") == 0
    assert _nv(tmp_path, "nv", "config", "apply", "-y") == 0
    assert _nv(tmp_path, "nv", "unset", "router", "policy", "route-map", "RF-DRAIN") == 0
    assert _nv(tmp_path, "nv", "config", "apply", "-y") == 0
    assert _applied(tmp_path, "sw")["tree"] == tree
    capsys.readouterr()
    assert _nv(tmp_path, "--fail", "detach", "nv", "config", "detach") == 1
    assert "detach failed" in capsys.readouterr().err


def test_mask_hides_each_vault_value_as_written_and_as_nvue_quotes_it() -> None:
    from railfabric.configs.nvue.ansible_plugin import rf_nvue_mask

    lines = ["nv set system aaa user netops hashed-password $6$abc", 'nv set system banner "say \\"hi\\""',
             "nv set system hostname sw1"]
    # 'say "hi"' is written JSON-quoted by the diff (backslash before each quote); None and "" mask nothing
    assert rf_nvue_mask(lines, ["$6$abc", 'say "hi"', None, ""]) == [
        "nv set system aaa user netops hashed-password ********", 'nv set system banner "********"',
        "nv set system hostname sw1"]
