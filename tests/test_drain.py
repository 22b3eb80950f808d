"""routing.drain: which drain the fabric gets (railfabric/plan/drain.py), DRAIN001, the receiver's inbound policy in
the device model and in each platform's files, and each platform's drain/undrain forms for the rollout.

Derivations (by hand, from tests/helpers.py's small inventory: one pod, 2 spines p1-spine1/2, one single-rail
segment of 2 rails p1-s1-rail0/1, no super-spines; SONiC unless moved):
- every platform railfabric renders sends GRACEFUL_SHUTDOWN (sonic: FRR `bgp graceful-shutdown`, eos: maintenance
  quiesce, nvue: router bgp graceful-shutdown, nxos: graceful-shutdown activate, junos: graceful-shutdown sender), so
  `auto` resolves to graceful-shutdown on every fabric of them; only a platform with graceful_shutdown False (made
  here with dataclasses.replace) turns auto into as-path-prepend for the whole fabric, and makes an explicit
  graceful-shutdown DRAIN001 at routing.drain.
- a rail switch's only eBGP group is SPINES (to the pod's spines), a spine's is RAIL-SWITCHES (no super-spines in a
  2-tier fabric): the inbound policy RM-GSHUT-IN goes on exactly that group. An MLAG pair's MLAG-PEER group is iBGP:
  LOCAL_PREF travels over it, so it gets no policy.
- Junos and NX-OS receive 65535:0 by themselves (Junos: receiver on by default; NX-OS: graceful-shutdown aware by
  default): no policy is rendered there.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from railfabric.configs.eos import ansible_plugin as eos_plugin
from railfabric.configs.junos import ansible_plugin as junos_plugin
from railfabric.configs.nvue import ansible_plugin as nvue_plugin
from railfabric.configs.nxos import ansible_plugin as nxos_plugin
from railfabric.configs.render import render_device
from railfabric.configs.sonic import ansible_plugin as sonic_plugin
from railfabric.core import safe_yaml
from railfabric.device import DeviceConfig, build_devices
from railfabric.inventory.intent_routing import Drain
from railfabric.outputs.ansible import host_vars_data
from railfabric.outputs.ansible_filters import rf_drain, rf_undrain
from railfabric.plan.allocate import allocate
from railfabric.plan.drain import drain_plan
from railfabric.platforms import PLATFORMS
from railfabric.topology import expand
from tests.helpers import base_inventory, mlag_inventory, run_data, with_system


def _devices(tmp_path: Path, data: dict[str, Any]) -> dict[str, DeviceConfig]:
    r = run_data(tmp_path, data)
    assert r.inventory is not None and not [f for f in r.findings if f.severity.name == "ERROR"], \
        [str(f) for f in r.findings]
    topo = expand(r.inventory)
    return build_devices(r.inventory, topo, allocate(r.inventory, topo))


@pytest.fixture
def no_gshut_on_eos(monkeypatch: pytest.MonkeyPatch) -> None:
    """EOS as if it could not send GRACEFUL_SHUTDOWN (no platform railfabric renders lacks it)."""
    monkeypatch.setitem(PLATFORMS, "eos", dataclasses.replace(PLATFORMS["eos"], graceful_shutdown=False))


# --------------------------------------------------------------------------- the fabric's drain


def test_auto_is_graceful_shutdown_when_every_platform_sends_it() -> None:
    plan = drain_plan(Drain.AUTO, ["sonic", "eos", "sonic"])
    assert plan.method == "graceful-shutdown"
    assert plan.why == "auto: every platform of the fabric (eos, sonic) sends GRACEFUL_SHUTDOWN (RFC 8326)"
    assert drain_plan(Drain.AS_PATH_PREPEND, ["sonic"]).method == "as-path-prepend"


@pytest.mark.usefixtures("no_gshut_on_eos")
def test_auto_falls_back_to_prepend_for_the_whole_fabric() -> None:
    plan = drain_plan(Drain.AUTO, ["sonic", "eos"])
    assert plan.method == "as-path-prepend"
    assert plan.why == ("auto: eos cannot send GRACEFUL_SHUTDOWN, so the whole fabric drains by AS-path "
                        "prepending")
    assert drain_plan(Drain.AUTO, ["sonic"]).method == "graceful-shutdown"


@pytest.mark.usefixtures("no_gshut_on_eos")
def test_graceful_shutdown_on_a_platform_lacking_it_is_drain001(tmp_path: Path) -> None:
    data = with_system(base_inventory())
    data["pods"][0]["segments"][0]["platform"] = "eos"
    data["routing"] = {"drain": "graceful-shutdown"}
    found = [f for f in run_data(tmp_path, data).findings if f.code == "DRAIN001"]
    assert len(found) == 1
    assert "eos (used at pods.0.segments.0.platform) cannot send" in found[0].message
    assert found[0].location is not None and found[0].location.line > 0  # points at routing.drain
    data["routing"] = {"drain": "auto"}
    assert [f for f in run_data(tmp_path / "auto", data).findings if f.code == "DRAIN001"] == []


def test_graceful_shutdown_everywhere_is_no_finding(tmp_path: Path) -> None:
    data = base_inventory()
    data["routing"] = {"drain": "graceful-shutdown"}
    assert [f.code for f in run_data(tmp_path, data).findings if f.code.startswith("DRAIN")] == []


# --------------------------------------------------------------------------- the receiver in the device model


def test_receipt_on_every_ebgp_group(tmp_path: Path) -> None:
    devs = _devices(tmp_path, base_inventory())
    want = {"p1-spine1": ("RAIL-SWITCHES",), "p1-spine2": ("RAIL-SWITCHES",), "p1-s1-rail0": ("SPINES",),
            "p1-s1-rail1": ("SPINES",)}
    assert {n: d.bgp.gshut.groups for n, d in devs.items() if d.bgp.gshut} == want
    g = devs["p1-s1-rail0"].bgp.gshut
    assert g is not None
    assert (g.community_list, g.community, g.community_name, g.route_map) == \
        ("CL-GSHUT", "65535:0", "graceful-shutdown", "RM-GSHUT-IN")
    assert (g.match_seq, g.local_preference, g.pass_seq) == (10, 0, 20)  # RFC 8326 §4.1: LOCAL_PREF 0
    assert {d.drain.method for d in devs.values()} == {"graceful-shutdown"}
    assert host_vars_data(devs["p1-s1-rail0"])["rollout_drain"] == "graceful-shutdown"


def test_no_receipt_on_the_mlag_peer_group(tmp_path: Path) -> None:
    devs = _devices(tmp_path, mlag_inventory())
    a = devs["p1-s1-rail0a"].bgp
    assert [g.name for g in a.peer_groups] == ["MLAG-PEER", "SPINES"]
    assert a.gshut is not None and a.gshut.groups == ("SPINES",)


def test_prepend_fabric_has_no_receipt(tmp_path: Path) -> None:
    data = base_inventory()
    data["routing"] = {"drain": "as-path-prepend"}
    devs = _devices(tmp_path, data)
    assert [d.bgp.gshut for d in devs.values()] == [None] * 4
    assert {d.drain.method for d in devs.values()} == {"as-path-prepend"}
    frr = render_device(devs["p1-s1-rail0"])["frr.conf"]
    assert "GSHUT" not in frr  # a prepend fabric renders exactly what it rendered before


@pytest.mark.parametrize("platform", ["junos", "nxos"])
def test_builtin_receivers_get_no_policy(tmp_path: Path, platform: str) -> None:
    data = with_system(base_inventory())
    data["fabric"]["platform"] = platform
    devs = _devices(tmp_path, data)
    assert {d.drain.method for d in devs.values()} == {"graceful-shutdown"}
    assert [d.bgp.gshut for d in devs.values()] == [None] * 4
    assert PLATFORMS[platform].gshut_receiver_builtin


# --------------------------------------------------------------------------- the rendered receivers


def test_frr_receiver_lines(tmp_path: Path) -> None:
    frr = render_device(_devices(tmp_path, base_inventory())["p1-s1-rail0"])["frr.conf"].splitlines()
    at = frr.index("bgp community-list standard CL-GSHUT seq 5 permit graceful-shutdown")
    assert frr[at + 1:at + 10] == ["!", "route-map RM-GSHUT-IN permit 10", " match community CL-GSHUT",
                                   " set local-preference 0", "exit", "!", "route-map RM-GSHUT-IN permit 20", "exit",
                                   "!"]
    assert [line for line in frr if "route-map RM-GSHUT-IN in" in line] == \
        ["  neighbor SPINES route-map RM-GSHUT-IN in"]


def test_eos_receiver_lines(tmp_path: Path) -> None:
    data = with_system(base_inventory())
    data["pods"][0]["segments"][0]["platform"] = "eos"
    cfg = render_device(_devices(tmp_path, data)["p1-s1-rail0"])["running-config.cfg"].splitlines()
    at = cfg.index("ip community-list CL-GSHUT permit 65535:0")
    assert cfg[at + 1:at + 7] == ["!", "route-map RM-GSHUT-IN permit 10", "   match community CL-GSHUT",
                                  "   set local-preference 0", "!", "route-map RM-GSHUT-IN permit 20"]
    assert [line for line in cfg if "RM-GSHUT-IN in" in line] == ["   neighbor SPINES route-map RM-GSHUT-IN in"]


@pytest.mark.parametrize(("release", "enable"), [("5.14", {"enable": "on"}), ("5.15", {"state": "enabled"})])
def test_nvue_receiver_tree(tmp_path: Path, release: str, enable: dict[str, str]) -> None:
    data = with_system(base_inventory())
    data["fabric"]["platform"] = "nvue"
    dev = dataclasses.replace(_devices(tmp_path, data)["p1-s1-rail0"], release=release)
    tree = safe_yaml.load(render_device(dev)["startup.yaml"])[0]["set"]
    policy = tree["router"]["policy"]
    assert policy["community-list"] == {"CL-GSHUT": {"rule": {"10": {"action": "permit",
                                                                      "community": {"graceful-shutdown": {}}}}}}
    assert policy["route-map"]["RM-GSHUT-IN"] == {"rule": {
        "10": {"action": {"permit": {}}, "match": {"community-list": "CL-GSHUT"}, "set": {"local-preference": 0}},
        "20": {"action": {"permit": {}}}}}
    group = tree["vrf"]["default"]["router"]["bgp"]["peer-group"]["SPINES"]
    assert group["address-family"] == {"ipv4-unicast": {**enable, "policy": {"inbound": {"route-map": "RM-GSHUT-IN"}}}}


# --------------------------------------------------------------------------- the rollout's drain forms

FRR = "router bgp 4200100000\n neighbor SPINES peer-group\n"


def test_sonic_drain_forms() -> None:
    assert sonic_plugin.drain(FRR, 3, "graceful-shutdown") == "router bgp 4200100000\n bgp graceful-shutdown\nexit\n"
    assert sonic_plugin.undrain(FRR, "graceful-shutdown") == \
        "router bgp 4200100000\n no bgp graceful-shutdown\nexit\n"
    # through the shared plugin, as the playbook calls it
    assert rf_drain(FRR, "sonic", 3, "graceful-shutdown") == sonic_plugin.drain(FRR, 3, "graceful-shutdown")
    assert rf_undrain(FRR, "sonic", "graceful-shutdown") == sonic_plugin.undrain(FRR, "graceful-shutdown")
    # the prepend drain is unchanged: 3 × the own ASN
    assert " set as-path prepend 4200100000 4200100000 4200100000" in rf_drain(FRR, "sonic", 3)
    with pytest.raises(ValueError, match="unknown drain method 'prepend'"):
        rf_drain(FRR, "sonic", 3, "prepend")
    with pytest.raises(ValueError, match="no `router bgp`"):
        sonic_plugin.drain("hostname x\n", 3, "graceful-shutdown")


def test_sonic_drain_keeps_the_receiver_policy() -> None:
    """The rendered file has an inbound route-map (the receiver): the prepend drain still applies (it refuses only
    an outbound one)."""
    text = FRR + " address-family ipv4 unicast\n  neighbor SPINES route-map RM-GSHUT-IN in\n"
    assert "  neighbor SPINES route-map RF-DRAIN out" in sonic_plugin.drain(text, 2)


def test_eos_drain_forms() -> None:
    text = "router bgp 4200100016\n   neighbor SPINES peer group\n"
    assert eos_plugin.drain(text, 3, "graceful-shutdown").splitlines() == \
        ["maintenance", "   unit System", "      quiesce", "   exit", "exit"]
    assert eos_plugin.undrain(text, "graceful-shutdown").splitlines() == \
        ["maintenance", "   unit System", "      no quiesce", "   exit", "exit"]
    with pytest.raises(ValueError, match="unknown drain method"):
        eos_plugin.undrain(text, "gshut")


def test_nxos_drain_forms() -> None:
    text = "hostname n1\nrouter bgp 4200100003\n  router-id 10.0.0.147\n  template peer SPINES\n"
    assert nxos_plugin.drain(text, 3, "graceful-shutdown") == "router bgp 4200100003\n  graceful-shutdown activate\n"
    assert nxos_plugin.undrain(text, "graceful-shutdown") == \
        "router bgp 4200100003\n  no graceful-shutdown activate\n"
    assert nxos_plugin.rf_nxos_drained(text, 3, "graceful-shutdown").splitlines() == \
        ["hostname n1", "router bgp 4200100003", "  graceful-shutdown activate", "  router-id 10.0.0.147",
         "  template peer SPINES"]


JUNOS = """routing-options {
    autonomous-system 4200100003;
}
protocols {
    bgp {
        group SPINES {
            type external;
        }
    }
}
"""


def test_junos_drain_forms() -> None:
    assert junos_plugin.rf_junos_drain_lines(JUNOS, 3, "graceful-shutdown") == \
        ["set protocols bgp graceful-shutdown sender"]
    assert junos_plugin.rf_junos_undrain_lines(JUNOS, "graceful-shutdown") == \
        ["delete protocols bgp graceful-shutdown"]
    drained = junos_plugin.rf_junos_drained(JUNOS, 3, "graceful-shutdown").splitlines()
    assert drained[4:9] == ["    bgp {", "        graceful-shutdown {", "            sender;", "        }",
                            "        group SPINES {"]


def _nvue_doc(enable: dict[str, str]) -> list[dict[str, Any]]:
    return [{"set": {"router": {"bgp": {**enable, "autonomous-system": 4200100003}},
                     "vrf": {"default": {"router": {"bgp": {"peer-group": {"SPINES": {"address-family": {
                         "ipv4-unicast": {"policy": {"inbound": {"route-map": "RM-GSHUT-IN"}}}}}}}}}}}}]


def test_nvue_drain_forms() -> None:
    old, new = _nvue_doc({"enable": "on"}), _nvue_doc({"state": "enabled"})
    assert nvue_plugin.rf_nvue_drain(old, 3, "graceful-shutdown") == ["nv set router bgp graceful-shutdown on"]
    assert nvue_plugin.rf_nvue_drain(new, 3, "graceful-shutdown") == ["nv set router bgp graceful-shutdown enabled"]
    assert nvue_plugin.rf_nvue_undrain(new, "graceful-shutdown") == ["nv unset router bgp graceful-shutdown"]
    # the inbound receiver policy does not stop the prepend drain (only an outbound policy would be replaced)
    assert nvue_plugin.rf_nvue_drain(old, 2)[-1] == \
        "nv set vrf default router bgp peer-group SPINES address-family ipv4-unicast policy outbound route-map RF-DRAIN"


def test_nvue_drain_values_are_the_schema_of_their_release() -> None:
    """on|off up to 5.14, enabled|disabled from 5.15: NVIDIA's schema of each release (nvueschema)."""
    from railfabric.verify.nvue_schema import root_model

    for release, doc in (("5.14", _nvue_doc({"enable": "on"})), ("5.15", _nvue_doc({"state": "enabled"}))):
        value = nvue_plugin.rf_nvue_drain(doc, 3, "graceful-shutdown")[0].rsplit(" ", 1)[1]
        root_model(release).model_validate({"router": {"bgp": {"graceful-shutdown": value}}})
        with pytest.raises(ValidationError):
            other = "enabled" if value == "on" else "on"
            root_model(release).model_validate({"router": {"bgp": {"graceful-shutdown": other}}})
    assert json.dumps(_nvue_doc({"enable": "on"}))  # the doc is plain data, as Ansible passes it
