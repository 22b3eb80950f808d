"""docs/fabric.md of an InfiniBand fabric: the fabric at a glance, subnet managers, routing, partitions, QoS, the
solver's figures and where a site deploys each generated file. Formatting only: every figure is decided in
railfabric.outputs.docs.ib_facts (and the deploy rows in railfabric.outputs.infiniband); the solver's tables are
Ethernet's (railfabric.outputs.docs.tables), the report's sections being the same."""

from __future__ import annotations

from collections.abc import Sequence

from railfabric.infiniband.model import Qos
from railfabric.outputs.docs.ib_facts import IbFacts
from railfabric.outputs.docs.tables import capacity_table, cell, failure_table, latency_table, ports_table, table
from railfabric.outputs.ib_paths import Deploy


def _glance(facts: IbFacts, glance: str, diagrams: Sequence[str]) -> list[str]:
    lines = ["## At a glance", ""]
    if glance:
        lines += [f"![{cell(facts.name)} at a glance]({glance})", ""]
    lines += table(["tier", "switches", "models", "ports per switch"],
                   [[t.tier, t.switches, cell(t.models), t.ports] for t in facts.tiers], right=(1,))
    lines += ["", f"{facts.hcas:,} HCAs on {facts.hosts:,} hosts, one HCA port per rail:", ""]
    lines += table(["hosts", "HCAs (RDMA devices) in rail order: rail 0, 1, …"],
                   [[cell(h), cell(d)] for h, d in facts.host_hcas])
    lines += ["", *table(["cables", "count", "speed"], [[c.kind, f"{c.cables:,}", c.speed] for c in facts.cables],
                         right=(1,))]
    lines += ["", "Every cable end: `../cabling.csv`; every host's HCAs, leaf ports and partitions: "
              "`../hosts/railmap.csv`."]
    for path in diagrams:
        lines += ["", f"![rail diagram]({path})"]
    return lines


def _sms(facts: IbFacts) -> list[str]:
    rows = [[cell(s.node), s.priority, s.role, cell(s.where)] for s in facts.sms]
    return ["## Subnet managers", "", *table(["node", "priority", "role", "runs on"], rows, right=(1,)), "",
            "The SM with the highest priority is master; the others are standbys that take over when it stops "
            "answering."]


def _routing(facts: IbFacts) -> list[str]:
    return ["## Routing", "", f"- routing engine: `{facts.routing_engine}`", f"- LMC: {facts.lmc} "
            f"({1 << facts.lmc} LID{'s' if facts.lmc else ''} per end port)",
            f"- roots: {', '.join(cell(r) for r in facts.roots)}", f"- subnet prefix: `{facts.subnet_prefix}`"]


def _partitions(facts: IbFacts) -> list[str]:
    rows = [[cell(p.name), f"`{p.pkey}`", f"{p.hosts:,}", f"{p.hcas:,}", p.membership, "yes" if p.ipoib else "no",
             "–" if p.sl is None else p.sl] for p in facts.partitions]
    return ["## Partitions", "", *table(["partition", "PKey", "hosts", "HCAs", "membership", "IPoIB", "SL"], rows,
                                        right=(2, 3, 6))]


def _qos(qos: Qos | None) -> list[str]:
    if qos is None:
        return ["## QoS", "", "No QoS plan: every path uses SL 0 and OpenSM's default VL arbitration."]
    sl2vl = table(["SL", *(str(sl) for sl in range(len(qos.sl2vl)))], [["VL", *qos.sl2vl]])
    arb = [[name, ", ".join(f"VL {vl}: {w}" for vl, w in entries) or "–"]
           for name, entries in (("high", qos.vlarb_high), ("low", qos.vlarb_low))]
    return ["## QoS", "", f"Data VLs: {qos.max_vls}; high-priority limit: {qos.high_limit}; default SL: "
            f"{qos.default_sl}.", "", "SL to VL:", "", *sl2vl, "", "VL arbitration (VL: weight):", "",
            *table(["table", "entries"], arb)]


def _solver(report: dict) -> list[str]:
    ib = report.get("infiniband", {})
    bis = report.get("bisection", {})
    lines = ["## The solver's figures", ""]
    lines += ["Capacity and oversubscription (down:up) per tier (rail: the leaves' uplinks to the spines; spine: the "
              "spines' to the cores):", "", *capacity_table(report)]
    if bis and bis.get("ratio") is not None:
        lines += ["", f"Bisection between {cell(bis['a'])} and {cell(bis['b'])}: {bis['max_flow_gbps']:,} Gbps of "
                  f"the {bis['full_gbps']:,} Gbps of full bisection (ratio {bis['ratio']:g}, allowed "
                  f"{bis['allowed_ratio']:g})."]
    if ib:
        lines += ["", f"LIDs: {ib['lids_needed']:,} needed of {ib['lids_available']:,} (LMC {ib['lmc']}); at most "
                  f"{ib['max_switch_hops']} switch hops between HCAs; {ib['islands']} island"
                  f"{'s' if ib['islands'] != 1 else ''}."]
    lines += ["", "### Ports", "", *ports_table(report), "", "### Worst single failure", "", *failure_table(report)]
    latency = latency_table(report)
    if latency:
        lines += ["", "### Latency", "", *latency]
    return lines


def _deploy(rows: Sequence[Deploy]) -> list[str]:
    return ["## Where each file goes", "", *table(["generated file", "goes to", "on"],
                                                  [[", ".join(f"`{p}`" for p in ps) or "–", d, cell(n)]
                                                   for ps, d, n in rows])]


def ib_markdown(facts: IbFacts, qos: Qos | None, report: dict | None, deploy: Sequence[Deploy], glance: str = "",
                diagrams: Sequence[str] = ()) -> str:
    """The page; `glance` and `diagrams` are the pictures' paths relative to docs/."""
    lines = [f"# InfiniBand fabric {cell(facts.name)}", "",
             "Generated by railfabric from the inventory: do not edit (re-render instead).", ""]
    lines += _glance(facts, glance, diagrams)
    lines += ["", *_sms(facts), "", *_routing(facts), "", *_partitions(facts), "", *_qos(qos)]
    if report is not None:
        lines += ["", *_solver(report)]
    lines += ["", *_deploy(deploy)]
    return "\n".join(lines) + "\n"
