"""The validate pipeline: load → schema → intent rules → expand → allocate → plan rules → solver.

Pure: reads the inventory files, returns values; never writes. All findings at once: an item that fails the schema
or a blocking intent rule is pruned (with what depends on it) and every later stage runs on the rest; SKIP001 says
which item was left out and why. A pruned run always carries the errors that pruned it, so nothing renders.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from railfabric.checks.rules.asic_rules import check_asic
from railfabric.checks.rules.buffer_rules import check_buffers
from railfabric.checks.rules.bundle_rules import check_bundles
from railfabric.checks.rules.host_rules import check_hosts
from railfabric.checks.rules.ib_rules import refusals
from railfabric.checks.rules.intent_rules import BLOCKING, check_intent
from railfabric.checks.rules.mlag_rules import check_mlag
from railfabric.checks.rules.pin_rules import check_pins
from railfabric.checks.rules.plan_rules import check_plan, check_topology, summary
from railfabric.checks.rules.raw_rules import check_raw
from railfabric.checks.rules.system_rules import check_system
from railfabric.checks.rules.vlan_rules import check_vlans
from railfabric.checks.solver import solve
from railfabric.checks.solver.index import link_index
from railfabric.core.causes import unique_sorted
from railfabric.core.cpus import available_cpus, can_fork
from railfabric.core.finding import Finding, Severity, has_errors
from railfabric.core.progress import SILENT, Progress
from railfabric.core.source_map import Location, SourceMap
from railfabric.inventory.intent import Inventory
from railfabric.inventory.load import Loaded, load_inventory
from railfabric.inventory.schema_check import dotted, error_paths, schema_findings, validate
from railfabric.plan.allocate import Plan, allocate
from railfabric.topology import Topology, expand

T = TypeVar("T")
STAGES = ("schema", "intent rules", "topology", "allocation", "solver checks")
# Items that can be left out on their own (with what depends on them): type patterns of their data paths.
_ITEMS: tuple[tuple, ...] = (("pods", int), ("pods", int, "segments", int),
                             ("pods", int, "segments", int, "host_groups", int), ("devices", str),
                             ("switch_models", str), ("host_models", str), ("cabling", int), ("super_spines",),
                             ("system",), ("raw", int))
_MODELS = frozenset({"switch_models", "host_models"})  # left out with every item that uses them
_NON_EMPTY = frozenset({"pods", "segments", "host_groups", "switch_models", "host_models"})  # min_length 1
_REFS = {"REF001": "switch_models", "REF002": "host_models"}


@dataclass
class Result:
    loaded: Loaded
    inventory: Inventory | None = None
    topology: Topology | None = None
    plan: Plan | None = None
    findings: list[Finding] = field(default_factory=list)
    stage_reached: str = "load"
    report: dict | None = None  # the solver's figures
    pruned: list[str] = field(default_factory=list)  # items left out because they do not validate (SKIP001)
    left_out: tuple[tuple, ...] = ()  # their inventory paths, with the items left out because they use them
    skipped: str = ""  # when the run stopped early: which stages did not run, and why

    def summary(self) -> dict | None:
        if self.inventory is None or self.topology is None or self.pruned:
            return None  # nothing, or only part of the fabric (items were left out): no totals to trust
        return summary(self.inventory, self.topology, self.plan)


def run(path: Path, progress: Progress = SILENT) -> Result:
    """Run every stage (each told to `progress`). The stages build about a million small objects with no reference
    cycles, so the cyclic garbage collector only costs time here (a quarter of the run at 65K GPUs): it is paused
    meanwhile."""
    return run_with(path, progress)[0]


def run_with(path: Path, progress: Progress = SILENT, meanwhile: Callable[[Result], T] | None = None,
             fork: bool = True, loaded: Loaded | None = None) -> tuple[Result, T | None]:
    """`run`, and `meanwhile(result)` on the allocated fabric while it is checked.

    Once the fabric is expanded and allocated, its checks (the topology and plan rules and the solver) only find
    and report: nothing later reads what they compute but their findings and report. With `fork` they run in a
    forked process (the second core) while `meanwhile` works here on the same allocated fabric (the renderer builds
    the device models). `meanwhile`'s value is returned only when the checks find no error; it is not called when an
    earlier stage stopped the run, and an exception it raises is re-raised only when the checks found no error (a
    broken fabric may break what is built from it; the findings say why). Without fork (or when the process cannot
    be had) the checks run first and `meanwhile` after them, only when they found no error. `loaded`: the inventory
    at `path` as load_inventory returned it already (railfabric.emit.reuse loads it to decide whether anything
    changed)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(path, progress, meanwhile, fork, loaded)
    finally:
        if enabled:
            gc.enable()


def _run(path: Path, progress: Progress, meanwhile: Callable[[Result], T] | None,
         fork: bool, loaded: Loaded | None = None) -> tuple[Result, T | None]:
    progress.stage(f"loading {path}")
    if loaded is None:
        loaded = load_inventory(path)
    res = Result(loaded, findings=list(loaded.findings))
    if any(f.fatal for f in loaded.findings):
        res.findings = unique_sorted(res.findings)
        return res, None
    res.stage_reached = "schema"
    progress.stage("checking the schema and the rules")
    inv, src = _validate(loaded, res)
    if inv is None:
        res.findings = unique_sorted(res.findings)
        return res, None
    res.inventory = inv
    res.stage_reached = "topology"
    progress.stage("expanding the topology")
    res.topology = expand(inv)
    res.stage_reached = "allocation"
    if not inv.is_infiniband:  # an InfiniBand subnet has no IPs, VLANs or ASNs: the SM assigns LIDs
        progress.stage("allocating addresses, VLANs and ASNs")
        res.plan = allocate(inv, res.topology)
    extra: T | None = None
    if meanwhile is not None and fork and _can_fork():
        progress.stage("checking the topology, the plan and the solver's figures in a second process")
        checked, extra, failure = _checks_beside(res, src, meanwhile)
    else:
        res.stage_reached = "solver"
        progress.stage("checking the topology and the plan; solving: capacity, failures, bisection, paths")
        checked, failure = _checks(res, src), None
        if meanwhile is not None and not has_errors(checked[0]):
            extra = meanwhile(res)
    res.findings += _references_to_left_out(checked[0], res.left_out)
    res.report = checked[1]
    res.stage_reached = "done"
    res.findings = unique_sorted(res.findings)
    if has_errors(res.findings):
        return res, None
    if failure is not None:
        raise failure
    return res, extra


Checked = tuple[list[Finding], dict]  # the checks' findings and the solver's report
_NAME_REFS = frozenset({"REF003", "REF004"})  # a device override or cable naming a switch or host that is not there


def _references_to_left_out(findings: list[Finding], left_out: tuple[tuple, ...]) -> list[Finding]:
    """While items are left out, a device override or cable that names no generated switch or host may name one of
    theirs: it uses them, so it is folded under the error that left them out (root cause first)."""
    if not left_out:
        return findings
    return [replace(f, uses=(*f.uses, *left_out)) if f.code in _NAME_REFS else f for f in findings]
_CHECKING: list[tuple[Result, SourceMap]] = []  # what a forked checker checks (inherited, never pickled)


def _checks(res: Result, src: SourceMap) -> Checked:
    """The topology and plan rules and the solver, on an expanded and allocated fabric."""
    if res.inventory is not None and res.inventory.is_infiniband:
        return _ib_checks(res, src)
    inv, topo, plan = res.inventory, res.topology, res.plan
    assert inv is not None and topo is not None and plan is not None
    index = link_index(topo)  # one index of the links, shared by the buffer rules and the solver
    findings = [*check_topology(inv, topo, src), *check_buffers(inv, topo, src, index), *check_asic(inv, topo, src),
                *check_mlag(inv, topo, src),
                *check_vlans(inv, topo, src), *check_bundles(inv, topo, src), *check_system(inv, topo, src),
                *check_hosts(inv, src), *check_plan(inv, topo, plan, src),
                *check_pins(inv, topo, plan, src)]
    raw = check_raw(inv, topo, src)
    if inv.raw and not has_errors([*raw, *(f for f in res.findings if f.code.startswith("RAW"))]):
        # the raw values that replace managed ones, seen in the rendered files (raw blocks without errors only)
        from railfabric.configs.raw_overrides import raw_overrides

        raw += raw_overrides(inv, topo, plan, src)
    report, solver_findings = solve(inv, topo, plan, src, index)
    return findings + raw + solver_findings, report


def _ib_checks(res: Result, src: SourceMap) -> Checked:
    """An InfiniBand fabric (nothing allocated): the topology rules, the solver (capacity, ports, rails, failures,
    reachability, bisection, latency: they read the topology only) and the subnet's rules
    (railfabric/checks/rules/ib_rules.py); the report gains an `infiniband` section."""
    from railfabric.checks.rules.ib_rules import check_ib, ib_report
    from railfabric.topology.infiniband import ib_fabric

    inv, topo = res.inventory, res.topology
    assert inv is not None and topo is not None
    index = link_index(topo)
    findings = check_topology(inv, topo, src)
    # The solver reads the topology; of the Ethernet routing it would read BFD (failure detection), the ECMP width
    # (BGP maximum-paths) and route summarization, which an InfiniBand subnet has not (the SM routes over every
    # link): they are switched off for it and left out of the report.
    routing = inv.routing.model_copy(update={"bfd": False, "ecmp": inv.routing.ecmp.model_copy(
        update={"width": 1 << 30})})
    report, solver_findings = solve(inv.model_copy(update={"routing": routing}), topo, None, src, index)
    report["capacity"].pop("ecmp_width", None)
    for key in ("detection", "summarization"):
        report["failures"].pop(key, None)
    if inv.infiniband is not None:  # else IB016 said so
        fab = ib_fabric(inv, topo)
        findings += check_ib(inv, topo, fab, src)
        report["infiniband"] = ib_report(fab)
    return findings + solver_findings, report


def _checks_forked() -> Checked:
    gc.disable()  # as in the parent: a million acyclic objects
    return _checks(*_CHECKING[0])


def _can_fork() -> bool:
    return can_fork() and available_cpus() >= 2


def _checks_beside(res: Result, src: SourceMap, meanwhile: Callable[[Result], T]) \
        -> tuple[Checked, T | None, BaseException | None]:
    """The checks in a forked process while `meanwhile(res)` runs here: (checked, its value, its exception). A
    checker process that cannot start or dies is replaced by checking here."""
    import multiprocessing

    _CHECKING[:] = [(res, src)]
    pool: ProcessPoolExecutor | None = None
    future: Future[Checked] | None = None
    try:
        try:
            pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
            future = pool.submit(_checks_forked)
        except OSError:
            future = None
        extra: T | None = None
        failure: BaseException | None = None
        try:
            extra = meanwhile(res)
        except Exception as exc:  # re-raised by the caller unless the checks explain it
            failure = exc
        checked: Checked | None = None
        if future is not None:
            try:
                checked = future.result()
            except Exception:  # died (BrokenProcessPool) or failed: check here, where a rule's own bug is raised
                checked = None
        return (checked if checked is not None else _checks(res, src)), extra, failure
    finally:
        _CHECKING[:] = []
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _validate(loaded: Loaded, res: Result) -> tuple[Inventory | None, SourceMap]:
    """Schema and intent rules. An item (pod, segment, host group, device override, model, cable) that fails the
    schema or a blocking rule is left out with what depends on it, and the rules run again on the rest, so every
    later check still runs there (SKIP001 names each item left out and why). Appends the findings; returns the
    (pruned) Inventory, or None when the run must stop (`res.skipped` says which stages did not run and why)."""
    pruned = Pruned(loaded)
    first = True
    while True:
        data, view = pruned.data()
        data, refused = refusals(data, view)  # Ethernet-only keys of an InfiniBand inventory (IB001-IB015)
        if first:
            res.findings += refused
        inv, errors = validate(data)
        if inv is None:
            if first:  # later rounds only see what leaving items out did: never reported
                res.findings += schema_findings(data, errors, view, view.item_of)
            first = False
            if not pruned.drop(error_paths(data, errors), view, "it does not validate"):
                res.skipped = pruned.stopped(pruned.stop_reason or "the inventory does not validate outside any pod, "
                                             "segment, host group, device override, model, super_spines or system",
                                             STAGES[1:])
                res.findings += pruned.findings()
                return None, view
            continue
        first = False
        res.stage_reached = "intent"
        intent_findings = check_intent(inv, view)
        blocking = [f for f in intent_findings if f.code in BLOCKING and f.severity is Severity.ERROR]
        if not blocking:
            res.findings += intent_findings + pruned.findings()
            res.pruned = pruned.items()
            res.left_out = tuple(sorted(pruned.gone, key=str))
            view.recording = False
            return inv, view
        if not pruned.drop_findings(blocking, view):
            res.findings += intent_findings + pruned.findings()
            res.skipped = pruned.stopped(", ".join(sorted({f.code for f in blocking})) + " outside any pod, "
                                         "segment, host group, device override, model, super_spines or system",
                                         STAGES[2:])
            return None, view


def _item_of(path: tuple) -> tuple | None:
    """The deepest item (a pod, segment, host group, device override, model, cable) that `path` lies in."""
    best: tuple | None = None
    for pat in _ITEMS:
        fits = len(path) >= len(pat) and all(isinstance(el, t) and not isinstance(el, bool) if isinstance(t, type)
                                             else el == t for el, t in zip(path, pat, strict=False))
        if fits and (best is None or len(pat) > len(best)):
            best = path[:len(pat)]
    return best


class _View(SourceMap):
    """The source map seen through a pruned tree: list indices of the pruned data are translated back to the
    inventory's own, so every finding still points at its file:line:col; records which path each location served."""

    def __init__(self, base: SourceMap, keep: dict[tuple, list[int]]) -> None:
        super().__init__(base.values, base.keys, base.files)
        self._base = base
        self._keep = keep
        self.seen: dict[Location, list[tuple]] = defaultdict(list)
        self.recording = True  # only the validation rounds need to know which path a location served

    def original(self, path: tuple) -> tuple:
        if not self._keep:  # nothing was pruned: the paths are the inventory's own
            return tuple(path)
        out: list = []
        for el in path:
            kept = self._keep.get(tuple(out)) if isinstance(el, int) else None
            out.append(kept[el] if kept is not None and 0 <= el < len(kept) else el)
        return tuple(out)

    def item_of(self, path: tuple) -> tuple:
        """The inventory path of the item (pod, segment, model, ...) that `path` of the pruned tree lies in."""
        return _item_of(self.original(path)) or ()

    def loc(self, path: tuple) -> Location | None:
        return self._lookup(self._base.loc, path)

    def key_loc(self, path: tuple) -> Location | None:
        return self._lookup(self._base.key_loc, path)

    def _lookup(self, find: Callable[[tuple], Location | None], path: tuple) -> Location | None:
        orig = self.original(tuple(path))
        where = find(orig)
        if where is not None and self.recording:
            self.seen[where].append(orig)
        return where


class Pruned:
    """The items left out of a run because they fail the schema or a blocking rule (SKIP001 says which and why)."""

    def __init__(self, loaded: Loaded) -> None:
        self.loaded = loaded
        self.gone: dict[tuple, str] = {}  # inventory path of a left-out item → why
        self.reported: list[Finding] = []  # the blocking findings that made items go
        self.stop_reason = ""  # why leaving items out cannot go on (everything would go)

    def data(self) -> tuple[dict, _View]:
        keep: dict[tuple, list[int]] = {}
        data = self._copy(self.loaded.data, (), keep) if self.gone else self.loaded.data
        assert isinstance(data, dict)  # the copy of a dict is a dict
        return data, _View(self.loaded.source, keep)

    def _copy(self, node: object, path: tuple, keep: dict[tuple, list[int]]) -> object:
        if isinstance(node, dict):
            return {k: self._copy(v, (*path, k), keep) for k, v in node.items() if (*path, k) not in self.gone}
        if isinstance(node, list):
            idx = [i for i in range(len(node)) if (*path, i) not in self.gone]
            if len(idx) != len(node):
                keep[path] = idx
            return [self._copy(node[i], (*path, i), keep) for i in idx]
        return node

    def _value(self, path: tuple) -> object:
        node: object = self.loaded.data
        for el in path:
            try:
                node = node[el]  # type: ignore[index]
            except (KeyError, IndexError, TypeError):
                return None
        return node

    def _commit(self, items: dict[tuple, str]) -> bool:
        """Leave `items` out, and the parent of a list they would empty; False when that reaches the top."""
        gone = {**self.gone, **items}
        changed = True
        while changed:
            changed = False
            for item, why in self._dependents(gone).items():
                if item not in gone:
                    gone[item] = why
                    changed = True
            for item in list(gone):
                parent_list = item[:-1]
                if not parent_list:
                    continue  # a section (super_spines, system): nothing above it to empty
                children = self._value(parent_list)
                if parent_list[-1] not in _NON_EMPTY or parent_list[-1] in _MODELS \
                        or not isinstance(children, list | dict):
                    continue  # a model table emptied: its users are left out with it (_dependents)
                keys = range(len(children)) if isinstance(children, list) else list(children)
                if all((*parent_list, k) in gone for k in keys):
                    owner = _item_of(parent_list[:-1]) if len(parent_list) > 1 else None
                    if owner is None or owner != parent_list[:-1]:
                        child = (*parent_list, next(iter(keys)))
                        self.stop_reason = (f"every item of {dotted(parent_list)} would be left out "
                                            f"({dotted(child)}: {gone[child]})")
                        return False
                    if owner not in gone:
                        child = (*parent_list, next(iter(keys)))
                        gone[owner] = (f"every one of its {parent_list[-1]} is left out "
                                       f"({dotted(child[len(owner):])}: {gone[child]})")
                        changed = True
        self.gone = gone
        return True

    def _dependents(self, gone: dict[tuple, str]) -> dict[tuple, str]:
        """The items that use a left-out item: what names a left-out model (super-spines, a pod's spines, a
        segment's rail switches, a host group, a device override), and the pods with spines under left-out
        super-spines (their uplinks go there)."""
        out: dict[tuple, str] = {}
        data = self.loaded.data if isinstance(self.loaded.data, dict) else {}

        def named(path: tuple, key: str, table: str) -> None:
            name = self._value((*path, key))
            if isinstance(name, str) and (table, name) in gone:
                out.setdefault(path, f"it uses {table[:-1].replace('_', ' ')} {name!r}, which is left out")

        ss = data.get("super_spines")
        if isinstance(ss, dict):
            named(("super_spines",), "model", "switch_models")
        pods = data.get("pods")
        for pi, pod in enumerate(pods if isinstance(pods, list) else []):
            if not isinstance(pod, dict):
                continue
            if isinstance(pod.get("spines"), dict):
                name = self._value(("pods", pi, "spines", "model"))
                if isinstance(name, str) and ("switch_models", name) in gone:
                    out.setdefault(("pods", pi), f"its spines use switch model {name!r}, which is left out")
                if ("super_spines",) in gone:
                    out.setdefault(("pods", pi), "its spines uplink to the super-spines, which are left out")
            segs = pod.get("segments")
            for si, seg in enumerate(segs if isinstance(segs, list) else []):
                named(("pods", pi, "segments", si), "rail_switch_model", "switch_models")
                groups = seg.get("host_groups") if isinstance(seg, dict) else None
                for gi in range(len(groups) if isinstance(groups, list) else 0):
                    named(("pods", pi, "segments", si, "host_groups", gi), "model", "host_models")
        devices = data.get("devices")
        for key in devices if isinstance(devices, dict) else {}:
            named(("devices", key), "model", "switch_models")
        return out

    def drop(self, paths: list[tuple], view: _View, reason: str) -> bool:
        """Leave out the items that schema errors at `paths` (data paths of this round) lie in."""
        items: dict[tuple, list[tuple]] = defaultdict(list)
        for path in paths:
            item = _item_of(view.original(path))
            if item is None or item in self.gone:
                return False
            items[item].append(view.original(path))
        if not items:
            return False
        why = {item: f"{reason} ({len(where)} schema error{'s' if len(where) > 1 else ''}, listed here)"
               for item, where in items.items()}
        return self._commit(why)

    def drop_findings(self, blocking: list[Finding], view: _View) -> bool:
        """Leave out the items that blocking findings are about; their findings stay reported, except an unknown
        model reference to a model that is itself left out (that is said once, as the reason)."""
        why: dict[tuple, str] = {}
        report: list[Finding] = []
        for f in blocking:
            paths = view.seen.get(f.location) if f.location is not None else None
            item = _item_of(max(paths, key=len)) if paths else None
            if item is None or item in self.gone:
                return False
            name = self._value(max(paths, key=len)) if paths else None
            table = _REFS.get(f.code)
            if table and isinstance(name, str) and (table, name) in self.gone:
                why.setdefault(item, f"it uses {table[:-1].replace('_', ' ')} {name!r}, which is left out")
                continue
            why.setdefault(item, f"{f.code} {f.message}")
            report.append(f)
        if not why or not self._commit(why):
            return False
        self.reported += report
        return True

    def _label(self, item: tuple) -> str:
        ident = self._value((*item, "id"))
        if item[0] == "pods" and len(item) == 2 and isinstance(ident, int):
            return f"{dotted(item)} (pod {ident})"
        if len(item) == 4 and isinstance(ident, int):
            return f"{dotted(item)} (segment {self._value((item[0], item[1], 'id'))}/{ident})"
        return dotted(item)

    def items(self) -> list[str]:
        return [self._label(i) for i in self._top()]

    def _top(self) -> list[tuple]:
        return sorted((i for i in self.gone if not any(i[:n] in self.gone for n in range(1, len(i)))), key=str)

    def findings(self) -> list[Finding]:
        out = list(self.reported)
        for item in self._top():
            out.append(Finding(
                "SKIP001", f"checks of {self._label(item)} skipped: {self.gone[item]}; every other item was checked "
                "(intent rules, topology, allocation, solver)", self.loaded.source.loc(item),
                "fix the errors above and run again for this item's own checks; nothing is rendered while any "
                "error remains", Severity.INFO))
        return out

    def stopped(self, reason: str, stages: tuple[str, ...]) -> str:
        return f"not checked: {', '.join(stages)} ({reason})"
