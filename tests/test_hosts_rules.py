"""railfabric.hosts.build.group_rules (what the Ansible inventory reads of the hosts: each group's plan and each host's
(address, table) per rail interface) against build_group, with values derived by hand from the mini fabric of
tests.helpers (derivation in tests/test_hosts.py's docstring: host n of segment 1 has 172.16.<rail>.<n + 1>,
table 100 + nic·ports_per_nic + port)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from railfabric.hosts import HostsPlan
from railfabric.hosts.build import GroupInput, build_group, group_inputs, group_rules, plan_of
from railfabric.outputs.hosts import gpu_group_inventory, gpu_hosts
from tests.helpers import base_inventory, mlag_inventory, run_data


def _inputs(tmp_path: Path, data: dict) -> list[GroupInput]:
    res = run_data(tmp_path, data)
    assert res.topology is not None and res.plan is not None and res.inventory is not None, res.findings
    return group_inputs(res.inventory, res.topology, res.plan)


def _from_build_group(g: GroupInput) -> tuple[object, dict[str, tuple[tuple[str, int], ...]]]:
    group, hosts = build_group(g)
    return group, {h.name: tuple((i.address, i.table) for i in h.interfaces) for h in hosts}


def test_rules_of_the_mini_fabric(tmp_path: Path) -> None:
    (g,) = _inputs(tmp_path, base_inventory())
    group, rules = group_rules(g)
    # one-port NICs: nic0 on rail 0 (table 100 + 0 + 1), nic1 on rail 1 (table 100 + 1 + 1)
    assert rules == {f"p1-s1-gpu00{n}": ((f"172.16.0.{n + 1}", 101), (f"172.16.1.{n + 1}", 102)) for n in (1, 2, 3, 4)}
    assert (group.name, group.ports) == ("p1-s1-h1", ("nic0", "nic1"))
    assert (group, rules) == _from_build_group(g)


def test_rules_of_bonds(tmp_path: Path) -> None:
    (g,) = _inputs(tmp_path, mlag_inventory())
    group, rules = group_rules(g)
    # MLAG: one bond per 2-port NIC, its table counted as the NIC's port 1: 100 + 0·2 + 1, 100 + 1·2 + 1
    assert rules["p1-s1-gpu001"] == (("172.16.0.2", 101), ("172.16.1.2", 103))
    assert group.ports == ("nic0p1", "nic0p2", "nic1p1", "nic1p2")
    assert (group, rules) == _from_build_group(g)


def test_the_group_speaks_through_its_first_fullest_host(tmp_path: Path) -> None:
    (g,) = _inputs(tmp_path, base_inventory())
    # host 1 without its rail 0 link: host 2 (the first with both NICs) gives the group's ports
    short = replace(g, links=tuple(lk for lk in g.links if not (lk[0] == "p1-s1-gpu001" and lk[1] == 0)))
    group, rules = group_rules(short)
    assert rules["p1-s1-gpu001"] == (("172.16.1.2", 102),)
    assert group.ports == ("nic0", "nic1") and group.hosts == ("p1-s1-gpu001", "p1-s1-gpu002", "p1-s1-gpu003",
                                                                "p1-s1-gpu004")
    assert (group, rules) == _from_build_group(short)


def _from_whole_plan(plan: HostsPlan) -> dict[str, object]:
    """The gpu_hosts group the plain way: every host's whole plan, its interfaces' (address, table)."""
    rules = {h.name: tuple((i.address, i.table) for i in h.interfaces) for h in plan.hosts.values()}
    return gpu_group_inventory(plan.groups.values(), rules)


def test_inventory_from_rules_is_the_plans(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path, mlag_inventory())
    assert gpu_hosts(inputs) == _from_whole_plan(plan_of(inputs))
    hosts = gpu_hosts(inputs)["children"]["gpu_p1_s1_h1"]["hosts"]  # type: ignore[index]
    assert hosts["p1-s1-gpu001"] == {"rail_rules": ["from 172.16.0.2 lookup 101", "from 172.16.1.2 lookup 103"]}
