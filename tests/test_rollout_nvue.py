"""The NVUE (Cumulus Linux) push play end to end: the generated deploy.yml, unchanged, with the real
ansible-playbook, against the stand-in tests/nvue_standin/standin.py (applied / pending revisions, the confirm
timer, FRR's and lldpd's JSON; every call logged). How a switch's tasks reach it: tests/nvue_standin/support.py.

The fabric: tests.helpers' mini inventory on NVUE (with the minimal `system:`: push account netops, system-admin,
its hash from the vault variable netops_password_hash). Derived by hand from tests/helpers.py _BASE:
- rollout order (fabric/outputs/rollout.py): p1-s1-rail0 (canary), p1-s1-rail1 (same segment), p1-spine1 (cabled
  to both rails), p1-spine2 (spines of one pod): one switch per wave;
- ASNs: rail switch slot s → 4200100000 + s; pod 1 spines 4200001001;
- fabric links 10.32.0.0/11, 16 uplinks per rail switch: rail slot s, uplink u (u=0 → p1-spine1, u=1 →
  p1-spine2) is /31 number 16·s + u = 10.32.0.(32·s + 2·u)/31, spine even, rail odd; the rail end is swp(33 + u)
  (ports 1-32 are downlinks), the spine end swp(s + 1);
- hosts: 4 hosts × 2 NICs of 400G on 2x400G breakouts: host h on swp⌈h/2⌉s((h-1) mod 2), NIC r on rail r,
  neighbour port nic<r>p1;
- peer groups: SPINES on the rail switches, RAIL-SWITCHES on the spines (the drain prepends the switch's own ASN
  three times, rollout_drain_prepend's default, on each).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import base_inventory, with_system
from tests.nvue_standin.standin import document_tree, init_switch
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
    """What the switch runs before the push: the render with one uplink description of its own."""
    tree = _rendered(gen, host)
    port = "swp1" if "spine" in host else "swp33"
    tree["interface"][port]["description"] = "before the rollout"
    return tree


def _drain(host: str) -> list[list[str]]:
    group = "RAIL-SWITCHES" if "spine" in host else "SPINES"
    prepend = " ".join([str(_asn(host))] * 3)
    return [["nv", "set", "router", "policy", "route-map", "RF-DRAIN", "rule", "10", "action", "permit"],
            ["nv", "set", "router", "policy", "route-map", "RF-DRAIN", "rule", "10", "set", "as-path-prepend",
             "as", prepend],
            ["nv", "set", "vrf", "default", "router", "bgp", "peer-group", group, "address-family", "ipv4-unicast",
             "policy", "outbound", "route-map", "RF-DRAIN"]]


def _undrain(host: str) -> list[list[str]]:
    group = "RAIL-SWITCHES" if "spine" in host else "SPINES"
    return [["nv", "unset", "vrf", "default", "router", "bgp", "peer-group", group, "address-family",
             "ipv4-unicast", "policy", "outbound", "route-map"],
            ["nv", "unset", "router", "policy", "route-map", "RF-DRAIN"]]


APPLY = ["nv", "config", "apply", "--assume-yes"]
BGP = ["vtysh", "-c", "show bgp summary json"]


def _push_start(state: Path, host: str, rid: str) -> list[list[str]]:
    """The play up to the confirm timer: the sessions before, drain + apply, replace, drain again, diff, apply
    with the timer (the copy of the file is Ansible's own module, not a switch command)."""
    return [BGP, *_drain(host), APPLY, ["nv", "config", "replace", str(state / host / f"rf-{rid}.yaml")],
            *_drain(host), ["nv", "config", "diff", "-o", "commands"], [*APPLY, "--confirm", "15m"]]


@pytest.fixture
def fabric(tmp_path: Path):
    gen = render(tmp_path, with_system(base_inventory() | {"fabric": {"name": "mini", "platform": "nvue"}}))
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
    # verification: rollout_verify_timeout 2 // rollout_verify_delay 1 = 2 retries, 3 reads in all; then
    # --confirm-no (back to the drained revision before the push), undrain, the sessions up before are up again
    assert log["p1-s1-rail1"] == [*_push_start(state, "p1-s1-rail1", "bad"), BGP, BGP, BGP,
                                  ["nv", "config", "apply", "--confirm-no"], *_undrain("p1-s1-rail1"), APPLY, BGP]
    assert _applied(state, "p1-s1-rail1") == {"tree": _original(gen, "p1-s1-rail1"), "pushed": False}
    assert sorted(p.name for p in (state / "p1-s1-rail1").iterdir()) == ["applied.json", "bgp.json", "lldp.json"]
    assert _applied(state, "p1-s1-rail0")["tree"] == _rendered(gen, "p1-s1-rail0")  # the canary keeps its push
    assert "rolled back" in text and "ROLLBACK FAILED" not in text


def test_check_mode_loads_shows_and_detaches(fabric) -> None:
    gen, state, env = fabric
    out = _run(gen, state, env, "--check", "-e", f"netops_password_hash={SECRET}", "-e", "rollout_id=chk")
    assert out.returncode == 0, out.stdout[-3000:]
    for host in ORDER:
        assert _by_host(state)[host] == [["nv", "config", "replace", str(state / host / "rf-chk.yaml")],
                                         ["nv", "config", "diff", "-o", "commands"], ["nv", "config", "detach"]]
        assert _applied(state, host) == {"tree": _original(gen, host), "pushed": False}
        # nothing pending, and the copied file (it holds the resolved password hash) is removed
        assert sorted(p.name for p in (state / host).iterdir()) == ["applied.json", "bgp.json", "lldp.json"]
    # the diff shows the one change: the uplink description the switch had before
    assert '"nv set interface swp33 description \\"p1-spine1 swp1\\""' in out.stdout


@pytest.mark.parametrize("what, args, per_host, message", [
    ("a confirm timer shorter than the verification", ("-e", "nvue_confirm_timer=4m"), {},
     "nvue_confirm_timer 4m (240 s) must exceed twice rollout_verify_timeout"),
    ("a timer unit NVUE does not take", ("-e", "nvue_confirm_timer=15x"), {},
     "nvue_confirm_timer 15x (0 s) must exceed"),
    ("the push account is not a system-admin of the file", (), {"ansible_user": "ops"},
     "no `system aaa user ops role system-admin`: the push account would lose its access"),
    ("eth0 loses the address Ansible connects to", (), {"ansible_host": "192.168.99.9"},
     "interface eth0 has no address 192.168.99.9, the address Ansible connects to"),
])
def test_preflight_refusals_send_nothing(fabric, what: str, args: tuple, per_host: dict, message: str) -> None:
    gen, state, env = fabric
    out = _run(gen, state, env, "-e", f"netops_password_hash={SECRET}", "-e", "rollout_verify_timeout=60", *args,
               per_host={"p1-s1-rail0": per_host})
    text = " ".join(out.stdout.split())
    assert out.returncode != 0, what
    assert message in text, text[-2000:]
    assert calls(state) == [], what
    assert not list(state.glob("*/rf-*")), what
