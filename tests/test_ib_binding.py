"""Late GUID binding: a discovered fabric (ibnetdiscover's output, written here by hand in the form
infiniband-diags 44.0 prints, see railfabric/infiniband/discovery.py) matched to the plan by node description.

The plan: rail_fat_tree(hosts=1, rails=2, spines=1, ports=8):
  leaf-rail0[1] - dgx01 mlx5_0[1], leaf-rail0[2] - spine1[1], leaf-rail1[1] - dgx01 mlx5_1[1], leaf-rail1[2] -
  spine1[2]  (leaf port h+1 to host h, port hosts+1 = 2 to spine1; spine port r+1 to leaf r).
The GUIDs (made up, hardware-like): spine1 0xb83fd20300a1b2c0, leaf-rail0 ...b3c0, leaf-rail1 ...b4c0; HCA mlx5_0
node 0x0c42a10300aa0010 port ...0011, mlx5_1 node ...0020 port ...0021 (port GUIDs differ from node GUIDs, so a
mix-up shows).
"""

from __future__ import annotations

import pytest

from railfabric.infiniband.binding import bind
from railfabric.infiniband.build import rail_fat_tree
from railfabric.infiniband.discovery import ParseError, parse

SPINE, LEAF0, LEAF1 = "b83fd20300a1b2c0", "b83fd20300a1b3c0", "b83fd20300a1b4c0"
CA0, CA1 = "0c42a10300aa0010", "0c42a10300aa0020"
P0, P1 = "c42a10300aa0011", "c42a10300aa0021"  # ibnetdiscover prints port GUIDs without leading zeros


def discovered(rail0_hca: str = "0", leaf1_desc: str = "leaf-rail1") -> str:
    """ibnetdiscover's output; rail0_hca="1" crosses dgx01's two cables (mlx5_1 on leaf-rail0 port 1, mlx5_0 on
    leaf-rail1 port 1)."""
    a, b = (CA0, CA1) if rail0_hca == "0" else (CA1, CA0)
    pa, pb = (P0, P1) if rail0_hca == "0" else (P1, P0)
    da, db = ("dgx01 mlx5_0", "dgx01 mlx5_1") if rail0_hca == "0" else ("dgx01 mlx5_1", "dgx01 mlx5_0")
    return f"""#
# Topology file: generated on Sat Nov 28 14:35:42 2026
#
# Initiated from node {SPINE} port {SPINE}

vendid=0x2c9
devid=0xd2f0
sysimgguid=0x{SPINE}
switchguid=0x{SPINE}({SPINE})
Switch\t8 "S-{SPINE}"\t\t# "spine1" base port 0 lid 1 lmc 0
[1]\t"S-{LEAF0}"[2]\t\t# "leaf-rail0" lid 2 4xNDR
[2]\t"S-{LEAF1}"[2]\t\t# "{leaf1_desc}" lid 3 4xNDR

vendid=0x2c9
devid=0xd2f0
sysimgguid=0x{LEAF0}
switchguid=0x{LEAF0}({LEAF0})
Switch\t8 "S-{LEAF0}"\t\t# "leaf-rail0" base port 0 lid 2 lmc 0
[1]\t"H-{a}"[1]({pa}) \t\t# "{da}" lid 4 4xNDR
[2]\t"S-{SPINE}"[1]\t\t# "spine1" lid 1 4xNDR

vendid=0x2c9
devid=0xd2f0
sysimgguid=0x{LEAF1}
switchguid=0x{LEAF1}({LEAF1})
Switch\t8 "S-{LEAF1}"\t\t# "{leaf1_desc}" base port 0 lid 3 lmc 0
[1]\t"H-{b}"[1]({pb}) \t\t# "{db}" lid 5 4xNDR
[2]\t"S-{SPINE}"[2]\t\t# "spine1" lid 1 4xNDR

vendid=0x2c9
devid=0x1021
sysimgguid=0x{CA0}
caguid=0x{CA0}
Ca\t1 "H-{CA0}"\t\t# "dgx01 mlx5_0"
[1]({P0}) \t"S-{LEAF0 if a == CA0 else LEAF1}"[1]\t\t# lid 4 lmc 0 "leaf" lid 2 4xNDR

vendid=0x2c9
devid=0x1021
sysimgguid=0x{CA1}
caguid=0x{CA1}
Ca\t1 "H-{CA1}"\t\t# "dgx01 mlx5_1"
[1]({P1}) \t"S-{LEAF1 if b == CA1 else LEAF0}"[1]\t\t# lid 5 lmc 0 "leaf" lid 3 4xNDR
"""


@pytest.fixture
def fab():
    return rail_fat_tree("mini", hosts=1, rails=2, spines=1, ports=8)


def test_parse() -> None:
    d = parse(discovered())
    assert {n.desc: (n.kind, n.ports) for n in d.nodes.values()} == {
        "spine1": ("Switch", 8), "leaf-rail0": ("Switch", 8), "leaf-rail1": ("Switch", 8),
        "dgx01 mlx5_0": ("Ca", 1), "dgx01 mlx5_1": ("Ca", 1)}
    assert d.nodes[int(CA1, 16)].port_guids == {1: 0x0C42A10300AA0021}
    assert d.nodes[int(SPINE, 16)].port_guids == {0: 0xB83FD20300A1B2C0}
    # 4 cables, each seen from both ends
    assert len(d.links) == 8
    assert d.links[(int(LEAF1, 16), 2)] == (int(SPINE, 16), 2)


def test_bind_as_planned(fab) -> None:
    res = bind(fab, parse(discovered()))
    assert res.differences == ()
    assert res.binding is not None
    assert res.binding.node_guids["leaf-rail1"] == 0xB83FD20300A1B4C0
    assert res.binding.port_guids == {"dgx01 mlx5_0": 0x0C42A10300AA0011, "dgx01 mlx5_1": 0x0C42A10300AA0021}
    # roots = the spines (no cores) by node GUID; compute nodes = HCA port GUIDs, plan order
    assert res.binding.root_file(fab) == "# roots of mini\n0xb83fd20300a1b2c0 spine1\n"
    assert res.binding.cn_file(fab) == ("# compute nodes of mini\n0x0c42a10300aa0011 dgx01 mlx5_0\n"
                                        "0x0c42a10300aa0021 dgx01 mlx5_1\n")


def test_miswire_names_both_cables(fab) -> None:
    res = bind(fab, parse(discovered(rail0_hca="1")))
    assert res.binding is None
    assert res.differences == (
        "cable leaf-rail0[1] - dgx01 mlx5_0[1] is missing: leaf-rail0[1] goes to dgx01 mlx5_1[1], "
        "dgx01 mlx5_0[1] goes to leaf-rail1[1]",
        "cable leaf-rail1[1] - dgx01 mlx5_1[1] is missing: leaf-rail1[1] goes to dgx01 mlx5_0[1], "
        "dgx01 mlx5_1[1] goes to leaf-rail0[1]",
        "cable dgx01 mlx5_0[1] - leaf-rail1[1] is discovered but not planned",
        "cable dgx01 mlx5_1[1] - leaf-rail0[1] is discovered but not planned",
    )


def test_a_switch_without_its_planned_name(fab) -> None:
    # leaf-rail1 still carries the factory node description: it and both its cables are named
    odd = "MF0;sw:MQM9700/U1"
    res = bind(fab, parse(discovered(leaf1_desc=odd)))
    assert res.binding is None
    assert res.differences == (
        "switch leaf-rail1 is planned but was not discovered (no node describes itself 'leaf-rail1')",
        f"Switch 0xb83fd20300a1b4c0 '{odd}' was discovered but is not planned",
        f"cable leaf-rail1[1] - dgx01 mlx5_1[1] is missing: leaf-rail1[1] is not discovered, dgx01 mlx5_1[1] goes "
        f"to '{odd}' 0xb83fd20300a1b4c0[1]",
        f"cable leaf-rail1[2] - spine1[2] is missing: leaf-rail1[2] is not discovered, spine1[2] goes to '{odd}' "
        "0xb83fd20300a1b4c0[2]",
        f"cable '{odd}' 0xb83fd20300a1b4c0[1] - dgx01 mlx5_1[1] is discovered but not planned",
        f"cable '{odd}' 0xb83fd20300a1b4c0[2] - spine1[2] is discovered but not planned",
    )


def test_a_missing_hca(fab) -> None:
    # dgx01 mlx5_1 and its cable are absent from discovery (the HCA block and the leaf's port line removed)
    text = discovered()
    text = text[: text.rindex("vendid=0x2c9\ndevid=0x1021\nsysimgguid=0x" + CA1)]
    text = "\n".join(line for line in text.splitlines() if f"H-{CA1}" not in line) + "\n"
    res = bind(fab, parse(text))
    assert res.differences == (
        "HCA dgx01 mlx5_1 is planned but was not discovered (no node describes itself 'dgx01 mlx5_1')",
        "cable leaf-rail1[1] - dgx01 mlx5_1[1] is missing: leaf-rail1[1] has no link, dgx01 mlx5_1[1] is not "
        "discovered",
    )


def test_duplicate_descriptions(fab) -> None:
    # both leaves describe themselves leaf-rail0 (node differences come in plan order: leaf-rail0 first)
    res = bind(fab, parse(discovered(leaf1_desc="leaf-rail0")))
    assert res.differences[:2] == (
        "2 discovered nodes describe themselves 'leaf-rail0': 0xb83fd20300a1b3c0, 0xb83fd20300a1b4c0",
        "switch leaf-rail1 is planned but was not discovered (no node describes itself 'leaf-rail1')",
    )


def test_a_link_seen_from_one_end_only() -> None:
    # leaf-rail1 says its port 2 goes to spine1[7]; spine1 (first in the file) says its port 2 goes to leaf-rail1[2]:
    # the first link checked, in file order, is spine1's
    text = discovered().replace(f'[2]\t"S-{SPINE}"[2]', f'[2]\t"S-{SPINE}"[7]')
    with pytest.raises(ParseError, match=r"link 0xb83fd20300a1b2c0\[2\] -> 0xb83fd20300a1b4c0\[2\] is not reported"):
        parse(text)
