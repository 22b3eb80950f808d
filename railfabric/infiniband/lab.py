"""The InfiniBand lab: the planned subnet built in ibsim, GUIDs bound from discovery, the real OpenSM started with
the rendered configuration, and the programmed subnet checked against the plan. How ibsim, OpenSM and the diags
run here: railfabric/infiniband/sim.py.

Flow: write the net file (railfabric.infiniband.netfile) -> ibsim -> ibnetdiscover (preloaded, attached to the
master SM's node) into a file -> bind GUIDs from that file as `fabric ib bind` does
(railfabric.infiniband.bindfiles; differences stop the lab, as they would stop a site: each wrong or missing cable is
named) -> the files `fabric ib bind` writes (root/compute-node GUID files, partitions.conf) and one opensm.conf per
SM from the render's own writer (opensm_conf, with the lab's paths and LAB_POLLING appended) -> each SM as
`opensm -F CONF` on its node, the master first -> checks: SUBNET UP with no configuration complaint; the routing
engine that configured the tables is the planned one; the planned master is master and the other SMs standby (their
logs, and sminfo); dump_fts routes (railfabric.infiniband.routes); every HCA's PKey table (smpquery pkeys) and
SL-to-VL table (smpquery sl2vl) as planned; the SA's path records carry each partition's planned SL (saquery, the
QoS policy file); last, the master SM is killed and the standby must take over (railfabric/infiniband/lab_sm.py).
Always torn down; each run has an id and a record of what it started, and a run killed before its teardown is
reaped by the next (railfabric/infiniband/labruns.py).

Faults: `miswire` builds the simulated subnet with the HCA ends of two cables on different leaves swapped (a
server's rail-0 and rail-1 cables crossed); `sm` renders the root GUID file with the leaves instead of the spines
(a wrong root set: ftree refuses the tree and OpenSM falls back to minhop).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

from railfabric.infiniband.bindfiles import (
    ROOT_FILE,
    BindInputError,
    bind_discovered,
    bound_files,
)
from railfabric.infiniband.binding import Binding
from railfabric.infiniband.lab_sm import LAB_POLLING, election, takeover, wait_log
from railfabric.infiniband.labresult import Check, IbLabResult, format_result
from railfabric.infiniband.labruns import IbRun, reap_dead
from railfabric.infiniband.model import (
    DEFAULT_PKEY,
    UPSTREAM_ENGINES,
    Cable,
    IbFabric,
    Membership,
    SubnetManager,
    Tier,
    problems,
)
from railfabric.infiniband.netfile import net_file
from railfabric.infiniband.opensm_conf import Paths, guid_file, opensm_conf
from railfabric.infiniband.partitions import FULL_BIT, expected_pkeys
from railfabric.infiniband.qos_policy import qos_policy
from railfabric.infiniband.routes import check_routes, parse_dump_fts
from railfabric.infiniband.sim import Sim, SimError, missing

FAULTS = ("miswire", "sm")
COMPLAINTS = ("PARSE ERROR", "Unrecognized token", "Invalid Cached Option Value")
_ENGINE = re.compile(r"(\S+) tables configured on all switches")


def miswire(fab: IbFabric) -> tuple[IbFabric, tuple[Cable, Cable]]:
    """The fabric with the HCA ends of the first two leaf-HCA cables on different leaves swapped."""
    hca_cables = [c for c in fab.cables if fab.tier_of(c.a.node) is Tier.LEAF and fab.tier_of(c.z.node) is None]
    pairs = [(c, d) for c in hca_cables[:1] for d in hca_cables if d.a.node != c.a.node]
    if not pairs:
        raise ValueError("the miswire fault needs leaf-HCA cables (leaf first) on two leaves")
    first, second = pairs[0]
    swapped = {first: Cable(first.a, second.z), second: Cable(second.a, first.z)}
    return replace(fab, cables=tuple(swapped.get(c, c) for c in fab.cables)), (first, second)


def run_ib_lab(fab: IbFabric, fault: str | None = None, keep: Path | None = None,
               timeout: float = 60) -> IbLabResult:
    """Run the lab; `keep`: a directory to leave the files and logs in (else a scratch directory, removed)."""
    if fault not in (None, *FAULTS):
        raise ValueError(f"unknown fault {fault!r}: {', '.join(FAULTS)}")
    res = IbLabResult(fab.name, fault)
    planned = problems(fab)
    if fab.routing_engine not in UPSTREAM_ENGINES:
        planned.append(f"routing engine {fab.routing_engine} is NVIDIA's SM only: the lab runs upstream OpenSM")
    if fault == "miswire":
        try:
            miswire(fab)
        except ValueError as e:
            planned.append(str(e))
    if planned:
        res.checks.append(Check("plan", False, "; ".join(planned)))
        return res
    why = missing()
    if why is not None:
        res.checks.append(Check("tools", False, why))
        return res
    res.notes += [str(r) for r in reap_dead()]
    run = IbRun.claim()
    res.run = run.run
    try:
        # absolute: ibsim and OpenSM run in it and in its subdirectories
        workdir = keep.resolve() if keep is not None else Path(tempfile.gettempdir()) / f"{run.sockname}-scratch"
        if keep is None:
            run.add_dir(workdir)  # recorded before it exists
        workdir.mkdir(parents=True, exist_ok=keep is not None)
        try:
            with Sim(workdir, run.sockname, record=run.add_pid) as sim:
                _run(fab, fault, sim, res, timeout)
        except SimError as e:
            res.checks.append(Check("tools", False, str(e)))
        finally:
            if keep is None:
                shutil.rmtree(workdir, ignore_errors=True)
    finally:
        run.finish()
    return res


def _write(res: IbLabResult, workdir: Path, name: str, text: str) -> Path:
    res.files[name] = text
    path = workdir / name
    path.write_text(text)
    return path


def _run(fab: IbFabric, fault: str | None, sim: Sim, res: IbLabResult, timeout: float) -> None:
    built = miswire(fab)[0] if fault == "miswire" else fab
    sim.start(_write(res, sim.workdir, "fabric.net", net_file(built)))
    host = fab.master.node
    disc = sim.run(["ibnetdiscover"], host, timeout)
    discovered = _write(res, sim.workdir, "ibnetdiscover.out", disc.stdout)
    if disc.returncode != 0:
        res.checks.append(Check("topology", False, f"ibnetdiscover exited {disc.returncode}: "
                                                   f"{disc.stderr.strip()[-300:]}"))
        return
    try:  # what `fabric ib bind` does with a site's ibnetdiscover output
        bound = bind_discovered(fab, discovered)
    except BindInputError as e:
        res.checks.append(Check("topology", False, f"ibnetdiscover output not understood: {e}"))
        return
    if bound.binding is None:
        res.checks.append(Check("topology", False, "; ".join(bound.differences)))
        return
    b = bound.binding
    res.checks.append(Check("topology", True, f"{len(fab.switches)} switches, {len(fab.hcas)} HCAs and "
                                              f"{len(fab.cables)} cables discovered as planned"))
    started = _start_sms(fab, fault, b, sim, res, timeout)
    if started is None:
        return
    fts = sim.run(["dump_fts"], host, timeout)
    res.files["dump_fts.out"] = fts.stdout
    tables = parse_dump_fts(fts.stdout)
    res.checks += [Check(c.name, c.ok, c.detail) for c in check_routes(fab, b.node_guids, b.port_guids, tables)]
    lids = {h.name: tables.lids.get(b.port_guids[h.name]) for h in fab.hcas}
    res.checks.append(_pkeys(fab, sim, host, lids, timeout))
    if fab.qos is not None:
        res.checks.append(_sl2vl(fab, sim, host, lids, timeout))
        res.checks.append(_path_sl(fab, sim, host, lids, timeout))
    if len(started[0]) > 1:
        res.checks.append(takeover(fab, *started, b, sim, timeout))


_Started = tuple[list[SubnetManager], dict[str, "subprocess.Popen[bytes]"], dict[str, Path]]


def lab_conf(rendered: str, workdir: Path, state: Path) -> str:
    """The rendered opensm.conf as the lab runs it: its files (named under /etc/opensm/, where `fabric ib bind` and
    the render put them on an SM host) in the lab's directory instead, then the lab's own keys: the SM's log and dump
    directory in its state directory, the log flushed as written, and the faster standby polling (LAB_POLLING)."""
    etc = str(Path(Paths().root_guid_file).parent) + "/"
    lab = [f"# lab only: {etc} is {workdir}/ here", f"log_file {state / 'opensm.log'}", f"dump_files_dir {state}/",
           "force_log_flush TRUE"]
    return rendered.replace(f" {etc}", f" {workdir}/") + "\n".join(lab) + "\n" + LAB_POLLING


def _start_sms(fab: IbFabric, fault: str | None, b: Binding, sim: Sim, res: IbLabResult,
               timeout: float) -> _Started | None:
    """The GUID files and partitions.conf, then each SM as a daemon, the master first (until SUBNET UP), then the
    standbys (until each reports its state). Checks subnet-up, routing-engine and sm-election. Returns the SMs in
    start order with their processes and log files; None: the subnet did not come up, stop."""
    w = sim.workdir
    roots = fab.roots if fault != "sm" else tuple(s for s in fab.switches if s.tier is Tier.LEAF)
    files = bound_files(fab, b)  # what `fabric ib bind` writes into /etc/opensm
    if fault == "sm":
        files[ROOT_FILE] = guid_file(f"roots of {fab.name}", [(s.name, b.node_guids[s.name]) for s in roots])
    for name, text in files.items():
        _write(res, w, name, text)
    policy = qos_policy(fab)
    if policy is not None:
        _write(res, w, "qos-policy.conf", policy)
    order = [fab.master] + [sm for sm in fab.sms if sm is not fab.master]
    logs: dict[str, str] = {}
    procs: dict[str, subprocess.Popen[bytes]] = {}
    log_files: dict[str, Path] = {}
    for i, sm in enumerate(order):
        state = w / f"sm-{sm.node.replace(' ', '_')}"
        state.mkdir(parents=True, exist_ok=True)
        conf = _write(res, w, "opensm.conf" if i == 0 else f"opensm-{state.name[3:]}.conf",
                      lab_conf(opensm_conf(fab, sm), w, state))
        proc = procs[sm.node] = sim.spawn(["opensm", "-F", str(conf)], sm.node, state, state / "opensm.out")
        log_files[sm.node] = state / "opensm.log"
        want = ("SUBNET UP",) if i == 0 else ("Entering STANDBY state", "Entering MASTER state")
        logs[sm.node] = wait_log(log_files[sm.node], want, proc, timeout)
        out = (state / "opensm.out").read_text(errors="replace")
        res.files[f"{state.name}/opensm.log"], res.files[f"{state.name}/opensm.out"] = logs[sm.node], out
        if i == 0:
            complaints = [line.strip() for line in out.splitlines() if any(c in line for c in COMPLAINTS)]
            up = "SUBNET UP" in logs[sm.node] and not complaints and proc.poll() is None
            res.checks.append(Check("subnet-up", up, "SUBNET UP" if up else "; ".join(
                [f"no SUBNET UP from the master on {sm.node}" if "SUBNET UP" not in logs[sm.node] else "SUBNET UP"]
                + ([f"opensm exited {proc.returncode}"] if proc.poll() is not None else []) + complaints[:4])))
            engines = sorted(set(_ENGINE.findall(logs[sm.node])))
            res.checks.append(Check("routing-engine", engines == [fab.routing_engine],
                                    f"{', '.join(engines) or 'no engine'} configured the tables (planned "
                                    f"{fab.routing_engine})"))
            if not up:
                return None
    res.checks.append(election(fab, order, logs, b, sim, timeout))
    return order, procs, log_files


def _pkeys(fab: IbFabric, sim: Sim, host: str, lids: dict[str, int | None], timeout: float) -> Check:
    wrong: list[str] = []
    outs = _query(sim, "pkeys", host, lids, timeout)
    for name, want in expected_pkeys(fab).items():
        # "   0: 0x7fff 0x8a01 0x0000 ..." (8 PKeys a line, index first); empty entries are 0x0000
        got = frozenset(int(v, 16) for line in outs[name].splitlines() if re.match(r"\s*\d+:", line)
                        for v in line.split(":", 1)[1].split() if int(v, 16))
        if got != want:
            wrong.append(f"{name}: {_keys(got)} (planned {_keys(want)})")
    return Check("pkeys", not wrong, f"{len(lids) - len(wrong)} of {len(lids)} HCA PKey tables as planned"
                 + (f"; {'; '.join(wrong[:4])}" if wrong else ""))


def _query(sim: Sim, what: str, host: str, lids: dict[str, int | None], timeout: float) -> dict[str, str]:
    """`smpquery <what> <lid>` of every HCA with a LID (the others: empty output)."""
    names = [name for name, lid in lids.items() if lid is not None]
    runs = sim.run_many([["smpquery", what, str(lids[name])] for name in names], host, timeout)
    out = {name: "" for name in lids}
    out.update({name: run.stdout for name, run in zip(names, runs, strict=True)})
    return out


def _keys(keys: frozenset[int]) -> str:
    return " ".join(f"{k:#06x}" for k in sorted(keys)) or "none"


def _sl2vl(fab: IbFabric, sim: Sim, host: str, lids: dict[str, int | None], timeout: float) -> Check:
    assert fab.qos is not None
    want = list(fab.qos.sl2vl)
    wrong: list[str] = []
    outs = _query(sim, "sl2vl", host, lids, timeout)
    for name, out in outs.items():
        # "ports: in  0, out  0: | 0| 1| 0|...|" (smpquery sl2vl on an HCA: one row)
        rows = [line.rsplit(":", 1)[1] for line in out.splitlines() if line.startswith("ports:")]
        got = [int(v) for v in rows[0].strip().strip("|").split("|") if v.strip().isdigit()] if rows else []
        if got != want:
            wrong.append(f"{name}: {got} (planned {want})")
    return Check("sl2vl", not wrong, f"{len(lids) - len(wrong)} of {len(lids)} HCA SL-to-VL tables as planned"
                 + (f"; {'; '.join(wrong[:2])}" if wrong else ""))


_PR_SL = re.compile(r"^\s*sl\.+0x([0-9a-fA-F]+)\s*$", re.MULTILINE)


def _path_sl(fab: IbFabric, sim: Sim, host: str, lids: dict[str, int | None], timeout: float) -> Check:
    """For the default partition and each planned one: a path record between two of its members (one of them full,
    else they cannot talk) asked from the SA (saquery -p --src-to-dst SLID:DLID --pkey PKEY, full-member form); its
    SL must be the planned one (qos-ulps)."""
    assert fab.qos is not None
    cases: list[tuple[str, int, list[tuple[str, Membership]]]] = [
        ("Default", DEFAULT_PKEY, [(h.name, fab.default_membership) for h in fab.hcas])]
    cases += [(p.name, p.pkey, [(m.node, m.membership) for m in p.members]) for p in fab.partitions]
    shown, wrong = [], []
    for name, pkey, members in cases:
        full = [n for n, m in members if m is Membership.FULL and lids[n] is not None]
        others = [n for n, _ in members if n not in full[:1] and lids[n] is not None]
        if not full or not others:
            shown.append(f"{name}: no pair to ask")
            continue
        src, dst, want = full[0], others[0], fab.qos.sl_of(pkey)
        out = sim.run(["saquery", "-p", "--src-to-dst", f"{lids[src]}:{lids[dst]}", "--pkey", f"{pkey | FULL_BIT:#x}"],
                      host, timeout).stdout
        found = _PR_SL.search(out)
        got = int(found.group(1), 16) if found else None
        shown.append(f"{name} SL {got}")
        if got != want:
            wrong.append(f"{name} ({src} -> {dst}): SL {got} (planned {want})")
    return Check("path-sl", not wrong, ", ".join(shown) + (f"; {'; '.join(wrong)}" if wrong else ""))


__all__ = ["FAULTS", "Check", "IbLabResult", "format_result", "miswire", "run_ib_lab"]
