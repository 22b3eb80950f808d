"""The cabling plan's lines (cabling._lines, in the rows' order by natural_order_by_heads) and the rows of cells
(cabling._rows) they fall back to when a cell needs quoting or escaping."""

from __future__ import annotations

from railfabric.outputs.cabling import cabling_files
from railfabric.outputs.views import Port
from railfabric.topology import End, Link, LinkRole

HEAD = ["# railfabric cabling plan v1",
        "link_id,role,rail,a_device,a_port,a_interface,a_rack,z_device,z_port,z_interface,z_rack,speed,bundle"]


def _plan(rack: str) -> list[str]:
    # host h10 NIC 0 port 1 on r1 port 1 lane 2; host h9 NIC 0 port 1 on r1 port 1 lane 1; r1 port 9 to s1 port 3
    # (bundle 'r1>s1#pc1'); the links given in another order than the plan's
    links = [Link("r1>s1#1", LinkRole.FABRIC, End("r1", 9, 0, 800), End("s1", 3, 0, 800), bundle="r1>s1#pc1"),
             Link("h10:nic0p1", LinkRole.HOST, End("h10", 1, 0, 400), End("r1", 1, 2, 400), rail=0, nic=0),
             Link("h9:nic0p1", LinkRole.HOST, End("h9", 1, 0, 400), End("r1", 1, 1, 400), rail=0, nic=0)]
    ports: dict[str, tuple[Port, ...]] = {
        "r1": ((1, 1, "Ethernet1", None, "h9", "nic0p1", "host"), (1, 2, "Ethernet2", None, "h10", "nic0p1", "host"),
               (9, 0, "Ethernet9", "10.0.0.0/31", "s1", "Ethernet3", "fabric")),
        "s1": ((3, 0, "Ethernet3", "10.0.0.1/31", "r1", "Ethernet9", "fabric"),)}
    return cabling_files(links, {"r1": rack, "s1": None}, ports)["cabling.csv"].splitlines()


# h9 < h10 (9 < 10), both before r1; host rows: the NIC port and NIC as a_port and a_interface, no a_rack; the
# switch ports' labels '1/1', '1/2' (lanes), '9' and '3' (no lane); speeds 400G and 800G
def _rows(rack: str) -> list[str]:
    return [*HEAD, f"h9:nic0p1,host,0,h9,nic0p1,nic0,,r1,1/1,Ethernet1,{rack},400G,",
            f"h10:nic0p1,host,0,h10,nic0p1,nic0,,r1,1/2,Ethernet2,{rack},400G,",
            f"r1>s1#1,fabric,,r1,9,Ethernet9,{rack},s1,3,Ethernet3,,800G,r1>s1#pc1"]


def test_plain_lines_in_natural_order() -> None:
    assert _plan("R1") == _rows("R1")


def test_a_rack_to_quote_or_escape_takes_the_rows_of_cells() -> None:
    # a rack with a comma: csv.writer quotes it; one starting with '@': textsafe escapes it with an apostrophe
    assert _plan("R,1") == _rows('"R,1"')
    assert _plan("@R") == _rows("'@R")
