"""`fabric verify`: each host NIC checked against its rail switch port (railfabric/verify/checks_hosts.py).

The fabric is tests/test_verify.py's MIXED one (segment 1 on EOS, segment 2 on SONiC, 4 hosts of 2 one-port NICs
per segment: 16 NIC ports). Host side, derived by hand: p1-s2-gpu001 NIC r is 172.16.(8 + r).2/24 (segment 2 owns
the second /21, 172.16.8.0/21; rail r its r-th /24; host 1 = gateway + 1) in VLAN 100 + r, on p1-s2-rail<r>
Ethernet0 (port 1, lane 1 of its 2x400G breakout); its netplan routes through 172.16.(8 + r).1. The group's roce.sh
maps DSCP 26 → 3 and 48 → 6, PFC on 3, CNP DSCP 48 on priority 6; the switch ports map DSCP 26 → TC 3 and 48 →
TC 6, PFC on 3, queue 6 strict. Each test breaks one thing in a copy of the rendered tree by hand.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from railfabric.verify import verify
from tests.test_verify import rendered  # noqa: F401  (the module-scoped render of the MIXED fabric)

GROUP2 = "hosts/_groups/p1-s2-h1/roce.sh"


@pytest.fixture()
def gen(rendered: Path, tmp_path: Path) -> Path:  # noqa: F811
    shutil.copytree(rendered / "raw", tmp_path / "gen")
    return tmp_path / "gen"


def _edit(gen: Path, rel: str, old: str, new: str, count: int = 1) -> None:
    path = gen / rel
    text = path.read_text()
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, count))


def _host_failures(gen: Path) -> list[tuple[str, str, str, str, str]]:
    result = verify(gen, frr_parser=False)
    return [(f.check, f.device, f.subject, f.expected, f.found) for f in result.failures
            if f.check.startswith("host-")]


def test_the_render_keeps_every_host_promise(gen: Path) -> None:
    result = verify(gen, frr_parser=False)
    assert result.ok, [f.line() for f in result.failures]
    assert result.counts["host_nic_ports"] == 16  # 2 segments × 4 hosts × 2 NICs


def test_a_host_dscp_map_that_differs_from_its_switch(gen: Path) -> None:
    # the SONiC segment's group marks RoCE DSCP 26 on priority 4: every NIC of its 4 hosts disagrees with its port
    _edit(gen, GROUP2, "dscp-prio 26:3 48:6", "dscp-prio 26:4 48:6", count=2)
    found = _host_failures(gen)
    assert len(found) == 8
    assert {(c, e, f) for c, _d, _s, e, f in found} == {
        ("host-qos", "DSCP→priority 26→3 as at p1-s2-rail0 Ethernet0", "26→4"),
        ("host-qos", "DSCP→priority 26→3 as at p1-s2-rail1 Ethernet0", "26→4"),
        ("host-qos", "DSCP→priority 26→3 as at p1-s2-rail0 Ethernet8", "26→4"),
        ("host-qos", "DSCP→priority 26→3 as at p1-s2-rail1 Ethernet8", "26→4"),
        ("host-qos", "DSCP→priority 26→3 as at p1-s2-rail0 Ethernet4", "26→4"),
        ("host-qos", "DSCP→priority 26→3 as at p1-s2-rail1 Ethernet4", "26→4"),
        ("host-qos", "DSCP→priority 26→3 as at p1-s2-rail0 Ethernet12", "26→4"),
        ("host-qos", "DSCP→priority 26→3 as at p1-s2-rail1 Ethernet12", "26→4"),
    }, found


def test_pfc_and_cnp_of_a_host(gen: Path) -> None:
    # nic0 of the group: PFC moved to 4, CNP sent with DSCP 46 (the switch maps 46 to nothing lossless or strict)
    _edit(gen, GROUP2, "dcb pfc set dev nic0 prio-pfc all:off 3:on", "dcb pfc set dev nic0 prio-pfc all:off 4:on")
    _edit(gen, GROUP2, "/sys/class/net/nic0/ecn/roce_np/cnp_dscp 48", "/sys/class/net/nic0/ecn/roce_np/cnp_dscp 46")
    found = [x for x in _host_failures(gen) if x[1] == "p1-s2-gpu001"]
    pfc = [x for x in found if x[3].startswith("PFC")]
    cnp = [x for x in found if x[3].startswith("CNP")]
    assert [(x[3], x[4]) for x in pfc] == [("PFC on {3} as at p1-s2-rail0 Ethernet0", "{4}")]
    assert [x[3] for x in cnp] == ["CNP DSCP 46 on priority 6, strict at p1-s2-rail0 Ethernet0"]
    assert cnp[0][4].startswith("p1-s2-rail0 Ethernet0 maps DSCP 46 to ")


def test_host_mtu_above_the_switch_port(gen: Path) -> None:
    # p1-s2-gpu001 nic0 at 9300: above the SONiC port's 9214 (fabric.mtu of the MIXED fabric)
    _edit(gen, "hosts/p1-s2-gpu001/netplan.yaml", "mtu: 9000", "mtu: 9300")
    found = _host_failures(gen)
    assert [(c, d, e, f) for c, d, _s, e, f in found] == [
        ("host-mtu", "p1-s2-gpu001", "an MTU within p1-s2-rail0 Ethernet0's 9214", "9300"),
        ("host-mtu", "p1-s2-gpu001", "an MTU within p1-s2-rail0 Vlan100's 9214", "9300")]


def test_host_gateway_and_rule(gen: Path) -> None:
    # gpu002 nic1 routes (its one route via a gateway: the pool) through rail 0's gateway; gpu003 nic0's `from` rule
    # points at table 999, not its own 101
    _edit(gen, "hosts/p1-s2-gpu002/netplan.yaml", "via: 172.16.9.1", "via: 172.16.8.1")
    _edit(gen, "hosts/p1-s2-gpu003/netplan.yaml", "priority: 101\n          table: 101\n",
          "priority: 101\n          table: 999\n")
    found = _host_failures(gen)
    gw = [x for x in found if x[0] == "host-gateway"]
    assert [(d, e, f) for _c, d, _s, e, f in gw] == [
        ("p1-s2-gpu002", "routes only via 172.16.9.1 (p1-s2-rail1 Vlan101)", "172.16.8.1")]
    assert any(c == "host-nic" and d == "p1-s2-gpu003" and "a rule from 172.16.8.4" in e for c, d, _s, e, _f in found)


def test_a_nic_off_its_planned_rail(gen: Path) -> None:
    # gpu004 nic0 readdressed into rail 1's subnet: the planned address is on no interface of the host any more;
    # railmap.csv: title, header, 8 rows of segment 1, then segment 2 host by host, NIC by NIC: 2 + 8 + 6 + 1 = 17
    _edit(gen, "hosts/p1-s2-gpu004/netplan.yaml", "- 172.16.8.5/24", "- 172.16.9.50/24")
    found = _host_failures(gen)
    assert [(c, d, e, f) for c, d, _s, e, f in found] == [
        ("host-nic", "p1-s2-gpu004", "an interface with 172.16.8.5/24 (hosts/railmap.csv:17)", "none")]
