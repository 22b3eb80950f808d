"""One OpenSM sweep of a planned fabric on the simulated subnet, for the tests that read what OpenSM programmed
(tests/test_lab_ib_hosts.py: PKey tables, tests/test_lab_ib_vlarb.py: VL arbitration tables): ibsim with the net
file, GUIDs bound from ibnetdiscover, the GUID files and partitions.conf written, the real OpenSM run once (`-o`)
with the rendered opensm.conf, the LIDs read from dump_fts. Uses railfabric.infiniband read-only."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from railfabric.infiniband.binding import Binding, bind
from railfabric.infiniband.discovery import parse
from railfabric.infiniband.model import IbFabric
from railfabric.infiniband.netfile import net_file
from railfabric.infiniband.opensm_conf import Paths, opensm_conf
from railfabric.infiniband.partitions import partitions_conf
from railfabric.infiniband.routes import parse_dump_fts
from railfabric.infiniband.sim import Sim


@dataclass
class Swept:
    sim: Sim
    host: str  # the node the SM ran on (the tools attach there)
    binding: Binding
    lids: dict[int, int]  # port GUID -> LID

    def query(self, *args: str) -> str:
        return self.sim.run(list(args), self.host).stdout

    def lid(self, node: str) -> int:
        return self.lids[self.binding.port_guids[node]]


@contextmanager
def swept(fab: IbFabric, prefix: str) -> Iterator[Swept]:
    work = Path(tempfile.mkdtemp(prefix=f"railfabric-{prefix}-"))
    try:
        with Sim(work, f"railfabric-{prefix}-{os.getpid()}") as sim:
            (work / "fabric.net").write_text(net_file(fab))
            sim.start(work / "fabric.net")
            host = fab.master.node
            bound = bind(fab, parse(sim.run(["ibnetdiscover"], host).stdout))
            assert bound.binding is not None, bound.differences
            b = bound.binding
            (work / "roots").write_text(b.root_file(fab))
            (work / "cns").write_text(b.cn_file(fab))
            (work / "partitions.conf").write_text(partitions_conf(fab, b.port_guids))
            state = work / "sm"
            state.mkdir()
            (work / "opensm.conf").write_text(opensm_conf(fab, fab.master, Paths(
                root_guid_file=str(work / "roots"), cn_guid_file=str(work / "cns"),
                partition_config_file=str(work / "partitions.conf"), log_file=str(state / "opensm.log"),
                dump_files_dir=f"{state}/")))
            once = sim.run(["opensm", "-F", str(work / "opensm.conf"), "-o"], host)
            assert once.returncode == 0, once.stdout[-500:] + once.stderr[-500:]
            assert "SUBNET UP" in (state / "opensm.log").read_text(errors="replace")
            yield Swept(sim, host, b, parse_dump_fts(sim.run(["dump_fts"], host).stdout).lids)
    finally:
        shutil.rmtree(work, ignore_errors=True)
