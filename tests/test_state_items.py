"""The shortcuts of the state's item writers (railfabric/outputs/state_items.py), each broken by one switch:
- port_items writes the interfaces and LLDP items in one pass when the model lists them by (port, lane), else sorts;
- an interface's text but its address, and its quoted name (its LLDP item's "interface"), are kept by what it shows;
- the addresses and names are written as they are when no byte needs JSON escaping, else through orjson.

Hand derivations (inventory/fabric.yml, pods.yml; as in tests/test_state_text.py's docstring): p1-s2-rail0-4 is an
EOS switch; its uplink 0 is its port 33, EOS Ethernet33/1, an 800G port of 8 lanes not broken out, routed, holding
10.4.8.1/31 (the odd end of fabric_links' /31 10.4.8.0: the spine holds the even one), MTU 9216 capped at 9214 on
EOS, and it lands on p1-spine1 port 17, SONiC Ethernet(17-1)·8 = Ethernet128, a fabric link.
"""

from __future__ import annotations

import dataclasses

import orjson
import pytest

from railfabric.device import DeviceConfig
from railfabric.outputs.state import device_state_text, state_text
from railfabric.outputs.state_index import NOBODY, _sessions, build_index
from railfabric.outputs.state_items import _port_items
from railfabric.outputs.views import Sessions
from tests.test_state_text import RAIL, _example, record

UPLINK = "Ethernet33/1"
UPLINK_LINE = ('{"admin":"up","ipv4":"10.4.8.1/31","lanes":8,"mode":"routed","mtu":9214,"name":"Ethernet33/1",'
               '"oper":"up","speed_gbps":800}')
LLDP_LINE = '{"interface":"Ethernet33/1","neighbor":"p1-spine1","neighbor_interface":"Ethernet128","role":"fabric"}'


@pytest.fixture(scope="module")
def example() -> dict[str, DeviceConfig]:
    return _example(False)


def _changed(dev: DeviceConfig, **values: object) -> DeviceConfig:
    """`dev` with its uplink 0 (Ethernet33/1) changed in the given fields only."""
    interfaces = tuple(dataclasses.replace(i, **values) if i.name == UPLINK else i  # type: ignore[arg-type]
                       for i in dev.interfaces)
    return dataclasses.replace(dev, interfaces=interfaces)


def _text(example: dict[str, DeviceConfig], dev: DeviceConfig) -> str:
    ix = build_index({**example, dev.hostname: dev})  # the index of the same models, as a render builds it
    text = device_state_text(dev, ix)
    assert text == state_text(record(dev, ix))  # the record the plain way, laid out
    return text


def test_the_uplink_lines_by_hand(example: dict[str, DeviceConfig]) -> None:
    text = _text(example, example[RAIL])
    assert f"    {UPLINK_LINE},\n" in text
    assert f"    {LLDP_LINE},\n" in text


def test_interfaces_listed_out_of_order_are_sorted(example: dict[str, DeviceConfig]) -> None:
    dev = example[RAIL]
    backwards = dataclasses.replace(dev, interfaces=dev.interfaces[::-1])
    assert _port_items(backwards.interfaces) is None  # the one-pass shortcut refuses them
    assert _port_items(dev.interfaces) is not None  # and takes the model's own order
    text = _text(example, backwards)
    assert text == _text(example, dev)  # by port and lane either way: the same bytes
    items = orjson.loads(text)["interfaces"]
    assert items[0]["name"] != dev.interfaces[-1].name  # not the reversed order


@pytest.mark.parametrize(("values", "line", "gone"), [
    # the MTU (one value the kept text shows): its own interface line, the LLDP line as before
    ({"mtu": 9000}, UPLINK_LINE.replace('"mtu":9214', '"mtu":9000'), UPLINK_LINE),
    # the name: both lines name the new one (the LLDP item's quoted name is kept with the interface's text)
    ({"name": "Ethernet33/2"}, LLDP_LINE.replace("Ethernet33/1", "Ethernet33/2"), LLDP_LINE),
    # the address (not in the kept text): the new one between the kept pieces
    ({"ipv4": "10.4.9.1/31"}, UPLINK_LINE.replace("10.4.8.1/31", "10.4.9.1/31"), UPLINK_LINE),
    # the peer's name
    ({"peer": "p1-spine9"}, LLDP_LINE.replace("p1-spine1", "p1-spine9"), LLDP_LINE),
])
def test_a_switch_that_differs_in_one_value_gets_its_own_lines(example: dict[str, DeviceConfig],
                                                               values: dict[str, object], line: str,
                                                               gone: str) -> None:
    _text(example, example[RAIL])  # the kept texts of the unchanged switch first
    text = _text(example, _changed(example[RAIL], **values))
    assert f"    {line},\n" in text
    assert gone not in text


def test_a_value_that_needs_escaping_takes_the_slow_path(example: dict[str, DeviceConfig]) -> None:
    # an address with a backslash and a peer name with quotes and a non-ASCII letter: orjson escapes the quote and
    # the backslash (\" and \\) and writes é as it is
    text = _text(example, _changed(example[RAIL], ipv4="10.4.8.1\\31", peer='p1-"spine"é'))
    assert '"ipv4":"10.4.8.1\\\\31"' in text
    assert '{"interface":"Ethernet33/1","neighbor":"p1-\\"spine\\"é","neighbor_interface":"Ethernet128",' in text
    st = orjson.loads(text)
    assert [i["ipv4"] for i in st["interfaces"] if i["name"] == UPLINK] == ["10.4.8.1\\31"]


def test_session_counts_leave_out_ibgp_and_unowned_addresses() -> None:
    # by hand: a (AS 65001) has, in one group, two sessions to b (AS 65002) and one whose address nobody holds; in a
    # second group an iBGP session to c (its own AS). b has one group, all eBGP. Counted: a→b 2 (not c: iBGP; not
    # the unowned one); b→a 1. The owners come back in the model's order, NOBODY for the unowned address.
    owners = {"10.0.0.0": ("a", "e0"), "10.0.0.1": ("b", "e0"), "10.0.0.2": ("a", "e1"), "10.0.0.3": ("b", "e1"),
              "10.0.0.4": ("a", "e2"), "10.0.0.5": ("c", "e0"), "10.0.0.6": ("a", "e3")}
    bgp: dict[str, Sessions] = {
        "a": (65001, (("SPINES", True, (("10.0.0.1", "10.0.0.0", 65002), ("10.0.0.3", "10.0.0.2", 65002),
                                         ("10.9.9.9", "10.0.0.6", 65003))),
                      ("PEER", False, (("10.0.0.5", "10.0.0.4", 65001),)))),
        "b": (65002, (("LEAVES", True, (("10.0.0.0", "10.0.0.1", 65001),)),)),
        "d": (65004, ()),
    }
    sessions, ends = _sessions(bgp, owners)
    assert sessions == {"a": {"b": 2}, "b": {"a": 1}, "d": {}}
    assert ends["a"] == ((("b", "e0"), ("b", "e1"), NOBODY, ("c", "e0")),
                         (("a", "e0"), ("a", "e1"), ("a", "e3"), ("a", "e2")))
    assert ends["b"] == ((("a", "e0"),), (("b", "e0"),))
    assert ends["d"] == ((), ())
