"""The registry of artifacts and how each is cut into independently cached parts (railfabric/emit/build.py reuses a part
whose digest matches generated/manifest.json and whose files are intact).

A part's digest covers exactly the values its build function is handed, the code that builds it (code_digest of its
modules, their imports followed) and the data files it copies; the build function is a closure over those values
only, never over Sources, the Inventory or the device models as a whole. The large projections (links, interface
names, the routing index, ...) are built and digested once per render by Sources and shared by every part that
reads them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from railfabric.configs.render import TEMPLATES
from railfabric.outputs.digest import FABRIC, code_digest, combine, data_digest, value_digest
from railfabric.platforms import PLATFORMS

from .ansible import host_vars_data, host_vars_text, inventory_files, playbook_files
from .cabling import cabling_files
from .docs import docs_facts, docs_markdown, docs_pictures, failure_costs
from .expected import expected_from
from .hosts import gpu_hosts, group_input_files
from .ipplan import ipplan_files
from .part import Once, Part
from .railmap import host_links_in, railmap_files
from .rollout import rollout_plan
from .sources import Sources
from .state import anta_hosts, device_state_files

__all__ = ["ARTIFACTS", "Artifact", "Once", "Part"]


@dataclass(frozen=True)
class Artifact:
    """One output of generated/ and the parts it is built in (`parts(src)`, a fixed order)."""
    name: str
    parts: Callable[[Sources], Iterator[Part]]


def _digest(key: str, code: tuple[str, ...], *inputs: str, data: tuple[Path, ...] = ()) -> str:
    return combine([key, code_digest(*code), data_digest(data), *inputs])


PLAYBOOK_DATA: tuple[Path, ...] = (
    TEMPLATES / "ansible", *(TEMPLATES / name / "ansible" for name in sorted(PLATFORMS)),
    FABRIC / "outputs" / "ansible_filters.py",
    *(FABRIC / "configs" / n / p.ansible_plugin for n, p in sorted(PLATFORMS.items()) if p.ansible_plugin))
# Every file or folder a part copies or reads verbatim (not imported as code): the whole-run reuse digests them
# (railfabric.emit.reuse.code_sha256). A new part that reads a data file must add it here.
DATA_FILES: tuple[Path, ...] = PLAYBOOK_DATA


def _ansible(src: Sources) -> Iterator[Part]:
    # inventory.yml and rollout_plan.yml: each switch's place and peers (the rollout plan is made of them), platform
    # and management address, and the GPU servers' group (made of the host groups' inputs)
    switches, access, groups = src.rollout, src.access, src.host_groups
    code = code_digest("railfabric.outputs.ansible", "railfabric.outputs.hosts", "railfabric.hosts")
    plan = Once(lambda: rollout_plan(switches))
    waves = Once(lambda: plan().wave_of)  # each switch's wave, worked out once (not once per switch)
    drain = next(iter(src.devices.values())).drain if src.devices else None  # one drain for the whole fabric
    said = [drain.method, drain.why] if drain is not None else []
    yield Part("ansible", "ansible",
               combine(["ansible", code, src.shared("rollout"), src.shared("access"), *src.group_digests, *said]),
               lambda: inventory_files(switches, access, gpu_hosts(groups), plan(), drain))
    # host_vars/<switch>.yml: what it shows of the switch's model (host_vars_data) and its rollout wave
    rollout = src.shared("rollout")
    for name, dev in src.devices.items():
        key, data = f"ansible:{name}", host_vars_data(dev)
        # one dump and one hash a switch (of 10,000s): its key, the code, its data and the rollout's digest
        yield Part(key, "ansible", value_digest([key, code, data, rollout]),
                   lambda name=name, data=data: host_vars_text(name, data, waves()[name]))  # type: ignore[misc]
    yield Part("ansible:playbook", "ansible", _digest("ansible:playbook", ("railfabric.outputs.ansible",),
                                                     data=PLAYBOOK_DATA), playbook_files)


def _hosts(src: Sources) -> Iterator[Part]:
    # per host group: its hosts' netplan files and the group's shared files, from the group's input alone
    for group, digest in zip(src.host_groups, src.group_digests, strict=True):
        key = f"hosts:{group.name}"
        yield Part(key, "hosts", combine([key, digest]),
                   lambda group=group: group_input_files(group))  # type: ignore[misc]


def _cabling(src: Sources) -> Iterator[Part]:
    links, racks, ports = src.links, src.racks, src.ports
    yield Part("cabling", "cabling",
               _digest("cabling", ("railfabric.outputs.cabling",), src.shared("links"), src.shared("racks"),
                       src.shared("ports")),
               lambda: cabling_files(links, racks, ports))


def _ipplan(src: Sources) -> Iterator[Part]:
    # every address: the plan's pools and blocks, each switch's addresses and interfaces, the host links (a subset
    # of the digested links) with their addresses, the rail subnets
    plan, addresses, vlans, access, routed, links, subnets = src.plan_addresses, src.addresses, src.vlans, \
        src.access, src.routed, src.topo.links, src.rail_subnets
    yield Part("ipplan", "ipplan",
               _digest("ipplan", ("railfabric.outputs.ipplan",), value_digest(replace(plan, host_addr={})),
                       src.shared("host_addr"), src.shared("addresses"),
                       src.shared("vlans"), src.shared("access"), src.shared("routed"), src.shared("links"),
                       src.shared("rail_subnets")),
               lambda: ipplan_files(plan, addresses, vlans, access, routed, links, subnets))


def _railmap(src: Sources) -> Iterator[Part]:
    hosts, shapes, links, addr = src.host_models, src.host_shapes, src.links, src.plan.host_addr
    subnets, mtu, ports = src.rail_subnets, src.inv.fabric.host_mtu, src.ports
    yield Part("railmap", "railmap",
               _digest("railmap", ("railfabric.outputs.railmap",), value_digest([hosts, shapes, mtu]),
                       src.shared("host_addr"),
                       src.shared("links"), src.shared("rail_subnets"), src.shared("ports")),
               lambda: railmap_files(hosts, shapes, host_links_in(links), addr, subnets, mtu, ports))


def _expected(src: Sources) -> Iterator[Part]:
    sessions, ports, index = src.sessions, src.ports, src.index
    yield Part("expected", "expected",
               _digest("expected", ("railfabric.outputs.expected",), src.shared("sessions"), src.shared("ports"),
                       src.index_digest),
               lambda: expected_from(sessions, ports, index().ends), (index,))


def _state(src: Sources) -> Iterator[Part]:
    # a device's state (and ANTA catalog) reads its own model and the fabric-wide index (peers, routes)
    from .anta import anta_inventory_files

    code = code_digest("railfabric.outputs.state", "railfabric.outputs.anta")
    index, ix_digest = src.index, src.index_digest
    for name, dev in src.devices.items():
        key = f"state:{name}"
        yield Part(key, "state", combine([key, code, src.model_digests[name], ix_digest]),
                   lambda dev=dev: device_state_files(dev, index()), (index,))  # type: ignore[misc]
    hosts = anta_hosts(src.devices)
    yield Part("state:anta", "state", combine(["state:anta", code, value_digest(hosts)]),
               lambda: anta_inventory_files(hosts))


def _report(src: Sources) -> Iterator[Part]:
    report = src.report
    yield Part("report", "report", _digest("report", ("railfabric.outputs.parts",), value_digest(report)),
               lambda: {} if report is None else {"report.json": json.dumps(report, indent=2, sort_keys=True) + "\n"})


def _docs(src: Sources) -> Iterator[Part]:
    # fabric.md shows the summary (pool usage: a management address moved out of the pool changes it), the
    # pictures do not; both read the topology without the switches' management addresses and override marks
    # (Sources.docs_topology, every field digested)
    topo, report, summary = src.docs_topology, src.report, src.summary
    name, planes = src.inv.fabric.name, (src.inv.super_spines.planes or 0) if src.inv.super_spines else 0
    code = ("railfabric.outputs.docs",)
    common = (value_digest([name, planes, report]), src.shared("links"), src.shared("docs_topology"))
    if report is None or summary is None:
        yield Part("docs", "docs", _digest("docs", code, *common, value_digest(summary)), dict)
        return
    facts = Once(lambda: docs_facts(name, planes, topo(), report))  # both parts' figures, from `common` alone
    # the "what one failure costs" rows (railfabric/impact/costs.py) also read the ECMP width and each pod's
    # port-channel min-links; the topology and links are digested in `common`
    inv = src.inv
    costs_in = value_digest([inv.routing.ecmp.width, [(p.id, p.spines.min_links() if p.spines else None)
                                                      for p in inv.pods], inv.super_spines is not None])
    yield Part("docs", "docs", _digest("docs", (*code, "railfabric.impact.costs"), *common, value_digest(summary),
                                       costs_in),
               lambda: docs_markdown(name, planes, topo(), report, summary, facts(), failure_costs(inv, topo())))
    yield Part("docs:pictures", "docs", _digest("docs:pictures", code, *common),
               lambda: docs_pictures(name, planes, topo(), report, facts()))


ARTIFACTS: tuple[Artifact, ...] = (
    Artifact("ansible", _ansible),
    Artifact("hosts", _hosts),
    Artifact("cabling", _cabling),
    Artifact("ipplan", _ipplan),
    Artifact("railmap", _railmap),
    Artifact("expected", _expected),
    Artifact("state", _state),
    Artifact("report", _report),
    Artifact("docs", _docs),
)
