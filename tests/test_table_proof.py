"""The IP plan's proof of plain cells from their distinct values (railfabric/outputs/_common.plain_values) and its host
rows made column by column: one odd value takes the searched text or the rows of cells, with the exact rows."""

from __future__ import annotations

from railfabric.core.address import aton
from railfabric.outputs._common import plain_values
from railfabric.outputs.expected import expected_from
from railfabric.outputs.ipplan import PlanAddresses, ipplan_files
from railfabric.outputs.views import Addresses, RailSubnet
from railfabric.topology import Link, LinkRole
from railfabric.topology.model import End


def test_plain_values_passes_only_cells_csv_text_writes_unchanged() -> None:
    # names, an empty cell, numbers and None as '{}' writes them ('7', 'None')
    assert plain_values(["p1-s1-rail0", "Ethernet1/1", "", 7, None, "rail 0 vlan 100 via "])
    assert plain_values([])
    # each refused alone: a comma, a line break, a quote, a control character, non-ASCII, formula characters first
    # (a negative number too: stricter than csv_text, which escapes text only), a separator of the plain lines
    for odd in ("a,b", "a\nb", 'a"b', "a\tb", "é", "=1", "+x", "-1", -1, "@a", "a\x1fb"):
        assert not plain_values(["p1-s1-rail0", odd]), odd
    assert plain_values(["a-1", "x=2"])  # a formula character inside a cell is plain


def _host_plan(second_host: str) -> list[str]:
    # two host links, NIC 0 of h1 on sw1 (rail 0, VLAN 100, 172.16.0.0/24) and NIC 1 of the second host on sw2
    # (rail 1, VLAN 101, 172.16.1.0/24), each NIC port 1; a third link without an address (no row); one pool
    # rail_subnets 172.16.0.0/16; no switches
    links = [Link("l1", LinkRole.HOST, End("h1", 1, 0, 400), End("sw1", 5, 0, 400), rail=0, nic=0),
             Link("l2", LinkRole.HOST, End(second_host, 1, 0, 400), End("sw2", 5, 0, 400), rail=1, nic=1),
             Link("l3", LinkRole.HOST, End("h3", 1, 0, 400), End("sw1", 6, 0, 400), rail=0, nic=0)]
    subnets = {("sw1", 0): RailSubnet(100, aton("172.16.0.0"), 24, aton("172.16.0.1")),
               ("sw2", 1): RailSubnet(101, aton("172.16.1.0"), 24, aton("172.16.1.1"))}
    plan = PlanAddresses(pools=(("rail_subnets", aton("172.16.0.0"), 16),), blocks=(), management_gateway=None,
                         management_len=24, host_addr={"l1": aton("172.16.0.16"), "l2": aton("172.16.1.16")})
    return ipplan_files(plan, {}, {}, {}, {}, links, subnets)["ipplan.csv"].splitlines()


def test_host_rows_column_by_column() -> None:
    # by address: the pool 172.16.0.0/16, then h1's 172.16.0.16 in sw1's /24, then h2's 172.16.1.16 in sw2's /24;
    # the interface is nic<NIC>p<port>, the detail 'rail <rail> vlan <vlan> via <switch>'
    assert _host_plan("h2")[2:] == ["172.16.0.0/16,,,pool,rail_subnets,",
                                    "172.16.0.16/24,h1,nic0p1,host,rail_subnets,rail 0 vlan 100 via sw1",
                                    "172.16.1.16/24,h2,nic1p1,host,rail_subnets,rail 1 vlan 101 via sw2"]


def test_a_host_name_to_escape_or_quote_takes_the_rows_of_cells() -> None:
    # '=h2' starts a formula: the cell gets textsafe's apostrophe; 'h,2' holds a comma: csv.writer quotes it
    assert _host_plan("=h2")[4] == "172.16.1.16/24,'=h2,nic1p1,host,rail_subnets,rail 1 vlan 101 via sw2"
    assert _host_plan("h,2")[4] == '172.16.1.16/24,"h,2",nic1p1,host,rail_subnets,rail 1 vlan 101 via sw2'


def test_a_routed_interface_to_escape_takes_the_rows_of_cells() -> None:
    # s1's '-e1' holds 10.0.0.0/31, s2's e2 holds 10.0.0.1/31: each end names the other as 'peer <device>
    # <interface>'; only the cell that starts with '-' is escaped (the detail starts with 'p'); then the loopbacks
    # 10.1.0.1, 10.1.0.2 and the management addresses 192.168.0.1, .2 on sonic's Loopback0 and eth0
    plan = PlanAddresses(pools=(), blocks=(), management_gateway=None, management_len=24, host_addr={})
    devices = {n: Addresses(f"10.1.0.{i}/32", (), None, ()) for i, n in enumerate(("s1", "s2"), 1)}
    access = {"s1": ("sonic", "192.168.0.1/24"), "s2": ("sonic", "192.168.0.2/24")}
    routed = {"s1": (("-e1", "10.0.0.0/31"),), "s2": (("e2", "10.0.0.1/31"),)}
    text = ipplan_files(plan, devices, {"s1": (), "s2": ()}, access, routed, [], {})["ipplan.csv"]
    assert text.splitlines()[2:] == ["10.0.0.0/31,s1,'-e1,p2p,,peer s2 e2", "10.0.0.1/31,s2,e2,p2p,,peer s1 -e1",
                                     "10.1.0.1/32,s1,Loopback0,loopback,,", "10.1.0.2/32,s2,Loopback0,loopback,,",
                                     "192.168.0.1/24,s1,eth0,management,,", "192.168.0.2/24,s2,eth0,management,,"]


def _bgp_lines(first_group: str) -> list[str]:
    # one switch 's{1}' (AS 65001, a brace in its name: written as it is) with two peer groups: first_group (BFD)
    # with 10.0.0.1 (AS 65002, s2 e2) from its e1 at 10.0.0.0, and g1 (no BFD) with 10.0.0.3 (AS 65003, s3 e3)
    # from its e4 at 10.0.0.2; rows by neighbour address: 10.0.0.1, then 10.0.0.3
    sessions = {"s{1}": (65001, ((first_group, True, (("10.0.0.1", "10.0.0.0", 65002),)),
                                 ("g1", False, (("10.0.0.3", "10.0.0.2", 65003),))))}
    ends = {"s{1}": ((("s2", "e2"), ("s3", "e3")), (("s{1}", "e1"), ("s{1}", "e4")))}
    return expected_from(sessions, {"s{1}": ()}, ends)["expected/bgp_sessions.csv"].splitlines()[2:]


def test_session_rows_from_a_template_per_group() -> None:
    assert _bgp_lines("g{0}") == ["s{1},e1,10.0.0.0,65001,10.0.0.1,65002,s2,e2,g{0},yes",
                                  "s{1},e4,10.0.0.2,65001,10.0.0.3,65003,s3,e3,g1,no"]
    # a group starting a formula: textsafe's apostrophe, through the rows of cells
    assert _bgp_lines("=g")[0] == "s{1},e1,10.0.0.0,65001,10.0.0.1,65002,s2,e2,'=g,yes"
