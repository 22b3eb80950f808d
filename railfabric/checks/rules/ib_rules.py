"""Rules of an InfiniBand fabric (fabric.kind: infiniband, issue 31), IB001-IB040.

- `refusals`: the Ethernet-only keys an InfiniBand inventory writes (IB001-IB014; the switch models' Ethernet keys
  IB034-IB040: buffers, hwsku, asic, releases, port_blocks.peer_link, serdes_lanes, breakouts; the list is
  railfabric.inventory.intent_infiniband.ETHERNET_ONLY), and an `infiniband:` section on an Ethernet fabric (IB015),
  each at its key, before the schema: the keys are taken out of what the schema sees, so the rest is still checked
  and the error alone stops the render.
- `ib_intent`: on the intent (IB016 section missing, IB020 one subnet manager, IB029 an NVIDIA-only engine).
- `check_ib`: on the planned subnet (railfabric.topology.infiniband.ib_fabric): every sentence of
  railfabric.infiniband.model.problems() as a finding with its own code (SMs IB021/IB022, partitions IB023, LMC
  IB025, LID space IB026, a port cabled twice IB028 (a port beyond the model's is the topology's PORT001, once per
  switch), QoS IB030, anything else IB031), partition hosts the fabric does not have
  (IB024), HCAs the subnet cannot reach (IB027: a rail-only pod's leaves are islands), ftree on a tree of the
  wrong rank (IB032: 2-8 switch tiers) and switch models beyond 255 ports (IB033), the limits of
  linux-rdma/opensm opensm/osm_ucast_ftree.c (FAT_TREE_MIN_RANK / FAT_TREE_MAX_RANK and its note on ports).
- `ib_report`: the subnet's figures for the solver's report (its `infiniband` section).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from railfabric.checks.rules.ib_qos_rules import check_quantum2_qos
from railfabric.core.finding import Finding, Severity
from railfabric.core.source_map import SourceMap
from railfabric.core.textsafe import quote
from railfabric.infiniband.model import MAX_LID, IbFabric, Tier, problems
from railfabric.inventory.intent import Inventory
from railfabric.inventory.intent_infiniband import NVIDIA_ONLY_ENGINES, kind_of, refused_paths, without
from railfabric.inventory.schema_check import dotted
from railfabric.topology import Topology
from railfabric.topology.infiniband import partition_hosts

_HINT = "remove it: fabric.kind is infiniband (docs/infiniband.md, 'The inventory', lists what an InfiniBand " \
        "inventory holds)"
_MORE = {  # what to write instead, where there is something
    "IB038": "; port_blocks.rails and port_blocks.uplinks still place the cables",
    "IB040": "; describe a split switch by its logical ports and their speed (a QM9700 with every port split to "
             "NDR200: ports: 128, speed: 200G)",
}


def refusals(data: dict[str, Any], src: SourceMap) -> tuple[dict[str, Any], list[Finding]]:
    """(the tree without the refused keys, a finding for each)."""
    if kind_of(data) != "infiniband":
        if "infiniband" not in data:
            return data, []
        return without(data, [("infiniband",)]), [Finding(
            "IB015", "infiniband: describes an InfiniBand subnet, but fabric.kind is ethernet",
            src.key_loc(("infiniband",)), "set fabric.kind: infiniband, or remove the infiniband: section")]
    found = refused_paths(data)
    out = [Finding(code, f"{dotted(path)} is Ethernet-only ({meaning}): it means nothing on an InfiniBand fabric",
                   src.key_loc(path), _HINT + _MORE.get(code, "")) for code, path, meaning in found]
    return (without(data, [path for _, path, _ in found]) if found else data), out


Add = Callable[..., None]


def ib_intent(inv: Inventory, src: SourceMap, add: Add) -> None:
    """The intent rules of an InfiniBand inventory (railfabric.checks.rules.intent_rules runs them)."""
    ib = inv.infiniband
    if ib is None:
        add("IB016", "fabric.kind is infiniband but the inventory has no infiniband: section", ("fabric", "kind"),
            "add infiniband: with at least subnet_managers (two: master and standby), see docs/infiniband.md")
        return
    if len(ib.subnet_managers) == 1:
        add("IB020", "one subnet manager is planned: while it is down nothing re-sweeps the subnet",
            ("infiniband", "subnet_managers"), "plan a standby on another switch or host with a lower priority",
            sev=Severity.WARNING)
    if ib.routing_engine in NVIDIA_ONLY_ENGINES:
        add("IB029", f"routing engine {ib.routing_engine} is NVIDIA's subnet manager's (adaptive routing): upstream "
            "OpenSM does not know it", ("infiniband", "routing_engine"),
            "run NVIDIA's SM (UFM / MLNX OpenSM) with the generated opensm.conf, or use ftree for upstream OpenSM; "
            "the InfiniBand lab runs upstream OpenSM only", sev=Severity.WARNING)


def _classify(sentence: str) -> tuple[str, tuple[Any, ...]]:
    """The code and the inventory path of one problems() sentence."""
    if sentence.startswith("subnet manager on") or sentence == "no subnet manager is planned":
        return "IB021", ("infiniband", "subnet_managers")
    if "subnet managers share priority" in sentence:
        return "IB022", ("infiniband", "subnet_managers")
    if sentence.startswith(("PKey", "partition ")):
        return "IB023", ("infiniband", "partitions")
    if sentence.startswith(("LMC", "ftree does not support LMC")):
        return "IB025", ("infiniband", "lmc")
    if "LIDs, more than" in sentence:
        return "IB026", ("infiniband", "lmc")
    if sentence.startswith(("cable", "port ")):
        return "IB028", ("pods",)
    if sentence.startswith("QoS"):
        return "IB030", ("infiniband", "qos")
    return "IB031", ("infiniband",)


_HINTS = {
    "IB021": "name a switch by hostname (node:), or a host with its HCA's rail index (host: + hca:)",
    "IB022": "give each subnet manager its own priority: the highest is the master",
    "IB023": "PKeys 0x0001-0x7ffe, each partition its own",
    "IB025": "use lmc: 0 with ftree, or routing_engine: updn for LMC > 0",
    "IB026": "lower the LMC, or split the fabric into subnets",
    "IB028": "a switch model's ports bound its cables (switch_models.<model>.ports)",
    "IB030": "16 SL-to-VL entries, each below max_vls; VL arbitration VL 0-14 with weights 0-255",
    "IB031": "",
}


def check_ib(inv: Inventory, topo: Topology, fab: IbFabric, src: SourceMap) -> list[Finding]:
    """The planned subnet's findings (see the module docstring)."""
    out: list[Finding] = []
    for sentence in problems(fab):
        if sentence.startswith("cable ") and " has ports " in sentence:
            continue  # a port beyond the model's: the topology's port rules said so per switch (PORT001)
        code, path = _classify(sentence)
        out.append(Finding(code, sentence, src.loc(path), _HINTS[code]))
    ib = inv.infiniband
    assert ib is not None
    for pi, part in enumerate(ib.partitions):
        path = ("infiniband", "partitions", pi, "hosts")
        try:
            names = partition_hosts(part)
        except ValueError as exc:
            out.append(Finding("IB024", f"partition {part.name}: {exc}", src.loc(path),
                               "host names, or Slurm host lists such as dgx[01-16]"))
            continue
        missing = [n for n in names if n not in topo.hosts]
        if missing:
            shown = ", ".join(quote(n) for n in missing[:3]) + (f" and {len(missing) - 3} more"
                                                                 if len(missing) > 3 else "")
            out.append(Finding("IB024", f"partition {part.name} names {len(missing)} host(s) the fabric does not "
                               f"have: {shown}", src.loc(path),
                               "partition members are the fabric's hosts (host_groups' names)"))
    out += _rank_and_radix(inv, fab, src)
    out += check_quantum2_qos(inv, topo, src)
    islands = hca_islands(fab)
    if len(islands) > 1:
        sizes = sorted((len(i) for i in islands), reverse=True)
        out.append(Finding("IB027", f"the subnet falls apart into {len(islands)} islands of HCAs ({sizes[0]} "
                           f"HCAs in the largest): HCAs in different islands cannot reach each other and one subnet "
                           "manager sees only its own island", src.loc(("pods",)),
                           "give the pods spines (and super-spines joining them): a rail-only pod's leaves are not "
                           "connected to each other on InfiniBand"))
    return out


FTREE_RANKS = (2, 8)  # FAT_TREE_MIN_RANK, FAT_TREE_MAX_RANK (linux-rdma/opensm opensm/osm_ucast_ftree.c)
MAX_SWITCH_PORTS = 255  # "each switch can have at max 255 up/down ports" (the same file)


def _rank_and_radix(inv: Inventory, fab: IbFabric, src: SourceMap) -> list[Finding]:
    """IB032: ftree on a tree whose rank (its switch tiers) is outside 2-8; IB033: a switch model beyond 255 ports."""
    out: list[Finding] = []
    rank = len({s.tier for s in fab.switches})
    low, high = FTREE_RANKS
    if fab.routing_engine in ("ftree", "ar_ftree") and not low <= rank <= high:
        out.append(Finding("IB032", f"{fab.routing_engine} needs a fat tree of rank {low} to {high}; this fabric has "
                           f"{rank} switch tier(s)", src.loc(("infiniband", "routing_engine")),
                           "use routing_engine: minhop (or updn) for a single switch tier, or add spines"))
    for model in sorted({s.model for s in fab.switches}):
        ports = inv.switch_models[model].ports
        if ports > MAX_SWITCH_PORTS:
            out.append(Finding("IB033", f"switch model {model!r} has {ports} ports: an InfiniBand switch has at most "
                               f"{MAX_SWITCH_PORTS}", src.loc(("switch_models", model, "ports")),
                               "an InfiniBand switch model's ports are its IB ports (QM9700: 64, Q3400: 144)"))
    return out


def hca_islands(fab: IbFabric) -> list[set[str]]:
    """The HCAs grouped by connected part of the cabled subnet (union-find over the cables)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for cable in fab.cables:
        a, z = find(cable.a.node), find(cable.z.node)
        if a != z:
            parent[a] = z
    groups: dict[str, set[str]] = {}
    for h in fab.hcas:
        groups.setdefault(find(h.name), set()).add(h.name)
    return list(groups.values())


def ib_report(fab: IbFabric) -> dict[str, Any]:
    """The subnet's figures: node and cable counts, LIDs with the LMC, the switch hops of the longest path (leaf →
    spine → leaf: 3; with cores 5; leaves alone 1), the master SM, the engine."""
    tiers = {s.tier for s in fab.switches}
    hops = 5 if Tier.CORE in tiers else 3 if Tier.SPINE in tiers else 1
    endports = len(fab.hcas) + len(fab.switches)
    return {
        "switches": len(fab.switches),
        "hcas": len(fab.hcas),
        "cables": len(fab.cables),
        "lmc": fab.lmc,
        "lids_needed": endports << fab.lmc,
        "lids_available": MAX_LID,
        "max_switch_hops": hops,
        "routing_engine": fab.routing_engine,
        "subnet_managers": [{"node": sm.node, "priority": sm.priority} for sm in fab.sms],
        "master": fab.master.node if fab.sms else None,
        "partitions": [{"name": p.name, "pkey": f"{p.pkey:#06x}", "members": len(p.members)}
                       for p in fab.partitions],
        "islands": len(hca_islands(fab)),
    }

