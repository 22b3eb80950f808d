"""NVUE startup.yaml files against NVIDIA's NVUE schema of their Cumulus Linux release (fabric/verify/nvue_schema.py,
the nvueschema package's models with unknown keys refused), the release as an inventory fact (fabric.releases,
switch_models.<m>.releases, devices.<d>.release; PLAT040) and the forms each release selects
(fabric/platforms/nvue_release.py).

Every supported release is checked on the example fabric moved to NVUE, on the MLAG fabric, on a full management
plane (TACACS+, RADIUS, SNMPv3, syslog, NTP, DNS, banner) and, through tests/test_option_walk.py, on every option-walk
fabric. The forms per release are derived from NVIDIA's documents and schema, cited in nvue_release.py.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from fabric.cli import main
from fabric.core.finding import Severity
from fabric.device import DeviceConfig
from fabric.platforms import PLATFORMS
from fabric.platforms.nvue_release import RELEASES
from fabric.platforms.nvue_startup import document, startup_yaml
from fabric.verify.nvue_schema import root_model, violations
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
        doc = yaml.safe_load(startup_yaml(dataclasses.replace(dev, release=release)))
        out += [f"{name}: {v}" for v in violations(doc, release)]
    return out


@pytest.fixture(scope="module")
def example_devices(tmp_path_factory: pytest.TempPathFactory) -> dict[str, DeviceConfig]:
    from fabric.pipeline import run

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


def test_adaptive_routing_passes_nvidias_schema(tmp_path: Path) -> None:
    data = _nvue_data()
    data["routing"] = {"ecmp": {"mode": "packet"}}
    data["host_models"]["h2"]["accepts_out_of_order"] = True  # HOST007 otherwise
    devices = _devices(run_data(tmp_path, data))
    tree = document(devices["p1-s1-rail0"])[0]["set"]
    assert tree["router"]["adaptive-routing"] == {"enable": "on"}
    for release in RELEASES:
        assert _problems(devices, release) == []


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
    assert NVUE.releases == RELEASES and NVUE.default_release == "5.14"


# --------------------------------------------------------------------------- the forms each release selects


@pytest.fixture(scope="module")
def rail0(tmp_path_factory: pytest.TempPathFactory) -> DeviceConfig:
    return devices_of(run_system(tmp_path_factory.mktemp("sys"), "nvue"))["p1-s1-rail0"]


def _tree(dev: DeviceConfig, release: str) -> dict[str, Any]:
    return document(dataclasses.replace(dev, release=release))[0]["set"]


def test_forms_that_do_not_change(rail0: DeviceConfig) -> None:
    """SSH server VRF and the authentication order are sets in every release (`vrf: {mgmt: {}}`, `10: {tacacs:
    {}}`); system.yml's login order is tacacs, radius, local → priorities 10, 20, 30."""
    for release in RELEASES:
        t = _tree(rail0, release)
        assert t["system"]["ssh-server"] == {"vrf": {"mgmt": {}}}
        assert t["system"]["aaa"]["authentication-order"] == {"10": {"tacacs": {}}, "20": {"radius": {}},
                                                              "30": {"local": {}}}


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
    text = dump(_nvue_data())
    text = text.replace("  platform: nvue\n", "  platform: nvue\n  releases: {nvue: '5.15', sonic: '202411'}\n")
    text += "devices:\n  p1-s1-rail0:\n    release: '5.8'\n"
    write_files(tmp_path / "inv", {"fabric.yml": text})
    from fabric.pipeline import run

    found = sorted((f.code, f.location.line if f.location else 0, f.message) for f in run(tmp_path / "inv").findings
                   if f.code == "PLAT040")
    line = text.splitlines().index("  releases: {nvue: '5.15', sonic: '202411'}") + 1
    dev_line = text.splitlines().index("    release: '5.8'") + 1
    assert found == [
        ("PLAT040", line, "fabric.releases: nvue release '5.15': nvue is rendered for releases "
                          "5.9, 5.10, 5.11, 5.12, 5.13, 5.14"),
        ("PLAT040", line, "fabric.releases: sonic release '202411': railfabric renders one form set for sonic and "
                          "does not choose forms by release"),
        ("PLAT040", dev_line, "device 'p1-s1-rail0' (nvue): release '5.8': nvue is rendered for releases "
                              "5.9, 5.10, 5.11, 5.12, 5.13, 5.14"),
    ]


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


def test_the_in_memory_check_of_the_option_walk_checks_something(tmp_path: Path) -> None:
    """tests/vendor_schemas.py, which the option walk runs on every fabric, reads the NVUE files it is given: clean
    files pass, and one unknown key in one switch's file is reported with the file and release."""
    from fabric.emit import build_files
    from tests.vendor_schemas import vendor_schema_problems

    files = build_files(run_data(tmp_path, _nvue_data()))
    assert vendor_schema_problems(files) == []
    path = "configs/p1-s1-rail0/startup.yaml"
    files[path] = files[path].replace(b"- set:\n", b"- set:\n    bogus: 1\n", 1)
    assert vendor_schema_problems(files) == [
        f"{path} (5.14): bogus: Extra inputs are not permitted"]
