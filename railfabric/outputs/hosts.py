"""Everything generated/ holds for the GPU servers (besides hosts/railmap.csv): per host its netplan file
(hosts_netplan.py), per host group its RoCE script, systemd unit and NCCL environment (hosts_roce.py), and the
`gpu_hosts` group of the Ansible inventory for the play ansible/hosts.yml: where each host's files are and what the
play checks afterwards (the PFC priorities every rail port must show, the `ip rule` of every rail address).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from railfabric.hosts import HostGroupPlan, HostPlan, HostsPlan
from railfabric.hosts.build import GroupInput, group_rules, group_shapes

from ._common import natural_key
from .hosts_netplan import INSTALL_PATH, netplan_files, netplan_shaped
from .hosts_roce import NCCL_PATH, SCRIPT_PATH, UNIT_NAME, group_dir, group_files


def ansible_group(name: str) -> str:
    """The inventory group of a host group (Ansible group names: letters, digits, underscores)."""
    return "gpu_" + name.replace("-", "_")


def gpu_hosts(groups: Iterable[GroupInput]) -> dict[str, object]:
    """The `gpu_hosts` group from the host groups' inputs: each group's plan and its hosts' rail rules
    (railfabric.hosts.build.group_rules), not every host's whole plan."""
    plans: list[HostGroupPlan] = []
    rules: dict[str, tuple[tuple[str, int], ...]] = {}
    for g in groups:
        plan, host_rules = group_rules(g)
        plans.append(plan)
        rules.update(host_rules)
    return gpu_group_inventory(plans, rules)


def gpu_group_inventory(groups: Iterable[HostGroupPlan],
                        rules: Mapping[str, Sequence[tuple[str, int]]]) -> dict[str, object]:
    """The `gpu_hosts` group of ansible/inventory.yml, variables inline (not in host_vars/, which holds the
    switches, one file each, for the push and the parse-back verifier): where the installed files go (group vars),
    each host group's shared files, rail ports and the PFC priorities `dcb pfc show` must list (child vars), and per
    host the `ip rule` lines the play checks, from its rail interfaces' (address, table) in `rules`. The netplan
    file is ../hosts/<inventory_hostname>/netplan.yaml."""
    children: dict[str, object] = {}
    for g in sorted(groups, key=lambda g: natural_key(g.name)):
        d = f"../{group_dir(g.name)}"
        children[ansible_group(g.name)] = {
            "vars": {"host_group": g.name, "roce_script": f"{d}/roce.sh", "roce_unit": f"{d}/{UNIT_NAME}",
                     "nccl_conf": f"{d}/nccl.conf", "rail_ports": list(g.ports),
                     "pfc_expected": " ".join(f"{p}:on" for p in g.roce.pfc_prios)},
            "hosts": {h: {"rail_rules": [f"from {a} lookup {t}" for a, t in rules[h]]}
                      for h in sorted(g.hosts, key=natural_key)},
        }
    return {"vars": {"netplan_install": INSTALL_PATH, "roce_script_install": SCRIPT_PATH,
                     "roce_unit_name": UNIT_NAME, "nccl_install": NCCL_PATH},
            "children": children}


def hosts_files(plan: HostsPlan) -> dict[str, str]:
    return {**netplan_files(plan), **group_files(plan)}


def group_part_files(group: HostGroupPlan, hosts: Sequence[HostPlan]) -> dict[str, str]:
    """One host group's files (hosts/_groups/<group>/) and the netplan file of each of its hosts."""
    part = HostsPlan({h.name: h for h in hosts}, {group.name: group})
    return {**netplan_files(part), **group_files(part)}


def group_input_files(g: GroupInput) -> dict[str, str]:
    """group_part_files(*build_group(g)) with one host plan made per netplan shape
    (railfabric.hosts.build.group_shapes): the same files (tests/test_hosts_shapes.py)."""
    group, hosts = group_shapes(g)
    return {**netplan_shaped(hosts), **group_files(HostsPlan({}, {group.name: group}))}
