"""NVUE startup.yaml files against NVIDIA's NVUE schema of their Cumulus Linux release
(railfabric/verify/nvue_schema.py, the nvueschema package's models with unknown keys refused), the release as an
inventory fact (fabric.releases, switch_models.<m>.releases, devices.<d>.release; PLAT040) and the forms each release
selects (railfabric/platforms/nvue_release.py).

Every supported release (5.9-5.18) is checked on the example fabric moved to NVUE, on the MLAG fabric, on adaptive
routing, on a full management plane (TACACS+, RADIUS, SNMPv3, syslog, NTP, DNS, banner) and, through
tests/test_option_walk.py, on every option-walk fabric. The forms per release are derived from NVIDIA's documents
and schema, cited in nvue_release.py; 5.15's interface, BGP, BFD and RoCE forms are tested on the example in
tests/test_render_nvue.py, its management-plane and MLAG forms here.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest

from railfabric.cli import main
from railfabric.configs.nvue.startup import document, startup_yaml
from railfabric.core import safe_yaml
from railfabric.core.finding import Severity
from railfabric.device import DeviceConfig
from railfabric.platforms import PLATFORMS
from railfabric.platforms.nvue_release import RELEASES, forms
from railfabric.verify.nvue_schema import SchemaUnavailable, root_model, violations
from tests.helpers import EXAMPLE, base_inventory, dump, mlag_inventory, run_data, with_system, write_files
from tests.system_inventory import SYSTEM_YML, devices_of, run_system, system_inventory

NVUE = PLATFORMS["nvue"]


def example_on_nvue(directory: Path) -> Path:
    """The shipped example with every switch on NVUE: the fabric default becomes nvue, the EOS segment follows it,
    and pod 2's bundles get min-links 1 (NVUE bonds have no min-links: PLAT001 otherwise)."""
    shutil.copytree(EXAMPLE, directory)
    fabric = directory / "fabric.yml"
    text = fabric.read_text(encoding="utf-8")
    assert text.count("  platform: sonic ") == 1
    fabric.write_text(text.replace("  platform: sonic ", "  platform: nvue  "), encoding="utf-8")
    pods = directory / "pods.yml"
    text = pods.read_text(encoding="utf-8")
    eos = ("        platform: eos                # Arista rail switches under SONiC spines: those links run at EOS's "
           "9214\n")
    bundle = "      port_channel_members: 2  "
    assert text.count(eos) == 1 and text.count(bundle) == 1
    text = text.replace(eos, "").replace(bundle, "      port_channel_min_links: 1\n" + bundle)
    pods.write_text(text, encoding="utf-8")
    return directory


def _devices(result: Any) -> dict[str, DeviceConfig]:
    assert [(f.code, f.message) for f in result.findings if f.severity is Severity.ERROR] == []
    return devices_of(result)


def _problems(devices: dict[str, DeviceConfig], release: str) -> list[str]:
    out = []
    for name, dev in sorted(devices.items()):
        doc = safe_yaml.load(startup_yaml(dataclasses.replace(dev, release=release)))
        out += [f"{name}: {v}" for v in violations(doc, release)]
    return out


@pytest.fixture(scope="module")
def example_devices(tmp_path_factory: pytest.TempPathFactory) -> dict[str, DeviceConfig]:
    from railfabric.pipeline import run

    return _devices(run(example_on_nvue(tmp_path_factory.mktemp("nvue") / "inv")))


@pytest.mark.parametrize("release", RELEASES)
def test_the_example_on_nvue_passes_nvidias_schema(example_devices: dict[str, DeviceConfig], release: str) -> None:
    # 34 switches: 4 super-spines, 4 + 4 spines, rail switches 8 + 4 (pod 1), 2 (pod 2), 8 (pod 3) = 34
    assert len(example_devices) == 34
    assert all(d.platform == "nvue" for d in example_devices.values())
    assert _problems(example_devices, release) == []


@pytest.mark.parametrize("release", RELEASES)
def test_a_full_management_plane_passes_nvidias_schema(tmp_path: Path, release: str) -> None:
    devices = _devices(run_system(tmp_path, "nvue"))
    assert _problems(devices, release) == []


@pytest.mark.parametrize("release", RELEASES)
def test_the_mlag_fabric_passes_nvidias_schema(tmp_path: Path, release: str) -> None:
    data = mlag_inventory("eos")  # the EOS variant carries the system: block a full-replace push needs
    data["pods"][0]["segments"][0]["platform"] = "nvue"
    data["pods"][0]["spines"]["platform"] = "nvue"
    devices = _devices(run_data(tmp_path, data))
    assert {d.mlag is not None for d in devices.values()} == {True, False}  # rail pairs and spines
    assert _problems(devices, release) == []


@pytest.fixture(scope="module")
def spraying_devices(tmp_path_factory: pytest.TempPathFactory) -> dict[str, DeviceConfig]:
    data = _nvue_data()
    data["routing"] = {"ecmp": {"mode": "packet"}}
    data["host_models"]["h2"]["accepts_out_of_order"] = True  # HOST007 otherwise
    return _devices(run_data(tmp_path_factory.mktemp("ar"), data))


@pytest.mark.parametrize("release", RELEASES)
def test_adaptive_routing_passes_nvidias_schema(spraying_devices: dict[str, DeviceConfig], release: str) -> None:
    tree = _tree(spraying_devices["p1-s1-rail0"], release)
    assert tree["router"]["adaptive-routing"] == forms(release).flag(True)  # {enable: on} / {state: enabled}
    assert _problems(spraying_devices, release) == []


# --------------------------------------------------------------------------- the validator is strict


def test_unknown_keys_are_refused_at_any_depth() -> None:
    """The package's models ignore unknown keys; the validator forbids them at every level (the deepest here is
    interface → swp1 → link → breakout → 2x, five levels down)."""
    good = {"interface": {"swp1": {"link": {"mtu": 9216, "breakout": {"2x": {}}}}}}
    assert violations([{"set": good}], "5.14") == []
    for path, bad in (
        ("bogus", {"bogus": 1}),
        ("interface.swp1.bogus", {"interface": {"swp1": {"bogus": 1}}}),
        ("interface.swp1.link.breakout.2x.bogus", {"interface": {"swp1": {"link": {"breakout": {"2x": {
            "bogus": 1}}}}}}),
    ):
        assert [v.path for v in violations([{"set": bad}], "5.14")] == [path]


def test_wrong_values_and_shapes_are_refused() -> None:
    assert [v.path for v in violations([{"set": {"interface": {"swp1": {"link": {"mtu": 9217}}}}}], "5.12")] == [
        "interface.swp1.link.mtu"]  # link mtu is 552-9216
    assert violations({"set": {}}, "5.12")[0].message.startswith("not an NVUE startup.yaml")
    assert violations([{"set": {}, "header": {}}], "5.12")[0].path == ""


def test_every_supported_release_has_a_schema() -> None:
    for release in RELEASES:
        assert root_model(release).__name__ == "NvueConfig"
    assert RELEASES == ("5.9", "5.10", "5.11", "5.12", "5.13", "5.14", "5.15", "5.16", "5.17", "5.18")
    assert NVUE.releases == RELEASES and NVUE.default_release == "5.14"
    with pytest.raises(SchemaUnavailable):  # nothing to check 5.19 against: it is refused (PLAT040)
        root_model("5.19")


# --------------------------------------------------------------------------- the forms each release selects


@pytest.fixture(scope="module")
def rail0(tmp_path_factory: pytest.TempPathFactory) -> DeviceConfig:
    return devices_of(run_system(tmp_path_factory.mktemp("sys"), "nvue"))["p1-s1-rail0"]


def _tree(dev: DeviceConfig, release: str) -> dict[str, Any]:
    return document(dataclasses.replace(dev, release=release))[0]["set"]


def test_forms_that_do_not_change(rail0: DeviceConfig) -> None:
    """The SSH server VRF is a set in every release (`vrf: {mgmt: {}}`)."""
    for release in RELEASES:
        assert _tree(rail0, release)["system"]["ssh-server"] == {"vrf": {"mgmt": {}}}


def test_the_authentication_order_is_a_list_from_5_15(rail0: DeviceConfig) -> None:
    """system.yml's login order is tacacs, radius, local: up to 5.14 a set under priorities 10, 20, 30
    (`authentication-order: {10: {tacacs: {}}, ...}`); 5.15's schema has `authentication: {order: [...]}`, the
    methods in order."""
    for release in RELEASES[:6]:
        assert _tree(rail0, release)["system"]["aaa"]["authentication-order"] == {
            "10": {"tacacs": {}}, "20": {"radius": {}}, "30": {"local": {}}}
    for release in RELEASES[6:]:
        aaa = _tree(rail0, release)["system"]["aaa"]
        assert aaa["authentication"] == {"order": ["tacacs", "radius", "local"]}
        assert "authentication-order" not in aaa


def test_dns_and_ntp_move_to_system_in_5_15(rail0: DeviceConfig) -> None:
    """system.yml: DNS 192.0.2.30, domain mini.example.net; p1-s1-rail0's NTP is devices.yml's 192.0.2.22. Up to
    5.14 per VRF under `service` (iburst on); from 5.15 under `system`, the VRF a leaf of each DNS server and one
    `ntp vrf` (iburst enabled); `service` is left empty."""
    old, new = _tree(rail0, "5.14"), _tree(rail0, "5.15")
    assert old["service"]["dns"] == {"mgmt": {"server": {"192.0.2.30": {}}, "search": {"mini.example.net": {}}}}
    assert old["service"]["ntp"] == {"mgmt": {"server": {"192.0.2.22": {"iburst": "on"}}}}
    assert "dns" not in old["system"] and "ntp" not in old["system"]
    assert new["system"]["dns"] == {"server": {"192.0.2.30": {"vrf": "mgmt"}}, "search": {"mini.example.net": {}}}
    assert new["system"]["ntp"] == {"server": {"192.0.2.22": {"iburst": "enabled"}}, "vrf": "mgmt"}
    assert new["service"] == {}


def test_mlag_switches_in_5_15(tmp_path: Path) -> None:
    """tests/test_mlag_nvue.py's derivation: p1-s1-rail0a's host bond bond1001 (MLAG id 1001, access VLAN 100), rail
    SVI vlan100 with its own 172.16.0.254/24 beside VRR 172.16.0.1/24 and MAC 02:1c:73:00:00:01, peer VLAN
    peerlink.4094 10.32.20.1/31. 5.15: `mlag`, `bond mlag`, `router vrr` and `ipv4 vrr` switched by `state
    enabled`, the VRR interface state moved to `vrr-state`, the addresses under `ipv4`."""
    data = mlag_inventory("eos")
    data["pods"][0]["segments"][0]["platform"] = "nvue"
    dev = _devices(run_data(tmp_path, data))["p1-s1-rail0a"]
    old, new = _tree(dev, "5.14"), _tree(dev, "5.15")
    assert (old["mlag"]["enable"], new["mlag"]["state"]) == ("on", "enabled") and "enable" not in new["mlag"]
    assert old["interface"]["bond1001"]["bond"]["mlag"] == {"enable": "on", "id": 1001}
    assert new["interface"]["bond1001"]["bond"]["mlag"] == {"state": "enabled", "id": 1001}
    assert (old["router"]["vrr"], new["router"]["vrr"]) == ({"enable": "on"}, {"state": "enabled"})
    vrr = {"address": {"172.16.0.1/24": {}}, "mac-address": "02:1c:73:00:00:01"}
    assert old["interface"]["vlan100"]["ip"] == {"address": {"172.16.0.254/24": {}}, "vrr": {
        **vrr, "enable": "on", "state": {"up": {}}}}
    assert new["interface"]["vlan100"]["ipv4"] == {"address": {"172.16.0.254/24": {}}, "vrr": {
        **vrr, "state": "enabled", "vrr-state": {"up": {}}}}
    assert new["interface"]["peerlink.4094"]["ipv4"] == {"address": {"10.32.20.1/31": {}}}


def test_snmp_moves_to_system_in_5_11(rail0: DeviceConfig) -> None:
    """The agent listens on the switch's management address: p1-s1-rail0 has address slot 40 (after the 8
    super-spine and 4 pods × 8 spine slots of the small fabric's limits), 192.168.0.0/16 + first_offset 16 + 40 =
    192.168.0.56."""
    user = {"monitor": {"auth-sha": {"%%vault.snmp_auth%%": {"encrypt-aes": {"%%vault.snmp_priv%%": {}}}}}}
    old, new = _tree(rail0, "5.10"), _tree(rail0, "5.11")
    assert "snmp-server" not in old["system"] and "snmp-server" not in new["service"]
    assert old["service"]["snmp-server"] == {"enable": "on", "listening-address": {"192.168.0.56": {"vrf": "mgmt"}},
                                             "username": user, "system-location": "Row 7",
                                             "system-contact": "noc@example.net"}
    assert new["system"]["snmp-server"] == {**{k: v for k, v in old["service"]["snmp-server"].items()
                                               if k != "enable"}, "state": "enabled"}


def test_syslog_moves_to_system_in_5_13(rail0: DeviceConfig) -> None:
    old, new = _tree(rail0, "5.12"), _tree(rail0, "5.13")
    assert old["service"]["syslog"] == {"mgmt": {"server": {"192.0.2.40": {"port": 601, "protocol": "tcp"},
                                                            "192.0.2.41": {"port": 514, "protocol": "udp"}}}}
    assert "syslog" not in new["service"]
    assert new["system"]["syslog"] == {"server": {"192.0.2.40": {"port": 601, "protocol": "tcp", "vrf": "mgmt"},
                                                  "192.0.2.41": {"port": 514, "protocol": "udp", "vrf": "mgmt"}}}


def test_tacacs_servers_are_keyed_by_host_from_5_12(rail0: DeviceConfig) -> None:
    """system.yml lists 192.0.2.10 (port 49, the group key) then 192.0.2.11 (port 4949, its own key). Up to 5.11:
    priority ids 1, 2 (lower first) with `host` and `enable: on`; from 5.12: keyed by host, priority 2 then 1
    (higher first), no `enable`."""
    old, new = _tree(rail0, "5.11")["system"]["aaa"]["tacacs"], _tree(rail0, "5.12")["system"]["aaa"]["tacacs"]
    assert old == {"enable": "on", "vrf": "mgmt", "server": {
        "1": {"host": "192.0.2.10", "port": 49, "secret": "%%vault.tacacs_key%%"},
        "2": {"host": "192.0.2.11", "port": 4949, "secret": "%%vault.tacacs_key_b%%"}}}
    assert new == {"vrf": "mgmt", "server": {
        "192.0.2.10": {"priority": 2, "port": 49, "secret": "%%vault.tacacs_key%%"},
        "192.0.2.11": {"priority": 1, "port": 4949, "secret": "%%vault.tacacs_key_b%%"}}}


# --------------------------------------------------------------------------- the release as an inventory fact


def _nvue_data() -> dict[str, Any]:
    data = with_system(base_inventory())
    data["fabric"]["platform"] = "nvue"
    return data


def test_the_most_specific_release_applies(tmp_path: Path) -> None:
    data = _nvue_data()
    data["fabric"]["releases"] = {"nvue": "5.10"}
    data["switch_models"]["sw64"]["releases"] = {"nvue": "5.12"}
    data["devices"] = {"p1-s1-rail1": {"release": "5.13"}}
    devices = _devices(run_data(tmp_path / "a", data))
    # the model's 5.12 beats the fabric's 5.10 on every switch (all are sw64); the device's 5.13 beats both
    assert {n: d.release for n, d in devices.items()} == {"p1-spine1": "5.12", "p1-spine2": "5.12",
                                                         "p1-s1-rail0": "5.12", "p1-s1-rail1": "5.13"}
    del data["switch_models"]["sw64"]["releases"], data["devices"]
    assert {d.release for d in _devices(run_data(tmp_path / "b", data)).values()} == {"5.10"}
    del data["fabric"]["releases"]
    assert {d.release for d in _devices(run_data(tmp_path / "c", data)).values()} == {"5.14"}  # the default


def test_sonic_switches_have_no_release(tmp_path: Path) -> None:
    devices = _devices(run_data(tmp_path, base_inventory()))
    assert {d.release for d in devices.values()} == {""}


def test_releases_outside_the_list_are_refused_at_their_line(tmp_path: Path) -> None:
    """Rendered: 5.9-5.18 (the releases nvueschema has NVIDIA's schema for). Refused: 5.19 (released, no schema
    here), 6.0, and 5.8 (below the oldest form set)."""
    text = dump(_nvue_data())
    text = text.replace("  platform: nvue\n", "  platform: nvue\n  releases: {nvue: '5.19', sonic: '202411'}\n")
    text += "devices:\n  p1-s1-rail0:\n    release: '5.8'\n  p1-s1-rail1:\n    release: '6.0'\n"
    write_files(tmp_path / "inv", {"fabric.yml": text})
    from railfabric.pipeline import run

    found = sorted((f.code, f.location.line if f.location else 0, f.message) for f in run(tmp_path / "inv").findings
                   if f.code == "PLAT040")
    line = text.splitlines().index("  releases: {nvue: '5.19', sonic: '202411'}") + 1
    dev_line = text.splitlines().index("    release: '5.8'") + 1
    listed = "5.9, 5.10, 5.11, 5.12, 5.13, 5.14, 5.15, 5.16, 5.17, 5.18"
    assert found == [
        ("PLAT040", line, f"fabric.releases: nvue release '5.19': nvue is rendered for releases {listed}"),
        ("PLAT040", line, "fabric.releases: sonic release '202411': railfabric renders one form set for sonic and "
                          "does not choose forms by release"),
        ("PLAT040", dev_line, f"device 'p1-s1-rail0' (nvue): release '5.8': nvue is rendered for releases {listed}"),
        ("PLAT040", dev_line + 2, f"device 'p1-s1-rail1' (nvue): release '6.0': nvue is rendered for releases "
                                  f"{listed}"),
    ]


def test_every_rendered_release_is_accepted(tmp_path: Path) -> None:
    """5.15-5.18 validate clean as the fabric's release and render in their own forms (one switch each)."""
    data = _nvue_data()
    data["fabric"]["releases"] = {"nvue": "5.15"}
    data["devices"] = {"p1-s1-rail0": {"release": "5.16"}, "p1-s1-rail1": {"release": "5.17"},
                       "p1-spine2": {"release": "5.18"}}
    devices = _devices(run_data(tmp_path, data))
    assert {n: d.release for n, d in devices.items()} == {"p1-spine1": "5.15", "p1-spine2": "5.18",
                                                         "p1-s1-rail0": "5.16", "p1-s1-rail1": "5.17"}
    assert {n: document(d)[0]["set"]["qos"]["roce"]["state"] for n, d in devices.items()} == dict.fromkeys(
        devices, "enabled")


def test_a_release_written_as_a_number_is_refused_with_the_reason(tmp_path: Path) -> None:
    data = _nvue_data()
    data["switch_models"]["sw64"]["releases"] = {"nvue": 5.10}
    result = run_data(tmp_path, data)
    assert [(f.code, f.message) for f in result.findings if f.severity is Severity.ERROR] == [
        ("SCH003", "switch_models.sw64.releases.nvue: release 5.1 was read as a number (YAML reads 5.10 as 5.1): "
                   "write it in quotes as the vendor does, e.g. '5.10'")]


# --------------------------------------------------------------------------- fabric verify


def test_verify_checks_each_file_against_its_release(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inv = system_inventory(tmp_path, "nvue", system=SYSTEM_YML + "fabric:\n  releases: {nvue: '5.10'}\n")
    out = tmp_path / "out"
    assert main(["render", str(inv), "--out", str(out), "-q"]) == 0
    hv = out / "ansible" / "host_vars" / "p1-spine1.yml"
    assert 'release: "5.10"\n' in hv.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    assert "Cumulus Linux (NVUE): 4 file(s) checked against the vendor's schema of their release" in \
        capsys.readouterr().out
    # the same 5.10 file claimed as 5.11: its service.snmp-server (5.10's place) is what 5.11's schema refuses
    hv.write_text(hv.read_text(encoding="utf-8").replace('release: "5.10"', 'release: "5.11"'), encoding="utf-8")
    assert main(["verify", str(out)]) == 1
    failures = [line for line in capsys.readouterr().out.splitlines() if line.startswith("FAIL vendor-schema")]
    assert failures == ["FAIL vendor-schema: p1-spine1 startup.yaml: expected Cumulus Linux (NVUE) 5.11 schema "
                        "accepts it, found service.snmp-server: Extra inputs are not permitted "
                        "(configs/p1-spine1/startup.yaml)"]


@pytest.mark.parametrize("fabric", ["system", "mlag"])
def test_verify_reads_the_5_15_forms_back(tmp_path: Path, capsys: pytest.CaptureFixture[str], fabric: str) -> None:
    """`fabric verify` on 5.15 files: the reader takes `ipv4`, the interface's `vrf`, `state: enabled`, the BFD
    profile and `vrr-state` (railfabric/verify/nvue.py), so the parse-back matches expected/ and the schema passes; a
    peer group whose profile is not an enabled `router bfd` profile has no BFD, which verify reports."""
    if fabric == "system":
        inv = system_inventory(tmp_path, "nvue", system=SYSTEM_YML + "fabric:\n  releases: {nvue: '5.15'}\n")
        switch, files = "p1-spine1", 4
    else:
        data = mlag_inventory("eos")
        data["pods"][0]["segments"][0]["platform"] = "nvue"
        data["pods"][0]["spines"]["platform"] = "nvue"
        data["fabric"]["releases"] = {"nvue": "5.15"}
        inv = write_files(tmp_path / "inv", {"fabric.yml": dump(data)})
        switch, files = "p1-s1-rail0a", 6
    out = tmp_path / "out"
    assert main(["render", str(inv), "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0, capsys.readouterr().out
    assert f"Cumulus Linux (NVUE): {files} file(s) checked against the vendor's schema of their release" in \
        capsys.readouterr().out
    path = out / "configs" / switch / "startup.yaml"
    text = path.read_text(encoding="utf-8")
    # the rail switch's SPINES group uses its tier's profile (rail_spine: RF-RAIL-SPINE, railfabric/device/sessions.py)
    assert text.count("profile: RF-RAIL-SPINE\n") >= 1
    path.write_text(text.replace("profile: RF-RAIL-SPINE\n", "profile: OTHER\n"), encoding="utf-8")
    assert main(["verify", str(out)]) == 1
    lost = [line for line in capsys.readouterr().out.splitlines() if line.startswith(f"FAIL bgp-plan: {switch} ")]
    assert lost and all("expected BFD on" in line and "found off" in line for line in lost)


def test_the_in_memory_check_of_the_option_walk_checks_something(tmp_path: Path) -> None:
    """tests/vendor_schemas.py, which the option walk runs on every fabric, reads the NVUE files it is given: clean
    files pass, and one unknown key in one switch's file is reported with the file and release."""
    from railfabric.emit.build import build_files
    from tests.vendor_schemas import vendor_schema_problems

    files = build_files(run_data(tmp_path, _nvue_data()))
    assert vendor_schema_problems(files) == []
    path = "configs/p1-s1-rail0/startup.yaml"
    files[path] = files[path].replace(b"- set:\n", b"- set:\n    bogus: 1\n", 1)
    assert vendor_schema_problems(files) == [
        f"{path} (5.14): bogus: Extra inputs are not permitted"]
