"""The route checks on forwarding tables written by hand in dump_fts's form (railfabric/infiniband/routes.py).

Fabric: rail_fat_tree(hosts=2, rails=2, spines=2, ports=8):
  leaf-rail<r>: port 1 dgx01 mlx5_<r>, port 2 dgx02 mlx5_<r>, port 3 spine1, port 4 spine2; spine<s>: port r+1 to
  leaf-rail<r>.
GUIDs and LIDs (chosen): spine1 0x200000, spine2 0x200001, leaf-rail0 0x200002, leaf-rail1 0x200003;
  HCA port GUIDs / LIDs: dgx01 mlx5_0 0x100001 / 5, dgx01 mlx5_1 0x100003 / 6, dgx02 mlx5_0 0x100005 / 7,
  dgx02 mlx5_1 0x100007 / 8.
Good tables: leaf-rail0 5->1, 7->2 (local), 6->3 (spine1), 8->4 (spine2); leaf-rail1 6->1, 8->2, 5->3, 7->4;
  both spines: 5, 7 -> port 1 (leaf-rail0), 6, 8 -> port 2 (leaf-rail1).
So each leaf sends its 2 remote HCAs one over each spine: "spine1 (port 3) 1, spine2 (port 4) 1".
"""

from __future__ import annotations

from railfabric.infiniband.build import rail_fat_tree
from railfabric.infiniband.routes import check_routes, parse_dump_fts

FAB = rail_fat_tree("mini", hosts=2, rails=2, spines=2, ports=8)
NODE = {"spine1": 0x200000, "spine2": 0x200001, "leaf-rail0": 0x200002, "leaf-rail1": 0x200003}
PORT = {"dgx01 mlx5_0": 0x100001, "dgx01 mlx5_1": 0x100003, "dgx02 mlx5_0": 0x100005, "dgx02 mlx5_1": 0x100007}
LID = {"dgx01 mlx5_0": 5, "dgx01 mlx5_1": 6, "dgx02 mlx5_0": 7, "dgx02 mlx5_1": 8}
GOOD = {
    "leaf-rail0": {5: 1, 7: 2, 6: 3, 8: 4},
    "leaf-rail1": {6: 1, 8: 2, 5: 3, 7: 4},
    "spine1": {5: 1, 7: 1, 6: 2, 8: 2},
    "spine2": {5: 1, 7: 1, 6: 2, 8: 2},
}


def dump(tables: dict[str, dict[int, int]]) -> str:
    """dump_fts's text for the tables (its header and entry lines, infiniband-diags 44.0)."""
    by_lid = {lid: name for name, lid in LID.items()}
    out: list[str] = []
    for sw, lft in tables.items():
        out += [f"Unicast lids [0x0-0x8] of switch DR path slid 0; dlid 0; 0,1 guid {NODE[sw]:#018x} ({sw}):",
                "  Lid  Out   Destination", "       Port     Info "]
        out += [f"0x{lid:04x} {port:03d} : (Channel Adapter portguid {PORT[by_lid[lid]]:#018x}: '{by_lid[lid]}')"
                for lid, port in sorted(lft.items())]
        out.append(f"{len(lft)} valid lids dumped ")
    return "\n".join(out) + "\n"


def checks(tables: dict[str, dict[int, int]]) -> dict[str, tuple[bool, str]]:
    return {c.name: (c.ok, c.detail) for c in check_routes(FAB, NODE, PORT, parse_dump_fts(dump(tables)))}


def test_parse_dump_fts() -> None:
    t = parse_dump_fts(dump(GOOD))
    assert t.lft[0x200002] == {5: 1, 7: 2, 6: 3, 8: 4}
    assert t.lids == {0x100001: 5, 0x100003: 6, 0x100005: 7, 0x100007: 8}


def test_good_tables() -> None:
    assert checks(GOOD) == {
        "routable": (True, "12 of 12 HCA pairs routed"),  # 4 HCAs, 4*3 ordered pairs
        "up-down": (True, "12 of 12 paths go up then down"),
        "rail-local": (True, "HCA pairs on one leaf stay on it"),
        "spread": (True, "leaf-rail0: spine1 1, spine2 1 (1-1 per uplink port); "
                         "leaf-rail1: spine1 1, spine2 1 (1-1 per uplink port)"),
    }


def test_uneven_spread() -> None:
    # leaf-rail0 sends LID 8 up to spine1 too: both remote HCAs over port 3, none over port 4
    bad = {**GOOD, "leaf-rail0": {5: 1, 7: 2, 6: 3, 8: 3}}
    ok, detail = checks(bad)["spread"]
    assert not ok
    assert detail == ("leaf-rail0: spine1 2, spine2 0 (0-2 per uplink port) UNEVEN; "
                      "leaf-rail1: spine1 1, spine2 1 (1-1 per uplink port)")


def test_a_remote_destination_sent_down() -> None:
    # leaf-rail0 sends LID 8 (dgx02 mlx5_1, on leaf-rail1) out of port 2, to dgx02 mlx5_0: not up, not routable
    bad = {**GOOD, "leaf-rail0": {5: 1, 7: 2, 6: 3, 8: 2}}
    got = checks(bad)
    assert got["spread"] == (False, "leaf-rail0: spine1 1, spine2 0 (0-1 per uplink port, 1 not up) UNEVEN; "
                                    "leaf-rail1: spine1 1, spine2 1 (1-1 per uplink port)")
    assert got["routable"] == (False, "10 of 12 HCA pairs routed; 2 not: "
                                      "dgx01 mlx5_0 -> dgx02 mlx5_1: reaches dgx02 mlx5_0 instead; "
                                      "dgx02 mlx5_0 -> dgx02 mlx5_1: reaches dgx02 mlx5_0 instead")


def test_missing_route() -> None:
    # leaf-rail0 has no entry for LID 6: the two HCAs on leaf-rail0 cannot reach dgx01 mlx5_1
    bad = {**GOOD, "leaf-rail0": {5: 1, 7: 2, 8: 4}}
    assert checks(bad)["routable"] == (False, "10 of 12 HCA pairs routed; 2 not: "
                                       "dgx01 mlx5_0 -> dgx01 mlx5_1: leaf-rail0 has no route to LID 0x6; "
                                       "dgx02 mlx5_0 -> dgx01 mlx5_1: leaf-rail0 has no route to LID 0x6")


def test_a_loop() -> None:
    # spine1 sends LID 5 back down to leaf-rail1, which sends it up to spine1 again: the two HCAs on leaf-rail1
    # loop (dgx01 mlx5_1 and dgx02 mlx5_1 -> dgx01 mlx5_0); 16 switches are followed before giving up
    bad = {**GOOD, "spine1": {5: 2, 7: 1, 6: 2, 8: 2}}
    ok, detail = checks(bad)["routable"]
    assert not ok
    assert detail == ("10 of 12 HCA pairs routed; 2 not: "
                      "dgx01 mlx5_1 -> dgx01 mlx5_0: loops (leaf-rail1 spine1 leaf-rail1 spine1 leaf-rail1 spine1 "
                      "...); dgx02 mlx5_1 -> dgx01 mlx5_0: loops (leaf-rail1 spine1 leaf-rail1 spine1 leaf-rail1 "
                      "spine1 ...)")



def test_local_pair_sent_up_loops() -> None:
    # leaf-rail0 sends LID 7 (dgx02 mlx5_0, on leaf-rail0 itself) up to spine1, which sends it back down; with one
    # table entry per destination leaf-rail0 sends it up again: a same-leaf pair cannot leave its leaf and come back
    # (the rail-local check matters where a rail spans several leaves), so it shows as a loop, from dgx01 mlx5_0
    # and from the two HCAs on leaf-rail1 (which reach leaf-rail0 through the spines: 7 -> port 4, spine2 -> port 1)
    bad = {**GOOD, "leaf-rail0": {5: 1, 7: 3, 6: 3, 8: 4}}
    ok, detail = checks(bad)["routable"]
    assert not ok
    assert detail.startswith("9 of 12 HCA pairs routed; 3 not: dgx01 mlx5_0 -> dgx02 mlx5_0: loops (leaf-rail0 "
                             "spine1 leaf-rail0 spine1 leaf-rail0 spine1 ...); dgx01 mlx5_1 -> dgx02 mlx5_0: loops")
