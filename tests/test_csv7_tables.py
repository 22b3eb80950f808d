"""The whole-fabric tables' C-pass helpers against the plain way, on cases built by hand (csv7)."""

from __future__ import annotations

from railfabric.core.address import cidr_key
from railfabric.outputs._common import csv_lines_plain, csv_text, format_template
from railfabric.outputs.expected import expected_from
from railfabric.outputs.ipplan import cidr_columns
from railfabric.outputs.state_index import _address_texts, _owners
from railfabric.outputs.views import Addresses


def test_address_texts_cuts_every_length() -> None:
    # /31 cut by replace, any other length (or none) by the regular expression, as partition("/")[0] does
    texts = ["10.0.0.0/31", "10.0.0.1/31", "10.0.0.4/30", "10.0.0.9", "1.2.3.4/31/7"]
    assert _address_texts(texts) == ["10.0.0.0", "10.0.0.1", "10.0.0.4", "10.0.0.9", "1.2.3.4"]
    assert _address_texts(["a\nb/31", "c/31"]) == ["a\nb", "c"]  # a line break inside a text: one at a time
    assert _address_texts([]) == []


def _addresses(mlag: tuple[str, str, int, str] | None, pcs: tuple[tuple[str, str], ...] = ()) -> Addresses:
    return Addresses("10.255.0.1/32", pcs, mlag, ())


def test_owners_order_and_mlag() -> None:
    routed = {"s1": (("Ethernet0", "10.0.0.0/31"),), "s2": (("Ethernet4", "10.0.0.1/31"),)}
    addresses = {"s1": _addresses(("Vlan4094", "10.9.0.0", 31, "s2"), (("PortChannel1", "10.0.1.0/31"),)),
                 "s2": _addresses(None)}
    assert _owners(routed, addresses) == {"10.0.0.0": ("s1", "Ethernet0"), "10.0.1.0": ("s1", "PortChannel1"),
                                          "10.9.0.0": ("s1", "Vlan4094"), "10.0.0.1": ("s2", "Ethernet4")}
    # s1's MLAG address is also s2's Ethernet4 address: s2 comes later, so its interface owns it (the plain order)
    addresses["s1"] = _addresses(("Vlan4094", "10.0.0.1", 31, "s2"))
    assert _owners(routed, addresses)["10.0.0.1"] == ("s2", "Ethernet4")
    # and the other way round: s2's MLAG address is s1's interface's, s2 is later: the MLAG interface owns it
    addresses["s1"] = _addresses(None)
    addresses["s2"] = _addresses(("Vlan4094", "10.0.0.0", 31, "s1"))
    assert _owners(routed, addresses)["10.0.0.0"] == ("s2", "Vlan4094")


def test_cidr_columns_fast_path_and_the_rest() -> None:
    # 10.0.0.1 = 10·2^24 + 1 = 167772161
    assert cidr_columns(["10.0.0.1/31", "10.0.0.0/31"]) == ([167772161, 167772160], [31, 31])
    mixed = ["10.0.0.1/31", "10.0.0.0/24", "10.0.0.7", "10.0.0.2/31"]
    assert cidr_columns(mixed) == ([cidr_key(t)[0] for t in mixed], [31, 24, 32, 31])
    # '/31' twice in one text: not the fast path (two '/'), cidr_key then refuses it as it always did
    try:
        cidr_columns(["10.0.0.1/31/31", "10.0.0.0"])
    except ValueError:
        pass
    else:
        raise AssertionError("a text with two lengths parsed")


def test_format_template_and_lines() -> None:
    assert format_template("a{b}", None, "c").format("x") == "a{b},x,c"
    head = "# t v1\na,b\n"
    assert csv_lines_plain("t v1", ("a", "b"), ["x,y", "1,2"]) == head + "x,y\n1,2\n"
    assert csv_lines_plain("t v1", ("a", "b"), []) == head
    # a cell holding a comma, a line break, a quote, or starting with a formula character: not plain
    for lines in (["x,y,z"], ["x,y\nz"], ['x,"y'], ["x,=y"], ["=x,y"]):
        assert csv_lines_plain("t v1", ("a", "b"), lines) is None, lines


def test_expected_falls_back_to_csv_text() -> None:
    # one session from s,1 (a comma in the name: quoted by csv.writer) to 10.0.0.1 (AS 65001), owned by t Ethernet0
    sessions = {"s,1": (65000, (("FABRIC", True, (("10.0.0.1", "10.0.0.0", 65001),)),))}
    ends = {"s,1": ((("t", "Ethernet0"),), (("s,1", "Ethernet0"),))}
    ports = {"s,1": ((1, 0, "Ethernet0", "10.0.0.0/31", "t", "=Ethernet0", "fabric"),)}
    files = expected_from(sessions, ports, ends)
    assert files["expected/bgp_sessions.csv"].splitlines()[2] == \
        '"s,1",Ethernet0,10.0.0.0,65000,10.0.0.1,65001,t,Ethernet0,FABRIC,yes'
    # the peer interface starting with '=' is escaped as textsafe does (csv_text)
    assert files["expected/lldp_neighbors.csv"] == csv_text(
        "railfabric expected lldp neighbors v1", ("device", "interface", "neighbor", "neighbor_interface", "role"),
        [("s,1", "Ethernet0", "t", "=Ethernet0", "fabric")])


def test_expected_orders_by_neighbour_address() -> None:
    # two groups, neighbours 10.0.0.9 then 10.0.0.3: the rows come out by address (3 before 9), braces kept
    groups = (("A", False, (("10.0.0.9", "10.0.0.8", 7),)), ("B", True, (("10.0.0.3", "10.0.0.2", 8),)))
    sessions = {"s{1}": (65000, groups)}
    ends = {"s{1}": ((("p", "E1"), ("q", "E2")), (("s{1}", "L1"), ("s{1}", "L2")))}
    text = expected_from(sessions, {"s{1}": ()}, ends)["expected/bgp_sessions.csv"]
    assert text.splitlines()[2:] == ["s{1},L2,10.0.0.2,65000,10.0.0.3,8,q,E2,B,yes",
                                     "s{1},L1,10.0.0.8,65000,10.0.0.9,7,p,E1,A,no"]
