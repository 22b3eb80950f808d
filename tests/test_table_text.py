"""The whole-fabric tables' fast text paths (railfabric/outputs/_common.plain_cells, the IP plan's lines) write exactly
what csv.writer and the escaping of railfabric/core/textsafe.py write."""

from __future__ import annotations

import pytest

from railfabric.outputs import Sources
from railfabric.outputs._common import csv_text, plain_cells
from railfabric.outputs.ipplan import PlanAddresses, _plan_text, ipplan_files
from railfabric.outputs.views import Addresses
from tests.helpers import EXAMPLE


def test_plain_cells_refuses_what_csv_writer_or_textsafe_would_change() -> None:
    assert plain_cells("p1-s1,Ethernet1/1\nx,10.0.0.0/31", ",\n")
    assert plain_cells("a\x1fb\x1ec", "\x1f\x1e")
    assert plain_cells("", ",\n")
    # a quote, a carriage return, a tab, another control character, a non-ASCII letter
    for text in ('a,"b', "a\r", "a\tb", "a\x01", "é"):
        assert not plain_cells(text, ",\n"), text
    # a comma or a line break that is not a separator (cells joined with \x1f and \x1e)
    assert not plain_cells("a,b\x1fc", "\x1f\x1e")
    assert not plain_cells("a\nb\x1fc", "\x1f\x1e")
    # formula characters first in the text, after a separator, but not inside a cell
    for text in ("=1,a", "a,+1", "a\n-1", "a,@x"):
        assert not plain_cells(text, ",\n"), text
    assert plain_cells("a-1,x=2,b+c@d", ",\n")


def _one_prefix_on_two_owners(first: str, second: str) -> str:
    # two switches with the same BGP summary 10.9.0.0/16 and their own loopbacks and management addresses; no
    # pools (so no pool column), no links
    plan = PlanAddresses(pools=(), blocks=(), management_gateway=None, management_len=24, host_addr={})
    devices = {n: Addresses(f"10.0.0.{i}/32", (), None, ("10.9.0.0/16",)) for i, n in enumerate((first, second), 1)}
    access = {first: ("sonic", "192.168.0.1/24"), second: ("sonic", "192.168.0.2/24")}
    return ipplan_files(plan, devices, {first: (), second: ()}, access, {first: (), second: ()}, [], {})["ipplan.csv"]


def test_the_same_prefix_on_two_owners_sorts_by_its_cells() -> None:
    # by address: 10.0.0.1, 10.0.0.2 (loopbacks), 10.9.0.0/16 twice (ties: by the row's cells, so owner 's1'
    # before 's1+x': a prefix first, although '+' (0x2b) sorts before ',' (0x2c) in the joined text), then the
    # management addresses 192.168.0.1 and .2
    text = _one_prefix_on_two_owners("s1+x", "s1")
    lines = text.splitlines()
    assert lines[:2] == ["# railfabric ip plan v1", "address,owner,interface,purpose,pool,detail"]
    assert [line.split(",")[:2] for line in lines[2:]] == [
        ["10.0.0.1/32", "s1+x"], ["10.0.0.2/32", "s1"], ["10.9.0.0/16", "s1"], ["10.9.0.0/16", "s1+x"],
        ["192.168.0.1/24", "s1+x"], ["192.168.0.2/24", "s1"]]
    assert lines[4] == "10.9.0.0/16,s1,,aggregate,,BGP summary-only"


def test_a_cell_to_quote_takes_the_rows_of_cells() -> None:
    # an owner holding a comma (never in a valid inventory): the plan is csv.writer's, the cell quoted
    text = _one_prefix_on_two_owners("s,1", "s2")
    assert '"s,1"' in text
    rows = [line for line in text.splitlines()[2:] if "aggregate" in line]
    assert rows == ['10.9.0.0/16,"s,1",,aggregate,,BGP summary-only', "10.9.0.0/16,s2,,aggregate,,BGP summary-only"]
    assert text.startswith(csv_text("railfabric ip plan v1", ("address", "owner", "interface", "purpose", "pool",
                                                                 "detail"), []))


@pytest.fixture(scope="module")
def example_sources() -> Sources:
    from railfabric.device import build_devices
    from railfabric.pipeline import run

    res = run(EXAMPLE)
    return Sources(res.inventory, res.topology, res.plan, build_devices(res.inventory, res.topology, res.plan))


def test_the_ip_plan_lines_and_rows_of_cells_write_the_same_text(example_sources: Sources) -> None:
    src = example_sources
    args = (src.plan_addresses, src.addresses, src.vlans, src.access, src.routed, src.topo.links, src.rail_subnets)
    plain = _plan_text(*args, plain=True)
    assert plain is not None and plain == _plan_text(*args, plain=False)
    assert plain == (EXAMPLE.parent / "generated" / "ipplan.csv").read_text(encoding="utf-8")
