"""The generated NX-OS push (generated/ansible/deploy.yml + tasks/nxos.yml, unchanged) run end to end with the real
ansible-playbook, cisco.nxos and ansible.netcommon (network_cli over paramiko, SCP for nxos_file_copy) against
stand-in NX-OS switches (tests/nxos_standin/: SSH, CLI, SCP sink, one per switch on its management address).

The fabric: tests.helpers' mini inventory on NX-OS with the minimal `system:` (push account netops, its hash from
the vault variable netops_password_hash) and the management pool 127.0.0.0/16, so each switch's rendered mgmt0
address is a loopback address its stand-in listens on and the pre-flight's access check passes as on a real switch.
Rollout order (rollout_plan.yml, one switch per wave): p1-s1-rail0, p1-s1-rail1, p1-spine1, p1-spine2.
By hand from the mini fabric: rail switch ASNs 4200100000 + slot (rail0, rail1), both with peer template SPINES
(uplinks 10.32.0.0/31 slot per spine: rail0 peers 10.32.0.0 and 10.32.0.2, rail1 peers 10.32.0.32 and 10.32.0.34,
a rail switch's uplinks being 16 /31s = 32 addresses apart); the spines share 4200001001 with template RAIL-SWITCHES.

Each switch starts with the running-config it would have before this rollout: the blocks railfabric does not own
(SWITCH_OWN: version, boot image, the SCP server nxos_file_copy needs, CoPP profile, the built-in admin
account, line vty) and the rendered
configuration with one old interface description (Ethernet1/3 "before the rollout" instead of "unused").
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import yaml

from railfabric.configs.nxos import ansible_plugin as nxos_ansible
from tests.helpers import base_inventory, with_system
from tests.nxos_standin import config, server
from tests.rollout_support import ansible_env, lab_inventory, playbook, render

ORDER = ["p1-s1-rail0", "p1-s1-rail1", "p1-spine1", "p1-spine2"]
BGP = {"p1-s1-rail0": ("4200100000", ["SPINES"]), "p1-s1-rail1": ("4200100001", ["SPINES"]),
       "p1-spine1": ("4200001001", ["RAIL-SWITCHES"]), "p1-spine2": ("4200001001", ["RAIL-SWITCHES"])}
PASSWORD = "standin-Passw0rd"
HASH = "$5$Qx8r1$0123456789abcdefghijklmnopqrstuvwxyzABCDE"  # the vault value of netops_password_hash
SWITCH_OWN = """version 10.4(3) Bios:version 01.10
boot nxos bootflash:/nxos64-cs.10.4.3.F.bin
feature scp-server
copp profile strict
username admin password 5 $5$Zz9y8$adminhashadminhashadminhashadminhashadmin role network-admin
line vty
  exec-timeout 30
"""
ID = "T1"  # rollout_id: the bootflash file is rf-T1.cfg, the checkpoint rf-T1.cp
SHOW_BGP, SHOW_LLDP = "show bgp ipv4 unicast summary | json", "show lldp neighbors detail | json"
CONNECT = ["terminal length 0", "terminal width 511"]  # cisco.nxos terminal plugin, on opening the shell


def drain(host: str) -> list[str]:
    """routing.drain auto on an NX-OS fabric: graceful-shutdown (NX-OS sends it: `graceful-shutdown activate`)."""
    asn, _templates = BGP[host]
    return [f"router bgp {asn}", "graceful-shutdown activate"]


def undrain(host: str) -> list[str]:
    asn, _templates = BGP[host]
    return [f"router bgp {asn}", "no graceful-shutdown activate"]


def until_replace(host: str) -> list[str]:
    """The play's commands up to the replace: the device facts (show version, show inventory: the cliconf
    plugin's get_capabilities, which the first module on the connection asks for); the running-config read;
    nxos_file_copy (`dir bootflash:/F` to see the file is absent, `dir bootflash:` for the free space, then SCP);
    the sessions before; the drain in one configuration session; nxos_rollback's checkpoint (terminal dont-ask
    first); the replace with its commit timer (default nxos_commit_timeout 900)."""
    return [*CONNECT, "show version", "show inventory", "show running-config", f"dir bootflash:/rf-{ID}.cfg",
            "dir bootflash:", f"scp rf-{ID}.cfg", SHOW_BGP, "configure terminal", *drain(host), "end",
            "terminal dont-ask", f"checkpoint file rf-{ID}.cp", "terminal dont-ask",
            f"configure replace bootflash:rf-{ID}.cfg commit-timeout 900"]


DELETES = [f"delete bootflash:rf-{ID}.cfg no-prompt", f"delete bootflash:rf-{ID}.cp no-prompt"]


def happy(host: str) -> list[str]:
    return [*until_replace(host), SHOW_BGP, SHOW_LLDP, "configure replace commit", "configure terminal",
            *undrain(host), "end", "copy running-config startup-config", *DELETES]


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = with_system(base_inventory())
    data["fabric"]["platform"] = "nxos"
    data["pools"]["management"] = {"prefix": "127.0.0.0/16"}
    return render(tmp_path_factory.mktemp("nxos-rollout"), data)


def rendered(gen: Path, host: str) -> str:
    """The rendered file as the push sends it (the vault placeholder resolved)."""
    text = (gen / "configs" / host / "running-config.cfg").read_text()
    return text.replace("%%vault.netops_password_hash%%", HASH)


def before(gen: Path, host: str) -> str:
    old = rendered(gen, host).replace("interface Ethernet1/3\n  description unused\n",
                                      "interface Ethernet1/3\n  description before the rollout\n")
    assert old != rendered(gen, host)
    return SWITCH_OWN + old


def config_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and not line.startswith("!")]


class Lab:
    def __init__(self, gen: Path, tmp: Path) -> None:
        self.gen, self.tmp = gen, tmp
        self.env = ansible_env(tmp / "ansible", real_collections=True)  # (skips before any switch starts)
        self.log = tmp / "calls.jsonl"
        self.log.write_text("")
        inventory = yaml.safe_load((gen / "ansible" / "inventory.yml").read_text())["all"]["children"]
        addresses = {h: v["ansible_host"] for group in ("role_rail", "role_spine")
                     for h, v in inventory[group]["hosts"].items()}
        lldp = self._lldp()
        key, lock = server.host_key(), threading.Lock()
        self.switches: dict[str, server.Standin] = {}
        for host in ORDER:
            self.state(host, lldp=lldp[host])
            self.switches[host] = server.start(host, addresses[host], before(gen, host), tmp / f"{host}.json",
                                               self.log, lock, key, "netops", PASSWORD)
        # the stand-in answers each command in one write ending with the prompt, so network_cli need not wait
        # its default 0.1 s for more output after the prompt (about 40 commands per switch)
        per_host = {h: {"ansible_port": s.port, "ansible_user": "netops", "ansible_password": PASSWORD,
                        "ansible_network_cli_ssh_type": "paramiko", "ansible_command_timeout": 30,
                        "ansible_buffer_read_timeout": 0}
                    for h, s in self.switches.items()}
        self.inventory = lab_inventory(tmp / "standin.yml", per_host)

    def _lldp(self) -> dict[str, list[dict[str, str]]]:
        """What each switch's LLDP sees: the cabling as planned, NX-OS spelling Ethernet1/33 as Eth1/33."""
        out: dict[str, list[dict[str, str]]] = {h: [] for h in ORDER}
        rows = (self.gen / "expected" / "lldp_neighbors.csv").read_text().splitlines()[2:]
        for row in rows:
            device, local, name, port, _role = row.split(",")
            out[device].append({"local": local.replace("Ethernet", "Eth"), "name": name,
                                "port": port.replace("Ethernet", "Eth")})
        return out

    def state(self, host: str, **world: object) -> None:
        path = self.tmp / f"{host}.json"
        old = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps({**old, **world}))

    def run(self, *args: str):
        return playbook(self.gen, self.env, "-e", json.dumps({
            "netops_password_hash": HASH, "rollout_id": ID, "rollout_drain_settle": 0,
            "rollout_verify_timeout": 2, "rollout_verify_delay": 1}), *args, inventories=(self.inventory,),
            timeout=300)

    def calls(self) -> list[dict]:
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def sent(self, host: str) -> list[str]:
        return [c.get("command") or f"scp {c['scp']}" for c in self.calls() if c["host"] == host and
                ("command" in c or "scp" in c)]

    def running(self, host: str) -> list[str]:
        return config_lines(self.switches[host].switch.running_text())

    def stop(self) -> None:
        for s in self.switches.values():
            s.stop()


@pytest.fixture
def lab(gen: Path, tmp_path: Path):
    lab = Lab(gen, tmp_path)
    yield lab
    lab.stop()


def test_replace_target_keeps_the_scp_server_the_push_needs(gen: Path) -> None:
    # nxos_file_copy pushes by SCP, which NX-OS serves only with `feature scp-server` (the module's notes);
    # railfabric does not render that line, so a replace target without the switch's copy would turn it off and
    # the next push could not copy its file
    target = nxos_ansible.rf_nxos_replace_target(rendered(gen, "p1-s1-rail0"), before(gen, "p1-s1-rail0"))
    assert "feature scp-server" in target.splitlines()
    assert "feature scp-server" not in rendered(gen, "p1-s1-rail0").splitlines()


def test_push_in_wave_order_with_checkpoint_replace_and_confirm(lab: Lab) -> None:
    out = lab.run()
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    hosts = []
    for c in lab.calls():
        if not hosts or hosts[-1] != c["host"]:
            hosts.append(c["host"])
    assert hosts == ORDER  # one switch after the other, each finished before the next starts
    for host in ORDER:
        assert lab.sent(host) == happy(host), host
        # the replace target, undrained: the rendered file, then the switch's own blocks as it had them (the admin
        # account kept because railfabric renders no `username admin`)
        assert lab.running(host) == config_lines(rendered(lab.gen, host)) + config_lines(SWITCH_OWN), host
        sw = lab.switches[host].switch
        assert sw.startup == sw.running_text()  # saved
        assert sw.bootflash == {}  # target and checkpoint deleted
        assert sw.before_replace is None  # the commit timer was stopped by `configure replace commit`
    # the replace target keeps the switch drained until the undrain: p1-s1-rail0's is its rendered file with
    # `graceful-shutdown activate` first in `router bgp`, then the switch's own blocks
    lines = config_lines(rendered(lab.gen, "p1-s1-rail0"))
    bgp = lines.index("router bgp 4200100000")
    drained = [*lines[:bgp + 1], "  graceful-shutdown activate", *lines[bgp + 1:]]
    assert [config_lines(t) for t in lab.switches["p1-s1-rail0"].switch.replace_targets] == [
        drained + config_lines(SWITCH_OWN)]


def test_fault_on_the_second_switch_rolls_back_and_stops(lab: Lab) -> None:
    # the new configuration breaks p1-s1-rail1's session to p1-spine1 (10.32.0.32) until a rollback undoes it
    lab.state("p1-s1-rail1", bgp_down_after_replace=["10.32.0.32"])
    out = lab.run()
    assert out.returncode != 0
    text = " ".join(out.stdout.split())
    assert (f"p1-s1-rail1: the change failed; rolled back to checkpoint rf-{ID}.cp and the switch undrained. "
            "Rollout stopped.") in text
    assert lab.sent("p1-s1-rail0") == happy("p1-s1-rail0")
    # rollout_verify_timeout 2 // rollout_verify_delay 1 = 2 retries: 3 BGP reads, then the rescue: rollback to the
    # checkpoint, undrain, the sessions up before are up again (one read), then the deletes (always)
    assert lab.sent("p1-s1-rail1") == [*until_replace("p1-s1-rail1"), SHOW_BGP, SHOW_BGP, SHOW_BGP,
                                       f"rollback running-config file rf-{ID}.cp", "configure terminal",
                                       *undrain("p1-s1-rail1"), "end", SHOW_BGP, *DELETES]
    assert lab.running("p1-s1-rail1") == config_lines(before(lab.gen, "p1-s1-rail1"))  # as it was, undrained
    assert lab.switches["p1-s1-rail1"].switch.bootflash == {}
    assert lab.sent("p1-spine1") == [] and lab.sent("p1-spine2") == []  # the rollout stopped


def test_check_mode_only_reads(lab: Lab) -> None:
    out = lab.run("--check", "--diff")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "before the rollout" in out.stdout  # the diff shows the line the push would change
    for host in ORDER:
        # the play's read, then nxos_config's own read for the diff against the intended configuration
        assert lab.sent(host) == [*CONNECT, "show version", "show inventory", "show running-config",
                                  "show running-config"], host
        assert lab.running(host) == config_lines(before(lab.gen, host))
        assert lab.switches[host].switch.bootflash == {}


@pytest.mark.parametrize("timeout", ["720", "3601"])  # 720 = 2 × 300 + 120 is not more than it; 3600 is NX-OS's max
def test_preflight_refuses_a_commit_timeout_and_sends_nothing(lab: Lab, timeout: str) -> None:
    out = playbook(lab.gen, lab.env, "-e", json.dumps({"netops_password_hash": HASH, "nxos_commit_timeout": timeout}),
                   inventories=(lab.inventory,), timeout=300)
    assert out.returncode != 0
    assert f"nxos_commit_timeout {timeout} s must exceed twice rollout_verify_timeout" in " ".join(out.stdout.split())
    assert lab.calls() == []


def test_standin_modes_merge_and_commit_timer(tmp_path: Path) -> None:
    """The stand-in's own model: NX-OS leaves a sub-mode for the parent a command belongs to; `no X` removes X
    (here or in the nearest parent that has it); the commit timer of a replace rolls back when it ends."""
    from tests.nxos_standin.cli import Session, Switch

    start = "hostname s\nfeature scp-server\nrouter bgp 1\n  template peer A\n    address-family ipv4 unicast\n"
    sw = Switch("s", start, tmp_path / "none.json", tmp_path / "log.jsonl", threading.Lock())
    cli = Session(sw)
    for line in ["configure terminal", "router bgp 1", "template peer A", "address-family ipv4 unicast",
                 "route-map D out", "template peer B", "remote-as 2", "route-map D permit 10", "end"]:
        assert cli.run(line) is not None
    assert config_lines(sw.running_text()) == [
        "hostname s", "feature scp-server", "router bgp 1", "  template peer A", "    address-family ipv4 unicast",
        "      route-map D out", "  template peer B", "    remote-as 2", "route-map D permit 10"]
    for line in ["configure terminal", "router bgp 1", "template peer A", "address-family ipv4 unicast",
                 "no route-map D out", "no route-map D", "end"]:
        cli.run(line)
    assert "route-map D" not in sw.running_text()
    assert cli.run("bogus") == "% Invalid command at '^' marker."
    sw.bootflash["t.cfg"] = b"hostname t\n"
    assert cli.run("configure replace bootflash:t.cfg commit-timeout 29").startswith("% Invalid number")
    assert "Configure replace completed successfully" in cli.run("configure replace bootflash:t.cfg commit-timeout 30")
    assert config.hostname(sw.running) == "t" and cli.prompt() == "t# "
    sw.timer.cancel()
    sw._timer_expired()  # what the timer does after 30 s
    assert config.hostname(sw.running) == "s" and sw.timer is None
