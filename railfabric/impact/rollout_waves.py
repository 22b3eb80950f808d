"""The maintenance waves as an Ansible vars file for the rollout playbook (`fabric impact --maintenance NAME ...
--emit-waves FILE`, then `ansible-playbook ... deploy.yml -e @FILE`).

The playbook (templates/ansible/deploy.yml) pushes the switches of the waves wave after wave (within a wave one at a
time, or up to `-e rollout_batch=N` at once, a batch never spanning two waves) instead of its rendered rollout
order, and refuses the file before anything is sent when a switch it would push is in no wave, a switch of the file
is not in its inventory, a switch is in two waves, or the file is not a list of lists of names.

Only whole switches can be rolled out: an item that is a link, a port, a bundle or a host NIC is refused (NotSwitches)
with the names. Switches are written by hostname (the inventory's names), whatever name they were given by.
"""

from __future__ import annotations

import json

from railfabric.impact.targets import Resolver

VARIABLE = "rollout_maintenance_waves"


class NotSwitches(ValueError):
    """Maintenance items that are not switches (the rollout pushes switches only)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        super().__init__("--emit-waves needs switches (the rollout pushes whole switches), not: " + ", ".join(
            repr(n) for n in names))


def wave_hostnames(waves: dict, resolver: Resolver) -> list[list[str]]:
    """The hostnames of each wave of `maintenance_waves`' output; NotSwitches when an item is not a switch."""
    out: list[list[str]] = []
    bad: list[str] = []
    for wave in waves["waves"]:
        names = []
        for name in wave["down"]:
            _kind, sw, _ids = resolver.one(name)
            if sw is None:
                bad.append(name)
            else:
                names.append(sw)
        out.append(names)
    if bad:
        raise NotSwitches(bad)
    return out


def waves_vars_text(hostnames: list[list[str]], given: list[str], fabric: str) -> str:
    """The vars file: a comment saying where it comes from and how to use it, then the variable (JSON flow lists:
    valid YAML whatever the names)."""
    flat = ",".join(h for w in hostnames for h in w)
    lines = [f"# Maintenance waves of fabric {fabric} from `fabric impact --maintenance {' '.join(given)}`.",
             "# Each wave can be down at once at no more cost than its switches alone (docs/impact.md).",
             "# Roll out by them: ansible-playbook -i inventory.yml deploy.yml -e @THIS_FILE "
             f"--limit {json.dumps(flat)}",
             f"{VARIABLE}:"]
    lines += [f"  - {json.dumps(w)}" for w in hostnames]
    return "\n".join(lines) + "\n"
