"""railfabric/device/routing.py: peer groups, pod summaries and the Bgp record, values derived by hand."""

from __future__ import annotations

from pathlib import Path

from railfabric.core.address import aton
from railfabric.device.routing import (
    Neighbor,
    build_bgp,
    group_of,
    peer_groups,
    peer_groups_keyed,
    pod_aggregates,
)
from railfabric.topology import Role
from tests.helpers import base_inventory, run_data


def test_group_names() -> None:
    assert group_of(Role.RAIL, Role.SPINE) == "SPINES"
    assert group_of(Role.SPINE, Role.RAIL) == "RAIL-SWITCHES"
    assert group_of(Role.SPINE, Role.SUPER_SPINE) == "SUPER-SPINES"
    assert group_of(Role.SUPER_SPINE, Role.SPINE) == "SPINES"
    assert group_of(Role.RAIL, Role.RAIL) == "MLAG-PEER"


def test_peer_groups_order_and_shared_as() -> None:
    # neighbors sorted numerically (10.0.0.9 before 10.0.0.10), super-spine group first, remote-as on the group
    # only when every neighbor shares it
    up = [Neighbor("10.0.0.10", 65001, "ss2", "10.0.0.11"), Neighbor("10.0.0.9", 65001, "ss1", "10.0.0.8")]
    down = [Neighbor("10.1.0.1", 65101, "r0", "10.1.0.0"), Neighbor("10.1.0.3", 65102, "r1", "10.1.0.2")]
    groups = peer_groups(Role.SPINE, {"RAIL-SWITCHES": down, "SUPER-SPINES": up}, bfd=True)
    assert [g.name for g in groups] == ["SUPER-SPINES", "RAIL-SWITCHES"]
    ss, rails = groups
    assert [n.ip for n in ss.neighbors] == ["10.0.0.9", "10.0.0.10"] and ss.remote_as == 65001
    assert rails.remote_as is None and ss.bfd and ss.description == "uplinks to the super-spines"
    assert not ss.next_hop_self


def test_peer_groups_keyed_sort_by_the_given_addresses() -> None:
    # the link walk hands each neighbor with its address as an int: the order is the ints' (10.0.0.9 = 167772169
    # before 10.0.0.10 = 167772170, where the texts sort the other way), the same as peer_groups' from the texts
    ss2, ss1 = Neighbor("10.0.0.10", 65001, "ss2", "10.0.0.11"), Neighbor("10.0.0.9", 65001, "ss1", "10.0.0.8")
    keyed = peer_groups_keyed(Role.SPINE, {"SUPER-SPINES": [(167772170, ss2), (167772169, ss1)]}, bfd=False)
    assert [n.description for n in keyed[0].neighbors] == ["ss1", "ss2"]
    assert keyed == peer_groups(Role.SPINE, {"SUPER-SPINES": [ss2, ss1]}, bfd=False)
    assert aton("10.0.0.9") == 167772169  # the key above: 10·2^24 + 9


def test_mlag_peer_group_is_next_hop_self() -> None:
    (peer, spines) = peer_groups(Role.RAIL, {"MLAG-PEER": [Neighbor("10.9.0.1", 65100, "b", "10.9.0.0")],
                                             "SPINES": [Neighbor("10.1.0.0", 65000, "s1", "10.1.0.1")]}, bfd=False)
    assert (peer.name, spines.name) == ("MLAG-PEER", "SPINES")  # "SUPER" in neither: by name, M before S
    assert peer.next_hop_self and not spines.next_hop_self and not peer.bfd


def test_bgp_prefix_list_rules() -> None:
    b = build_bgp(65100, "10.0.0.7", (), ("172.16.0.0/24",), ("172.16.0.0/25", "172.16.0.128/25"), 64, True)
    assert (b.asn, b.router_id, b.maximum_paths, b.multipath_relax, b.aggregates) == (
        65100, "10.0.0.7", 64, True, ("172.16.0.0/24",))
    assert b.prefix_list_entries == ("10.0.0.7/32", "172.16.0.0/25", "172.16.0.128/25")
    assert b.prefix_list_rules == ((10, "10.0.0.7/32"), (20, "172.16.0.0/25"), (30, "172.16.0.128/25"))
    assert (b.prefix_list, b.route_map) == ("PL-LOOPBACK-RAILS", "RM-CONN-TO-BGP")


def test_pod_aggregates(tmp_path: Path) -> None:
    # rail pool 172.16.0.0/12, segment blocks of /21 (2048 addresses); 4 segments per pod → one /19 per pod
    data = base_inventory()
    inv = run_data(tmp_path / "a", data).inventory
    assert pod_aggregates(inv, 1) == ("172.16.0.0/19",)  # type: ignore[arg-type]
    assert pod_aggregates(inv, 2) == ("172.16.32.0/19",)  # type: ignore[arg-type]
    # 3 segments per pod: 6144 addresses. Pod 1: 172.16.0.0/20 + 172.16.16.0/21. Pod 2 starts at 172.16.24.0
    # (aligned to 2048 only): 172.16.24.0/21, then 172.16.32.0/20 for the remaining 4096
    data["limits"]["segments_per_pod"] = 3
    inv = run_data(tmp_path / "b", data).inventory
    assert pod_aggregates(inv, 1) == ("172.16.0.0/20", "172.16.16.0/21")  # type: ignore[arg-type]
    assert pod_aggregates(inv, 2) == ("172.16.24.0/21", "172.16.32.0/20")  # type: ignore[arg-type]
