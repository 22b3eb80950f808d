"""Texts the SONiC renderer makes once and shares (railfabric/configs/sonic/config_db.py members, sonic_frr.py): the
file assembled from them is the whole document serialised at once, and a device that differs from another in one
value the shared text reads gets its own text, whatever was rendered before it.

Hand derivations on the example (inventory/fabric.yml and the rules quoted in tests/test_sonic_config_db.py):
- p1-s1-rail0: QoS watchdog poll 200 ms; RoCE ports are its 32 host lanes (2x400G breakouts of ports 1-16:
  Ethernet0, Ethernet4, Ethernet8, ...) and its uplinks; queues 0 (DWRR), 3 (DWRR + ECN) and 6 (strict) are set.
- p1-s1-rail0's first uplink is port 33 = Ethernet256, 10.4.0.1/31, to p1-spine1 whose end is 10.4.0.0 (the spine
  takes the even end): its frr.conf has `neighbor 10.4.0.0 description p1-spine1 Ethernet0` (the spine's port 1).
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from railfabric.configs import sonic as sonic_configs
from railfabric.configs.render import environment, platform_filters, render_device
from railfabric.configs.sonic.config_db import buffer_members, config_db, config_db_tables, document, dumps, members
from railfabric.configs.sonic.frr import neighbor_lines
from railfabric.device import DeviceConfig, build_devices
from railfabric.device.routing import Neighbor, PeerGroup
from railfabric.pipeline import run
from tests.helpers import EXAMPLE


@pytest.fixture(scope="module")
def devices() -> dict[str, DeviceConfig]:
    r = run(EXAMPLE)
    assert r.inventory is not None and r.topology is not None and r.plan is not None and r.findings == []
    return build_devices(r.inventory, r.topology, r.plan)


@pytest.fixture(scope="module")
def rail0(devices: dict[str, DeviceConfig]) -> DeviceConfig:
    return devices["p1-s1-rail0"]


def test_assembled_file_is_the_whole_document_serialised(devices: dict[str, DeviceConfig]) -> None:
    sonic = [d for d in devices.values() if d.platform == "sonic"]
    assert len(sonic) == 30  # 34 switches, 4 of them EOS (generated/configs)
    for dev in sonic:
        assert config_db(dev) == dumps(config_db_tables(dev)), dev.hostname


def test_document_joins_members_in_table_order() -> None:
    # two tables given out of order; the text is what json.dumps(indent=2, sort_keys=True) writes
    parts = members({"B": {"k": {"x": "1"}}, "A": {}})
    assert parts == [("B", '  "B": {\n    "k": {\n      "x": "1"\n    }\n  }'), ("A", '  "A": {}')]
    assert document(parts) == '{\n  "A": {},\n  "B": {\n    "k": {\n      "x": "1"\n    }\n  }\n}\n'


def test_qos_text_is_keyed_on_the_qos(rail0: DeviceConfig) -> None:
    """A switch with another watchdog poll interval gets its own PFC_WD; the first switch's text is unchanged after."""
    assert rail0.qos.watchdog is not None
    slower = dataclasses.replace(rail0, qos=dataclasses.replace(
        rail0.qos, watchdog=dataclasses.replace(rail0.qos.watchdog, poll_ms=100)))
    before = config_db(rail0)
    other = config_db(slower)
    after = config_db(rail0)
    assert before == after
    assert before.count('"POLL_INTERVAL"') == 1  # PFC_WD|GLOBAL, after the ports (sorted: "Ethernet..." < "GLOBAL")
    assert '    "GLOBAL": {\n      "POLL_INTERVAL": "200"\n    }' in before
    assert '    "GLOBAL": {\n      "POLL_INTERVAL": "100"\n    }' in other
    assert before.replace('"POLL_INTERVAL": "200"', '"POLL_INTERVAL": "100"') == other  # the only difference


def test_qos_text_is_keyed_on_the_roce_ports(rail0: DeviceConfig) -> None:
    """Ethernet0 without RoCE QoS: its PORT_QOS_MAP, QUEUE and PFC_WD rows go, Ethernet4's stay."""
    first = rail0.interfaces[0]
    assert first.name == "Ethernet0" and first.qos
    plain = dataclasses.replace(rail0, interfaces=(dataclasses.replace(first, qos=False), *rail0.interfaces[1:]))
    config_db(rail0)  # the switch's own QoS text is made first: it must not be served for the other port list
    doc, base = json.loads(config_db(plain)), json.loads(config_db(rail0))
    for table in ("PORT_QOS_MAP", "PFC_WD"):
        assert "Ethernet0" in base[table] and "Ethernet0" not in doc[table]
        assert doc[table]["Ethernet4"] == base[table]["Ethernet4"]
    gone = {"Ethernet0|0", "Ethernet0|3", "Ethernet0|6"}  # the three scheduled queues of the port
    assert gone <= set(base["QUEUE"]) and set(base["QUEUE"]) - set(doc["QUEUE"]) == gone
    assert doc["PORT"] == base["PORT"]  # the port itself is still there


def test_buffer_text_is_per_buffers_object(devices: dict[str, DeviceConfig], rail0: DeviceConfig) -> None:
    """One Buffers object, one text (p1-s1-rail1 shares rail0's); another Buffers with one cable length changed gets
    its own CABLE_LENGTH (Ethernet0's host cable is 3m in the example)."""
    b = rail0.buffers
    assert b is not None and devices["p1-s1-rail1"].buffers is b
    assert buffer_members(b) is buffer_members(devices["p1-s1-rail1"].buffers)
    lengths = dict(b.cable_lengths)
    assert lengths["Ethernet0"] == "3m"
    longer = dataclasses.replace(b, cable_lengths=tuple((p, "5m" if p == "Ethernet0" else m) for p, m in
                                                        b.cable_lengths))
    other = config_db(dataclasses.replace(rail0, buffers=longer))
    text = config_db(rail0)
    assert '"CABLE_LENGTH": {\n    "AZURE": {\n      "Ethernet0": "3m",' in text
    assert '"CABLE_LENGTH": {\n    "AZURE": {\n      "Ethernet0": "5m",' in other
    assert text.replace('"Ethernet0": "3m"', '"Ethernet0": "5m"') == other
    # an equal but distinct Buffers object: the same text
    assert config_db(dataclasses.replace(rail0, buffers=dataclasses.replace(b))) == text


def test_neighbor_lines_by_hand() -> None:
    a = Neighbor("10.4.0.0", 4200001001, "p1-spine1 Ethernet0", "10.4.0.1")
    b = Neighbor("10.4.0.2", 4200001002, "p1-spine2 Ethernet0", "10.4.0.3")
    shared = PeerGroup("SPINES", 4200001001, True, "uplinks", (a, b))
    assert neighbor_lines(shared) == (" neighbor 10.4.0.0 peer-group SPINES\n"
                                      " neighbor 10.4.0.0 description p1-spine1 Ethernet0\n"
                                      " neighbor 10.4.0.2 peer-group SPINES\n"
                                      " neighbor 10.4.0.2 description p1-spine2 Ethernet0\n")
    own = dataclasses.replace(shared, remote_as=None)  # no group AS: each neighbor's own
    assert neighbor_lines(own) == (" neighbor 10.4.0.0 remote-as 4200001001\n"
                                   " neighbor 10.4.0.0 peer-group SPINES\n"
                                   " neighbor 10.4.0.0 description p1-spine1 Ethernet0\n"
                                   " neighbor 10.4.0.2 remote-as 4200001002\n"
                                   " neighbor 10.4.0.2 peer-group SPINES\n"
                                   " neighbor 10.4.0.2 description p1-spine2 Ethernet0\n")
    assert neighbor_lines(dataclasses.replace(shared, neighbors=())) == ""


def test_frr_conf_neighbors_per_device(rail0: DeviceConfig) -> None:
    """Two switches that differ in one neighbor's description differ in that line only."""
    group = rail0.bgp.peer_groups[0]
    first = group.neighbors[0]
    assert (group.name, first.ip, first.description) == ("SPINES", "10.4.0.0", "p1-spine1 Ethernet0")
    renamed = dataclasses.replace(first, description="p1-spine1 Ethernet9")
    other_group = dataclasses.replace(group, neighbors=(renamed, *group.neighbors[1:]))
    other = dataclasses.replace(rail0, bgp=dataclasses.replace(rail0.bgp, peer_groups=(other_group,)))
    text, other_text = render_device(rail0)["frr.conf"], render_device(other)["frr.conf"]
    line = " neighbor 10.4.0.0 description p1-spine1 Ethernet0\n"
    assert text.count(line) == 1
    assert other_text == text.replace(line, " neighbor 10.4.0.0 description p1-spine1 Ethernet9\n")
    # the peer group's own lines come before its neighbors, the address family after them
    assert " neighbor SPINES bfd profile RF-RAIL-SPINE\n neighbor 10.4.0.0 peer-group SPINES\n" in text
    assert text.index(line) < text.index(" address-family ipv4 unicast\n")


def test_platform_filters_registered_once() -> None:
    from railfabric.configs.eos.keys import next_transmit_lifetime, transmit_lifetime

    assert {"frr_neighbors": neighbor_lines} == sonic_configs.FILTERS  # railfabric/configs/sonic/__init__.py
    eos = {"eos_transmit_lifetime": transmit_lifetime, "eos_next_transmit_lifetime": next_transmit_lifetime}
    assert platform_filters() == {"frr_neighbors": neighbor_lines, **eos}  # EOS: railfabric/configs/eos/__init__.py
    assert environment().filters["frr_neighbors"] is neighbor_lines
    assert all(environment().filters[name] is fn for name, fn in eos.items())


def test_port_texts_made_once_per_value_and_bounded() -> None:
    from railfabric.configs.sonic.config_db_ports import LANES_TEXT, MTU_TEXT, _Texts

    assert LANES_TEXT[(0, 1, 2, 3)] == "0,1,2,3" and LANES_TEXT[(4, 5, 6, 7)] == "4,5,6,7"
    assert MTU_TEXT[9216] == "9216" and MTU_TEXT[9100] == "9100"
    made: list[int] = []
    texts = _Texts(lambda n: made.append(n) or f"<{n}>", limit=2)
    assert [texts[1], texts[2], texts[1]] == ["<1>", "<2>", "<1>"] and made == [1, 2]  # 1 made once
    assert texts[3] == "<3>" and len(texts) == 1  # full at 2 keys: emptied, then 3 added
