"""`fabric impact --down SWITCH:INTERFACE`: a switch port named by the platform's own interface name
(railfabric/impact/targets.py through Platform.end_interface, the naming the device model uses), with the
close-match hint for a typo."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from railfabric.impact import Resolver, UnknownNames
from railfabric.pipeline import Result, run
from tests.helpers import EXAMPLE, ROOT, base_inventory, run_data, with_system


@pytest.fixture(scope="module")
def example() -> Result:
    return run(EXAMPLE)


def test_every_interface_of_the_example_cabling_plan(example: Result) -> None:
    """Every switch end of generated/cabling.csv (its interface column comes from the device model): SWITCH:INTERFACE
    resolves to that row's link, the same links as SWITCH:PORT."""
    assert example.topology is not None and example.inventory is not None
    res = Resolver(example.topology, example.inventory.switch_models)
    text = (ROOT / "generated" / "cabling.csv").read_text(encoding="utf-8").splitlines()
    rows = list(csv.DictReader(line for line in text if not line.startswith("#")))
    checked = 0
    for row in rows:
        for side in ("a", "z"):
            dev, port, iface = row[f"{side}_device"], row[f"{side}_port"], row[f"{side}_interface"]
            if dev not in example.topology.switches:
                continue
            down = res.resolve([f"{dev}:{iface}"])
            assert row["link_id"] in down.links, (dev, iface)
            assert down.links == res.resolve([f"{dev}:{port}"]).links, (dev, iface, port)
            checked += 1
    assert checked > 1000  # both ends of every switch-to-switch link and the switch end of every host link


# the base fabric's p1-s1-rail0 (sw64: 64 × 800G ports of 8 serdes lanes): its uplink to p1-spine1 is port 33 (the
# downlinks are ports 1-32), p1-s1-gpu002's 400G NIC is lane 2 of port 1 broken out 2x400G. Expected names, from
# each platform's naming rule (railfabric/platforms/<name>.py, sources there):
NAMES = {
    "sonic": ("Ethernet256", "Ethernet4"),  # first serdes lane: (33 − 1) × 8; port 1's lane 2 of 2 starts at lane 4
    "eos": ("Ethernet33/1", "Ethernet1/5"),  # Ethernet<port>/<first lane + 1>
    "nvue": ("swp33", "swp1s1"),  # swp<port>, breakout child s<lane − 1>
    "nxos": ("Ethernet1/33", "Ethernet1/1/2"),  # Ethernet1/<port>, breakout Ethernet1/<port>/<lane>
    "junos": ("et-0/0/32", "et-0/0/0:1"),  # et-0/0/<port − 1>, channel :<lane − 1>
}


@pytest.mark.parametrize("platform", sorted(NAMES))
def test_interface_names_per_platform(platform: str, tmp_path: Path) -> None:
    data = with_system(base_inventory())
    data["fabric"]["platform"] = platform
    r = run_data(tmp_path, data)
    assert r.topology is not None and r.inventory is not None
    res = Resolver(r.topology, r.inventory.switch_models)
    uplink, host_port = NAMES[platform]
    down = res.resolve([f"p1-s1-rail0:{uplink}"])
    assert down.links == frozenset({"p1-s1-rail0>p1-spine1#1"})
    assert down.what == {f"p1-s1-rail0:{uplink}": f"port p1-s1-rail0:{uplink} (1 link)"}
    assert res.resolve([f"p1-s1-rail0:{host_port}"]).links == frozenset({"p1-s1-gpu002:nic0p1"})
    # without the switch models (Resolver(topology) alone) interface names are unknown, port numbers still work
    with pytest.raises(UnknownNames):
        Resolver(r.topology).resolve([f"p1-s1-rail0:{uplink}"])
    assert Resolver(r.topology).resolve(["p1-s1-rail0:33"]).links == down.links


def test_typo_gets_the_switch_own_ports_as_hints(example: Result) -> None:
    assert example.topology is not None and example.inventory is not None
    res = Resolver(example.topology, example.inventory.switch_models)
    with pytest.raises(UnknownNames) as err:
        res.resolve(["p1-s1-rail0:Etherent256", "p1-s2-rail0-4:Ethernet33/9"])
    # the hints are among the named switch's own ports only (a transposition: Ethernet256 first)
    assert err.value.close["p1-s1-rail0:Etherent256"][0] == "p1-s1-rail0:Ethernet256"
    assert all(c.startswith("p1-s2-rail0-4:") for c in err.value.close["p1-s2-rail0-4:Ethernet33/9"])
    assert "p1-s2-rail0-4:Ethernet33/1" in err.value.close["p1-s2-rail0-4:Ethernet33/9"]
