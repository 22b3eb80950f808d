"""The rail map's lines made column by column (railmap._fast_lines) and the rows of cells (railmap._rows) it falls
back to: a cell to quote, a formula character first and a NIC port without an address each take the slow path."""

from __future__ import annotations

from railfabric.outputs.railmap import railmap_files
from railfabric.outputs.views import Port, RailSubnet
from railfabric.topology import End, Link, LinkRole

HEAD = ["# railfabric host rail map v2",
        "host,gpu,nic,nic_port,rail,switch,switch_interface,vlan,address,gateway,mtu,bond,bond_mode"]


def _map(interface: str, with_second_address: bool = True, reverse: bool = False) -> list[str]:
    # two hosts 'h2' and 'h10' of one model (2 GPUs, one NIC each, one port); NIC n on rail n, switch 'r<n>', port
    # 1 lane (host number) of switch r<n>, named `interface` on r1 port 1 lane 2 and 'Ethernet<port>_<lane>' else
    links = [Link(f"h{h}:nic{n}p1", LinkRole.HOST, End(f"h{h}", 1, 0, 400), End(f"r{n}", 1, lane, 400), rail=n, nic=n)
             for lane, h in ((1, 2), (2, 10)) for n in (0, 1)]
    ports: dict[str, tuple[Port, ...]] = {
        f"r{n}": tuple((1, lane, interface if (n, lane) == (1, 2) else f"Ethernet1_{lane}", None, "x", "y", "host")
                       for lane in (1, 2)) for n in (0, 1)}
    # rail n: vlan 100 + n, 10.n.0.0/24, gateway 10.n.0.1; each NIC's address 10.n.0.(10 + host)
    subnets = {(f"r{n}", n): RailSubnet(100 + n, (10 << 24) | (n << 16), 24, (10 << 24) | (n << 16) | 1)
               for n in (0, 1)}
    addr = {lk.id: (10 << 24) | (lk.rail << 16) | (10 + int(lk.a.device[1:])) for lk in links}  # type: ignore[operator]
    if reverse:  # the links in another order than the rows': found by their ids
        links.reverse()
    if not with_second_address:
        del addr["h10:nic1p1"]
    text = railmap_files({"h10": "m", "h2": "m"}, {"m": (2, None, 1)}, links, addr, subnets, 9000, ports)
    return text["hosts/railmap.csv"].splitlines()


# h2 before h10 (digits as numbers), GPU 0 (NIC 0, rail 0) before GPU 1 (NIC 1, rail 1)
H2 = ["h2,0,0,1,0,r0,Ethernet1_1,100,10.0.0.12/24,10.0.0.1,9000,,",
      "h2,1,1,1,1,r1,Ethernet1_1,101,10.1.0.12/24,10.1.0.1,9000,,",
      "h10,0,0,1,0,r0,Ethernet1_2,100,10.0.0.20/24,10.0.0.1,9000,,"]


def test_plain_lines() -> None:
    assert _map("Ethernet1_2") == [*HEAD, *H2, "h10,1,1,1,1,r1,Ethernet1_2,101,10.1.0.20/24,10.1.0.1,9000,,"]


def test_an_interface_name_to_quote_or_escape_takes_the_rows_of_cells() -> None:
    # one switch port named with a comma: csv.writer quotes it; one starting with '=': textsafe escapes it with a
    # leading apostrophe (railfabric/core/textsafe.py)
    assert _map("Eth,1") == [*HEAD, *H2, 'h10,1,1,1,1,r1,"Eth,1",101,10.1.0.20/24,10.1.0.1,9000,,']
    assert _map("=1")[-1] == "h10,1,1,1,1,r1,'=1,101,10.1.0.20/24,10.1.0.1,9000,,"


def test_a_nic_port_without_an_address_has_no_row() -> None:
    assert _map("Ethernet1_2", with_second_address=False) == [*HEAD, *H2]


def test_links_in_another_order_are_found_by_id() -> None:
    assert _map("Ethernet1_2", reverse=True) == _map("Ethernet1_2")
    assert _map("Ethernet1_2", reverse=True)[-1] == "h10,1,1,1,1,r1,Ethernet1_2,101,10.1.0.20/24,10.1.0.1,9000,,"
