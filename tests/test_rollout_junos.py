"""The Junos rollout end to end: generated/ansible/deploy.yml, unchanged, with the real ansible-playbook, the real
junipernetworks.junos and ansible.netcommon (NETCONF over SSH through ncclient), against one stand-in Junos switch
per host (tests/junos_standin/server.py: NETCONF 1.0 over paramiko, an honest model of the committed history, the
candidate and the pending commit confirmed). Proven, from the RPCs each switch received, in order:
- one run of all four waves: the first switch drained, pushed with `commit confirmed 15`, verified, confirmed and
  undrained (its final configuration is the rendered one); the second switch's push breaks BGP, so it is rolled back
  (`rollback 1` + commit, undrain) to what it had before and the rollout stops: the spines receive nothing;
- --check: load override, compare, discard on every switch, no commit;
- the pre-flight refusals (commit-confirmed timer too short, the root password's vault variable undefined) open no
  connection at all;
- the two fixes this file came with: host_vars' vault_variables lists the root password hash, and the drained file
  agrees with the drain's set lines (also for a BGP group without an export statement).

The fabric: tests.helpers' mini inventory on Junos (p1-s1-rail0, p1-s1-rail1, p1-spine1, p1-spine2; one switch per
wave, in that order), with the system settings (push account netops). Facts derived by hand:
- ASNs: rail switch r of pod 1 segment 1 has slot ((1-1)·4 + (1-1))·8 + r = r (limits: 4 segments per pod, 8 rail
  switches per segment), ASN 4200100000 + r; the pod-1 spines share 4200001000 + 1 = 4200001001.
- Fabric /31s from 10.32.0.0/11: rail switch slot r owns the 16 /31s from number 16·r (16 uplinks per rail switch),
  its link to spine k (k = 0, 1) is /31 number 16·r + k, the spine end even: rail0 ↔ spine1 10.32.0.0/.1, rail0 ↔
  spine2 10.32.0.2/.3, rail1 ↔ spine1 10.32.0.32/.33, rail1 ↔ spine2 10.32.0.34/.35.
- Ports (Junos numbers from 0): a rail switch's uplinks are its ports 33 and 34 = et-0/0/32 (to spine1) and
  et-0/0/33 (to spine2), landing on spine port r + 1 = et-0/0/r; four 2-NIC hosts on 2x400G breakouts of ports 1-2:
  gpu001 et-0/0/0:0, gpu002 et-0/0/0:1, gpu003 et-0/0/1:0, gpu004 et-0/0/1:1, each on NIC r (nic<r>p1) for rail r.
- Management addresses: the rendered host_vars say where Ansible connects (ansible_host stays that address, so the
  pre-flight's access check runs on the real value); an ssh_config given to ncclient maps it to 127.0.0.1, and
  ansible_port is the stand-in's port.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import ncclient  # noqa: F401  (the test extra: ansible.netcommon's netconf connection needs it; fail, not skip)
import paramiko
import pytest
import yaml

from railfabric.configs.junos import ansible_plugin as junos
from railfabric.inventory.intent_system import PLACEHOLDER_RE
from tests.helpers import base_inventory, with_system
from tests.junos_standin import config as jconf
from tests.junos_standin.server import StandIn, Switch, calls, switches
from tests.rollout_support import ansible_env, lab_inventory, playbook, render

ORDER = ["p1-s1-rail0", "p1-s1-rail1", "p1-spine1", "p1-spine2"]
USER, PASSWORD = "netops", "lab-Passw0rd"
VAULT = {"netops_password_hash": "$6$rfsalt$netopshash", "junos_root_password_hash": "$6$rfsalt$roothash"}
FAST = ("-e", "rollout_drain_settle=0", "-e", "rollout_verify_timeout=1", "-e", "rollout_verify_delay=1")
SPINE_AS, RAIL_AS = "4200001001", ("4200100000", "4200100001")
BGP = {  # neighbour → the AS that really answers there (the /31s above)
    "p1-s1-rail0": {"10.32.0.0": SPINE_AS, "10.32.0.2": SPINE_AS},
    "p1-s1-rail1": {"10.32.0.32": SPINE_AS, "10.32.0.34": SPINE_AS},
    "p1-spine1": {"10.32.0.1": RAIL_AS[0], "10.32.0.33": RAIL_AS[1]},
    "p1-spine2": {"10.32.0.3": RAIL_AS[0], "10.32.0.35": RAIL_AS[1]},
}


def _lldp() -> dict[str, list[list[str]]]:
    out: dict[str, list[list[str]]] = {}
    for r in (0, 1):
        hosts = [[f"et-0/0/{i // 2}:{i % 2}", f"p1-s1-gpu{i + 1:03d}", f"nic{r}p1"] for i in range(4)]
        out[f"p1-s1-rail{r}"] = [*hosts, ["et-0/0/32", "p1-spine1", f"et-0/0/{r}"],
                                 ["et-0/0/33", "p1-spine2", f"et-0/0/{r}"]]
    for k in (0, 1):
        out[f"p1-spine{k + 1}"] = [[f"et-0/0/{r}", f"p1-s1-rail{r}", f"et-0/0/{32 + k}"] for r in (0, 1)]
    return out


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = with_system(base_inventory())
    data["fabric"]["platform"] = "junos"
    return render(tmp_path_factory.mktemp("junos-rollout"), data)


@pytest.fixture(scope="module")
def host_key() -> paramiko.PKey:
    return paramiko.RSAKey.generate(2048)


def resolved(text: str) -> str:
    """The configuration as the switch holds it: every vault placeholder replaced by its value."""
    return PLACEHOLDER_RE.sub(lambda m: VAULT[m.group(1)], text)


def before_rollout(text: str) -> str:
    """The switch's running configuration before the rollout: the resolved render with the first description
    changed by hand, so the push has something to change."""
    return re.sub(r'description "[^"]*";', 'description "before the rollout";', resolved(text), count=1)


class Lab:
    """The rendered fabric (a copy), a stand-in per switch, an inventory that points Ansible at them."""

    def __init__(self, gen: Path, tmp: Path, key: paramiko.PKey) -> None:
        self.gen, self.tmp = gen, tmp
        self.state = tmp / "state"
        self.rendered = {h: (gen / "configs" / h / "junos.conf").read_text() for h in ORDER}
        self.switches: dict[str, Switch] = switches(self.state, {h: before_rollout(t)
                                                                 for h, t in self.rendered.items()})
        self.before = {h: s.running for h, s in self.switches.items()}
        self.write_ops()
        self.servers = [StandIn(s, key, USER, PASSWORD).start() for s in self.switches.values()]
        mgmt = {h: yaml.safe_load((gen / "ansible" / "host_vars" / f"{h}.yml").read_text())["management"]
                .split("/")[0] for h in ORDER}
        ssh_config = tmp / "ssh_config"
        ssh_config.write_text("".join(f"Host {a}\n    HostName 127.0.0.1\n" for a in mgmt.values()))
        self.inventory = lab_inventory(tmp / "standin.yml", {
            s.switch.host: {"ansible_port": s.port, "ansible_user": USER, "ansible_password": PASSWORD,
                            "ansible_netconf_ssh_config": str(ssh_config)} for s in self.servers})
        self.env = ansible_env(tmp / "ansible")
        self.env.pop("SSH_AUTH_SOCK", None)

    def write_ops(self, bgp: dict[str, dict[str, str]] | None = None) -> None:
        lldp = _lldp()
        ops = {h: {"bgp": (bgp or BGP)[h], "lldp": lldp[h]} for h in ORDER}
        (self.state / "ops.json").write_text(json.dumps(ops))

    def run(self, *args: str, vault: dict[str, str] | None = None) -> Any:
        extra = json.dumps(VAULT if vault is None else vault)
        return playbook(self.gen, self.env, *FAST, "-e", extra, *args, inventories=(self.inventory,), timeout=300)

    def stop(self) -> None:
        for s in self.servers:
            s.stop()


@pytest.fixture
def lab(rendered: Path, tmp_path: Path, host_key: paramiko.PKey):
    gen = tmp_path / "generated"
    shutil.copytree(rendered, gen)
    lab = Lab(gen, tmp_path, host_key)
    yield lab
    lab.stop()


def _steps(log: list[dict[str, Any]], host: str) -> list[str]:
    """A switch's RPCs as short words, without the device-facts query every module run starts with."""
    out = []
    for c in log:
        if c["host"] != host or c["rpc"] == "get-software-information":
            continue
        a, d = c["attrs"], c["detail"]
        if c["rpc"] == "command":
            out.append(d)
        elif c["rpc"] == "load-configuration":
            out.append(f"load rollback {a['rollback']}" if "rollback" in a else f"load {a['action']}")
        elif c["rpc"] == "get-configuration":
            out.append(f"compare rollback {a['rollback']}" if a.get("compare") else f"get {a.get('format')}")
        elif c["rpc"] == "commit-configuration":
            out.append("commit" + (f" confirmed {d['confirm-timeout']}" if "confirmed" in d else "")
                       + (f" log={d['log']}" if "log" in d else ""))
        else:
            out.append(c["rpc"])
    return out


# What each junos_config task sends (junipernetworks.junos 11.0.0, modules/junos_config.py and
# module_utils/network/junos/junos.py): `lines` → lock, the set-format configuration (to drop `delete` lines that
# match nothing), load set, validate, compare rollback 0, commit if the diff is not empty, unlock; `src` +
# update override → the same with load override and no set-format read; confirm_commit → lock, commit, unlock;
# rollback N → compare rollback N, lock, load rollback N, commit, unlock.
def _lines(log: str) -> list[str]:
    return ["lock", "get set", "load set", "validate", "compare rollback 0", f"commit log={log}", "unlock"]


@pytest.fixture(scope="module")
def faulted(rendered: Path, tmp_path_factory: pytest.TempPathFactory, host_key: paramiko.PKey):
    """One rollout of all four waves, shared by the two tests below (a run costs tens of seconds): p1-s1-rail0 goes
    through, p1-s1-rail1's render has the wrong peer AS for its spines (a typo made by hand), so after its push its
    sessions go Active (the stand-in reports Established only when the configured peer-as is the AS that answers)."""
    tmp = tmp_path_factory.mktemp("junos-faulted")
    shutil.copytree(rendered, tmp / "generated")
    conf = tmp / "generated" / "configs" / "p1-s1-rail1" / "junos.conf"
    conf.write_text(conf.read_text().replace(f"peer-as {SPINE_AS};", "peer-as 4200001002;"))
    lab = Lab(tmp / "generated", tmp, host_key)
    out = lab.run("-e", "rollout_id=t1")
    yield lab, out, calls(lab.state)
    lab.stop()


COMMENT = "railfabric rollout rf-t1"
HAPPY = [
    "show bgp summary",  # the sessions up before the change
    *_lines(f"{COMMENT} drain"),
    "lock", "load override", "validate", "compare rollback 0", f"commit confirmed 15 log={COMMENT}", "unlock",
    "show bgp summary", "show lldp neighbors",  # verified at the first try
    "lock", "commit", "unlock",  # the confirmation (junos_config sends no log with confirm_commit)
    *_lines(f"{COMMENT} undrain"),
    "close-session",
]


def test_happy_path_on_the_first_switch_in_wave_order(faulted) -> None:
    lab, _out, log = faulted
    hosts = [c["host"] for c in log]
    assert list(dict.fromkeys(hosts)) == ORDER[:2]
    assert hosts == sorted(hosts, key=ORDER.index)  # every RPC of wave 1 before any of wave 2
    h = "p1-s1-rail0"
    assert _steps(log, h) == HAPPY
    sw = lab.switches[h]
    # the final configuration is the rendered one, resolved and undrained
    assert jconf.same_statements(sw.running, resolved(lab.rendered[h]))
    assert "graceful-shutdown" not in sw.running and sw.running != lab.before[h]
    # four commits on top of the one before the rollout: drain, push (confirmed 15), confirm, undrain
    assert [c.log for c in sw.history] == [f"{COMMENT} undrain", None, COMMENT, f"{COMMENT} drain", "initial"]
    assert sw.history[2].confirmed_minutes == 15 and sw.pending is None and sw.candidate is None
    # the push was committed drained: routing.drain auto on a Junos fabric is graceful-shutdown (Junos sends it), so
    # `protocols bgp graceful-shutdown sender` is in it, and the export chain of the one BGP group is the rendered one
    pushed = jconf.leaves(jconf.parse(sw.history[2].text))
    assert (("protocols", "bgp", "graceful-shutdown"), ("sender",)) in pushed
    assert [(p, s) for p, s in pushed if s[0] == "export" and p[:2] == ("protocols", "bgp")] == [
        (("protocols", "bgp", "group", "SPINES"), ("export", "RF-EXPORT"))]
    assert "RF-DRAIN" not in sw.history[2].text
    assert jconf.same_statements(sw.history[1].text, sw.history[2].text)  # the confirmation changes nothing


def test_fault_on_the_second_switch_rolls_back_and_stops(faulted) -> None:
    lab, out, log = faulted
    text = " ".join(out.stdout.split())
    assert out.returncode != 0
    assert "p1-s1-rail1: the change failed; rolled back to the configuration before the push and undrained. " \
           "Rollout stopped." in text, text[-3000:]
    assert {c["host"] for c in log} == {"p1-s1-rail0", "p1-s1-rail1"}  # later switches: nothing sent
    steps = _steps(log, "p1-s1-rail1")
    # rollout_verify_timeout 1 // rollout_verify_delay 1 = 1 retry: two tries, never Established
    assert steps == [
        *HAPPY[:HAPPY.index("show lldp neighbors")], "show bgp summary",
        "compare rollback 1", "lock", "load rollback 1", f"commit log={COMMENT} rolled back", "unlock",
        *_lines(f"{COMMENT} undrain after rollback"),
        "show bgp summary",  # the sessions up before are up again
        "close-session",
    ]
    sw = lab.switches["p1-s1-rail1"]
    assert jconf.same_statements(sw.running, lab.before["p1-s1-rail1"])  # what it was before the rollout
    assert sw.pending is None  # the rollback's commit confirmed the pending one (else Junos would roll back again)
    # history: undrain, rollback 1 (= the drained configuration), the push (confirmed 15), the drain, the start
    assert [c.log for c in sw.history] == [f"{COMMENT} undrain after rollback", f"{COMMENT} rolled back",
                                           COMMENT, f"{COMMENT} drain", "initial"]
    assert sw.history[1].text == sw.history[3].text
    assert "peer-as 4200001002" in sw.history[2].text and sw.history[2].confirmed_minutes == 15
    for h in ORDER[2:]:
        assert lab.switches[h].running == lab.before[h] and len(lab.switches[h].history) == 1


def test_check_mode_loads_compares_and_discards(lab: Lab) -> None:
    out = lab.run("--check", "--diff", "--limit", "rollout_wave_1,rollout_wave_2")  # the rails: half the time
    assert out.returncode == 0, out.stdout[-4000:]
    log = calls(lab.state)
    assert {c["host"] for c in log} == set(ORDER[:2])
    for h in ORDER[:2]:
        assert _steps(log, h) == ["lock", "load override", "validate", "compare rollback 0", "discard-changes",
                                  "unlock", "close-session"], h
    for h, sw in lab.switches.items():
        assert sw.running == lab.before[h] and len(sw.history) == 1 and sw.candidate is None
    assert not any(c["rpc"] == "commit-configuration" for c in log)
    # the diff shown is the stand-in's `show | compare`: the description changed back
    assert '-   description "before the rollout";' in out.stdout


def test_refused_confirm_timer_too_short(lab: Lab) -> None:
    # 10 min = 600 s is not more than 2 · 300 + 120 = 720 s (two verifications of rollout_verify_timeout, plus 120)
    out = lab.run("-e", "junos_confirm_minutes=10", "-e", "rollout_verify_timeout=300")
    assert out.returncode != 0
    assert "junos_confirm_minutes 10 must exceed twice rollout_verify_timeout" in " ".join(out.stdout.split())
    assert calls(lab.state) == []  # no connection at all


def test_refused_without_the_root_password(lab: Lab) -> None:
    out = lab.run(vault={"netops_password_hash": VAULT["netops_password_hash"]})
    assert out.returncode != 0
    assert "p1-s1-rail0: refused before sending anything: junos.conf needs the undefined vault variable(s) " \
           "junos_root_password_hash" in " ".join(out.stdout.split())
    assert calls(lab.state) == []


def test_host_vars_list_every_vault_variable_of_the_config(rendered: Path) -> None:
    """host_vars' vault_variables names every placeholder of the switch's rendered files: on Junos that includes
    the root password hash (junos_system.ROOT_PASSWORD), which no inventory setting names."""
    for h in ORDER:
        listed = yaml.safe_load((rendered / "ansible" / "host_vars" / f"{h}.yml").read_text())["vault_variables"]
        assert listed == ["junos_root_password_hash", "netops_password_hash"], h
        assert set(PLACEHOLDER_RE.findall((rendered / "configs" / h / "junos.conf").read_text())) == set(listed)





@pytest.mark.parametrize("host", ORDER)
def test_drained_file_agrees_with_the_drain_lines(rendered: Path, host: str) -> None:
    """The file `load override` commits while drained holds what the drain's set lines made of the running
    configuration, and the undrain lines bring the rendered one back; also for a BGP group without an export
    statement (the drain lines give it `export RF-DRAIN`, so the drained file must too, or the push would undrain
    that group before it is verified)."""
    text = (rendered / "configs" / host / "junos.conf").read_text()
    group = "RAIL-SWITCHES" if "spine" in host else "SPINES"
    no_export = re.sub(r"(group \S+ \{\n(?:(?!\n        \}).)*?)\n            export RF-EXPORT;", r"\1", text,
                       count=1, flags=re.S)
    assert no_export.count("export RF-EXPORT;") == text.count("export RF-EXPORT;") - 1
    for conf, exports in ((text, "[ RF-DRAIN RF-EXPORT ]"), (no_export, "RF-DRAIN")):
        tree = jconf.parse(conf)
        for line in junos.rf_junos_drain_lines(conf, 3, "as-path-prepend"):
            jconf.apply_set(tree, line)
        drained = junos.rf_junos_drained(conf, 3, "as-path-prepend")
        assert jconf.same_statements(jconf.to_text(tree), drained)
        assert (("protocols", "bgp", "group", group), ("export", exports)) in jconf.leaves(jconf.parse(drained))
        for line in junos.rf_junos_undrain_lines(conf, "as-path-prepend"):
            jconf.apply_set(tree, line)
        assert jconf.same_statements(jconf.to_text(tree), conf)
    # graceful shutdown (the fabric's drain here): one sender statement in `protocols bgp`, and gone again
    tree = jconf.parse(text)
    for line in junos.rf_junos_drain_lines(text, 3, "graceful-shutdown"):
        jconf.apply_set(tree, line)
    drained = junos.rf_junos_drained(text, 3, "graceful-shutdown")
    assert jconf.same_statements(jconf.to_text(tree), drained)
    assert [(p, s) for p, s in jconf.leaves(jconf.parse(drained)) if "graceful-shutdown" in p] == [
        (("protocols", "bgp", "graceful-shutdown"), ("sender",))]
    for line in junos.rf_junos_undrain_lines(text, "graceful-shutdown"):
        jconf.apply_set(tree, line)
    assert jconf.same_statements(jconf.to_text(tree), text)


def test_standin_model_set_delete_merge_compare() -> None:
    """The stand-in's own configuration model, on a small text whose results are written out by hand."""
    text = 'protocols {\n    bgp {\n        group G {\n            export [ A B ];\n            peer-as 65001;\n' \
           '        }\n    }\n}\n'
    tree = jconf.parse(text)
    assert jconf.set_lines(tree) == ["set protocols bgp group G export [ A B ]",
                                     "set protocols bgp group G peer-as 65001"]
    jconf.apply_set(tree, "delete protocols bgp group G export")
    jconf.apply_set(tree, "set protocols bgp group G export X")  # `[ X ]` would print as X too
    jconf.apply_set(tree, 'set policy-options policy-statement P then as-path-prepend "1 1"')
    jconf.apply_set(tree, "set protocols bgp group G peer-as 65002")  # a leaf is replaced, not added
    assert jconf.to_text(tree) == (
        'protocols {\n    bgp {\n        group G {\n            peer-as 65002;\n            export X;\n        }\n'
        '    }\n}\npolicy-options {\n    policy-statement P {\n        then {\n            as-path-prepend "1 1";\n'
        '        }\n    }\n}\n')
    assert jconf.compare(text, jconf.to_text(tree)) == (
        "[edit protocols bgp group G]\n-   export [ A B ];\n-   peer-as 65001;\n+   peer-as 65002;\n+   export X;\n"
        '[edit policy-options policy-statement P then]\n+   as-path-prepend "1 1";')
    jconf.apply_set(tree, "delete policy-options policy-statement P")
    assert jconf.set_lines(tree)[-1] == "set policy-options"  # the stand-in keeps an emptied block
    merged = jconf.parse(text)
    jconf.merge(merged, jconf.parse("protocols { bgp { group G { peer-as 65003; } group H { type external; } } }"))
    assert jconf.set_lines(merged) == ["set protocols bgp group G export [ A B ]",
                                       "set protocols bgp group G peer-as 65003",
                                       "set protocols bgp group H type external"]
    assert jconf.compare(text, text) == ""
