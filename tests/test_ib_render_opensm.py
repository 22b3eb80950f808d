"""The real OpenSM 3.3.23 on the files `fabric render` writes for an InfiniBand inventory, in ibsim (no root, no
hardware): the planned partitions.conf (tenant partitions with EMPTY member lists, GUIDs not bound yet) parses, the
subnet comes up, and it is fail-closed: every HCA holds only the default partition's PKey, limited as planned.
Skips, naming the packages, when ibsim-utils / opensm / infiniband-diags are missing.

The fabric: tests/test_ib_inventory.small() (2 hosts × 2 HCAs, 2 leaves, 2 spines) with default_partition limited
and two tenant partitions; the engine minhop (no GUID files needed before the binding).
Expected PKey table of each HCA, by hand: the default partition 0x7fff without the full-member bit 0x8000
(limited), nothing else (the tenants' lists are empty) → {0x7fff}.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from railfabric.infiniband.binding import bind
from railfabric.infiniband.discovery import parse
from railfabric.infiniband.netfile import net_file
from railfabric.infiniband.opensm_conf import Paths, opensm_conf
from railfabric.infiniband.routes import parse_dump_fts
from railfabric.infiniband.sim import Sim, missing
from railfabric.inventory.load import load_inventory
from railfabric.inventory.schema_check import validate
from railfabric.outputs.infiniband import IbSources, ib_files
from railfabric.topology import expand
from railfabric.topology.infiniband import ib_fabric
from tests.helpers import dump, write_files
from tests.test_ib_inventory import small

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")


def test_the_planned_partitions_file_loads_and_is_fail_closed(tmp_path: Path) -> None:
    data = small(default_partition={"membership": "limited"},
                 partitions=[{"name": "tenant-a", "pkey": "0x0a01", "hosts": ["h01"]},
                             {"name": "tenant-b", "pkey": "0x0a02", "hosts": ["h02"], "ipoib": True}])
    inv, errors = validate(load_inventory(write_files(tmp_path / "inv", {"fabric.yml": dump(data)})).data)
    assert inv is not None, errors
    topo = expand(inv)
    fab = ib_fabric(inv, topo)
    rendered = ib_files(fab, IbSources(topo, None))
    partitions = rendered["partitions"]["infiniband/partitions.conf"]
    assert "tenant-a=0x0a01 : ;" in partitions.splitlines() and "tenant-b=0x0a02, ipoib : ;" in partitions
    work = tmp_path / "sim"
    work.mkdir()
    (work / "partitions.conf").write_text(partitions)
    (work / "fabric.net").write_text(net_file(fab))
    run_fab = replace(fab, routing_engine="minhop")
    master = run_fab.master
    with Sim(work, f"railfabric-ib-test-{uuid.uuid4().hex[:8]}") as sim:
        sim.start(work / "fabric.net")
        disc = sim.run(["ibnetdiscover"], master.node)
        assert disc.returncode == 0, disc.stderr
        bound = bind(fab, parse(disc.stdout))
        assert bound.binding is not None, bound.differences
        conf = work / "opensm.conf"
        conf.write_text(opensm_conf(run_fab, master, Paths(partition_config_file=str(work / "partitions.conf"),
                                                           log_file=str(work / "opensm.log"), flush_log=True)))
        up = sim.run(["opensm", "-F", str(conf), "-o"], master.node, timeout=120)
        log = (work / "opensm.log").read_text(errors="replace")
        assert "SUBNET UP" in log, (up.stdout + up.stderr)[-800:]
        assert not re.search(r"PARSE ERROR|Unrecognized token|Invalid Cached Option Value", up.stdout + log)
        tables = parse_dump_fts(sim.run(["dump_fts"], master.node).stdout)
        lids = {h.name: tables.lids.get(bound.binding.port_guids[h.name]) for h in fab.hcas}
        assert all(lid is not None for lid in lids.values()), lids
        for name, lid in lids.items():
            out = sim.run(["smpquery", "pkeys", str(lid)], master.node).stdout
            keys = {int(v, 16) for line in out.splitlines() if re.match(r"\s*\d+:", line)
                    for v in line.split(":", 1)[1].split() if int(v, 16)}
            assert keys == {0x7FFF}, (name, out)
