"""The rollout playbook's filter plugins (the shared railfabric/outputs/ansible_filters.py →
filter_plugins/railfabric.py, each platform's railfabric/configs/<name>/ansible_plugin.py → railfabric_<name>.py): each
decision with hand-written inputs and expected values."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from railfabric.configs.eos import ansible_plugin as eos
from railfabric.configs.nxos import ansible_plugin as nxos
from railfabric.configs.sonic import ansible_plugin as sonic
from railfabric.outputs import ansible_filters as f
from railfabric.platforms import PLATFORMS

EOS_OK = """\
vrf instance MGMT
!
username admin privilege 15 role network-admin secret sha512 %%vault.admin_hash%%
username ops privilege 1 role network-operator secret sha512 %%vault.ops_hash%%
!
interface Management1
   vrf MGMT
   ip address 192.168.0.10/24
!
management api http-commands
   protocol https
   no shutdown
   !
   vrf MGMT
      no shutdown
!
management ssh
   vrf MGMT
      no shutdown
!
router bgp 4200100000
   neighbor SPINES peer group
   neighbor SPINES remote-as 4200001001
!
"""


def test_batches_never_span_waves() -> None:
    assert f.rf_batches([1, 4, 3], 1) == [1] * 8
    assert f.rf_batches([1, 4, 3], "2") == [1, 2, 2, 2, 1]  # 4 → 2+2, 3 → 2+1
    assert f.rf_batches([1, 4, 3], 10) == [1, 4, 3]
    with pytest.raises(ValueError, match="1 or more"):
        f.rf_batches([2], 0)


def test_vault_placeholders() -> None:
    text = 'a %%vault.admin_hash%% b %%vault.tacacs_key%% c %%vault.admin_hash%% %%vault.Bad%%'
    assert f.rf_vault_names(text) == ["admin_hash", "tacacs_key"]  # NAME is ^[a-z_][a-z0-9_]{0,63}$
    assert f.rf_vault_resolve(text, {"admin_hash": "$6$x", "tacacs_key": "k"}) == "a $6$x b k c $6$x %%vault.Bad%%"
    with pytest.raises(ValueError, match=r"undefined vault variable.*tacacs_key"):
        f.rf_vault_resolve(text, {"admin_hash": "h"})
    # a line break would add a configuration line: refused
    with pytest.raises(ValueError, match="line break"):
        f.rf_vault_resolve("x %%vault.k%%", {"k": "a\nusername evil privilege 15"})
    # JSON files: the value is escaped as a JSON string body
    doc = '{"key": "%%vault.k%%"}'
    resolved = f.rf_vault_resolve(doc, {"k": 'quo"te\\'}, "json")
    assert json.loads(resolved) == {"key": 'quo"te\\'}


def test_eos_access_kept() -> None:
    assert eos.rf_eos_access_problems(EOS_OK, "admin", "ansible.netcommon.network_cli") == []
    assert eos.rf_eos_access_problems(EOS_OK, "admin", "ansible.netcommon.httpapi") == []


@pytest.mark.parametrize("edit, user, problem", [
    (lambda t: t.replace("management api http-commands", "management api gnmi"), "admin",
     "no `management api http-commands`"),
    (lambda t: t.replace("   protocol https\n   no shutdown\n", "   protocol https\n   shutdown\n"), "admin",
     "`management api http-commands` is shut down"),
    (lambda t: t.replace("   vrf MGMT\n      no shutdown\n!\nmanagement ssh", "!\nmanagement ssh"), "admin",
     "`management api http-commands` is not enabled in VRF MGMT"),
    (lambda t: t.replace("management ssh\n   vrf MGMT\n      no shutdown\n", ""), "admin",
     "no `management ssh`"),  # the push uses SSH (network_cli) and Management1 is in VRF MGMT
    (lambda t: t, "ops", "no `username ops ... role network-admin`"),  # ops is only network-operator
    (lambda t: t, "nobody", "no `username nobody"),
    (lambda t: t, "", "ansible_user is not set"),
])
def test_eos_access_refusals(edit, user: str, problem: str) -> None:
    problems = eos.rf_eos_access_problems(edit(EOS_OK), user, "ansible.netcommon.network_cli")
    assert len(problems) == 1 and problems[0].startswith(problem), problems


def test_eos_default_vrf_and_privilege_15() -> None:
    text = "username ansible privilege 15 secret sha512 x\nmanagement api http-commands\n   no shutdown\n"
    assert eos.rf_eos_access_problems(text, "ansible", "ansible.netcommon.httpapi") == []
    # SSH is on by default in the default VRF: no `management ssh` block needed there
    assert eos.rf_eos_access_problems(text, "ansible", "ansible.netcommon.network_cli") == []


def test_sonic_access() -> None:
    db = {"MGMT_INTERFACE": {"eth0|192.168.0.160/20": {"gwaddr": "192.168.0.1"}},
          "MGMT_PORT": {"eth0": {"admin_status": "up", "alias": "eth0"}}}
    assert sonic.rf_sonic_access_problems(db, "192.168.0.160") == []
    assert sonic.rf_sonic_access_problems(db, "192.168.0.161") == [
        "MGMT_INTERFACE has no eth0 entry with 192.168.0.161, the address Ansible connects to "
        "(has: eth0|192.168.0.160/20)"]
    down = {**db, "MGMT_PORT": {"eth0": {"admin_status": "down"}}}
    assert sonic.rf_sonic_access_problems(down, "192.168.0.160") == ["MGMT_PORT|eth0 admin_status is 'down', not up"]
    assert sonic.rf_sonic_access_problems({"MGMT_INTERFACE": db["MGMT_INTERFACE"]}, "192.168.0.160") == [
        "no MGMT_PORT|eth0 (MGMT_INTERFACE refers to it)"]


def test_platform_facts_merged() -> None:
    rendered = {"DEVICE_METADATA": {"localhost": {"hostname": "r0", "bgp_asn": "4200100000"}}, "PORT": {}}
    running = {"DEVICE_METADATA": {"localhost": {"hostname": "old", "mac": "0c:42:a1:00:00:01",
                                                 "platform": "x86_64-p", "hwsku": "SKU-A", "bgp_asn": "1"}}}
    out = sonic.rf_merge_platform_facts(rendered, running)
    # mac and platform from the switch; hwsku too since the rendered file has none; everything else rendered
    assert out["DEVICE_METADATA"]["localhost"] == {"hostname": "r0", "bgp_asn": "4200100000",
                                                   "mac": "0c:42:a1:00:00:01", "platform": "x86_64-p",
                                                   "hwsku": "SKU-A"}
    rendered["DEVICE_METADATA"]["localhost"]["hwsku"] = "SKU-B"
    assert sonic.rf_merge_platform_facts(rendered, running)["DEVICE_METADATA"]["localhost"]["hwsku"] == "SKU-B"
    assert "mac" not in rendered["DEVICE_METADATA"]["localhost"]  # the input is not modified


def test_unowned_tables_are_kept_owned_ones_replaced() -> None:
    """`config replace` deletes every table the target lacks: the switch's FEATURE, CRM, VERSIONS ... must be carried
    over, while a table railfabric owns and no longer renders (MLAG removed: MCLAG_DOMAIN) must go."""
    rendered = {"DEVICE_METADATA": {"localhost": {"hostname": "r0"}}, "PORT": {"Ethernet0": {"mtu": "9216"}}}
    running = {"DEVICE_METADATA": {"localhost": {"mac": "0c:42:a1:00:00:01"}},
               "FEATURE": {"bgp": {"state": "enabled"}, "iccpd": {"state": "enabled"}},
               "VERSIONS": {"DATABASE": {"VERSION": "version_4_0_3"}},
               "PORT": {"Ethernet0": {"mtu": "9100"}, "Ethernet8": {"mtu": "9100"}},
               "MCLAG_DOMAIN": {"1": {"peer_link": "PortChannel1000"}}}
    out = sonic.rf_merge_platform_facts(rendered, running)
    assert out["FEATURE"] == running["FEATURE"] and out["VERSIONS"] == running["VERSIONS"]
    assert out["PORT"] == {"Ethernet0": {"mtu": "9216"}}  # owned: exactly the rendered rows
    assert "MCLAG_DOMAIN" not in out
    assert sorted(out) == ["DEVICE_METADATA", "FEATURE", "PORT", "VERSIONS"]


def test_the_switchs_hash_is_kept_unless_railfabric_renders_one() -> None:
    """SWITCH_HASH is railfabric's only when routing.ecmp.hash renders it: without the key the switch keeps its own
    hash (an image default or a hand-set one), with it the rendered table replaces the switch's."""
    running = {"SWITCH_HASH": {"GLOBAL": {"ecmp_hash": ["DST_IP", "SRC_IP", "IP_PROTOCOL"]}}}
    assert sonic.rf_merge_platform_facts({}, running)["SWITCH_HASH"] == running["SWITCH_HASH"]
    rendered = {"SWITCH_HASH": {"GLOBAL": {"ecmp_hash": ["SRC_IP", "DST_IP", "L4_SRC_PORT"]}}}
    assert sonic.rf_merge_platform_facts(rendered, running)["SWITCH_HASH"] == rendered["SWITCH_HASH"]


def test_owned_tables_cover_every_rendered_table(tmp_path) -> None:
    """Every table the SONiC builder can write is in OWNED_TABLES (else a stale row of it would survive the
    replace), and the builder's list is exact: the example with every management service (RADIUS added), and an
    MLAG segment (MCLAG tables) with routing.ecmp.hash (SWITCH_HASH), rendered, write every table of it
    (tests/test_sonic_config_db.py checks each family's conditions)."""
    import yaml

    from railfabric.configs.render import render_device
    from railfabric.configs.sonic.config_db import ROWS, TABLES
    from railfabric.device import build_devices
    from railfabric.pipeline import run
    from tests.helpers import EXAMPLE, mlag_inventory, run_data

    assert sonic.OWNED_TABLES | sonic.WHEN_RENDERED_TABLES >= TABLES, sorted(TABLES - sonic.OWNED_TABLES)
    assert not sonic.OWNED_TABLES & sonic.WHEN_RENDERED_TABLES
    assert sonic.ROW_TABLES == ROWS and not ROWS & sonic.OWNED_TABLES  # row tables stay the switch's
    full = tmp_path / "full"
    shutil.copytree(EXAMPLE, full)
    system = yaml.safe_load((full / "system.yml").read_text(encoding="utf-8"))
    system["system"]["aaa"]["radius"] = {"key": {"vault": "radius_key"}, "servers": [{"address": "192.0.2.12"}]}
    (full / "system.yml").write_text(yaml.safe_dump(system, sort_keys=False), encoding="utf-8")
    seen: set[str] = set()
    hashed = mlag_inventory()
    hashed["routing"] = {"ecmp": {"hash": ["src_ip", "dst_ip", "l4_src_port"]}}
    for res in (run(full), run_data(tmp_path / "m", hashed)):
        assert res.inventory and res.topology and res.plan and not res.findings, res.findings
        for dev in build_devices(res.inventory, res.topology, res.plan).values():
            if dev.platform == "sonic":
                seen |= set(json.loads(render_device(dev)["config_db.json"]))
    assert seen == TABLES | ROWS, (sorted(TABLES | ROWS - seen), sorted(seen - TABLES - ROWS))


FRR = """\
router bgp 4200100000
 neighbor SPINES peer-group
 neighbor SPINES remote-as 4200001001
 neighbor 10.4.0.0 peer-group SPINES
 address-family ipv4 unicast
  neighbor SPINES activate
 exit-address-family
exit
"""


def test_drain_lines() -> None:
    assert f.rf_drain(FRR, "sonic", 3) == (
        "route-map RF-DRAIN permit 10\n set as-path prepend 4200100000 4200100000 4200100000\nexit\n"
        "router bgp 4200100000\n address-family ipv4 unicast\n  neighbor SPINES route-map RF-DRAIN out\n"
        " exit-address-family\nexit\n")
    assert f.rf_undrain(FRR, "sonic") == (
        "router bgp 4200100000\n address-family ipv4 unicast\n  no neighbor SPINES route-map RF-DRAIN out\n"
        " exit-address-family\nexit\nno route-map RF-DRAIN\n")
    assert f.rf_drain(EOS_OK, "eos", 2) == (
        "route-map RF-DRAIN permit 10\n   set as-path prepend 4200100000 4200100000\nexit\n"
        "router bgp 4200100000\n   neighbor SPINES route-map RF-DRAIN out\nexit\n")
    with pytest.raises(ValueError, match="outbound route-map"):
        f.rf_drain(FRR + " neighbor SPINES route-map X out\n", "sonic")
    with pytest.raises(ValueError, match="no `router bgp`"):
        f.rf_drain("hostname x\n", "sonic")


BGP_CSV = """\
# railfabric expected bgp sessions v1
device,interface,local_ip,local_asn,neighbor_ip,remote_asn,peer_device,peer_interface,peer_group,bfd
r0,Ethernet0,10.4.0.1,4200100000,10.4.0.0,4200001001,s1,Ethernet0,SPINES,yes
r0,Ethernet8,10.4.0.3,4200100000,10.4.0.2,4200001001,s2,Ethernet0,SPINES,yes
r1,Ethernet0,10.4.0.5,4200100001,10.4.0.4,4200001001,s1,Ethernet8,SPINES,yes
"""


def test_bgp_verification() -> None:
    rows = f.rf_expected_rows(BGP_CSV, "r0")
    assert [r["neighbor_ip"] for r in rows] == ["10.4.0.0", "10.4.0.2"]
    frr = {"ipv4Unicast": {"peers": {"10.4.0.0": {"remoteAs": 4200001001, "state": "Established"},
                                     "10.4.0.2": {"remoteAs": 4200001001, "state": "Active"}}}}
    assert f.rf_bgp_problems(json.dumps(frr), rows, "sonic") == ["Ethernet8 10.4.0.2 (s2): Active"]
    frr["ipv4Unicast"]["peers"]["10.4.0.2"] = {"remoteAs": 4200001002, "state": "Established"}
    assert f.rf_bgp_problems(frr, rows, "sonic") == [
        "Ethernet8 10.4.0.2 (s2): remote AS 4200001002, planned 4200001001"]
    eos = {"vrfs": {"default": {"peers": {"10.4.0.0": {"peerState": "Established", "asn": "4200001001"}}}}}
    assert f.rf_bgp_problems(eos, rows, "eos") == ["Ethernet8 10.4.0.2 (s2): absent"]


def test_established_snapshot() -> None:
    frr = {"ipv4Unicast": {"peers": {"10.4.0.2": {"state": "Established"}, "10.4.0.0": {"state": "Established"},
                                     "10.4.0.4": {"state": "Connect"}}}}
    assert f.rf_established(json.dumps(frr), "sonic") == ["10.4.0.0", "10.4.0.2"]
    eos = {"vrfs": {"default": {"peers": {"10.4.0.0": {"peerState": "Idle", "asn": "1"}}}}}
    assert f.rf_established(eos, "eos") == []


def test_lldp_verification() -> None:
    rows = [{"device": "r0", "interface": "Ethernet0", "neighbor": "s1", "neighbor_interface": "Ethernet256"}]
    lldpctl = {"lldp": {"interface": [{"Ethernet0": {"chassis": {"s1": {"id": {"type": "mac"}}},
                                                     "port": {"id": {"type": "ifname", "value": "Ethernet256"}}}}]}}
    assert f.rf_lldp_problems(json.dumps(lldpctl), rows, "sonic") == []
    one = {"lldp": {"interface": {"Ethernet0": {"chassis": {"s9": {}}, "port": {"id": {"value": "Ethernet0"}}}}}}
    assert f.rf_lldp_problems(one, rows, "sonic") == ["Ethernet0: planned s1 Ethernet256, seen s9 Ethernet0"]
    eos = {"lldpNeighbors": [{"port": "Ethernet0", "neighborDevice": "s1", "neighborPort": "Ethernet256"}]}
    assert f.rf_lldp_problems(eos, rows, "eos") == []
    assert f.rf_lldp_problems({"lldpNeighbors": []}, rows, "eos") == ["Ethernet0: planned s1 Ethernet256, seen nothing"]


PLUGIN_FILES = {"railfabric.py": Path(f.__file__),
                **{f"railfabric_{n}.py": Path(sonic.__file__).parent.parent / n / p.ansible_plugin
                   for n, p in PLATFORMS.items() if p.ansible_plugin}}


def _load(path: Path, name: str):
    """A plugin file loaded by itself, as Ansible loads it (not as part of the fabric package)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_platform_has_a_plugin() -> None:
    assert sorted(PLUGIN_FILES) == ["railfabric.py", "railfabric_eos.py", "railfabric_junos.py",
                                    "railfabric_nvue.py", "railfabric_nxos.py", "railfabric_sonic.py"]
    # the registry takes only modules that define PLATFORM: a plugin file is not a platform
    assert sorted(PLATFORMS) == ["eos", "junos", "nvue", "nxos", "sonic"]


@pytest.mark.parametrize("name", sorted(PLUGIN_FILES))
def test_plugin_stands_alone(name: str) -> None:
    """Copied verbatim into generated/ansible/filter_plugins/: standard library only, every rf_ filter exported."""
    import ast

    path = PLUGIN_FILES[name]
    tree = ast.parse(path.read_text())
    imported = {n.names[0].name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)} | \
        {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    # yaml (PyYAML, an ansible-core dependency) is imported lazily by the NVUE access check only
    assert imported <= {"__future__", "csv", "importlib", "io", "json", "pathlib", "re", "sys", "types", "typing",
                        *(["yaml"] if name == "railfabric_nvue.py" else [])}
    module = _load(path, f"standalone_{path.stem}")
    assert set(module.FilterModule().filters()) == {n for n in dir(module) if n.startswith("rf_")}


def test_no_two_plugins_export_the_same_filter() -> None:
    """Ansible loads every file of filter_plugins/ and silently keeps one of two filters with the same name."""
    owner: dict[str, str] = {}
    for name, path in sorted(PLUGIN_FILES.items()):
        for fn in _load(path, f"standalone_{path.stem}").FilterModule().filters():
            assert fn not in owner, f"{fn} exported by {owner.get(fn)} and {name}"
            owner[fn] = name
    # each platform's own filters carry its name; the shared ones none
    for fn, name in owner.items():
        platform = name.removeprefix("railfabric_").removesuffix(".py")
        assert fn.startswith(f"rf_{platform}_") or name == "railfabric.py" or fn == "rf_merge_platform_facts", fn


def test_plugin_found_next_to_the_shared_one(tmp_path) -> None:
    """In generated/ansible/filter_plugins/ the shared plugin finds railfabric_<platform>.py beside itself."""
    for name, path in PLUGIN_FILES.items():
        shutil.copy(path, tmp_path / name)
    shared = _load(tmp_path / "railfabric.py", "copied_railfabric")
    plugin = shared._plugin("eos")
    assert Path(plugin.__file__) == tmp_path / "railfabric_eos.py"
    assert shared._plugin("eos") is plugin  # loaded once
    assert shared.rf_drain(EOS_OK, "eos", 1) == eos.drain(EOS_OK, 1)
    (tmp_path / "railfabric_sonic.py").unlink()
    # no sonic plugin beside it (and no ../platforms/ beside a copied file): refused, even with the source tree's
    # plugin already imported by this test module
    shutil.copy(tmp_path / "railfabric.py", tmp_path / "alone.py")
    alone = _load(tmp_path / "alone.py", "copied_alone")
    with pytest.raises(ValueError, match="no filter plugin for platform 'sonic'"):
        alone.rf_undrain(FRR, "sonic")


def test_access_check_by_platform(tmp_path) -> None:
    """The pre-flight's one entry point reads the platform's resolved file from the private directory and runs that
    platform's check; a platform without a plugin or without the hook is refused, never pushed blind."""
    (tmp_path / "running-config.cfg").write_text(EOS_OK)
    assert f.rf_access_problems(str(tmp_path), "eos", "192.168.0.9", "admin", "ansible.netcommon.network_cli") == []
    # the same EOS text without the admin account: the EOS check speaks
    assert f.rf_access_problems(str(tmp_path), "eos", "192.168.0.9", "nobody", "ansible.netcommon.network_cli") \
        == eos.rf_eos_access_problems(EOS_OK, "nobody", "ansible.netcommon.network_cli") != []
    (tmp_path / "config_db.json").write_text(json.dumps({"MGMT_INTERFACE": {}}))
    assert f.rf_access_problems(str(tmp_path), "sonic", "192.168.0.9") == \
        sonic.rf_sonic_access_problems({"MGMT_INTERFACE": {}}, "192.168.0.9") != []
    with pytest.raises(f.FilterError, match="no filter plugin for platform 'vyos'"):
        f.rf_access_problems(str(tmp_path), "vyos", "192.168.0.9")
    with pytest.raises(f.FilterError, match=r"not a platform name: '\.\./x'"):
        f.rf_access_problems(str(tmp_path), "../x", "192.168.0.9")
    # NVUE and Junos have their own drain filters, no drain hook: rf_drain refuses rather than guess
    with pytest.raises(f.FilterError, match="no drain for platform 'nvue'"):
        f.rf_drain(FRR, "nvue")
    with pytest.raises(f.FilterError, match="no undrain for platform 'junos'"):
        f.rf_undrain(FRR, "junos")


def test_sonic_and_nvue_read_frr_and_lldpd_alike() -> None:
    """Both run FRR and lldpd: the two copies of the readers (a plugin cannot import its sibling) give the same."""
    from railfabric.configs.nvue import ansible_plugin as nvue

    frr = {"ipv4Unicast": {"peers": {"10.4.0.0": {"remoteAs": 4200001001, "state": "Established"},
                                     "10.4.0.2": {"state": "Active"}}}}
    assert sonic.bgp_peers(frr) == nvue.bgp_peers(frr) == {"10.4.0.0": ("Established", "4200001001"),
                                                          "10.4.0.2": ("Active", "")}
    lldpctl = {"lldp": {"interface": {"swp1": {"chassis": {"s1": {}}, "port": {"id": {"value": "swp7"}}}}}}
    assert sonic.lldp_seen(lldpctl) == nvue.lldp_seen(lldpctl) == {"swp1": ("s1", "swp7")}
    import inspect
    assert inspect.getsource(sonic.bgp_peers) == inspect.getsource(nvue.bgp_peers)
    assert inspect.getsource(sonic.lldp_seen) == inspect.getsource(nvue.lldp_seen)


# --------------------------------------------------------------------------- NX-OS

NXOS_OK = """\
feature bgp
feature nxapi
username netops password 5 %%vault.netops_hash%% role network-admin
username noc password 5 %%vault.noc_hash%% role network-operator
interface mgmt0
  vrf member management
  ip address 192.168.0.10/24
nxapi https port 443
nxapi use-vrf management
router bgp 4200100000
  router-id 10.0.0.40
  address-family ipv4 unicast
    maximum-paths 64
  template peer SPINES
    remote-as 4200001001
    bfd
    address-family ipv4 unicast
  template peer SUPER-SPINES
    remote-as 4200000000
    address-family ipv4 unicast
  neighbor 10.4.0.0
    inherit peer SPINES
"""


def test_nxos_access() -> None:
    cli = "ansible.netcommon.network_cli"
    assert nxos.rf_nxos_access_problems(NXOS_OK, "192.168.0.10", "netops", cli) == []
    assert nxos.rf_nxos_access_problems(NXOS_OK, "192.168.0.11", "netops", cli) == [
        "interface mgmt0 does not keep 192.168.0.11, the address Ansible connects to"]
    assert nxos.rf_nxos_access_problems(NXOS_OK, "192.168.0.10", "noc", cli) == [
        "no `username noc ... role network-admin`: the push account would lose its access"]
    moved = NXOS_OK.replace("  vrf member management\n", "")
    assert nxos.rf_nxos_access_problems(moved, "192.168.0.10", "netops", cli) == [
        "interface mgmt0 is not in `vrf member management`"]
    assert nxos.rf_nxos_access_problems(NXOS_OK + "no feature ssh\n", "192.168.0.10", "netops", cli) == [
        "`no feature ssh`: the push connects over SSH"]
    no_api = NXOS_OK.replace("nxapi use-vrf management\n", "")
    assert nxos.rf_nxos_access_problems(no_api, "192.168.0.10", "netops", cli) == []  # the CLI push needs no NX-API
    assert nxos.rf_nxos_access_problems(no_api, "192.168.0.10", "netops", "ansible.netcommon.httpapi") == [
        "NX-API is not enabled in the management VRF (`feature nxapi`, `nxapi use-vrf management`)"]


def test_nxos_drain_lines() -> None:
    # every template's IPv4 family gets the outbound prepend; the undrain removes it, then the route-map
    assert f.rf_drain(NXOS_OK, "nxos", 2) == (
        "route-map RF-DRAIN permit 10\n  set as-path prepend 4200100000 4200100000\nrouter bgp 4200100000\n"
        "  template peer SPINES\n    address-family ipv4 unicast\n      route-map RF-DRAIN out\n"
        "  template peer SUPER-SPINES\n    address-family ipv4 unicast\n      route-map RF-DRAIN out\n")
    assert f.rf_undrain(NXOS_OK, "nxos") == (
        "router bgp 4200100000\n"
        "  template peer SPINES\n    address-family ipv4 unicast\n      no route-map RF-DRAIN out\n"
        "  template peer SUPER-SPINES\n    address-family ipv4 unicast\n      no route-map RF-DRAIN out\n"
        "no route-map RF-DRAIN\n")


def test_nxos_drained_replace_target() -> None:
    """The configure-replace target: the rendered file plus the route-map before `router bgp` and the outbound
    route-map in each template's family, nothing else (the global address family is left alone)."""
    out = nxos.rf_nxos_drained(NXOS_OK, 3).splitlines()
    base = NXOS_OK.splitlines()
    added = [ln for ln in out if ln not in base or out.count(ln) > base.count(ln)]
    assert added == ["route-map RF-DRAIN permit 10", "  set as-path prepend 4200100000 4200100000 4200100000",
                     "      route-map RF-DRAIN out", "      route-map RF-DRAIN out"]
    i = out.index("router bgp 4200100000")
    assert out[i - 2:i] == added[:2]
    for template in ("  template peer SPINES", "  template peer SUPER-SPINES"):
        j = out.index(template)
        k = out.index("    address-family ipv4 unicast", j)
        assert out[k + 1] == "      route-map RF-DRAIN out"
    g = out.index("  address-family ipv4 unicast")
    assert out[g + 1] == "    maximum-paths 64"
    assert [ln for ln in out if ln not in added] == base


def test_nxos_bgp_and_lldp_json() -> None:
    """NX-OS JSON: TABLE_x/ROW_x, a single row as an object, several as a list; LLDP shows Eth1/33 for Ethernet1/33."""
    rows = [{"device": "r0", "interface": "Ethernet1/33", "neighbor_ip": "10.4.0.0", "remote_asn": "4200001001",
             "peer_device": "s1"},
            {"device": "r0", "interface": "Ethernet1/34", "neighbor_ip": "10.4.0.2", "remote_asn": "4200001001",
             "peer_device": "s2"}]
    show = {"TABLE_vrf": {"ROW_vrf": {"vrf-name-out": "default", "TABLE_af": {"ROW_af": {"af-id": 1, "TABLE_saf": {
        "ROW_saf": {"safi": 1, "TABLE_neighbor": {"ROW_neighbor": [
            {"neighborid": "10.4.0.0", "neighboras": "4200001001", "state": "Established"},
            {"neighborid": "10.4.0.2", "neighboras": "4200001001", "state": "Idle"}]}}}}}}}}
    assert f.rf_bgp_problems(json.dumps(show), rows, "nxos") == ["Ethernet1/34 10.4.0.2 (s2): Idle"]
    assert f.rf_established(show, "nxos") == ["10.4.0.0"]
    lldp = {"TABLE_nbor_detail": {"ROW_nbor_detail": {"l_port_id": "Eth1/33", "sys_name": "s1",
                                                      "port_id": "Ethernet1/7"}}}
    want = [{"interface": "Ethernet1/33", "neighbor": "s1", "neighbor_interface": "Ethernet1/7"}]
    assert f.rf_lldp_problems(lldp, want, "nxos") == []
    assert f.rf_lldp_problems(lldp, [{**want[0], "neighbor": "s2"}], "nxos") == [
        "Ethernet1/33: planned s2 Ethernet1/7, seen s1 Ethernet1/7"]


def test_nxos_access_check_dispatch(tmp_path) -> None:
    (tmp_path / "running-config.cfg").write_text(NXOS_OK)
    assert f.rf_access_problems(str(tmp_path), "nxos", "192.168.0.10", "netops",
                                "ansible.netcommon.network_cli") == []
    assert f.rf_access_problems(str(tmp_path), "nxos", "192.168.0.10", "", "ansible.netcommon.network_cli") == [
        "ansible_user is not set: the push account cannot be checked"]


def test_nxos_replace_target_keeps_what_railfabric_does_not_own() -> None:
    running = (
        "!Command: show running-config\nversion 10.4(3) Bios:version 05.47\nhostname old\nfeature ospf\n"
        "boot nxos bootflash:/nxos64-cs.10.4.3.F.bin\ncopp profile strict\n"
        "username admin password 5 $5$abc role network-admin\nusername old password 5 $5$def role network-admin\n"
        "banner motd #\nold text\n#\nline console\n  exec-timeout 0\ninterface loopback9\n  ip address 1.1.1.1/32\n"
        "router bgp 1\n  router-id 1.1.1.1\n")
    out = nxos.rf_nxos_replace_target(NXOS_OK, running)
    assert out == NXOS_OK + (
        "version 10.4(3) Bios:version 05.47\nboot nxos bootflash:/nxos64-cs.10.4.3.F.bin\ncopp profile strict\n"
        "username admin password 5 $5$abc role network-admin\nline console\n  exec-timeout 0\n")
    # a rendered admin account replaces the switch's
    mine = NXOS_OK + "username admin password 5 %%vault.admin_hash%% role network-admin\n"
    assert "$5$abc" not in nxos.rf_nxos_replace_target(mine, running)


def test_nxos_owned_prefixes_cover_every_rendered_line(tmp_path) -> None:
    """Every top-level line the NX-OS templates render is owned (else a replace would carry the switch's old copy
    next to the new one)."""
    import yaml

    from railfabric.emit.build import build_files
    from tests.helpers import EXAMPLE, base_inventory, run_data, with_system

    data = with_system(base_inventory())
    data["fabric"]["platform"] = "nxos"
    data["pods"][0]["spines"]["port_channel_members"] = 2
    data["pods"][0]["spines"]["links_per_rail_switch"] = 2
    data["system"] = yaml.safe_load((EXAMPLE / "system.yml").read_text())["system"]
    data["system"]["syslog"][0]["protocol"] = "udp"
    data["system"]["aaa"]["radius"] = {"key": {"vault": "radius_key"}, "servers": [{"address": "192.0.2.12"}]}
    data["system"]["management"]["ssh"] = False
    res = run_data(tmp_path, data)
    assert res.findings == [], [str(x) for x in res.findings]
    files = build_files(res)
    tops = {b[0] for name, text in files.items() if name.endswith("running-config.cfg")
            for b in nxos._nxos_top_blocks(text.decode())}
    assert {t for t in tops if not t.startswith(nxos.NXOS_OWNED)} == set()
    assert any(t.startswith("radius-server host ") for t in tops) and "no feature ssh" in tops


def test_the_iccpd_row_is_merged_into_the_switchs_features() -> None:
    """An MCLAG switch's rendered FEATURE holds one row, iccpd enabled. On an image built with iccpd, init_cfg lists
    it disabled (with its other fields): the push keeps every other feature and every other field of the row, and
    turns the state to enabled."""
    rendered = {"DEVICE_METADATA": {"localhost": {"hostname": "r0a"}}, "FEATURE": {"iccpd": {"state": "enabled"}},
                "MCLAG_DOMAIN": {"1": {"peer_link": "PortChannel1000"}}}
    running = {"FEATURE": {"bgp": {"state": "enabled", "auto_restart": "enabled"},
                           "iccpd": {"state": "disabled", "delayed": "False", "auto_restart": "enabled",
                                     "high_mem_alert": "disabled"}}}
    out = sonic.rf_merge_platform_facts(rendered, running)
    assert out["FEATURE"] == {"bgp": {"state": "enabled", "auto_restart": "enabled"},
                              "iccpd": {"state": "enabled", "delayed": "False", "auto_restart": "enabled",
                                        "high_mem_alert": "disabled"}}
    assert running["FEATURE"]["iccpd"]["state"] == "disabled"  # the input is not modified


def test_an_image_without_iccpd_is_refused_before_any_change() -> None:
    """A community image built with INCLUDE_ICCPD=n has no FEATURE|iccpd row: the merge (which runs before the
    drain and the push) fails with the reason, so the pair never comes up as two switches with one gateway."""
    rendered = {"FEATURE": {"iccpd": {"state": "enabled"}}}
    with pytest.raises(sonic.FilterError) as err:
        sonic.rf_merge_platform_facts(rendered, {"FEATURE": {"bgp": {"state": "enabled"}}})
    assert str(err.value).startswith("this switch's image has no FEATURE|iccpd (its CONFIG_DB lists bgp): the "
                                     "rendered configuration needs it. For FEATURE|iccpd: MCLAG runs in iccpd")
    with pytest.raises(sonic.FilterError, match=r"its CONFIG_DB lists none"):
        sonic.rf_merge_platform_facts(rendered, {})
    # a switch that is not an MCLAG member renders no FEATURE row: its features are carried over untouched
    assert sonic.rf_merge_platform_facts({}, {"FEATURE": {"bgp": {"state": "enabled"}}}) == {
        "FEATURE": {"bgp": {"state": "enabled"}}, "DEVICE_METADATA": {"localhost": {}}}
