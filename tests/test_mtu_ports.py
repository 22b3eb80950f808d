"""MTU after vendor normalisation (per link, host MTU against rail switches) and the physical port settings
(forced speed in the platform's form, FEC), on the shipped mixed SONiC/EOS example and small inventories."""

from __future__ import annotations

from pathlib import Path

import pytest

from railfabric.device import DeviceConfig, build_devices
from railfabric.pipeline import run
from railfabric.platforms import PLATFORMS, fec_for
from railfabric.topology import LinkRole
from tests.helpers import EXAMPLE, base_inventory, codes, run_data, with_system


@pytest.fixture(scope="module")
def example() -> tuple[dict[str, DeviceConfig], object]:
    res = run(EXAMPLE)
    assert res.plan is not None and not res.findings, res.findings
    return build_devices(res.inventory, res.topology, res.plan), res.topology  # type: ignore[arg-type]


def _port_mtus(d: DeviceConfig, peer_prefix: str) -> set[int]:
    return {i.mtu for i in d.interfaces if i.peer.startswith(peer_prefix)}


def test_mixed_link_runs_at_the_lower_ceiling(example) -> None:
    devices, _ = example
    spine = devices["p1-spine1"]  # SONiC (ceiling 9216), fabric mtu 9216
    # pod 1 segment 2 is EOS (ceiling 9214): links_per_spine 4 × 4 rail switches = 16 ports at 9214
    eos_ports = [i for i in spine.interfaces if i.peer.startswith("p1-s2-")]
    assert len(eos_ports) == 16 and {i.mtu for i in eos_ports} == {9214}
    # SONiC peers keep 9216: segment 1's 8 rail switches × 2 links, and the 4 super-spines × 8 links
    sonic_ports = [i for i in spine.interfaces if i.peer.startswith("p1-s1-")]
    assert _port_mtus(spine, "p1-s1-") == {9216} and len(sonic_ports) == 16
    assert {i.mtu for i in spine.interfaces if i.role == "core"} == {9216}
    eos = devices["p1-s2-rail0-4"]
    assert eos.platform == "eos" and eos.mtu == 9214
    assert {i.mtu for i in eos.interfaces} == {9214}
    assert eos.mtu_note == "fabric mtu 9216 normalised to 9214, the eos maximum"
    assert spine.mtu == 9216 and spine.mtu_note == "links to eos peers run at 9214, the eos maximum"


def test_every_link_has_one_mtu_and_one_fec(example) -> None:
    devices, topo = example
    by_port = {(name, i.port, i.lane): i for name, d in devices.items() for i in d.interfaces}
    checked = 0
    for link in topo.links:
        if link.role is LinkRole.HOST:
            continue
        a = by_port[(link.a.device, link.a.port, link.a.lane)]
        z = by_port[(link.z.device, link.z.port, link.z.lane)]
        assert (a.mtu, a.speed, a.fec) == (z.mtu, z.speed, z.fec), link.id
        checked += 1
    assert checked == 192 + 192  # fabric + core links of the example (fabric validate: core 192, fabric 192)


def test_port_channel_mtu_follows_its_members(tmp_path: Path) -> None:
    inv = with_system(base_inventory())  # EOS rail switches need a push account (MGMT001)
    inv["pods"][0]["spines"].update(links_per_rail_switch=2, port_channel_members=2)
    inv["pods"][0]["segments"][0]["platform"] = "eos"
    res = run_data(tmp_path, inv)
    assert res.plan is not None and not res.findings, res.findings
    devices = build_devices(res.inventory, res.topology, res.plan)  # type: ignore[arg-type]
    spine = devices["p1-spine1"]  # SONiC spine, EOS rail switches below it
    assert [(pc.mtu, pc.peer) for pc in spine.port_channels] == [(9214, "p1-s1-rail0"), (9214, "p1-s1-rail1")]
    assert {pc.mtu for pc in devices["p1-s1-rail0"].port_channels} == {9214}


def test_host_mtu_must_fit_every_rail_switch(tmp_path: Path) -> None:
    inv = with_system(base_inventory())
    inv["fabric"]["host_mtu"] = 9216  # fabric mtu defaults to 9216: MTU001 is silent
    inv["pods"][0]["segments"][0]["platform"] = "eos"
    res = run_data(tmp_path / "a", inv)
    assert codes(res) == ["MTU003"]
    f = res.findings[0]
    assert f.message == ("host_mtu 9216 is above the MTU of 2 eos rail switch(es) (p1-s1-rail0, p1-s1-rail1): they "
                         "carry at most 9214")
    assert f.hint == "use host_mtu: 9000 (RoCE path MTU 4096 still fits)"
    text = (tmp_path / "a" / "inv" / "fabric.yml").read_text().splitlines()
    assert text[f.location.line - 1].strip() == "host_mtu: 9216"  # type: ignore[union-attr]
    inv["fabric"]["host_mtu"] = 9214
    assert codes(run_data(tmp_path / "b", inv)) == []
    inv["pods"][0]["segments"][0]["platform"] = "sonic"  # SONiC carries 9216
    inv["fabric"]["host_mtu"] = 9216
    assert codes(run_data(tmp_path / "c", inv)) == []


@pytest.mark.parametrize(("speed", "lanes", "fec"), [
    (800, 8, "rs"), (400, 4, "rs"), (200, 2, "rs"), (100, 1, "rs"),  # 100G per lane PAM4: RS-544
    (400, 8, "rs"), (200, 4, "rs"),  # 50G per lane PAM4: RS-544
    (100, 4, "rs"), (25, 1, "rs"),  # 25G NRZ lanes: RS-528
    (40, 4, "none"), (10, 1, "none"),  # 10G lanes: no RS-FEC
])
def test_fec_by_lane_rate(speed: int, lanes: int, fec: str) -> None:
    assert fec_for(speed, lanes) == fec


def test_speed_settings() -> None:
    eos, sonic = PLATFORMS["eos"], PLATFORMS["sonic"]
    assert [eos.speed_setting(s, n) for s, n in ((800, 8), (400, 4), (200, 2), (100, 1))] == [
        "800g-8", "400g-4", "200g-2", "100g-1"]
    assert sonic.speed_setting(400, 4) == "400000" and sonic.speed_setting(800, 8) == "800000"


def test_example_eos_host_ports(example) -> None:
    devices, _ = example
    d = devices["p1-s2-rail0-4"]  # 7060x6-dual, 2x400G on the rail-0 block port 1: Ethernet1/1 and Ethernet1/5
    first = [i for i in d.interfaces if i.port == 1]
    assert [(i.name, i.speed_setting, i.fec, i.mode) for i in first] == [
        ("Ethernet1/1", "400g-4", "rs", "access"), ("Ethernet1/5", "400g-4", "rs", "access")]
    unused = next(i for i in d.interfaces if i.port == 3)  # port 3 is in neither rail block (1, 4, ... / 2, 5, ...)
    assert (unused.name, unused.speed_setting, unused.admin_up) == ("Ethernet3/1", "800g-8", False)
